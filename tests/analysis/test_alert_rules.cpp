// Alerting rules over metrics (sim/rules/promql.*, sim/rules/alert_rules_file.*, analysis/alert_rules.*): PromQL values
// computed by hand (rate's extrapolation, aggregations, filters), the alert states
// (pending, firing after `for`, resolved), errors at their line and column, and the same
// rules and series given to Prometheus' own `promtool test rules` (Debian 12's prometheus
// 2.42), which must list exactly gcsim's firing alerts at every evaluation.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/alert_rules.hpp"
#include "analysis/metrics_series.hpp"
#include "sim/rules/promql.hpp"
#include "sim/trace/trace_reader.hpp"
#include "sim/config/config_node.hpp"
#include "sim/errors.hpp"
#include "support/scenario_support.hpp"

using gcsim::promql::AlertGroup;
using gcsim::analysis::evaluate_alerts;
using gcsim::analysis::Firing;
using gcsim::analysis::firing_at;
using gcsim::promql::read_alert_groups;
using gcsim::promql::Expr;
using gcsim::promql::Labels;
using gcsim::promql::ParseError;
using gcsim::promql::Series;
using gcsim::promql::Vector;

namespace {

constexpr std::int64_t S = 1000;
constexpr std::int64_t M = 60 * S;

Series series(const std::string& name, Labels labels, std::int64_t step_ms, const std::vector<double>& values) {
  labels.emplace_back("__name__", name);
  std::sort(labels.begin(), labels.end());
  Series s{labels, {}, {}};
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i])) continue;  // no sample here
    s.t_ms.push_back(static_cast<std::int64_t>(i) * step_ms);
    s.values.push_back(values[i]);
  }
  return s;
}

double only_value(const Vector& v) {
  REQUIRE(v.size() == 1);
  return v[0].value;
}

// Rules over the synthetic series of these tests (any names), or over gcsim's own.
std::vector<AlertGroup> rules_from(const std::string& yaml, const gcsim::promql::SeriesNames* names = nullptr) {
  return read_alert_groups(gcsim::config::load_yaml_string(yaml, "rules.yml").root, names);
}

}  // namespace

TEST_CASE("rate and increase extrapolate as Prometheus does, and treat a fall as a counter reset", "[unit]") {
  // A counter sampled every 15 s, rising 150 a sample: 10 per second. At 5m, [1m] holds
  // the samples at 4m, 4m15s, ..., 5m (both ends): 600 over 60 s, no extrapolation.
  std::vector<double> v;
  for (int i = 0; i <= 40; ++i) v.push_back(150.0 * i);
  const std::vector<Series> all{series("bytes_total", {{"gpu", "0"}}, 15 * S, v)};
  CHECK(only_value(Expr::parse("rate(bytes_total[1m])").evaluate(all, 5 * M)) == Approx(10.0).epsilon(1e-12));
  CHECK(only_value(Expr::parse("increase(bytes_total[1m])").evaluate(all, 5 * M)) == Approx(600.0).epsilon(1e-12));
  // [50s] at 5m holds 4m15s..5m: 4 samples, 450 over 45 s, 5 s from the range's start
  // (< 1.1 x 15 s, so extrapolated to it): 450 x 50/45 = 500.
  CHECK(only_value(Expr::parse("increase(bytes_total[50s])").evaluate(all, 5 * M)) == Approx(500.0).epsilon(1e-12));
  // A reset: 100, 200, 50, 150 every 15 s: rises 100 + (50 after the reset) + 100 = 250
  // over 45 s; the range [0, 45 s] ends on the samples: 250 / 45 per second.
  const std::vector<Series> reset{series("c", {}, 15 * S, {100, 200, 50, 150})};
  CHECK(only_value(Expr::parse("rate(c[45s])").evaluate(reset, 45 * S)) == Approx(250.0 / 45).epsilon(1e-12));
  // A series that ended: [1m] at 90 s holds 50 (30 s) and 150 (45 s); its end is 45 s
  // after the last sample, past 1.1 x 15 s, so it is extrapolated by half a step only:
  // 100 x (15 + 0 + 7.5) / 15 = 150.
  CHECK(only_value(Expr::parse("increase(c[1m])").evaluate(reset, 90 * S)) == Approx(150.0).epsilon(1e-12));
  // One sample in range: no rate.
  CHECK(Expr::parse("rate(c[10s])").evaluate(reset, 45 * S).empty());
}

