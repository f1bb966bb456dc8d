// Many simulations in one process (models/sweep.hpp): two (and eight) different scenarios
// run on two (eight) threads at once give, each, the trace it gives alone, byte for byte; a run that fails
// (a user error or a broken invariant) ends alone and its outcome names it; the seed and
// replication come from the run, not the scenario.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/trace_data.hpp"
#include "models/sweep.hpp"
#include "sim/check.hpp"
#include "sim/config/config_node.hpp"
#include "sim/errors.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::RunFailure;
using models::RunOutcome;
using models::RunSpec;

namespace {

const std::string EXAMPLES = GCSIM_SOURCE_DIR "/scenarios/examples/";

const models::SchedulerRegistry& schedulers() { return models::builtins().schedulers; }

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A run of an example file, loaded by the run itself against the shared catalogs, with
// the wall clock pinned so that equal runs give equal bytes.
RunSpec example_run(const std::string& file, const std::string& stem, std::optional<std::uint64_t> seed,
                    std::uint64_t replication) {
  RunSpec r;
  r.document = config::load_yaml_file(EXAMPLES + file);
  r.options.seed = seed;
  r.options.replication = replication;
  r.options.fixed_wall_clock_s = 0.0;
  r.output_stem = stem;
  return r;
}

// The same with `from` replaced by `to` in the file's text (another policy), still named as
// the example file so that its relative paths resolve as before.
RunSpec edited_run(const std::string& file, const std::string& from, const std::string& to, const std::string& stem) {
  std::string text = read_bytes(EXAMPLES + file);
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  RunSpec r;
  r.document = config::load_yaml_string(text, EXAMPLES + file);
  r.options.fixed_wall_clock_s = 0.0;
  r.output_stem = stem;
  return r;
}

RunSpec scenario_run(models::Scenario s, const std::string& stem) {
  RunSpec r;
  r.scenario = std::make_shared<const models::Scenario>(std::move(s));
  r.options.fixed_wall_clock_s = 0.0;
  r.output_stem = stem;
  return r;
}

const RunOutcome& require_ok(const RunOutcome& o) {
  INFO(o.error);
  REQUIRE(o.ok());
  REQUIRE(o.summary.has_value());
  return o;
}

}  // namespace

TEST_CASE("two different simulations on two threads at once each give their single-threaded trace",
          "[scenario]") {
  const models::Catalogs& catalogs = test::bundled_catalogs();
  test::TempDir alone("concurrent-alone");
  test::TempDir together("concurrent-together");
  // quickstart: generators and a seed from the run; network_dgx: a fabric, flows and the
  // topology's route caches.
  const auto runs = [&](const test::TempDir& dir) {
    std::vector<RunSpec> v;
    v.push_back(example_run("quickstart.yaml", dir.file("quickstart"), 7, 3));
    v.push_back(example_run("network_dgx.yaml", dir.file("network"), std::nullopt, 0));
    return v;
  };

  std::vector<RunSpec> first = runs(alone);
  std::vector<RunSpec> second;
  second.push_back(std::move(first.back()));
  first.pop_back();
  const std::vector<RunOutcome> a = models::run_many(catalogs, schedulers(), std::move(first), 1);
  const std::vector<RunOutcome> b = models::run_many(catalogs, schedulers(), std::move(second), 1);
  const std::vector<RunOutcome> both = models::run_many(catalogs, schedulers(), runs(together), 2);
  REQUIRE(a.size() == 1);
  REQUIRE(b.size() == 1);
  REQUIRE(both.size() == 2);
  require_ok(a[0]);
  require_ok(b[0]);
  require_ok(both[0]);
  require_ok(both[1]);

  // Outcomes in the order given, named.
  CHECK(both[0].scenario == "quickstart");
  CHECK(both[0].seed == 7);
  CHECK(both[0].replication == 3);
  CHECK(both[1].scenario == b[0].scenario);
  CHECK(both[0].trace_path == together.file("quickstart") + ".h5");

  // The traces, byte for byte (wall_clock_s pinned; nothing else differs between runs).
  const std::string quick_alone = read_bytes(a[0].trace_path);
  const std::string net_alone = read_bytes(b[0].trace_path);
  REQUIRE(quick_alone.size() > 1000);
  REQUIRE(net_alone.size() > 1000);
  CHECK(quick_alone == read_bytes(both[0].trace_path));
  CHECK(net_alone == read_bytes(both[1].trace_path));
  CHECK(both[0].summary->events_handled == a[0].summary->events_handled);
  CHECK(both[1].summary->events_handled == b[0].summary->events_handled);
  CHECK(both[1].summary->total_cost_usd == b[0].summary->total_cost_usd);

  // The seed and replication of the run are the ones in the trace, and they matter.
  const analysis::TraceData t = analysis::read_trace(both[0].trace_path);
  CHECK(t.attrs.seed == 7);
  CHECK(t.attrs.replication == 3);
}

