// priority, las and fair-share on small cases worked out by hand: priority preempts only
// lower classes, LAS demotes by attained service and promotes against starvation on its
// round, fair-share's decayed usage is the integral it claims and its shares converge to
// the weights under saturation; and the keys' validation.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "models/scheduler/fair_share.hpp"
#include "models/scheduler/las.hpp"
#include "models/register_builtins.hpp"
#include "models/scheduler/scheduler_registry.hpp"
#include "models/simulation.hpp"
#include "support/scheduler_runs.hpp"

using namespace gcsim;

namespace {

std::string scenario(const std::string& scheduler, int gpus, const std::string& jobs, const std::string& horizon = "3d") {
  return test::one_node_scenario(scheduler, gpus, jobs, horizon);
}
using test::run_job_times;
const std::string& FREE = test::FREE_PREEMPTION;
using Times = std::map<std::string, test::JobTimes>;

// A-D (1 GPU, 10h) submitted at 0m and E-H (1 GPU, 1h, with `short_keys`) at 30m.
std::string four_long_four_short(const std::string& short_keys) {
  std::string jobs;
  for (const char* n : {"A", "B", "C", "D"})
    jobs += std::string("    - {name: ") + n + ", submit: 0m, gpus: 1, duration: 10h}\n";
  for (const char* n : {"E", "F", "G", "H"})
    jobs += std::string("    - {name: ") + n + ", submit: 30m, gpus: 1, duration: 1h" + short_keys + "}\n";
  return jobs;
}
// Each of `names` first started at start_min and ended at end_min.
void check_runs(Times& t, std::initializer_list<const char*> names, double start_min, double end_min) {
  for (const char* n : names) {
    INFO(n);
    CHECK(t[n].start_min == Approx(start_min));
    CHECK(t[n].end_min == Approx(end_min));
  }
}
// Each of `names` was preempted once and ended at end_min.
void check_preempted_once(Times& t, std::initializer_list<const char*> names, double end_min) {
  for (const char* n : names) {
    INFO(n);
    CHECK(t[n].preemptions == 1);
    CHECK(t[n].end_min == Approx(end_min));
  }
}

}  // namespace

TEST_CASE("priority preempts the lowest class, latest submitted first, and never its own class", "[model][scheduler]") {
  // 2 GPUs. A and B (class 0, 2h each) start at 0. H (class 5, 1h) at 30m preempts B (the
  // later of the lowest class): H 30-90m. M (class 5) at 40m preempts A: M 40-100m. At 90m
  // A (submitted first) resumes with 80m left: ends 170m; at 100m B, 90m left: ends 190m.
  const std::string jobs = "    - {name: A, submit: 0m, gpus: 1, duration: 2h}\n"
                           "    - {name: B, submit: 0m, gpus: 1, duration: 2h}\n"
                           "    - {name: H, submit: 30m, gpus: 1, duration: 1h, priority: 5}\n"
                           "    - {name: M, submit: 40m, gpus: 1, duration: 1h, priority: 5}\n";
  auto t = run_job_times(scenario("{policy: priority, " + FREE + "}", 2, jobs));
  CHECK(t["H"].start_min == Approx(30));
  CHECK(t["H"].end_min == Approx(90));
  CHECK(t["M"].start_min == Approx(40));
  CHECK(t["M"].end_min == Approx(100));
  CHECK(t["A"].end_min == Approx(170));
  CHECK(t["B"].end_min == Approx(190));
  CHECK(t["A"].preemptions == 1);
  CHECK(t["B"].preemptions == 1);
  // preempt: false: H and M wait for A and B (120m), then go first by class.
  auto n = run_job_times(scenario("{policy: priority, preempt: false}", 2, jobs));
  CHECK(n["H"].start_min == Approx(120));
  CHECK(n["M"].start_min == Approx(120));
  CHECK(n["A"].preemptions == 0);

  // 1 GPU. A (class 5, 2h) at 0; B (class 5) at 10m waits: same class. C (class 9, 1h) at
  // 20m preempts A: C 20-80m. Then A, submitted before B in their class, resumes (100m
  // left): 80-180m; B starts at 180m.
  const std::string same = "    - {name: A, submit: 0m, gpus: 1, duration: 2h, priority: 5}\n"
                           "    - {name: B, submit: 10m, gpus: 1, duration: 1h, priority: 5}\n"
                           "    - {name: C, submit: 20m, gpus: 1, duration: 1h, priority: 9}\n";
  auto s = run_job_times(scenario("{policy: priority, " + FREE + "}", 1, same));
  CHECK(s["C"].start_min == Approx(20));
  CHECK(s["A"].end_min == Approx(180));
  CHECK(s["B"].start_min == Approx(180));
  CHECK(s["A"].preemptions == 1);
  CHECK(s["B"].preemptions == 0);
}