TEST_CASE("selectors, aggregations and filters give the hand-computed vector", "[unit]") {
  // Utilization of four GPUs on two instances, one sample at 0 and one at 1m.
  std::vector<Series> all;
  const double util[4] = {90, 70, 40, 20};
  for (int g = 0; g < 4; ++g)
    all.push_back(series("util", {{"instance", g < 2 ? "a" : "b"}, {"gpu", std::to_string(g)}}, M, {util[g], util[g]}));
  // Instant selector with a matcher; 5-minute lookback: at 6m the 1m sample is 5m old, still seen.
  CHECK(Expr::parse("util{instance=\"a\"}").evaluate(all, 6 * M).size() == 2);
  CHECK(Expr::parse("util{instance=~\"a|b\", gpu!=\"3\"}").evaluate(all, M).size() == 3);
  CHECK(Expr::parse("util").evaluate(all, 6 * M + 1).empty());
  // avg by instance: a = 80, b = 30; the filter keeps a.
  Vector v = Expr::parse("avg(util) by (instance) > 50").evaluate(all, M);
  REQUIRE(v.size() == 1);
  CHECK(v[0].labels == Labels{{"instance", "a"}});
  CHECK(v[0].value == Approx(80.0));
  CHECK(only_value(Expr::parse("sum without (gpu, instance) (util)").evaluate(all, M)) == Approx(220.0));
  CHECK(only_value(Expr::parse("count(util < bool 50)").evaluate(all, M)) == Approx(4.0));
  CHECK(only_value(Expr::parse("max(util) - min(util)").evaluate(all, M)) == Approx(70.0));
  // Vector / vector, one-to-one on all labels but the name, then arithmetic with a number.
  std::vector<Series> mem;
  mem.push_back(series("used", {{"gpu", "0"}}, M, {36, 36}));
  mem.push_back(series("free", {{"gpu", "0"}}, M, {4, 4}));
  CHECK(only_value(Expr::parse("used / (used + free) * 100").evaluate(mem, M)) == Approx(90.0));
  CHECK(Expr::parse("used / (used + free) * 100 > 90").evaluate(mem, M).empty());
  CHECK(only_value(Expr::parse("avg_over_time(used[1m]) + max_over_time(free[5m])").evaluate(mem, M)) == Approx(40.0));
  CHECK(only_value(Expr::parse("2 * -3 + 1").evaluate(mem, 0)) == Approx(-5.0));
}

TEST_CASE("a bad expression is refused at its column, in the expression and in the rules file", "[unit]") {
  const auto column_of = [](const std::string& text) {
    try {
      Expr::parse(text);
    } catch (const ParseError& e) {
      return e.column();
    }
    return std::size_t{0};
  };
  CHECK(column_of("rate(x)") == 6);                    // needs a range
  CHECK(column_of("x[5m]") == 1);                      // a range alone
  CHECK(column_of("avg(x) by (a") == 13);              // unclosed grouping
  CHECK(column_of("histogram_quantile(0.9, x)") == 1);  // not covered
  CHECK(column_of("x[5q]") == 3);
  CHECK(column_of("x > > 3") == 5);
  CHECK(column_of("1 > 2") == 3);  // numbers compared without bool
  CHECK(column_of("x{a=\"b\"") == 8);
  CHECK(column_of("avg(rate(x[5m])) by (instance) > 85") == 0);

  try {
    rules_from("groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: avg(x) by (a\n");
    FAIL("no error");
  } catch (const gcsim::ConfigError& e) {
    CHECK(e.mark().line == 5);
    CHECK(e.mark().column == 15 + 12);  // `expr: ` value at column 15; the error at its 13th character
    CHECK(e.key_path() == "groups[0].rules[0].expr");
  }
  CHECK_THROWS_AS(rules_from("groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: x\n        fro: 5m\n"),
                  gcsim::ConfigError);
  CHECK_THROWS_AS(rules_from("groups:\n  - name: g\n    rules:\n      - record: r\n        expr: x\n"), gcsim::ConfigError);
  CHECK_THROWS_AS(rules_from("groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: x\n        for: 5 min\n"),
                  gcsim::ConfigError);
}

