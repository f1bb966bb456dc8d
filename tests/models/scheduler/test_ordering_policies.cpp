// fifo, sjf and srtf on small cases worked out by hand (blocking strict and skip, lengths
// true and estimated), the run-time estimate keys, and determinism under every policy.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "models/cluster/cluster.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/scheduler/order_index.hpp"
#include "models/scheduler/scheduler_registry.hpp"
#include "sim/engine.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

std::string scenario(const std::string& scheduler, int gpus, const std::string& jobs) {
  return "name: order\nseed: 3\nhorizon: 2d\nrun_until: done\ncluster:\n  node_types:\n"
         "    - {name: n, gpu: A100-40GB-SXM, gpus: " + std::to_string(gpus) +
         ", count: 1, price: {on_demand_per_hour: 1}}\n"
         "scheduler: " + scheduler + "\nworkload:\n  jobs:\n" + jobs;
}

// Start time of each job, in minutes, by name.
std::map<std::string, double> starts_min(const std::string& yaml) {
  std::map<std::string, double> out;
  for (const auto& j : test::run_jobs(test::scenario_from_yaml(yaml))) out[j.name] = j.start.seconds() / 60;
  return out;
}

// 4 GPUs. A (3 GPUs, 1h) at 0 runs; B (2 GPUs, 1h) at 1m does not fit; C (1 GPU, 30m) at 2m does.
const std::string HOLE = "    - {name: A, submit: 0m, gpus: 3, duration: 1h}\n"
                         "    - {name: B, submit: 1m, gpus: 2, duration: 1h}\n"
                         "    - {name: C, submit: 2m, gpus: 1, duration: 30m}\n";

// 1 GPU. A (1h) at 0 runs; then B (30m), C (10m), D (20m) wait.
const std::string LENGTHS = "    - {name: A, submit: 0m, gpus: 1, duration: 1h}\n"
                            "    - {name: B, submit: 1m, gpus: 1, duration: 30m}\n"
                            "    - {name: C, submit: 2m, gpus: 1, duration: 10m, estimate: 40m}\n"
                            "    - {name: D, submit: 3m, gpus: 1, duration: 20m, estimate: 5m}\n";

}  // namespace

TEST_CASE("fifo strict holds a job that fits behind the head, skip starts it", "[model][scheduler]") {
  // strict: C waits behind B until A ends at 60m; then B (2) and C (1) both start.
  auto strict = starts_min(scenario("{policy: fifo}", 4, HOLE));
  CHECK(strict["B"] == Approx(60));
  CHECK(strict["C"] == Approx(60));
  // skip: C takes the free GPU at 2m; B still starts when A ends.
  auto skip = starts_min(scenario("{policy: fifo, blocking: skip}", 4, HOLE));
  CHECK(skip["B"] == Approx(60));
  CHECK(skip["C"] == Approx(2));
}

TEST_CASE("sjf starts the shortest waiting job first, by true length or by estimate", "[model][scheduler]") {
  // True lengths: after A (0-60m), C (10m) 60-70, D (20m) 70-90, B (30m) 90-120.
  auto t = starts_min(scenario("{policy: sjf}", 1, LENGTHS));
  CHECK(t["A"] == Approx(0));
  CHECK(t["C"] == Approx(60));
  CHECK(t["D"] == Approx(70));
  CHECK(t["B"] == Approx(90));
  // Estimates: D 5m, B 30m (none given: its true length), C 40m: D 60-80, B 80-110, C 110.
  auto e = starts_min(scenario("{policy: sjf, lengths: estimate}", 1, LENGTHS));
  CHECK(e["D"] == Approx(60));
  CHECK(e["B"] == Approx(80));
  CHECK(e["C"] == Approx(110));
  // FIFO would run them in submit order: B 60, C 90, D 100.
  auto f = starts_min(scenario("{policy: fifo}", 1, LENGTHS));
  CHECK(f["B"] == Approx(60));
  CHECK(f["C"] == Approx(90));
  CHECK(f["D"] == Approx(100));
}

