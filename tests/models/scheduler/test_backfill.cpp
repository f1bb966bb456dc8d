// Backfilling (models/scheduler/backfill.hpp): EASY on hand-drawn cases whose every start is
// computed in the comments, the guarantee that no backfilled job delays the head job's
// reservation on a random workload, conservative against EASY where they part, and
// determinism.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/scheduler/backfill.hpp"
#include "sim/engine.hpp"
#include "support/cluster_run.hpp"
#include "support/recording_backfill.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::BackfillMode;
using models::BackfillParams;
using models::EasyBackfill;
using models::JobStatus;

namespace {

// For each job, the first reservation it was given while it was the first waiting job that
// did not fit (EASY's only reservation), with the change log as a run has it.
std::unique_ptr<test::RecordingBackfill> recording_backfill(const BackfillParams& p) {
  return std::make_unique<test::RecordingBackfill>(p, true, test::RecordingBackfill::Record::First);
}

// A backfill policy that never sees the cluster's change log, so that EASY cannot reuse
// a reservation plan from an earlier pass and plans afresh every time, trying the head
// after every release in the plan (with the log, only after a release that gave a node
// room for it).
using test::UnloggedBackfill;

struct BackfillRun {
  models::Scenario scenario;
  sim::Engine engine;
  std::shared_ptr<std::map<std::uint32_t, sim::SimTime>> reserved;
  std::unique_ptr<models::Cluster> cluster;
  BackfillRun(const std::string& yaml, const BackfillParams& p) : scenario(test::scenario_from_yaml(yaml)) {
    auto policy = recording_backfill(p);
    reserved = policy->first_reserved;
    cluster = std::make_unique<models::Cluster>(engine, scenario, models::expand_workload(scenario, 0), std::move(policy));
    cluster->start();
    engine.run();
  }
  const models::Job& job(const std::string& name) const {
    for (const auto& j : cluster->jobs())
      if (j.name == name) return j;
    FAIL("no job " << name);
    throw;
  }
};

BackfillParams mode(BackfillMode m) {
  BackfillParams p;
  p.mode = m;
  return p;
}

// Nodes of 4 GPUs at $8/h per node.
std::string nodes(int count) {
  return "name: hand\nhorizon: 2000h\nrun_until: done\ncluster:\n  node_types:\n"
         "    - {name: n4, gpu: A100-40GB-SXM, gpus: 4, count: " + std::to_string(count) +
         ", price: {on_demand_per_hour: 8}}\n";
}

}  // namespace

TEST_CASE("EASY backfills a short job into the hole and refuses a long one that would delay the head",
          "[model][scheduler]") {
  // Two 4-GPU nodes. A (4 GPUs, 2h) takes node 0, B (2 GPUs, 3h) node 1 (best-fit), at 0.
  // H (8 GPUs) at 10m needs both nodes whole: A ends at 2h, B at 3h, so its reservation is
  // 3h on nodes 0 and 1. L (2 GPUs, 4h) at 20m fits now on node 1 but would end at 4h20 >
  // 3h on a GPU H needs then: refused. S (2 GPUs, 1h) at 30m fits on node 1 and ends at
  // 1h30 <= 3h: it starts at once. At 2h (A ends) L would best-fit node 1 (2 free), which
  // H needs whole at 3h: refused again. H starts at 3h, exactly its reservation, and runs
  // to 4h; L starts then.
  // Strict FIFO would start S after H, at 4h; backfilling L at 20m would hold node 1 until
  // 4h20 and start H then.
  BackfillRun run(nodes(2) + R"(workload:
  jobs:
    - {name: A, submit: 0h, gpus: 4, duration: 2h}
    - {name: B, submit: 0h, gpus: 2, duration: 3h}
    - {name: H, submit: 10m, gpus: 8, duration: 1h}
    - {name: L, submit: 20m, gpus: 2, duration: 4h}
    - {name: S, submit: 30m, gpus: 2, duration: 1h}
)",
                  BackfillParams{});
  for (const auto& j : run.cluster->jobs()) CHECK(j.status == JobStatus::Completed);
  CHECK(run.job("S").start == sim::minutes(30));
  CHECK(run.job("H").start == sim::hours(3));
  CHECK(run.job("L").start == sim::hours(4));
  CHECK(run.reserved->at(run.job("H").id) == sim::hours(3));
}