TEST_CASE("an alert is pending, fires after its `for`, and resolves when its series goes", "[unit]") {
  // One GPU's utilization every minute: 95 from 3m to 8m, else 10.
  std::vector<double> v(15, 10.0);
  for (int i = 3; i <= 8; ++i) v[static_cast<std::size_t>(i)] = 95;
  const std::vector<Series> all{series("util", {{"gpu", "0"}}, M, v)};
  const auto groups = rules_from(
      "groups:\n  - name: gpus\n    rules:\n      - alert: Hot\n        expr: util > 90\n        for: 2m\n"
      "        labels: {severity: page}\n");
  const std::vector<Firing> f = evaluate_alerts(groups, all, 14 * M);
  // Pending at 3m; firing at 5m (held 2m); the 9m evaluation no longer returns it.
  REQUIRE(f.size() == 1);
  CHECK(f[0].rule == "Hot");
  CHECK(f[0].labels == Labels{{"alertname", "Hot"}, {"gpu", "0"}, {"severity", "page"}});
  CHECK(f[0].active_ms == 3 * M);
  CHECK(f[0].start_ms == 5 * M);
  CHECK(f[0].end_ms == 9 * M);
  CHECK(f[0].resolved);
  CHECK(f[0].peak == 95);
  CHECK(firing_at(f, 4 * M).empty());
  CHECK(firing_at(f, 5 * M).size() == 1);
  CHECK(firing_at(f, 8 * M).size() == 1);
  CHECK(firing_at(f, 9 * M).empty());
  // Held only 1m with `for: 2m`: never fires.
  std::vector<double> blip(10, 10.0);
  blip[4] = 95;
  blip[5] = 95;
  CHECK(evaluate_alerts(groups, {series("util", {{"gpu", "0"}}, M, blip)}, 9 * M).empty());
}

namespace {

// Deterministic GPU series for the promtool check: 6 GPUs on 3 instances sampled every
// 15 s for 2 h; utilization in steps of 7.5 min drawn from a small LCG, memory used and free.
std::vector<Series> gpu_series() {
  std::vector<Series> all;
  std::uint32_t x = 12345;
  const auto next = [&x] {
    x = x * 1664525u + 1013904223u;
    return (x >> 8) % 1000 / 1000.0;
  };
  const int samples = 2 * 240 + 1;
  for (int g = 0; g < 6; ++g) {
    const Labels l{{"gpu", std::to_string(g)}, {"instance", "node-" + std::to_string(g / 2)}};
    std::vector<double> util(samples), used(samples), free(samples), counter(samples);
    double u = 0;
    double c = 0;
    for (int i = 0; i < samples; ++i) {
      if (i % 30 == 0) u = std::round(100 * next());
      util[static_cast<std::size_t>(i)] = u;
      const double gib = 80 * (0.5 + 0.5 * u / 100.0);
      used[static_cast<std::size_t>(i)] = std::round(gib * 1024);
      free[static_cast<std::size_t>(i)] = 80 * 1024 - used[static_cast<std::size_t>(i)];
      c += 15 * u;  // a counter of busy percent-seconds: its rate is the utilization
      counter[static_cast<std::size_t>(i)] = c;
    }
    // GPU 5 stops reporting for 10 minutes (a gap the lookback and ranges must see).
    if (g == 5)
      for (int i = 101; i < 141; ++i) util[static_cast<std::size_t>(i)] = std::nan("");
    all.push_back(series("DCGM_FI_DEV_GPU_UTIL", l, 15 * S, util));
    all.push_back(series("DCGM_FI_DEV_FB_USED", l, 15 * S, used));
    all.push_back(series("DCGM_FI_DEV_FB_FREE", l, 15 * S, free));
    all.push_back(series("gpu_busy_percent_seconds_total", l, 15 * S, counter));
  }
  return all;
}

const char* const PROMTOOL_RULES = R"(groups:
  - name: guides
    rules:
      - alert: GpuUtilizationHigh
        expr: avg(rate(gpu_busy_percent_seconds_total[5m])) by (instance) > 60
        for: 10m
        labels: {severity: warning}
      - alert: GpuMemoryHigh
        expr: DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE) * 100 > 90
        for: 5m
      - alert: GpuUtilizationOutOfBand
        expr: avg by (instance) (avg_over_time(DCGM_FI_DEV_GPU_UTIL[10m])) < 40
        for: 2m
      - alert: GpuMissing
        expr: count by (instance) (DCGM_FI_DEV_GPU_UTIL) < 2
)";

