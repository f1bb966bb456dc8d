// The serving part (models/services/serving_controller.*; docs/serving.md, "Batching",
// "Statistics") against queueing theory and hand computations: one replica with
// max_batch 1, Poisson arrivals and a fixed latency is M/D/1; with an exponential latency
// M/M/1; c replicas M/M/c (Erlang C). Dynamic and continuous batching on hand-placed
// arrivals, a replica preempted mid-batch, and the same seed giving the same records.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/register_builtins.hpp"
#include "models/serving_part.hpp"
#include "models/services/serving_controller.hpp"
#include "models/simulation.hpp"
#include "support/queueing.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::serving::RequestRecord;
using models::serving::ServiceSample;
using models::serving::ServiceTotals;

namespace {

// iteration_s = a + b * prefill_tokens + c * decode_seqs; batch_s(n) = a + c * n.
class TestCost final : public models::serving::ReplicaCost {
 public:
  TestCost(double a, double b, double c, std::int64_t kv) : a_(a), b_(b), c_(c), kv_(kv) {}
  double batch_s(int batch) const override { return a_ + c_ * batch; }
  double iteration_s(const models::serving::Iteration& it) const override {
    return a_ + b_ * static_cast<double>(it.prefill_tokens) + c_ * it.decode_seqs;
  }
  std::int64_t kv_capacity_tokens() const override { return kv_; }
  bool tokens() const override { return true; }

 private:
  double a_, b_, c_;
  std::int64_t kv_;
};

// TestCost with a memory: `memory` bytes in all, `fixed` of them the weights and working
// memory, `per_token` per cached token.
class MemCost final : public models::serving::ReplicaCost {
 public:
  MemCost(double iteration_s, std::int64_t kv, double memory, double fixed, double per_token)
      : it_(iteration_s), kv_(kv), memory_(memory), fixed_(fixed), per_token_(per_token) {}
  double batch_s(int) const override { return it_; }
  double iteration_s(const models::serving::Iteration&) const override { return it_; }
  std::int64_t kv_capacity_tokens() const override { return kv_; }
  bool tokens() const override { return true; }
  double memory_bytes() const override { return memory_; }
  double fixed_memory_bytes() const override { return fixed_; }
  double kv_bytes_per_token() const override { return per_token_; }

 private:
  double it_;
  std::int64_t kv_;
  double memory_, fixed_, per_token_;
};

struct Captured {
  std::vector<RequestRecord> requests;
  std::vector<ServiceSample> samples;
  std::vector<ServiceTotals> totals;
  models::RunSummary summary;
  std::vector<std::pair<std::string, double>> job_starts;  // every job's name and first start (s)
  std::vector<double> job_ends;                             // its end (s), -1 while running
  std::vector<models::serving::ReplicaHardware> hardware;   // asked of the cost provider
};

// The sink and the cost provider of a test run, built before the serving part.
class Capture final : public models::Component, public models::serving::ServiceSink, public models::ReplicaCostProvider {
 public:
  Capture(std::shared_ptr<Captured> out, std::function<std::unique_ptr<models::serving::ReplicaCost>()> cost,
          const models::Cluster& cluster)
      : out_(std::move(out)), cost_(std::move(cost)), cluster_(cluster) {}
  // After the serving part's finish (built before it, it finishes after it).
  void finish(models::RunSummary&) override {
    for (const models::Job& j : cluster_.jobs())
    {
      out_->job_starts.emplace_back(j.name, j.started_once ? j.start.seconds() : -1.0);
      out_->job_ends.push_back(j.status == models::JobStatus::Completed ? j.end.seconds() : -1.0);
    }
  }
  void request(const RequestRecord& r) override { out_->requests.push_back(r); }
  void sample(const ServiceSample& s) override { out_->samples.push_back(s); }
  void totals(const ServiceTotals& t) override { out_->totals.push_back(t); }
  std::unique_ptr<models::serving::ReplicaCost> replica_cost(const models::serving::ServiceSpec&,
                                                             const models::serving::ReplicaHardware& hw) override {
    out_->hardware.push_back(hw);
    return cost_();
  }

