// `gcsim compare`: every strategy runs on the same seed (the same jobs, the same spot
// interruptions), bad --policy arguments stop it before anything runs or is written, its
// JSON parses, the thread count changes nothing, and each variant's trace embeds a scenario
// whose scheduler section is the variant's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/trace_data.hpp"
#include "models/config/scheduler_variant.hpp"
#include "support/python.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
namespace fs = std::filesystem;

namespace {

// Three spot 8-GPU nodes, interrupted as a Poisson process (1 per node every 5 h of up
// time), replaced 5 minutes later, for two days; two teams' generated jobs of 1 to 16 GPUs
// that keep the nodes busy, with hourly checkpoints.
const char* SPOT_SCENARIO = R"(name: spot-compare
seed: 11
horizon: 2d
run_until: horizon
cluster:
  node_types:
    - name: p4d-spot
      instance: aws/p4d.24xlarge@use1-az1
      count: 3
      market: spot
      price: {on_demand_per_hour: 21.957642}
      interruptions: {process: poisson, rate: 0.2/h}
      notice: 2m
      provisioning: 5m
scheduler:
  policy: fifo
workload:
  generators:
    - name: small
      team: research
      count: 60
      arrival: {dist: exponential, mean: 30m}
      gpus: {choice: [1, 2, 4], weights: [0.5, 0.3, 0.2]}
      duration: {dist: lognormal, median: 2h, sigma: 0.8, max: 12h}
      checkpoint: {every: 1h, write_time: 20s, restore_time: 30s}
    - name: big
      team: vision
      count: 10
      arrival: {dist: exponential, mean: 4h}
      gpus: {choice: [8, 16], weights: [0.7, 0.3]}
      duration: {dist: lognormal, median: 6h, sigma: 0.5, max: 1d}
      checkpoint: {every: 1h, write_time: 2m, restore_time: 150s}
)";

std::vector<double> submit_times(const analysis::TraceData& t) {
  std::vector<double> out;
  for (const auto& j : t.jobs) out.push_back(j.submit_s);
  return out;
}

// (time, node, kind) of every node_down and node_up row.
std::vector<std::tuple<double, int, std::string>> node_events(const analysis::TraceData& t) {
  std::vector<std::tuple<double, int, std::string>> out;
  for (const auto& e : t.events) {
    const std::string& kind = analysis::event_kind_label(t, e);
    if (kind == "node_down" || kind == "node_up") out.emplace_back(e.time_s, e.node, kind);
  }
  return out;
}

// Equal, or both NaN (a job that never started).
bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

std::string quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace

TEST_CASE("compare: every variant sees the same jobs and the same interruptions", "[scenario][compare]") {
  test::TempDir dir("compare-seed");
  const std::string scenario = dir.file("spot.yaml");
  test::write_file(scenario, SPOT_SCENARIO);
  const std::string out = dir.file("out");
  const auto r = test::run_gcsim("compare " + scenario + " --policy fifo --policy 'fifo:{placement: first-fit}' -o " +
                                 out + " --no-plots");
  INFO(r.output);
  REQUIRE(r.code == 0);
  const analysis::TraceData a = analysis::read_trace(out + "/fifo-r0.h5");
  const analysis::TraceData b = analysis::read_trace(out + "/fifo__placement__first-fit_-r0.h5");
  CHECK(a.attrs.seed == 11);
  CHECK(b.attrs.seed == 11);
  REQUIRE(a.jobs.size() == 70);
  CHECK(submit_times(a) == submit_times(b));
  const auto downs = node_events(a);
  // The check means something only if there were interruptions to compare.
  REQUIRE(std::count_if(downs.begin(), downs.end(), [](const auto& e) { return std::get<2>(e) == "node_down"; }) >= 3);
  CHECK(downs == node_events(b));
  // Another seed gives other jobs and other interruptions: the equalities above are not
  // true of any two runs.
  const auto other = test::run_gcsim("run " + scenario + " --seed 12 --no-plots -q -o " + dir.file("other"));
  REQUIRE(other.code == 0);
  const analysis::TraceData c = analysis::read_trace(dir.file("other") + "/spot-compare-s12.h5");
  CHECK(submit_times(c) != submit_times(a));
  CHECK(node_events(c) != downs);
}

