// A scenario's `alerts:` (docs/alerts.md): its three forms, the checks made as the scenario
// is loaded (PromQL, metric and label names with did-you-mean, the metrics it needs), the
// rules carried by the trace, and `gcsim analyze` / `gcsim alerts` evaluating them.
#include <catch2/catch.hpp>

#include <string>

#include "analysis/alert_report.hpp"
#include "models/config/alerts_reader.hpp"
#include "sim/config/config_node.hpp"
#include "sim/rules/alert_rules_file.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

// One 2-GPU node for 2 h, a 1-GPU job of 1 h; `tail` adds output and alerts.
std::string scenario(const std::string& tail) {
  return "name: al\nhorizon: 2h\nrun_until: horizon\n"
         "cluster:\n  node_types:\n    - {name: a, gpu: A100-40GB-SXM, gpus: 2, count: 1, price: {on_demand_per_hour: 2}}\n"
         "workload:\n  jobs:\n    - {name: A, gpus: 1, duration: 1h}\n" +
         tail;
}
const std::string METRICS = "output: {metrics: {every: 15s}}\n";

std::vector<promql::AlertGroup> groups_of(const std::string& rules_yaml) {
  return promql::read_alert_groups(config::load_yaml_string(rules_yaml, "rules").root, &promql::exported_series_names());
}

}  // namespace

