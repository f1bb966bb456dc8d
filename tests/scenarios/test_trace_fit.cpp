// `gcsim trace fit`: generators fitted to a trace drawn from a known process recover that
// process (rates within their Poisson tolerance, mixes within their binomial tolerance,
// duration quantiles within the sample quantile's), the written scenario loads and runs
// as written, the output is deterministic, and bad input exits with code 2.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "models/coupling/expand_workload.hpp"
#include "sim/calendar.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

constexpr std::int64_t HOUR_NS = 3'600'000'000'000;
constexpr int WEEKS = 20;

// The known arrival rates (jobs per hour of the week): working hours busy, nights quiet,
// weekends at half, nothing Sunday 00:00-06:00, and Tuesday 06:00-07:00 at 11.
std::vector<double> true_rates() {
  std::vector<double> r(168);
  for (int h = 0; h < 168; ++h) {
    const int day = h / 24, hour = h % 24;
    r[static_cast<std::size_t>(h)] = (hour >= 9 && hour < 18 ? 6.0 : 1.5) * (day >= 5 ? 0.5 : 1.0);
    if (day == 6 && hour < 6) r[static_cast<std::size_t>(h)] = 0;
  }
  r[30] = 11;
  return r;
}

std::string list(const std::vector<double>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

const char* CLUSTER = R"(cluster:
  node_types:
    - {name: a100, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 96, memory: 1152GiB, count: 2, price: {on_demand_per_hour: 32.77}}
    - {name: v100, gpu: V100-SXM2-16GB, gpus: 8, cpu_cores: 64, memory: 488GiB, count: 2, price: {on_demand_per_hour: 24.48}}
)";

// The known process, over WEEKS weeks: 70% one-GPU jobs (a quarter at 250 milli, a quarter at 500), 20% of
// 2, 4 or 8 GPUs alike, 10% one-GPU jobs that need a V100; durations lognormal (median
// 1 h, sigma 1 for one GPU; 4 h, 0.5 for more); teams a and b at 60:40.
std::string process_yaml(std::int64_t total) {
  const std::string teams = "team: {choice: [a, b], weights: [6, 4]}";
  // Each generator ends at WEEKS weeks; its count is a cap well above its Poisson count.
  auto count = [&](double share) {
    return std::to_string(std::llround(1.2 * share * static_cast<double>(total) + 100)) + ", end: " +
           std::to_string(WEEKS) + "w";
  };
  return std::string("name: known\nseed: 11\nhorizon: 200d\n") + CLUSTER +
         "workload:\n  generators:\n"
         "    - {name: one, count: " + count(0.7) + ", rate: {per_hour: &p " + list(true_rates()) +
         ", scale: 0.7}, gpus: 1, gpu_milli: {choice: [250, 500, 1000], weights: [1, 1, 2]}, "
         "duration: {dist: lognormal, median: 1h, sigma: 1}, " + teams + "}\n"
         "    - {name: big, count: " + count(0.2) + ", rate: {per_hour: *p, scale: 0.2}, gpus: {choice: [2, 4, 8]}, "
         "duration: {dist: lognormal, median: 4h, sigma: 0.5}, " + teams + "}\n"
         "    - {name: v100, count: " + count(0.1) + ", rate: {per_hour: *p, scale: 0.1}, gpus: 1, gpu: V100-SXM2-16GB, "
         "duration: {dist: lognormal, median: 1h, sigma: 1}, " + teams + "}\n";
}