 private:
  std::shared_ptr<Captured> out_;
  std::function<std::unique_ptr<models::serving::ReplicaCost>()> cost_;
  const models::Cluster& cluster_;
};

std::shared_ptr<Captured> run(const models::Scenario& s, std::uint64_t replication = 0,
                              std::function<std::unique_ptr<models::serving::ReplicaCost>()> cost = nullptr) {
  auto out = std::make_shared<Captured>();
  models::Builtins b;
  models::register_builtins(b);
  b.components.add({"test-service-sink", "captures the services' records", models::BUILD_EXTENSIONS,
                    [out, cost](models::RunContext& ctx) -> std::unique_ptr<models::Component> {
                      return std::make_unique<Capture>(out, cost, ctx.cluster);
                    }});
  models::RunOptions options;
  options.parts = &b.components;
  options.replication = replication;
  out->summary = models::run_simulation(s, b.schedulers, nullptr, options);
  return out;
}

std::string one_node(const std::string& gpu = "A100-80GB-SXM", int gpus = 8) {
  return "cluster:\n  node_types:\n    - {name: n, gpu: " + gpu + ", gpus: " + std::to_string(gpus) +
         ", count: 1, price: {on_demand_per_hour: 8}}\n";
}

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// A service of `replicas` one-GPU replicas, max_batch 1, Poisson arrivals at `lambda` per
// second and a latency (`latency` written as a YAML value in seconds).
std::string queue_scenario(double lambda, const std::string& latency, int replicas, double horizon_s) {
  return "name: q\nseed: 11\nhorizon: " + fmt(horizon_s) + "s\n" + one_node() +
         "workload:\n  services:\n    - {name: q, requests: {arrival: {dist: exponential, mean: " + fmt(1.0 / lambda) +
         "s}}, latency: " + latency + ", replicas: {count: " + std::to_string(replicas) + "}}\n";
}

struct Estimate {
  double mean = 0, se = 0;
};

// The mean wait over `reps` replications, and its standard error.
Estimate mean_wait(const models::Scenario& s, int reps) {
  double sum = 0, sum2 = 0;
  for (int r = 0; r < reps; ++r) {
    const auto out = run(s, static_cast<std::uint64_t>(r));
    REQUIRE(out->totals.size() == 1);
    const double w = out->totals[0].wait_mean_s;
    sum += w;
    sum2 += w * w;
  }
  Estimate e;
  e.mean = sum / reps;
  e.se = std::sqrt((sum2 - reps * e.mean * e.mean) / (reps - 1) / reps);
  return e;
}

// The simulated mean wait agrees with `expected` within a 99% confidence interval (t with
// reps - 1 = 11 degrees of freedom: 3.106), and is precise enough that `wrong` (the theory
// for a service time 10% off) lies outside the same interval.
void check_against(const Estimate& e, double expected, double wrong) {
  constexpr double T99_11 = 3.106;
  INFO("simulated " << e.mean << " s (standard error " << e.se << " s), theory " << expected << " s, with S 10% off "
                    << wrong << " s");
  CHECK(std::abs(e.mean - expected) < T99_11 * e.se);
  CHECK(std::abs(e.mean - wrong) > T99_11 * e.se);
}

constexpr int REPS = 12;

}  // namespace

// S = 10 ms. A replication runs 200,000 mean inter-arrival times (about 2,000 s at rho 0.95):
// the queue's relaxation time, about S / (1 - sqrt(rho))^2 = 15 s at rho 0.95 (Abate & Whitt,
// 1987), is under 1% of the run, so the start from an empty queue biases the mean by well
// under its standard error, and 12 replications bring that error to a few percent of the
// wait, which tells a service time 10% off (ρ, and the wait, move by far more) from the right one.
TEST_CASE("one replica, max_batch 1, fixed latency, Poisson arrivals is M/D/1", "[model][serving][queueing]") {
  const double S = 0.010;
  for (const double rho : {0.5, 0.8, 0.95}) {
    DYNAMIC_SECTION("rho " << rho) {
      const double lambda = rho / S;
      const auto s = test::scenario_from_yaml(queue_scenario(lambda, "10ms", 1, 200000 / lambda));
      const Estimate e = mean_wait(s, REPS);
      const double wrong = rho < 0.9 ? test::md1_wait(lambda, 1.1 * S) : 100 * test::md1_wait(lambda, S);  // 1.1 S: unstable at 0.95
      check_against(e, test::md1_wait(lambda, S), wrong);
    }
  }
}

TEST_CASE("one replica with exponential latency is M/M/1", "[model][serving][queueing]") {
  const double S = 0.010;
  for (const double rho : {0.5, 0.8}) {
    DYNAMIC_SECTION("rho " << rho) {
      const double lambda = rho / S;
      const auto s = test::scenario_from_yaml(queue_scenario(lambda, "{dist: exponential, mean: 10ms}", 1, 200000 / lambda));
      const Estimate e = mean_wait(s, REPS);
      check_against(e, test::erlang_c_wait(1, lambda, 1 / S), test::erlang_c_wait(1, lambda, 1 / (1.1 * S)));
      CHECK(test::erlang_c_wait(1, lambda, 1 / S) == Approx(rho * S / (1 - rho)));
    }
  }
}

TEST_CASE("three replicas with exponential latency are M/M/3 (Erlang C)", "[model][serving][queueing]") {
  const double S = 0.010, rho = 0.8;
  const double lambda = 3 * rho / S;
  const auto s = test::scenario_from_yaml(queue_scenario(lambda, "{dist: exponential, mean: 10ms}", 3, 200000 / lambda));
  const Estimate e = mean_wait(s, REPS);
  check_against(e, test::erlang_c_wait(3, lambda, 1 / S), test::erlang_c_wait(3, lambda, 1 / (1.1 * S)));
}

TEST_CASE("dynamic batching: max_batch 4 and max_wait on hand-placed arrivals", "[model][serving]") {
  // Arrivals every 8 ms (8, 16, 24, ... ms), a batch takes 100 ms whatever its size.
  // max_wait 10 ms: request 0 waits from 8 ms; at 18 ms it has waited 10 ms and the batch
  // {0, 1} starts (request 1 came at 16 ms); it ends at 118 ms. By then 12 more came (24 ..
  // 112 ms): a full batch {2, 3, 4, 5} starts at 118 ms, ends at 218 ms; then {6..9}.
  const std::string yaml = "name: d\nhorizon: 1s\n" + one_node() +
                           "workload:\n  services:\n    - {name: d, requests: {arrival: 8ms}, latency: 100ms, "
                           "batching: {max_batch: 4, max_wait: 10ms}}\n";
  const auto out = run(test::scenario_from_yaml(yaml));
  const auto& r = out->requests;
  REQUIRE(r.size() >= 10);
  auto check = [&](std::size_t i, double arrival, double start, double end) {
    INFO("request " << i);
    CHECK(r[i].request == i);
    CHECK(r[i].arrival_s == Approx(arrival).margin(1e-9));
    CHECK(r[i].start_s == Approx(start).margin(1e-9));
    CHECK(r[i].end_s == Approx(end).margin(1e-9));
    CHECK(r[i].first_token_s == r[i].end_s);
  };
  check(0, 0.008, 0.018, 0.118);
  check(1, 0.016, 0.018, 0.118);
  for (std::size_t i = 2; i < 6; ++i) check(i, 0.008 * (i + 1), 0.118, 0.218);
  for (std::size_t i = 6; i < 10; ++i) check(i, 0.008 * (i + 1), 0.218, 0.318);

  SECTION("max_wait 0: a batch starts at once with what is queued") {
    // Request 0 alone at 8 ms (ends 108 ms); then {1..4} at 108 ms.
    std::string y0 = yaml;
    y0.replace(y0.find("max_wait: 10ms"), 14, "max_wait: 0s");
    const auto o0 = run(test::scenario_from_yaml(y0));
    REQUIRE(o0->requests.size() >= 5);
    CHECK(o0->requests[0].start_s == Approx(0.008));
    CHECK(o0->requests[0].end_s == Approx(0.108));
    for (std::size_t i = 1; i < 5; ++i) CHECK(o0->requests[i].start_s == Approx(0.108));
  }
}