TEST_CASE("eight different simulations on eight threads at once each give their single-threaded trace",
          "[scenario][tsan]") {
  // Eight runs that share nothing but the catalogs and the registry, over every path that
  // keeps a per-run cache (docs/engine.md, "Caches inside const methods"): placement
  // indexes and quota-free policies, conservative backfill's kept reservations,
  // preempting policies, the topology's route caches and the flow solver, the storage
  // tiers, heterogeneous node types and the spot market with its fallback. The
  // ThreadSanitizer build (`make tsan`) runs this test.
  const models::Catalogs& catalogs = test::bundled_catalogs();
  const std::string POLICY = "  policy: fifo\n";
  const auto runs = [&](const test::TempDir& dir) {
    std::vector<RunSpec> v;
    v.push_back(example_run("quickstart.yaml", dir.file("fifo"), 7, 3));
    v.push_back(edited_run("quickstart.yaml", POLICY, "  policy: backfill\n  mode: conservative\n",
                           dir.file("backfill")));
    v.push_back(edited_run("quickstart.yaml", POLICY, "  policy: srtf\n", dir.file("srtf")));
    v.push_back(edited_run("quickstart.yaml", POLICY, "  policy: las\n", dir.file("las")));
    v.push_back(example_run("network_dgx.yaml", dir.file("network"), std::nullopt, 0));
    v.push_back(edited_run("mixed-fleet.yaml", POLICY, "  policy: hetero\n", dir.file("hetero")));
    v.push_back(example_run("storage_contention.yaml", dir.file("storage"), std::nullopt, 0));
    v.push_back(edited_run("fleet-month/spot-p4d.yaml", POLICY, "  policy: spot-fallback\n", dir.file("spot")));
    return v;
  };
  test::TempDir alone("concurrent8-alone");
  test::TempDir together("concurrent8-together");
  const std::vector<RunOutcome> a = models::run_many(catalogs, schedulers(), runs(alone), 1);
  const std::vector<RunOutcome> b = models::run_many(catalogs, schedulers(), runs(together), 8);
  REQUIRE(a.size() == 8);
  REQUIRE(b.size() == 8);
  std::set<std::string> traces;
  for (std::size_t i = 0; i < 8; ++i) {
    INFO("run " << i);
    require_ok(a[i]);
    require_ok(b[i]);
    CHECK(a[i].scenario == b[i].scenario);
    const std::string bytes = read_bytes(a[i].trace_path);
    REQUIRE(bytes.size() > 1000);
    CHECK(bytes == read_bytes(b[i].trace_path));
    CHECK(a[i].summary->events_handled == b[i].summary->events_handled);
    CHECK(a[i].summary->total_cost_usd == b[i].summary->total_cost_usd);
    traces.insert(bytes);
  }
  CHECK(traces.size() == 8);  // eight different runs, not one run eight times
  // The edits took: the same jobs under another policy take another course.
  CHECK(analysis::read_trace(b[0].trace_path).attrs.seed == 7);
  CHECK(a[0].summary->events_handled != a[2].summary->events_handled);
  CHECK(a[0].summary->events_handled != a[3].summary->events_handled);
}

