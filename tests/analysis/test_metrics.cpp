// Metrics, text report and JSON on a hand-built run whose numbers are worked out below.
//
// Cluster: 2 nodes x 4 GPUs at $8/h, both up over the whole 10 h run (end_s = 36000 s).
// A GPU on it costs 8 / 4 = $2 per hour.
//   node cost: 2 x $8/h x 10 h                     = $160            (total)
// Jobs (times in s):        submit  start   end     GPUs  node  cost
//   J1 completed               0       0     7200     4    0    2 x 4 x 2 h   = $16
//   J2 completed               0    1800    12600     2    1    2 x 2 x 3 h   = $12
//   J3 completed            3600    7200    21600     4    0    2 x 4 x 4 h   = $32
//   J4 running at the end   7200   12600        -     4    1    2 x 4 x 6.5 h = $52  (to 36000)
//   J5 never started       30000       -        -     8    -    $0
//   busy = 16 + 12 + 32 + 52 = $112; idle = 160 - 112 = $48; per completed job = 160 / 3.
// Allocated GPUs (a step function):
//   [0, 1800) 4   [1800, 12600) 6   [12600, 21600) 8   [21600, 36000) 4
//   integral = 4*1800 + 6*10800 + 8*9000 + 4*14400 = 201600 GPU-s = 56 GPU-h
//   (consistent with busy cost: 56 GPU-h x $2 = $112); provisioned = 8 x 10 h = 80 GPU-h
//   utilization = 56 / 80 = 0.7; cost per GPU-hour = 160 / 56.
// Waits (started jobs J1..J4): 0, 1800, 3600, 5400 -> mean 2700
//   p50: h = 3 x 0.50 = 1.5  -> 1800 + 0.5 x 1800  = 2700
//   p95: h = 3 x 0.95 = 2.85 -> 3600 + 0.85 x 1800 = 5130
//   p99: h = 3 x 0.99 = 2.97 -> 3600 + 0.97 x 1800 = 5346
// JCT (completed J1..J3): 7200, 12600, 18000 -> mean 12600
//   p50: h = 1 -> 12600;  p95: h = 1.9 -> 12600 + 0.9 x 5400 = 17460;  p99: h = 1.98 -> 17892
// Makespan: last completion 21600 - first submission 0 = 21600.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "analysis/metrics.hpp"
#include "analysis/report.hpp"
#include "analysis/trace_data.hpp"
#include "sim/check.hpp"
#include "sim/errors.hpp"

using namespace gcsim::analysis;

namespace {

constexpr double NAN_S = std::numeric_limits<double>::quiet_NaN();

TraceData hand_built() {
  TraceData d;
  d.attrs.scenario_name = "two-nodes";
  d.attrs.scenario_file = "tests/two-nodes.yaml";
  d.attrs.gcsim_version = "0.1.0";
  d.attrs.seed = 42;
  d.attrs.horizon_s = 36000;
  d.attrs.end_s = 36000;
  d.nodes = {{0, "g4", "A100", 4, 8.0, 0, 36000, 80.0}, {1, "g4", "A100", 4, 8.0, 0, 36000, 80.0}};
  d.jobs = {
      {1, "J1", 0, 0, 7200, 4, 4, "g4", 0, 1, 16.0, JobStatus::Completed, {}, {}},
      {2, "J2", 0, 1800, 12600, 2, 2, "g4", 1, 1, 12.0, JobStatus::Completed, {}, {}},
      {3, "J3", 3600, 7200, 21600, 4, 4, "g4", 0, 1, 32.0, JobStatus::Completed, {}, {}},
      {4, "J4", 7200, 12600, NAN_S, 4, 4, "g4", 1, 1, 52.0, JobStatus::Running, {}, {}},
      {5, "J5", 30000, NAN_S, NAN_S, 8, 0, "", -1, 0, 0.0, JobStatus::NeverStarted, {}, {}},
  };
  d.utilization = {{0, 4, 8}, {1800, 6, 8}, {12600, 8, 8}, {21600, 4, 8}};
  return d;
}

}  // namespace