TEST_CASE("sjf ranks FLOP jobs by their length on the fastest node type they may use", "[model][scheduler]") {
  // One A100-40GB (19.5 TFLOP/s FP32 peak): at efficiency 0.5, 3.51e16 FLOP is 1h and
  // 1.755e16 FLOP 30m. Behind A (1h), the 30-minute job S starts before the 1-hour L.
  const std::string jobs = "    - {name: A, submit: 0m, gpus: 1, duration: 1h}\n"
                           "    - {name: L, submit: 1m, gpus: 1, work: 3.51e16, precision: fp32, efficiency: 0.5}\n"
                           "    - {name: S, submit: 2m, gpus: 1, work: 1.755e16, precision: fp32, efficiency: 0.5}\n";
  auto t = starts_min(scenario("{policy: sjf}", 1, jobs));
  CHECK(t["S"] == Approx(60));
  CHECK(t["L"] == Approx(90));
}

TEST_CASE("srtf preempts the running job with more time left for a shorter arrival", "[model][scheduler]") {
  // 1 GPU, free preemption. A (1h) from 0; B (10m) at 20m: A has 40m left > 10m, so B runs
  // 20-30m and A resumes, ending at 70m. sjf would run B at 60m.
  const std::string jobs = "    - {name: A, submit: 0m, gpus: 1, duration: 1h}\n"
                           "    - {name: B, submit: 20m, gpus: 1, duration: 10m}\n";
  const std::string yaml = scenario("{policy: srtf, preemption: {save: 0s, restore: 0s}}", 1, jobs);
  const auto ended = test::run_jobs(test::scenario_from_yaml(yaml));
  CHECK(ended[1].start.seconds() == Approx(20 * 60));
  CHECK(ended[1].end.seconds() == Approx(30 * 60));
  CHECK(ended[0].end.seconds() == Approx(70 * 60));
  CHECK(ended[0].preemptions() == 1);
  // A job with less time left than the arrival is not preempted: B (50m) at 20m waits.
  const std::string longer = "    - {name: A, submit: 0m, gpus: 1, duration: 1h}\n"
                             "    - {name: B, submit: 20m, gpus: 1, duration: 50m}\n";
  auto t = starts_min(scenario("{policy: srtf, preemption: {save: 0s, restore: 0s}}", 1, longer));
  CHECK(t["B"] == Approx(60));
}

TEST_CASE("OrderIndex visits in key order across size classes and drops a class that does not fit",
          "[unit][scheduler]") {
  models::OrderIndex<double> idx;
  // (job, gpus, key): visited by key, ties by job id.
  idx.insert(5, 1, 3.0);
  idx.insert(2, 8, 1.0);
  idx.insert(7, 64, 2.0);
  idx.insert(1, 1, 3.0);
  idx.insert(9, 200, 0.5);
  idx.insert(4, 8, 5.0);
  std::vector<std::uint32_t> seen;
  idx.scan([](int) { return true; }, [&](std::uint32_t id, bool) {
    seen.push_back(id);
    return models::Visit::Next;
  });
  CHECK(seen == std::vector<std::uint32_t>{9, 2, 7, 1, 5, 4});
  // Classes of 8 GPUs and more do not fit: only the 1-GPU jobs are visited as fitting.
  seen.clear();
  idx.scan([](int g) { return g < 8; }, [&](std::uint32_t id, bool fits) {
    if (fits) seen.push_back(id);
    return models::Visit::Next;
  });
  CHECK(seen == std::vector<std::uint32_t>{1, 5});
  idx.erase(2);
  idx.erase(1);
  CHECK_FALSE(idx.contains(2));
  CHECK(idx.size() == 4);
  seen.clear();
  idx.scan([](int) { return true; }, [&](std::uint32_t id, bool) {
    seen.push_back(id);
    return seen.size() == 2 ? models::Visit::Stop : models::Visit::Next;
  });
  CHECK(seen == std::vector<std::uint32_t>{9, 7});
  CHECK_THROWS_AS(idx.erase(2), InternalError);
  CHECK(models::OrderIndex<double>::size_class(64) != models::OrderIndex<double>::size_class(65));
  CHECK(models::OrderIndex<double>::smallest_in_class(models::OrderIndex<double>::size_class(100)) == 65);
}

