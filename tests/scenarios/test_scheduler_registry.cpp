// The scheduler registry: policies with their own keys, parsed and validated by their
// entries; placement strategies chosen by name; a registry of a test's own that the
// process-wide builtins never see; duplicates refused.
#include <catch2/catch.hpp>

#include <string>

#include "models/scheduler/fifo.hpp"
#include "models/scheduler/scheduler_registry.hpp"
#include "models/simulation.hpp"
#include "sim/check.hpp"
#include "sim/config/config_node.hpp"
#include "sim/registry.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

// Two 4-GPU nodes. A (4 GPUs, 0-1h) takes node 0 and B (2 GPUs, 0-10h) then node 1. From
// 1h node 0 has 4 free and node 1 has 2. C (2 GPUs, 1h) and D (4 GPUs, 1h) arrive at 2h,
// C first: best-fit puts C on node 1 (the exact fit) and D on node 0, both at 2h;
// first-fit puts C on node 0, leaving 2 + 2 free, so D waits for C: 3h to 4h.
std::string two_nodes(const std::string& scheduler_line) {
  return "name: placement\n"
         "seed: 1\n"
         "horizon: 20h\n"
         "cluster:\n"
         "  node_types:\n"
         "    - {name: n4, gpu: A100-40GB-SXM, gpus: 4, count: 2, price: {on_demand_per_hour: 8}}\n" +
         scheduler_line +
         "workload:\n"
         "  jobs:\n"
         "    - {name: A, submit: 0h, gpus: 4, duration: 1h}\n"
         "    - {name: B, submit: 0h, gpus: 2, duration: 10h}\n"
         "    - {name: C, submit: 2h, gpus: 2, duration: 1h}\n"
         "    - {name: D, submit: 2h, gpus: 4, duration: 1h}\n";
}

ConfigError load_error(const std::string& yaml) {
  INFO("scenario:\n" << yaml);
  return test::config_error([&] { test::scenario_from_yaml(yaml, "s.yaml"); });
}

// A policy only this file registers: strict last-in first-out over the `depth` newest
// waiting jobs (the others wait until they are among the newest), best-fit placement.
struct NewestFirstParams {
  int depth = 1;
};

class NewestFirst final : public test::SpanPolicy {
 public:
  explicit NewestFirst(int depth) : depth_(depth) {}
  void decide(const models::ClusterView& cluster, std::span<const models::QueuedJob> queue,
              models::Decisions& out) override {
    placement_.reset(cluster);
    const std::size_t n = queue.size();
    for (std::size_t k = 0; k < n && k < static_cast<std::size_t>(depth_); ++k) {
      const auto i = static_cast<std::uint32_t>(n - 1 - k);
      if (!placement_.try_place(queue[i], out)) break;
    }
  }

 private:
  int depth_;
  models::BestFitPlacement placement_;
};

constexpr config::KeySpec NEWEST_FIRST_KEYS[] = {
    {.name = "depth", .type = "integer", .default_value = "`1`", .range = "1..100",
     .help = "how many of the newest waiting jobs a pass considers"},
};

models::PolicyDef<NewestFirstParams> newest_first_policy() {
  return {
      .name = "test-newest-first",
      .description = "last in, first out (a test's own policy)",
      .keys = NEWEST_FIRST_KEYS,
      .parse =
          [](config::MapReader& map, const models::SchedulerRegistry&, const models::PolicyContext&) {
            NewestFirstParams p;
            if (const config::ConfigNode* n = map.optional("depth")) p.depth = static_cast<int>(config::read_int(*n, 1, 100));
            return p;
          },
      .make =
          [](const NewestFirstParams& p, const models::SchedulerRegistry&) -> std::unique_ptr<models::Scheduler> {
            return std::make_unique<NewestFirst>(p.depth);
          },
  };
}

}  // namespace

