// Autoscaling node pools (models/controllers/autoscaler.hpp, docs/autoscaling.md): the
// `autoscale:` reader and its `when:` expressions, then whole runs of a cluster with its
// cost meter and the autoscaler, each figure computed by hand in the comments.
#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/accounting/cost_meter.hpp"
#include "models/cluster/cluster.hpp"
#include "models/config/autoscale_reader.hpp"
#include "models/controllers/autoscaler.hpp"
#include "models/controllers/budgets.hpp"
#include "models/core/event_priorities.hpp"
#include "models/coupling/model_speeds.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/register_builtins.hpp"
#include "models/workload/memory_fit.hpp"
#include "sim/engine.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::NodePhase;
using models::ScaleDirection;
using models::TriggerKind;
using sim::SimTime;

namespace {

using test::hours;
using test::minutes;

// One node type `n` of `gpus` V100s a node at `usd_per_hour` a node, with `autoscale` (the
// map's inside) and `extra` keys; the jobs as the workload's list items.
std::string pool_yaml(int gpus, int count, const std::string& autoscale, const std::string& jobs,
                      const std::string& horizon = "10h", const std::string& extra = "", double usd_per_hour = 3.6,
                      const std::string& billing = "") {
  return "name: pool\nhorizon: " + horizon + "\ncluster:\n  node_types:\n    - name: n\n      gpu: V100-SXM2-16GB\n"
         "      gpus: " + std::to_string(gpus) + "\n      count: " + std::to_string(count) +
         "\n      price: {on_demand_per_hour: " + std::to_string(usd_per_hour) +
         (billing.empty() ? "" : ", billing: " + billing) + "}\n" + extra +
         "      autoscale: {" + autoscale + "}\nworkload:\n  jobs:\n" + jobs;
}

// A cluster with its cost meter and the autoscaler, run to the end.
struct ScaledRun {
  models::Scenario scenario;
  sim::Engine engine;
  models::Ledger ledger;
  std::unique_ptr<models::Cluster> cluster;
  std::unique_ptr<models::CostMeter> costs;
  std::unique_ptr<models::BudgetWatcher> budgets;  // when the scenario has `budgets:`
  std::unique_ptr<models::Autoscaler> scaler;
  int most_nodes = 0;   // nodes not released, at most, over the run
  int fewest_nodes = 1 << 30;  // nodes provisioning or up, at least, after the start

  // `probe` runs at `probe_at`, after everything else of that instant but the end.
  std::function<void(const ScaledRun&)> probe;
  void on_probe(std::uint64_t) { probe(*this); }

  explicit ScaledRun(const std::string& yaml, SimTime probe_at = SimTime::max(),
                     std::function<void(const ScaledRun&)> probe_fn = {})
      : scenario(test::scenario_from_yaml(yaml)), probe(std::move(probe_fn)) {
    cluster = std::make_unique<models::Cluster>(engine, scenario, models::expand_workload(scenario, 0),
                                                models::builtins().schedulers.make(scenario.scheduler));
    costs = std::make_unique<models::CostMeter>(scenario, *cluster, ledger);
    // As a run builds them: the budgets (BUILD_BUDGETS) before the autoscaler (BUILD_EXTENSIONS).
    if (!scenario.budgets.empty())
      budgets = std::make_unique<models::BudgetWatcher>(engine, scenario, *cluster, ledger, *costs);
    scaler = std::make_unique<models::Autoscaler>(engine, scenario, *cluster);
    cluster->node_changed.connect([this](const models::NodeTransition&) {
      int held = 0, live = 0;
      for (const auto& n : cluster->nodes()) {
        held += n.phase != NodePhase::Released;
        live += n.phase == NodePhase::Provisioning || n.phase == NodePhase::Up;
      }
      most_nodes = std::max(most_nodes, held);
      fewest_nodes = std::min(fewest_nodes, live);
    });
    cluster->start();
    if (budgets) budgets->start();
    scaler->start();
    if (probe) engine.schedule_at<&ScaledRun::on_probe>(probe_at, this, 0, models::PRIORITY_END - 1);
    engine.run();
  }
  const std::vector<models::ScaleDecision>& decisions() const { return scaler->decisions(); }
  const models::Job& job(std::size_t i) const { return cluster->jobs()[i]; }
};

// `yaml` with the first `from` replaced by `to`.
std::string replaced(std::string yaml, const std::string& from, const std::string& to) {
  const std::size_t at = yaml.find(from);
  REQUIRE(at != std::string::npos);
  return yaml.replace(at, from.size(), to);
}

std::string job(const std::string& name, int gpus, const std::string& duration, const std::string& submit) {
  return "    - {name: " + name + ", gpus: " + std::to_string(gpus) + ", duration: " + duration + ", submit: " + submit + "}\n";
}

}  // namespace

// ---- The reader ----

TEST_CASE("autoscale: keys are read into the spec", "[unit][autoscale]") {
  const auto s = test::scenario_from_yaml(pool_yaml(
      8, 1,
      "min: 0, max: 8, scale_out: {when: waiting_gpus >= 8, for: 5m, by: 2}, scale_in: {when: idle, for: 30m}, "
      "cooldown: 10m, provisioning: 4m",
      job("A", 8, "1h", "0")));
  const auto& t = s.cluster.node_types[0];
  REQUIRE(t.autoscale);
  const auto& a = *t.autoscale;
  CHECK(a.min == 0);
  CHECK(a.max == 8);
  CHECK(t.max_count == 8);
  CHECK(t.slots() == 8);
  REQUIRE(a.scale_out);
  CHECK(a.scale_out->when.kind == TriggerKind::WaitingGpus);
  CHECK(a.scale_out->when.op == models::Comparison::GreaterEqual);
  CHECK(a.scale_out->when.threshold == 8);
  CHECK(a.scale_out->hold == minutes(5));
  CHECK(a.scale_out->by == 2);
  REQUIRE(a.scale_in);
  CHECK(a.scale_in->when.kind == TriggerKind::Idle);
  CHECK(a.scale_in->hold == minutes(30));
  CHECK(a.scale_in->by == 1);
  CHECK(a.cooldown == minutes(10));
  CHECK(a.provisioning == minutes(4));
  // No provider: billed from the request (the dearer reading).
  CHECK(a.bill_provisioning);
}

