// Whole runs on every market: what the ledger charges, computed by hand in the comments
// (docs/pricing.md "Billing in a run", docs/checkpoints.md "Budgets").
#include <catch2/catch.hpp>

#include <map>

#include "analysis/metrics.hpp"
#include "analysis/report.hpp"
#include "analysis/trace_data.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using test::job_named;

namespace {

std::map<std::string, double> by_category(const analysis::TraceData& t) {
  std::map<std::string, double> m;
  for (const auto& c : t.ledger) m[c.category] += c.usd;
  return m;
}

double ledger_total(const analysis::TraceData& t) {
  double s = 0;
  for (const auto& c : t.ledger) s += c.usd;
  return s;
}

}  // namespace

TEST_CASE("Reserved capacity is billed whether used or not", "[scenario][pricing]") {
  // Two 8-GPU nodes reserved at $3/h (no upfront), 10 h: 2 x 3 x 10 = $60 in all. One job of
  // 1 GPU for 2 h pays its share, 3 / 8 x 2 = $0.75; the other $59.25 is idle reservation.
  test::TempDir dir;
  const auto t = test::run_yaml(R"(name: reserved
horizon: 10h
run_until: horizon
cluster:
  node_types:
    - {name: r, gpu: A100-40GB-SXM, gpus: 8, count: 2, market: reserved,
       price: {on_demand_per_hour: 32.77, reserved: {term: 1y, upfront: none, per_hour: 3}}}
workload:
  jobs:
    - {name: A, gpus: 1, duration: 2h}
)", dir);
  const auto cat = by_category(t);
  CHECK(cat.at("reserved") == Approx(60.0).epsilon(1e-12));
  CHECK(job_named(t, "A").cost_usd == Approx(0.75).epsilon(1e-12));
  double idle = 0;
  for (const auto& c : t.ledger)
    if (!c.busy) idle += c.usd;
  CHECK(idle == Approx(59.25).epsilon(1e-12));
  CHECK(ledger_total(t) == Approx(60.0).epsilon(1e-12));
}

TEST_CASE("A price per GPU-hour bills the whole node: $4/GPUh on 8 GPUs is $32/h", "[scenario][pricing]") {
  // The review's probe 2: one 8-GPU node at $4 per GPU-hour and one 8-GPU job for the 1 h
  // horizon: 8 GPU-hours x $4 = $32.00, all of it the job's (busy). Read as $4 per
  // node-hour, it was billed $4.00.
  test::TempDir dir;
  const auto t = test::run_yaml(R"(name: gpuh
horizon: 1h
run_until: horizon
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: "$4/GPUh"}}
workload:
  jobs:
    - {name: a, gpus: 8, duration: 1h}
)", dir);
  CHECK(ledger_total(t) == Approx(32.0).epsilon(1e-12));
  CHECK(job_named(t, "a").cost_usd == Approx(32.0).epsilon(1e-12));
  REQUIRE(t.nodes.size() == 1);
  CHECK(t.nodes[0].price_usd_per_hour == Approx(32.0).epsilon(1e-15));
  REQUIRE(t.pools.size() == 1);
  CHECK(t.pools[0].on_demand_usd_per_hour == Approx(32.0).epsilon(1e-15));
}

TEST_CASE("Owned nodes: fixed costs always, busy power only while jobs run", "[scenario][pricing]") {
  // capex $87,600 over 1y = $10/h; power 1 kW busy, 200 W idle, PUE 1, $0.50/kWh:
  // E_busy = $0.50/h, E_idle = $0.10/h. One 8-GPU job for 4 h of a 10 h run:
  //   busy (F + E_busy) x 4 = $42;  idle (F + E_idle) x 6 = $60.60;  total $102.60.
  test::TempDir dir;
  const auto t = test::run_yaml(test::owned_node_yaml(), dir);
  CHECK(by_category(t).at("ownership") == Approx(102.6).epsilon(1e-12));
  CHECK(job_named(t, "A").cost_usd == Approx(42.0).epsilon(1e-12));
  REQUIRE(t.pools.size() == 1);
  CHECK(t.pools[0].fixed_usd_per_hour == Approx(10.0));
  CHECK(t.pools[0].energy_busy_usd_per_hour == Approx(0.5));
}