TEST_CASE("priority, srtf and finish-time-fair make room for every waiting job they can in one pass, whatever the stop takes",
          "[model][scheduler]") {
  // 4 GPUs. A-D (class 0, 1 GPU, 10h) run from 0; E-H (class 5, 1 GPU, 1h) arrive at 30m.
  // Preempted jobs take 1 minute to stop. The pass at 30m preempts D, C, B and A (the
  // lowest class, the latest submitted first) for E, F, G and H at once: all four stop at
  // 31m, and E-H run 31-91m. A-D resume at 91m with 570m left: they end at 661m. A pass
  // that made room for the first waiting job only would preempt the next one's victim at
  // the stop of the last, a minute later: E at 31m, F 32m, G 33m, H 34m.
  // srtf: E-H (1h) are shorter than what A-D have left (9.5h): the same times.
  const std::string jobs = four_long_four_short(", priority: 5");
  for (const std::string policy : {"priority", "srtf"}) {
    for (const std::string blocking : {"strict", "skip"}) {
      INFO(policy << ", " << blocking);
      auto t = run_job_times(scenario(
          "{policy: " + policy + ", blocking: " + blocking + ", preemption: {save: 1m, restore: 0s}}", 4, jobs));
      check_runs(t, {"E", "F", "G", "H"}, 31, 91);
      check_preempted_once(t, {"A", "B", "C", "D"}, 661);
    }
  }
  // finish-time-fair (ignores `priority`), on a 5-minute round: at 30m a waiting job's rho
  // (60m alone, 60m expected) is 1, as the running jobs' (600m of 600m): no preemption. At
  // the 35m tick E-H's rho is 65/60, above A-D's 1: the round preempts all four, they stop
  // at 36m, and E-H run 36-96m (one a round would start them at 36, 41, 46 and 51 minutes).
  // A-D, 565m left, end at 661m.
  auto f = run_job_times(scenario("{policy: finish-time-fair, interval: 5m, preemption: {save: 1m, restore: 0s}}", 4, jobs));
  check_runs(f, {"E", "F", "G", "H"}, 36, 96);
  check_preempted_once(f, {"A", "B", "C", "D"}, 661);
}

TEST_CASE("las demotes a job by attained service at its round and preempts it for a new one", "[model][scheduler]") {
  // 1 GPU, one threshold at 1 GPU-hour, a 1-minute round. A (10h) runs from 0; B (1h)
  // arrives at 30m in the same queue (A has 0.5 GPU-h): no preemption. At the 60m tick A
  // has 1 GPU-h and moves down: B preempts it, runs 60-120m; A resumes: ends 660m.
  const std::string jobs = "    - {name: A, submit: 0m, gpus: 1, duration: 10h}\n"
                           "    - {name: B, submit: 30m, gpus: 1, duration: 1h}\n";
  auto t = run_job_times(scenario("{policy: las, thresholds: [1h], interval: 1m, promote: 0, " + FREE + "}", 1, jobs));
  CHECK(t["B"].start_min == Approx(60));
  CHECK(t["B"].end_min == Approx(120));
  CHECK(t["A"].end_min == Approx(660));
  CHECK(t["A"].preemptions == 1);
  // FIFO for comparison: B waits for A.
  auto f = run_job_times(scenario("{policy: fifo}", 1, jobs));
  CHECK(f["B"].start_min == Approx(600));
}