TEST_CASE("a long job may backfill on GPUs the head's reservation leaves spare", "[model][scheduler]") {
  // Two 4-GPU nodes. A (4 GPUs, 2h) on node 0, B (3 GPUs, 3h) on node 1 at 0. H (4 GPUs) at
  // 10m: the earliest it fits is 2h, on node 0 (A's), so node 1 is spare at 2h.
  // L (1 GPU, 10h) at 20m fits on node 1 (1 free) and ends long after 2h, but takes no GPU
  // H needs: it starts at 20m. H starts at 2h.
  BackfillRun run(nodes(2) + R"(workload:
  jobs:
    - {name: A, submit: 0h, gpus: 4, duration: 2h}
    - {name: B, submit: 0h, gpus: 3, duration: 3h}
    - {name: H, submit: 10m, gpus: 4, duration: 1h}
    - {name: L, submit: 20m, gpus: 1, duration: 10h}
)",
                  BackfillParams{});
  CHECK(run.job("L").start == sim::minutes(20));
  CHECK(run.job("H").start == sim::hours(2));
  CHECK(run.reserved->at(run.job("H").id) == sim::hours(2));
}

TEST_CASE("EASY never delays the head job's reservation on a random workload", "[model][scheduler]") {
  // Four 4-GPU nodes, 500 jobs of 1-8 GPUs (8: two whole nodes) with lognormal durations
  // arriving faster than the cluster serves them, true lengths: a job's start is never
  // later than the first reservation it was given as the head (a reservation is planned
  // only in a pass where a job behind the head could start, the passes it decides
  // something in). Times and reservations are whole nanoseconds: compared exactly.
  BackfillRun run(nodes(4) + R"(seed: 11
workload:
  generators:
    - name: mix
      count: 500
      arrival: {dist: exponential, mean: 10m}
      gpus: {choice: [1, 2, 3, 4, 8], weights: [0.4, 0.2, 0.1, 0.2, 0.1]}
      duration: {dist: lognormal, median: 1h, sigma: 1.0}
)",
                  BackfillParams{});
  std::size_t reserved = 0;
  std::size_t backfilled = 0;  // jobs that started before an earlier-submitted one
  sim::SimTime latest_start = sim::SimTime::zero();
  for (const auto& j : run.cluster->jobs()) {
    REQUIRE(j.status == JobStatus::Completed);
    if (j.start < latest_start) ++backfilled;
    latest_start = std::max(latest_start, j.start);
    const auto r = run.reserved->find(j.id);
    if (r == run.reserved->end()) continue;
    ++reserved;
    INFO("job " << j.name);
    CHECK(j.start <= r->second);
  }
  // The check means something only if many jobs waited as the head and many overtook.
  CHECK(reserved > 50);
  CHECK(backfilled > 20);
}