TEST_CASE("continuous batching: each iteration and each request's TTFT and end by hand", "[model][serving]") {
  // iteration = 10 ms + 0.1 ms per prefill token + 1 ms per decoding request. Prompts 100,
  // outputs 3 tokens, arrivals every 15 ms, max_batch 3:
  //   15-35   prefill r0                      20 ms   r0 first token 35
  //   35-56   prefill r1, decode r0           21 ms   r1 first 56
  //   56-78   prefill r2, decode r0 r1        22 ms   r2 first 78; r0 ends (3 tokens)
  //   78-100  prefill r3, decode r1 r2        22 ms   r3 first 100; r1 ends
  //   100-122 prefill r4, decode r2 r3        22 ms   r2 ends
  const std::string yaml = "name: c\nhorizon: 1s\n" + one_node() +
                           "workload:\n  services:\n    - {name: c, model: gpt2-xl, requests: {arrival: 15ms, "
                           "prompt_tokens: 100, output_tokens: 3}, batching: {mode: continuous, max_batch: 3}, "
                           "slo: {ttft_p99: 21ms}}\n";
  const auto out = run(test::scenario_from_yaml(yaml), 0, [] { return std::make_unique<TestCost>(0.010, 0.0001, 0.001, 1 << 20); });
  const auto& r = out->requests;
  REQUIRE(r.size() >= 3);
  struct Hand {
    double arrival, start, first, end;
  };
  const Hand hand[] = {{0.015, 0.015, 0.035, 0.078}, {0.030, 0.035, 0.056, 0.100}, {0.045, 0.056, 0.078, 0.122}};
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("request " << i);
    CHECK(r[i].request == i);
    CHECK(r[i].prompt_tokens == 100);
    CHECK(r[i].output_tokens == 3);
    CHECK(r[i].arrival_s == Approx(hand[i].arrival).margin(1e-9));
    CHECK(r[i].start_s == Approx(hand[i].start).margin(1e-9));
    CHECK(r[i].first_token_s == Approx(hand[i].first).margin(1e-9));
    CHECK(r[i].end_s == Approx(hand[i].end).margin(1e-9));
  }
  // TTFT: 20, 26, 33 ms: only r0 meets 21 ms among these.
  REQUIRE(out->totals.size() == 1);
  CHECK(out->totals[0].model == "gpt2-xl");
  CHECK(out->totals[0].prompt_tokens == 100 * out->totals[0].completed);

  SECTION("a request larger than the KV cache is refused and counted, never hangs") {
    const auto small = run(test::scenario_from_yaml(yaml), 0, [] { return std::make_unique<TestCost>(0.010, 0.0001, 0.001, 50); });
    CHECK(small->totals[0].completed == 0);
    CHECK(small->totals[0].unfinished == 0);
    CHECK(small->totals[0].refused == small->totals[0].arrived);
    CHECK(small->totals[0].refused > 0);
    bool noted = false;
    for (const auto& n : small->summary.notes) noted = noted || n.find("refused") != std::string::npos;
    CHECK(noted);
  }
}

TEST_CASE("a replica preempted mid-batch puts its batch back at the head of the queue", "[model][serving]") {
  // One 1-GPU node. The replica starts at 0 s and serves from 5 s (cold start 5 s);
  // requests come every 1 s from 1 s, a batch of one takes 400 ms. At 5 s requests 0..4
  // wait: r0 5.0-5.4, r1 5.4-5.8, r2 from 5.8. A training job of class 10 arrives at 6 s
  // and preempts the replica (class 0) at once, mid-batch: r2 goes back to the head of the
  // queue. The job ends at 36 s, the replica restarts then and serves again at 41 s: r2
  // 41.0-41.4, r3 41.4-41.8.
  const std::string yaml = "name: p\nhorizon: 60s\n" + one_node("T4", 1) +
                           "scheduler: {policy: priority, preemption: {mode: lose}}\n"
                           "workload:\n  jobs:\n    - {name: train, submit: 6s, gpus: 1, duration: 30s, priority: 10}\n"
                           "  services:\n    - {name: p, requests: {arrival: 1s}, latency: 400ms, cold_start: 5s}\n";
  const auto out = run(test::scenario_from_yaml(yaml));
  const auto& r = out->requests;
  REQUIRE(r.size() >= 4);
  struct Hand {
    std::uint64_t id;
    double arrival, start, end;
  };
  const Hand hand[] = {{0, 1.0, 5.0, 5.4}, {1, 2.0, 5.4, 5.8}, {2, 3.0, 41.0, 41.4}, {3, 4.0, 41.4, 41.8}};
  for (std::size_t i = 0; i < 4; ++i) {
    INFO("record " << i);
    CHECK(r[i].request == hand[i].id);
    CHECK(r[i].arrival_s == Approx(hand[i].arrival).margin(1e-9));
    CHECK(r[i].start_s == Approx(hand[i].start).margin(1e-9));
    CHECK(r[i].end_s == Approx(hand[i].end).margin(1e-9));
  }
  // The replica held the GPU 0-6 s and 36-60 s: 30 GPU-seconds.
  REQUIRE(out->totals.size() == 1);
  CHECK(out->totals[0].replica_gpu_s == Approx(30.0));
  CHECK(out->totals[0].cost_usd == Approx(30.0 / 3600 * 8));
}