TEST_CASE("a seed sweep shares one loaded scenario, the seed is the run's", "[scenario]") {
  const models::Catalogs& catalogs = test::bundled_catalogs();
  test::TempDir dir("concurrent-seeds");
  const auto quick = std::make_shared<const models::Scenario>(
      models::load_scenario(config::load_yaml_file(EXAMPLES + "quickstart.yaml"), catalogs, schedulers()));
  std::vector<RunSpec> runs;
  for (const std::uint64_t seed : {1, 2, 42}) {
    RunSpec r;
    r.scenario = quick;
    r.options.seed = seed;
    r.options.fixed_wall_clock_s = 0.0;
    r.output_stem = models::output_stem(dir.path().string(), *quick, r.options);
    runs.push_back(std::move(r));
  }
  RunSpec defaulted;  // no seed: the scenario's (42)
  defaulted.scenario = quick;
  defaulted.options.fixed_wall_clock_s = 0.0;
  defaulted.options.replication = 0;
  defaulted.output_stem = dir.file("default");
  runs.push_back(std::move(defaulted));
  const auto out = models::run_many(catalogs, schedulers(), std::move(runs), 2);
  REQUIRE(out.size() == 4);
  for (const auto& o : out) require_ok(o);
  CHECK(out[0].trace_path == dir.file("quickstart-seed1-rep0.h5"));
  CHECK(out[3].seed == 42);
  CHECK(read_bytes(out[0].trace_path) != read_bytes(out[1].trace_path));
  // Seed 42 given and seed 42 by default are the same run (the file differs only in name).
  CHECK(read_bytes(out[2].trace_path) == read_bytes(out[3].trace_path));
  CHECK(quick->seed == 42);  // the shared scenario is not touched
}

TEST_CASE("a failing run ends alone and its outcome names the scenario", "[scenario]") {
  const models::Catalogs& catalogs = test::bundled_catalogs();
  test::TempDir alone("concurrent-fail-alone");
  test::TempDir dir("concurrent-fail");

  const models::Scenario good =
      models::load_scenario(config::load_yaml_file(EXAMPLES + "quickstart.yaml"), catalogs, schedulers());
  // A broken invariant deep in a run: a generator whose exponential mean is negative
  // (the loader refuses that; a hand-built scenario can carry it) makes the random
  // stream's check throw InternalError.
  models::Scenario broken = good;
  broken.name = "broken";
  broken.workload.generators.at(0).arrival.kind = models::Distribution::Kind::Exponential;
  broken.workload.generators.at(0).arrival.p1 = -1.0;
  // A user error found by the run: an unknown policy in a hand-built scenario.
  models::Scenario unknown_policy = good;
  unknown_policy.name = "typo";
  unknown_policy.scheduler.policy = "fifoo";

  const RunOutcome reference = models::run_many(catalogs, schedulers(), [&] {
    std::vector<RunSpec> v;
    v.push_back(scenario_run(good, alone.file("good")));
    return v;
  }(), 1).at(0);
  require_ok(reference);

  std::vector<RunSpec> runs;
  runs.push_back(scenario_run(broken, dir.file("broken")));
  runs.push_back(scenario_run(good, dir.file("good")));
  runs.push_back(scenario_run(unknown_policy, dir.file("typo")));
  RunSpec bad_file;  // a user error found by the loader: the scenario has no name yet
  bad_file.document = config::load_yaml_string("name: bad\nseed: 1\nclustr: {}\n", "bad.yaml");
  bad_file.output_stem = dir.file("bad");
  runs.push_back(std::move(bad_file));
  const auto out = models::run_many(catalogs, schedulers(), std::move(runs), 2);
  REQUIRE(out.size() == 4);

  CHECK(out[0].failure == RunFailure::Internal);
  CHECK_THAT(out[0].error, Catch::Matchers::StartsWith("scenario 'broken' (seed 42, replication 0): "));
  CHECK_THAT(out[0].error, Catch::Matchers::Contains("exponential"));
  CHECK_THROWS_AS(std::rethrow_exception(out[0].exception), InternalError);
  CHECK_FALSE(out[0].summary.has_value());
  CHECK(out[0].trace_path.empty());

  require_ok(out[1]);
  CHECK(read_bytes(out[1].trace_path) == read_bytes(reference.trace_path));

  CHECK(out[2].failure == RunFailure::User);
  CHECK_THAT(out[2].error, Catch::Matchers::StartsWith("scenario 'typo' (seed 42, replication 0): "));
  CHECK_THAT(out[2].error, Catch::Matchers::Contains("fifoo"));

  CHECK(out[3].failure == RunFailure::User);
  CHECK_THAT(out[3].error, Catch::Matchers::StartsWith("scenario file 'bad.yaml': "));
  CHECK_THROWS_AS(std::rethrow_exception(out[3].exception), ConfigError);

  // The failed runs left no file, temporary or final: only the good trace is there.
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) files.push_back(e.path().filename().string());
  CHECK(files == std::vector<std::string>{"good.h5"});
}

