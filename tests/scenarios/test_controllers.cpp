// Controllers (budgets, the autoscaler) act through the engine, never from inside a signal
// callback (docs/engine.md, "Controllers"): a budget that reacts to a charge posted while a
// node goes down must not stop, or bill, a job a second time. And the two together, as a run
// composes them: a budget on an elastic pool (issue 35).
#include <catch2/catch.hpp>

#include <map>

#include "analysis/pools.hpp"
#include "analysis/trace_data.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using test::job_named;

TEST_CASE("A budget reached while a node goes down stops each job once and bills it once", "[scenario][budgets]") {
  // The review's probe 1. One spot node of 2 GPUs whose price is $1/h, except $5/h during
  // [1h, 2h); the bid is $2, so the node is taken at 1h and back at 2h. Jobs A and B (team
  // t, 1 GPU each, 10 h) start at 0. At 1h the node goes: stopping A posts A's share,
  // $1/h x 1 h x 1/2 = $0.50, which reaches the $0.40 limit; the budget (stop_running)
  // must then hold the team without stopping B inside the node's own loop, which stops B
  // next and posts B's $0.50. Both wait, held, to the 3h horizon.
  // Bill: the node is up [0, 1h) at $1/h and [2h, 3h) at $1/h, per second, whole seconds:
  // $2.00 in all = A $0.50 + B $0.50 (busy) + $0 idle for [0, 1h) + $1.00 idle for [2h, 3h).
  // Before the fix B was stopped twice: interruptions 2, 7200 GPU-s held, allocated GPUs
  // -1, and B's $0.50 posted twice ($2.50).
  test::TempDir dir("reent");
  const auto t = test::run_yaml(R"(name: reent
horizon: 3h
run_until: horizon
cluster:
  node_types:
    - name: s
      gpu: A100-40GB-SXM
      gpus: 2
      count: 1
      market: spot
      price: {on_demand_per_hour: 10, max_per_hour: 2, spot_profile: {points: [{at: 0h, price: 1}, {at: 1h, price: 5}, {at: 2h, price: 1}]}}
      interruptions: {process: price}
workload:
  jobs:
    - {name: A, gpus: 1, duration: 10h, team: t}
    - {name: B, gpus: 1, duration: 10h, team: t}
budgets:
  - {team: t, limit: $0.4, action: stop_running, check_every: 100d}
)", dir);
  for (const char* name : {"A", "B"}) {
    INFO(name);
    const auto& j = job_named(t, name);
    CHECK(j.status == analysis::JobStatus::Interrupted);
    CHECK(j.resilience.interruptions == 1);
    CHECK(j.resilience.gpu_s_held == Approx(3600.0).epsilon(1e-12));
    CHECK(j.cost_usd == Approx(0.5).epsilon(1e-12));
  }
  // One stop event per job, all at 1h.
  std::map<std::int64_t, int> stops;
  for (const auto& e : t.events)
    if (event_kind_label(t, e) == "stop") {
      ++stops[e.job];
      CHECK(e.time_s == Approx(3600.0));
    }
  CHECK(stops.size() == 2);
  for (const auto& [job, n] : stops) CHECK(n == 1);
  // Allocation: 2 GPUs until 1h, then none; never negative.
  REQUIRE(!t.utilization.empty());
  for (const auto& u : t.utilization) {
    CHECK(u.allocated_gpus >= 0);
    CHECK(u.allocated_gpus <= u.total_gpus);
  }
  CHECK(t.utilization.back().allocated_gpus == 0);
  // Each job's run is charged once; the total is the node's bill.
  std::map<std::int64_t, int> charges;
  double total = 0;
  for (const auto& c : t.ledger) {
    total += c.usd;
    if (c.job >= 0) ++charges[c.job];
  }
  for (const auto& [job, n] : charges) CHECK(n == 1);
  CHECK(total == Approx(2.0).epsilon(1e-12));
  REQUIRE(t.budget_events.size() == 1);
  CHECK(t.budget_events[0].kind == "limit_reached");
  CHECK(t.budget_events[0].time_s == Approx(3600.0));
  CHECK(t.budget_events[0].spent_usd == Approx(0.5).epsilon(1e-12));
}

TEST_CASE("A stop_instances budget on an elastic pool, as a whole run records it", "[scenario][budgets][autoscale]") {
  // tests/models/test_autoscaler.cpp's "stop_instances" case, built by the run's registry
  // (the budgets and the autoscaler as components) and read back from the trace: an empty
  // pool (max 2) of 8-GPU nodes at $8/h; A (team v, 2 h, a 2-min last checkpoint) and W
  // (team w, 3 h) at 0; v's $3 limit is seen at 0h30, A stops at 0h32 and its node is given
  // back then (trigger `budget`), W's goes 30 idle min after 3h00. While v is held its jobs
  // are not demand: every /pool_sizes row from 0h30 has waiting_gpus 0. Bill (32 + 210)
  // node-min x $8/h = $32.27.
  test::TempDir dir("budget-elastic");
  const auto t = test::run_yaml(R"(name: budget-elastic
horizon: 4h
run_until: horizon
cluster:
  node_types:
    - name: n
      gpu: V100-SXM2-16GB
      gpus: 8
      count: 0
      price: {on_demand_per_hour: 8}
      autoscale: {max: 2, scale_out: {when: waiting_gpus >= 8, by: 2}, scale_in: {when: idle, for: 30m}, cooldown: 1h}
workload:
  jobs:
    - {name: A, gpus: 8, duration: 2h, submit: 0, team: v, checkpoint: {every: 1h, write_time: 2m}}
    - {name: W, gpus: 8, duration: 3h, submit: 0, team: w}
budgets:
  - {team: v, limit: $3, action: stop_instances, check_every: 15m}
)", dir);
  const auto tables = analysis::read_elastic_pools(dir.file("budget-elastic.h5"));
  REQUIRE(tables.decisions.size() == 3);
  CHECK(tables.decisions[0].trigger == "waiting_gpus");
  CHECK(tables.decisions[1].trigger == "budget");
  CHECK_FALSE(tables.decisions[1].out);
  CHECK(tables.decisions[1].time_s == Approx(32 * 60.0));
  CHECK(tables.decisions[1].nodes == 1);
  CHECK(tables.decisions[2].trigger == "idle");
  CHECK(tables.decisions[2].time_s == Approx(210 * 60.0));
  for (const auto& row : tables.sizes)
    if (row.time_s >= 30 * 60.0) CHECK(row.waiting_gpus == 0);
  REQUIRE(t.budget_events.size() == 1);
  CHECK(t.budget_events[0].action == "stop_instances");
  CHECK(t.budget_events[0].time_s == Approx(30 * 60.0));
  double total = 0;
  for (const auto& c : t.ledger) total += c.usd;
  CHECK(total == Approx(242.0 / 60 * 8));
}