TEST_CASE("metrics of a hand-built two-node run", "[model]") {
  const Metrics m = compute_metrics(hand_built());
  CHECK(m.total_cost_usd == Approx(160));
  CHECK(m.busy_cost_usd == Approx(112));
  CHECK(m.idle_cost_usd == Approx(48));
  CHECK(m.cost_per_completed_job_usd == Approx(160.0 / 3));
  CHECK(m.gpu_hours_delivered == Approx(56));
  CHECK(m.gpu_hours_provisioned == Approx(80));
  CHECK(m.cost_per_gpu_hour_usd == Approx(160.0 / 56));
  CHECK(m.gpu_utilization == Approx(0.7));
  // 56 GPU-h over the 10 h run: 5.6 GPUs on average; 8 at most, from 12600 s (3h 30m).
  CHECK(m.mean_allocated_gpus == Approx(5.6));
  CHECK(m.peak_allocated_gpus == 8);
  CHECK(m.peak_allocated_at_s == 12600);

  CHECK(m.wait_s.count == 4);
  CHECK(m.wait_s.mean == Approx(2700));
  CHECK(m.wait_s.p50 == Approx(2700));
  CHECK(m.wait_s.p95 == Approx(5130));
  CHECK(m.wait_s.p99 == Approx(5346));
  CHECK(m.wait_s.max == 5400);

  CHECK(m.jct_s.count == 3);
  CHECK(m.jct_s.mean == Approx(12600));
  CHECK(m.jct_s.p50 == Approx(12600));
  CHECK(m.jct_s.p95 == Approx(17460));
  CHECK(m.jct_s.p99 == Approx(17892));

  CHECK(m.makespan_s == 21600);
  CHECK(m.jobs_total == 5);
  CHECK(m.jobs_completed == 3);
  CHECK(m.jobs_running == 1);
  CHECK(m.jobs_never_started == 1);
}

TEST_CASE("metrics integrate only over [0, end_s]", "[model]") {
  TraceData d = hand_built();
  d.attrs.end_s = 12600;  // cut the run at the third step
  // [0,1800) 4 + [1800,12600) 6 = 7200 + 64800 = 72000 GPU-s = 20 GPU-h of 8 x 3.5 h = 28
  const Metrics m = compute_metrics(d);
  CHECK(m.gpu_hours_delivered == Approx(20));
  CHECK(m.gpu_hours_provisioned == Approx(28));
  CHECK(m.gpu_utilization == Approx(20.0 / 28));
  // The 8 from 12600 s holds for no time inside the run: the peak is the 6 from 1800 s.
  CHECK(m.peak_allocated_gpus == 6);
  CHECK(m.peak_allocated_at_s == 1800);
  CHECK(m.mean_allocated_gpus == Approx(72000.0 / 12600));

  SECTION("a step function starting late is 0 before its first row") {
    d.utilization = {{3600, 8, 8}};
    d.attrs.end_s = 7200;
    const Metrics late = compute_metrics(d);
    CHECK(late.gpu_hours_delivered == Approx(8));
    CHECK(late.gpu_utilization == Approx(1.0));
    CHECK(late.peak_allocated_gpus == 8);
    CHECK(late.peak_allocated_at_s == 3600);
    CHECK(late.mean_allocated_gpus == Approx(4));  // 8 GPUs for half the run
  }
  SECTION("a run with no utilization row has no peak time") {
    d.utilization.clear();
    const Metrics none = compute_metrics(d);
    CHECK(none.peak_allocated_gpus == 0);
    CHECK(std::isnan(none.peak_allocated_at_s));
    CHECK(none.mean_allocated_gpus == 0);
  }
  SECTION("rows out of order are a malformed trace") {
    d.utilization = {{0, 1, 8}, {100, 2, 8}, {50, 3, 8}};
    CHECK_THROWS_AS(compute_metrics(d), gcsim::Error);
  }
}