std::string format_value(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

}  // namespace

namespace {

bool have_promtool() { return std::system("command -v promtool > /dev/null 2>&1") == 0; }

// Writes the series and the rules as a `promtool test rules` file that expects, at every
// minute from 0 to end, exactly the alerts of `firings` firing then, runs promtool on it and
// returns its exit code (its output in INFO). Returns the number of alerts expected in all.
std::size_t check_with_promtool(const std::vector<Series>& all, const std::string& rules_text,
                                const std::vector<AlertGroup>& groups, const std::vector<Firing>& firings,
                                std::int64_t step_ms, std::int64_t end, const std::string& dir_name) {
  gcsim::test::TempDir dir(dir_name);
  { std::ofstream(dir.file("rules.yml")) << rules_text; }
  std::ofstream t(dir.file("test.yml"));
  t << "rule_files: [rules.yml]\nevaluation_interval: 1m\ntests:\n  - interval: " << step_ms / S
    << "s\n    input_series:\n";
  for (const Series& s : all) {
    std::string values;
    std::size_t k = 0;
    for (std::int64_t at = 0; at <= end; at += step_ms) {
      if (!values.empty()) values += ' ';
      while (k < s.t_ms.size() && s.t_ms[k] < at) ++k;
      if (k < s.t_ms.size() && s.t_ms[k] == at) values += format_value(s.values[k++]);
      else values += '_';
    }
    t << "      - series: '" << gcsim::promql::format_labels(s.labels) << "'\n        values: '" << values << "'\n";
  }
  t << "    alert_rule_test:\n";
  std::size_t checks = 0;
  for (std::int64_t at = 0; at <= end; at += M) {
    for (const auto& group : groups) {
      for (const auto& rule : group.rules) {
        t << "      - eval_time: " << at / S << "s\n        alertname: " << rule.name << "\n        exp_alerts:";
        std::string alerts;
        for (const Firing* f : firing_at(firings, at)) {
          if (f->rule != rule.name) continue;
          alerts += "\n          - exp_labels: {";
          bool first = true;
          for (const auto& [k, v] : f->labels) {
            if (k == "alertname") continue;
            alerts += (first ? "" : ", ") + k + ": '" + v + "'";
            first = false;
          }
          alerts += "}";
          // promtool compares the annotations too (these have no templates to expand).
          if (!rule.annotations.empty()) {
            alerts += "\n            exp_annotations: {";
            for (std::size_t i = 0; i < rule.annotations.size(); ++i)
              alerts += (i ? ", " : "") + rule.annotations[i].first + ": '" + rule.annotations[i].second + "'";
            alerts += "}";
          }
          ++checks;
        }
        t << (alerts.empty() ? " []" : alerts) << "\n";
      }
    }
  }
  t.close();
  const std::string out = dir.file("promtool.out");
  const int rc = std::system(("cd '" + dir.path().string() + "' && promtool test rules test.yml > '" + out + "' 2>&1").c_str());
  INFO(gcsim::test::read_bytes(out).substr(0, 4000));
  CHECK(rc == 0);
  return checks;
}

}  // namespace

TEST_CASE("promtool test rules lists exactly gcsim's firing alerts at every evaluation", "[unit]") {
  if (!have_promtool()) {
    WARN("skipped: promtool is not installed (Debian 12: apt-get install prometheus)");
    return;
  }
  const std::vector<Series> all = gpu_series();
  const auto groups = rules_from(PROMTOOL_RULES);
  const std::int64_t end = 120 * M;
  const std::vector<Firing> firings = evaluate_alerts(groups, all, end);
  // The series must make every rule fire at least once, or the check proves little.
  std::map<std::string, int> fired;
  for (const Firing& f : firings) ++fired[f.rule];
  for (const char* rule : {"GpuUtilizationHigh", "GpuMemoryHigh", "GpuUtilizationOutOfBand", "GpuMissing"}) {
    INFO(rule);
    CHECK(fired[rule] > 0);
  }
  CHECK(check_with_promtool(all, PROMTOOL_RULES, groups, firings, 15 * S, end, "promtool-rules") > 50);
}