TEST_CASE("EASY reusing its reservation plan decides as planning afresh every pass", "[model][scheduler]") {
  // The same random workload (1-8 GPUs on four 4-GPU nodes, faster than served) with and
  // without the change log the plan, and a whole pass that started nothing, are reused by:
  // every job starts at the same time on the same nodes; so is the plan's skipping of the
  // releases after which the head cannot fit. With `lengths: estimate` runs
  // overrun their expected ends, so a reused plan must move its time with now. With depth 3
  // most passes stop at the depth, so most arrivals repeat the pass before them; on spot
  // nodes interrupted jobs go back to the waiting jobs ahead of those a pass examined.
  // The plan is kept across runs that end first in order and runs started behind the head
  // (docs/scheduling.md, "Backfilling"); with jobs of 1-3 GPUs only the head takes part of a
  // node, and the plan is kept across ends and starts that end before its time only.
  const std::string whole = "{choice: [1, 2, 3, 4, 8], weights: [0.4, 0.2, 0.1, 0.2, 0.1]}";
  const std::string partial = "{choice: [1, 2, 3], weights: [0.4, 0.3, 0.3]}";
  // Each twice: as is, and checking every reused plan against a fresh one when it is reused.
  for (const bool check : {false, true}) {
    for (const auto& [lengths, depth, spot, sizes] :
         {std::tuple{"true", 100, false, whole}, std::tuple{"estimate", 100, false, whole},
          std::tuple{"true", 3, false, whole}, std::tuple{"estimate", 3, false, whole},
          std::tuple{"true", 3, true, whole}, std::tuple{"estimate", 3, true, whole},
          std::tuple{"true", 100, false, partial}, std::tuple{"estimate", 100, false, partial},
          std::tuple{"true", 100, true, partial}}) {
      INFO("lengths: " << lengths << ", depth: " << depth << ", spot: " << spot << ", gpus: " << sizes
                        << ", checked: " << check);
      std::string cluster = nodes(4);
      if (spot)
        cluster.replace(cluster.find("price: {on_demand_per_hour: 8}"),
                        std::string("price: {on_demand_per_hour: 8}").size(),
                        "market: spot, price: {spot_per_hour: 3}, interruptions: {process: poisson, rate: 0.3/h}");
      const models::Scenario s = test::scenario_from_yaml(cluster + R"(seed: 13
workload:
  generators:
    - name: mix
      count: 400
      arrival: {dist: exponential, mean: )" + std::string(sizes == whole ? "10m" : "4m") + R"(}
      gpus: )" + sizes + R"(
      duration: {dist: lognormal, median: 1h, sigma: 1.0}
      estimate: {error: lognormal, sigma: 0.5}
)");
      BackfillParams p;
      p.lengths = std::string(lengths) == "true" ? models::Lengths::True : models::Lengths::Estimate;
      p.depth = depth;
      auto checked = std::make_unique<EasyBackfill>(std::make_unique<models::BestFitPlacement>(),
                                                    std::make_unique<models::BestFitPlacement>(), p);
      if (check) checked->check_reused_plans(true);
      // With the scenario's spot market, so the spot cases' nodes are interrupted.
      const test::ClusterRun logged_run(s, std::move(checked));
      const test::ClusterRun unlogged_run(s, std::make_unique<UnloggedBackfill>(p));
      const models::Cluster& logged = *logged_run.cluster;
      const models::Cluster& unlogged = *unlogged_run.cluster;
      std::size_t interrupted = 0;
      for (const models::Job& j : logged.jobs()) interrupted += j.interruptions();
      if (spot) CHECK(interrupted > 20);  // the spot cases test what they say
      REQUIRE(logged.jobs().size() == 400);
      REQUIRE(unlogged.jobs().size() == logged.jobs().size());
      std::size_t backfilled = 0;
      sim::SimTime latest_start = sim::SimTime::zero();
      for (std::size_t i = 0; i < logged.jobs().size(); ++i) {
        const models::Job& a = logged.jobs()[i];
        const models::Job& b = unlogged.jobs()[i];
        INFO("job " << a.name);
        // On spot nodes a job interrupted too often may still be running or waiting at the end.
        if (!spot) REQUIRE(a.status == JobStatus::Completed);
        CHECK(a.status == b.status);
        CHECK(a.interruptions() == b.interruptions());
        CHECK(a.end == b.end);
        CHECK(a.start == b.start);
        CHECK(a.nodes_offset == b.nodes_offset);
        if (a.start < latest_start) ++backfilled;
        latest_start = std::max(latest_start, a.start);
      }
      CHECK(backfilled > 20);  // the reservations decided something
    }
  }
}

TEST_CASE("conservative refuses a backfill that EASY makes, which delays the second waiting job",
          "[model][scheduler]") {
  // Two 4-GPU nodes. A (3 GPUs, 1h) on node 0, B (4 GPUs, 4h) on node 1 at 0. H1 (8 GPUs, 1h)
  // at 1m: reservation 4h (B's end), both nodes. H2 (4 GPUs, 1h) at 2m.
  // X (1 GPU, 2h) at 10m fits now on node 0 and ends at 2h10 <= 4h.
  //   EASY: X starts at 10m. At 1h (A ends) node 0 has 3 free: H2 waits for X, 2h10-3h10.
  //   conservative: H2 holds node 0 over [1h, 2h); X over [10m, 2h10) would overlap it, so
  //   X is reserved for 2h (H2's end; H1's [4h, 5h) does not overlap [2h, 4h)). H2 starts at
  //   1h, X at 2h. H1 starts at 4h under both.
  const std::string yaml = nodes(2) + R"(workload:
  jobs:
    - {name: A, submit: 0h, gpus: 3, duration: 1h}
    - {name: B, submit: 0h, gpus: 4, duration: 4h}
    - {name: H1, submit: 1m, gpus: 8, duration: 1h}
    - {name: H2, submit: 2m, gpus: 4, duration: 1h}
    - {name: X, submit: 10m, gpus: 1, duration: 2h}
)";
  BackfillRun easy(yaml, mode(BackfillMode::Easy));
  CHECK(easy.job("X").start == sim::minutes(10));
  CHECK(easy.job("H2").start == sim::hours(2) + sim::minutes(10));
  CHECK(easy.job("H1").start == sim::hours(4));
  BackfillRun conservative(yaml, mode(BackfillMode::Conservative));
  CHECK(conservative.job("X").start == sim::hours(2));
  CHECK(conservative.job("H2").start == sim::hours(1));
  CHECK(conservative.job("H1").start == sim::hours(4));
}