TEST_CASE("utilization rows folded one at a time integrate as the rows do, bit for bit", "[unit]") {
  using gcsim::analysis::StepIntegrals;
  using gcsim::analysis::UtilizationFold;
  using gcsim::analysis::UtilizationSample;
  const auto fold_of = [](const std::vector<UtilizationSample>& rows, double clip_s) {
    UtilizationFold f(clip_s);
    for (const UtilizationSample& r : rows) f.add(r.time_s, r.allocated_gpus, r.total_gpus);
    return f;
  };
  const auto same = [](const StepIntegrals& a, const StepIntegrals& b) {
    CHECK(a.allocated_gpu_s == b.allocated_gpu_s);
    CHECK(a.total_gpu_s == b.total_gpu_s);
    CHECK(a.peak_allocated_gpus == b.peak_allocated_gpus);
    CHECK((a.peak_at_s == b.peak_at_s || (std::isnan(a.peak_at_s) && std::isnan(b.peak_at_s))));
  };
  // Rows with irregular times and shares (so the sums' rounding depends on their order),
  // one before 0, repeats of one instant, and a last row at the end.
  std::vector<UtilizationSample> rows{{-5, 2, 8}, {0, 3, 8}};
  double t = 0;
  for (int i = 0; i < 500; ++i) {
    t += (i % 3 == 0) ? 0.0 : 0.1 + 1.7 * ((i * 37) % 11);
    rows.push_back({t, 0.125 * ((i * 13) % 61), 64 + (i / 100) * 8});
  }
  const double end_s = t;
  rows.push_back({end_s, 5, 64});
  StepIntegrals want = integrate_utilization(rows, end_s);
  REQUIRE(want.allocated_gpu_s > 0);
  same(fold_of(rows, std::numeric_limits<double>::infinity()).integrals(end_s), want);
  same(fold_of(rows, end_s).integrals(end_s), want);
  CHECK(fold_of(rows, end_s).rows() == rows.size());
  // A later end: the last row holds until it.
  same(fold_of(rows, std::numeric_limits<double>::infinity()).integrals(end_s + 100), integrate_utilization(rows, end_s + 100));
  // An earlier end: integrate_utilization clips every step at it; a fold that knows it as
  // its clip does the same, one that does not has closed steps past it and says so.
  const double cut = end_s / 2;
  same(fold_of(rows, cut).integrals(cut), integrate_utilization(rows, cut));
  CHECK_THROWS_AS(fold_of(rows, std::numeric_limits<double>::infinity()).integrals(cut), gcsim::InternalError);
  // No row, and one row.
  same(UtilizationFold().integrals(10), integrate_utilization({}, 10));
  same(fold_of({{2, 4, 8}}, std::numeric_limits<double>::infinity()).integrals(10), integrate_utilization({{2, 4, 8}}, 10));
  CHECK(fold_of({{2, 4, 8}}, std::numeric_limits<double>::infinity()).integrals(10).allocated_gpu_s == 32);
  // Out of order, named by its row, as integrate_utilization names it.
  UtilizationFold bad;
  bad.add(0, 1, 8);
  bad.add(100, 2, 8);
  CHECK_THROWS_WITH(bad.add(50, 3, 8), Catch::Contains("out of time order at row 2"));
  CHECK_THROWS_WITH(integrate_utilization({{0, 1, 8}, {100, 2, 8}, {50, 3, 8}}, 200), Catch::Contains("out of time order at row 2"));
}

TEST_CASE("metrics of an empty run are zero or undefined, never garbage", "[model]") {
  TraceData d;
  d.attrs.end_s = 0;
  const Metrics m = compute_metrics(d);
  CHECK(m.total_cost_usd == 0);
  CHECK(m.jobs_total == 0);
  CHECK(m.makespan_s == 0);
  CHECK(std::isnan(m.cost_per_completed_job_usd));
  CHECK(std::isnan(m.cost_per_gpu_hour_usd));
  CHECK(std::isnan(m.gpu_utilization));
  CHECK(std::isnan(m.wait_s.mean));
  CHECK(std::isnan(m.jct_s.p99));
  CHECK(m.wait_s.count == 0);
}