TEST_CASE("the guides' rules over a run's simulated metrics fire as promtool says they do", "[scenario]") {
  if (!have_promtool()) {
    WARN("skipped: promtool is not installed (Debian 12: apt-get install prometheus)");
    return;
  }
  gcsim::test::TempDir dir("alerts-run");
  // Two p4d-like nodes for 4 hours, sampled every 15 s; a burst of jobs in the first hours
  // fills them, then they idle: the guides' high- and low-utilization rules both fire.
  gcsim::test::run_yaml(R"(name: alerts-run
seed: 7
horizon: 4h
cluster:
  node_types:
    - name: a100
      gpu: A100-40GB-SXM
      gpus: 8
      count: 2
      price: {on_demand_per_hour: 32.77}
workload:
  generators:
    - name: burst
      count: 24
      arrival: {dist: exponential, mean: 4m}
      gpus: {choice: [1, 2, 4, 8]}
      duration: {dist: lognormal, median: 40m, sigma: 0.6}
output: {metrics: {every: 15s}}
)", dir);
  const auto reader = gcsim::trace::TraceReader::open(dir.file("alerts-run.h5"));
  const gcsim::analysis::MetricsData data = gcsim::analysis::read_metrics(*reader);
  const std::string rules_text = gcsim::test::read_bytes(GCSIM_SOURCE_DIR "/scenarios/examples/monitoring/guide-rules.yml");
  REQUIRE(!rules_text.empty());
  const auto groups = rules_from(rules_text);
  const std::vector<Firing> firings = gcsim::analysis::evaluate_trace_alerts(data, groups);
  std::map<std::string, int> fired;
  for (const Firing& f : firings) ++fired[f.rule];
  CHECK(fired["GpuUtilizationHigh"] > 0);
  CHECK(fired["PoolUtilizationBelow60"] > 0);
  // Window by window gives what all at once gives.
  const std::int64_t end = std::llround(data.end_s * 1000) / M * M;
  const auto all = gcsim::analysis::metrics_as_promql(data, 0, data.end_s);
  const std::vector<Firing> whole = evaluate_alerts(groups, all, end);
  REQUIRE(whole.size() == firings.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    CHECK(whole[i].labels == firings[i].labels);
    CHECK(whole[i].start_ms == firings[i].start_ms);
    CHECK(whole[i].end_ms == firings[i].end_ms);
  }
  CHECK(check_with_promtool(all, rules_text, groups, firings, 15 * S, end, "promtool-run") > 20);
}

// ---- The evaluation by change against the straightforward one -----------------------------

namespace {

using gcsim::promql::Run;
using gcsim::promql::RunSeries;

struct SplitMix {
  std::uint64_t x;
  std::uint64_t next() {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::int64_t below(std::int64_t n) { return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n)); }
};

constexpr std::int64_t STEP = 15 * S;

// Appends a run at k (count samples of value v), merged with the last when they touch with
// the same value (touching runs differ, as RunSeries says).
void add_run(RunSeries& s, std::int64_t k, std::int64_t count, double v) {
  if (!s.runs.empty()) {
    Run& last = s.runs.back();
    if (last.first_ms + last.count * STEP == k * STEP && last.value == v) {
      last.count += count;
      return;
    }
  }
  s.runs.push_back(Run{k * STEP, count, v});
}