TEST_CASE("A spot price profile is replayed exactly: crossings take the pool, billing follows the price",
          "[scenario][pricing][spot]") {
  // Spot price $1/h, $3/h from 2h, $1/h again from 3h; max (bid) $2/h: the node is taken at
  // 2h (no notice) and back at 3h. Billed per minute; the run ends at 5h 0m 30s.
  //   session 1 [0, 2h):            $1 x 2 h                        = $2
  //   session 2 [3h, 5h 0m 30s):    used 2h 0m 30s, billed 2h 1m x $1 = $2.016667
  // The job (1 GPU, 30m, submitted at 2h30m) waits for the node, runs 3h-3h30 at $1/h: $0.50.
  test::TempDir dir;
  const auto t = test::run_yaml(R"(name: price
horizon: 18030s
run_until: horizon
cluster:
  node_types:
    - name: s
      gpu: V100-SXM2-16GB
      gpus: 1
      count: 1
      market: spot
      price:
        max_per_hour: 2
        billing: per_minute
        spot_profile: {points: [{at: 0h, price: 1}, {at: 2h, price: 3}, {at: 3h, price: 1}]}
      interruptions: {process: price}
      notice: 0s
workload:
  jobs:
    - {name: A, submit: 150m, gpus: 1, duration: 30m}
)", dir);
  CHECK(ledger_total(t) == Approx(2.0 + 121.0 / 60).epsilon(1e-12));
  CHECK(job_named(t, "A").start_s == Approx(3 * 3600.0));
  CHECK(job_named(t, "A").cost_usd == Approx(0.5).epsilon(1e-12));
  REQUIRE(t.nodes.size() == 1);
  CHECK(t.nodes[0].interruptions == 1);
  CHECK(t.nodes[0].up_time_s == Approx(2 * 3600.0 + 2 * 3600.0 + 30));
}

TEST_CASE("Billing minimums: a short spot session pays the provider's minimum", "[scenario][pricing][spot]") {
  // AWS bills per second with a 60 s minimum. The price rises above the bid 20 s into the
  // run: the first session is billed 60 s at $3.60/h = $0.06. Back at 1h (price $3.60 again),
  // the second session [1h, 2h) is 3600 s = $3.60.
  test::TempDir dir;
  const auto t = test::run_yaml(R"(name: minimum
horizon: 2h
run_until: horizon
cluster:
  node_types:
    - name: s
      gpu: V100-SXM2-16GB
      gpus: 1
      count: 1
      provider: aws
      market: spot
      price:
        max_per_hour: 4
        spot_profile: {points: [{at: 0s, price: 3.6}, {at: 20s, price: 5}, {at: 1h, price: 3.6}]}
      interruptions: {process: price}
      notice: 0s
workload:
  jobs:
    - {name: A, submit: 90m, gpus: 1, duration: 1m}
)", dir);
  CHECK(ledger_total(t) == Approx(0.06 + 3.6).epsilon(1e-12));
}

TEST_CASE("Budgets: stop_new holds a team's queued jobs once its spend reaches the limit",
          "[scenario][budgets]") {
  // Two 1-GPU nodes at $4/h; team a runs A1 and A2 (3 h each) from 0; A3 (1 h) arrives at
  // 1h and queues. Spend = 2 x $4 x t: checks every 30m see $4, $8, $12. Alert at 50% ($5)
  // at 1h; the $10 limit is seen at 1h30 ($12): A3 is held and never starts; A1, A2 finish.
  test::TempDir dir;
  const auto t = test::run_yaml(R"(name: budget
horizon: 6h
cluster:
  node_types:
    - {name: n, gpu: V100-SXM2-16GB, gpus: 1, count: 2, price: {on_demand_per_hour: 4}}
workload:
  jobs:
    - {name: A1, gpus: 1, duration: 3h, team: a}
    - {name: A2, gpus: 1, duration: 3h, team: a}
    - {name: A3, submit: 1h, gpus: 1, duration: 1h, team: a}
budgets:
  - {team: a, limit: $10, action: stop_new, alert_at: 50%, check_every: 30m}
)", dir);
  REQUIRE(t.budget_events.size() == 2);
  CHECK(t.budget_events[0].kind == "alert");
  CHECK(t.budget_events[0].time_s == Approx(3600));
  CHECK(t.budget_events[0].spent_usd == Approx(8));
  CHECK(t.budget_events[1].kind == "limit_reached");
  CHECK(t.budget_events[1].time_s == Approx(5400));
  CHECK(t.budget_events[1].spent_usd == Approx(12));
  CHECK(job_named(t, "A1").status == analysis::JobStatus::Completed);
  CHECK(job_named(t, "A3").status == analysis::JobStatus::NeverStarted);
  CHECK(t.attrs.end_s == Approx(6 * 3600));  // held work keeps the run to its horizon
}