TEST_CASE("las makes room at its round for every waiting job it can, whatever the stop takes", "[model][scheduler]") {
  // 4 GPUs, threshold 1 GPU-hour, a 5-minute round. A-D (1 GPU, 10h) run from 0; E-H (1
  // GPU, 1h) arrive at 30m, in the same queue as A-D (0.5 GPU-h): they wait. At the 60m
  // tick A-D move down, and the round preempts all four for E-H, whose runs then end 60m
  // later; A-D resume and end 60m late (10h of work from 0, with 1h out): at 660m.
  const std::string jobs = four_long_four_short("");
  const std::string las = "policy: las, thresholds: [1h], interval: 5m, promote: 0";
  SECTION("stops of no time: all four start at the tick") {
    auto t = run_job_times(scenario("{" + las + ", " + FREE + "}", 4, jobs));
    check_runs(t, {"E", "F", "G", "H"}, 60, 120);
    check_preempted_once(t, {"A", "B", "C", "D"}, 660);
  }
  SECTION("a save of 1 minute: all four stop at 61m and E-H start then, not one a round") {
    // A round that made room for only the first waiting job (the next pass, at 61m, is no
    // tick) would start E at 61m, F at 66m, G at 71m and H at 76m.
    auto t = run_job_times(scenario("{" + las + ", preemption: {save: 1m, restore: 0s}}", 4, jobs));
    check_runs(t, {"E", "F", "G", "H"}, 61, 121);
    check_preempted_once(t, {"A", "B", "C", "D"}, 661);  // 1h out and 1m of save
  }
}

TEST_CASE("las's round holds each job's room: the next waiting job does not count it free", "[model][scheduler]") {
  // 4 GPUs, threshold 2 GPU-hours, preempted jobs take 1 minute to stop. A and B (2 GPUs,
  // 10h) run from 0; W1-W3 (2 GPUs, 1h) arrive at 30m and wait (A and B have 1 GPU-h). At
  // the 60m tick A and B (2 GPU-h each) move down. The round preempts B (the later
  // submitted) for W1 and holds B's GPUs for it, so W2 needs A's: A is preempted too; W3
  // finds no victim left and waits. Both stop at 61m; W1 and W2 run 61-121m. At 121m W3
  // (first queue) and A (lower queue, submitted before B) start; B when W3 ends, at 181m.
  // A: 1h done, 9h left from 121m, ends at 661m; B from 181m, ends at 721m. (Counting W1's
  // room as free, W2 would find room "coming" and preempt nobody: A would be preempted at
  // the next tick, 65m, and W2 start at 66m.)
  const std::string jobs = "    - {name: A, submit: 0m, gpus: 2, duration: 10h}\n"
                           "    - {name: B, submit: 0m, gpus: 2, duration: 10h}\n"
                           "    - {name: W1, submit: 30m, gpus: 2, duration: 1h}\n"
                           "    - {name: W2, submit: 30m, gpus: 2, duration: 1h}\n"
                           "    - {name: W3, submit: 30m, gpus: 2, duration: 1h}\n";
  for (const std::string blocking : {"strict", "skip"}) {
    INFO(blocking);
    auto t = run_job_times(scenario("{policy: las, thresholds: [2h], interval: 5m, promote: 0, blocking: " + blocking +
                                        ", preemption: {save: 1m, restore: 0s}}",
                                    4, jobs));
    CHECK(t["W1"].start_min == Approx(61));
    CHECK(t["W2"].start_min == Approx(61));
    CHECK(t["W3"].start_min == Approx(121));
    CHECK(t["W3"].end_min == Approx(181));
    CHECK(t["A"].preemptions == 1);
    CHECK(t["B"].preemptions == 1);
    CHECK(t["W3"].preemptions == 0);
    CHECK(t["A"].end_min == Approx(661));
    CHECK(t["B"].end_min == Approx(721));
  }
}