TEST_CASE("autoscale: a pool that starts empty may hold jobs bigger than its start", "[unit][autoscale]") {
  // count 0, max 2 of 8 GPUs: a 16-GPU job is feasible (two whole nodes at max).
  const auto s = test::scenario_from_yaml(
      pool_yaml(8, 0, "max: 2, scale_out: {when: waiting_gpus >= 1}", job("A", 16, "1h", "0")));
  CHECK(s.cluster.node_types[0].count == 0);
  CHECK(models::eligible_node_types(s.cluster, 16, nullptr) == 1u);
  CHECK(models::eligible_node_types(s.cluster, 24, nullptr) == 0u);
}

TEST_CASE("autoscale: provisioning billing follows the provider", "[unit][autoscale]") {
  const std::string rule = "max: 2, scale_out: {when: waiting_gpus >= 1}";
  CHECK_FALSE(test::scenario_from_yaml(pool_yaml(8, 0, rule, job("A", 8, "1h", "0"), "10h", "      provider: aws\n"))
                  .cluster.node_types[0].autoscale->bill_provisioning);
  CHECK_FALSE(test::scenario_from_yaml(pool_yaml(8, 0, rule, job("A", 8, "1h", "0"), "10h", "      provider: gcp\n"))
                  .cluster.node_types[0].autoscale->bill_provisioning);
  CHECK(test::scenario_from_yaml(pool_yaml(8, 0, rule, job("A", 8, "1h", "0"), "10h", "      provider: lambda\n"))
            .cluster.node_types[0].autoscale->bill_provisioning);
  CHECK(test::scenario_from_yaml(pool_yaml(8, 0, rule + ", bill_provisioning: true", job("A", 8, "1h", "0"), "10h",
                                           "      provider: aws\n"))
            .cluster.node_types[0].autoscale->bill_provisioning);
}

TEST_CASE("autoscale: when-expressions", "[unit][autoscale]") {
  std::string err;
  std::size_t at = 0;
  const auto t1 = models::parse_trigger("gpu_utilization > 80%", err, at);
  REQUIRE(t1);
  CHECK(t1->kind == TriggerKind::GpuUtilization);
  CHECK(t1->op == models::Comparison::Greater);
  CHECK(t1->threshold == Approx(0.8));
  CHECK(t1->holds(0.81));
  CHECK_FALSE(t1->holds(0.8));
  const auto t2 = models::parse_trigger("gpu_memory<=70%", err, at);
  REQUIRE(t2);
  CHECK(t2->kind == TriggerKind::GpuMemory);
  CHECK(t2->op == models::Comparison::LessEqual);
  CHECK(t2->holds(0.7));
  CHECK_FALSE(t2->holds(0.71));
  const auto t3 = models::parse_trigger("  waiting_gpus >= 0 ", err, at);
  REQUIRE(t3);
  CHECK(t3->threshold == 0);
  CHECK(t3->holds(0));
  const auto t4 = models::parse_trigger("gpu_utilization < 30%", err, at);
  REQUIRE(t4);
  CHECK(t4->op == models::Comparison::Less);
  SECTION("errors point at the part that is wrong") {
    CHECK_FALSE(models::parse_trigger("waiting_gpu >= 8", err, at));
    CHECK(at == 0);
    CHECK(err.find("did you mean 'waiting_gpus'") != std::string::npos);
    CHECK_FALSE(models::parse_trigger("waiting_gpus = 8", err, at));
    CHECK(at == 13);
    CHECK_FALSE(models::parse_trigger("gpu_utilization > 80", err, at));
    CHECK(at == 18);
    CHECK(err.find("missing unit") == 0);
    CHECK_FALSE(models::parse_trigger("waiting_gpus >= 1.5", err, at));
    CHECK(at == 16);
    CHECK_FALSE(models::parse_trigger("gpu_memory > 120%", err, at));
    CHECK_FALSE(models::parse_trigger("idle > 3", err, at));
    CHECK(at == 5);
    CHECK_FALSE(models::parse_trigger("waiting_gpus >=", err, at));
    CHECK_FALSE(models::parse_trigger("", err, at));
  }
}

