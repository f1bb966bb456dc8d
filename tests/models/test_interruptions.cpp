// Interruptions, checkpoints and restarts on the cluster, driven by a scripted market (the
// real markets are tested in tests/models/spot/). Every time below is computed by hand in
// the comments; the statistical cases check the Young/Daly first-order expectation.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/accounting/cost_meter.hpp"
#include "models/cluster/cluster.hpp"
#include "models/scheduler/fifo.hpp"
#include "models/workload/checkpoint_interval.hpp"
#include "models/coupling/expand_workload.hpp"
#include "sim/engine.hpp"
#include "sim/rng.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::JobStatus;
using sim::SimTime;

namespace {

using test::hours;
using test::minutes;

// Node events at given times: notice at down - notice, down, and up again after `gap`.
struct ScriptedMarket {
  sim::Engine& engine;
  models::NodeEventSink& sink;
  struct Step {
    SimTime at;
    int kind;  // 0 notice, 1 down, 2 up
    std::uint32_t node;
    SimTime down_at;
  };
  std::vector<Step> steps;
  void interrupt(std::uint32_t node, SimTime down_at, SimTime notice, SimTime back_after) {
    steps.push_back({down_at - notice, 0, node, down_at});
    steps.push_back({down_at, 1, node, down_at});
    steps.push_back({down_at + back_after, 2, node, down_at});
  }
  void start() {
    for (std::size_t i = 0; i < steps.size(); ++i) engine.schedule_at<&ScriptedMarket::fire>(steps[i].at, this, i);
  }
  void fire(std::uint64_t i) {
    const Step& s = steps[i];
    if (s.kind == 0) sink.notice(s.node, s.down_at);
    else if (s.kind == 1) sink.down(s.node, models::NodeReason::SpotInterruption);
    else sink.up(s.node, models::NodeReason::SpotReplacement);
  }
};

// A Poisson market for one node: exponential lifetimes from a named stream; the replacement
// comes up `provisioning` after the loss.
struct PoissonMarket {
  sim::Engine& engine;
  models::NodeEventSink& sink;
  sim::RngStream rng;
  double mtbf_s;
  SimTime provisioning;
  void start() { arm(); }
  void arm() {
    const SimTime life = SimTime::from_seconds(rng.exponential(mtbf_s));
    engine.schedule_at<&PoissonMarket::on_down>(engine.now().saturating_add(life), this, 0);
  }
  void on_down(std::uint64_t) {
    sink.down(0, models::NodeReason::SpotInterruption);
    engine.schedule_at<&PoissonMarket::on_up>(engine.now() + provisioning, this, 0);
  }
  void on_up(std::uint64_t) {
    sink.up(0, models::NodeReason::SpotReplacement);
    arm();
  }
};

struct Run {
  models::Scenario scenario;
  sim::Engine engine;
  models::Cluster cluster;
  explicit Run(const std::string& yaml, double rate_per_s = 0)
      : scenario(with_rate(test::scenario_from_yaml(yaml), rate_per_s)),
        cluster(engine, scenario, models::expand_workload(scenario, 0), std::make_unique<models::FifoScheduler>()) {}
  static models::Scenario with_rate(models::Scenario s, double rate) {
    s.cluster.node_types[0].interruption_rate_per_s = rate;
    return s;
  }
  const models::Job& job(std::size_t i = 0) const { return cluster.jobs()[i]; }
  // Runs to the end with node 0 taken at `down_at` after `notice`, back `back_after` later.
  Run& interrupted(SimTime down_at, SimTime notice, SimTime back_after);
};

const std::string ONE_NODE = R"(name: spot
horizon: 100d
cluster:
  node_types:
    - {name: n1, gpu: V100-SXM2-16GB, gpus: 1, count: 1, price: {on_demand_per_hour: 1}}
workload:
  jobs:
)";

double hours_of(SimTime t) { return t.seconds() / 3600; }

Run& Run::interrupted(SimTime down_at, SimTime notice, SimTime back_after) {
  ScriptedMarket m{engine, cluster, {}};
  m.interrupt(0, down_at, notice, back_after);
  cluster.start();
  m.start();
  engine.run();
  return *this;
}

}  // namespace

