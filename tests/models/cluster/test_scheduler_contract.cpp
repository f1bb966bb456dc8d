// The scheduler contract (models/scheduler/scheduler.hpp) with small policies defined here:
// preemption in each way the scenario's scheduler.preemption allows (the ordinary last
// checkpoint, a given save and restore, free, lose), with finish times and lost work
// computed by hand; a wake-up
// asked for and delivered at exactly its time; invalid decisions refused with an
// InternalError that leaves the cluster as it was.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>

#include "models/cluster/cluster.hpp"
#include "models/scheduler/placement.hpp"
#include "models/coupling/expand_workload.hpp"
#include "sim/check.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::JobStatus;

namespace {

// One node of 2 GPUs. A (2 GPUs, 10 h, a checkpoint every hour: 3 min to write, 3 min to
// restore) from 0; B (2 GPUs, 1 h) arrives at 2h30. SCHEDULER goes before it for a
// `scheduler:` section.
const std::string TWO_JOBS = R"(name: contract
horizon: 2d
run_until: horizon
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 2, count: 1, price: {on_demand_per_hour: 2}}
workload:
  jobs:
    - {name: A, submit: 0h, gpus: 2, duration: 10h, checkpoint: {every: 1h, write_time: 3m, restore_time: 3m}}
    - {name: B, submit: 150m, gpus: 2, duration: 1h}
)";

// Shortest remaining time first, with preemption: waiting jobs are placed in order of
// remaining time; when the shortest does not fit, the running job with the most time left,
// if it has more than that one, is preempted (once per pass, not while it stops).
class ShortestRemaining final : public test::SpanPolicy {
 public:
  bool wants_running_jobs() const override { return true; }
  void decide(const models::ClusterView& cluster, std::span<const models::QueuedJob> queue,
              models::Decisions& out) override {
    ++calls;
    std::vector<std::uint32_t> order(queue.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return queue[a].remaining_s < queue[b].remaining_s; });
    planner_.reset(cluster);
    for (std::uint32_t i : order) {
      if (planner_.try_place(queue[i], out)) continue;
      const models::RunningJob* longest = nullptr;
      for (const auto& r : cluster.running)
        if (!r.stopping && (!longest || r.remaining_s > longest->remaining_s)) longest = &r;
      if (longest && longest->remaining_s > queue[i].remaining_s) {
        seen_remaining_s = longest->remaining_s;
        seen_attained_gpu_s = longest->attained_gpu_s;
        out.preemptions.push_back({.job = longest->job, .reason = models::PreemptReason::Priority});
      }
      break;
    }
  }
  int calls = 0;
  double seen_remaining_s = -1;
  double seen_attained_gpu_s = -1;

 private:
  models::BestFitPlacement planner_;
};

// Returns what `decide` writes, after placing what fits in submit order.
class Scripted final : public test::SpanPolicy {
 public:
  using Decide = std::function<void(const models::ClusterView&, std::span<const models::QueuedJob>, models::Decisions&)>;
  explicit Scripted(Decide decide) : decide_(std::move(decide)) {}
  bool wants_running_jobs() const override { return true; }
  void decide(const models::ClusterView& cluster, std::span<const models::QueuedJob> queue,
              models::Decisions& out) override {
    planner_.reset(cluster);
    for (std::uint32_t i = 0; i < queue.size(); ++i)
      if (!planner_.try_place(queue[i], out)) break;
    decide_(cluster, queue, out);
  }

 private:
  Decide decide_;
  models::BestFitPlacement planner_;
};

struct Fixture {
  models::Scenario scenario;
  sim::Engine engine;
  models::Scheduler* policy;
  models::Cluster cluster;
  Fixture(const std::string& yaml, std::unique_ptr<models::Scheduler> p)
      : scenario(test::scenario_from_yaml(yaml)), policy(p.get()),
        cluster(engine, scenario, models::expand_workload(scenario, 0), std::move(p)) {}
  const models::Job& job(std::size_t i) const { return cluster.jobs()[i]; }
};

sim::SimTime hm(int h, int m) { return sim::hours(h) + sim::minutes(m); }

}  // namespace