TEST_CASE("autoscale: bad input is a ConfigError at its line and column", "[unit][autoscale]") {
  const auto error = [](const std::string& autoscale, int count = 1, const std::string& extra = "") {
    return test::config_error([&] { test::scenario_from_yaml(pool_yaml(8, count, autoscale, job("A", 8, "1h", "0"), "10h", extra)); });
  };
  SECTION("a bad expression: at the offending part of the value") {
    // Line 10 is "      autoscale: {...}"; the value of `when` starts at column 45 of
    // `      autoscale: {max: 4, scale_out: {when: waiting_gpu >= 8}}`.
    const auto e = error("max: 4, scale_out: {when: waiting_gpu >= 8}");
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(e.mark().line == 10);
    CHECK(e.mark().column == 45);
    CHECK(e.key_path() == "cluster.node_types[0].autoscale.scale_out.when");
    const auto u = error("max: 4, scale_out: {when: gpu_utilization > 80}");
    CHECK(u.code() == ErrorCode::BadUnit);
    CHECK(u.mark().column == 45 + 18);
    CHECK(error("max: 4, scale_out: {when: gpu_memory >> 80%}").code() == ErrorCode::Syntax);
    CHECK(error("max: 4, scale_out: {when: gpu_memory > 180%}").code() == ErrorCode::OutOfRange);
  }
  SECTION("idle is a scale-in trigger") {
    CHECK(error("max: 4, scale_out: {when: idle}").code() == ErrorCode::Conflict);
  }
  SECTION("unknown keys, with did-you-mean") {
    const auto e = error("max: 4, scale_out: {when: idle}, cooldwn: 5m");
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(std::string(e.what()).find("cooldown") != std::string::npos);
    CHECK(error("max: 4, scale_in: {when: idle, fr: 5m}").code() == ErrorCode::UnknownKey);
  }
  SECTION("bounds") {
    CHECK(error("min: 2, max: 1, scale_in: {when: idle}").code() == ErrorCode::OutOfRange);
    CHECK(error("max: 0, scale_in: {when: idle}", 0).code() == ErrorCode::OutOfRange);
    CHECK(error("max: 2, scale_in: {when: idle}", 3).code() == ErrorCode::OutOfRange);  // count above max
    CHECK(error("min: 2, max: 4, scale_in: {when: idle}", 1).code() == ErrorCode::OutOfRange);  // below min
    CHECK(error("max: 4, scale_in: {when: idle, by: 0}").code() == ErrorCode::OutOfRange);
    CHECK(error("max: 4, cooldown: -1m, scale_in: {when: idle}").code() == ErrorCode::OutOfRange);
    CHECK(error("max: 4, cooldown: 5, scale_in: {when: idle}").code() == ErrorCode::BadUnit);
    CHECK(error("max: 4, schedule: [{days: mon-fri, from: \"09:00\", to: \"18:00\", count: 5}]").code() ==
          ErrorCode::OutOfRange);
  }
  SECTION("missing keys") {
    CHECK(error("min: 0, scale_in: {when: idle}").code() == ErrorCode::MissingKey);  // no max
    CHECK(error("max: 4").code() == ErrorCode::MissingKey);                           // nothing to do
    CHECK(error("max: 4, scale_in: {for: 5m}").code() == ErrorCode::MissingKey);     // no when
    CHECK(error("max: 4, schedule: [{days: mon}]").code() == ErrorCode::MissingKey);  // no count
  }
  SECTION("schedule windows") {
    CHECK(error("max: 4, schedule: [{days: mnday, count: 1}]").code() == ErrorCode::UnknownName);
    CHECK(error("max: 4, schedule: [{from: \"25:00\", count: 1}]").code() == ErrorCode::OutOfRange);
    CHECK(error("max: 4, schedule: [{from: \"9h\", count: 1}]").code() == ErrorCode::WrongType);
    CHECK(error("max: 4, schedule: []").code() == ErrorCode::WrongType);
  }
  SECTION("a fallback names another node type") {
    CHECK(error("max: 4, scale_in: {when: idle}, fallback: m").code() == ErrorCode::UnknownName);
    CHECK(error("max: 4, scale_in: {when: idle}, fallback: n").code() == ErrorCode::Conflict);
  }
  SECTION("count 0 only with autoscale") {
    const auto e = test::config_error([] {
      test::scenario_from_yaml("name: z\nhorizon: 1h\ncluster:\n  node_types:\n    - {name: n, gpu: V100-SXM2-16GB, gpus: 1, "
                               "count: 0, price: {on_demand_per_hour: 1}}\nworkload:\n  jobs:\n    - {name: A, gpus: 1, duration: 1m}\n");
    });
    CHECK(e.code() == ErrorCode::OutOfRange);
    CHECK(e.key_path() == "cluster.node_types[0].count");
  }
  SECTION("autoscale on a spot pool is accepted (docs/autoscaling.md, \"Elastic spot pools\")") {
    const auto s = test::scenario_from_yaml(pool_yaml(8, 1, "max: 4, scale_in: {when: idle}", job("A", 8, "1h", "0"), "10h",
                                                      "      market: spot\n", 3.6, "per_second, spot_per_hour: 1"));
    CHECK(s.cluster.node_types[0].slots() == 4);
    CHECK(s.cluster.node_types[0].spot);
  }
  SECTION("autoscale on an owned pool") {
    const auto e = test::config_error([] {
      test::scenario_from_yaml("name: z\nhorizon: 1h\ncluster:\n  node_types:\n    - {name: p, gpu: A100-40GB-SXM, gpus: 8, "
                               "count: 2, market: owned, ownership: {capex: 87600, depreciation: 1y, power_busy: 1kW, "
                               "power_idle: 200W, pue: 1.0, electricity: 0.5/kWh}, autoscale: {max: 4, scale_in: {when: idle}}}\n"
                               "workload:\n  jobs:\n    - {name: A, gpus: 1, duration: 1m}\n");
    });
    CHECK(e.code() == ErrorCode::Conflict);
    CHECK(e.key_path() == "cluster.node_types[0].autoscale");
  }
  SECTION("autoscale on a market that is not on demand") {
    const auto e = test::config_error([] {
      test::scenario_from_yaml("name: z\nhorizon: 1h\ncluster:\n  node_types:\n    - {name: n, gpu: V100-SXM2-16GB, gpus: 1, "
                               "count: 1, market: reserved, price: {reserved: {term: 1y, per_hour: 2}}, "
                               "autoscale: {max: 4, scale_in: {when: idle}}}\nworkload:\n  jobs:\n"
                               "    - {name: A, gpus: 1, duration: 1m}\n");
    });
    CHECK(e.code() == ErrorCode::Conflict);
    CHECK(e.key_path() == "cluster.node_types[0].autoscale");
  }
}

// ---- Runs ----