TEST_CASE("An interrupted job without checkpoints loses all its work and starts over", "[model][spot]") {
  // 10 h job; node taken at 3h (notice 2m), back at 4h: the job reruns 4h-14h.
  Run run(ONE_NODE + "    - {name: A, gpus: 1, duration: 10h}\n");
  run.interrupted(hours(3), minutes(2), hours(1));
  const auto& A = run.job();
  CHECK(A.status == JobStatus::Completed);
  CHECK(A.start == SimTime::zero());
  CHECK(A.run_start == hours(4));
  CHECK(A.end == hours(14));
  CHECK(A.interruptions() == 1);
  CHECK(A.lost_gpu_s() == Approx(3 * 3600.0));
  CHECK(A.held_gpu_s == Approx(13 * 3600.0));
}

TEST_CASE("Checkpoints every hour: lost work is what followed the last one", "[model][spot]") {
  // every 1h of progress, write 3m (training paused), restore 3m.
  // Run 1: compute 0-1h, write 1h-1h03 (saves 1h), compute 1h03-2h03, write 2h03-2h06 (saves
  // 2h), compute from 2h06. Taken at 2h30 (notice 2m < 3m write: no last checkpoint): work
  // 2h24m, saved 2h, lost 24m. Run 2 from 3h: restore 3m, then 8h of work with 7 checkpoints
  // (after 1..7 h of progress; none at the end): 3h03 + 8h + 21m = 11h24m.
  Run run(ONE_NODE + "    - {name: A, gpus: 1, duration: 10h, checkpoint: {every: 1h, write_time: 3m, restore_time: 3m}}\n");
  run.interrupted(minutes(150), minutes(2), minutes(30));
  const auto& A = run.job();
  CHECK(A.end == minutes(11 * 60 + 24));
  CHECK(A.lost_gpu_s() == Approx(24 * 60.0));
  CHECK(A.checkpoints() == 2 + 7);
  CHECK(A.checkpoint_gpu_s() == Approx(9 * 180.0));
  CHECK(A.restart_gpu_s() == Approx(180.0));
}

TEST_CASE("A last checkpoint that fits in the notice saves everything", "[model][spot]") {
  // As above, with a 5m notice at 2h25 for 2h30: the 3m write fits. Work at 2h25 is
  // 2h + (2h25 - 2h06) = 2h19m, all saved. Run 2 from 3h: restore 3m, 7h41m of work with 7
  // checkpoints: 3h03 + 7h41 + 21m = 11h05m.
  Run run(ONE_NODE + "    - {name: A, gpus: 1, duration: 10h, checkpoint: {every: 1h, write_time: 3m, restore_time: 3m}}\n");
  run.interrupted(minutes(150), minutes(5), minutes(30));
  const auto& A = run.job();
  CHECK(A.lost_gpu_s() == 0);
  CHECK(A.end == minutes(11 * 60 + 5));
  CHECK(A.checkpoints() == 2 + 1 + 7);
}

TEST_CASE("A write that ends exactly when the node goes still counts", "[model][spot]") {
  // Notice 3m = write 3m: the last checkpoint commits at 2h30, the instant the node goes.
  Run run(ONE_NODE + "    - {name: A, gpus: 1, duration: 10h, checkpoint: {every: 1h, write_time: 3m, restore_time: 3m}}\n");
  run.interrupted(minutes(150), minutes(3), minutes(30));
  const auto& A = run.job();
  // Work at 2h27 = 2h21m saved: run 2 needs 7h39m + 7 checkpoints: 3h03 + 7h39 + 21m.
  CHECK(A.lost_gpu_s() == 0);
  CHECK(A.end == minutes(11 * 60 + 3));
}

TEST_CASE("A job that would finish within the notice just finishes", "[model][spot]") {
  // 2h job, notice at 1h55 for 2h05: it ends at 2h, before the node goes.
  Run run(ONE_NODE + "    - {name: A, gpus: 1, duration: 2h, checkpoint: {every: 10h, write_time: 3m}}\n");
  run.interrupted(minutes(125), minutes(10), minutes(30));
  CHECK(run.job().end == hours(2));
  CHECK(run.job().interruptions() == 0);
}