TEST_CASE("By default a preemption writes the job's last checkpoint and stops once it is written",
          "[model][cluster][scheduler]") {
  // A: checkpoints begin at 1h and 2h03 (3 min writes pause it) and commit at 1h03, 2h06.
  // At 2h30 B arrives and does not fit; A has 10h - 2h24 = 7h36 left, B 1h: A is preempted
  // and writes a last checkpoint of its 2h24 of work, committed at 2h33, when it stops.
  // B runs 2h33-3h33. A restarts at 3h33, restores for 3 min, then needs 7h36 of work with
  // 7 more checkpoints (at progress 1h..7h): 3h36 + 7h36 + 21m = 11h33. Nothing is lost;
  // checkpoint time is 2 + 1 + 7 writes of 3 min on 2 GPUs.
  Fixture f(TWO_JOBS, std::make_unique<ShortestRemaining>());
  f.cluster.start();
  f.engine.run();
  const auto& policy = static_cast<const ShortestRemaining&>(*f.policy);
  CHECK(policy.seen_remaining_s == Approx(7 * 3600.0 + 36 * 60).epsilon(1e-12));
  CHECK(policy.seen_attained_gpu_s == Approx(2.5 * 3600 * 2).epsilon(1e-12));  // 2h30 on 2 GPUs
  const models::Job& a = f.job(0);
  const models::Job& b = f.job(1);
  CHECK(b.start == hm(2, 33));
  CHECK(b.end == hm(3, 33));
  CHECK(a.status == JobStatus::Completed);
  CHECK(a.end == hm(11, 33));
  CHECK(a.interruptions() == 1);
  CHECK(a.preemptions() == 1);
  CHECK(a.stop_reason == models::StopReason::Preempted);
  CHECK(a.preempt_reason == models::PreemptReason::Priority);
  CHECK(a.lost_work() == Approx(0.0).margin(1e-9));
  CHECK(a.checkpoints() == 10);
  CHECK(a.checkpoint_gpu_s() == Approx(10 * 180.0 * 2).epsilon(1e-12));
  CHECK(a.held_gpu_s == Approx((2 * 3600.0 + 33 * 60 + 8 * 3600.0) * 2).epsilon(1e-12));
  CHECK(f.cluster.allocated_gpus() == 0);
}

TEST_CASE("A preemption with mode lose loses the work since the last commit", "[model][cluster][scheduler]") {
  // At 2h30 A has done 2h24 of work; its last commit (2h06) saved 2h: 24 min are lost, on
  // 2 GPUs. The stop asks for a second pass at 2h30, which starts B (2h30-3h30). A restarts
  // at 3h30, restores until 3h33 and needs 8h of work with 7 checkpoints: 3h33 + 8h + 21m.
  Fixture f("scheduler: {preemption: {mode: lose}}\n" + TWO_JOBS, std::make_unique<ShortestRemaining>());
  std::vector<sim::SimTime> stops;
  f.cluster.job_stopped.connect([&](const models::Job& j) {
    CHECK(j.stop_reason == models::StopReason::Preempted);
    stops.push_back(f.cluster.now());
  });
  f.cluster.start();
  f.engine.run();
  const models::Job& a = f.job(0);
  const models::Job& b = f.job(1);
  REQUIRE(stops.size() == 1);
  CHECK(stops[0] == hm(2, 30));
  CHECK(b.start == hm(2, 30));
  CHECK(b.end == hm(3, 30));
  CHECK(a.end == hm(11, 54));
  CHECK(a.lost_work() == Approx(24 * 60.0).epsilon(1e-9));
  CHECK(a.lost_gpu_s() == Approx(24 * 60.0 * 2).epsilon(1e-9));
  CHECK(a.checkpoints() == 9);
  CHECK(a.preemptions() == 1);
}

TEST_CASE("A policy that asks to be woken at T is called at exactly T", "[model][cluster][scheduler]") {
  // A 1-GPU job from 0 to 1h; the first pass asks for a wake-up at 5h. Passes: 0 (arrival),
  // none at 1h (nothing waits), 5h (the wake-up, with nothing waiting). A later request
  // replaces a pending one: the 5h pass asks for 7h30, and is called then too.
  const std::string yaml = R"(name: wake
horizon: 10h
run_until: horizon
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 2, count: 1, price: {on_demand_per_hour: 2}}
workload:
  jobs:
    - {name: A, gpus: 1, duration: 1h}
)";
  std::vector<sim::SimTime> calls;
  Fixture f(yaml, std::make_unique<Scripted>([&](const models::ClusterView& v, auto, models::Decisions& out) {
    calls.push_back(v.now);
    if (calls.size() == 1) out.wake_at = sim::hours(5);
    if (calls.size() == 2) out.wake_at = hm(7, 30);
  }));
  f.cluster.start();
  f.engine.run();
  REQUIRE(calls.size() == 3);
  CHECK(calls[0] == sim::SimTime::zero());
  CHECK(calls[1] == sim::hours(5));
  CHECK(calls[2] == hm(7, 30));
  CHECK(f.job(0).end == sim::hours(1));
}

