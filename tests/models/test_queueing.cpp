// Queueing theory check: 1-GPU jobs with exponential inter-arrival times and durations on
// one node of c GPUs under FIFO form an M/M/c queue, whose mean wait in queue is given by
// the Erlang C formula (Kleinrock, Queueing Systems Vol. 1, 1975, sec. 3.5):
//   C(c, a) = (a^c/c! * c/(c-a)) / (sum_{k<c} a^k/k! + a^c/c! * c/(c-a)),  a = lambda/mu
//   Wq = C(c, a) / (c mu - lambda)
// Each case runs R independent replications; the test asserts that the replication means
// agree with Wq within 4 standard errors (a false alarm about 1 in 16,000), and that the
// standard error is under 4% of Wq, so a wrong capacity (c +- 1 moves Wq by over 60%),
// a wrong arrival or service rate, or a queue that lets jobs overtake cannot pass.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/accounting/cost_meter.hpp"
#include "models/cluster/cluster.hpp"
#include "models/scheduler/fifo.hpp"
#include "models/coupling/expand_workload.hpp"
#include "sim/engine.hpp"
#include "support/queueing.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

using test::erlang_c_wait;

// Mean wait (seconds) of one replication, dropping the first 10% of jobs as warm-up.
double mean_wait(int c, double mean_interarrival_h, double mean_service_h, int jobs, std::uint64_t rep) {
  const std::string yaml = "name: mmc\nseed: 2024\nhorizon: 40000d\ncluster:\n  node_types:\n"
                           "    - {name: n, gpu: T4, gpus: " + std::to_string(c) +
                           ", count: 1, price: {on_demand_per_hour: 1}}\n"
                           "workload:\n  generators:\n"
                           "    - {name: q, count: " + std::to_string(jobs) +
                           ", arrival: {dist: exponential, mean: " + std::to_string(mean_interarrival_h) +
                           "h}, gpus: 1, duration: {dist: exponential, mean: " + std::to_string(mean_service_h) +
                           "h}}\n";
  double sum = 0;
  int n = 0, completed = 0;
  for (const auto& j : test::run_jobs(test::scenario_from_yaml(yaml), rep)) {
    completed += j.status == models::JobStatus::Completed;
    if (j.id < static_cast<std::uint32_t>(jobs / 10)) continue;
    sum += (j.start - j.submit).seconds();
    ++n;
  }
  REQUIRE(completed == jobs);
  return sum / n;
}

void check_mmc(int c, double lambda_per_h, double mu_per_h, int jobs, int replications) {
  const double expected_s = erlang_c_wait(c, lambda_per_h, mu_per_h) * 3600.0;
  double sum = 0, sum2 = 0;
  for (int r = 0; r < replications; ++r) {
    const double w = mean_wait(c, 1.0 / lambda_per_h, 1.0 / mu_per_h, jobs, static_cast<std::uint64_t>(r));
    sum += w;
    sum2 += w * w;
  }
  const double mean = sum / replications;
  const double var = (sum2 - replications * mean * mean) / (replications - 1);
  const double se = std::sqrt(var / replications);
  INFO("c=" << c << " lambda=" << lambda_per_h << "/h mu=" << mu_per_h << "/h: simulated Wq " << mean
            << " s, Erlang C " << expected_s << " s, standard error " << se << " s");
  CHECK(se < 0.04 * expected_s);
  CHECK(std::abs(mean - expected_s) < 4 * se);
}

}  // namespace

TEST_CASE("Erlang C formula against hand-computed values", "[unit][queueing]") {
  // a = 3, c = 4: C = 13.5 / 26.5; Wq = C / (4 - 3) hours.
  CHECK(erlang_c_wait(4, 3.0, 1.0) == Approx(13.5 / 26.5).epsilon(1e-12));
  // M/M/1: Wq = rho / (mu - lambda).
  CHECK(erlang_c_wait(1, 0.5, 1.0) == Approx(1.0).epsilon(1e-12));
}

TEST_CASE("FIFO 1-GPU jobs on a 4-GPU node match M/M/4 (Erlang C)", "[model][queueing][.slow]") {
  check_mmc(4, 3.0, 1.0, 60000, 12);  // rho = 0.75, Wq = 0.5094 h
}

TEST_CASE("FIFO 1-GPU jobs on a 1-GPU node match M/M/1", "[model][queueing][.slow]") {
  check_mmc(1, 0.5, 1.0, 40000, 12);  // rho = 0.5, Wq = 1 h
}