TEST_CASE("Queued jobs wait while the node is down, a noticed node takes no new job", "[model][spot]") {
  // A (1h) runs 0-1h. The node is noticed at 1h (down at 1h10, back at 2h10): B, queued since
  // 30m, cannot start on a noticed node and waits for 2h10.
  Run run(ONE_NODE + "    - {name: A, gpus: 1, duration: 1h}\n    - {name: B, submit: 30m, gpus: 1, duration: 1h}\n");
  run.interrupted(minutes(70), minutes(10), hours(1));
  CHECK(run.job(0).end == hours(1));
  CHECK(run.job(1).start == minutes(130));
  CHECK(run.job(1).interruptions() == 0);
}

namespace {
// Mean completion time of a 100 h job on one node with exponential lifetimes (mean M),
// checkpoint write delta and restore R, over `reps` seeded replications.
double mean_completion_h(const std::string& checkpoint, double mtbf_h, int reps, std::uint64_t seed = 7) {
  double sum = 0;
  for (int r = 0; r < reps; ++r) {
    Run run(ONE_NODE + "    - {name: A, gpus: 1, duration: 100h, checkpoint: " + checkpoint + "}\n", 1.0 / (mtbf_h * 3600));
    PoissonMarket m{run.engine, run.cluster, sim::RngStream(seed, static_cast<std::uint64_t>(r), "test.market"),
                    mtbf_h * 3600, SimTime::zero()};
    run.cluster.start();
    m.start();
    run.engine.run();
    REQUIRE(run.job().status == JobStatus::Completed);
    sum += hours_of(run.job().end);
  }
  return sum / reps;
}
}  // namespace

TEST_CASE("Poisson interruptions: mean completion time matches the Young/Daly first-order model", "[model][spot][.slow]") {
  // W = 100 h, tau = 1 h, delta = R = 3 m, M = 20 h:
  //   T = W (1 + delta/tau + (tau/2 + R)/M) = 100 (1 + 0.05 + 0.55/20) = 107.75 h.
  // Daly's exact expectation for exponential failures, W/tau segments of tau + delta each:
  //   T = (W/tau) M e^{R/M} (e^{(tau+delta)/M} - 1) = 108.07 h; first order is 0.3% lower.
  // The standard deviation of one run is about 1.4 h (about 5.4 interruptions, each losing
  // U(0, 1.05 h) + 3 m), so 400 replications give a standard error of about 0.07 h; we
  // assert the mean within 1% (1.08 h) of the first-order figure and within 0.5 h of Daly's.
  const double first = models::first_order_wall_s(100, 1, 0.05, 0.05, 20);
  CHECK(first == Approx(107.75));
  const double daly = 100 * 20 * std::exp(0.05 / 20) * (std::exp(1.05 / 20) - 1);
  const double mean = mean_completion_h("{every: 1h, write_time: 3m, restore_time: 3m}", 20, 400);
  CHECK(mean == Approx(first).epsilon(0.01));
  CHECK(std::abs(mean - daly) < 0.5);
}

TEST_CASE("every: optimal lands within a few percent of the best fixed interval", "[model][spot][.slow]") {
  // delta = 3 m, M = 5 h: Young sqrt(2 delta M) = 0.707 h; Daly 0.707 x (1 + sqrt(0.005)/3 + 0.005/9) - 0.05 = 0.674 h. The sweep uses common
  // random numbers (same seeds) so the comparison is between intervals, not between draws.
  const double mtbf_h = 5;
  const int reps = 150;
  double best = 1e300;
  for (const char* every : {"10m", "20m", "30m", "45m", "1h", "90m", "2h", "3h"})
    best = std::min(best, mean_completion_h(std::string("{every: ") + every + ", write_time: 3m, restore_time: 3m}", mtbf_h, reps));
  const double optimal = mean_completion_h("{every: optimal, write_time: 3m, restore_time: 3m}", mtbf_h, reps);
  CHECK(models::daly_interval_s(180, 5 * 3600) / 3600 == Approx(0.6742).epsilon(0.001));
  CHECK(optimal <= best * 1.02);
}