TEST_CASE("compare: a variant's trace embeds its scheduler section and reruns as it ran", "[scenario][compare]") {
  test::TempDir dir("compare-rerun");
  const std::string scenario = dir.file("spot.yaml");
  test::write_file(scenario, SPOT_SCENARIO);
  const std::string out = dir.file("out");
  REQUIRE(test::run_gcsim("compare " + scenario + " --policy 'fifo:{placement: first-fit}' -o " + out + " --no-plots").code == 0);
  const analysis::TraceData t = analysis::read_trace(out + "/fifo__placement__first-fit_-r0.h5");
  CHECK(t.attrs.scenario_yaml.find("scheduler:\n  policy: fifo\n  placement: first-fit\nworkload:\n") != std::string::npos);
  const auto rerun = test::run_gcsim("rerun " + out + "/fifo__placement__first-fit_-r0.h5 --no-plots -q -o " + dir.file("rerun"));
  REQUIRE(rerun.code == 0);
  // The rerun keeps the compare trace's own name (issue 27.18), not output.trace's.
  const analysis::TraceData again = analysis::read_trace(dir.file("rerun") + "/fifo__placement__first-fit_-r0.h5");
  for (std::size_t i = 0; i < t.jobs.size(); ++i) {
    CHECK(same(again.jobs[i].start_s, t.jobs[i].start_s));
    CHECK(again.jobs[i].first_node == t.jobs[i].first_node);
  }
}

TEST_CASE("compare: a bad --policy exits 2 naming the argument and key, before writing anything", "[scenario][compare]") {
  test::TempDir dir("compare-bad");
  const std::string scenario = dir.file("spot.yaml");
  test::write_file(scenario, SPOT_SCENARIO);
  const std::string out = dir.file("out");
  struct Case {
    std::string policy;
    std::string message;
  };
  const std::vector<Case> cases{
      {"fifo:{placemnt: first-fit}",
       "--policy 'fifo:{placemnt: first-fit}':1:7: error[unknown-key]: scheduler.placemnt: unknown key 'placemnt'; did "
       "you mean 'placement'?"},
      {"fiffo", "--policy 'fiffo':1:1: error[unknown-name]: scheduler.policy: unknown value 'fiffo'; did you mean 'fifo'?"},
      {"fifo:{placement: worst}", "error[unknown-name]: scheduler.placement: unknown value 'worst'"},
      {"fifo:[1]", "error[wrong-type]"},
      {"fifo:", "--policy 'fifo:':1:1: error[wrong-type]: scheduler.policy: after 'NAME:' comes a YAML flow map"},
      {"fifo:{policy: fifo}", "error[conflict]: scheduler.policy"},
  };
  for (const Case& c : cases) {
    INFO(c.policy);
    // The good variant first: the bad one still stops everything.
    const auto r = test::run_gcsim("compare " + scenario + " --policy fifo --policy " + quoted(c.policy) + " -o " + out);
    INFO(r.output);
    CHECK(r.code == 2);
    CHECK(r.output.find(c.message) != std::string::npos);
    CHECK(!fs::exists(out));
  }
  test::write_file(dir.file("bad.yaml"), "scheduler:\n  policy: fifo\n  placment: first-fit\n");
  const auto r = test::run_gcsim("compare " + scenario + " --policy @" + dir.file("bad.yaml") + " -o " + out);
  CHECK(r.code == 2);
  CHECK(r.output.find("bad.yaml:3:3: error[unknown-key]: scheduler.placment") != std::string::npos);
  CHECK(!fs::exists(out));
}

