// `gcsim compare`: every strategy runs on the same seed (the same jobs, the same spot
// interruptions), bad --policy arguments stop it before anything runs or is written, its
// JSON parses, the thread count changes nothing, and each variant's trace embeds a scenario
// whose scheduler section is the variant's. Then issue 27's items 9-13 and 21 and issue
// 28's item 8: anchors across the replaced section, errors of the variant's nodes at their
// place in the argument, bounded and unique file names, no folder or stale table left
// behind by a signal or a failed run, and @FILE labels and errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "analysis/trace_data.hpp"
#include "models/config/resource_estimate.hpp"
#include "models/config/scenario_loader.hpp"
#include "models/config/scheduler_variant.hpp"
#include "models/register_builtins.hpp"
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
  // 70 jobs, 3 of them submitted after the horizon: counted, in no table (schema 6).
  REQUIRE(a.jobs.size() == 67);
  CHECK(a.attrs.jobs_after_horizon == 3);
  CHECK(b.attrs.jobs_after_horizon == 3);
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
      // The scheduler section as one flow map, as a scenario writes it: the forms --policy takes.
      {"{policy: backfill, mode: conservative}",
       "--policy '{policy: backfill, mode: conservative}':1:1: error[wrong-type]: scheduler.policy: the policy comes first, "
       "then its keys: NAME:{key: value, ...} (e.g. 'backfill:{mode: conservative}'), or the whole scheduler map in a "
       "file: --policy @FILE"},
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
assert [x["label"] for x in v] == ["fifo", "first-fit"], v  # an @FILE is labelled by its stem
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

TEST_CASE("compare: the variant's section replaces the scenario's in its tree, or is added", "[unit][compare]") {
  const models::SchedulerRegistry& registry = models::builtins().schedulers;
  const std::string argument = "fifo:{placement: first-fit}";
  const models::SchedulerVariant v = models::read_scheduler_variant(argument, registry);
  CHECK(v.spec.policy == "fifo");
  CHECK(v.label == argument);
  CHECK(v.yaml == "  policy: fifo\n  placement: first-fit\n");
  const std::string text = "name: x\nscheduler:\n  policy: fifo   # the default\n\n# the jobs\nworkload: {}\n";
  const config::ConfigDocument doc = config::load_yaml_string(text, "x.yaml");
  const config::ConfigDocument with = models::with_scheduler_section(doc, v);
  CHECK(with.file == "x.yaml");
  CHECK(with.text == "name: x\nscheduler:\n  policy: fifo\n  placement: first-fit\nworkload: {}\n");
  // The scenario's nodes keep their places in the file, the variant's theirs in the argument.
  const config::ConfigNode& workload = *with.root.find("workload");
  CHECK(workload.mark().file == "x.yaml");
  CHECK(workload.mark().line == 6);
  CHECK(workload.path() == "workload");
  const config::ConfigNode& placement = *with.root.find("scheduler")->find("placement");
  CHECK(placement.mark().file == "--policy '" + argument + "'");
  CHECK(placement.mark().line == 1);
  CHECK(placement.mark().column == 18);  // first-fit
  CHECK(placement.path() == "scheduler.placement");
  const config::ConfigDocument last = config::load_yaml_string("name: x\nscheduler: {policy: fifo}", "x.yaml");
  CHECK(models::with_scheduler_section(last, v).text == "name: x\nscheduler:\n  policy: fifo\n  placement: first-fit\n");
  const config::ConfigDocument none = config::load_yaml_string("name: x\nworkload: {}", "x.yaml");
  CHECK(models::with_scheduler_section(none, v).text ==
        "name: x\nworkload: {}\nscheduler:\n  policy: fifo\n  placement: first-fit\n");
  // A top level written as one flow map is a scenario like any other.
  const config::ConfigDocument flow = config::load_yaml_string("{name: x, scheduler: {policy: fifo}}", "x.yaml");
  CHECK(models::with_scheduler_section(flow, v).text == "name: x\nscheduler:\n  policy: fifo\n  placement: first-fit\n");
  // Anchors defined in the section that is replaced and used after it are written out.
  const config::ConfigDocument anchors =
      config::load_yaml_string("a: &x 1\nscheduler: {policy: fifo, days: &y weekdays}\nb: [*y, *x]\n", "x.yaml");
  const config::ConfigDocument replaced = models::with_scheduler_section(anchors, v);
  CHECK(replaced.text == "a: 1\nscheduler:\n  policy: fifo\n  placement: first-fit\nb:\n  - weekdays\n  - 1\n");
  CHECK(config::load_yaml_string(replaced.text, "again.yaml").root.find("b")->at(0).scalar() == "weekdays");
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

namespace {

// Three 8-GPU nodes (24 GPUs) and three written-out jobs in a CSV table, one of team vision
// asking for 16 GPUs: under a cap of 50% for vision (12 GPUs) it could never start.
const char* QUOTA_SCENARIO = R"(name: quota-check
seed: 3
horizon: 1d
cluster:
  node_types:
    - name: a100
      gpu: A100-40GB-SXM
      gpus: 8
      cpu_cores: 48
      memory: 1152GiB
      count: 3
      price: {on_demand_per_hour: 32.77}
scheduler:
  policy: fifo
workload:
  jobs: {file: jobs.csv}
)";
const char* QUOTA_JOBS = "name,submit,gpus,duration,team\na,0s,4,1h,research\nb,10m,16,2h,vision\nc,20m,2,30m,research\n";
const char* VISION_CAPPED = "fifo:{quotas: {windows: [{teams: {vision: {max: 50%}}}]}}";

}  // namespace

