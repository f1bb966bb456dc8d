// One run (see simulation.hpp).
#include "models/simulation.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <limits>
#include <memory>

#include "models/accounting/cost_meter.hpp"
#include "models/accounting/storage_cost_meter.hpp"
#include "models/cluster/cluster.hpp"
#include "models/controllers/budgets.hpp"
#include "models/coupling/job_traffic.hpp"
#include "models/coupling/model_speeds.hpp"
#include "models/coupling/model_traffic.hpp"
#include "models/coupling/storage_coupling.hpp"
#include "models/network/collectives.hpp"
#include "models/network/flow_network.hpp"
#include "models/pricing/ledger.hpp"
#include "models/scheduler/scheduler_registry.hpp"
#include "models/spot/spot_market.hpp"
#include "models/storage/storage_tiers.hpp"
#include "models/topology/topology.hpp"
#include "models/trace/network_tables.hpp"
#include "models/trace/trace_recorder.hpp"
#include "models/config/resource_estimate.hpp"
#include "models/coupling/expand_workload.hpp"
#include "sim/engine.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::models {

namespace {
// CPU time of the calling thread (POSIX): a run in a sweep's thread counts its own time only.
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
}  // namespace

std::vector<SpotPoolSpec> spot_pools(const Scenario& scenario) {
  std::vector<SpotPoolSpec> pools;
  std::uint32_t first = 0;
  for (const auto& t : scenario.cluster.node_types) {
    if (t.spot) {
      SpotPoolSpec p;
      p.name = t.name;
      p.first_node = first;
      p.count = t.count;
      p.interruptions = t.spot->interruptions;
      p.availability = t.spot->availability;
      p.notice = t.spot->notice;
      p.provisioning = t.spot->provisioning;
      p.spot_price = &t.price.spot_profile;
      p.max_usd_per_hour = t.price.max_usd_per_hour.value_or(std::numeric_limits<double>::infinity());
      pools.push_back(std::move(p));
    }
    first += static_cast<std::uint32_t>(t.slots());
  }
  return pools;
}