TEST_CASE("the same seed gives the same records, another seed others", "[model][serving]") {
  const std::string yaml = "name: s\nhorizon: 120s\n" + one_node() +
                           "workload:\n  services:\n    - {name: s, requests: {arrival: {dist: exponential, mean: 5ms}}, "
                           "latency: {dist: lognormal, median: 8ms, sigma: 0.5}, batching: {max_batch: 4, max_wait: 2ms}, "
                           "replicas: {count: 2}}\n";
  const auto s = test::scenario_from_yaml(yaml);
  const auto a = run(s), b = run(s), c = run(s, 1);
  REQUIRE(a->requests.size() == b->requests.size());
  REQUIRE(a->requests.size() > 1000);
  CHECK(std::memcmp(a->requests.data(), b->requests.data(), a->requests.size() * sizeof(RequestRecord)) == 0);
  REQUIRE(a->samples.size() == b->samples.size());
  CHECK(a->samples.size() == 2);  // 1m intervals over 120 s
  CHECK(a->totals[0].e2e_p99_s == b->totals[0].e2e_p99_s);
  CHECK(a->requests.size() != c->requests.size());
  // Every interval's arrivals add up to the run's.
  std::uint64_t arrived = 0, completed = 0;
  for (const auto& x : a->samples) {
    arrived += x.arrived;
    completed += x.completed;
  }
  CHECK(arrived == a->totals[0].arrived);
  CHECK(completed == a->totals[0].completed);
  CHECK(a->summary.services.size() == 1);
}

TEST_CASE("replica autoscaling: one replica out when the queue trigger has held for `for`", "[model][serving]") {
  // Requests every 100 ms, a batch of one takes 1 s: one replica serves 1 a second, the
  // queue grows. The service acts at each batch end: at 1.1 s (request 1 starts) 9 wait,
  // more than 5: the trigger holds from 1.1 s, and at 3.1 s (2 s later) a second replica
  // is submitted, placed and serving at once (cold start 0). The trigger holds again from
  // 3.1 s (the next check, at r0's batch end that instant): a third at 5.1 s; max 3.
  const std::string yaml = "name: a\nhorizon: 10s\n" + one_node() +
                           "workload:\n  services:\n    - {name: q, requests: {arrival: 100ms}, latency: 1s, "
                           "replicas: {min: 1, max: 3, autoscale: {when: queue_length > 5, for: 2s}}}\n";
  const auto out = run(test::scenario_from_yaml(yaml));
  std::vector<std::pair<std::string, double>> expected = {{"q/r0", 0.0}, {"q/r1", 3.1}, {"q/r2", 5.1}};
  REQUIRE(out->job_starts.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(out->job_starts[i].first == expected[i].first);
    CHECK(out->job_starts[i].second == Approx(expected[i].second).margin(1e-9));
  }
  REQUIRE(out->totals.size() == 1);
  CHECK(out->totals[0].replicas_max == 3);
  // Replica 1's first request starts as it becomes ready, at 3.1 s.
  bool r1_first = false;
  for (const auto& r : out->requests)
    if (r.replica == 1) {
      CHECK(r.start_s == Approx(3.1).margin(1e-9));
      r1_first = true;
      break;
    }
  CHECK(r1_first);
}

TEST_CASE("replica autoscaling: the newest idle replica in when the queue is empty and utilization low", "[model][serving]") {
  // Requests every 1 s, a batch takes 500 ms; `utilization > 50%` with `for: 0s`. At 1 s r0
  // starts request 0: utilization 1 > 50%, r1 is added (ready at once, idle: 1/2 is not
  // above 50%). At 1.5 s r0 is done: no replica busy, the queue empty, utilization 0 below
  // half the threshold (25%): the newest idle replica, r1, ends (finish_job). (At 0 s no
  // replica is up yet, r0 being placed: no utilization, no decision.) The same
  // each second: r2 2.0-2.5 s. (`for` is what keeps a real service from this flapping.)
  const std::string yaml = "name: a\nhorizon: 2.8s\n" + one_node() +
                           "workload:\n  services:\n    - {name: q, requests: {arrival: 1s}, latency: 500ms, "
                           "replicas: {min: 1, max: 2, autoscale: {when: utilization > 50%, for: 0s}}}\n";
  const auto out = run(test::scenario_from_yaml(yaml));
  REQUIRE(out->job_starts.size() == 3);
  CHECK(out->job_starts[1].first == "q/r1");
  CHECK(out->job_starts[1].second == Approx(1.0));
  CHECK(out->job_ends[1] == Approx(1.5));
  CHECK(out->job_starts[2].second == Approx(2.0));
  CHECK(out->job_ends[2] == Approx(2.5));
  CHECK(out->job_ends[0] == -1.0);  // r0 stays: min 1
  CHECK(out->totals[0].replicas_max == 2);
}