TEST_CASE("compare: a variant's section checked over the loaded scenario, as loading it whole checks it",
          "[unit][compare]") {
  test::TempDir dir("compare-section");
  const std::string scenario = dir.file("quota.yaml");
  test::write_file(scenario, QUOTA_SCENARIO);
  test::write_file(dir.file("jobs.csv"), QUOTA_JOBS);
  const models::SchedulerRegistry& registry = models::builtins().schedulers;
  const models::Catalogs& catalogs = test::bundled_catalogs();
  const config::ConfigDocument doc = config::load_yaml_file(scenario);
  const models::Scenario base = models::load_scenario(doc, catalogs, registry);
  struct Case {
    std::string policy;
    std::optional<ErrorCode> error;  // what loading the variant whole throws
  };
  const std::vector<Case> cases{
      {"fifo", {}},
      {"sjf:{blocking: skip}", {}},
      {"las:{interval: 1m}", {}},  // rounds: a larger estimate than fifo's
      {"fifo:{quotas: {windows: [{teams: {vision: {max: 70%}}}]}}", {}},  // 16 of 24 GPUs: room
      {VISION_CAPPED, ErrorCode::Infeasible},
      {"fifo:{quotas: {windows: [{teams: {nobody: 50%}}]}}", ErrorCode::UnknownName},
      {"fair-share:{weights: {research: 1, nobody: 2}}", ErrorCode::UnknownName},
  };
  const double fifo_events = models::estimate_resources(base).events;
  for (const Case& c : cases) {
    INFO(c.policy);
    const models::SchedulerVariant v = models::read_scheduler_variant(c.policy, registry);
    const config::ConfigDocument with = models::with_scheduler_section(doc, v);
    std::optional<models::Scenario> whole;
    std::optional<ConfigError> whole_error;
    try {
      whole.emplace(models::load_scenario(with, catalogs, registry));
    } catch (const ConfigError& e) {
      whole_error.emplace(e);
    }
    std::optional<models::SchedulerSpec> section;
    std::optional<ConfigError> section_error;
    try {
      section.emplace(models::load_scheduler_section(base, with, catalogs, registry));
    } catch (const ConfigError& e) {
      section_error.emplace(e);
    }
    REQUIRE(whole_error.has_value() == c.error.has_value());
    REQUIRE(section_error.has_value() == c.error.has_value());
    if (c.error) {
      CHECK(whole_error->code() == *c.error);
      CHECK(section_error->code() == whole_error->code());
      CHECK(std::string(section_error->what()) == whole_error->what());  // file:line:column, key path, text
      continue;
    }
    CHECK(section->policy == whole->scheduler.policy);
    CHECK(section->quotas.has_value() == whole->scheduler.quotas.has_value());
    CHECK(models::estimate_resources(base, *section).events == models::estimate_resources(*whole).events);
    CHECK(with.text == whole->source_text);  // what the run's trace embeds
    if (c.policy.rfind("las", 0) == 0) CHECK(models::estimate_resources(base, *section).events > fifo_events);
  }
}