TEST_CASE("run_many refuses malformed specs and shared output names before running", "[unit]") {
  const models::Catalogs& catalogs = test::bundled_catalogs();
  std::vector<RunSpec> none(1);
  CHECK_THROWS_AS(models::run_many(catalogs, schedulers(), std::move(none), 1), Error);
  const auto s = std::make_shared<const models::Scenario>(
      models::load_scenario(config::load_yaml_file(EXAMPLES + "quickstart.yaml"), catalogs, schedulers()));
  std::vector<RunSpec> same(2);
  for (auto& r : same) {
    r.scenario = s;
    r.output_stem = "/nonexistent/x";
  }
  CHECK_THROWS_WITH(models::run_many(catalogs, schedulers(), std::move(same), 2),
                    Catch::Matchers::Contains("two runs write"));
  CHECK(models::run_many(catalogs, schedulers(), {}, 4).empty());
  // A copy in memory is read by read_in_memory and made by make_copy: one without the other
  // is refused.
  std::vector<RunSpec> half(1);
  half[0].scenario = s;
  half[0].read_in_memory = [](gcsim::trace::TraceFile&, const std::string&) {};
  CHECK_THROWS_WITH(models::run_many(catalogs, schedulers(), std::move(half), 1),
                    Catch::Matchers::Contains("both or neither of read_in_memory and make_copy"));
}

TEST_CASE("a run whose trace is encoded on a thread of its own writes the trace it writes inline", "[scenario]") {
  const models::Catalogs& catalogs = test::bundled_catalogs();
  test::TempDir inline_dir("encoding-inline");
  test::TempDir thread_dir("encoding-thread");
  // network_dgx: flows and a fabric, many tables; quickstart: generators, spot, checkpoints.
  for (const std::string file : {"quickstart.yaml", "network_dgx.yaml"}) {
    std::vector<RunSpec> a;
    a.push_back(example_run(file, inline_dir.file("run"), 5, 0));
    std::vector<RunSpec> b;
    b.push_back(example_run(file, thread_dir.file("run"), 5, 0));
    b.back().options.trace_encoding_thread = true;
    const auto x = models::run_many(catalogs, schedulers(), std::move(a), 1);
    const auto y = models::run_many(catalogs, schedulers(), std::move(b), 1);
    require_ok(x.at(0));
    require_ok(y.at(0));
    const std::string bytes = read_bytes(x[0].trace_path);
    CHECK(bytes.size() > 1000);
    CHECK(bytes == read_bytes(y[0].trace_path));
  }
}