namespace {
// One running job, on node 0 of a hand-built view.
class OneRunning final : public models::RunningJobs {
 public:
  OneRunning(std::uint32_t job, int gpus) : job_(job), gpus_(gpus) {}
  models::RunningPlace where(std::uint32_t job) const override {
    REQUIRE(job == job_);
    return models::RunningPlace{0, node_, gpus_};
  }

 private:
  std::uint32_t job_;
  int gpus_;
  std::uint32_t node_[1] = {0};
};
}  // namespace

TEST_CASE("a job running past its estimate moves the head's reservation later", "[model][scheduler]") {
  // One 4-GPU node. A (3 GPUs, estimate 1h, really longer) started at 0. H (4 GPUs) waits;
  // L (1 GPU, 30m) fits in the one free GPU. With `lengths: estimate`:
  //   at 0, H's reservation is 1h (A's expected end) and L ends at 30m <= 1h: L starts;
  //   at 2h A is still running: it may end any moment, so H's reservation is now, 2h, and L
  //   (ending at 2h30, on a GPU H needs) is refused.
  BackfillParams p;
  p.lengths = models::Lengths::Estimate;
  EasyBackfill policy(std::make_unique<models::BestFitPlacement>(), std::make_unique<models::BestFitPlacement>(), p);
  models::QueuedJob a{0, 3, sim::SimTime::zero(), 1};
  a.length_s = 3 * 3600.0;
  a.estimated_remaining_s = 3600.0;
  policy.run_started(a, sim::SimTime::zero());
  models::QueuedJob h{1, 4, sim::SimTime::zero(), 1};
  h.length_s = 3600.0;
  models::QueuedJob l{2, 1, sim::SimTime::zero(), 1};
  l.length_s = 1800.0;
  const std::vector<models::NodeTypeView> types{models::NodeTypeView{4, 1, 0, 1.0}};
  const std::vector<models::NodeView> node{models::NodeView{0, 1}};
  const OneRunning running(0, 3);
  const std::vector<models::QueuedJob> queue{h, l};
  for (const auto& [now, l_starts, reservation] :
       std::vector<std::tuple<sim::SimTime, bool, sim::SimTime>>{{sim::SimTime::zero(), true, sim::hours(1)},
                                                                 {sim::hours(2), false, sim::hours(2)}}) {
    INFO("now " << now.seconds() << " s");
    models::ClusterView view{now, types, node};
    view.running_jobs = &running;
    models::Decisions d;
    test::schedule_once(policy, view, queue, d);
    REQUIRE(policy.reservations().size() == 1);
    CHECK(policy.reservations()[0].job == 1);
    CHECK(policy.reservations()[0].start == reservation);
    CHECK(d.placements.size() == (l_starts ? 1u : 0u));
  }
}

