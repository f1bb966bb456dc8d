// finish-time-fair (Themis' rho) on small cases worked out by hand: a waiting job's rho
// grows until it passes a running job's and preempts it at a round, a tie does not
// preempt, the waiting order is the one computed at the last round (so the round length
// changes who goes first), it differs from fifo; and its keys' validation.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "models/cluster/cluster.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/scheduler/finish_time_fair.hpp"
#include "models/scheduler/placement.hpp"
#include "models/scheduler/scheduler_registry.hpp"
#include "sim/engine.hpp"
#include "support/scenario_support.hpp"
#include "support/scheduler_runs.hpp"

using namespace gcsim;

namespace {

std::string scenario(const std::string& scheduler, int gpus, const std::string& jobs, const std::string& horizon = "10d") {
  return test::one_node_scenario(scheduler, gpus, jobs, horizon);
}
using test::run_job_times;
const std::string& FREE = test::FREE_PREEMPTION;

}  // namespace

TEST_CASE("finish-time-fair: a short job's rho grows while it waits and preempts a long job at a round",
          "[model][scheduler]") {
  // 1 GPU, 5-minute round. A (100h = 6000m) runs from 0: its rho is constant, (0 - 0 +
  // 6000) / 6000 = 1. S (1h) arrives at 30m: rho_S(t) = (t - 30 + 60) / 60, exactly 1 at
  // the 30m tick: a tie, no preemption. At the 35m tick rho_S = 65/60 > 1: S preempts A,
  // runs 35-95m (its rho then constant, 65/60). A waits with 5965m left: rho_A(t) =
  // (t + 5965) / 6000 passes 65/60 only after t = 535m, long after S ended; A resumes at
  // 95m and ends at 95 + 5965 = 6060m.
  const std::string jobs = "    - {name: A, submit: 0m, gpus: 1, duration: 100h}\n"
                           "    - {name: S, submit: 30m, gpus: 1, duration: 1h}\n";
  auto t = run_job_times(scenario("{policy: finish-time-fair, interval: 5m, " + FREE + "}", 1, jobs));
  CHECK(t["S"].end_min == Approx(95));
  CHECK(t["A"].end_min == Approx(6060));
  CHECK(t["A"].preemptions == 1);
  CHECK(t["S"].preemptions == 0);
  // The default round is 5m too.
  auto d = run_job_times(scenario("{policy: finish-time-fair, " + FREE + "}", 1, jobs));
  CHECK(d["S"].end_min == Approx(95));
  // A 10-minute round: ticks at 30m (the tie) and 40m: S runs 40-100m.
  auto ten = run_job_times(scenario("{policy: finish-time-fair, interval: 10m, " + FREE + "}", 1, jobs));
  CHECK(ten["S"].end_min == Approx(100));
  CHECK(ten["A"].end_min == Approx(6060));
  // preempt: false: S waits for A, as under fifo.
  auto n = run_job_times(scenario("{policy: finish-time-fair, preempt: false}", 1, jobs));
  CHECK(n["S"].start_min == Approx(6000));
  CHECK(n["A"].preemptions == 0);
}