TEST_CASE("replica autoscaling on the KV cache and on GPU memory, by hand", "[model][serving]") {
  // Two recorded requests, each 200 prompt + 100 output tokens (300 of KV cache, reserved at
  // admission), at 0 s and 0.5 s; an iteration takes 10 ms, so a request is served in 100
  // iterations, 1 s. The KV cache holds 1,000 tokens.
  //   kv_cache > 50%: at 0 s r0 holds 30%. At 0.5 s r1 joins replica 0: 60% > 50%, `for: 0s`:
  //   replica 1 out at 0.5 s (up at once, idle). Mean 30%; the in-rule: 30% x 2/1 = 60% is not
  //   below 90% x 50% = 45%. At 1.0 s r0 ends: 30% and 0%, mean 15%, x 2 = 30% < 45%: the idle
  //   replica 1 leaves at 1.0 s.
  //   memory > 55% (1,000 bytes, 400 fixed, 0.3 per token): at 0 s 40% + 9% = 49%; at 0.5 s
  //   40% + 18% = 58% > 55%: out at 0.5 s. Then mean 40% + 9% = 49%, in-rule 40% + 18% = 58%,
  //   not below 49.5%; at 1.0 s 40% + 4.5%, in-rule 40% + 9% = 49% < 49.5%: in at 1.0 s.
  test::TempDir dir;
  test::write_file(dir.file("r.csv"), "arrival_s,prompt_tokens,output_tokens\n0,200,100\n0.5,200,100\n");
  for (const char* when : {"kv_cache > 50%", "memory > 55%"}) {
    INFO(when);
    const std::string yaml = "name: t\nhorizon: 10s\n" + one_node() +
                             "workload:\n  services:\n    - {name: c, model: gpt2-xl, requests: {trace: r.csv}, "
                             "batching: {mode: continuous, max_batch: 8}, replicas: {min: 1, max: 3, autoscale: {when: \"" +
                             when + "\", for: 0s}}}\n";
    const auto out = run(test::scenario_from_yaml(yaml, dir.file("s.yaml")), 0,
                         [] { return std::make_unique<MemCost>(0.010, 1000, 1000, 400, 0.3); });
    REQUIRE(out->job_starts.size() == 2);
    CHECK(out->job_starts[1].first == "c/r1");
    CHECK(out->job_starts[1].second == Approx(0.5).margin(1e-9));
    CHECK(out->job_ends[1] == Approx(1.0).margin(1e-9));
    CHECK(out->job_ends[0] == -1.0);  // min 1
    REQUIRE(out->requests.size() == 2);
    CHECK(out->requests[0].end_s == Approx(1.0).margin(1e-9));
    CHECK(out->requests[1].start_s == Approx(0.5).margin(1e-9));
    CHECK(out->requests[1].end_s == Approx(1.5).margin(1e-9));
    CHECK(out->totals[0].replicas_max == 2);
  }
  SECTION("a tighter threshold keeps the second replica: memory > 50% (in-rule 49% is not below 45%)") {
    const std::string yaml = "name: t\nhorizon: 10s\n" + one_node() +
                             "workload:\n  services:\n    - {name: c, model: gpt2-xl, requests: {trace: r.csv}, "
                             "batching: {mode: continuous, max_batch: 8}, replicas: {min: 1, max: 3, autoscale: {when: "
                             "\"memory > 50%\", for: 0s}}}\n";
    const auto out = run(test::scenario_from_yaml(yaml, dir.file("s.yaml")), 0,
                         [] { return std::make_unique<MemCost>(0.010, 1000, 1000, 400, 0.3); });
    // 49% at 0 s is not above 50%; 58% at 0.5 s is: r1 out. Never in: 40% + anything x 2 >= 40%
    // is never below 45%... until both are empty (40% < 45%) after r1 ends at 1.5 s: out at
    // 0.5, in at 1.5 s (both idle: the newest leaves).
    REQUIRE(out->job_starts.size() == 2);
    CHECK(out->job_starts[1].second == Approx(0.5).margin(1e-9));
    CHECK(out->job_ends[1] == Approx(1.5).margin(1e-9));
  }
}

TEST_CASE("a replica on a GPU share is priced on that share of its GPU", "[model][serving]") {
  const std::string yaml = "name: t\nhorizon: 1s\n" + one_node() +
                           "workload:\n  services:\n    - {name: c, model: gpt2-xl, requests: {arrival: 100ms, "
                           "prompt_tokens: 10, output_tokens: 2}, batching: {mode: continuous}, gpu_milli: 250}\n";
  const auto out = run(test::scenario_from_yaml(yaml), 0, [] { return std::make_unique<TestCost>(0.010, 0, 0, 1000); });
  REQUIRE(out->hardware.size() == 1);
  CHECK(out->hardware[0].share == 0.25);
  CHECK(out->hardware[0].gpus == 1);
  CHECK(out->hardware[0].gpu.name == "A100-80GB-SXM");
}