TEST_CASE("Budgets: stop_running checkpoints a running job, then stops it with nothing lost",
          "[scenario][budgets]") {
  // One 1-GPU node at $4/h; job B (10 h, checkpoint every 1h, write 3m) of team b; limit $6,
  // checked every 30m: at 1h30 the spend is $6. B then writes a last checkpoint (1h30-1h33)
  // of its 1h27m of work and stops: interrupted, nothing lost, 2 checkpoints.
  test::TempDir dir;
  const auto t = test::run_yaml(R"(name: budget-stop
horizon: 10h
cluster:
  node_types:
    - {name: n, gpu: V100-SXM2-16GB, gpus: 1, count: 1, price: {on_demand_per_hour: 4}}
workload:
  jobs:
    - {name: B, gpus: 1, duration: 10h, team: b, checkpoint: {every: 1h, write_time: 3m}}
budgets:
  - {team: b, limit: 6, action: stop_running, check_every: 30m}
)", dir);
  const auto& B = job_named(t, "B");
  CHECK(B.status == analysis::JobStatus::Interrupted);
  CHECK(B.resilience.interruptions == 1);
  CHECK(B.resilience.checkpoints == 2);
  CHECK(B.resilience.gpu_s_lost == 0);
  CHECK(B.resilience.gpu_s_held == Approx(93 * 60.0));
  CHECK(B.cost_usd == Approx(4 * 93.0 / 60).epsilon(1e-12));
  REQUIRE(t.budget_events.size() == 1);
  CHECK(t.budget_events[0].time_s == Approx(5400));
}

TEST_CASE("Checkpoint writes share their tier: two at once take twice as long", "[scenario][storage][spot]") {
  // 100 GB checkpoints to a 1 GB/s shared file system: 100 s alone. Two 10 h jobs on two
  // nodes checkpoint every hour at the same instants, so each write gets 0.5 GB/s: 200 s.
  // 9 checkpoints each (none at the end): alone 10h + 900 s; together 10h + 1800 s.
  const std::string head = R"(name: ckpt-share
horizon: 1d
run_until: done
cluster:
  node_types:
    - {name: n, gpu: V100-SXM2-16GB, gpus: 1, count: 2, price: {on_demand_per_hour: 1}}
storage:
  tiers: [{name: nfs, kind: shared-fs, read: 1GB/s, write: 1GB/s, price: 0.1/GB-month}]
workload:
  jobs:
)";
  const std::string job = "{gpus: 1, duration: 10h, checkpoint: {every: 1h, size: 100GB, tier: nfs}}";
  test::TempDir dir;
  const auto alone = test::run_yaml(head + "    - {name: A, " + job.substr(1) + "\n", dir);
  CHECK(job_named(alone, "A").end_s == Approx(36000 + 900).epsilon(1e-12));
  CHECK(job_named(alone, "A").resilience.gpu_s_checkpoint == Approx(900).epsilon(1e-9));
  test::TempDir dir2;
  const auto both = test::run_yaml(head + "    - {name: A, " + job.substr(1) + "\n    - {name: B, " + job.substr(1) + "\n", dir2);
  CHECK(job_named(both, "A").end_s == Approx(36000 + 1800).epsilon(1e-12));
  CHECK(job_named(both, "B").end_s == Approx(36000 + 1800).epsilon(1e-12));
  CHECK(job_named(both, "A").resilience.gpu_s_checkpoint == Approx(1800).epsilon(1e-9));
  // The checkpoint is stored from its first commit (1h 1m 40s) to the end of the run (10h
  // 15m): 100 GB x $0.1/GB-month x 33,200 s / (730 x 3600 s) = $0.12633.
  double storage = 0;
  for (const auto& c : alone.ledger)
    if (c.category == "storage") storage += c.usd;
  CHECK(storage == Approx(100 * 0.1 * (36900.0 - 3700.0) / (730 * 3600)).epsilon(1e-9));
}