TEST_CASE("autoscale: a pool scales 0 -> 1 -> 0 around one job, billed by hand", "[model][autoscale]") {
  // One 8-GPU job submitted at 1h for 1h on an empty pool of 8-GPU nodes at $3.60/h.
  // 1h00: the job waits; waiting_gpus = 8 >= 8 holds from 1h00; for 5m -> decision at 1h05.
  // 1h05: one node requested, 4 min to provision: up at 1h09, the job starts at 1h09.
  // 2h09: the job ends; the node is idle from 2h09; idle for 30m -> drained (released) at 2h39.
  const std::string rule =
      "min: 0, max: 2, scale_out: {when: waiting_gpus >= 8, for: 5m}, scale_in: {when: idle, for: 30m}, "
      "provisioning: 4m";
  SECTION("provisioning billed (no provider)") {
    ScaledRun r(pool_yaml(8, 0, rule, job("A", 8, "1h", "1h")));
    REQUIRE(r.decisions().size() == 2);
    CHECK(r.decisions()[0].time == hours(1) + minutes(5));
    CHECK(r.decisions()[0].direction == ScaleDirection::Out);
    CHECK(r.decisions()[0].trigger == TriggerKind::WaitingGpus);
    CHECK(r.decisions()[0].value == 8);
    CHECK(r.decisions()[0].size_before == 0);
    CHECK(r.decisions()[0].size_after == 1);
    CHECK(r.decisions()[1].time == hours(2) + minutes(39));
    CHECK(r.decisions()[1].direction == ScaleDirection::In);
    CHECK(r.decisions()[1].trigger == TriggerKind::Idle);
    CHECK(r.decisions()[1].size_after == 0);
    CHECK(r.job(0).run_start == hours(1) + minutes(9));
    CHECK(r.job(0).status == models::JobStatus::Completed);
    // Billed 1h05 -> 2h39 = 94 min x $3.60/h = $5.64.
    CHECK(r.costs->total_cost_usd() == Approx(94.0 / 60 * 3.6));
    CHECK(r.cluster->nodes()[0].phase == NodePhase::Released);
  }
  SECTION("provisioning not billed, per-hour billing") {
    // bill_provisioning: false: billed from up (1h09) to 2h39 = 90 min, rounded up to 2 h
    // by a per-hour rule: 2 x $3.60 = $7.20.
    ScaledRun r(pool_yaml(8, 0, rule + ", bill_provisioning: false", job("A", 8, "1h", "1h"), "10h", "", 3.6, "per_hour"));
    REQUIRE(r.decisions().size() == 2);
    CHECK(r.costs->total_cost_usd() == Approx(7.20));
    CHECK(r.costs->node_up_s(0) == Approx(90 * 60.0));
  }
}

TEST_CASE("autoscale: a pool scales 2 -> 6 -> 2, billed by hand", "[model][autoscale]") {
  // Nodes of 8 GPUs at $10/h; min 2, count 2. At 1h six 8-GPU jobs: two 2h10m long, four 2h.
  // 1h00 pass: two start on the two nodes; 32 GPUs wait. waiting_gpus = 32 >= 8 for 0s:
  //   request by = 4 nodes (10 min provisioning); the measure is then 32 - 4 x 8 = 0.
  // 1h10: four up, the four waiting jobs start; they end at 3h10, as do the first two.
  // 3h10: six idle; idle for 30m -> 3h40: by 4, floor 2 -> drain 4 (highest slots first: 5, 4, 3, 2).
  // Bill: nodes 0, 1 the whole 10 h: 20 node-h; nodes 2..5 from 1h00 to 3h40: 4 x 8/3 h.
  // (20 + 32/3) x $10 = $306.67.
  std::string jobs;
  for (int i = 0; i < 6; ++i) jobs += job("J" + std::to_string(i), 8, i < 2 ? "2h10m" : "2h", "1h");
  ScaledRun r(pool_yaml(8, 2,
                        "min: 2, max: 8, scale_out: {when: waiting_gpus >= 8, by: 4}, scale_in: {when: idle, for: 30m, by: 4}, "
                        "provisioning: 10m",
                        jobs, "10h", "", 10.0));
  REQUIRE(r.decisions().size() == 2);
  CHECK(r.decisions()[0].time == hours(1));
  CHECK(r.decisions()[0].nodes == 4);
  CHECK(r.decisions()[0].value == 32);
  CHECK(r.decisions()[0].size_before == 2);
  CHECK(r.decisions()[0].size_after == 6);
  CHECK(r.decisions()[1].time == hours(3) + minutes(40));
  CHECK(r.decisions()[1].nodes == 4);
  CHECK(r.decisions()[1].size_after == 2);
  for (int i = 2; i < 6; ++i) CHECK(r.job(static_cast<std::size_t>(i)).run_start == hours(1) + minutes(10));
  const auto& nodes = r.cluster->nodes();
  CHECK(nodes[0].phase == NodePhase::Up);
  CHECK(nodes[1].phase == NodePhase::Up);
  for (int n = 2; n < 6; ++n) CHECK(nodes[static_cast<std::size_t>(n)].phase == NodePhase::Released);
  CHECK(r.costs->total_cost_usd() == Approx((20.0 + 32.0 / 3) * 10));
  CHECK(r.most_nodes == 6);
}