TEST_CASE("compare: --max-memory is shared by the runs held at once, --max-events holds for each", "[scenario][compare]") {
  test::TempDir dir("compare-limits");
  const std::string scenario = dir.file("spot.yaml");
  test::write_file(scenario, SPOT_SCENARIO);
  const std::string out = dir.file("out");
  // The scenario's estimate is some MiB; a limit of 64 MiB fits one run at a time, and 4
  // runs at once share it; 1 KiB fits nothing.
  const auto one = test::run_gcsim("compare " + scenario + " --policy fifo --policy sjf -j 1 --max-memory 1KiB -o " + out);
  CHECK(one.code == 2);
  CHECK(one.output.find("error[infeasible]") != std::string::npos);
  CHECK(one.output.find("--max-memory") != std::string::npos);
  CHECK(one.output.find("shared by") == std::string::npos);  // one run at a time: the whole limit
  CHECK(!fs::exists(out));
  const auto four = test::run_gcsim("compare " + scenario + " --policy fifo --policy sjf --replications 2 -j 4 --max-memory 1KiB");
  CHECK(four.code == 2);
  CHECK(four.output.find("shared by the 4 runs held at once") != std::string::npos);
  const auto events = test::run_gcsim("compare " + scenario + " --policy fifo -j 4 --max-events 1");
  CHECK(events.code == 2);
  CHECK(events.output.find("--max-events") != std::string::npos);
  CHECK(events.output.find("shared by") == std::string::npos);
  CHECK(test::run_gcsim("compare " + scenario + " --policy fifo -j 1 --max-memory 64MiB").code == 0);
}

TEST_CASE("compare: --json parses, -j 1 and -j 2 print the same, no -o leaves no file behind", "[scenario][compare]") {
  test::TempDir dir("compare-json");
  const std::string scenario = dir.file("spot.yaml");
  test::write_file(scenario, SPOT_SCENARIO);
  test::write_file(dir.file("first-fit.yaml"), "{policy: fifo, placement: first-fit}\n");
  const std::string scratch = dir.file("tmp");
  fs::create_directories(scratch);
  const std::string args = "compare " + scenario + " --policy fifo --policy @" + dir.file("first-fit.yaml") +
                           " --replications 3 --json";
  const auto one = test::run_command("TMPDIR=" + scratch + " " + GCSIM_BINARY_DIR + "/cli/gcsim " + args + " -j 1");
  const auto two = test::run_command("TMPDIR=" + scratch + " " + GCSIM_BINARY_DIR + "/cli/gcsim " + args + " -j 2");
  INFO(one.output);
  REQUIRE(one.code == 0);
  REQUIRE(two.code == 0);
  CHECK(one.output == two.output);
  CHECK(fs::is_empty(scratch));
  const auto table = test::run_command("TMPDIR=" + scratch + " " + GCSIM_BINARY_DIR + "/cli/gcsim compare " + scenario +
                                       " --policy fifo --replications 2");
  CHECK(table.code == 0);
  CHECK(table.output.find(" ± ") != std::string::npos);
  CHECK(fs::is_empty(scratch));

  if (!test::python_with("json")) return;
  test::write_file(dir.file("out.json"), one.output);
  test::write_file(dir.file("check.py"), R"(import json, sys
d = json.load(open(sys.argv[1]))
assert d["scenario"] == "spot-compare" and d["seed"] == 11 and d["replications"] == 3, d
v = d["variants"]
assert [x["label"] for x in v] == ["fifo", "@" + sys.argv[2]], v
assert v[1]["policy"] == "  policy: fifo\n  placement: first-fit\n", v[1]["policy"]
for x in v:
    f = x["figures"]
    assert len(f) == 17, sorted(f)  # the rows of the table (docs/analysis.md)
    for key in ("total_cost_usd", "jct_mean_s", "wait_p95_s", "team_slowdown_jain", "worst_rho", "interruptions"):
        assert len(f[key]["values"]) == 3, (key, f[key])
        m = sum(f[key]["values"]) / 3
        assert abs(f[key]["mean"] - m) <= 1e-9 * max(1, abs(m)), (key, f[key])
        assert f[key]["ci95"] is not None and f[key]["ci95"] >= 0, (key, f[key])
print("ok")
)");
  const auto check = test::run_command("/usr/bin/python3 " + dir.file("check.py") + " " + dir.file("out.json") + " " +
                                       dir.file("first-fit.yaml"));
  INFO(check.output);
  CHECK(check.code == 0);
}