namespace {

// Two 8-GPU nodes of one pool for a 10 h horizon, one 8-GPU job of 2 h; `until` is "" (the
// default) or a run_until line.
std::string one_pool(const std::string& pool, const std::string& until) {
  return "name: horizon-bill\nhorizon: 10h\n" + until + "cluster:\n  node_types:\n    - " + pool +
         "\nworkload:\n  jobs:\n    - {name: A, gpus: 8, duration: 2h}\n";
}

const char* ON_DEMAND = "{name: p, gpu: A100-40GB-SXM, gpus: 8, count: 2, price: {on_demand_per_hour: 32.77, billing: per_second}}";
const char* SPOT = "{name: p, gpu: A100-40GB-SXM, gpus: 8, count: 2, market: spot, "
                   "price: {on_demand_per_hour: 32.77, spot_per_hour: 10, billing: per_second}}";
const char* RESERVED = "{name: p, gpu: A100-40GB-SXM, gpus: 8, count: 2, market: reserved, "
                       "price: {on_demand_per_hour: 32.77, reserved: {term: 1y, per_hour: 19.22}}}";
// F = 87,600 / 8,760 h = $10/h; E(1) = 1 kW x $0.50/kWh = $0.50/h, E(0) = $0.10/h.
const char* OWNED = "{name: p, gpu: A100-40GB-SXM, gpus: 8, count: 2, market: owned, ownership: {capex: 87600, "
                    "depreciation: 1y, power_busy: 1kW, power_idle: 200W, pue: 1.0, electricity: 0.5/kWh}}";

}  // namespace

TEST_CASE("The horizon is the billing period: every market by default, owned and reserved always",
          "[scenario][pricing]") {
  test::TempDir dir;
  struct Case {
    const char* market;
    const char* pool;
    double default_usd;  // no run_until: both nodes for all 10 h
    double done_usd;     // run_until: done (ends at 2 h)
    double done_end_s;
  };
  const Case cases[] = {
      // 2 x $32.77 x 10 h; done: 2 x $32.77 x 2 h (given back with the last job).
      {"on_demand", ON_DEMAND, 655.4, 131.08, 7200},
      // 2 x $10 x 10 h; done: 2 x $10 x 2 h.
      {"spot", SPOT, 200.0, 40.0, 7200},
      // 2 x $19.22 x 10 h, the horizon's share of the 1-year terms, whatever run_until says.
      {"reserved", RESERVED, 384.4, 384.4, 7200},
      // 2 x (F + E(0)) x 10 h + (E(1) - E(0)) x 2 h = 202 + 0.80; the same under done.
      {"owned", OWNED, 202.8, 202.8, 7200},
  };
  for (const Case& c : cases) {
    INFO(c.market);
    const auto by_default = test::run_yaml(one_pool(c.pool, ""), dir);
    CHECK(by_default.attrs.end_s == Approx(36000.0));
    CHECK(by_default.attrs.run_until == "horizon");
    CHECK(ledger_total(by_default) == Approx(c.default_usd).epsilon(1e-12));
    REQUIRE(by_default.nodes.size() == 2);
    CHECK(by_default.nodes[0].cost_usd + by_default.nodes[1].cost_usd == Approx(c.default_usd).epsilon(1e-12));
    const auto done = test::run_yaml(one_pool(c.pool, "run_until: done\n"), dir);
    CHECK(done.attrs.end_s == Approx(c.done_end_s));
    CHECK(ledger_total(done) == Approx(c.done_usd).epsilon(1e-12));
    // The job pays its share at the busy rate either way.
    CHECK(job_named(done, "A").cost_usd == Approx(job_named(by_default, "A").cost_usd).epsilon(1e-12));
  }
}

