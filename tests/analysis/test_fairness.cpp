// Jain's index, finish-time fairness and the Student t interval of gcsim compare, on
// samples and hand-built jobs whose figures are worked out in the comments.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "analysis/confidence.hpp"
#include "analysis/fairness.hpp"

using namespace gcsim::analysis;

namespace {

constexpr double NAN_S = std::numeric_limits<double>::quiet_NaN();

// A completed job: submitted at `submit_s`, ended at `end_s`, holding `gpus` GPUs for
// `held_gpu_s` GPU-seconds of which `lost_gpu_s` redone and `restart_gpu_s` restoring.
JobRecord job(const std::string& team, double submit_s, double start_s, double end_s, int gpus, double held_gpu_s,
              double lost_gpu_s = 0, double restart_gpu_s = 0) {
  JobRecord j;
  j.submit_s = submit_s;
  j.start_s = start_s;
  j.end_s = end_s;
  j.gpus = gpus;
  j.gpus_held = gpus;
  j.status = JobStatus::Completed;
  j.resilience.team = team;
  j.resilience.gpu_s_held = held_gpu_s;
  j.resilience.gpu_s_lost = lost_gpu_s;
  j.resilience.gpu_s_restart = restart_gpu_s;
  return j;
}

}  // namespace

TEST_CASE("Jain's index: 1 for equal shares, 1/n for one holder, (sum x)^2 / (n sum x^2) between", "[unit][analysis]") {
  const std::vector<double> equal{3, 3, 3, 3};
  CHECK(jain_index(equal) == Approx(1.0).epsilon(1e-15));
  const std::vector<double> one{5, 0, 0, 0};
  CHECK(jain_index(one) == Approx(0.25).epsilon(1e-15));
  // 1, 2, 3: 36 / (3 x 14) = 6/7.
  const std::vector<double> ramp{1, 2, 3};
  CHECK(jain_index(ramp) == Approx(6.0 / 7.0).epsilon(1e-15));
  CHECK(std::isnan(jain_index(std::vector<double>{})));
  CHECK(std::isnan(jain_index(std::vector<double>{0, 0})));
}

TEST_CASE("Finish-time fairness: JCT over the time the job's kept work took", "[unit][analysis]") {
  // Never interrupted: 2 GPUs held 1000 s, the run [100, 1100): alone 1000 s, JCT 1100 s, rho 1.1.
  const JobRecord plain = job("a", 0, 100, 1100, 2, 2000);
  CHECK(time_alone_s(plain) == Approx(1000.0).epsilon(1e-15));
  CHECK(finish_time_fairness(plain) == Approx(1.1).epsilon(1e-15));
  // Interrupted once: held 2 x 1600 = 3200 GPU-s, 2 x 500 redone, 2 x 100 restoring: alone
  // (3200 - 1000 - 200) / 2 = 1000 s; submitted at 0, done at 2000 s: rho 2.
  const JobRecord redone = job("a", 0, 0, 2000, 2, 3200, 1000, 200);
  CHECK(time_alone_s(redone) == Approx(1000.0).epsilon(1e-15));
  CHECK(finish_time_fairness(redone) == Approx(2.0).epsilon(1e-15));
  // Not completed: undefined.
  JobRecord running = plain;
  running.status = JobStatus::Running;
  running.end_s = NAN_S;
  CHECK(std::isnan(time_alone_s(running)));
  CHECK(std::isnan(finish_time_fairness(running)));

  TraceData t;
  t.jobs = {plain, redone, running};
  CHECK(worst_finish_time_fairness(t) == Approx(2.0).epsilon(1e-15));
  CHECK(std::isnan(worst_finish_time_fairness(TraceData{})));
}

TEST_CASE("Jain's index between teams is over their mean slowdowns", "[unit][analysis]") {
  TraceData t;
  // Team a: rho 1 and 3 (alone 100 s; JCT 100 s and 300 s): mean 2. Team b: rho 2.
  t.jobs = {job("a", 0, 0, 100, 1, 100), job("a", 0, 200, 300, 1, 100), job("b", 0, 100, 200, 1, 100)};
  const auto teams = team_slowdowns(t);
  REQUIRE(teams.size() == 2);
  CHECK(teams[0].team == "a");
  CHECK(teams[0].jobs == 2);
  CHECK(teams[0].mean_slowdown == Approx(2.0).epsilon(1e-15));
  CHECK(teams[1].mean_slowdown == Approx(2.0).epsilon(1e-15));
  CHECK(team_slowdown_jain(t) == Approx(1.0).epsilon(1e-15));
  // Team b waits: JCT 300 s, rho 3; team a's mean 2: 25 / (2 x 13) = 25/26.
  t.jobs[2] = job("b", 0, 200, 300, 1, 100);
  CHECK(team_slowdown_jain(t) == Approx(25.0 / 26.0).epsilon(1e-15));
  // Jobs without a team are left out; no team at all: undefined.
  for (JobRecord& j : t.jobs) j.resilience.team.clear();
  CHECK(std::isnan(team_slowdown_jain(t)));
}

TEST_CASE("95% Student t interval: 1, 2, 3 gives 2 +/- 4.303 / sqrt(3)", "[unit][analysis]") {
  const std::vector<double> sample{1, 2, 3};
  const MeanInterval m = mean_ci95(sample);
  CHECK(m.n == 3);
  CHECK(m.mean == Approx(2.0).epsilon(1e-15));
  // s = 1 (squares 1 + 0 + 1 over n - 1 = 2); t(2) = 4.303.
  CHECK(m.half_width == Approx(4.303 / std::sqrt(3.0)).epsilon(1e-12));
  CHECK(m.half_width == Approx(2.484).margin(5e-4));
  // NaN values are left out: {1, 3} has s = sqrt(2), half-width t(1) sqrt(2) / sqrt(2) = 12.706.
  const std::vector<double> with_gap{NAN_S, 1, 3};
  const MeanInterval g = mean_ci95(with_gap);
  CHECK(g.n == 2);
  CHECK(g.half_width == Approx(12.706).epsilon(1e-12));
  // One value: a mean, no interval; none: neither.
  const std::vector<double> single{5};
  CHECK(mean_ci95(single).mean == 5.0);
  CHECK(std::isnan(mean_ci95(single).half_width));
  CHECK(std::isnan(mean_ci95(std::vector<double>{NAN_S}).mean));
  CHECK(t_quantile_975(1) == 12.706);
  CHECK(t_quantile_975(30) == 2.042);
  CHECK(t_quantile_975(31) == 1.96);
}