// Random series on a 15 s grid over [0, end]: 3 nodes x 3 GPUs, each GPU with an idle
// series and two jobs' series that start and end at random instants, values held for
// random stretches with gaps, taken from small sets that hold the rules' thresholds
// exactly; a counter that rises by varying steps, holds still, and resets.
std::vector<RunSeries> random_runs(std::uint64_t seed, std::int64_t end_ms) {
  SplitMix r{seed};
  const std::int64_t last_k = end_ms / STEP;
  const double util_values[] = {0, -0.0, 10, 40, 59.5, 60, 75, 80, 80.25, 85, 90, 99, 100, 37.333333333333336};
  const double fb_values[] = {0, 1024, 20000, 36864, 36864.5, 38000, 40960};
  std::vector<RunSeries> out;
  for (int node = 0; node < 3; ++node) {
    for (int gpu = 0; gpu < 3; ++gpu) {
      for (int life = 0; life < 3; ++life) {
        Labels base{{"gpu", std::to_string(gpu)},
                    {"instance", "node-" + std::to_string(node)},
                    {"node", "n" + std::to_string(node)},
                    {"pool", node < 2 ? "a" : "b"}};
        if (life > 0) base.emplace_back("job", "j" + std::to_string(node * 10 + gpu * 3 + life));
        // The idle series from the start (or a little after), the jobs' anywhere.
        const std::int64_t k0 = life == 0 ? r.below(3) : r.below(last_k);
        const std::int64_t k1 = std::min(last_k, k0 + r.below(last_k - k0 + 1));
        for (const char* name : {"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE",
                                 "gpu_busy_percent_seconds_total"}) {
          RunSeries s;
          s.labels = base;
          s.labels.emplace_back("__name__", name);
          std::sort(s.labels.begin(), s.labels.end());
          const std::string n(name);
          double counter = static_cast<double>(r.below(1000));
          for (std::int64_t k = k0; k <= k1;) {
            const std::int64_t len = std::min(1 + r.below(n == "gpu_busy_percent_seconds_total" ? 3 : 40), k1 - k + 1);
            if (r.below(10) == 0) {  // a gap: no samples
              k += len;
              continue;
            }
            if (n == "DCGM_FI_DEV_GPU_UTIL") {
              add_run(s, k, len, util_values[r.below(std::size(util_values))]);
            } else if (n == "DCGM_FI_DEV_FB_USED") {
              add_run(s, k, len, fb_values[r.below(std::size(fb_values))]);
            } else if (n == "DCGM_FI_DEV_FB_FREE") {
              add_run(s, k, len, 40960 - fb_values[r.below(std::size(fb_values))]);
            } else {
              for (std::int64_t i = 0; i < len; ++i) {
                if (r.below(40) == 0) counter = static_cast<double>(r.below(50));  // a reset
                else if (r.below(4) != 0) counter += static_cast<double>(r.below(6000)) / 4;
                add_run(s, k + i, 1, counter);
              }
            }
            k += len;
          }
          if (!s.runs.empty()) out.push_back(std::move(s));
        }
      }
    }
  }
  return out;
}

std::vector<Series> expanded(const std::vector<RunSeries>& runs) {
  std::vector<Series> out;
  for (const RunSeries& rs : runs) {
    Series s{rs.labels, {}, {}};
    for (const Run& r : rs.runs)
      for (std::int64_t i = 0; i < r.count; ++i) {
        s.t_ms.push_back(r.first_ms + i * STEP);
        s.values.push_back(r.value);
      }
    out.push_back(std::move(s));
  }
  return out;
}

// More forms than the guides use: every function and aggregation, without, regular
// expressions, vector/vector and number/vector operators on both sides, bool, negation, a
// number alone, `for: 0`, and groups evaluated every 30 s and every 2 m.
const char* const FORM_RULES = R"(groups:
  - name: forms
    interval: 30s
    rules:
      - alert: MaxUtil
        expr: max by (pool) (max_over_time(DCGM_FI_DEV_GPU_UTIL[2m])) >= 99
      - alert: MinUtil
        expr: min without (gpu, job) (min_over_time(DCGM_FI_DEV_GPU_UTIL{pool=~"a|b"}[90s])) <= 10
        for: 1m
      - alert: SumOverTime
        expr: sum_over_time(DCGM_FI_DEV_FB_USED[1m]) / 5 > 30000
      - alert: Increase
        expr: increase(gpu_busy_percent_seconds_total[3m]) > 2000
        for: 30s
      - alert: CountBool
        expr: count by (node) (DCGM_FI_DEV_GPU_UTIL > bool 50) > 2
      - alert: Negated
        expr: -DCGM_FI_DEV_GPU_UTIL < -80
        labels: {gpu: overwritten}
      - alert: VectorCompare
        expr: DCGM_FI_DEV_FB_USED > DCGM_FI_DEV_FB_FREE
        for: 2m
      - alert: ScalarLeft
        expr: 100 - DCGM_FI_DEV_GPU_UTIL{job!=""} < 15
  - name: slow
    interval: 2m
    rules:
      - alert: SumRate
        expr: sum(rate(gpu_busy_percent_seconds_total[10m])) without (gpu) > 20
        for: 4m
      - alert: Number
        expr: -(1 + 2) * 3 < bool 5
      - alert: AvgCount
        expr: avg(DCGM_FI_DEV_GPU_UTIL) by (pool) + count(DCGM_FI_DEV_FB_USED) by (pool) > 70
        for: 6m
)";