TEST_CASE("compare: the variant replaces the scheduler section's lines, or is appended", "[unit][compare]") {
  const models::SchedulerRegistry& registry = models::builtins().schedulers;
  const models::SchedulerVariant v = models::read_scheduler_variant("fifo:{placement: first-fit}", registry);
  CHECK(v.spec.policy == "fifo");
  CHECK(v.yaml == "  policy: fifo\n  placement: first-fit\n");
  const std::string text = "name: x\nscheduler:\n  policy: fifo   # the default\n\n# the jobs\nworkload: {}\n";
  const config::ConfigDocument doc = config::load_yaml_string(text, "x.yaml");
  CHECK(models::with_scheduler_section(doc, v) ==
        "name: x\nscheduler:\n  policy: fifo\n  placement: first-fit\n\n# the jobs\nworkload: {}\n");
  const config::ConfigDocument last = config::load_yaml_string("name: x\nscheduler: {policy: fifo}", "x.yaml");
  CHECK(models::with_scheduler_section(last, v) == "name: x\nscheduler:\n  policy: fifo\n  placement: first-fit\n");
  const config::ConfigDocument none = config::load_yaml_string("name: x\nworkload: {}", "x.yaml");
  CHECK(models::with_scheduler_section(none, v) == "name: x\nworkload: {}\nscheduler:\n  policy: fifo\n  placement: first-fit\n");
  const config::ConfigDocument flow = config::load_yaml_string("{name: x, scheduler: {policy: fifo}}", "x.yaml");
  CHECK_THROWS_AS(models::with_scheduler_section(flow, v), Error);
  // Quoted scalars stay text, nulls null; nested maps and lists keep their shape.
  const config::ConfigDocument nested = config::load_yaml_string(
      "policy: fifo\na: {b: \"1\", c: [x, {d: 2}, [], {}], 'odd key': ~}\ne: []\n", "n.yaml");
  const std::string emitted = models::block_yaml(nested.root, 2);
  CHECK(emitted ==
        "  policy: fifo\n  a:\n    b: \"1\"\n    c:\n      - x\n      -\n        d: 2\n      - []\n      - {}\n"
        "    \"odd key\": ~\n  e: []\n");
  const config::ConfigDocument back = config::load_yaml_string("s:\n" + emitted, "back.yaml");
  const config::ConfigNode& a = *back.root.find("s")->find("a");
  CHECK(a.find("b")->quoted());
  CHECK(a.find("c")->at(1).find("d")->scalar() == "2");
  CHECK(a.find("odd key")->is_null());
}

TEST_CASE("compare -o: overlaid plots in PNG and SVG, one per team for the shares", "[smoke][compare]") {
  test::TempDir dir("compare-plots");
  const std::string scenario = dir.file("spot.yaml");
  test::write_file(scenario, SPOT_SCENARIO);
  const std::string out = dir.file("out");
  const auto r = test::run_gcsim("compare " + scenario + " --policy fifo --policy 'fifo:{placement: first-fit}' -o " + out);
  INFO(r.output);
  REQUIRE(r.code == 0);
  for (const char* name : {"jct_cdf", "wait_cdf", "gpus_allocated", "queue_length", "team_share-research", "team_share-vision"}) {
    INFO(name);
    CHECK(fs::file_size(out + "/" + name + ".png") > 0);
    std::ifstream svg(out + "/" + name + ".svg");
    std::string head(5, '\0');
    svg.read(head.data(), 5);
    CHECK(head == "<?xml");
  }
  CHECK(fs::exists(out + "/compare.txt"));
  CHECK(fs::exists(out + "/compare.json"));
}