TEST_CASE("a name registered twice is refused", "[unit][scheduler]") {
  models::Builtins b;
  models::register_builtins(b);
  CHECK_THROWS_AS(b.schedulers.add_policy(models::fifo_policy()), InternalError);
  CHECK_THROWS_AS(b.schedulers.add_placement("best-fit", "again", [] { return std::make_unique<models::FirstFitPlacement>(); }),
                  InternalError);
  // The generic registry refuses too, and keeps the first entry.
  sim::Registry<int> r;
  r.add("one", "first", [] { return 1; });
  CHECK_THROWS_AS(r.add("one", "second", [] { return 2; }), InternalError);
  CHECK(r.find("one")->factory() == 1);
  CHECK(r.find("one")->description == "first");
}

TEST_CASE("scheduler: the policy and its parameters, defaults when absent", "[unit][scheduler]") {
  const auto none = test::scenario_from_yaml(two_nodes(""));
  CHECK(none.scheduler.policy == "fifo");
  CHECK(none.scheduler.params == nullptr);  // the policy's defaults
  const auto s = test::scenario_from_yaml(two_nodes("scheduler: {policy: fifo, placement: first-fit}\n"));
  CHECK(s.scheduler.policy == "fifo");
  REQUIRE(s.scheduler.params != nullptr);
  // Copies share the one immutable parameter object.
  const models::Scenario copy = s;
  CHECK(copy.scheduler.params == s.scheduler.params);
}

TEST_CASE("fifo with first-fit loads and runs, and best-fit stays the default", "[scenario][scheduler]") {
  test::TempDir dir("placement");
  const auto first = test::run_yaml(two_nodes("scheduler: {policy: fifo, placement: first-fit}\n"), dir);
  CHECK(test::job_named(first, "C").start_s == Approx(2 * 3600.0));
  CHECK(test::job_named(first, "C").first_node == 0);
  CHECK(test::job_named(first, "D").start_s == Approx(3 * 3600.0));
  CHECK(test::job_named(first, "D").end_s == Approx(4 * 3600.0));

  for (const std::string& line : {std::string(""), std::string("scheduler: {placement: best-fit}\n")}) {
    INFO("scheduler line: " << line);
    test::TempDir d("placement-best");
    const auto best = test::run_yaml(two_nodes(line), d);
    CHECK(test::job_named(best, "C").start_s == Approx(2 * 3600.0));
    CHECK(test::job_named(best, "C").first_node == 1);
    CHECK(test::job_named(best, "D").start_s == Approx(2 * 3600.0));
    CHECK(test::job_named(best, "D").first_node == 0);
  }
}