// The known process drawn by gcsim and written as a jobs table: the "trace" to fit.
std::string write_trace(const test::TempDir& dir) {
  double per_week = 0;
  for (const double v : true_rates()) per_week += v;
  const auto total = static_cast<std::int64_t>(per_week * WEEKS);
  const models::Scenario s = test::scenario_from_yaml(process_yaml(total));
  std::string csv = "name,submit,gpus,gpu_milli,duration,team,gpu\n";
  for (const models::Job& j : models::expand_workload(s, 0)) {
    csv += j.name + "," + std::to_string(j.submit.ns()) + "ns," + std::to_string(j.gpus) + "," +
           std::to_string(j.gpu_milli) + "," + std::to_string(j.duration.ns()) + "ns," +
           std::string(s.workload.team_name(j.team)) + "," + (j.name.rfind("v100", 0) == 0 ? "V100-SXM2-16GB" : "") + "\n";
  }
  test::write_file(dir.file("jobs.csv"), csv);
  const std::string scenario = dir.file("trace.yaml");
  test::write_file(scenario, std::string("name: recorded\nseed: 3\nhorizon: 150d\nrun_until: done\n") + CLUSTER +
                                 "scheduler: {policy: fifo}\nworkload:\n  jobs: {file: jobs.csv}\n");
  return scenario;
}

const models::GeneratorSpec* generator(const models::Scenario& s, const std::string& name) {
  for (const auto& g : s.workload.generators)
    if (g.name == name) return &g;
  return nullptr;
}

// Phi, the standard normal CDF.
double phi(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// P(X <= x) for X lognormal(median, sigma), x in seconds.
double lognormal_cdf(double x, double median_s, double sigma) { return phi(std::log(x / median_s) / sigma); }

double share_of(const models::GeneratorSpec& g) { return g.rate->per_week; }

}  // namespace