TEST_CASE("las's round takes back a job it looked at but did not preempt", "[model][scheduler]") {
  // 2 nodes of 4 GPUs, threshold 1 GPU-hour, stops of 1 minute. V1 (4 GPUs, from 0m) fills
  // node 0; V2 (2 GPUs, from 1m) and Z (2 GPUs, from 50m) node 1. W1 (3 GPUs) and W2 (2
  // GPUs), 1h each, arrive at 57m. At the 60m tick V1 and V2 are in the lower queue, Z (1/3
  // GPU-h) in the first. For W1 the search gives back V2 (the later submitted) and then
  // V1, and W1 fits on node 0: only V1 is preempted. V2, looked at but kept running, holds
  // its GPUs in the round's plan again, so W2 preempts it (counting them free, W2 would
  // wait for the next tick: V2 preempted at 65m, W2 started at 66m). W1 and W2 run 61-121m;
  // then V1 (9h left) and V2 (541m left) resume: 661m and 662m. Z is never preempted.
  const std::string yaml = "name: policy-case\nseed: 3\nhorizon: 3d\nrun_until: done\ncluster:\n  node_types:\n"
                           "    - {name: n, gpu: A100-40GB-SXM, gpus: 4, count: 2, price: {on_demand_per_hour: 1}}\n"
                           "scheduler: {policy: las, thresholds: [1h], interval: 5m, promote: 0, "
                           "preemption: {save: 1m, restore: 0s}}\n"
                           "workload:\n  jobs:\n"
                           "    - {name: V1, submit: 0m, gpus: 4, duration: 10h}\n"
                           "    - {name: V2, submit: 1m, gpus: 2, duration: 10h}\n"
                           "    - {name: Z, submit: 50m, gpus: 2, duration: 10h}\n"
                           "    - {name: W1, submit: 57m, gpus: 3, duration: 1h}\n"
                           "    - {name: W2, submit: 57m, gpus: 2, duration: 1h}\n";
  auto t = run_job_times(yaml);
  CHECK(t["W1"].start_min == Approx(61));
  CHECK(t["W2"].start_min == Approx(61));
  CHECK(t["V1"].preemptions == 1);
  CHECK(t["V2"].preemptions == 1);
  CHECK(t["Z"].preemptions == 0);
  CHECK(t["V1"].end_min == Approx(661));
  CHECK(t["V2"].end_min == Approx(662));
  CHECK(t["Z"].end_min == Approx(650));
}

TEST_CASE("las promotes a starving job back to the first queue: two long jobs take turns", "[model][scheduler]") {
  // As above with B as long as A (10h). Without promotion B, once ahead, keeps the GPU
  // (both in the lower queue: no preemption): B 60m-660m, A ends 1200m. With promote: 1 a
  // job waiting as long as it has run (counted) goes back to the first queue, so at every
  // hour the waiting one preempts the running one (which has just crossed 1 GPU-h again):
  // A runs [0,1], [2,3], ..., [18,19] h and ends at 19h; B [1,2], ..., [17,18], [19,20] h.
  const std::string jobs = "    - {name: A, submit: 0m, gpus: 1, duration: 10h}\n"
                           "    - {name: B, submit: 30m, gpus: 1, duration: 10h}\n";
  auto off = run_job_times(scenario("{policy: las, thresholds: [1h], interval: 1m, promote: 0, " + FREE + "}", 1, jobs));
  CHECK(off["B"].end_min == Approx(660));
  CHECK(off["A"].end_min == Approx(1200));
  auto on = run_job_times(scenario("{policy: las, thresholds: [1h], interval: 1m, promote: 1, " + FREE + "}", 1, jobs));
  CHECK(on["A"].end_min == Approx(19 * 60));
  CHECK(on["B"].end_min == Approx(20 * 60));
  CHECK(on["A"].preemptions == 9);
  CHECK(on["B"].preemptions == 9);
}