TEST_CASE("continuous batching: utilization is the batch's occupancy, and a replica scaled in drains", "[model][serving]") {
  // Iterations of 10 ms, max_batch 4, each request 100 tokens out (1 s). `utilization > 60%`,
  // for 0s, min 1, max 2. A continuous-batching replica's load is its batch over max_batch.
  //   0 s r0 on replica 0 (25%); 0.1 s r1 (50%); 0.2 s r2 (75% > 60%): replica 1 out at 0.2 s.
  //   0.255 s r3 starts on the idle replica 1 (mean (75% + 25%) / 2 = 50%).
  //   1.0 s r0 ends: (50% + 25%) / 2 = 37.5%, not below 30% (half the threshold).
  //   1.1 s r1 ends: (25% + 25%) / 2 = 25% < 30%, the queue empty: scale in. No replica is
  //   idle: the newest serving one, replica 1, drains.
  //   1.15 s r4 arrives: replica 1 admits nothing more; r4 joins replica 0 (at its 1.15 s step).
  //   1.255 s r3 ends: replica 1's batch is empty, it ends then.
  test::TempDir dir;
  test::write_file(dir.file("r.csv"),
                   "arrival_s,prompt_tokens,output_tokens\n0,10,100\n0.1,10,100\n0.2,10,100\n0.255,10,100\n1.15,10,100\n");
  const std::string yaml = "name: t\nhorizon: 10s\n" + one_node() +
                           "workload:\n  services:\n    - {name: c, model: gpt2-xl, requests: {trace: r.csv}, "
                           "batching: {mode: continuous, max_batch: 4}, replicas: {min: 1, max: 2, autoscale: {when: "
                           "utilization > 60%, for: 0s}}}\n";
  const auto out = run(test::scenario_from_yaml(yaml, dir.file("s.yaml")), 0,
                       [] { return std::make_unique<TestCost>(0.010, 0, 0, 1 << 20); });
  REQUIRE(out->job_starts.size() == 2);
  CHECK(out->job_starts[1].second == Approx(0.2).margin(1e-9));
  CHECK(out->job_ends[1] == Approx(1.255).margin(1e-9));
  CHECK(out->job_ends[0] == -1.0);
  REQUIRE(out->requests.size() == 5);
  const std::uint32_t replica[] = {0, 0, 0, 1, 0};
  const double start[] = {0, 0.1, 0.2, 0.255, 1.15};
  for (std::size_t i = 0; i < 5; ++i) {
    INFO("request " << i);
    CHECK(out->requests[i].replica == replica[i]);
    CHECK(out->requests[i].start_s == Approx(start[i]).margin(1e-9));
    CHECK(out->requests[i].end_s == Approx(start[i] + 1.0).margin(1e-9));
  }
}

TEST_CASE("continuous batching: a replica preempted mid-iteration restarts its requests with the KV cache freed",
          "[model][serving]") {
  // One 1-GPU node; the test cost (10 ms + 0.1 ms per prefill token + 1 ms per decoding
  // request); prompts 100, outputs 3, a request every 15 ms, max_batch 3; a KV cache of 309
  // tokens holds three requests (103 each). A job of class 10 preempts the replica at
  // 100.5 ms, during the iteration 100-122 ms (r2 decoding, r3 decoding, r4 in prefill: see
  // the hand case above): r2, r3 and r4 go back to the head of the queue. The job ends at
  // 1.1005 s; the replica serves again then (cold start 0) with its cache empty: r2, r3, r4
  // join the first iteration (their prefills: 10 + 30 = 40 ms), first tokens at 1.1405 s.
  const std::string yaml = "name: cp\nhorizon: 3s\n" + one_node("T4", 1) +
                           "scheduler: {policy: priority, preemption: {mode: lose}}\n"
                           "workload:\n  jobs:\n    - {name: train, submit: 100.5ms, gpus: 1, duration: 1s, priority: 10}\n"
                           "  services:\n    - {name: c, model: gpt2-xl, requests: {arrival: 15ms, prompt_tokens: 100, "
                           "output_tokens: 3}, batching: {mode: continuous, max_batch: 3}}\n";
  const auto out = run(test::scenario_from_yaml(yaml), 0, [] { return std::make_unique<TestCost>(0.010, 0.0001, 0.001, 309); });
  const auto& r = out->requests;
  REQUIRE(r.size() >= 5);
  CHECK(r[0].request == 0);
  CHECK(r[0].end_s == Approx(0.078).margin(1e-9));
  CHECK(r[1].request == 1);
  CHECK(r[1].end_s == Approx(0.100).margin(1e-9));
  for (std::size_t i = 2; i < 5; ++i) {
    INFO("record " << i);
    CHECK(r[i].request == i);
    CHECK(r[i].start_s == Approx(1.1005).margin(1e-9));
    CHECK(r[i].first_token_s == Approx(1.1405).margin(1e-9));
  }
  // Nothing lost or counted twice: every request that arrived completed or is unfinished
  // (the service is overloaded: with three running, an iteration of 22 ms ends one request,
  // 45 a second against 66.7 arriving).
  REQUIRE(out->totals.size() == 1);
  const auto& t = out->totals[0];
  CHECK(t.arrived == 200);  // 15 ms .. 3 s
  CHECK(t.completed + t.unfinished == t.arrived);
  CHECK(t.completed == r.size());
}

TEST_CASE("requests.profile thins Poisson arrivals to the multiplier of each hour", "[model][serving]") {
  // Poisson arrivals of mean 1 s (3,600 an hour) times 2 in hour 0, 0.5 in hour 1 and 0 in
  // hour 2 (every day alike): about 7,200, 1,800 and no arrivals in the three hourly
  // samples. A Poisson count of mean m lies within 4 sqrt(m) of it (a false alarm about 1 in
  // 16,000); a multiplier 10% off moves 7,200 by 720, over 8 sqrt(m).
  test::TempDir dir;
  std::string day = "hour,multiplier\n";
  for (int h = 0; h < 24; ++h) day += std::to_string(h) + "," + (h == 0 ? "2" : h == 1 ? "0.5" : "0") + "\n";
  test::write_file(dir.file("day.csv"), day);
  const std::string yaml = "name: pr\nhorizon: 3h\noutput: {service_interval: 1h}\n" + one_node() +
                           "workload:\n  services:\n    - {name: s, requests: {arrival: {dist: exponential, mean: 1s}, "
                           "profile: day.csv}, latency: 1ms}\n";
  const auto out = run(test::scenario_from_yaml(yaml, dir.file("pr.yaml")));
  REQUIRE(out->samples.size() == 3);
  CHECK(std::abs(static_cast<double>(out->samples[0].arrived) - 7200) < 4 * std::sqrt(7200.0));
  CHECK(std::abs(static_cast<double>(out->samples[1].arrived) - 1800) < 4 * std::sqrt(1800.0));
  CHECK(out->samples[2].arrived == 0);
}