TEST_CASE("trace fit recovers a known process", "[scenario][trace-fit]") {
  test::TempDir dir("trace-fit");
  const std::string trace = write_trace(dir);
  const std::string out = dir.file("fitted.yaml");
  const auto r = test::run_gcsim("trace fit " + trace + " -o " + out);
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(test::has(r.output, "| inter-arrival time (s) |"));
  CHECK(test::has(r.output, "| duration (s), 8 GPUs |"));
  const std::string text = test::read_bytes(out);
  CHECK(test::has(text, "# Fitted by `gcsim trace fit` to " + trace));
  CHECK(test::has(text, "hour of the week (168 bins"));
  CHECK(test::has(text, "# | GPUs per job |"));  // the report, as a comment block

  // The round trip: the written scenario loads (and validates) as written.
  const models::Scenario fit = models::load_scenario_file(out, test::load_options());
  CHECK(test::run_gcsim("validate " + out).code == 0);
  REQUIRE(fit.workload.generators.size() == 5);  // 1 GPU (any, V100), 2, 4, 8
  // The report's fitted side is the written file's workload as a run draws it: its count
  // is what expand_workload gives for the file (a Poisson count: no formula gives it).
  const std::size_t drawn = models::expand_workload(fit, fit.seed, 0).size();
  // GPUs: 80% one, then 2, 4, 8 at 6.7% each: p10 and p50 1, p90 4, p99 8 on both sides.
  CHECK(test::has(r.output, " / " + std::to_string(drawn) + " | 1 / 1 | 1 / 1 | 4 / 4 | 8 / 8 |"));
  const auto* one = generator(fit, "gpus-1");
  const auto* v100 = generator(fit, "gpus-1-V100-SXM2-16GB");
  const auto* eight = generator(fit, "gpus-8");
  REQUIRE(one);
  REQUIRE(v100);
  REQUIRE(eight);

  // Rates: each bin's estimate is its count over its exposure, E of about WEEKS - 1 to
  // WEEKS weeks (the window runs from the first submit to the last): Poisson, standard
  // deviation sqrt(r E) / E; 4.5 of them, and r/E for the exposure's uncertainty.
  const std::vector<double> truth = true_rates();
  double total_per_week = 0;
  for (std::size_t h = 0; h < 168; ++h) {
    double fitted = 0;
    for (const auto& g : fit.workload.generators) fitted += g.rate->per_hour[h];
    const double e = WEEKS - 1;
    INFO("hour of the week " << h);
    if (truth[h] == 0) CHECK(fitted == 0);
    else CHECK(std::fabs(fitted - truth[h]) <= 4.5 * std::sqrt(truth[h] / e) + truth[h] / e);
    total_per_week += fitted;
  }
  double true_per_week = 0;
  for (const double v : truth) true_per_week += v;
  const double n = true_per_week * WEEKS;
  // The whole week's count: Poisson of about n, sd sqrt(n) (then / WEEKS).
  CHECK(std::fabs(total_per_week - true_per_week) <= 5 * std::sqrt(n) / WEEKS + true_per_week / WEEKS);

  // Mixes: binomial shares of n jobs, 5 standard deviations.
  auto near_share = [&](double fitted, double p) { return std::fabs(fitted - p) <= 5 * std::sqrt(p * (1 - p) / n); };
  CHECK(near_share(share_of(*v100) / total_per_week, 0.1));
  CHECK(near_share(share_of(*eight) / total_per_week, 0.2 / 3));
  CHECK(v100->gpu_types == std::vector<std::string>{"V100-SXM2-16GB"});
  CHECK(one->gpu_types.empty());
  REQUIRE(one->team_choice == std::vector<std::string>{"a", "b"});
  const double n_one = 0.7 * n;
  const double a_share = one->team_weights[0] / (one->team_weights[0] + one->team_weights[1]);
  CHECK(std::fabs(a_share - 0.6) <= 5 * std::sqrt(0.24 / n_one));
  REQUIRE(one->gpu_milli);
  REQUIRE(one->gpu_milli->values == std::vector<double>{250, 500, 1000});
  const auto& w = one->gpu_milli->weights;
  CHECK(std::fabs(w[2] / (w[0] + w[1] + w[2]) - 0.5) <= 5 * std::sqrt(0.25 / n_one));
  CHECK_FALSE(v100->gpu_milli);  // its jobs hold whole GPUs

  // Durations: the empirical knots at p = 0.1, 0.5, 0.9 (101 of them: index 10, 50, 90).
  // The true CDF at a sample quantile is within sqrt(p(1-p)/n) of p; 5 of them.
  auto check_quantiles = [](const models::Distribution& d, double median_s, double sigma, double jobs) {
    REQUIRE(d.kind == models::Distribution::Kind::Empirical);
    REQUIRE(d.values.size() == 101);
    for (const int k : {10, 50, 90}) {
      const double p = k / 100.0;
      INFO("p = " << p << ", quantile " << d.values[static_cast<std::size_t>(k)] << " s");
      CHECK(std::fabs(lognormal_cdf(d.values[static_cast<std::size_t>(k)], median_s, sigma) - p) <=
            5 * std::sqrt(p * (1 - p) / jobs));
    }
  };
  check_quantiles(*one->duration, 3600, 1, n_one);
  check_quantiles(*eight->duration, 4 * 3600, 0.5, n * 0.2 / 3);

  // The same input gives the same bytes.
  const std::string again = dir.file("again.yaml");
  REQUIRE(test::run_gcsim("trace fit " + trace + " -o " + again).code == 0);
  CHECK(test::read_bytes(again) == text);
  // And the fitted scenario runs.
  CHECK(test::run_gcsim("run " + out + " -q --no-plots -o " + dir.file("run")).code == 0);
}

TEST_CASE("trace fit of a scenario's generators: their jobs as drawn, with their gpu names", "[scenario][trace-fit]") {
  test::TempDir dir("trace-fit-generators");
  const std::string scenario = dir.file("generated.yaml");
  test::write_file(scenario, process_yaml(2000));
  const std::string out = dir.file("f.yaml");
  const auto r = test::run_gcsim("trace fit " + scenario + " -o " + out + " --count 1000");
  INFO(r.output);
  REQUIRE(r.code == 0);
  const models::Scenario s = models::load_scenario_file(out, test::load_options());
  const auto* v100 = generator(s, "gpus-1-V100-SXM2-16GB");
  REQUIRE(v100);
  CHECK(v100->gpu_types == std::vector<std::string>{"V100-SXM2-16GB"});
  std::int64_t total = 0;
  for (const auto& g : s.workload.generators) total += g.count;
  CHECK(total == 1000);
}