TEST_CASE("las: a promoted job joins the first queue behind the jobs already there", "[model][scheduler]") {
  // The case above with C (1h), submitted at 90m, never run. At the 120m tick A (waited
  // 60m = its counted 1h run) is promoted and B (1 GPU-h) demoted. Ordered by submission
  // A (0m) would go ahead of C (90m), and so would B at 180m, A at 240m, ...: the two
  // promoted jobs take turns as above (A ends 19h, B 20h) and C, never run, starves until
  // 20h. A promoted job's place is its promotion (120m), behind C (90m): C preempts B and
  // runs 120-180m; then A (promoted 120m) runs 180-240m, B (promoted 180m) 240-300m, ...:
  // A's 9 h left in the slots from 3h, 5h, ..., 19h, ends 20h; B's from 4h, ..., 20h, ends 21h.
  const std::string jobs = "    - {name: A, submit: 0m, gpus: 1, duration: 10h}\n"
                           "    - {name: B, submit: 30m, gpus: 1, duration: 10h}\n"
                           "    - {name: C, submit: 90m, gpus: 1, duration: 1h}\n";
  auto t = run_job_times(scenario("{policy: las, thresholds: [1h], interval: 1m, promote: 1, " + FREE + "}", 1, jobs));
  CHECK(t["C"].start_min == Approx(120));
  CHECK(t["C"].end_min == Approx(180));
  CHECK(t["C"].preemptions == 0);
  CHECK(t["A"].end_min == Approx(20 * 60));
  CHECK(t["B"].end_min == Approx(21 * 60));
  // A preempted at 1h, 4h, 6h, ..., 18h; B at 2h (for C), 5h, 7h, ..., 19h.
  CHECK(t["A"].preemptions == 9);
  CHECK(t["B"].preemptions == 9);
}

TEST_CASE("las keeps a preempted job's work by default: losing it livelocks", "[model][scheduler]") {
  // 1 GPU, A and B of 2h each without checkpoints, B submitted at 30m; threshold 1 GPU-h,
  // promote: 1. A runs 0-60m and is demoted; B (first queue) preempts it, runs 60-120m,
  // is demoted, and A, promoted at 120m (waited 60m = its 1h), preempts B.
  const std::string jobs = "    - {name: A, submit: 0m, gpus: 1, duration: 2h}\n"
                           "    - {name: B, submit: 30m, gpus: 1, duration: 2h}\n";
  const std::string las = "policy: las, thresholds: [1h], interval: 1m, promote: 1";
  SECTION("by default (no `preemption`) A resumes from its hour: A 120-180m, ends 3h; B 180-240m, ends 4h") {
    const auto spec = test::scenario_from_yaml(scenario("{" + las + "}", 1, jobs));
    CHECK(spec.scheduler.preemption.keep_without_checkpoint);
    auto t = run_job_times(scenario("{" + las + "}", 1, jobs));
    CHECK(t["A"].end_min == Approx(180));
    CHECK(t["B"].start_min == Approx(60));  // B arrives while A runs in the same queue: waits
    CHECK(t["B"].end_min == Approx(240));
    CHECK(t["A"].preemptions == 1);
    CHECK(t["B"].preemptions == 1);
    for (const auto& j : test::run_jobs(spec)) {
      CHECK(j.status == models::JobStatus::Completed);
      CHECK(j.lost_gpu_s() == 0);
    }
  }
  SECTION("with mode: lose every run is 1h of a 2h job, preempted at the next hour: neither ever ends") {
    // Preemptions at every hour from 1h to 72h, the 3-day horizon (its round comes before
    // the end): 72, 36 of A (1h, 3h, ..., 71h) and 36 of B, each losing the hour it ran.
    const auto spec = test::scenario_from_yaml(scenario("{" + las + ", preemption: {mode: lose}}", 1, jobs));
    CHECK_FALSE(spec.scheduler.preemption.keep_without_checkpoint);
    int preemptions = 0;
    for (const auto& j : test::run_jobs(spec)) {
      CHECK(j.status != models::JobStatus::Completed);
      preemptions += j.preemptions();
      CHECK(j.lost_gpu_s() == Approx(j.preemptions() * 3600.0));
    }
    CHECK(preemptions == 72);
  }
  SECTION("run_until: done ends such a livelock with an error at 100 lost preemptions; run_until: horizon does not") {
    // No completion and no arrival after B's at 30m; two live jobs: the guard's limit is
    // max(100, 10 x 2) = 100 preemptions that lost work, the 100th at 100h (4d 4h).
    const std::string yaml = scenario("{" + las + ", preemption: {mode: lose}}", 1, jobs, "30d");
    const auto spec = test::scenario_from_yaml(yaml);
    const auto run = [&] { models::run_simulation(spec, models::builtins().schedulers, nullptr); };
    REQUIRE_THROWS_AS(run(), Error);
    try {
      run();
    } catch (const Error& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.find("no progress (a livelock): from 30m") != std::string::npos);
      CHECK(what.find("to 4d 4h") != std::string::npos);
      CHECK(what.find("100 preemptions by the policy lost their runs' work") != std::string::npos);
      CHECK(what.find("run_until: horizon") != std::string::npos);
    }
    std::string to_horizon = yaml;
    to_horizon.replace(to_horizon.find("run_until: done"), 15, "run_until: horizon");
    int preemptions = 0;
    for (const auto& j : test::run_jobs(test::scenario_from_yaml(to_horizon))) preemptions += j.preemptions();
    CHECK(preemptions == 30 * 24);  // every hour from 1h to 720h
  }
  SECTION("other policies keep the old default: a job without checkpoints loses its run") {
    CHECK_FALSE(test::scenario_from_yaml(scenario("{policy: srtf}", 1, jobs)).scheduler.preemption.keep_without_checkpoint);
    CHECK_FALSE(test::scenario_from_yaml(scenario("{policy: priority}", 1, jobs)).scheduler.preemption.keep_without_checkpoint);
  }
}

