// The cluster's parts on their own: the node allocator refuses what it cannot do without
// changing anything; the job queue keeps submit order across holds and requeues; the
// checkpoint controller writes and commits at the times computed by hand below; a model
// job's starting speed comes from its one rate provider.
#include <catch2/catch.hpp>

#include "models/cluster/cluster.hpp"
#include "models/cluster/job_queue.hpp"
#include "models/cluster/node_allocator.hpp"
#include "models/coupling/model_speeds.hpp"
#include "models/coupling/job_speed.hpp"
#include "models/scheduler/fifo.hpp"
#include "models/coupling/expand_workload.hpp"
#include "sim/check.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

const std::string TWO_NODES = R"(name: parts
horizon: 2d
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 4, count: 2, price: {on_demand_per_hour: 8}}
workload:
  jobs:
)";

models::Job job(std::uint32_t id, int gpus) {
  models::Job j;
  j.id = id;
  j.name = "J" + std::to_string(id);
  j.gpus = gpus;
  return j;
}

models::Decisions on_node(std::uint32_t node, int gpus) {
  models::Decisions d;
  d.placements.push_back(models::Placement{0, 0, 1, gpus, 0});
  d.nodes.push_back(node);
  return d;
}

}  // namespace

TEST_CASE("NodeAllocator takes the lowest free GPUs and refuses more than a node has", "[unit][cluster]") {
  const models::Scenario s = test::scenario_from_yaml(TWO_NODES + "    - {name: X, gpus: 1, duration: 1h}\n");
  models::NodeAllocator a(s.cluster);
  REQUIRE(a.total_gpus() == 8);
  models::Job x = job(0, 3);
  const models::Decisions dx = on_node(1, 3);
  a.allocate(x, dx.placements[0], dx, "test");
  CHECK(x.gpu_mask == 0b0111);
  CHECK(x.node_type == 0);
  CHECK(a.nodes_of(x).size() == 1);
  CHECK(a.nodes_of(x)[0] == 1);
  CHECK(a.allocated_gpus() == 3);
  CHECK(a.view()[1].gpus_free == 1);
  CHECK(a.view()[0].gpus_free == 4);

  SECTION("over capacity: refused, nothing taken") {
    models::Job y = job(1, 2);
    const models::Decisions dy = on_node(1, 2);
    CHECK_THROWS_AS(a.allocate(y, dy.placements[0], dy, "test"), InternalError);
    CHECK(a.allocated_gpus() == 3);
    CHECK(a.view()[1].gpus_free == 1);
    CHECK(a.nodes()[1].busy_mask == 0b0111);
  }
  SECTION("a node listed twice: refused") {
    models::Job y = job(1, 2);
    models::Decisions dy;
    dy.placements.push_back(models::Placement{0, 0, 2, 1, 0});
    dy.nodes = {0, 0};
    CHECK_THROWS_AS(a.allocate(y, dy.placements[0], dy, "test"), InternalError);
    CHECK(a.allocated_gpus() == 3);
  }
  SECTION("a noticed node offers nothing") {
    REQUIRE(a.transition(0, models::NodePhase::Draining, models::NodeReason::SpotInterruption, sim::SimTime::zero(), true, sim::hours(1)));
    CHECK(a.view()[0].status == models::NodeStatus::Noticed);
    CHECK(a.view()[0].gpus_free == 0);
    models::Job y = job(1, 1);
    const models::Decisions dy = on_node(0, 1);
    CHECK_THROWS_AS(a.allocate(y, dy.placements[0], dy, "test"), InternalError);
    CHECK_FALSE(a.transition(0, models::NodePhase::Draining, models::NodeReason::SpotInterruption, sim::SimTime::zero(), true, sim::hours(1)));  // noticed once
  }
  SECTION("release frees once; a second release is refused") {
    a.release(x, 3600);
    CHECK(a.allocated_gpus() == 0);
    CHECK(a.view()[1].gpus_free == 4);
    CHECK(a.nodes()[1].busy_gpu_s == Approx(3 * 3600.0).epsilon(1e-15));
    CHECK_THROWS_AS(a.release(x, 3600), InternalError);
    CHECK(a.allocated_gpus() == 0);
    CHECK(a.nodes()[1].busy_gpu_s == Approx(3 * 3600.0).epsilon(1e-15));
  }
}