TEST_CASE("autoscale: a cooldown stops the flapping", "[model][autoscale]") {
  // One-GPU nodes, no provisioning delay; a one-GPU job of 10 min every 20 min from 0 to 100 min.
  std::string jobs;
  for (int i = 0; i < 6; ++i) jobs += job("J" + std::to_string(i), 1, "10m", std::to_string(20 * i) + "m");
  const std::string rule = "min: 0, max: 4, scale_out: {when: waiting_gpus >= 1}, scale_in: {when: idle}";
  SECTION("without a cooldown: out at each arrival, in at each end") {
    ScaledRun r(pool_yaml(1, 0, rule, jobs, "4h"));
    REQUIRE(r.decisions().size() == 12);
    for (std::size_t i = 0; i < 12; ++i) {
      CHECK(r.decisions()[i].time == minutes(10.0 * static_cast<double>(i)));
      CHECK(r.decisions()[i].direction == (i % 2 == 0 ? ScaleDirection::Out : ScaleDirection::In));
    }
  }
  SECTION("with a 1h cooldown: four decisions") {
    // 0: out. 10: idle, cooling to 60. Jobs 1, 2 (20, 40) take the idle node. 60: job 3 takes
    // it at the pass. 70: idle, cooled -> in. 80: job 4 waits; cooling to 130. 130: out; job 4
    // runs 130-140, job 5 (waiting since 100) 140-150. 150: idle, cooling to 190 -> in at 190.
    ScaledRun r(pool_yaml(1, 0, rule + ", cooldown: 1h", jobs, "4h"));
    REQUIRE(r.decisions().size() == 4);
    CHECK(r.decisions()[0].time == minutes(0));
    CHECK(r.decisions()[1].time == minutes(70));
    CHECK(r.decisions()[2].time == minutes(130));
    CHECK(r.decisions()[3].time == minutes(190));
    CHECK(r.job(4).run_start == minutes(130));
    CHECK(r.job(5).run_start == minutes(140));
  }
}

TEST_CASE("autoscale: min and max hold under a flood of jobs", "[model][autoscale]") {
  // Fifty 8-GPU jobs of 1h at 0 on a pool of 8-GPU nodes, min 1, max 3, out by 2 at a time.
  std::string jobs;
  for (int i = 0; i < 50; ++i) jobs += job("J" + std::to_string(i), 8, "1h", "0");
  ScaledRun r(pool_yaml(8, 1,
                        "min: 1, max: 3, scale_out: {when: waiting_gpus >= 8, by: 2}, scale_in: {when: idle, for: 10m, by: 5}",
                        jobs, "30h"));
  CHECK(r.most_nodes == 3);
  CHECK(r.fewest_nodes >= 1);
  // Three nodes run the fifty jobs in ceil(50 / 3) = 17 rounds of 1h: the last ends at 17h.
  sim::SimTime last;
  for (const auto& j : r.cluster->jobs()) last = std::max(last, j.end);
  CHECK(last == hours(17));
  // The last round (16h-17h) runs 50 - 48 = 2 jobs: one node is idle from 16h and goes at
  // 16h10 (room 3 - 1 = 2); the other two idle from 17h, and at 17h10 one goes (room 2 - 1).
  REQUIRE(r.decisions().size() == 3);
  CHECK(r.decisions()[0].time == SimTime::zero());
  CHECK(r.decisions()[0].nodes == 2);
  CHECK(r.decisions()[0].size_after == 3);
  CHECK(r.decisions()[1].time == hours(16) + minutes(10));
  CHECK(r.decisions()[1].nodes == 1);
  CHECK(r.decisions()[1].size_after == 2);
  CHECK(r.decisions()[2].time == hours(17) + minutes(10));
  CHECK(r.decisions()[2].nodes == 1);
  CHECK(r.decisions()[2].size_after == 1);
}

TEST_CASE("autoscale: the same scenario gives the same decisions", "[model][autoscale]") {
  std::string jobs;
  for (int i = 0; i < 40; ++i)
    jobs += job("J" + std::to_string(i), 1 + (i * 7) % 8, std::to_string(10 + (i * 13) % 50) + "m", std::to_string((i * 17) % 300) + "m");
  const std::string yaml = pool_yaml(8, 1,
                                     "min: 1, max: 5, scale_out: {when: waiting_gpus >= 4, for: 3m}, "
                                     "scale_in: {when: idle, for: 20m}, cooldown: 5m, provisioning: 2m",
                                     jobs, "12h");
  ScaledRun a(yaml), b(yaml);
  REQUIRE(a.decisions().size() == b.decisions().size());
  REQUIRE(a.decisions().size() >= 2);
  for (std::size_t i = 0; i < a.decisions().size(); ++i) {
    CHECK(a.decisions()[i].time == b.decisions()[i].time);
    CHECK(a.decisions()[i].nodes == b.decisions()[i].nodes);
    CHECK(a.decisions()[i].value == b.decisions()[i].value);
  }
  CHECK(a.costs->total_cost_usd() == b.costs->total_cost_usd());
}

TEST_CASE("autoscale: a pool sized by the clock, across a weekend", "[model][autoscale]") {
  // mon-fri 09:00-18:00: 4 nodes, else min 0; t = 0 is Monday 00:00; 8 days (to Tuesday
  // 00:00 of the next week). Decisions: out 4 at 9:00 and in 4 at 18:00 on each weekday and on
  // the next Monday, none on Saturday and Sunday: 6 x 2 = 12. Billed 6 days x 9 h x 4 nodes
  // = 216 node-hours at $1/h.
  ScaledRun r(pool_yaml(1, 0, "min: 0, max: 4, schedule: [{days: mon-fri, from: \"09:00\", to: \"18:00\", count: 4}]",
                        job("A", 1, "1m", "10h"), "8d", "", 1.0));
  REQUIRE(r.decisions().size() == 12);
  const SimTime day = hours(24);
  const int days[] = {0, 1, 2, 3, 4, 7};
  for (std::size_t i = 0; i < 6; ++i) {
    const auto& out = r.decisions()[2 * i];
    const auto& in = r.decisions()[2 * i + 1];
    CHECK(out.time == day * days[i] + hours(9));
    CHECK(out.direction == ScaleDirection::Out);
    CHECK(out.trigger == TriggerKind::Schedule);
    CHECK(out.nodes == 4);
    CHECK(in.time == day * days[i] + hours(18));
    CHECK(in.direction == ScaleDirection::In);
    CHECK(in.nodes == 4);
    CHECK(in.size_after == 0);
  }
  CHECK(r.costs->total_cost_usd() == Approx(216.0));
  // The job submitted Monday 10:00 runs at once on a scheduled node.
  CHECK(r.job(0).run_start == hours(10));
}