TEST_CASE("A reserved term under the default: the horizon's share charged, the whole term reported, break-even",
          "[scenario][pricing]") {
  // One p4d-like node on a 1-year term at $19.22/h, a 10 h horizon, an 8-GPU job of 2 h:
  // charged 10 x 19.22 = $192.20; committed 8,760 x 19.22 = $168,367.20. Against $32.77/h on
  // demand: u* = 19.22 / 32.77 = 58.65 %, 0.5865 x 8,760 = 5,138 h a year.
  test::TempDir dir;
  const auto t = test::run_yaml(R"(name: term
horizon: 10h
cluster:
  node_types:
    - {name: r, gpu: A100-40GB-SXM, gpus: 8, count: 1, market: reserved,
       price: {on_demand_per_hour: 32.77, reserved: {term: 1y, per_hour: 19.22}}}
workload:
  jobs:
    - {name: A, gpus: 8, duration: 2h}
)", dir);
  CHECK(ledger_total(t) == Approx(192.2).epsilon(1e-12));
  REQUIRE(t.pools.size() == 1);
  CHECK(t.pools[0].term_s == Approx(8760.0 * 3600));
  CHECK(t.pools[0].commitment_usd == Approx(168367.2).epsilon(1e-12));
  const analysis::Metrics m = analysis::compute_metrics(t);
  REQUIRE(m.pools.size() == 1);
  CHECK(m.pools[0].break_even_utilization == Approx(19.22 / 32.77).epsilon(1e-12));
  CHECK(m.pools[0].break_even_utilization * 8760 == Approx(5138).margin(0.5));
  CHECK(m.pools[0].utilization == Approx(0.2).epsilon(1e-12));  // 2 h of 10
  const std::string report = analysis::format_report(t, m);
  CHECK(report.find("58.7% (5,138 h a year) vs its on-demand price at $4.10/GPU-h: below (on demand is cheaper)") !=
        std::string::npos);
  CHECK(report.find("r: $192.20 is this horizon's share of $168,367.20 committed (1y terms") != std::string::npos);

  // A horizon of 1.5 terms signs two: 2 x 8,760 x 19.22 committed, 1.5 terms charged.
  const auto long_run = test::run_yaml(R"(name: term
horizon: 13140h
cluster:
  node_types:
    - {name: r, gpu: A100-40GB-SXM, gpus: 8, count: 1, market: reserved,
       price: {reserved: {term: 1y, per_hour: 19.22}}}
workload:
  jobs:
    - {name: A, gpus: 8, duration: 2h}
)", dir);
  CHECK(ledger_total(long_run) == Approx(13140 * 19.22).epsilon(1e-12));
  CHECK(long_run.pools[0].commitment_usd == Approx(2 * 8760 * 19.22).epsilon(1e-12));
}

TEST_CASE("A hand-computed TCO month: two owned servers busy one day of thirty, billed the month under done",
          "[scenario][pricing]") {
  // capex $200,000 over 3 y (26,280 h): $7.610350/h; maintenance 8 %/y: 16,000 / 8,760 =
  // $1.826484/h; F = $9.436834/h. Power 6.5 kW busy / 1.5 kW idle, PUE 1.3, $0.12/kWh:
  // E(1) = $1.014/h, E(0) = $0.234/h. Two nodes for 720 h, one 8-GPU job for 24 h:
  //   2 x 720 x (F + E(0)) + 24 x (E(1) - E(0)) = 13,926.00 + 18.72 = $13,944.72
  // (the issue's figure; it reported $482.92, the 24 h alone).
  test::TempDir dir;
  const auto t = test::run_yaml(R"(name: month
horizon: 30d
run_until: done
cluster:
  node_types:
    - {name: o, gpu: A100-40GB-SXM, gpus: 8, count: 2, market: owned,
       ownership: {capex: 200000, depreciation: 3y, maintenance: 8%/y, power_busy: 6.5kW, power_idle: 1.5kW,
                   pue: 1.3, electricity: 0.12/kWh}}
workload:
  jobs:
    - {name: A, gpus: 8, duration: 24h}
)", dir);
  const double f = 200000.0 / 26280 + 0.08 * 200000 / 8760;
  const double hand = 2 * 720 * (f + 0.234) + 24 * (1.014 - 0.234);
  CHECK(hand == Approx(13944.72).margin(0.005));
  CHECK(ledger_total(t) == Approx(hand).epsilon(1e-12));
  CHECK(t.attrs.end_s == Approx(24 * 3600.0));  // the run ended with the job ...
  const analysis::Metrics m = analysis::compute_metrics(t);
  const std::string report = analysis::format_report(t, m);
  CHECK(report.find("the horizon for owned and reserved pools") != std::string::npos);  // ... the bill did not
}