TEST_CASE("las with several queues: a job's queue is the number of thresholds its service reached", "[unit][scheduler]") {
  models::LasParams p;
  p.queues = 3;
  p.thresholds_gpu_s = {3600, 36000};
  models::LasScheduler las(std::make_unique<models::BestFitPlacement>(), p);
  CHECK(las.queue_of(0) == 0);
  CHECK(las.queue_of(3599.9) == 0);
  CHECK(las.queue_of(3600) == 1);
  CHECK(las.queue_of(35999) == 1);
  CHECK(las.queue_of(36000) == 2);
  CHECK(las.queue_of(1e9) == 2);
  // queues: 3 without thresholds: 1 and 10 GPU-hours.
  const auto spec = test::scenario_from_yaml(scenario("{policy: las, queues: 3}", 1, "    - {gpus: 1, duration: 1h}\n"));
  auto made = models::builtins().schedulers.make(spec.scheduler);
  CHECK(made->settings().find("queues: 3, thresholds: 1 GPU-h 10 GPU-h") != std::string::npos);
}

TEST_CASE("fair-share's usage is the decayed integral of the GPUs a team held", "[unit][scheduler]") {
  // 2 GPUs held from 0 to one half-life h: usage = 2 * integral_0^h 2^(-(h-s)/h) ds =
  // 2 h / ln 2 * (1 - 1/2) = h / ln 2. One half-life later, with nothing running, half that.
  models::FairShareParams p;
  p.half_life = sim::SimTime::from_seconds(3600);
  models::FairShareScheduler fs(std::make_unique<models::BestFitPlacement>(), p);
  models::QueuedJob q;
  q.job = 0;
  q.gpus = 2;
  q.team = 0;
  fs.job_waiting(q);
  fs.job_left(0);
  fs.run_started(q, sim::SimTime::zero());
  const double h = 3600;
  CHECK(fs.usage_gpu_s(0, sim::SimTime::from_seconds(h)) == Approx(h / std::log(2.0)).epsilon(1e-12));
  fs.run_ended(0, sim::SimTime::from_seconds(h));
  CHECK(fs.usage_gpu_s(0, sim::SimTime::from_seconds(2 * h)) == Approx(h / std::log(2.0) / 2).epsilon(1e-12));
  CHECK(fs.usage_gpu_s(1, sim::SimTime::from_seconds(2 * h)) == 0);
}