void check_same_firings(const std::vector<Firing>& by_change, const std::vector<Firing>& reference) {
  REQUIRE(by_change.size() == reference.size());
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const Firing& a = by_change[i];
    const Firing& b = reference[i];
    INFO(b.rule << " " << gcsim::promql::format_labels(b.labels) << " from " << b.start_ms);
    CHECK(a.group == b.group);
    CHECK(a.rule == b.rule);
    CHECK(a.labels == b.labels);
    CHECK(a.active_ms == b.active_ms);
    CHECK(a.start_ms == b.start_ms);
    CHECK(a.end_ms == b.end_ms);
    CHECK(a.resolved == b.resolved);
    CHECK(std::memcmp(&a.peak, &b.peak, sizeof(double)) == 0);
  }
}

}  // namespace

TEST_CASE("evaluated by change, random series give the straightforward evaluation's firings exactly", "[unit]") {
  const std::string guide = gcsim::test::read_bytes(GCSIM_SOURCE_DIR "/scenarios/examples/monitoring/guide-rules.yml");
  REQUIRE(!guide.empty());
  const std::int64_t end = 6 * 60 * M + 7 * S;  // not on the evaluation grid
  std::map<std::string, int> fired;
  std::size_t firings = 0;
  for (const char* rules_text : {guide.c_str(), PROMTOOL_RULES, FORM_RULES}) {
    const auto groups = rules_from(rules_text);
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
      INFO("seed " << seed);
      const std::vector<RunSeries> runs = random_runs(seed, end);
      const std::vector<Firing> reference = evaluate_alerts(groups, expanded(runs), end);
      check_same_firings(gcsim::analysis::evaluate_alerts_by_change(groups, runs, STEP, end), reference);
      for (const Firing& f : reference) ++fired[f.rule];
      firings += reference.size();
    }
  }
  // Every rule fired somewhere, or the comparison proves little for it.
  for (const char* rules_text : {guide.c_str(), PROMTOOL_RULES, FORM_RULES})
    for (const auto& g : rules_from(rules_text))
      for (const auto& rule : g.rules) {
        INFO(rule.name);
        CHECK(fired[rule.name] > 0);
      }
  CHECK(firings > 500);
}

