// The built-in parts of a run (see builtin_parts.hpp). Each wrapper builds its model objects
// in the order they depend on one another and owns them for the run.
#include "models/builtin_parts.hpp"

#include <memory>
#include <optional>
#include <vector>

#include "models/accounting/cost_meter.hpp"
#include "models/accounting/storage_cost_meter.hpp"
#include "models/cluster/cluster.hpp"
#include "models/controllers/metrics_sampler.hpp"
#include "models/controllers/network_latency.hpp"
#include "models/coupling/job_traffic.hpp"
#include "models/coupling/model_speeds.hpp"
#include "models/coupling/model_traffic.hpp"
#include "models/coupling/storage_coupling.hpp"
#include "models/network/collectives.hpp"
#include "models/network/flow_network.hpp"
#include "models/simulation.hpp"
#include "models/spot/spot_market.hpp"
#include "models/storage/storage_tiers.hpp"
#include "models/topology/topology.hpp"
#include "models/trace/network_tables.hpp"
#include "models/trace/schema_tables.hpp"
#include "models/trace/trace_recorder.hpp"

namespace gcsim::models {

namespace {

// Model-described jobs' speeds. It observes no signal: the cluster asks it for a starting
// job's speed (it registers itself as the cluster's RateProvider), so every observer of
// job_started sees the speed already set.
class SpeedsPart final : public Component {
 public:
  explicit SpeedsPart(RunContext& ctx) : speeds(ctx.scenario, ctx.cluster) {}
  ModelSpeeds speeds;
};

class CostsPart final : public Component {
 public:
  explicit CostsPart(RunContext& ctx) : costs(ctx.scenario, ctx.cluster, ctx.ledger) {}
  void finish(RunSummary& s) override {
    s.total_cost_usd = costs.total_cost_usd();
    s.busy_cost_usd = costs.busy_cost_usd();
  }
  CostMeter costs;
};

class TracePart final : public Component {
 public:
  explicit TracePart(RunContext& ctx)
      : recorder(*ctx.trace, ctx.scenario, ctx.seed, ctx.replication, ctx.cluster, *ctx.costs, *ctx.speeds, ctx.ledger,
                 ctx.budgets) {
    recorder.record_absolute_paths(ctx.options.absolute_paths);
    if (ctx.options.scheduler) recorder.record_scenario_text(ctx.options.scheduler->source_text);
  }
  // Last of the parts to finish (the first built of those that write the trace): the root
  // attributes, with the run's wall clock.
  void finish(RunSummary& s) override { recorder.finish(s.wall_clock_s); }
  TraceRecorder recorder;
};

class MarketPart final : public Component {
 public:
  MarketPart(RunContext& ctx, std::vector<SpotPoolSpec> pools)
      : market(ctx.engine, ctx.seed, ctx.replication, std::move(pools), ctx.cluster) {
    ctx.cluster.set_supply(&market);  // elastic spot pools' scale-outs and scale-ins
  }
  void start() override { market.start(); }
  SpotMarket market;
};

// The network exists only when the scenario describes one; its flows share links by
// max-min fairness and it advances as a resource model of the engine.
class NetworkPart final : public Component {
 public:
  explicit NetworkPart(RunContext& ctx)
      : trace_(ctx.trace), cluster_(ctx.cluster), topo_(network::cluster_topology(ctx.scenario)), net_(ctx.engine) {
    net_.add_links(topo_);
    ctx.engine.add_resource_model(&net_);
    collectives_ = std::make_unique<network::CollectiveRunner>(ctx.engine, net_, topo_);
    traffic_ = std::make_unique<network::JobTraffic>(ctx.engine, ctx.cluster, *collectives_, topo_);
    model_traffic_ = std::make_unique<network::ModelTraffic>(ctx.engine, ctx.cluster, *ctx.speeds, *collectives_, topo_);
    if (ctx.trace && ctx.scenario.output.flows) flow_recorder_ = std::make_unique<FlowRecorder>(*ctx.trace, net_);
  }
  void finish(RunSummary&) override {
    if (trace_) write_link_table(*trace_, topo_, net_, cluster_.end_time());
  }
  const network::FlowNetwork& network() const { return net_; }
  const topology::Topology& topology() const { return topo_; }

 private:
  trace::TraceFile* trace_;
  const Cluster& cluster_;
  topology::Topology topo_;
  network::FlowNetwork net_;
  std::unique_ptr<network::CollectiveRunner> collectives_;
  std::unique_ptr<network::JobTraffic> traffic_;
  std::unique_ptr<network::ModelTraffic> model_traffic_;
  std::unique_ptr<FlowRecorder> flow_recorder_;
};

// Readers, staging copies and checkpoint writes of a storage device share its time (a
// resource model of the engine, like the network); stored and read data is charged by an
// observer of the storage model.
class StoragePart final : public Component {
 public:
  explicit StoragePart(RunContext& ctx) : tiers_(ctx.engine) {
    ctx.engine.add_resource_model(&tiers_);
    storage_ = std::make_unique<StorageCoupling>(ctx.scenario, ctx.engine, ctx.cluster, *ctx.speeds, tiers_);
    costs_ = std::make_unique<StorageCostMeter>(ctx.scenario, ctx.engine, ctx.cluster, *storage_, ctx.ledger);
  }
  void finish(RunSummary& s) override { s.storage_cost_usd = costs_->cost_usd(); }