TEST_CASE("requests.profile in the calendar's form: arrivals only inside its windows, to the minute", "[model][serving]") {
  // Poisson arrivals of mean 1 s times 2 on Monday 09:30-10:00 and 23:59-00:01 (into
  // Tuesday), 0 elsewhere, over 25 hours. Thinning keeps a candidate only where the rate is
  // above 0, so every arrival lies inside a window: exact. Their counts are Poisson of mean
  // 2 x 1,800 s / 1 s = 3,600 and 2 x 120 s = 240; each lies within 4 sqrt(mean) of it (a
  // false alarm about 1 in 16,000 each). A profile by the hour (09:00-10:00) would give
  // 7,200, 15 of those bounds away; 23:00-01:00 would give 14,400.
  const std::string yaml = "name: pw\nhorizon: 25h\n" + one_node() + R"(workload:
  services:
    - name: s
      latency: 1ms
      requests:
        arrival: {dist: exponential, mean: 1s}
        profile:
          windows:
            - {days: mon, hours: 09:30-10:00, rate: 2}
            - {days: mon, hours: 23:59-00:01, rate: 2}
          otherwise: 0
)";
  const auto out = run(test::scenario_from_yaml(yaml));
  std::int64_t morning = 0, midnight = 0, outside = 0;
  for (const RequestRecord& r : out->requests) {
    if (r.arrival_s >= 9.5 * 3600 && r.arrival_s < 10 * 3600) ++morning;
    else if (r.arrival_s >= 86'400 - 60 && r.arrival_s < 86'400 + 60) ++midnight;
    else ++outside;
  }
  REQUIRE(out->totals.size() == 1);
  CHECK(out->totals[0].arrived == out->requests.size());  // every request served and recorded
  CHECK(outside == 0);
  CHECK(std::abs(static_cast<double>(morning) - 3600) < 4 * std::sqrt(3600.0));
  CHECK(std::abs(static_cast<double>(midnight) - 240) < 4 * std::sqrt(240.0));
}

TEST_CASE("requests.trace: recorded arrivals and tokens served as written", "[model][serving]") {
  test::TempDir dir;
  SECTION("a latency service: one replica, 100 ms per batch of one") {
    // Arrivals 0, 0.05, 0.3 s. r0 0-0.1 (no wait), r1 waits for r0: 0.1-0.2 (e2e 0.15 s),
    // r2 0.3-0.4. Mean wait (0 + 0.05 + 0) / 3; the same file twice, the same records.
    test::write_file(dir.file("r.csv"), "arrival_s\n0\n0.05\n0.3\n");
    const std::string yaml = "name: t\nhorizon: 10s\n" + one_node() +
                             "workload:\n  services:\n    - {name: q, latency: 100ms, requests: {trace: r.csv}}\n";
    const auto out = run(test::scenario_from_yaml(yaml, dir.file("s.yaml")));
    REQUIRE(out->requests.size() == 3);
    const double start[] = {0, 0.1, 0.3}, end[] = {0.1, 0.2, 0.4}, arrival[] = {0, 0.05, 0.3};
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(out->requests[i].arrival_s == Approx(arrival[i]).margin(1e-9));
      CHECK(out->requests[i].start_s == Approx(start[i]).margin(1e-9));
      CHECK(out->requests[i].end_s == Approx(end[i]).margin(1e-9));
    }
    REQUIRE(out->totals.size() == 1);
    CHECK(out->totals[0].arrived == 3);
    CHECK(out->totals[0].wait_mean_s == Approx(0.05 / 3).margin(1e-9));
  }
  SECTION("an LLM: the file's tokens, not drawn ones") {
    // Continuous batching with the test cost (a = 10 ms, b = 0.1 ms per prefill token, c =
    // 1 ms per decode request). r0 at 0 s: 100-token prompt, 3 tokens out; r1 at 1 s: 20
    // tokens, 1 out. r0: prefill 0-0.020 (first token), decode 0.020-0.031, 0.031-0.042
    // (end). r1: prefill 1.000-1.012 (its only token: end).
    test::write_file(dir.file("r.csv"), "arrival_s,prompt_tokens,output_tokens\n0,100,3\n1,20,1\n");
    const std::string yaml = "name: t\nhorizon: 10s\n" + one_node() +
                             "workload:\n  services:\n    - {name: c, model: gpt2-xl, requests: {trace: r.csv}, "
                             "batching: {mode: continuous, max_batch: 4}}\n";
    const auto out = run(test::scenario_from_yaml(yaml, dir.file("s.yaml")), 0,
                         [] { return std::make_unique<TestCost>(0.010, 0.0001, 0.001, 100000); });
    REQUIRE(out->requests.size() == 2);
    CHECK(out->requests[0].prompt_tokens == 100);
    CHECK(out->requests[0].output_tokens == 3);
    CHECK(out->requests[0].first_token_s == Approx(0.020).margin(1e-9));
    CHECK(out->requests[0].end_s == Approx(0.042).margin(1e-9));
    CHECK(out->requests[1].prompt_tokens == 20);
    CHECK(out->requests[1].end_s == Approx(1.012).margin(1e-9));
  }
}