TEST_CASE("a run's metrics held by change are its samples, and its alerts the windowed evaluation's", "[scenario]") {
  for (const char* every : {"15s", "7.5s"}) {
    INFO("every " << every);
    gcsim::test::TempDir dir(std::string("alerts-change-") + (every[1] == '.' ? "7" : "15"));
    gcsim::test::run_yaml(std::string(R"(name: alerts-change
seed: 11
horizon: 5h
cluster:
  node_types:
    - name: a100
      gpu: A100-40GB-SXM
      gpus: 8
      count: 2
      price: {on_demand_per_hour: 32.77}
workload:
  generators:
    - name: burst
      count: 30
      arrival: {dist: exponential, mean: 5m}
      gpus: {choice: [1, 2, 4, 8, 16]}
      duration: {dist: lognormal, median: 40m, sigma: 0.6}
      checkpoint: {every: 10m, write_time: 30s, restore_time: 20s}
network:
  fabric: single-switch
  link: {speed: 100Gbps, latency: 1us, kind: infiniband}
output: {metrics: {every: )") + every + "}}\n", dir);
    const auto reader = gcsim::trace::TraceReader::open(dir.file("alerts-change.h5"));
    const gcsim::analysis::MetricsData data = gcsim::analysis::read_metrics(*reader);
    // Every family's runs, expanded, are for_each_series' samples.
    std::vector<std::vector<gcsim::analysis::Sample>> samples;
    gcsim::analysis::for_each_series(data, [&](const gcsim::analysis::Series& s) { samples.push_back(s.samples); });
    std::size_t i = 0;
    std::size_t runs = 0;
    gcsim::analysis::for_each_series_runs(
        data, [](const gcsim::analysis::MetricFamily&) { return true; },
        [&](const gcsim::analysis::RunsSeries& s) {
          REQUIRE(i < samples.size());
          std::vector<gcsim::analysis::Sample> from_runs;
          for (const auto& r : s.runs)
            for (std::int64_t k = r.first_k; k < r.first_k + r.count; ++k)
              from_runs.push_back({static_cast<double>(k) * data.every_s, r.value});
          REQUIRE(from_runs.size() == samples[i].size());
          for (std::size_t j = 0; j < from_runs.size(); ++j) {
            CHECK(from_runs[j].time_s == samples[i][j].time_s);
            CHECK(std::memcmp(&from_runs[j].value, &samples[i][j].value, sizeof(double)) == 0);
          }
          runs += s.runs.size();
          ++i;
        });
    CHECK(i == samples.size());
    std::size_t n_samples = 0;
    for (const auto& s : samples) n_samples += s.size();
    CHECK(runs * 4 < n_samples);  // held by change: far fewer runs than samples
    CHECK(data.latency_rows > 0);  // 16-GPU jobs span both nodes: latency series too
    // The alerts: the guides' rules, the forms above, the node counters and latency, by
    // change and window by window.
    const std::string counter_rules =
        "groups:\n  - name: net\n    rules:\n      - alert: NetMoving\n"
        "        expr: rate(gcsim_node_network_transmit_bytes_total[5m]) >= 0\n        for: 2m\n"
        "      - alert: LatencySeen\n        expr: max_over_time(gcsim_node_network_latency_seconds[2m]) > 0\n";
    for (const std::string& rules_text :
         {gcsim::test::read_bytes(GCSIM_SOURCE_DIR "/scenarios/examples/monitoring/guide-rules.yml"),
          std::string(FORM_RULES), counter_rules}) {
      const auto groups = rules_from(rules_text);
      const std::vector<Firing> by_change = gcsim::analysis::evaluate_trace_alerts(data, groups);
      const std::vector<Firing> reference = gcsim::analysis::evaluate_trace_alerts_by_window(data, groups);
      if (rules_text != counter_rules) CHECK(!reference.empty());
      check_same_firings(by_change, reference);
    }
    // Past max_runs the series are not held by change (evaluate_trace_alerts then goes
    // window by window).
    const auto guide_groups =
        rules_from(gcsim::test::read_bytes(GCSIM_SOURCE_DIR "/scenarios/examples/monitoring/guide-rules.yml"));
    const std::int64_t step_ms = std::llround(data.every_s * 1000);
    const auto held = gcsim::analysis::metrics_as_runs(data, guide_groups, step_ms);
    REQUIRE(held.has_value());
    std::size_t held_runs = 0;
    for (const auto& s : *held) held_runs += s.runs.size();
    CHECK(gcsim::analysis::metrics_as_runs(data, guide_groups, step_ms, held_runs).has_value());
    CHECK(!gcsim::analysis::metrics_as_runs(data, guide_groups, step_ms, held_runs - 1).has_value());
  }
}

TEST_CASE("a GridEvaluation recomputes only when its window changes, and a negated number is negated", "[unit]") {
  // One GPU at 50% from 15 s to 30 m (a sample every 15 s), then gone.
  const std::vector<RunSeries> runs{
      RunSeries{{{"__name__", "util"}, {"gpu", "0"}}, {Run{15 * S, 120, 50.0}}}};
  const Expr avg = Expr::parse("avg_over_time(util[5m])");  // outlives the evaluation
  gcsim::promql::GridEvaluation e(avg, runs, STEP, M);
  CHECK(e.advance(0));  // the first evaluation: no sample yet, an empty result
  CHECK(e.result().empty());
  CHECK(e.advance(M));  // 15 s .. 60 s in the window: 50
  REQUIRE(e.result().size() == 1);
  CHECK(e.result()[0].value == 50);
  CHECK(e.labels(e.result()[0].labels) == Labels{{"gpu", "0"}});
  // More samples of the same value: the mean is 50 again, the result unchanged.
  for (std::int64_t t = 2 * M; t <= 35 * M; t += M) {
    INFO("t = " << t / M << " min");
    CHECK_FALSE(e.advance(t));
  }
  // At 35 m the window [30 m, 35 m] still holds the 30 m sample (both ends count); at 36 m
  // it is empty.
  CHECK(e.advance(36 * M));
  CHECK(e.result().empty());
  CHECK_FALSE(e.advance(37 * M));
  // -(1 + 2) is a number the parser does not fold: -3, not 3.
  CHECK(only_value(Expr::parse("-(1 + 2)").evaluate({}, 0)) == -3);
  const Expr number = Expr::parse("-(1 + 2) * 2");
  gcsim::promql::GridEvaluation n(number, runs, STEP, M);
  CHECK(n.advance(0));
  REQUIRE(n.result().size() == 1);
  CHECK(n.result()[0].value == -6);
  CHECK_FALSE(n.advance(M));
}