namespace {
// Records what the queue tells a policy.
class Recorder final : public models::Scheduler {
 public:
  void job_waiting(const models::QueuedJob& job) override { log.push_back("+" + std::to_string(job.job)); }
  void job_left(std::uint32_t job) override { log.push_back("-" + std::to_string(job)); }
  void schedule(const models::ClusterView&, const models::WaitingJobs&, models::Decisions&) override {}
  std::vector<std::string> log;
};
}  // namespace

TEST_CASE("JobQueue tells the policy every job that joins or leaves the waiting jobs, team holds too",
          "[unit][cluster]") {
  auto entry = [](std::uint32_t id, int team) {
    models::QueuedJob q;
    q.job = id;
    q.team = team;
    return q;
  };
  auto ids = [](const models::WaitingJobs& w) {
    std::vector<std::uint32_t> v;
    w.in_submit_order(v);
    return v;
  };
  Recorder policy;
  models::JobQueue q(2, policy);
  q.add(entry(0, 0));
  q.add(entry(1, 1));
  q.add(entry(2, 0));
  q.hold_team(0);
  CHECK(q.team_held(0));
  CHECK(ids(q.waiting()) == std::vector<std::uint32_t>{1});
  REQUIRE(q.held().size() == 2);
  CHECK(q.held()[0].job == 0);
  CHECK(q.held()[1].job == 2);
  q.add(entry(3, 0));  // a held team's arrival waits held, unseen by the policy
  q.add(entry(4, 1));
  CHECK(ids(q.waiting()) == std::vector<std::uint32_t>{1, 4});
  q.release_team(0);
  CHECK_FALSE(q.team_held(0));
  CHECK(ids(q.waiting()) == std::vector<std::uint32_t>{0, 1, 2, 3, 4});
  CHECK(q.held().empty());
  q.remove_placed(1);
  q.remove_placed(3);
  CHECK(ids(q.waiting()) == std::vector<std::uint32_t>{0, 2, 4});
  CHECK(q.waiting()[4].team == 1);
  CHECK(policy.log == std::vector<std::string>{"+0", "+1", "+2", "-0", "-2", "+4", "+0", "+2", "+3", "-1", "-3"});
  CHECK_THROWS_AS(q.hold_team(2), InternalError);
  CHECK_THROWS_AS(q.remove_placed(1), InternalError);  // not waiting any more
}

TEST_CASE("WaitingJobs gives a large buffer back when it empties, and keeps a small one or a reserved one", "[unit][cluster]") {
  models::WaitingJobs w;
  const auto fill = [&w](std::uint32_t n) {
    for (std::uint32_t id = 0; id < n; ++id) {
      models::QueuedJob q;
      q.job = id;
      w.add(q);
    }
  };
  fill(100);
  for (std::uint32_t id = 0; id < 100; ++id) w.remove(id);
  CHECK(w.empty());
  CHECK(w.capacity() >= 100);  // small: kept for the next arrivals
  const auto big = static_cast<std::uint32_t>(models::WaitingJobs::RELEASE_ENTRIES + 1);
  fill(big);
  for (std::uint32_t id = 0; id + 1 < big; ++id) w.remove(id);
  CHECK(w.capacity() > models::WaitingJobs::RELEASE_ENTRIES);  // not empty yet
  CHECK(w.contains(big - 1));
  w.remove(big - 1);
  CHECK(w.empty());
  CHECK(w.capacity() == 0);
  fill(3);  // and it fills again
  CHECK(w.size() == 3);
  CHECK(w[2].job == 2);

  // Room reserved up front for more than that is kept when a queue that held few jobs
  // empties (a saturated run's first job starts at once), and freed once it held many.
  models::WaitingJobs r;
  r.reserve(4 * models::WaitingJobs::RELEASE_ENTRIES);
  models::QueuedJob first;
  first.job = 0;
  r.add(first);
  r.remove(0);
  CHECK(r.capacity() == 4 * models::WaitingJobs::RELEASE_ENTRIES);
  for (std::uint32_t id = 0; id < big; ++id) {
    models::QueuedJob q;
    q.job = id;
    r.add(q);
  }
  CHECK(r.capacity() == 4 * models::WaitingJobs::RELEASE_ENTRIES);  // no entry moved
  for (std::uint32_t id = 0; id < big; ++id) r.remove(id);
  CHECK(r.capacity() == 0);
}