TEST_CASE("The view shows running jobs, node states and prices now", "[model][cluster][scheduler]") {
  // At B's arrival (2h30) A runs on node 0 since 0 with 7h36 left; the node is up with no
  // GPU free; the on-demand pool's price is $2/h / 2 GPUs = $1 per GPU-hour.
  bool checked = false;
  Fixture f(TWO_JOBS, std::make_unique<Scripted>([&](const models::ClusterView& v, auto queue, models::Decisions&) {
    if (v.now != hm(2, 30)) return;
    checked = true;
    REQUIRE(v.running.size() == 1);
    const models::RunningJob& r = v.running[0];
    CHECK(r.job == 0);
    CHECK(r.since == sim::SimTime::zero());
    CHECK(r.count == 1);
    CHECK(v.running_nodes[r.first] == 0);
    CHECK(r.gpus_per_node == 2);
    CHECK(r.can_checkpoint);
    CHECK(r.remaining_s == Approx(7 * 3600.0 + 36 * 60).epsilon(1e-12));
    REQUIRE(queue.size() == 1);
    CHECK(queue[0].remaining_s == Approx(3600.0).epsilon(1e-15));
    CHECK(queue[0].restarts == 0);
    CHECK(v.nodes[0].status == models::NodeStatus::Up);
    CHECK(v.nodes[0].gpus_free == 0);
    CHECK(v.types[0].market == models::Market::OnDemand);
    CHECK(v.types[0].usd_per_gpu_hour_now == Approx(1.0).epsilon(1e-15));
  }));
  f.cluster.start();
  f.engine.run();
  CHECK(checked);
}

TEST_CASE("Invalid preemptions and wake-ups are refused with InternalError", "[model][cluster][scheduler]") {
  using Decide = Scripted::Decide;
  struct Case {
    const char* what;
    Decide decide;
  };
  // Each acts at B's arrival (2h30), when A runs and B waits.
  auto at_b = [](std::function<void(const models::ClusterView&, models::Decisions&)> f) -> Decide {
    return [f](const models::ClusterView& v, auto, models::Decisions& out) {
      if (v.now == sim::hours(2) + sim::minutes(30)) f(v, out);
    };
  };
  using models::PreemptReason;
  const Case cases[] = {
      {"preempting a job that is not running",
       at_b([](auto&, models::Decisions& out) { out.preemptions.push_back({.job = 1, .reason = PreemptReason::Priority}); })},
      {"preempting a job that does not exist",
       at_b([](auto&, models::Decisions& out) { out.preemptions.push_back({.job = 99, .reason = PreemptReason::Priority}); })},
      {"preempting the same job twice in one pass",
       at_b([](auto&, models::Decisions& out) {
         out.preemptions.push_back({.job = 0, .reason = PreemptReason::Priority});
         out.preemptions.push_back({.job = 0, .reason = PreemptReason::Quantum});
       })},
      {"waking at now", at_b([](const models::ClusterView& v, models::Decisions& out) { out.wake_at = v.now; })},
      {"waking in the past",
       at_b([](const models::ClusterView& v, models::Decisions& out) { out.wake_at = v.now - sim::minutes(1); })},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.what) {
      Fixture f(TWO_JOBS, std::make_unique<Scripted>(c.decide));
      f.cluster.start();
      CHECK_THROWS_AS(f.engine.run(), InternalError);
      // Refused before anything changed: A still runs on both GPUs, B still waits.
      CHECK(f.engine.now() == hm(2, 30));
      CHECK(f.job(0).status == JobStatus::Running);
      CHECK_FALSE(f.job(0).stopping);
      CHECK(f.job(0).interruptions() == 0);
      CHECK(f.job(1).status == JobStatus::Queued);
      CHECK(f.cluster.allocated_gpus() == 2);
    }
  }
}