RunSummary run_simulation(const Scenario& scenario, const SchedulerRegistry& schedulers, trace::TraceFile* trace,
                          const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  // The loader checks the name; a Scenario built by hand may not have been through it.
  std::unique_ptr<Scheduler> policy;
  try {
    policy = schedulers.make(scenario.scheduler);
  } catch (const Error& e) {
    throw Error("scenario '" + scenario.name + "': " + e.what());
  }
  sim::Engine engine;
  Ledger ledger;
  const std::uint64_t seed = run_seed(scenario, options);
  Cluster cluster(engine, scenario, expand_workload(scenario, seed, options.replication),
                  std::move(policy));
  // Model-described jobs' speeds: first to see a job start, before the models that change them.
  ModelSpeeds speeds(scenario, cluster);
  CostMeter costs(scenario, cluster, ledger);
  std::unique_ptr<BudgetWatcher> budgets;
  if (!scenario.budgets.empty()) budgets = std::make_unique<BudgetWatcher>(engine, scenario, cluster, ledger, costs);
  std::unique_ptr<TraceRecorder> recorder;
  if (trace)
    recorder = std::make_unique<TraceRecorder>(*trace, scenario, seed, options.replication, cluster, costs, speeds,
                                               ledger, budgets.get());
  if (recorder) recorder->record_absolute_paths(options.absolute_paths);

  // Spot pools: interruptions, availability and replacements, each from its own streams.
  std::unique_ptr<SpotMarket> market;
  if (std::vector<SpotPoolSpec> pools = spot_pools(scenario); !pools.empty()) {
    market = std::make_unique<SpotMarket>(engine, seed, options.replication, std::move(pools), cluster);
  }

  // The network exists only when the scenario describes one; its flows share links by
  // max-min fairness and it advances as a resource model of the engine.
  std::optional<topology::Topology> topo;
  std::unique_ptr<network::FlowNetwork> net;
  std::unique_ptr<network::CollectiveRunner> collectives;
  std::unique_ptr<network::JobTraffic> traffic;
  std::unique_ptr<network::ModelTraffic> model_traffic;
  std::unique_ptr<FlowRecorder> flow_recorder;
  if (scenario.network) {
    topo = network::cluster_topology(scenario);
    net = std::make_unique<network::FlowNetwork>(engine);
    net->add_links(*topo);
    engine.add_resource_model(net.get());
    collectives = std::make_unique<network::CollectiveRunner>(engine, *net, *topo);
    traffic = std::make_unique<network::JobTraffic>(engine, cluster, *collectives, *topo);
    model_traffic = std::make_unique<network::ModelTraffic>(engine, cluster, speeds, *collectives, *topo);
    if (trace && scenario.output.flows) flow_recorder = std::make_unique<FlowRecorder>(*trace, *net);
  }

  // Readers, staging copies and checkpoint writes of a storage device share its time (a
  // resource model of the engine, like the network); stored and read data is charged by
  // an observer of the storage model.
  std::unique_ptr<StorageTiers> tiers;
  std::unique_ptr<StorageCoupling> storage;
  std::unique_ptr<StorageCostMeter> storage_costs;
  if (scenario.storage) {
    tiers = std::make_unique<StorageTiers>(engine);
    engine.add_resource_model(tiers.get());
    storage = std::make_unique<StorageCoupling>(scenario, engine, cluster, speeds, *tiers);
    storage_costs = std::make_unique<StorageCostMeter>(scenario, engine, cluster, *storage, ledger);
  }

  const double loop_start_cpu_s = thread_cpu_s();
  cluster.start();
  if (budgets) budgets->start();
  if (market) market->start();
  engine.limit_events(options.max_events);
  engine.run();
  if (engine.event_limit_reached()) {
    char events[64];
    std::snprintf(events, sizeof events, "%llu", static_cast<unsigned long long>(engine.events_handled()));
    char estimate[64];
    std::snprintf(estimate, sizeof estimate, "%.3g", estimate_resources(scenario).events);
    throw Error("scenario '" + scenario.name + "': the run was stopped at simulated time " +
                units::format_duration_s(engine.now().seconds()) + " after " + events +
                " events, the limit (--max-events), with more to handle; the estimate before the run was " + estimate +
                " events (gcsim validate): something in the run repeats more often than the estimate counts. "
                "No trace was written");
  }
  const double loop_cpu_s = thread_cpu_s() - loop_start_cpu_s;
  if (trace && net) write_link_table(*trace, *topo, *net, cluster.end_time());

  RunSummary s;
  s.end_s = cluster.end_time().seconds();
  s.loop_cpu_s = loop_cpu_s;
  s.events_handled = engine.events_handled();
  s.jobs_total = cluster.jobs().size();
  for (const Job& j : cluster.jobs()) {
    s.jobs_completed += j.status == JobStatus::Completed;
    s.jobs_running += j.status == JobStatus::Running;
    const bool came = j.submit <= scenario.horizon;  // the cluster submits nothing after it
    s.jobs_never_started += j.status == JobStatus::NeverStarted && came;
    s.jobs_submitted_after_horizon += j.status == JobStatus::NeverStarted && !came;
    s.jobs_interrupted += j.status == JobStatus::Interrupted;
  }
  s.total_cost_usd = costs.total_cost_usd();
  s.busy_cost_usd = costs.busy_cost_usd();
  s.storage_cost_usd = storage_costs ? storage_costs->cost_usd() : 0.0;
  for (int c = 0; c < CHARGE_CATEGORIES; ++c) s.cost_by_category_usd[static_cast<std::size_t>(c)] = ledger.category_usd(static_cast<ChargeCategory>(c));
  for (const Job& j : cluster.jobs()) {
    s.interruptions += static_cast<std::size_t>(j.interruptions);
    s.lost_gpu_h += j.lost_gpu_s / 3600;
  }
  s.wall_clock_s = options.fixed_wall_clock_s.value_or(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count());
  if (recorder) recorder->finish(s.wall_clock_s);
  return s;
}

RunSummary run_simulation_to(const Scenario& scenario, const SchedulerRegistry& schedulers, const std::string& trace_path,
                             const RunOptions& options) {
  trace::TraceOptions trace_options;
  trace_options.compression_level = options.trace_compression.value_or(scenario.output.compression);
  auto trace = trace::TraceFile::create(trace_path, trace_options);  // destroyed uncommitted on an exception
  RunSummary summary = run_simulation(scenario, schedulers, trace.get(), options);
  trace->commit();
  return summary;
}

}  // namespace gcsim::models