TEST_CASE("CheckpointController: periodic writes pause the job and commit on time", "[model][cluster][checkpoint]") {
  // 4 GPUs, 5h of work, a checkpoint every 1h of progress, each write pausing 6 min: writes
  // begin at 1h, 2h06, 3h12, 4h18 (progress 1h..4h; at 5h it finishes, nothing to save) and
  // commit 6 min later; it finishes at 5h + 4 x 6m = 5h24. Checkpoint time: 4 x 6 min x 4 GPUs.
  const models::Scenario s = test::scenario_from_yaml(
      TWO_NODES + "    - {name: A, gpus: 4, duration: 5h, checkpoint: {every: 1h, write_time: 6m}}\n");
  sim::Engine engine;
  models::Cluster c(engine, s, models::expand_workload(s, 0), std::make_unique<models::FifoScheduler>());
  std::vector<double> commits_h;
  c.checkpoint_written.connect([&](const models::Job& j) {
    commits_h.push_back(c.now().seconds() / 3600);
    CHECK(j.ckpt().ckpt_work == Approx(3600.0 * static_cast<double>(commits_h.size())).epsilon(1e-12));
  });
  c.start();
  engine.run();
  const models::Job& a = c.jobs()[0];
  REQUIRE(commits_h.size() == 4);
  CHECK(commits_h[0] == Approx(1.1).epsilon(1e-12));
  CHECK(commits_h[1] == Approx(2.2).epsilon(1e-12));
  CHECK(commits_h[2] == Approx(3.3).epsilon(1e-12));
  CHECK(commits_h[3] == Approx(4.4).epsilon(1e-12));
  CHECK(a.end == sim::hours(5) + sim::minutes(24));
  CHECK(a.checkpoints() == 4);
  CHECK(a.checkpoint_gpu_s() == Approx(4 * 360.0 * 4).epsilon(1e-12));
}

TEST_CASE("A model job starts at the speed its rate provider estimates, and needs one", "[model][cluster]") {
  // ResNet-50 on 8 A100s: the speed is estimate_step() on the placement's hardware context,
  // computed once (by ModelSpeeds) and recorded on the job with its step figures.
  const models::Scenario s = test::scenario_from_yaml(
      TWO_NODES + "    - {name: rn50, model: resnet50, precision: amp, batch_per_gpu: 256, gpus: 8, samples: 10M}\n");
  const models::NodeTypeSpec& type = s.cluster.node_types[0];
  SECTION("with ModelSpeeds") {
    sim::Engine engine;
    models::Cluster c(engine, s, models::expand_workload(s, 0), std::make_unique<models::FifoScheduler>());
    models::ModelSpeeds speeds(s, c);
    double started_at = 0;
    c.job_started.connect([&](const models::Job& j) { started_at = j.progress.rate; });
    c.start();
    engine.run();
    const models::Job& j = c.jobs()[0];
    const models::StepEstimate e = models::estimate_step(*j.training(), models::hardware_context(type, 8, *j.training(), s.storage));
    REQUIRE(e.samples_per_s > 0);
    CHECK(started_at == e.samples_per_s);
    CHECK(j.samples_per_s() == e.samples_per_s);
    CHECK(j.step_s() == e.step_s);
    CHECK(speeds.estimate(0)->samples_per_s == e.samples_per_s);
    // 10M samples at that speed, to the nanosecond (rounded as schedule_finish rounds).
    CHECK(j.end == sim::SimTime::from_seconds(10e6 / e.samples_per_s));
  }
  SECTION("without a rate provider: refused before it takes its GPUs") {
    sim::Engine engine;
    models::Cluster c(engine, s, models::expand_workload(s, 0), std::make_unique<models::FifoScheduler>());
    c.start();
    CHECK_THROWS_AS(engine.run(), InternalError);
    CHECK(c.allocated_gpus() == 0);
    CHECK(c.jobs()[0].status == models::JobStatus::Queued);
  }
}