TEST_CASE("compare: a variant whose quotas a job can never fit names the job's cell, exit 2", "[scenario][compare]") {
  test::TempDir dir("compare-quota");
  const std::string scenario = dir.file("quota.yaml");
  test::write_file(scenario, QUOTA_SCENARIO);
  test::write_file(dir.file("jobs.csv"), QUOTA_JOBS);
  const std::string out = dir.file("out");
  const auto r = test::run_gcsim("compare " + scenario + " --policy fifo --policy " + quoted(VISION_CAPPED) + " -o " + out);
  INFO(r.output);
  CHECK(r.code == 2);
  // Row 3 of the CSV, job b; its gpus cell "16" starts at column 7 (after "b,10m,"). 50% of 24 GPUs is 12.
  CHECK(r.output.find("jobs.csv:3:7: error[infeasible]: workload.jobs[1].gpus: the job needs 16 GPUs, but team "
                      "'vision' may never hold that many: scheduler.quotas caps it at 12 GPUs") != std::string::npos);
  CHECK(!fs::exists(out));
  CHECK(test::run_gcsim("compare " + scenario + " --policy fifo --policy 'fifo:{quotas: {windows: [{teams: {vision: "
                        "{max: 70%}}}]}}'")
            .code == 0);
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

namespace {

// One 8-GPU node and 20 jobs of `team` on weekdays; with `anchor`, the scheduler section
// defines the days as an anchor that the workload uses (issue 27, item 9).
std::string team_scenario(const std::string& team, bool anchor = false) {
  return R"(name: teams
seed: 3
horizon: 1d
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 10}}
scheduler:
  policy: fifo
  quotas:
    windows:
      - {name: office, days: )" +
         std::string(anchor ? "&office " : "") + R"(weekdays, hours: 09:00-18:00, teams: {)" + team + R"(: 50%}}
workload:
  generators:
    - name: g
      team: )" + team + R"(
      count: 20
      arrival: {dist: exponential, mean: 30m}
      active: {days: )" +
         std::string(anchor ? "*office" : "weekdays") + R"(}
      gpus: {choice: [1, 2, 4]}
      duration: 1h
)";
}