TEST_CASE("scheduler: every bad key or name is refused at its place", "[unit][scheduler]") {
  // The scheduler line is line 7 of the file.
  SECTION("a key the policy does not have lists the policy's keys") {
    const auto e = load_error(two_nodes("scheduler: {policy: fifo, quantum: 1h}\n"));
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(e.mark().file == "s.yaml");
    CHECK(e.mark().line == 7);
    CHECK(e.mark().column == 27);
    CHECK(e.key_path() == "scheduler.quantum");
    CHECK_THAT(e.detail(), Catch::Matchers::Contains("placement"));
  }
  SECTION("a near miss gets a did-you-mean") {
    const auto e = load_error(two_nodes("scheduler:\n  policy: fifo\n  placment: first-fit\n"));
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(e.mark().line == 9);
    CHECK(e.mark().column == 3);
    CHECK_THAT(e.detail(), Catch::Matchers::Contains("did you mean 'placement'?"));
  }
  SECTION("an unknown policy") {
    const auto e = load_error(two_nodes("scheduler: {policy: fifoo}\n"));
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(e.mark().line == 7);
    CHECK(e.mark().column == 21);
    CHECK(e.key_path() == "scheduler.policy");
    CHECK_THAT(e.detail(), Catch::Matchers::Contains("did you mean 'fifo'?"));
  }
  SECTION("an unknown placement strategy") {
    const auto e = load_error(two_nodes("scheduler: {placement: frist-fit}\n"));
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(e.key_path() == "scheduler.placement");
    CHECK_THAT(e.detail(), Catch::Matchers::Contains("did you mean 'first-fit'?"));
  }
  SECTION("scheduler.preemption: a misspelt key, a bad mode, save or restore when losing") {
    const auto sav = load_error(two_nodes("scheduler: {preemption: {sav: 1s}}\n"));
    CHECK(sav.code() == ErrorCode::UnknownKey);
    CHECK(sav.key_path() == "scheduler.preemption.sav");
    CHECK_THAT(sav.detail(), Catch::Matchers::Contains("did you mean 'save'?"));
    const auto los = load_error(two_nodes("scheduler: {preemption: {mode: los}}\n"));
    CHECK(los.code() == ErrorCode::UnknownName);
    CHECK(los.key_path() == "scheduler.preemption.mode");
    CHECK_THAT(los.detail(), Catch::Matchers::Contains("did you mean 'lose'?") &&
                                 Catch::Matchers::Contains("(modes: save, lose)"));
    CHECK_THAT(load_error(two_nodes("scheduler: {preemption: {mode: drop}}\n")).detail(),
               Catch::Matchers::Contains("(modes: save, lose)"));
    const auto lose_save = load_error(two_nodes("scheduler: {preemption: {mode: lose, save: 1s}}\n"));
    CHECK(lose_save.code() == ErrorCode::Conflict);
    CHECK(lose_save.key_path() == "scheduler.preemption.save");
    CHECK(load_error(two_nodes("scheduler: {preemption: {mode: lose, restore: 1s}}\n")).code() == ErrorCode::Conflict);
    CHECK(load_error(two_nodes("scheduler: {preemption: {save: 10}}\n")).code() == ErrorCode::BadUnit);
    CHECK(load_error(two_nodes("scheduler: {preemption: {restore: -1s}}\n")).code() == ErrorCode::OutOfRange);
    CHECK(load_error(two_nodes("scheduler: {preemption: lose}\n")).code() == ErrorCode::WrongType);
    // A 20 h horizon + 150 + 150 years is past SimTime's 292 years; 150 + 140 is not.
    const auto far = load_error(two_nodes("scheduler: {preemption: {save: 150y, restore: 150y}}\n"));
    CHECK(far.code() == ErrorCode::OutOfRange);
    CHECK(far.key_path() == "scheduler.preemption.save");
    CHECK_NOTHROW(test::scenario_from_yaml(two_nodes("scheduler: {preemption: {save: 150y, restore: 140y}}\n")));
  }
  SECTION("a scheduler that is not a map") {
    CHECK(load_error(two_nodes("scheduler: fifo\n")).code() == ErrorCode::WrongType);
    CHECK(load_error(two_nodes("scheduler: {policy: [fifo]}\n")).code() == ErrorCode::WrongType);
  }
}