TEST_CASE("EASY plans the head's reservation only when a job behind it could start", "[model][scheduler]") {
  // One 4-GPU node, A running since 0 with an expected end at 1h; H (4 GPUs) and L (1 GPU,
  // 30m) wait. A on all 4 GPUs: nothing can start, so the reservation would decide nothing
  // and none is planned. A on 3 GPUs: L fits in the free GPU, H's reservation (1h, A's end)
  // is planned, and L (ending at 30m <= 1h) starts.
  for (const auto& [a_gpus, l_starts] : std::vector<std::tuple<int, bool>>{{4, false}, {3, true}}) {
    INFO("A on " << a_gpus << " GPUs");
    EasyBackfill policy(std::make_unique<models::BestFitPlacement>(), std::make_unique<models::BestFitPlacement>(),
                        BackfillParams{});
    models::QueuedJob a{0, a_gpus, sim::SimTime::zero(), 1};
    a.length_s = 3600.0;
    policy.run_started(a, sim::SimTime::zero());
    models::QueuedJob h{1, 4, sim::SimTime::zero(), 1};
    h.length_s = 3600.0;
    models::QueuedJob l{2, 1, sim::SimTime::zero(), 1};
    l.length_s = 1800.0;
    const std::vector<models::NodeTypeView> types{models::NodeTypeView{4, 1, 0, 1.0}};
    const std::vector<models::NodeView> node{models::NodeView{0, 4 - a_gpus}};
    const OneRunning running(0, a_gpus);
    const std::vector<models::QueuedJob> queue{h, l};
    models::ClusterView view{sim::SimTime::zero(), types, node};
    view.running_jobs = &running;
    models::Decisions d;
    test::schedule_once(policy, view, queue, d);
    if (l_starts) {
      REQUIRE(policy.reservations().size() == 1);
      CHECK(policy.reservations()[0].job == 1);
      CHECK(policy.reservations()[0].start == sim::hours(1));
      REQUIRE(d.placements.size() == 1);
      CHECK(d.placements[0].job == 2);
    } else {
      CHECK(policy.reservations().empty());
      CHECK(d.placements.empty());
    }
  }
}

TEST_CASE("backfill: the same scenario and seed give the same trace", "[scenario][scheduler]") {
  for (const std::string policy : {"{policy: backfill}", "{policy: backfill, mode: conservative, depth: 20}"}) {
    INFO(policy);
    const std::string yaml = nodes(4) + "seed: 5\nscheduler: " + policy + R"(
workload:
  generators:
    - name: mix
      count: 200
      arrival: {dist: exponential, mean: 10m}
      gpus: {choice: [1, 2, 4, 8], weights: [0.5, 0.2, 0.2, 0.1]}
      duration: {dist: lognormal, median: 1h, sigma: 1.0}
)";
    const test::TempDir dir("backfill-determinism");
    const models::Scenario s = test::scenario_from_yaml(yaml);
    const auto a = test::run_to_trace(s, dir.file("a.h5"));
    const auto b = test::run_to_trace(s, dir.file("b.h5"));
    REQUIRE(a.jobs.size() == 200);
    REQUIRE(b.jobs.size() == a.jobs.size());
    for (std::size_t i = 0; i < a.jobs.size(); ++i) {
      CHECK(a.jobs[i].start_s == b.jobs[i].start_s);
      CHECK(a.jobs[i].end_s == b.jobs[i].end_s);
      CHECK(a.jobs[i].first_node == b.jobs[i].first_node);
    }
  }
}

TEST_CASE("backfill's keys are validated", "[unit][scheduler][config]") {
  const std::string head = nodes(1) + "workload:\n  jobs:\n    - {name: A, gpus: 1, duration: 1h}\nscheduler: ";
  CHECK(test::config_error([&] { test::scenario_from_yaml(head + "{policy: backfill, mode: eazy}"); }).code() ==
        ErrorCode::UnknownName);
  CHECK(test::config_error([&] { test::scenario_from_yaml(head + "{policy: backfill, depth: 0}"); }).code() ==
        ErrorCode::OutOfRange);
  CHECK(test::config_error([&] { test::scenario_from_yaml(head + "{policy: backfill, blocking: skip}"); }).code() ==
        ErrorCode::UnknownKey);
  REQUIRE_NOTHROW(test::scenario_from_yaml(head + "{policy: backfill, mode: conservative, depth: 5, lengths: estimate}"));
  // Conservative passes that plan afresh cost depth^2: depth is at most 500 there (issue 27:
  // depth 100000 with lengths: estimate took 57 s for 2,500 jobs); EASY's is not bounded.
  const auto deep = test::config_error(
      [&] { test::scenario_from_yaml(head + "{policy: backfill, mode: conservative, depth: 100000, lengths: estimate}"); });
  CHECK(deep.code() == ErrorCode::OutOfRange);
  CHECK(deep.key_path() == "scheduler.depth");
  CHECK(test::config_error([&] { test::scenario_from_yaml(head + "{policy: backfill, mode: conservative, depth: 501}"); })
            .code() == ErrorCode::OutOfRange);
  CHECK_NOTHROW(test::scenario_from_yaml(head + "{policy: backfill, mode: conservative, depth: 500}"));
  CHECK_NOTHROW(test::scenario_from_yaml(head + "{policy: backfill, depth: 100000}"));
}