TEST_CASE("a replica's cold start: the image pulled once per node, the model loaded on every start", "[model][serving]") {
  // Two one-GPU nodes X and Y. cold_start: fixed 1 s; image 2 GB from an object store of
  // 500 MB/s per stream and 50 ms per request: pull = 0.05 + 2e9/500e6 = 4.05 s; model 3 GB
  // from a shared file system of 2 GB/s: load = 1.5 s. A start on a node without the image
  // serves after 1 + 4.05 + 1.5 = 6.55 s, on a node with it after 1 + 1.5 = 2.5 s.
  // Requests every 1 s from 1 s, 100 ms each; training jobs of class 10 preempt the replica.
  //   0 s    train1 takes one node (X), the replica the other (Y): serves from 6.55 s
  //          (request 0, arrived at 1 s, starts then).
  //   10.5 s train2 preempts the replica on Y (its pull done at 4.05 s: Y holds the image).
  //   20 s   train1 ends: the replica starts on X, which has no image: serves from 26.55 s
  //          (request 10, arrived at 11 s).
  //   30.5 s train3 preempts it on X (X holds the image since 24.05 s); train3 ends at 35.5 s
  //          and the replica starts again on X: serves from 35.5 + 2.5 = 38 s (request 30).
  const std::string yaml = "name: c\nhorizon: 60s\n"
                           "cluster:\n  node_types:\n    - {name: n, gpu: T4, gpus: 1, count: 2, price: {on_demand_per_hour: 8}}\n"
                           "storage:\n  tiers:\n"
                           "    - {name: object-store, kind: object-store, read: 10GB/s, stream: 500MB/s, latency: 50ms}\n"
                           "    - {name: shared-fs, kind: shared-fs, read: 2GB/s}\n"
                           "scheduler: {policy: priority, preemption: {mode: lose}}\n"
                           "workload:\n  jobs:\n"
                           "    - {name: train1, submit: 0s, gpus: 1, duration: 20s, priority: 10}\n"
                           "    - {name: train2, submit: 10.5s, gpus: 1, duration: 30s, priority: 10}\n"
                           "    - {name: train3, submit: 30.5s, gpus: 1, duration: 5s, priority: 10}\n"
                           "  services:\n    - name: s\n      requests: {arrival: 1s}\n      latency: 100ms\n"
                           "      cold_start:\n        image: {size: 2GB, tier: object-store}\n"
                           "        model: {tier: shared-fs, size: 3GB}\n        fixed: 1s\n";
  const auto out = run(test::scenario_from_yaml(yaml));
  const auto& r = out->requests;
  REQUIRE(r.size() > 31);
  struct Hand {
    std::uint64_t id;
    double arrival, start;
  };
  const Hand hand[] = {{0, 1.0, 6.55}, {1, 2.0, 6.65}, {9, 10.0, 10.0}, {10, 11.0, 26.55}, {30, 31.0, 38.0}, {31, 32.0, 38.1}};
  for (const Hand& h : hand) {
    INFO("request " << h.id);
    REQUIRE(r[h.id].request == h.id);
    CHECK(r[h.id].arrival_s == Approx(h.arrival).margin(1e-9));
    CHECK(r[h.id].start_s == Approx(h.start).margin(1e-9));
  }
  // Three starts, each to its ready: 6.55 + 6.55 + 2.5 s of cold start.
  REQUIRE(out->totals.size() == 1);
  CHECK(out->totals[0].cold_starts == 3);
  CHECK(out->totals[0].cold_start_s == Approx(15.6).margin(1e-9));
}

TEST_CASE("a cold start cut short keeps the image only if its pull had completed", "[model][serving]") {
  // One one-GPU node; the cold start of the test above: pull 4.05 s (first), then fixed 1 s
  // and load 1.5 s: ready 6.55 s after a start without the image, 2.5 s with it. A training
  // job of class 10 and 10 s preempts the replica during its first cold start.
  //   at 5 s (pull done at 4.05 s): the node keeps the image; restart at 15 s, ready at 17.5 s;
  //     cold: 5 + 2.5 = 7.5 s.
  //   at 3 s (pull not done): nothing kept; restart at 13 s, ready at 19.55 s; cold: 3 + 6.55 s.
  // The first request (arrived at 1 s) starts when the replica is ready.
  auto yaml = [](const std::string& submit) {
    return "name: c\nhorizon: 60s\n"
           "cluster:\n  node_types:\n    - {name: n, gpu: T4, gpus: 1, count: 1, price: {on_demand_per_hour: 8}}\n"
           "storage:\n  tiers:\n"
           "    - {name: object-store, kind: object-store, read: 10GB/s, stream: 500MB/s, latency: 50ms}\n"
           "    - {name: shared-fs, kind: shared-fs, read: 2GB/s}\n"
           "scheduler: {policy: priority, preemption: {mode: lose}}\n"
           "workload:\n  jobs:\n"
           "    - {name: train, submit: " + submit + ", gpus: 1, duration: 10s, priority: 10}\n"
           "  services:\n    - name: s\n      requests: {arrival: 1s}\n      latency: 100ms\n"
           "      cold_start:\n        image: {size: 2GB, tier: object-store}\n"
           "        model: {tier: shared-fs, size: 3GB}\n        fixed: 1s\n";
  };
  struct Case {
    const char* submit;
    double ready, cold_s;
  };
  for (const Case c : {Case{"5s", 17.5, 7.5}, Case{"3s", 19.55, 9.55}}) {
    INFO("preempted at " << c.submit);
    const auto out = run(test::scenario_from_yaml(yaml(c.submit)));
    REQUIRE(!out->requests.empty());
    CHECK(out->requests[0].request == 0);
    CHECK(out->requests[0].start_s == Approx(c.ready).margin(1e-9));
    REQUIRE(out->totals.size() == 1);
    CHECK(out->totals[0].cold_starts == 2);
    CHECK(out->totals[0].cold_start_s == Approx(c.cold_s).margin(1e-9));
  }
}