 private:
  StorageTiers tiers_;
  std::unique_ptr<StorageCoupling> storage_;
  std::unique_ptr<StorageCostMeter> costs_;
};

}  // namespace

ComponentEntry model_speeds_component() {
  return {"model-speeds", "the live step time of every running model-described job (its starting speed, and changes)",
          BUILD_SPEEDS, [](RunContext& ctx) -> std::unique_ptr<Component> {
            auto p = std::make_unique<SpeedsPart>(ctx);
            ctx.speeds = &p->speeds;
            return p;
          }};
}

ComponentEntry cost_meter_component() {
  return {"cost-meter", "node sessions and job runs billed into the ledger (docs/pricing.md)", BUILD_COSTS,
          [](RunContext& ctx) -> std::unique_ptr<Component> {
            auto p = std::make_unique<CostsPart>(ctx);
            ctx.costs = &p->costs;
            return p;
          }};
}

ComponentEntry trace_component() {
  return {"trace", "the trace recorder (docs/trace-format.md), when the run writes a trace", BUILD_TRACE,
          [](RunContext& ctx) -> std::unique_ptr<Component> {
            if (!ctx.trace) return nullptr;
            auto p = std::make_unique<TracePart>(ctx);
            ctx.recorder = &p->recorder;
            return p;
          }};
}

ComponentEntry metrics_component() {
  return {"metrics", "simulated GPU metrics into the trace's /metrics table (`output.metrics`, docs/metrics.md)",
          BUILD_EXTENSIONS, [](RunContext& ctx) -> std::unique_ptr<Component> {
            const sim::SimTime every = ctx.scenario.output.metrics_every;
            if (!ctx.trace || every <= sim::SimTime::zero()) return nullptr;
            ctx.trace->set_attribute(trace::schema::attribute::METRICS_EVERY_S, every.seconds());
            if (!ctx.scenario.alert_rules_yaml.empty())
              ctx.trace->set_attribute(trace::schema::attribute::ALERT_RULES, std::string_view(ctx.scenario.alert_rules_yaml));
            trace::Table& table = add_table(*ctx.trace, trace::schema::METRICS, 16384);
            return std::make_unique<MetricsSampler>(ctx.engine, ctx.scenario, ctx.cluster, ctx.speeds, table, every);
          }};
}

ComponentEntry network_latency_component() {
  return {"network-latency",
          "the inter-node latency of the simulated metrics into the trace's /node_latency table (`output.metrics` "
          "with `network:`, docs/metrics.md)",
          BUILD_EXTENSIONS, [](RunContext& ctx) -> std::unique_ptr<Component> {
            const sim::SimTime every = ctx.scenario.output.metrics_every;
            if (!ctx.trace || every <= sim::SimTime::zero() || !ctx.network) return nullptr;
            trace::Table& table = add_table(*ctx.trace, trace::schema::NODE_LATENCY, 16384);
            return std::make_unique<NetworkLatencySampler>(ctx.engine, ctx.cluster, *ctx.network, *ctx.topology, table,
                                                           every);
          }};
}

ComponentEntry spot_market_component() {
  return {"spot-market", "interruptions, availability and replacements of spot pools (docs/spot.md)", BUILD_MARKET,
          [](RunContext& ctx) -> std::unique_ptr<Component> {
            std::vector<SpotPoolSpec> pools = spot_pools(ctx.scenario);
            if (pools.empty()) return nullptr;
            return std::make_unique<MarketPart>(ctx, std::move(pools));
          }};
}

ComponentEntry network_component() {
  return {"network", "the flow network: jobs' collectives and model jobs' gradient traffic (`network:`)", BUILD_NETWORK,
          [](RunContext& ctx) -> std::unique_ptr<Component> {
            if (!ctx.scenario.network) return nullptr;
            auto p = std::make_unique<NetworkPart>(ctx);
            ctx.network = &p->network();
            ctx.topology = &p->topology();
            return p;
          }};
}

ComponentEntry storage_component() {
  return {"storage", "storage tiers: reads, staging, checkpoint writes and their charges (`storage:`)", BUILD_STORAGE,
          [](RunContext& ctx) -> std::unique_ptr<Component> {
            if (!ctx.scenario.storage) return nullptr;
            return std::make_unique<StoragePart>(ctx);
          }};
}

}  // namespace gcsim::models
