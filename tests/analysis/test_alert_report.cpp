// The Alerts section of `gcsim analyze` (analysis/alert_report.hpp, docs/alerts.md "In the
// report"): per rule its firings, and per rule and pool the GPU-hours its firings covered
// and what those GPUs were doing, computed by hand on series built here.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "analysis/alert_report.hpp"
#include "sim/config/config_node.hpp"
#include "sim/rules/alert_rules_file.hpp"

using namespace gcsim;
using analysis::GpuSeries;
using analysis::MetricSegment;

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

GpuSeries series(int node, int gpu, std::int64_t job, double from, double to, double util) {
  MetricSegment s;
  s.from_s = from;
  s.to_s = to;
  s.values.fill(NaN);
  s.values[0] = util;
  return GpuSeries{node, gpu, job, {s}};
}

// Two pools over an hour, sampled every minute: pool a's node a-0 has GPU 0 held by j0
// (input-storage-bound, 30%) and GPU 1 shared by j1 (no model, 20%, all hour) and j2
// (compute-bound, 40%, the second half hour); pool b's b-0 has one idle GPU.
struct Fixture {
  analysis::MetricsData metrics;
  analysis::TraceData trace;
  Fixture() {
    metrics.every_s = 60;
    metrics.end_s = 3600;
    metrics.node_names = {"a-0", "b-0"};
    metrics.node_pools = {"a", "b"};
    metrics.job_names = {"j0", "j1", "j2"};
    metrics.series = {series(0, 0, 0, 0, 3600, 0.3), series(0, 1, 1, 0, 3600, 0.2), series(0, 1, 2, 1800, 3600, 0.4),
                      series(1, 0, -1, 0, 3600, 0.0)};
    for (const auto& [id, bottleneck] : {std::pair{0, "input-storage"}, std::pair{1, ""}, std::pair{2, "compute"}}) {
      analysis::JobRecord j;
      j.job_id = id;
      j.model.bottleneck = bottleneck;
      trace.jobs.push_back(j);
    }
  }
  analysis::AlertsReport report(const std::string& rules) const {
    const auto groups = promql::read_alert_groups(config::load_yaml_string(rules, "rules.yml").root,
                                                  &promql::exported_series_names());
    return analysis::report_alerts(trace, metrics, groups, "rules.yml");
  }
};

}  // namespace

TEST_CASE("a pool's alert covers its GPUs' up time while it fired, split by what they were doing", "[unit]") {
  const Fixture f;
  const auto r = f.report("groups:\n  - name: g\n    rules:\n      - alert: Low\n"
                          "        expr: avg by (pool) (DCGM_FI_DEV_GPU_UTIL) < 60\n"
                          "        annotations: {summary: below 60%}\n");
  // Both pools stay below 60% from the first sample (60 s) to the end: fired at the 1 min
  // evaluation (for 0), still firing at the last (3600 s).
  REQUIRE(r.rules.size() == 1);
  CHECK(r.rules[0].firings == 2);
  CHECK(r.rules[0].firing_s == Approx(2 * 3540.0));
  CHECK(r.rules[0].condition == "below 60%");
  REQUIRE(r.advice.size() == 2);
  // Pool a: GPU 0 up 3540 s, GPU 1 up 3540 s (two jobs' series on it counted once):
  // 7080 s = 1.9667 GPU-hours. By series time: j0 3540 s, j1 3540 s, j2 1800 s (of 8880 s).
  const analysis::AlertAdvice& a = r.advice[0];
  CHECK(a.pool == "a");
  CHECK(a.firings == 1);
  CHECK(a.gpu_hours == Approx(7080.0 / 3600).epsilon(1e-12));
  REQUIRE(a.causes.size() == 3);
  CHECK(a.causes[0].second == Approx(3540.0 / 8880).epsilon(1e-12));
  CHECK(a.causes[1].second == Approx(3540.0 / 8880).epsilon(1e-12));
  CHECK(a.causes[2].first == "compute-bound");
  CHECK(a.causes[2].second == Approx(1800.0 / 8880).epsilon(1e-12));
  CHECK(((a.causes[0].first == "input-storage-bound" && a.causes[1].first == "no model") ||
         (a.causes[0].first == "no model" && a.causes[1].first == "input-storage-bound")));
  // Pool b: its one idle GPU, 3540 s.
  const analysis::AlertAdvice& b = r.advice[1];
  CHECK(b.pool == "b");
  CHECK(b.gpu_hours == Approx(3540.0 / 3600).epsilon(1e-12));
  REQUIRE(b.causes.size() == 1);
  CHECK(b.causes[0].first == "idle");
  CHECK(b.causes[0].second == 1.0);
  CHECK(b.line() == "pool b: Low for 1.0 GPU-hours in 1 firing (below 60%): 100.0% idle GPUs");
}

TEST_CASE("an alert on one job's series covers that job's GPU only", "[unit]") {
  const Fixture f;
  const auto r = f.report("groups:\n  - name: g\n    rules:\n      - alert: Busy\n"
                          "        expr: DCGM_FI_DEV_GPU_UTIL{job=\"j2\"} > 35\n");
  // j2's series lives over (1800, 3600]: samples from 1860 s; fired at the 1860 s
  // evaluation, still firing at 3600 s: 1740 s on one GPU, all of it j2's (compute-bound).
  REQUIRE(r.advice.size() == 1);
  CHECK(r.rules[0].firing_s == Approx(1740.0));
  CHECK(r.rules[0].peak == Approx(40.0));
  CHECK(r.advice[0].gpu_hours == Approx(1740.0 / 3600).epsilon(1e-12));
  REQUIRE(r.advice[0].causes.size() == 1);
  CHECK(r.advice[0].causes[0].first == "compute-bound");
  CHECK(r.advice[0].line().ends_with("100.0% compute-bound jobs (see Training: bound by)"));
}
