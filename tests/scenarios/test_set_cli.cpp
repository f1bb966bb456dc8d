// `--set PATH=VALUE` on run, validate, estimate and compare (docs/scenario-reference.md,
// "Setting keys from the command line"): the run is the scenario with the setting, its
// trace reruns to the same result, and a bad setting exits 2 naming the argument.
#include <catch2/catch.hpp>

#include <string>

#include "analysis/trace_data.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using test::run_gcsim;

namespace {

using gcsim::test::has;

// Two 8-GPU jobs of 6 h on one node in turn, or side by side on two.
const std::string SCENARIO = test::two_jobs_yaml("s", "2d");

}  // namespace

TEST_CASE("run --set runs the scenario with the setting, and its trace reruns to the same result", "[scenario][cli]") {
  test::TempDir dir("set_cli");
  const std::string file = dir.file("s.yaml");
  test::write_file(file, SCENARIO);

  // One node: b waits 6 h for a; the bill is 12 node-hours at $10.
  REQUIRE(run_gcsim("run " + file + " --no-plots -q -o " + dir.file("one")).code == 0);
  const analysis::TraceData one = analysis::read_trace(dir.file("one/s.h5"));
  CHECK(test::job_named(one, "b").start_s == Approx(6 * 3600.0));

  // Two nodes by --set: both start at 0, and the run ends at 6 h.
  const auto two_run = run_gcsim("run " + file + " --set cluster.node_types[0].count=2 --no-plots -q -o " + dir.file("two"));
  REQUIRE(two_run.code == 0);
  const analysis::TraceData two = analysis::read_trace(dir.file("two/s.h5"));
  CHECK(test::job_named(two, "b").start_s == Approx(0.0));
  CHECK(two.nodes.size() == 2);

  // The trace embeds the scenario as run: a rerun from it alone gives the same jobs table.
  REQUIRE(run_gcsim("rerun " + dir.file("two/s.h5") + " --no-plots -q -o " + dir.file("again")).code == 0);
  const analysis::TraceData again = analysis::read_trace(dir.file("again/s.h5"));
  REQUIRE(again.jobs.size() == two.jobs.size());
  for (std::size_t i = 0; i < two.jobs.size(); ++i) {
    CHECK(again.jobs[i].start_s == two.jobs[i].start_s);
    CHECK(again.jobs[i].end_s == two.jobs[i].end_s);
  }
  CHECK(again.nodes.size() == 2);
}

TEST_CASE("validate, estimate and compare take --set, and a bad one exits 2 at the argument", "[scenario][cli]") {
  test::TempDir dir("set_cli_bad");
  const std::string file = dir.file("s.yaml");
  test::write_file(file, SCENARIO);

  const auto ok = run_gcsim("validate " + file + " --set cluster.node_types[0].count=3 --set 'scheduler={policy: sjf}'");
  CHECK(ok.code == 0);
  CHECK(has(ok.output, "3 nodes, 24 GPUs"));
  CHECK(has(ok.output, "policy sjf"));

  const auto typo = run_gcsim("validate " + file + " --set cluster.node_types[0].cont=3");
  CHECK(typo.code == 2);
  CHECK(has(typo.output, "--set 'cluster.node_types[0].cont=3':1:"));
  CHECK(has(typo.output, "unknown key 'cont'"));

  const auto past = run_gcsim("validate " + file + " --set cluster.node_types[1].count=3");
  CHECK(past.code == 2);
  CHECK(has(past.output, "'cluster.node_types' has 1 item, so [1] is past its end"));

  const auto bad_value = run_gcsim("run " + file + " --set horizon=soon --no-plots -q -o " + dir.file("never"));
  CHECK(bad_value.code == 2);
  CHECK(has(bad_value.output, "--set 'horizon=soon':1:9"));
  CHECK_FALSE(std::filesystem::exists(dir.file("never/s.h5")));

  // compare: every policy on the scenario with the setting (two nodes: nothing waits).
  const auto cmp = run_gcsim("compare " + file + " --set cluster.node_types[0].count=2 --policy fifo --policy sjf --json");
  REQUIRE(cmp.code == 0);
  CHECK(has(cmp.output, "\"wait_mean_s\": {\n          \"mean\": 0,"));
  // Without it, b waits 6 h under either policy: a mean wait of 3 h.
  const auto cmp_one = run_gcsim("compare " + file + " --policy fifo --policy sjf --json");
  REQUIRE(cmp_one.code == 0);
  CHECK(has(cmp_one.output, "\"wait_mean_s\": {\n          \"mean\": 10800,"));

  const auto est = run_gcsim("estimate " + file + " --set cluster.node_types[0].cont=1");
  CHECK(est.code == 2);
  CHECK(has(est.output, "unknown key 'cont'"));
}