TEST_CASE("finish-time-fair: the waiting order is the one at the last round, and differs from fifo",
          "[model][scheduler]") {
  // 1 GPU. A (60m) runs from 0. B (1000m) arrives at 10m, C (100m) at 50m; at t (minutes)
  // rho_B = 1 + (t - 10) / 1000 and rho_C = 1 + (t - 50) / 100: C's passes B's at t = 54.4m.
  // A ends at 60m and the pass orders by rho at the last tick:
  //  - interval 100m: the tick is 0: rho_B = 0.99, rho_C = 0.5: B runs 60-1060m, C 1060-1160m
  //    (preempt: false; fifo does the same);
  //  - interval 20m: the tick is 60m: rho_B = 1.05, rho_C = 1.1: C runs 60-160m, B 160-1160m.
  const std::string jobs = "    - {name: A, submit: 0m, gpus: 1, duration: 60m}\n"
                           "    - {name: B, submit: 10m, gpus: 1, duration: 1000m}\n"
                           "    - {name: C, submit: 50m, gpus: 1, duration: 100m}\n";
  auto slow = run_job_times(scenario("{policy: finish-time-fair, interval: 100m, preempt: false}", 1, jobs));
  CHECK(slow["B"].start_min == Approx(60));
  CHECK(slow["C"].start_min == Approx(1060));
  auto fast = run_job_times(scenario("{policy: finish-time-fair, interval: 20m, preempt: false}", 1, jobs));
  CHECK(fast["C"].start_min == Approx(60));
  CHECK(fast["C"].end_min == Approx(160));
  CHECK(fast["B"].start_min == Approx(160));
  CHECK(fast["B"].end_min == Approx(1160));
  auto fifo = run_job_times(scenario("{policy: fifo}", 1, jobs));
  CHECK(fifo["B"].start_min == Approx(60));
  CHECK(fifo["C"].start_min == Approx(1060));
  // interval 100m with preemption: B starts at 60m (its rho constant: (60 - 10 + 1000) /
  // 1000 = 1.05); at the 100m tick rho_C = 1.5 > 1.05: C preempts B, runs 100-200m
  // (rho 1.5; B's, (t - 10 + 960) / 1000, stays below it until 590m); B resumes at 200m
  // with 960m left and ends at 1160m.
  auto pre = run_job_times(scenario("{policy: finish-time-fair, interval: 100m, " + FREE + "}", 1, jobs));
  CHECK(pre["C"].start_min == Approx(100));
  CHECK(pre["C"].end_min == Approx(200));
  CHECK(pre["B"].end_min == Approx(1160));
  CHECK(pre["B"].preemptions == 1);
  CHECK(pre["C"].preemptions == 0);
}

TEST_CASE("finish-time-fair: rho is finish time shared over length alone", "[unit][scheduler]") {
  models::FinishTimeFairParams p;
  models::FinishTimeFairScheduler ftf(std::make_unique<models::BestFitPlacement>(), p);
  models::QueuedJob q;
  q.job = 4;
  q.submit = sim::SimTime::from_seconds(100);
  q.length_s = 400;
  ftf.job_waiting(q);
  CHECK(ftf.rho(4, 100) == Approx(1.0));
  CHECK(ftf.rho(4, 500) == Approx(2.0));  // waited 400 s: shared (400 + 400) over alone 400
  // It runs from 300 s: its rho is fixed at (300 - 100 + 400) / 400 = 1.5.
  ftf.job_left(4);
  ftf.run_started(q, sim::SimTime::from_seconds(300));
  CHECK(ftf.rho(4, 300) == Approx(1.5));
  CHECK(ftf.rho(4, 600) == Approx(1.5));
  // Preempted at 400 s with 300 s left: T_ideal stays its first length, 400 s.
  ftf.run_ended(4, sim::SimTime::from_seconds(400));
  q.length_s = 300;
  ftf.job_waiting(q);
  CHECK(ftf.rho(4, 400) == Approx((400.0 - 100 + 300) / 400));
  CHECK(ftf.settings() == "placement: best-fit, blocking: strict, interval: 300 s, preempt: true");
}