TEST_CASE("trace fit: --count, --span and --scale-rate set how many jobs and how fast", "[scenario][trace-fit]") {
  test::TempDir dir("trace-fit-options");
  const std::string trace = write_trace(dir);
  auto fitted = [&](const std::string& options) {
    const std::string out = dir.file("f.yaml");
    const auto r = test::run_gcsim("trace fit " + trace + " -o " + out + " " + options);
    INFO(r.output);
    REQUIRE(r.code == 0);
    return models::load_scenario_file(out, test::load_options());
  };
  auto totals = [](const models::Scenario& s) {
    std::pair<std::int64_t, double> t{0, 0};
    for (const auto& g : s.workload.generators) {
      t.first += g.count;
      t.second += g.rate->per_week;
    }
    return t;
  };
  // By span (the default, or --span): each generator ends there, its count a cap; the
  // jobs drawn are a Poisson count of mean (rate per week) x (weeks): 5 sd.
  auto drawn_within = [](const models::Scenario& s, double expected) {
    const double drawn = static_cast<double>(models::expand_workload(s, 0).size());
    INFO("drawn " << drawn << ", expected " << expected);
    CHECK(std::fabs(drawn - expected) <= 5 * std::sqrt(expected));
  };
  const models::Scenario base_s = fitted("");
  const auto base = totals(base_s);
  const sim::SimTime trace_end = *base_s.workload.generators[0].end;
  for (const auto& g : base_s.workload.generators) CHECK(g.end == trace_end);
  CHECK(trace_end.ns() > (WEEKS - 1) * sim::WEEK_NS);  // the trace's span: first to last submit
  CHECK(trace_end.ns() <= WEEKS * sim::WEEK_NS);
  drawn_within(base_s, base.second * static_cast<double>(trace_end.ns()) / static_cast<double>(sim::WEEK_NS));
  const models::Scenario year = fitted("--span 52w");
  for (const auto& g : year.workload.generators) CHECK(g.end == sim::SimTime::from_ns(52 * sim::WEEK_NS));
  CHECK(year.horizon >= sim::SimTime::from_ns(52 * sim::WEEK_NS));
  drawn_within(year, 52 * base.second);
  // By count: exactly that many jobs, no end; the rates times --scale-rate.
  const models::Scenario counted_s = fitted("--count 5000 --scale-rate 10");
  const auto counted = totals(counted_s);
  CHECK(counted.first == 5000);
  CHECK(counted.second == Approx(10 * base.second).epsilon(1e-6));
  for (const auto& g : counted_s.workload.generators) CHECK_FALSE(g.end);
  CHECK(models::expand_workload(counted_s, 0).size() == 5000);
}