TEST_CASE("By default a preempted job without checkpoints loses its run", "[model][cluster][scheduler]") {
  // A cannot save: preempted for B at 1h it stops at once, losing its hour on 2 GPUs; B
  // runs 1h-2h; A starts again from nothing at 2h (no restore) and ends at 12h.
  const std::string yaml = R"(name: nockpt
horizon: 1d
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 2, count: 1, price: {on_demand_per_hour: 2}}
workload:
  jobs:
    - {name: A, submit: 0h, gpus: 2, duration: 10h}
    - {name: B, submit: 1h, gpus: 2, duration: 1h}
)";
  Fixture f(yaml, std::make_unique<ShortestRemaining>());
  f.cluster.start();
  f.engine.run();
  const models::Job& a = f.job(0);
  CHECK(f.job(1).start == sim::hours(1));
  CHECK(a.preemptions() == 1);
  CHECK_FALSE(a.preempt_saves);
  CHECK(a.lost_gpu_s() == Approx(3600.0 * 2).epsilon(1e-12));
  CHECK(a.restart_gpu_s() == 0);
  CHECK(a.end == sim::hours(12));
}

namespace {

// One GPU. L (1000 s) from 0; H (50 s) arrives at 100 s and has less left than L's 900 s,
// so ShortestRemaining preempts L at 100 s. CHECKPOINT is L's checkpoint map, if any;
// EXTRA more top-level sections.
std::string one_gpu(const std::string& scheduler, const std::string& checkpoint = "", const std::string& extra = "") {
  return extra + "scheduler: " + scheduler + R"(
name: one-gpu
horizon: 1d
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 1, count: 1, price: {on_demand_per_hour: 1}}
workload:
  jobs:
    - {name: L, submit: 0s, gpus: 1, duration: 1000s)" +
         (checkpoint.empty() ? "" : ", checkpoint: " + checkpoint) + R"(}
    - {name: H, submit: 100s, gpus: 1, duration: 50s}
)";
}

struct Runs {
  std::vector<sim::SimTime> stops, starts;
  std::vector<double> remaining_at_start, restore_s;
};

}  // namespace

TEST_CASE("A preemption with save and restore holds the GPUs, keeps all the work and restores",
          "[model][cluster][scheduler]") {
  // L holds the GPU saving 100-110 s with 100 s of work kept; H runs 110-160 s; L restarts
  // at T = 160 s with exactly the 900 s left at 100 s, restores 160-165 s and ends at
  // T + 5 + 900 = 1065 s. Nothing is lost; it held the GPU 110 + 905 s.
  Fixture f(one_gpu("{preemption: {save: 10s, restore: 5s}}"), std::make_unique<ShortestRemaining>());
  Runs r;
  f.cluster.job_stopped.connect([&](const models::Job& j) {
    if (j.id == 0) r.stops.push_back(f.cluster.now());
  });
  f.cluster.job_started.connect([&](const models::Job& j) {
    if (j.id != 0) return;
    r.starts.push_back(j.run_start);
    r.remaining_at_start.push_back(j.progress.remaining);
    r.restore_s.push_back(j.ckpt().run_restore.seconds());
  });
  f.cluster.start();
  f.engine.run();
  const models::Job& l = f.job(0);
  REQUIRE(r.stops == std::vector<sim::SimTime>{sim::seconds(110)});
  REQUIRE(r.starts == std::vector<sim::SimTime>{sim::SimTime::zero(), sim::seconds(160)});
  CHECK(r.remaining_at_start[1] == 900.0);
  CHECK(r.restore_s[1] == 5.0);
  CHECK(f.job(1).start == sim::seconds(110));
  CHECK(l.end == sim::seconds(1065));
  CHECK(l.preemptions() == 1);
  CHECK(l.preempt_saves);
  CHECK(l.preempted_at() == sim::seconds(100));
  CHECK(l.lost_gpu_s() == 0);
  CHECK(l.checkpoints() == 1);  // the save commits like a checkpoint
  CHECK(l.checkpoint_gpu_s() == Approx(10.0).epsilon(1e-12));
  CHECK(l.restart_gpu_s() == Approx(5.0).epsilon(1e-12));
  CHECK(l.held_gpu_s == Approx(110.0 + 905.0).epsilon(1e-12));
}