TEST_CASE("autoscale: a schedule is a floor for the rules inside its window", "[model][autoscale]") {
  // Daily 09:00-18:00 at 2 nodes; idle nodes go after 10 min but never below the window's 2;
  // after 18:00 the clock drains to min 0 by itself.
  ScaledRun r(pool_yaml(1, 0, "min: 0, max: 4, scale_in: {when: idle, for: 10m}, schedule: [{from: \"09:00\", to: \"18:00\", count: 2}]",
                        job("A", 1, "1m", "10h"), "1d"));
  REQUIRE(r.decisions().size() == 2);
  CHECK(r.decisions()[0].time == hours(9));
  CHECK(r.decisions()[0].size_after == 2);
  CHECK(r.decisions()[1].time == hours(18));
  CHECK(r.decisions()[1].trigger == TriggerKind::Schedule);
  CHECK(r.decisions()[1].size_after == 0);
  CHECK(r.costs->total_cost_usd() == Approx(2 * 9 * 3.6));
}

TEST_CASE("autoscale: gpu_utilization and gpu_memory triggers", "[model][autoscale]") {
  // Two nodes of 4 GPUs up (8 GPUs). A: 4 GPUs from 0; B: 2 GPUs from 1h; both 10h.
  // Busy share: 4/8 = 50% from 0, 6/8 = 75% from 1h. `> 70%` held for 10m: decision at 1h10
  // with value 0.75; the third node (no provisioning) makes it 6/12 = 50%: no more.
  const std::string jobs = job("A", 4, "10h", "0") + job("B", 2, "10h", "1h");
  for (const std::string measure : {"gpu_utilization", "gpu_memory"}) {
    DYNAMIC_SECTION(measure) {
      // A plain job fills the memory of its GPUs: memory share = busy share.
      // At 2h: 6 of 12 GPUs held, and their memory used.
      double util_2h = -1, memory_2h = -1;
      ScaledRun r(pool_yaml(4, 2, "min: 2, max: 4, scale_out: {when: " + measure + " > 70%, for: 10m}", jobs, "12h"), hours(2),
                  [&](const ScaledRun& run) {
                    util_2h = run.scaler->gauges().gpu_utilization(0);
                    memory_2h = run.scaler->gauges().gpu_memory(0);
                  });
      REQUIRE(r.decisions().size() == 1);
      CHECK(r.decisions()[0].time == hours(1) + minutes(10));
      CHECK(r.decisions()[0].value == Approx(0.75));
      CHECK(r.decisions()[0].trigger == (measure == std::string("gpu_utilization") ? TriggerKind::GpuUtilization
                                                                                   : TriggerKind::GpuMemory));
      CHECK(util_2h == Approx(0.5));
      CHECK(memory_2h == Approx(0.5));
      // A ends at 10h, B at 11h: nothing runs at the end.
      CHECK(r.scaler->gauges().gpu_utilization(0) == 0);
    }
  }
  SECTION("a measure that drops before `for` decides nothing") {
    // B ends at 1h05, before the 10 minutes are up.
    ScaledRun r(pool_yaml(4, 2, "min: 2, max: 4, scale_out: {when: gpu_utilization > 70%, for: 10m}",
                          job("A", 4, "10h", "0") + job("B", 2, "5m", "1h"), "12h"));
    CHECK(r.decisions().empty());
  }
  SECTION("scale in on a low utilization") {
    // Four 4-GPU nodes, one 4-GPU job for 10h: 4/16 = 25% < 30% from 0; held 15 min -> drain
    // one idle node at 15m (4 -> 3: 4/12 = 33%, no longer below). The job ends at 10h: 0%
    // from 10h, a node every 15 min down to min 1: at 10h15 (3 -> 2) and 10h30 (2 -> 1).
    ScaledRun r(pool_yaml(4, 4, "min: 1, max: 4, scale_in: {when: gpu_utilization < 30%, for: 15m}",
                          job("A", 4, "10h", "0"), "12h"));
    REQUIRE(r.decisions().size() == 3);
    CHECK(r.decisions()[0].time == minutes(15));
    CHECK(r.decisions()[0].direction == ScaleDirection::In);
    CHECK(r.decisions()[0].value == Approx(0.25));
    CHECK(r.decisions()[0].size_after == 3);
    CHECK(r.decisions()[1].time == hours(10) + minutes(15));
    CHECK(r.decisions()[1].value == 0);
    CHECK(r.decisions()[1].size_after == 2);
    CHECK(r.decisions()[2].time == hours(10) + minutes(30));
    CHECK(r.decisions()[2].size_after == 1);
    CHECK(r.job(0).status == models::JobStatus::Completed);
  }
}

TEST_CASE("autoscale: pool gauges count model-described jobs by the step and memory models", "[unit][autoscale]") {
  // One 8-GPU gpt2-xl job on one 8 x A100-80GB node, still running at the horizon (1h).
  const auto s = test::scenario_from_yaml(
      replaced(pool_yaml(8, 1, "max: 2, scale_out: {when: gpu_memory > 70%}",
                         "    - {name: M, gpus: 8, submit: 0, model: gpt2-xl, precision: bf16, batch_per_gpu: 4, "
                         "samples: 1e9}\n",
                         "1h"),
               "V100-SXM2-16GB", "A100-80GB-SXM"));
  sim::Engine engine;
  models::Cluster cluster(engine, s, models::expand_workload(s, 0), models::builtins().schedulers.make(s.scheduler));
  models::ModelSpeeds speeds(s, cluster);
  models::PoolGauges gauges(s, cluster, &speeds);
  models::PoolGauges plain(s, cluster);  // without the speeds: wholly busy, check_memory_fit's memory
  cluster.start();
  engine.run();
  const models::Job& j = cluster.jobs()[0];
  REQUIRE(j.training());
  REQUIRE(j.status == models::JobStatus::Running);
  const models::StepEstimate* e = speeds.estimate(j.id);
  REQUIRE(e);
  const double share = e->compute_s / j.step_s();
  CHECK(share > 0);
  CHECK(share < 1);  // input and communication take part of the step
  CHECK(gauges.pool(0).held_gpus == Approx(8));
  CHECK(gauges.pool(0).busy_gpus == Approx(8 * share));
  CHECK(gauges.gpu_utilization(0) == Approx(share));
  const double per_gpu = speeds.memory_per_gpu_bytes(j.id);
  REQUIRE(per_gpu > 0);
  CHECK(gauges.pool(0).memory_used_bytes == Approx(8 * per_gpu));
  CHECK(gauges.gpu_memory(0) == Approx(per_gpu / s.cluster.node_types[0].gpu.memory_bytes));
  CHECK(plain.pool(0).busy_gpus == Approx(8));
  CHECK(plain.job_memory_per_gpu_bytes(j, 0) ==
        Approx(models::check_memory_fit(*j.training(), s.cluster.node_types[0].gpu).need.total()));
}