// The names of the files in `dir`.
std::vector<std::string> file_names(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("compare: a scheduler section that defines an anchor the scenario uses later", "[scenario][compare]") {
  test::TempDir dir("compare-anchor");
  const std::string scenario = dir.file("anchor.yaml");
  test::write_file(scenario, team_scenario("research", true));
  REQUIRE(test::run_gcsim("validate " + scenario).code == 0);
  const std::string out = dir.file("out");
  const auto r = test::run_gcsim("compare " + scenario + " --policy fifo --policy 'sjf:{blocking: skip}' -o " + out +
                                 " --no-plots");
  INFO(r.output);
  REQUIRE(r.code == 0);
  // The trace embeds the scenario with the anchor written out, and reruns as it ran.
  const analysis::TraceData t = analysis::read_trace(out + "/sjf__blocking__skip_-r0.h5");
  CHECK(t.attrs.scenario_yaml.find("*office") == std::string::npos);
  CHECK(t.attrs.scenario_yaml.find("active:\n        days: weekdays\n") != std::string::npos);
  const auto rerun = test::run_gcsim("rerun " + out + "/sjf__blocking__skip_-r0.h5 --no-plots -q -o " + dir.file("rerun"));
  INFO(rerun.output);
  REQUIRE(rerun.code == 0);
  const analysis::TraceData again = analysis::read_trace(dir.file("rerun") + "/sjf__blocking__skip_-r0.h5");  // rerun keeps the trace's name
  REQUIRE(again.jobs.size() == t.jobs.size());
  for (std::size_t i = 0; i < t.jobs.size(); ++i) CHECK(same(again.jobs[i].start_s, t.jobs[i].start_s));
}

TEST_CASE("compare: a --policy key that names what the scenario lacks is reported in the argument", "[scenario][compare]") {
  test::TempDir dir("compare-teams");
  const std::string scenario = dir.file("spot.yaml");
  test::write_file(scenario, SPOT_SCENARIO);
  struct Case {
    std::string policy;
    std::string message;
  };
  const std::vector<Case> cases{
      // At the team's value, columns 43 and 31 of the arguments, as in a scenario file.
      {"fifo:{quotas: {windows: [{teams: {nobody: 50%}}]}}",
       "--policy 'fifo:{quotas: {windows: [{teams: {nobody: 50%}}]}}':1:43: error[unknown-name]: "
       "scheduler.quotas.windows[0].teams.nobody: no job names team 'nobody'"},
      {"fair-share:{weights: {nobody: 2}}",
       "--policy 'fair-share:{weights: {nobody: 2}}':1:31: error[unknown-name]: scheduler.weights.nobody: no job names "
       "team 'nobody'"},
  };
  for (const Case& c : cases) {
    const auto r = test::run_gcsim("compare " + scenario + " --policy fifo --policy " + quoted(c.policy) + " -o " +
                                   dir.file("out"));
    INFO(r.output);
    CHECK(r.code == 2);
    CHECK(r.output.find(c.message) != std::string::npos);
    CHECK(r.output.find("spot.yaml") == std::string::npos);
    CHECK(!fs::exists(dir.file("out")));
  }
  // In an @FILE: its line and column.
  test::write_file(dir.file("weights.yaml"), "policy: fair-share\nweights:\n  research: 1\n  nobody: 2\n");
  const auto r = test::run_gcsim("compare " + scenario + " --policy @" + dir.file("weights.yaml"));
  INFO(r.output);
  CHECK(r.code == 2);
  CHECK(r.output.find("weights.yaml:4:11: error[unknown-name]: scheduler.weights.nobody") != std::string::npos);
}

TEST_CASE("compare: long labels and team names make bounded file names, checked before anything runs",
          "[scenario][compare]") {
  test::TempDir dir("compare-long");
  // A 300-byte inline label (blanks in a flow map are allowed): its trace's name is cut.
  const std::string scenario = dir.file("short.yaml");
  test::write_file(scenario, team_scenario("research"));
  const std::string long_policy = "fifo:{placement:" + std::string(280, ' ') + "first-fit}";
  const std::string labelled = dir.file("labelled");
  const auto r = test::run_gcsim("compare " + scenario + " --policy fifo --policy " + quoted(long_policy) + " -o " +
                                 labelled + " --no-plots");
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(fs::exists(labelled + "/compare.txt"));
  const std::string cut = "fifo__placement_" + std::string(100 - 16, '_');
  CHECK(fs::exists(labelled + "/" + cut + "-r0.h5"));
  // A valid 250-byte team name: its plot's name is cut, and the table is written.
  const std::string team(250, 't');
  const std::string long_team = dir.file("long.yaml");
  test::write_file(long_team, team_scenario(team));
  const std::string plotted = dir.file("plotted");
  const auto p = test::run_gcsim("compare " + long_team + " --policy fifo -o " + plotted);
  INFO(p.output);
  REQUIRE(p.code == 0);
  CHECK(fs::exists(plotted + "/compare.txt"));
  CHECK(fs::exists(plotted + "/team_share-" + std::string(100, 't') + ".png"));
  for (const std::string& folder : {labelled, plotted})
    for (const std::string& name : file_names(folder)) CHECK(name.size() <= 120);
  // A folder whose path cannot hold the names: refused before anything is made or run.
  std::string deep = dir.file("deep");
  while (deep.size() < 4050) deep += "/" + std::string(200, 'd');
  const auto refused = test::run_gcsim("compare " + scenario + " --policy fifo -o " + deep);
  INFO(refused.output);
  CHECK(refused.code == 2);
  CHECK(refused.output.find("error[out-of-range]") != std::string::npos);
  CHECK(!fs::exists(dir.file("deep")));
}

TEST_CASE("compare: team plots whose names clash as file names get one file each", "[smoke][compare]") {
  test::TempDir dir("compare-clash");
  std::string text = team_scenario("x");
  // Three teams whose names differ only in characters a file name cannot hold.
  const std::string generators = text.substr(text.find("    - name: g\n"));
  text = text.substr(0, text.find("    - name: g\n"));
  int k = 0;
  for (const char* team : {"'ml team'", "'ml_team'", "'ml?team'"}) {
    std::string g = generators;
    g.replace(g.find("team: x"), 7, std::string("team: ") + team);
    g.replace(g.find("name: g"), 7, "name: g" + std::to_string(++k));
    text += g;
  }
  text.replace(text.find("teams: {x: 50%}"), 15, "teams: {'ml_team': 50%}");
  const std::string scenario = dir.file("clash.yaml");
  test::write_file(scenario, text);
  const std::string out = dir.file("out");
  const auto r = test::run_gcsim("compare " + scenario + " --policy fifo --policy sjf -o " + out);
  INFO(r.output);
  REQUIRE(r.code == 0);
  // ml_team keeps its own name; the others, in team order ("ml team" < "ml?team"), -2 and -3.
  for (const char* name : {"team_share-ml_team", "team_share-ml_team-2", "team_share-ml_team-3"}) {
    INFO(name);
    CHECK(fs::exists(out + "/" + name + ".png"));
    CHECK(fs::exists(out + "/" + name + ".svg"));
  }
}

TEST_CASE("compare --policy @FILE: labelled by the file's label or stem, bad files named", "[scenario][compare]") {
  test::TempDir dir("compare-file-label");
  const std::string scenario = dir.file("spot.yaml");
  test::write_file(scenario, SPOT_SCENARIO);
  fs::create_directories(dir.file("a/policies"));
  fs::create_directories(dir.file("b"));
  test::write_file(dir.file("a/policies/first-fit.yaml"), "scheduler:\n  policy: fifo\n  placement: first-fit\n");
  test::write_file(dir.file("b/first-fit.yaml"), "{policy: fifo, placement: first-fit}\n");
  test::write_file(dir.file("a/labelled.yaml"), "label: skip ahead\nscheduler: {policy: fifo, blocking: skip}\n");
  test::write_file(dir.file("a/bare-labelled.yaml"), "policy: sjf\nlabel: shortest\n");
  const std::string out = dir.file("out");
  const auto r = test::run_gcsim("compare " + scenario + " --policy @" + dir.file("a/policies/first-fit.yaml") +
                                 " --policy @" + dir.file("a/labelled.yaml") + " --policy @" +
                                 dir.file("a/bare-labelled.yaml") + " -o " + out + " --no-plots --json");
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(r.output.find("\"label\": \"first-fit\"") != std::string::npos);
  CHECK(r.output.find("\"label\": \"skip ahead\"") != std::string::npos);
  CHECK(r.output.find("\"label\": \"shortest\"") != std::string::npos);
  CHECK(r.output.find("\"label\": \"@") == std::string::npos);  // no path in a label
  CHECK(file_names(out) == std::vector<std::string>{"compare.json", "compare.txt", "first-fit-r0.h5", "shortest-r0.h5",
                                                    "skip_ahead-r0.h5"});
  const std::string table = read_text(out + "/compare.txt");
  CHECK(table.find("first-fit") != std::string::npos);
  CHECK(table.find("skip ahead") != std::string::npos);
  // Two files with one stem: their columns are their arguments.
  const auto two = test::run_gcsim("compare " + scenario + " --policy @" + dir.file("a/policies/first-fit.yaml") +
                                   " --policy @" + dir.file("b/first-fit.yaml") + " --json");
  INFO(two.output);
  REQUIRE(two.code == 0);
  CHECK(two.output.find("\"label\": \"@" + dir.file("b/first-fit.yaml") + "\"") != std::string::npos);

  struct Case {
    std::string policy;
    std::string message;
  };
  test::write_file(dir.file("long-label.yaml"), "label: " + std::string(65, 'x') + "\npolicy: fifo\n");
  test::write_file(dir.file("stray.yaml"), "scheduler: {policy: fifo}\nlabl: x\n");
  const std::vector<Case> cases{
      {"@", "--policy '@':1:2: error[file-not-found]: --policy: name the policy file after '@'"},
      {"@" + dir.file("missing.yaml"), dir.file("missing.yaml") + ": error[file-not-found]: policy file: no such file"},
      {"@" + dir.path().string(), ": error[file-not-found]: policy file: is a directory"},
      {"@" + dir.file("long-label.yaml"), "long-label.yaml:1:8: error[out-of-range]: label:"},
      {"@" + dir.file("stray.yaml"), "stray.yaml:2:1: error[unknown-key]: labl:"},
  };
  for (const Case& c : cases) {
    const auto bad = test::run_gcsim("compare " + scenario + " --policy " + quoted(c.policy) + " -o " + out + "2");
    INFO(bad.output);
    CHECK(bad.code == 2);
    CHECK(bad.output.find(c.message) != std::string::npos);
    CHECK(bad.output.find("scenario:") == std::string::npos);
    CHECK(!fs::exists(out + "2"));
  }
}

TEST_CASE("compare: SIGTERM without -o leaves nothing in the temporary folder", "[scenario][compare]") {
  test::TempDir dir("compare-signal");
  const std::string scenario = dir.file("spot.yaml");
  test::write_file(scenario, SPOT_SCENARIO);
  const std::string scratch = dir.file("tmp");
  fs::create_directories(scratch);
  // Without -o the traces stay in memory: nothing is written, before the signal or after.
  // Many runs one at a time; the signal comes mid-way.
  const std::string script = "TMPDIR=" + scratch + " " + GCSIM_BINARY_DIR + "/cli/gcsim compare " + scenario +
                             " --policy fifo --replications 5000 -j 1 >/dev/null 2>&1 &\n"
                             "pid=$!\n"
                             "sleep 0.5\n"
                             "kill -TERM $pid\n"
                             "wait $pid\n"
                             "echo \"status $?\"\n";
  test::write_file(dir.file("signal.sh"), script);
  const auto r = test::run_command("sh " + dir.file("signal.sh"));
  INFO(r.output);
  REQUIRE(r.output.find("status 143") != std::string::npos);  // ended by the signal, not done
  CHECK(file_names(scratch).empty());
}

TEST_CASE("compare -o: a run that fails leaves DIR as it was, its table beside its traces", "[scenario][compare]") {
  test::TempDir dir("compare-fail");
  const std::string scenario = dir.file("busy.yaml");
  // Many preemptions under las every minute make its trace larger than fifo's.
  test::write_file(scenario, R"(name: busy
seed: 3
horizon: 3d
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 2, price: {on_demand_per_hour: 10}}
workload:
  generators:
    - name: r
      team: research
      count: 300
      arrival: {dist: exponential, mean: 5m}
      gpus: {choice: [1, 2, 4]}
      duration: {dist: lognormal, median: 1h, sigma: 0.8, max: 6h}
      checkpoint: {every: 10m, write_time: 5s, restore_time: 5s}
)");
  const std::string out = dir.file("out");
  const std::string args = "compare " + scenario + " --policy fifo --policy 'las:{interval: 1m}' -j 1 --no-plots -o " + out;
  REQUIRE(test::run_gcsim(args).code == 0);
  const std::vector<std::string> before = file_names(out);
  REQUIRE(before == std::vector<std::string>{"compare.json", "compare.txt", "fifo-r0.h5", "las__interval__1m_-r0.h5"});
  std::vector<std::string> bytes;
  for (const std::string& f : before) bytes.push_back(read_text(out + "/" + f));
  const std::uintmax_t small = fs::file_size(out + "/fifo-r0.h5");
  const std::uintmax_t large = fs::file_size(out + "/las__interval__1m_-r0.h5");
  REQUIRE(large > small + 4096);
  // Again, with a file size limit between the two: fifo's trace is written whole, las's
  // fails (EFBIG, its signal ignored).
  const std::uintmax_t limit_kib = (small + large) / 2 / 1024;
  // bash: its ulimit -f counts KiB (dash's counts 512-byte blocks).
  const auto r = test::run_command("bash -c \"trap '' XFSZ; ulimit -f " + std::to_string(limit_kib) + "; exec " +
                                   GCSIM_BINARY_DIR + "/cli/gcsim " + args + "\"");
  INFO(r.output);
  CHECK(r.code == 2);  // an error, not a crash in HDF5's exit handler (was 139)
  CHECK(r.output.find("--policy 'las:{interval: 1m}', replication 0") != std::string::npos);
  CHECK(r.output.find("File too large") != std::string::npos);
  CHECK(r.output.find("buf = 0x") == std::string::npos);  // not HDF5's dump of its arguments
  // Nothing moved in: the old table still describes the old traces beside it.
  CHECK(file_names(out) == before);
  for (std::size_t i = 0; i < before.size(); ++i) {
    INFO(before[i]);
    CHECK((read_text(out + "/" + before[i]) == bytes[i]));  // (not printed: HDF5 bytes)
  }
}