TEST_CASE("alerts: a list of rules, inline groups or a rules file, kept as a rules file", "[unit]") {
  SECTION("a list: one group named scenario, evaluated every minute") {
    const models::Scenario s = test::scenario_from_yaml(scenario(
        METRICS + "alerts:\n  - {alert: Idle, expr: 'avg by (pool) (DCGM_FI_DEV_GPU_UTIL) < 60', for: 10m,\n"
                  "     labels: {severity: info}, annotations: {summary: \"below 60%\"}}\n"));
    const auto g = groups_of(s.alert_rules_yaml);
    REQUIRE(g.size() == 1);
    CHECK(g[0].name == models::SCENARIO_ALERT_GROUP);
    CHECK(g[0].interval_ms == 60'000);
    REQUIRE(g[0].rules.size() == 1);
    CHECK(g[0].rules[0].name == "Idle");
    CHECK(g[0].rules[0].expr.text() == "avg by (pool) (DCGM_FI_DEV_GPU_UTIL) < 60");
    CHECK(g[0].rules[0].for_ms == 600'000);
    CHECK(g[0].rules[0].labels == promql::Labels{{"severity", "info"}});
    CHECK(g[0].rules[0].annotations == promql::Labels{{"summary", "below 60%"}});
  }
  SECTION("inline groups, with their interval") {
    const models::Scenario s = test::scenario_from_yaml(scenario(
        METRICS + "alerts:\n  groups:\n    - name: g\n      interval: 30s\n      rules:\n"
                  "        - {alert: Hot, expr: 'max(DCGM_FI_DEV_GPU_UTIL) by (node, gpu) > 85', for: 1h30m}\n"));
    const auto g = groups_of(s.alert_rules_yaml);
    REQUIRE(g.size() == 1);
    CHECK(g[0].name == "g");
    CHECK(g[0].interval_ms == 30'000);
    CHECK(g[0].rules[0].for_ms == 5'400'000);
  }
  SECTION("a rules file, relative to the scenario: the bundled guide rules") {
    const models::Scenario s = models::load_scenario_file(std::string(GCSIM_SOURCE_DIR) +
                                                         "/scenarios/examples/monitoring/fleet-week.yaml",
                                                     test::load_options());
    const auto g = groups_of(s.alert_rules_yaml);
    REQUIRE(g.size() == 1);
    CHECK(g[0].name == "gpu-guides");
    CHECK(g[0].rules.size() == 4);
    // What the trace keeps reads back to the same rules, and writes out the same again.
    CHECK(promql::rules_yaml(g) == s.alert_rules_yaml);
  }
}

TEST_CASE("alerts: a misspelt metric, label or key, and rules without metrics, are errors at their place", "[unit]") {
  const auto error = [](const std::string& tail) { return test::config_error([&] { test::scenario_from_yaml(scenario(tail)); }); };
  SECTION("an unknown metric, at its column, with did-you-mean") {
    const ConfigError e = error(METRICS + "alerts:\n  - {alert: A, expr: 'avg(DCGM_FI_DEV_GPU_UTILL) > 1'}\n");
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(e.mark().line == 12);         // name, horizon, run_until, 5 of cluster and jobs, output, alerts:
    CHECK(e.mark().column == 23 + 4);  // the expression starts at column 23 (after its quote); its 5th character
    CHECK(test::has(e.what(), "unknown metric 'DCGM_FI_DEV_GPU_UTILL'; did you mean 'DCGM_FI_DEV_GPU_UTIL'?"));
  }
  SECTION("an unknown label: the guide's `instance` is gcsim's `node`") {
    const ConfigError e = error(METRICS + "alerts:\n  - {alert: A, expr: 'avg(DCGM_FI_DEV_GPU_UTIL) by (instance) > 1'}\n");
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(test::has(e.what(), "unknown label 'instance'; gcsim's are node, gpu, pool, job"));
  }
  SECTION("a counter by its name without _total") {
    const ConfigError e = error(METRICS + "alerts:\n  - {alert: A, expr: 'rate(gcsim_node_network_transmit_bytes[5m]) > 1'}\n");
    CHECK(test::has(e.what(), "did you mean 'gcsim_node_network_transmit_bytes_total'?"));
  }
  SECTION("a bad expression") {
    CHECK(error(METRICS + "alerts:\n  - {alert: A, expr: 'avg(DCGM_FI_DEV_GPU_UTIL) by (node'}\n").code() ==
          ErrorCode::Syntax);
  }
  SECTION("an unknown key of a rule, with did-you-mean") {
    const ConfigError e = error(METRICS + "alerts:\n  - {alert: A, expr: 'DCGM_FI_DEV_GPU_UTIL > 1', fro: 5m}\n");
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(test::has(e.what(), "did you mean 'for'?"));
  }
  SECTION("alerts without the metrics they read") {
    const ConfigError e = error("alerts:\n  - {alert: A, expr: 'DCGM_FI_DEV_GPU_UTIL > 1'}\n");
    CHECK(e.code() == ErrorCode::Conflict);
    CHECK(e.mark().line == 11);  // the rules under `alerts:`
    CHECK(test::has(e.what(), "add output: {metrics: {every: 15s}}"));
  }
  SECTION("both a file and groups, or neither, or no rule") {
    CHECK(error(METRICS + "alerts: {file: r.yml, groups: []}\n").code() == ErrorCode::Conflict);
    CHECK(error(METRICS + "alerts: {}\n").code() == ErrorCode::Conflict);
    CHECK(error(METRICS + "alerts: []\n").code() == ErrorCode::OutOfRange);
    CHECK(error(METRICS + "alerts: {fille: r.yml}\n").code() == ErrorCode::UnknownKey);
  }
  SECTION("a missing rules file") {
    CHECK(error(METRICS + "alerts: {file: no-such-rules.yml}\n").code() == ErrorCode::FileNotFound);
  }
}

TEST_CASE("an error inside a scenario's rules file is reported in that file, at its line and column", "[unit]") {
  const test::TempDir dir("alerts-file");
  test::write_file(dir.file("rules.yml"),
                   "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: DCGM_FI_DEV_FB_USE > 1\n");
  test::write_file(dir.file("s.yaml"), scenario(METRICS + "alerts: {file: rules.yml}\n"));
  const ConfigError e = test::config_error([&] { models::load_scenario_file(dir.file("s.yaml"), test::load_options()); });
  CHECK(e.code() == ErrorCode::UnknownName);
  CHECK(test::has(e.mark().file, "rules.yml"));
  CHECK(e.mark().line == 5);
  CHECK(e.mark().column == 15);
  CHECK(test::has(e.what(), "did you mean 'DCGM_FI_DEV_FB_USED'?"));
}

TEST_CASE("the trace carries the scenario's rules, and analyze and alerts evaluate them", "[scenario]") {
  const test::TempDir dir("alerts-run");
  // The job holds one of the two GPUs for the first hour at 100% (a plain job), the other is
  // idle: the node's mean is 50% for that hour, then 0%. `< 60` by node holds from the first
  // sample (15 s) to the end; evaluated every minute from 0 with `for: 0`, it fires at 1 min
  // (the first evaluation with a sample) and still fires at the end (2 h): 1h 59m.
  test::write_file(dir.file("s.yaml"),
                   scenario(METRICS + "alerts:\n  - {alert: NodeLow, expr: 'avg by (node) (DCGM_FI_DEV_GPU_UTIL) < 60',\n"
                                      "     annotations: {summary: node below 60%}}\n"));
  const auto run = test::run_gcsim("run " + dir.file("s.yaml") + " -o " + dir.path().string() + " --no-plots");
  REQUIRE(run.code == 0);
  const std::string trace = dir.file("al.h5");
  const auto analyze = test::run_gcsim("analyze " + trace);
  REQUIRE(analyze.code == 0);
  CHECK(test::has(analyze.output, "Alerts (rules: the scenario's alerts:"));
  CHECK(test::has(analyze.output, "scenario/NodeLow"));
  CHECK(test::has(analyze.output, "  scenario/NodeLow         1           2.0"));  // 1h 59m
  // The two GPUs, up for the 1h 59m it fired: 3.97 GPU-hours; the job's hour on one of them
  // (59 min in the window), the rest idle: 59 / 238 = 24.8% a job without a model.
  CHECK(test::has(analyze.output, "pool a: NodeLow for 4.0 GPU-hours in 1 firing (node below 60%): 75.2% idle GPUs, "
                                  "24.8% jobs without a model"));
  const auto json = test::run_gcsim("analyze --json " + trace);
  REQUIRE(json.code == 0);
  CHECK(test::has(json.output, "\"alerts\": {"));
  CHECK(test::has(json.output, "\"gpu_hours\": 3.9666"));
  const auto alerts = test::run_gcsim("alerts " + trace);
  REQUIRE(alerts.code == 0);
  CHECK(test::has(alerts.output, "1 rule(s) of the scenario's alerts:"));
  CHECK(test::has(alerts.output, "NodeLow"));
  // A trace without rules needs --rules.
  const test::TempDir plain("alerts-plain");
  test::write_file(plain.file("s.yaml"), scenario(METRICS));
  REQUIRE(test::run_gcsim("run " + plain.file("s.yaml") + " -o " + plain.path().string() + " --no-plots").code == 0);
  const auto none = test::run_gcsim("alerts " + plain.file("al.h5"));
  CHECK(none.code != 0);
  CHECK(test::has(none.output, "carries no alerting rules"));
  CHECK(test::run_gcsim("analyze " + plain.file("al.h5")).output.find("Alerts (") == std::string::npos);
}