TEST_CASE("a test's own policy loads and runs from its registry, and the builtins never see it", "[scenario][scheduler]") {
  models::Builtins mine;
  models::register_builtins(mine);
  mine.schedulers.add_policy(newest_first_policy());

  // One 1-GPU node; a, b, c (1 h each) all wait at 0: newest first runs c, b, a.
  const std::string yaml = "name: lifo\n"
                           "seed: 1\n"
                           "horizon: 10h\n"
                           "cluster:\n"
                           "  node_types:\n"
                           "    - {name: n1, gpu: A100-40GB-SXM, gpus: 1, count: 1, price: {on_demand_per_hour: 2}}\n"
                           "scheduler: {policy: test-newest-first, depth: 3}\n"
                           "workload:\n"
                           "  jobs:\n"
                           "    - {name: a, submit: 0h, gpus: 1, duration: 1h}\n"
                           "    - {name: b, submit: 0h, gpus: 1, duration: 1h}\n"
                           "    - {name: c, submit: 0h, gpus: 1, duration: 1h}\n";
  const auto load_mine = [&](const std::string& text) {
    return models::load_scenario(config::load_yaml_string(text, "lifo.yaml"), test::bundled_catalogs(), mine.schedulers);
  };
  const auto depth_replaced_by = [&](const std::string& to) {
    std::string text = yaml;
    return text.replace(text.find("depth: 3"), 8, to);
  };
  const models::Scenario s = load_mine(yaml);
  CHECK(s.scheduler.policy == "test-newest-first");

  test::TempDir dir("lifo");
  models::RunOptions o;
  o.fixed_wall_clock_s = 0.0;
  models::run_simulation_to(s, mine.schedulers, dir.file("lifo.h5"), o);
  const auto t = analysis::read_trace(dir.file("lifo.h5"));
  CHECK(test::job_named(t, "c").start_s == Approx(0.0));
  CHECK(test::job_named(t, "b").start_s == Approx(3600.0));
  CHECK(test::job_named(t, "a").start_s == Approx(7200.0));

  // Its key is validated by its own entry.
  const auto bad = test::config_error([&] { load_mine(depth_replaced_by("depth: 0")); });
  CHECK(bad.code() == ErrorCode::OutOfRange);
  CHECK(bad.key_path() == "scheduler.depth");
  // And FIFO's key is not its key.
  const auto other = test::config_error([&] { load_mine(depth_replaced_by("placement: first-fit")); });
  CHECK(other.code() == ErrorCode::UnknownKey);
  CHECK_THAT(other.detail(), Catch::Matchers::Contains("depth"));

  // The process-wide registry does not know it: loading or running with it refuses.
  CHECK(models::builtins().schedulers.find_policy("test-newest-first") == nullptr);
  CHECK(load_error(yaml).code() == ErrorCode::UnknownName);
  CHECK_THROWS_AS(models::run_simulation(s, models::builtins().schedulers, nullptr), Error);
}

TEST_CASE("scheduler.preemption: save by default, given times, or lose", "[unit][scheduler]") {
  using models::PreemptionMode;
  const auto none = test::scenario_from_yaml(two_nodes(""));
  CHECK(none.scheduler.preemption.mode == PreemptionMode::Save);
  CHECK_FALSE(none.scheduler.preemption.save);
  CHECK_FALSE(none.scheduler.preemption.restore);
  const auto given = test::scenario_from_yaml(two_nodes("scheduler: {preemption: {save: 30s, restore: 2m}}\n"));
  CHECK(given.scheduler.preemption.mode == PreemptionMode::Save);
  CHECK(given.scheduler.preemption.save == sim::seconds(30));
  CHECK(given.scheduler.preemption.restore == sim::minutes(2));
  const auto lose = test::scenario_from_yaml(two_nodes("scheduler: {policy: fifo, preemption: {mode: lose}}\n"));
  CHECK(lose.scheduler.preemption.mode == PreemptionMode::Lose);
  CHECK(lose.scheduler.policy == "fifo");
}

TEST_CASE("a hand-built spec without parameters gets the policy's defaults", "[unit][scheduler]") {
  models::SchedulerSpec spec;  // policy fifo, params null
  CHECK(models::builtins().schedulers.make(spec) != nullptr);
  spec.policy = "fifoo";
  CHECK_THROWS_AS(models::builtins().schedulers.make(spec), Error);
  // Another policy's parameters are a bug, not a user's error.
  models::Builtins mine;
  models::register_builtins(mine);
  mine.schedulers.add_policy(newest_first_policy());
  const std::string yaml = "name: x\n"
                           "horizon: 1h\n"
                           "cluster:\n"
                           "  node_types:\n"
                           "    - {name: n1, gpu: A100-40GB-SXM, gpus: 1, count: 1, price: {on_demand_per_hour: 2}}\n"
                           "scheduler: {policy: test-newest-first}\n"
                           "workload: {jobs: [{name: a, submit: 0h, gpus: 1, duration: 1h}]}\n";
  const auto lifo = models::load_scenario(config::load_yaml_string(yaml, "x.yaml"), test::bundled_catalogs(), mine.schedulers);
  models::SchedulerSpec mixed = lifo.scheduler;
  mixed.policy = "fifo";
  CHECK_THROWS_AS(mine.schedulers.make(mixed), InternalError);
}