TEST_CASE("percentiles interpolate linearly between order statistics (numpy default)", "[unit]") {
  const std::vector<double> x = {1, 2, 3, 4, 10};
  CHECK(percentile_sorted(x, 0) == 1);
  CHECK(percentile_sorted(x, 100) == 10);
  CHECK(percentile_sorted(x, 50) == 3);
  CHECK(percentile_sorted(x, 95) == Approx(8.8));   // h = 3.8: 4 + 0.8 x 6; numpy gives 8.8
  CHECK(percentile_sorted(x, 25) == Approx(2.0));   // h = 1 exactly
  CHECK(percentile_sorted(x, 10) == Approx(1.4));   // h = 0.4
  CHECK(percentile_sorted(std::vector<double>{7}, 99) == 7);
  CHECK(std::isnan(percentile_sorted(std::vector<double>{}, 50)));
  std::vector<double> unsorted = {10, 1, 4, 3, 2};
  const Distribution d = summarize(unsorted);
  CHECK(d.count == 5);
  CHECK(d.mean == Approx(4));
  CHECK(d.p95 == Approx(8.8));
  CHECK(d.max == 10);
}

TEST_CASE("durations and money are formatted for people", "[unit]") {
  CHECK(format_duration(45) == "45.0s");
  CHECK(format_duration(725) == "12m 5s");
  CHECK(format_duration(4980) == "1h 23m");
  CHECK(format_duration(2 * 86400 + 3 * 3600 + 4 * 60) == "2d 3h 4m");
  CHECK(format_duration(3599.9) == "1h 0m");
  CHECK(format_duration(NAN_S) == "n/a");
  CHECK(format_usd(1234567.891) == "$1,234,567.89");
  CHECK(format_usd(0) == "$0.00");
  CHECK(format_usd(-12.5) == "-$12.50");
  CHECK(format_usd(NAN_S) == "n/a");
}

TEST_CASE("the text report shows the run and its metrics", "[model]") {
  const TraceData d = hand_built();
  const std::string r = format_report(d, compute_metrics(d));
  CHECK_THAT(r, Catch::Contains("two-nodes (tests/two-nodes.yaml)"));
  CHECK_THAT(r, Catch::Contains("42 / 0"));
  CHECK_THAT(r, Catch::Contains("$160.00"));
  CHECK_THAT(r, Catch::Contains("$112.00") && Catch::Contains("70.0%"));  // busy and its share
  CHECK_THAT(r, Catch::Contains("$48.00") && Catch::Contains("30.0%"));
  CHECK_THAT(r, Catch::Contains("$53.33"));  // per completed job
  CHECK_THAT(r, Catch::Contains("$2.86"));   // per GPU-hour
  CHECK_THAT(r, Catch::Contains("45m 0s"));  // mean wait 2700 s
  CHECK_THAT(r, Catch::Contains("3h 30m"));  // mean JCT 12600 s
  CHECK_THAT(r, Catch::Contains("6h 0m"));   // makespan
  CHECK_THAT(r, Catch::Contains("never started"));
}

TEST_CASE("JSON summary has every key, full precision and null for NaN", "[unit]") {
  const TraceData d = hand_built();
  Metrics m = compute_metrics(d);
  m.total_cost_usd = 0.1 + 0.2;  // needs 17 significant digits to round-trip
  const std::string j = format_json(m, d.attrs);
  for (const char* key :
       {"total_cost_usd", "busy_cost_usd", "idle_cost_usd", "gpu_utilization", "mean_wait_s", "p50_wait_s",
        "p95_wait_s", "p99_wait_s", "mean_jct_s", "p50_jct_s", "p95_jct_s", "p99_jct_s", "makespan_s",
        "jobs_completed", "jobs_total", "cost_per_completed_job_usd", "cost_per_gpu_hour_usd",
        "gpu_hours_delivered", "scenario_name", "seed", "replication", "gcsim_version"}) {
    INFO(key);
    CHECK_THAT(j, Catch::Contains(std::string("\"") + key + "\": "));
  }
  CHECK_THAT(j, Catch::Contains("\"total_cost_usd\": 0.30000000000000004"));
  CHECK_THAT(j, Catch::Contains("\"gpu_utilization\": 0.7"));
  CHECK_THAT(j, Catch::Contains("\"jobs_completed\": 3,"));
  CHECK_THAT(j, Catch::Contains("\"seed\": 42,"));
  CHECK(j.front() == '{');
  CHECK(j.substr(j.size() - 2) == "}\n");

  const std::string empty = format_json(compute_metrics(TraceData{}), TraceAttributes{});
  CHECK_THAT(empty, Catch::Contains("\"cost_per_gpu_hour_usd\": null"));
  CHECK_THAT(empty, Catch::Contains("\"p99_jct_s\": null"));
  CHECK_THAT(empty, Catch::Contains("\"gpu_utilization\": null"));
}