TEST_CASE("fair-share converges to the weights under saturation", "[model][scheduler]") {
  // 4 GPUs; teams a (weight 3) and b (weight 1) each submit 400 one-GPU, one-hour jobs at
  // time 0, a's listed first. Each hour the 4 GPUs free together; fair-share gives them to
  // the team furthest below its share, so a holds 3 of 4 GPUs: over the first 100 h a's
  // share is 0.75, to within one hour's 4 GPUs out of 400 GPU-hours (0.01). FIFO gives a
  // everything until its jobs run out (share 1).
  std::string jobs;
  for (const char* team : {"a", "b"})
    for (int i = 0; i < 400; ++i)
      jobs += std::string("    - {name: ") + team + std::to_string(i) + ", gpus: 1, duration: 1h, team: " + team + "}\n";
  const auto share_of_a = [&](const std::string& scheduler) {
    double a = 0, all = 0;
    for (const auto& j : test::run_jobs(test::scenario_from_yaml(scenario(scheduler, 4, jobs, "30d")))) {
      const double end_h = std::min(j.end.seconds() / 3600, 100.0), start_h = j.start.seconds() / 3600;
      if (end_h <= start_h) continue;
      all += end_h - start_h;
      if (j.name[0] == 'a') a += end_h - start_h;
    }
    CHECK(all == Approx(400));
    return a / all;
  };
  CHECK(share_of_a("{policy: fair-share, weights: {a: 3, b: 1}}") == Approx(0.75).margin(0.01));
  CHECK(share_of_a("{policy: fair-share, weights: {a: 1, b: 1}}") == Approx(0.5).margin(0.01));
  CHECK(share_of_a("{policy: fifo}") == Approx(1.0));
}

TEST_CASE("the class policies' keys are validated like every other key", "[unit][scheduler][config]") {
  const std::string one = "    - {gpus: 1, duration: 1h, team: research}\n";
  const auto fails = [&](const std::string& scheduler, ErrorCode code, const std::string& text) {
    try {
      test::scenario_from_yaml(scenario(scheduler, 1, one));
      FAIL("accepted " << scheduler);
    } catch (const ConfigError& e) {
      CHECK(e.code() == code);
      CHECK_THAT(e.what(), Catch::Contains(text));
    }
  };
  fails("{policy: fair-share, weights: {reseach: 2}}", ErrorCode::UnknownName, "did you mean 'research'");
  fails("{policy: fair-share, weights: {research: 0}}", ErrorCode::OutOfRange, "> 0");
  fails("{policy: fair-share, half_lfe: 1d}", ErrorCode::UnknownKey, "half_life");
  fails("{policy: las, queues: 3, thresholds: [1h]}", ErrorCode::Conflict, "needs 2 thresholds");
  fails("{policy: las, thresholds: [2h, 1h]}", ErrorCode::OutOfRange, "increase");
  fails("{policy: las, interval: 0s}", ErrorCode::OutOfRange, "");
  // The round's floor, a second (limits::MIN_POLICY_ROUND): `interval: 1ns` never ended.
  fails("{policy: las, interval: 1ns}", ErrorCode::OutOfRange, "scheduler.interval: '1ns' is out of range: must be at least");
  fails("{policy: las, interval: 999ms}", ErrorCode::OutOfRange, "");
  CHECK_NOTHROW(test::scenario_from_yaml(scenario("{policy: las, interval: 1s}", 1, one)));
  fails("{policy: priority, preempt: maybe}", ErrorCode::WrongType, "");
  fails("{policy: fifo, preempt: true}", ErrorCode::UnknownKey, "preempt");
  // A job's class is an integer in -1000..1000.
  try {
    test::scenario_from_yaml(scenario("{policy: priority}", 1, "    - {gpus: 1, duration: 1h, priority: 1001}\n"));
    FAIL("accepted priority 1001");
  } catch (const ConfigError& e) {
    CHECK(e.code() == ErrorCode::OutOfRange);
  }
}
