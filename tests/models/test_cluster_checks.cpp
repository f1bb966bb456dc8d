// The cluster refuses an invalid transition or decision with InternalError, in every build
// type, instead of corrupting its state (sim/check.hpp); and a node loss stops each of its
// jobs once even when an observer of the stops changes the cluster from inside the signal.
#include <catch2/catch.hpp>

#include "models/cluster/cluster.hpp"
#include "models/scheduler/fifo.hpp"
#include "models/coupling/expand_workload.hpp"
#include "sim/check.hpp"
#include "sim/engine.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::JobStatus;

namespace {

// One node of 2 GPUs at $2/h; two 1-GPU jobs of team t, 10 h each.
const std::string TWO_JOBS = R"(name: checks
horizon: 10h
run_until: horizon
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 2, count: 1, price: {on_demand_per_hour: 2}}
workload:
  jobs:
    - {name: A, gpus: 1, duration: 10h, team: t}
    - {name: B, gpus: 1, duration: 10h, team: t}
)";

// A policy that returns whatever decisions it was built with, valid or not.
class ScriptedPolicy final : public test::SpanPolicy {
 public:
  explicit ScriptedPolicy(models::Decisions d) : decisions_(std::move(d)) {}
  void decide(const models::ClusterView&, std::span<const models::QueuedJob>, models::Decisions& out) override {
    out = decisions_;
  }

 private:
  models::Decisions decisions_;
};

struct Fixture {
  models::Scenario scenario = test::scenario_from_yaml(TWO_JOBS);
  sim::Engine engine;
  models::Cluster cluster;
  explicit Fixture(std::unique_ptr<models::Scheduler> policy = std::make_unique<models::FifoScheduler>())
      : cluster(engine, scenario, models::expand_workload(scenario, 0), std::move(policy)) {}
};

// Takes node 0 down at `at`.
struct Loss {
  models::Cluster* cluster;
  void fire(std::uint64_t) { cluster->down(0, models::NodeReason::SpotInterruption); }
};

}  // namespace

TEST_CASE("A node loss stops each job once although an observer holds the team from inside the stop",
          "[model][cluster]") {
  // The pattern that stopped job B twice (docs/engine.md, "Controllers"): an observer of
  // job_stopped that acts on the cluster synchronously. Stopping A at 1h makes it hold team
  // t with stop_running, which stops B; the node's own loop must then see that B is no
  // longer running. Each job: one interruption, 1 GPU x 1 h held; no GPU allocated after.
  Fixture f;
  bool held = false;
  f.cluster.job_stopped.connect([&](const models::Job& j) {
    if (held) return;
    held = true;
    f.cluster.hold_team(j.team, true);
  });
  Loss loss{&f.cluster};
  f.cluster.start();
  f.engine.schedule_at<&Loss::fire>(sim::hours(1), &loss);
  f.engine.run();
  for (const auto& j : f.cluster.jobs()) {
    INFO(j.name);
    CHECK(j.interruptions() == 1);
    CHECK(j.held_gpu_s == Approx(3600.0).epsilon(1e-12));
    CHECK(j.status == JobStatus::Interrupted);
  }
  CHECK(f.cluster.allocated_gpus() == 0);
}

TEST_CASE("Changing a job that is not running is refused with InternalError", "[model][cluster]") {
  // Before start() every job is Future: none may have its speed or progress changed, and
  // none may be finished by a driver (which would release nodes it never held).
  Fixture f;
  CHECK_THROWS_AS(f.cluster.set_rate(0, 1.0), InternalError);
  CHECK_THROWS_AS(f.cluster.delay_progress(0, sim::minutes(1)), InternalError);
  CHECK_THROWS_AS(f.cluster.hold_progress_until(0, sim::minutes(1)), InternalError);
  CHECK_THROWS_AS(f.cluster.move_checkpoint_write(0, sim::minutes(1)), InternalError);
  CHECK_THROWS_AS(f.cluster.finish_job(0), InternalError);
  // Nothing changed: no GPU taken, the job still waits for its arrival.
  CHECK(f.cluster.allocated_gpus() == 0);
  CHECK(f.cluster.jobs()[0].status == JobStatus::Future);
}

TEST_CASE("finish_job of a job whose progress the cluster runs itself is refused", "[model][cluster]") {
  // finish_job is for driven jobs (a network driver runs their steps); A is not one, and its
  // own finish event will end it: ending it here too would release its GPUs twice.
  Fixture f;
  struct Probe {
    Fixture* f;
    int refused = 0;
    int allocated_after = -1;
    void fire(std::uint64_t) {
      try {
        f->cluster.finish_job(0);  // running, but not driven
      } catch (const InternalError&) {
        ++refused;
      }
      allocated_after = f->cluster.allocated_gpus();
    }
  } probe{&f};
  f.cluster.start();
  f.engine.schedule_at<&Probe::fire>(sim::hours(1), &probe);
  f.engine.run();
  CHECK(probe.refused == 1);
  CHECK(probe.allocated_after == 2);  // A and B still hold their GPUs
  // A then runs to its own finish at 10h, uninterrupted, and gives its GPU back once.
  const auto& a = f.cluster.jobs()[0];
  CHECK(a.status == JobStatus::Completed);
  CHECK(a.end == sim::hours(10));
  CHECK(a.interruptions() == 0);
  CHECK(f.cluster.allocated_gpus() == 0);
}

TEST_CASE("A policy's invalid decision is refused with InternalError", "[model][cluster][scheduler]") {
  using Placements = decltype(models::Decisions::placements);
  using Nodes = decltype(models::Decisions::nodes);
  struct Case {
    const char* what;
    Placements placements;
    Nodes nodes;
  };
  // Each placement is {queue index, first node, node count, GPUs per node, node type}; the
  // cluster has one node (type 0) of 2 GPUs and two queued 1-GPU jobs.
  const Case cases[] = {
      {"the same queue entry placed twice", {{0, 0, 1, 1, 0}, {0, 1, 1, 1, 0}}, {0, 0}},
      {"a queue index past the queue", {{7, 0, 1, 1, 0}}, {0}},
      {"more GPUs than the node has free", {{0, 0, 1, 3, 0}}, {0}},
      {"a node that does not exist", {{0, 0, 1, 1, 0}}, {5}},
      {"a node list shorter than the placement", {{0, 0, 2, 1, 0}}, {0}},
      {"a node of another type than the placement names", {{0, 0, 1, 1, 3}}, {0}},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.what) {
      models::Decisions d;
      d.placements = c.placements;
      d.nodes = c.nodes;
      Fixture f(std::make_unique<ScriptedPolicy>(d));
      f.cluster.start();
      CHECK_THROWS_AS(f.engine.run(), InternalError);
    }
  }
}