TEST_CASE("finish-time-fair repeating a pass without a scan decides as running every pass", "[model][scheduler]") {
  // A random workload (1-8 GPUs on four 4-GPU nodes, arriving faster than served, with
  // saving preemptions) run twice: as is, where a strict pass that ended at a job that did
  // not fit is repeated without a scan while nothing it saw changed and its wake-up is
  // asked once, and with plain_passes, where every pass scans and asks again. Every job
  // must start at the same times on the same nodes, with the same preemptions. Spot
  // interruptions send jobs back to the waiting jobs (keyed anywhere in the order); a
  // 17-minute round makes passes between ticks, a 1-minute one ticks most of them. At the
  // lighter load (a job every 20 minutes) the queue is short and often blocked by a job
  // that arrived in the same round, before which a much longer arrival is keyed.
  for (const auto& [interval_min, spot, arrival] :
       {std::tuple{5, false, "8m"}, std::tuple{17, false, "8m"}, std::tuple{1, false, "8m"}, std::tuple{5, true, "8m"},
        std::tuple{17, true, "8m"}, std::tuple{5, false, "20m"}, std::tuple{17, false, "20m"}}) {
    INFO("interval " << interval_min << " min, spot: " << spot << ", arrivals every " << arrival);
    std::string yaml = "name: hand\nhorizon: 2000h\nrun_until: done\nseed: 11\n"
                       "scheduler: {policy: finish-time-fair, preemption: {save: 2m, restore: 3m}}\n"
                       "cluster:\n  node_types:\n"
                       "    - {name: n4, gpu: A100-40GB-SXM, gpus: 4, count: 4, price: {on_demand_per_hour: 8}}\n"
                       "workload:\n  generators:\n    - name: mix\n      count: 400\n"
                       "      arrival: {dist: exponential, mean: " + std::string(arrival) + "}\n"
                       "      gpus: {choice: [1, 2, 3, 4, 8], weights: [0.4, 0.2, 0.1, 0.2, 0.1]}\n"
                       "      duration: {dist: lognormal, median: 1h, sigma: 1.5}\n";
    if (spot)
      yaml.replace(yaml.find("price: {on_demand_per_hour: 8}"), std::string("price: {on_demand_per_hour: 8}").size(),
                   "market: spot, price: {spot_per_hour: 3}, interruptions: {process: poisson, rate: 0.3/h}");
    const models::Scenario s = test::scenario_from_yaml(yaml);
    models::FinishTimeFairParams p;
    p.interval = sim::SimTime::from_seconds(60.0 * interval_min);
    auto memo = std::make_unique<models::FinishTimeFairScheduler>(std::make_unique<models::BestFitPlacement>(), p);
    const models::FinishTimeFairScheduler& memo_ref = *memo;
    auto plain = std::make_unique<models::FinishTimeFairScheduler>(std::make_unique<models::BestFitPlacement>(), p);
    plain->plain_passes(true);
    const models::FinishTimeFairScheduler& plain_ref = *plain;
    sim::Engine e1;
    models::Cluster a(e1, s, models::expand_workload(s, 0), std::move(memo));
    a.start();
    e1.run();
    sim::Engine e2;
    models::Cluster b(e2, s, models::expand_workload(s, 0), std::move(plain));
    b.start();
    e2.run();
    REQUIRE(a.jobs().size() == 400);
    REQUIRE(b.jobs().size() == a.jobs().size());
    CHECK(e1.events_handled() == e2.events_handled());
    int preempted = 0;
    for (std::size_t i = 0; i < a.jobs().size(); ++i) {
      const models::Job& x = a.jobs()[i];
      const models::Job& y = b.jobs()[i];
      INFO("job " << x.name);
      CHECK(x.status == y.status);
      CHECK(x.start == y.start);
      CHECK(x.end == y.end);
      CHECK(x.nodes_offset == y.nodes_offset);
      CHECK(x.preemptions() == y.preemptions());
      preempted += x.preemptions();
    }
    CHECK(preempted > 10);                     // the rounds decided something
    CHECK(memo_ref.repeated_passes() > 100);   // and passes were repeated
    CHECK(plain_ref.repeated_passes() == 0);
  }
}

TEST_CASE("finish-time-fair's keys are validated like every other key", "[unit][scheduler][config]") {
  const std::string one = "    - {gpus: 1, duration: 1h}\n";
  const auto fails = [&](const std::string& scheduler, ErrorCode code, const std::string& text) {
    try {
      test::scenario_from_yaml(scenario(scheduler, 1, one));
      FAIL("accepted " << scheduler);
    } catch (const ConfigError& e) {
      CHECK(e.code() == code);
      CHECK_THAT(e.what(), Catch::Contains(text));
    }
  };
  fails("{policy: finish-time-fair, interval: 0s}", ErrorCode::OutOfRange, "");
  // The round's floor, a second (limits::MIN_POLICY_ROUND): `interval: 1ns` never ended.
  fails("{policy: finish-time-fair, interval: 1ns}", ErrorCode::OutOfRange,
        "scheduler.interval: '1ns' is out of range: must be at least");
  fails("{policy: finish-time-fair, interval: 999ms}", ErrorCode::OutOfRange, "");
  CHECK_NOTHROW(test::scenario_from_yaml(scenario("{policy: finish-time-fair, interval: 1s}", 1, one)));
  fails("{policy: finish-time-fair, interval: 5}", ErrorCode::BadUnit, "");
  fails("{policy: finish-time-fair, preempt: maybe}", ErrorCode::WrongType, "");
  fails("{policy: finish-time-fair, lengths: estimate}", ErrorCode::UnknownKey, "lengths");
  fails("{policy: finish-time-fair, intervl: 5m}", ErrorCode::UnknownKey, "interval");
  fails("{policy: finish-time-fair, blocking: sometimes}", ErrorCode::UnknownName, "sometimes");
  CHECK_NOTHROW(test::scenario_from_yaml(scenario("{policy: finish-time-fair, blocking: skip, interval: 1h, preempt: false}", 1, one)));
}