TEST_CASE("A free preemption (save 0s, restore 0s) costs no time at all", "[model][cluster][scheduler]") {
  // L stops at 100 s with its 100 s kept, H runs 100-150 s, L resumes at 150 s and ends at
  // 150 + 900 = 1050 s: its runs add up to exactly its 1000 s.
  Fixture f(one_gpu("{preemption: {save: 0s, restore: 0s}}"), std::make_unique<ShortestRemaining>());
  f.cluster.start();
  f.engine.run();
  const models::Job& l = f.job(0);
  CHECK(f.job(1).start == sim::seconds(100));
  CHECK(l.end == sim::seconds(1050));
  CHECK(l.held_gpu_s == 1000.0);
  CHECK(l.lost_gpu_s() == 0);
  CHECK(l.restart_gpu_s() == 0);
  CHECK(l.checkpoint_gpu_s() == 0);
}

TEST_CASE("A preemption with mode lose redoes the work since the last checkpoint", "[model][cluster][scheduler]") {
  // L checkpoints every 60 s of progress, instantly: the commit at 60 s is its last before
  // the preemption at 100 s, which stops it at once and loses 40 s. H runs 100-150 s; L
  // restarts at 150 s from 60 s of work and ends at 150 + 940 = 1090 s.
  Fixture f(one_gpu("{preemption: {mode: lose}}", "{every: 60s, write_time: 0s, restore_time: 0s}"),
            std::make_unique<ShortestRemaining>());
  f.cluster.start();
  f.engine.run();
  const models::Job& l = f.job(0);
  CHECK(f.job(1).start == sim::seconds(100));
  CHECK_FALSE(l.preempt_saves);
  CHECK(l.lost_work() == Approx(40.0).epsilon(1e-12));
  CHECK(l.lost_gpu_s() == Approx(40.0).epsilon(1e-12));
  CHECK(l.end == sim::seconds(1090));
}

TEST_CASE("A save cuts a periodic checkpoint short and keeps the work at the preemption", "[model][cluster][scheduler]") {
  // L writes a checkpoint every 90 s of progress, pausing 20 s: 90-110 s would save 90 s of
  // work. The preemption at 100 s (a save of 10 s) abandons it: the GPU is held to 110 s,
  // paused, and the save keeps the 90 s done. H runs 110-160 s; L restores 2 s (its
  // checkpoint's restore_time, the default) and needs 910 s, writing at 90, 180, ..., 900 s
  // of the new run's progress (10 writes of 20 s): 162 + 910 + 200 = 1272 s.
  Fixture f(one_gpu("{preemption: {save: 10s}}", "{every: 90s, write_time: 20s, restore_time: 2s}"),
            std::make_unique<ShortestRemaining>());
  f.cluster.start();
  f.engine.run();
  const models::Job& l = f.job(0);
  CHECK(f.job(1).start == sim::seconds(110));
  CHECK(l.lost_gpu_s() == 0);
  CHECK(l.checkpoints() == 1 + 10);  // the save (the periodic write it cut short never commits)
  CHECK(l.end == sim::seconds(1272));
  // Checkpoint time: 10 s of the cut write, the 10 s save, 10 writes after the restart.
  CHECK(l.checkpoint_gpu_s() == Approx(10.0 + 10.0 + 10 * 20.0).epsilon(1e-12));
}

TEST_CASE("A given save sends nothing to the checkpoint tier, the default save is the tier write",
          "[model][cluster][scheduler]") {
  // L checkpoints 10 GB to a tier written at 1 GB/s (10 s alone), every 10 h (never, here).
  const std::string storage = "storage:\n  tiers:\n    - {name: fs, kind: shared-fs, read: 2GB/s, write: 1GB/s}\n";
  const std::string checkpoint = "{every: 10h, size: 10GB, tier: fs}";
  for (const bool given : {true, false}) {
    DYNAMIC_SECTION((given ? "save: 3s" : "the default save")) {
      Fixture f(one_gpu(given ? "{preemption: {save: 3s}}" : "{}", checkpoint, storage),
                std::make_unique<ShortestRemaining>());
      std::vector<sim::SimTime> writes, stops;
      f.cluster.checkpoint_started.connect([&](const models::Job&) { writes.push_back(f.cluster.now()); });
      f.cluster.job_stopped.connect([&](const models::Job&) { stops.push_back(f.cluster.now()); });
      f.cluster.start();
      f.engine.run();
      // The given save: a 3 s pause, no tier write. The default: the 10 s write to the tier.
      CHECK(writes == (given ? std::vector<sim::SimTime>{} : std::vector<sim::SimTime>{sim::seconds(100)}));
      CHECK(stops == std::vector<sim::SimTime>{sim::seconds(given ? 103 : 110)});
      CHECK(f.job(0).lost_gpu_s() == 0);
      CHECK(f.job(0).ckpt().ckpt_work == 100.0);
    }
  }
}