TEST_CASE("JSON strings are escaped", "[unit]") {
  CHECK(json_quote("plain") == "\"plain\"");
  CHECK(json_quote("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json_quote("l1\nl2\t\r\b\f") == "\"l1\\nl2\\t\\r\\b\\f\"");
  CHECK(json_quote(std::string("\x01\x1f", 2)) == "\"\\u0001\\u001f\"");
  CHECK(json_quote("héllo ✓ 𝄞") == "\"héllo ✓ 𝄞\"");           // valid UTF-8 passes through
  CHECK(json_quote("bad\xff\xc3") == "\"bad\xef\xbf\xbd\xef\xbf\xbd\"");  // invalid bytes -> U+FFFD
  CHECK(json_quote("\xed\xa0\x80") == "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");  // a UTF-16 surrogate
  CHECK(json_number(1e300) == "1e+300");
  CHECK(json_number(-0.5) == "-0.5");
  CHECK(json_number(std::numeric_limits<double>::infinity()) == "null");

  TraceAttributes a;
  a.scenario_name = "say \"hi\"\n";
  CHECK_THAT(format_json(Metrics{}, a), Catch::Contains("\"scenario_name\": \"say \\\"hi\\\"\\n\""));
}

TEST_CASE("the step breakdown gives the GPU-hour weighted shares of step time", "[model]") {
  TraceData d = hand_built();
  // J1 (4 GPUs x 2 h = 8 GPU-h): step 1.0 s = compute 0.6 + exposed comm 0.4, input 0.2.
  // J3 (4 GPUs x 4 h = 16 GPU-h): step 1.0 s, GPU time 0.5 + 0.1, input 1.0: 0.4 waiting.
  // exposed: (8 x 0.4 + 16 x 0.1) / 24 = 0.2; waiting: (8 x 0 + 16 x 0.4) / 24 = 0.2667.
  auto model = [](double compute, double input, double exposed) {
    ModelRecord r;
    r.samples = 100;
    r.samples_per_s = 1;
    r.step_time_s = 1.0;
    r.bottleneck = "compute";
    r.compute_s = compute;
    r.input_s = input;
    r.comm_s = exposed;
    r.comm_exposed_s = exposed;
    r.memory_per_gpu_bytes = 1e9;
    return r;
  };
  d.jobs[0].model = model(0.6, 0.2, 0.4);
  d.jobs[2].model = model(0.5, 1.0, 0.1);
  const Metrics m = compute_metrics(d);
  CHECK(m.comm_exposed_share == Approx(0.2));
  CHECK(m.input_wait_share == Approx(16 * 0.4 / 24));
  const std::string report = format_report(d, m);
  CHECK(report.find("exposed communication") != std::string::npos);
  // Without the breakdown (older traces) the shares are undefined.
  CHECK(std::isnan(compute_metrics(hand_built()).comm_exposed_share));
}

TEST_CASE("the dominant bottleneck is the one over half of the model jobs' GPU-hours", "[unit]") {
  Metrics m;
  CHECK(dominant_bottleneck(m).name.empty());  // no model job
  m.model_gpu_hours = 4;
  m.bottleneck_gpu_hours = {{"compute", 1}, {"input-cpu", 3}};
  const DominantBottleneck b = dominant_bottleneck(m);
  CHECK(b.name == "input-cpu");
  CHECK(b.share == Approx(0.75));
  m.bottleneck_gpu_hours = {{"compute", 2}, {"input-cpu", 2}};  // half is not most
  CHECK(dominant_bottleneck(m).name.empty());
}