TEST_CASE("autoscale: a pool falls back to another at its max", "[model][autoscale]") {
  // Pools a and b of 8-GPU nodes, both empty, max 2 each, out on waiting_gpus >= 8 by 1,
  // 10 min provisioning. Three 8-GPU jobs at 0 that either could host (24 GPUs).
  const auto yaml = [](const std::string& fallback) {
    return std::string("name: fb\nhorizon: 5h\ncluster:\n  node_types:\n") +
           "    - {name: a, gpu: V100-SXM2-16GB, gpus: 8, count: 0, price: {on_demand_per_hour: 1}, autoscale: {max: 2, "
           "scale_out: {when: waiting_gpus >= 8}, provisioning: 10m" + fallback + "}}\n" +
           "    - {name: b, gpu: V100-SXM2-16GB, gpus: 8, count: 0, price: {on_demand_per_hour: 2}, autoscale: {max: 2, "
           "scale_out: {when: waiting_gpus >= 8}, provisioning: 10m}}\n" +
           "workload:\n  jobs:\n" + job("J0", 8, "1h", "0") + job("J1", 8, "1h", "0") + job("J2", 8, "1h", "0");
  };
  const auto nodes_of = [](const ScaledRun& r, int type) {
    int n = 0;
    for (const auto& d : r.decisions())
      if (d.pool == type && d.direction == ScaleDirection::Out) n += d.nodes;
    return n;
  };
  SECTION("with fallback: a grows to its max (16 GPUs), b takes the 8 left") {
    ScaledRun r(yaml(", fallback: b"));
    CHECK(nodes_of(r, 0) == 2);
    CHECK(nodes_of(r, 1) == 1);
    // b's decision came from a's spilled demand alone: 24 - min(24, 2 x 8) = 8 GPUs.
    bool b_fallback = false;
    for (const auto& d : r.decisions())
      if (d.pool == 1) {
        b_fallback = d.trigger == TriggerKind::Fallback;
        CHECK(d.value == 8);
      }
    CHECK(b_fallback);
    CHECK(r.scenario.cluster.node_types[0].autoscale->fallback_type == 1);
  }
  SECTION("without: both pools answer the same demand, a node too many") {
    // a: 24, 16 (less its provisioning) -> 2 nodes; b: 24, 16 -> 2 nodes (at max).
    ScaledRun r(yaml(""));
    CHECK(nodes_of(r, 0) == 2);
    CHECK(nodes_of(r, 1) == 2);
  }
}

// ---- Budgets on an elastic pool (issue 35) ----

namespace {

std::string team_job(const std::string& name, const std::string& duration, const std::string& submit, const std::string& team,
                     const std::string& more = "") {
  return "    - {name: " + name + ", gpus: 8, duration: " + duration + ", submit: " + submit + ", team: " + team + more + "}\n";
}

}  // namespace

TEST_CASE("autoscale: the jobs of a team held by its budget are not demand", "[model][autoscale][budgets]") {
  // One pool of 8-GPU nodes at $8/h ($1 a GPU-hour), billed from the request, per second;
  // count 1, min 0, max 2; out on waiting_gpus >= 8 by 2; in after 30 idle min, by 2; 4 min
  // provisioning. Team v: A (8 GPUs, 1 h) at 0; B and C (8 GPUs, 1 h each) at 0h45. Its
  // budget: $3 a 2 h period, stop_new, checked every 15 min. Horizon 4 h, billed to it.
  //   0h00  A starts on node 0.
  //   0h15  v has spent 8 x $1 x 0.25 h = $2 < $3.   0h30: $4 >= $3: v is held.
  //   0h45  B, C arrive held: waiting_gpus = 0, no scale-out (before the fix: 16, and the
  //         pool grew to its max with a node no job of v could use).
  //   1h00  A ends; node 0 idle.   1h30: idle for 30 min: released (scale-in, idle).
  //   2h00  a new period: v is released, B and C wait: waiting_gpus = 16 -> two nodes
  //         requested (16 - 2 x 8 = 0 then); up at 2h04, B and C run to 3h04.
  //   2h15  v's period spend 2 x 8 x 11/60 = $2.93;  2h30: $6.93 >= $3: v held again, with
  //         nothing queued (stop_new: B and C run on).
  //   3h04  B, C end.   3h34: both nodes idle for 30 min: released.
  // Bill: node 0 0 -> 1h30 (90 min); two nodes 2h00 -> 3h34 (94 min each) = 278 min x $8/h.
  std::string yaml = pool_yaml(8, 1,
                               "min: 0, max: 2, scale_out: {when: waiting_gpus >= 8, by: 2}, scale_in: {when: idle, for: 30m, by: 2}, "
                               "provisioning: 4m",
                               team_job("A", "1h", "0", "v") + team_job("B", "1h", "45m", "v") + team_job("C", "1h", "45m", "v"),
                               "4h", "", 8.0) +
                     "budgets:\n  - {team: v, limit: $3, period: 2h, action: stop_new, check_every: 15m}\n";
  yaml = replaced(yaml, "horizon: 4h\n", "horizon: 4h\nrun_until: horizon\n");
  double waiting_while_held = -1;
  std::size_t held = 0;
  ScaledRun r(yaml, minutes(50), [&](const ScaledRun& run) {
    waiting_while_held = run.scaler->gauges().waiting_gpus(0);
    held = run.cluster->held_jobs().size();
  });
  CHECK(held == 2);
  CHECK(waiting_while_held == 0);
  REQUIRE(r.decisions().size() == 3);
  CHECK(r.decisions()[0].time == hours(1) + minutes(30));
  CHECK(r.decisions()[0].direction == ScaleDirection::In);
  CHECK(r.decisions()[0].trigger == TriggerKind::Idle);
  CHECK(r.decisions()[0].size_after == 0);
  CHECK(r.decisions()[1].time == hours(2));
  CHECK(r.decisions()[1].direction == ScaleDirection::Out);
  CHECK(r.decisions()[1].value == 16);
  CHECK(r.decisions()[1].nodes == 2);
  CHECK(r.decisions()[2].time == hours(3) + minutes(34));
  CHECK(r.decisions()[2].direction == ScaleDirection::In);
  CHECK(r.decisions()[2].nodes == 2);
  CHECK(r.most_nodes == 2);
  CHECK(r.job(1).run_start == hours(2) + minutes(4));
  CHECK(r.job(2).run_start == hours(2) + minutes(4));
  CHECK(r.job(2).status == models::JobStatus::Completed);
  CHECK(r.costs->total_cost_usd() == Approx(278.0 / 60 * 8));
  // Released, the held jobs count again: nothing is left waiting or held.
  CHECK(r.scaler->gauges().waiting_gpus(0) == 0);
}