TEST_CASE("trace fit: bad input exits with code 2", "[scenario][trace-fit]") {
  test::TempDir dir("trace-fit-errors");
  const std::string out = dir.file("f.yaml");
  CHECK(test::run_gcsim("trace fit " + dir.file("missing.yaml") + " -o " + out).code == 2);
  const std::string one_job = dir.file("one.yaml");
  test::write_file(one_job, std::string("name: one\nseed: 1\nhorizon: 1d\n") + CLUSTER +
                                "workload:\n  jobs:\n    - {name: a, submit: 1h, gpus: 1, duration: 1h}\n");
  const auto r = test::run_gcsim("trace fit " + one_job + " -o " + out);
  CHECK(r.code == 2);
  CHECK(test::has(r.output, "at least two submit times"));
  CHECK_FALSE(std::filesystem::exists(out));
  const std::string two = dir.file("two.yaml");
  test::write_file(two, std::string("name: two\nseed: 1\nhorizon: 1d\n") + CLUSTER +
                            "workload:\n  jobs:\n    - {name: a, submit: 1h, gpus: 1, duration: 1h}\n"
                            "    - {name: b, submit: 2h, gpus: 1, duration: 1h}\n");
  CHECK(test::run_gcsim("trace fit " + two + " -o " + out + " --count 5 --span 2d").code == 2);
  CHECK(test::run_gcsim("trace fit " + two + " -o " + out + " --span 3parsecs").code == 2);
  CHECK(test::run_gcsim("trace fit " + two + " -o " + out + " --span 1m").code == 2);
  CHECK(test::run_gcsim("trace fit " + two + " -o " + out + " --count 0").code == 2);
  CHECK(test::run_gcsim("trace fit " + two + " -o " + out + " --scale-rate 0").code == 2);
  CHECK(test::run_gcsim("trace fit " + two).code == 2);  // -o is required
  CHECK_FALSE(std::filesystem::exists(out));
  // Two jobs an hour apart: shorter than a day, one constant rate (24 equal values).
  const auto ok = test::run_gcsim("trace fit " + two + " -o " + out);
  INFO(ok.output);
  REQUIRE(ok.code == 0);
  CHECK(test::has(test::read_bytes(out), "a constant (the trace is shorter than a day)"));
  // A day or more: 24 bins, each hour of the day over the hours of it the window (first
  // to last submit, 1 h to 25 h) covers. Jobs at 1 h, 2 h and 1d1h: the 01:00 bin holds 2
  // jobs over 1 h (01:00-02:00 of the first day; the window ends at 01:00 of the second),
  // 2 jobs/h; the 02:00 bin 1 over 1 h; the others none. Every day of the week alike.
  const std::string days = dir.file("days.yaml");
  test::write_file(days, std::string("name: days\nseed: 1\nhorizon: 3d\n") + CLUSTER +
                             "workload:\n  jobs:\n    - {name: a, submit: 1h, gpus: 1, duration: 1h}\n"
                             "    - {name: b, submit: 2h, gpus: 1, duration: 1h}\n"
                             "    - {name: c, submit: 1d1h, gpus: 1, duration: 1h}\n");
  const auto d = test::run_gcsim("trace fit " + days + " -o " + out);
  INFO(d.output);
  REQUIRE(d.code == 0);
  CHECK(test::has(test::read_bytes(out), "hour of the day (24 bins: the trace is shorter than a week)"));
  const models::Scenario s = models::load_scenario_file(out, test::load_options());
  REQUIRE(s.workload.generators.size() == 1);
  const auto& rate = *s.workload.generators[0].rate;
  for (int day = 0; day < 7; ++day) {
    INFO("day " << day);
    CHECK(rate.per_hour[static_cast<std::size_t>(24 * day + 0)] == 0);
    CHECK(rate.per_hour[static_cast<std::size_t>(24 * day + 1)] == Approx(2.0));
    CHECK(rate.per_hour[static_cast<std::size_t>(24 * day + 2)] == Approx(1.0));
    CHECK(rate.per_hour[static_cast<std::size_t>(24 * day + 3)] == 0);
  }
}

TEST_CASE("trace fit on the bundled Alibaba 2023 trace", "[scenario][trace-fit]") {
  test::TempDir dir("trace-fit-alibaba");
  const std::string out = dir.file("alibaba-fitted.yaml");
  const auto r = test::run_gcsim("trace fit " GCSIM_SOURCE_DIR "/scenarios/examples/traces/alibaba-2023-resubmit.yaml -o " +
                                 out + " --span 365d --scale-rate 2");
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(test::has(r.output, "| gpu_milli of one-GPU jobs |"));
  CHECK(test::has(r.output, "| gpu | share (trace / fitted) |"));
  const models::Scenario s = models::load_scenario_file(out, test::load_options());
  CHECK(s.horizon >= sim::SimTime::from_ns(365 * sim::DAY_NS));
  CHECK(s.cluster.total_gpus() > 0);  // the trace's machines, written out
}
