// Costs are finite by construction (docs/units.md, "Limits: time and numbers"): a run at
// the largest accepted prices, powers and amounts over a 290-year horizon gives the total
// computed by hand. Before the bounds, a price of 1e307/h printed `$inf` and `-nan`.
#include <catch2/catch.hpp>

#include <cmath>

#include "analysis/metrics.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

TEST_CASE("limits: the worst accepted prices give finite totals", "[scenario][limits]") {
  // 290 years of 365 days: 2,540,400 h, billed for every node (run_until: horizon).
  //   on demand: 64 GPUs at $1e6/GPUh = $6.4e7/h
  //   owned: capex $1e12 over 1 h ($1e12/h), maintenance 10,000%/y of it ($1e14/8760 h),
  //          hosting $1e6/h, energy 1 GW x PUE 3 x $1,000/kWh = $3e9/h (busy = idle)
  const double hours = 290.0 * 8760;
  const double owned_per_h = 1e12 + 100 * 1e12 / 8760 + 1e6 + 1e9 / 1000 * 3 * 1000;
  const double expected = (6.4e7 + owned_per_h) * hours;
  test::TempDir dir;
  const auto t = test::run_yaml(R"(name: worst
horizon: 290y
run_until: horizon
cluster:
  node_types:
    - {name: d, gpu: A100-40GB-SXM, gpus: 64, count: 1, price: {on_demand_per_hour: $1000000/GPUh}}
    - {name: o, gpu: A100-40GB-SXM, gpus: 8, count: 1, market: owned,
       ownership: {capex: $1e12, depreciation: 1h, maintenance: 10000%/y, hosting: $1000000/h, power_busy: 1GW,
                   power_idle: 1GW, pue: 3, electricity: $1000/kWh}}
workload:
  jobs:
    - {name: a, gpus: 8, duration: 1h}
)", dir);
  const analysis::Metrics m = analysis::compute_metrics(t);
  CHECK(std::isfinite(m.total_cost_usd));
  CHECK(m.total_cost_usd == Approx(expected).epsilon(1e-9));
}