namespace {

// A market's node events at given times, sent straight to the cluster (a market's part).
struct NodeEvents {
  models::Cluster& cluster;
  sim::SimTime down_at;
  static void notice(void* self, std::uint64_t) {
    auto& e = *static_cast<NodeEvents*>(self);
    e.cluster.notice(0, e.down_at);
  }
  static void down(void* self, std::uint64_t) { static_cast<NodeEvents*>(self)->cluster.down(0, models::NodeReason::SpotInterruption); }
};

}  // namespace

TEST_CASE("A notice during a save changes nothing, the node going before the save is done loses the work",
          "[model][cluster][scheduler]") {
  // L (no checkpoints) saves 100-110 s. A notice at 105 s for 108 s finds it already on
  // its way out; at 108 s the node goes, before the save commits: L loses its 100 s, and
  // the preemption's save lasted 8 s.
  Fixture f(one_gpu("{preemption: {save: 10s, restore: 5s}}"), std::make_unique<ShortestRemaining>());
  NodeEvents events{f.cluster, sim::seconds(108)};
  f.engine.schedule_at(sim::seconds(105), &NodeEvents::notice, &events);
  f.engine.schedule_at(sim::seconds(108), &NodeEvents::down, &events);
  std::vector<sim::SimTime> stops;
  f.cluster.job_stopped.connect([&](const models::Job& j) {
    if (j.id == 0) stops.push_back(f.cluster.now());
  });
  f.cluster.start();
  f.engine.run();
  const models::Job& l = f.job(0);
  CHECK(stops == std::vector<sim::SimTime>{sim::seconds(108)});
  CHECK(l.stop_reason == models::StopReason::NodeLoss);
  CHECK(l.preempted_at() == sim::seconds(100));
  CHECK(l.ckpt().ckpt_work == 0);
  CHECK(l.checkpoints() == 0);
  CHECK(l.lost_gpu_s() == Approx(100.0).epsilon(1e-12));
  CHECK(l.checkpoint_gpu_s() == Approx(8.0).epsilon(1e-12));  // the save, to the node's loss
}

TEST_CASE("A preemption of a run started at the same instant is refused with InternalError (issue 27)",
          "[model][cluster][scheduler]") {
  // A and C (1 GPU each) run from 0 on one 2-GPU node; free preemption, so each stop asks
  // for another pass at once. At 2h: the first pass preempts A, the second (A placed again
  // in the GPU it freed) preempts C, the third preempts A again: a run started at 2h.
  const std::string yaml = R"(name: contract-instant
horizon: 1d
run_until: done
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 2, count: 1, price: {on_demand_per_hour: 2}}
scheduler: {preemption: {save: 0s, restore: 0s}}
workload:
  jobs:
    - {name: A, submit: 0h, gpus: 1, duration: 10h}
    - {name: C, submit: 0h, gpus: 1, duration: 10h}
)";
  int pass = 0;
  Fixture f(yaml, std::make_unique<Scripted>([&](const models::ClusterView& v, auto, models::Decisions& out) {
    if (v.now != sim::hours(2)) {
      if (v.now < sim::hours(2)) out.wake_at = sim::hours(2);
      return;
    }
    ++pass;
    const std::uint32_t victim = pass == 2 ? 1 : 0;
    if (pass <= 3) out.preemptions.push_back({.job = victim, .reason = models::PreemptReason::Priority});
  }));
  f.cluster.start();
  try {
    f.engine.run();
    FAIL("no InternalError");
  } catch (const InternalError& e) {
    CHECK_THAT(e.what(), Catch::Contains("policy 'fifo'") && Catch::Contains("job 'A'") &&
                             Catch::Contains("the instant its run started"));
  }
  CHECK(pass == 3);
  // Refused before anything changed: A (placed again at 2h) still runs.
  CHECK(f.engine.now() == sim::hours(2));
  CHECK(f.job(0).status == JobStatus::Running);
  CHECK_FALSE(f.job(0).stopping);
}
