// Controllers (budgets today) act through the engine, never from inside a signal callback
// (docs/engine.md, "Controllers"): a budget that reacts to a charge posted while a node goes
// down must not stop, or bill, a job a second time.
#include <catch2/catch.hpp>

#include <map>

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