TEST_CASE("estimates drawn with a lognormal error have the error's median and spread", "[model][workload]") {
  // 4,000 jobs, sigma 0.5: ln(estimate / length) has mean 0 (standard error 0.5 / sqrt(4000)
  // = 0.0079: |mean| < 0.04 is 5 standard errors) and standard deviation 0.5 (its standard
  // error is 0.5 / sqrt(2 x 4000) = 0.0056: within 0.03).
  const std::string yaml =
      "name: est\nseed: 5\nhorizon: 400d\nrun_until: done\ncluster:\n  node_types:\n"
      "    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 4, price: {on_demand_per_hour: 1}}\n"
      "workload:\n  generators:\n"
      "    - {name: g, count: 4000, arrival: {dist: exponential, mean: 10m}, gpus: 1,\n"
      "       duration: {dist: lognormal, median: 1h, sigma: 1}, estimate: {error: lognormal, sigma: 0.5}}\n";
  const auto jobs = test::run_jobs(test::scenario_from_yaml(yaml));
  double sum = 0, sum2 = 0;
  for (const auto& j : jobs) {
    const double e = std::log(j.estimate_s() / j.duration.seconds());
    sum += e;
    sum2 += e * e;
  }
  const double n = static_cast<double>(jobs.size()), mean = sum / n;
  CHECK(std::abs(mean) < 0.04);
  CHECK(std::sqrt(sum2 / n - mean * mean) == Approx(0.5).margin(0.03));
}

TEST_CASE("estimate keys: bad values are refused at their place", "[unit][workload]") {
  const std::string head = "name: e\nhorizon: 1d\ncluster:\n  node_types:\n"
                           "    - {name: n, gpu: A100-40GB-SXM, gpus: 1, count: 1, price: {on_demand_per_hour: 1}}\n"
                           "workload:\n";
  auto err = [&](const std::string& workload) {
    return test::config_error([&] { test::scenario_from_yaml(head + workload); });
  };
  const auto unknown = err("  jobs:\n    - {name: a, gpus: 1, duration: 1h, estimate: {error: lognormal, sigm: 1}}\n");
  CHECK(unknown.code() == ErrorCode::UnknownKey);
  CHECK_THAT(unknown.detail(), Catch::Matchers::Contains("did you mean 'sigma'?"));
  const auto bad_error = err("  jobs:\n    - {name: a, gpus: 1, duration: 1h, estimate: {error: normal, sigma: 1}}\n");
  CHECK(bad_error.code() == ErrorCode::UnknownName);
  const auto zero = err("  jobs:\n    - {name: a, gpus: 1, duration: 1h, estimate: {error: lognormal, sigma: 0}}\n");
  CHECK(zero.code() == ErrorCode::OutOfRange);
  const auto fixed = err("  generators:\n    - {name: g, count: 2, arrival: 1h, gpus: 1, duration: 1h, estimate: 2h}\n");
  CHECK(fixed.code() == ErrorCode::WrongType);
  CHECK(fixed.key_path() == "workload.generators[0].estimate");
  const auto unit = err("  jobs:\n    - {name: a, gpus: 1, duration: 1h, estimate: 2}\n");
  CHECK(unit.code() == ErrorCode::BadUnit);
}

TEST_CASE("every policy gives the same trace for the same scenario and seed", "[scenario][scheduler]") {
  std::map<std::string, std::string> traces;
  for (const auto& [name, policy] : models::builtins().schedulers.policies()) {
    (void)policy;
    const std::string yaml =
        "name: det\nseed: 11\nhorizon: 3d\ncluster:\n  node_types:\n"
        "    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 2, price: {on_demand_per_hour: 8}}\n"
        "scheduler: {policy: " + name + "}\n"
        "workload:\n  generators:\n"
        "    - {name: g, count: 300, arrival: {dist: exponential, mean: 4m}, gpus: {choice: [1, 2, 4, 8, 16]},\n"
        "       duration: {dist: lognormal, median: 20m, sigma: 1}, estimate: {error: lognormal, sigma: 0.5}}\n";
    const test::TempDir dir("det-" + name);
    const auto s = test::scenario_from_yaml(yaml);
    const auto a = test::run_to_trace(s, dir.file("a.h5"));
    const auto b = test::run_to_trace(s, dir.file("b.h5"));
    INFO("policy " << name);
    REQUIRE(a.jobs.size() == 300);
    const std::string bytes = test::read_bytes(dir.file("a.h5"));
    CHECK(bytes == test::read_bytes(dir.file("b.h5")));
    traces[name] = bytes;
  }
  // The policies did differ (so each trace is its policy's).
  CHECK(traces.at("fifo") != traces.at("sjf"));
  CHECK(traces.at("sjf") != traces.at("srtf"));
}