TEST_CASE("autoscale: a stop_instances budget gives its stopped jobs' nodes back at once", "[model][autoscale][budgets]") {
  // An empty pool of 8-GPU nodes at $8/h, max 2, out on waiting_gpus >= 8 by 2, in after 30
  // idle min, cooldown 1 h, no provisioning delay. A (team v, 8 GPUs, 2 h, checkpoints every
  // hour written in 2 min) and W (team w, 8 GPUs, 3 h) at 0. v's budget: $3, checked every
  // 15 min, no period. Horizon 4 h, billed to it.
  //   0h00  16 GPUs wait: two nodes (a rule's decision: the cooldown runs to 1h00); A and W start.
  //   0h30  v has spent $4 >= $3: held, and A writes a last checkpoint (2 min).
  //   0h32  A stops; its node is idle.
  //     stop_instances: given back at once (trigger `budget`), within the cooldown.
  //     stop_running:   the idle rule releases it at 1h02 (30 idle min, the cooldown over).
  //   3h00  W ends; 3h30: its node is released (idle).
  // Bill: stop_instances, (32 + 210) min x $8/h = $32.27; stop_running, (62 + 210) min = $36.27.
  const auto yaml = [](const std::string& action, const std::string& min) {
    std::string y = pool_yaml(8, std::stoi(min),
                              "min: " + min + ", max: 2, scale_out: {when: waiting_gpus >= 8, by: 2}, scale_in: {when: idle, for: 30m}, "
                              "cooldown: 1h",
                              team_job("A", "2h", "0", "v", ", checkpoint: {every: 1h, write_time: 2m}") + team_job("W", "3h", "0", "w"),
                              "4h", "", 8.0) +
                    "budgets:\n  - {team: v, limit: $3, action: " + action + ", check_every: 15m}\n";
    return replaced(y, "horizon: 4h\n", "horizon: 4h\nrun_until: horizon\n");
  };
  SECTION("stop_instances: released when A stops, the cooldown notwithstanding") {
    ScaledRun r(yaml("stop_instances", "0"));
    CHECK(r.scenario.budgets[0].action == models::BudgetAction::StopInstances);
    REQUIRE(r.decisions().size() == 3);
    CHECK(r.decisions()[0].time == SimTime::zero());
    CHECK(r.decisions()[0].nodes == 2);
    CHECK(r.decisions()[1].time == minutes(32));
    CHECK(r.decisions()[1].direction == ScaleDirection::In);
    CHECK(r.decisions()[1].trigger == TriggerKind::Budget);
    CHECK(r.decisions()[1].nodes == 1);
    CHECK(r.decisions()[1].size_before == 2);
    CHECK(r.decisions()[1].size_after == 1);
    CHECK(r.decisions()[2].time == hours(3) + minutes(30));
    CHECK(r.decisions()[2].trigger == TriggerKind::Idle);
    CHECK(r.job(0).status == models::JobStatus::Interrupted);
    CHECK(r.job(0).stop_reason == models::StopReason::Budget);
    CHECK(r.job(1).status == models::JobStatus::Completed);
    CHECK(r.costs->total_cost_usd() == Approx(242.0 / 60 * 8));
  }
  SECTION("stop_running: released by the idle rule, 30 min later") {
    ScaledRun r(yaml("stop_running", "0"));
    REQUIRE(r.decisions().size() == 3);
    CHECK(r.decisions()[1].time == hours(1) + minutes(2));
    CHECK(r.decisions()[1].trigger == TriggerKind::Idle);
    CHECK(r.costs->total_cost_usd() == Approx(272.0 / 60 * 8));
  }
  SECTION("stop_instances never takes a pool below its floor") {
    // count = min = 2: A and W start on the two nodes at 0 (no decision); neither node goes,
    // both billed the 4 h: 8 node-hours = $64.
    ScaledRun r(yaml("stop_instances", "2"));
    CHECK(r.decisions().empty());
    CHECK(r.job(0).stop_reason == models::StopReason::Budget);
    CHECK(r.costs->total_cost_usd() == Approx(8.0 * 8));
  }
}
