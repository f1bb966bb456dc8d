// hetero, cost-aware and spot-fallback, which choose each job's node type, on cases worked
// out by hand: throughput vs cost, the next type when the best is full, deadlines, and
// falling back from spot after interruptions or when the deadline is at risk.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "models/scheduler/spot_fallback.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

// Two node types: `a100` (8 x A100-40GB, 312 TFLOP/s bf16, $2 per GPU-hour) and `h100`
// (8 x H100-SXM, 989 TFLOP/s bf16, $10 per GPU-hour). A bf16 job of W FLOP on g GPUs at
// efficiency 0.5 takes W / (g 156e12) s on an A100 node and W / (g 494.5e12) s on an H100.
std::string two_types(const std::string& scheduler, const std::string& jobs) {
  return "name: types\nseed: 1\nhorizon: 30d\nrun_until: done\ncluster:\n  node_types:\n"
         "    - {name: a100, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 16}}\n"
         "    - {name: h100, gpu: H100-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 80}}\n"
         "scheduler: " + scheduler + "\nworkload:\n  jobs:\n" + jobs;
}

struct Run {
  std::string type;
  double start_h, end_h;
  int interruptions;
};
std::map<std::string, Run> run(const std::string& yaml) {
  const auto s = test::scenario_from_yaml(yaml);
  std::map<std::string, Run> out;
  for (const auto& j : test::run_jobs(s))
    out[j.name] = Run{j.node_type < 0 ? "" : s.cluster.node_types[static_cast<std::size_t>(j.node_type)].name,
                      j.start.seconds() / 3600, j.end.seconds() / 3600, j.interruptions()};
  return out;
}

// The same from the trace of a full run (with the spot market, which a bare cluster lacks).
std::map<std::string, Run> run_traced(const std::string& yaml) {
  const test::TempDir dir("type-choice");
  std::map<std::string, Run> out;
  for (const auto& j : test::run_to_trace(test::scenario_from_yaml(yaml), dir.file("t.h5")).jobs)
    out[j.name] = Run{j.node_type, j.start_s / 3600, j.end_s / 3600, j.resilience.interruptions};
  return out;
}

// 8 GPUs x 156e12 x 3600 s = 4.4928e18 FLOP: one hour on the A100 node, 0.3155 h on the H100.
const std::string ONE_HOUR_ON_A100 = "gpus: 8, work: 4.4928e18, precision: bf16, efficiency: 0.5";

}  // namespace

TEST_CASE("hetero puts a job where its throughput per GPU, or per dollar, is best", "[model][scheduler]") {
  const std::string job = "    - {name: J, " + ONE_HOUR_ON_A100 + "}\n";
  // Throughput: the H100 node (0.3155 h against 1 h).
  auto t = run(two_types("{policy: hetero}", job));
  CHECK(t["J"].type == "h100");
  CHECK(t["J"].end_h == Approx(156.0 / 494.5).epsilon(1e-9));
  // Cost: 1 h x 8 x $2 = $16 on the A100 node against 0.3155 h x 8 x $10 = $25.24.
  auto c = run(two_types("{policy: hetero, objective: cost}", job));
  CHECK(c["J"].type == "a100");
  CHECK(c["J"].end_h == Approx(1.0).epsilon(1e-9));
  // The best type full, the next one: two such jobs at once, throughput: H then A.
  auto two = run(two_types("{policy: hetero}", job + "    - {name: K, " + ONE_HOUR_ON_A100 + "}\n"));
  CHECK(two["J"].type == "h100");
  CHECK(two["K"].type == "a100");
  CHECK(two["K"].start_h == Approx(0));
}

TEST_CASE("cost-aware takes the cheapest type that meets the deadline", "[model][scheduler]") {
  // No deadline: the A100 node ($16 against $25.24).
  auto none = run(two_types("{policy: cost-aware}", "    - {name: J, " + ONE_HOUR_ON_A100 + "}\n"));
  CHECK(none["J"].type == "a100");
  // Due in 30 min: only the H100 node (0.3155 h) makes it.
  auto tight = run(two_types("{policy: cost-aware}", "    - {name: J, " + ONE_HOUR_ON_A100 + ", deadline: 30m}\n"));
  CHECK(tight["J"].type == "h100");
  // Due in 2 h: both do; the cheaper.
  auto loose = run(two_types("{policy: cost-aware}", "    - {name: J, " + ONE_HOUR_ON_A100 + ", deadline: 2h}\n"));
  CHECK(loose["J"].type == "a100");
  // Due in 10 min: neither; the fastest (least late).
  auto lost = run(two_types("{policy: cost-aware}", "    - {name: J, " + ONE_HOUR_ON_A100 + ", deadline: 10m}\n"));
  CHECK(lost["J"].type == "h100");
  // A job waits for its type rather than take one that misses: K (due in 2 h) arrives while
  // J holds the A100 node for 1 h; A100 then still makes it (1 h + 1 h <= 2 h... exactly),
  // and it is cheaper than the free H100 node, but it has no room now: K takes the first
  // type in its list with room, the H100 node, at once.
  auto busy = run(two_types("{policy: cost-aware}", "    - {name: J, " + ONE_HOUR_ON_A100 + "}\n"
                                                        "    - {name: K, " + ONE_HOUR_ON_A100 + ", deadline: 2h}\n"));
  CHECK(busy["J"].type == "a100");
  CHECK(busy["K"].type == "h100");
  CHECK(busy["K"].start_h == Approx(0));
}

TEST_CASE("spot-fallback leaves spot after N interruptions", "[model][scheduler]") {
  // One spot node (price 1 $/h, over its 2 $/h maximum from 1 h to 2 h and from 3 h to 4 h:
  // it goes down then) and one on-demand node, 1 GPU each. A 10-hour job without
  // checkpoints starts on spot, loses its run at 1 h and at 3 h; with after: 2 it then
  // moves to the on-demand node at 3 h and ends at 13 h. After: 3 keeps it on spot: back at
  // 4 h, it ends at 14 h.
  const auto yaml = [](const std::string& scheduler) {
    return "name: sf\nseed: 1\nhorizon: 2d\nrun_until: done\ncluster:\n  node_types:\n"
           "    - {name: s, gpu: A100-40GB-SXM, gpus: 1, count: 1, market: spot, interruptions: {process: price},\n"
           "       price: {on_demand_per_hour: 4, max_per_hour: 2, spot_profile: {points: [{at: 0h, price: 1}, {at: 1h, price: 5},\n"
           "               {at: 2h, price: 1}, {at: 3h, price: 5}, {at: 4h, price: 1}]}}}\n"
           "    - {name: od, gpu: A100-40GB-SXM, gpus: 1, count: 1, price: {on_demand_per_hour: 4}}\n"
           "scheduler: " + scheduler + "\nworkload:\n  jobs:\n    - {name: J, gpus: 1, duration: 10h}\n";
  };
  auto two = run_traced(yaml("{policy: spot-fallback}"));
  CHECK(two["J"].type == "od");
  CHECK(two["J"].interruptions == 2);
  CHECK(two["J"].end_h == Approx(13));
  auto three = run_traced(yaml("{policy: spot-fallback, after: 3}"));
  CHECK(three["J"].type == "s");
  CHECK(three["J"].end_h == Approx(14));
  // fifo, for comparison, takes the first type with room: the spot node at 0 h, the
  // on-demand one at 1 h (the spot node is down), and ends at 11 h.
  auto fifo = run_traced(yaml("{policy: fifo}"));
  CHECK(fifo["J"].end_h == Approx(11));
}

namespace {
struct FixedSpeeds final : models::JobSpeeds {
  double s = 3600;
  double time_left_alone_s(std::uint32_t, int) const override { return s; }
};
}  // namespace

TEST_CASE("spot-fallback leaves spot when the deadline is at risk", "[unit][scheduler]") {
  const models::NodeTypeView types[] = {{.gpus_per_node = 1, .count = 1, .market = models::Market::Spot},
                                        {.gpus_per_node = 1, .count = 1, .market = models::Market::OnDemand}};
  const models::NodeView nodes[] = {{0, 1, models::NodeStatus::Up}, {1, 1, models::NodeStatus::Up}};
  FixedSpeeds speeds;  // one hour left on either type
  models::ClusterView view{sim::SimTime::from_seconds(1000), types, nodes};
  view.speeds = &speeds;
  models::SpotFallbackParams p;
  p.margin = 0.5;
  const models::SpotFallbackScheduler sf(std::make_unique<models::BestFitPlacement>(), p);
  models::QueuedJob q;
  q.eligible_types = 3;
  CHECK_FALSE(sf.falls_back(view, q));  // no deadline, no interruption
  q.deadline = sim::SimTime::from_seconds(1000 + 5400);  // 1 h x 1.5 = 5400 s: just in time
  CHECK_FALSE(sf.falls_back(view, q));
  q.deadline = sim::SimTime::from_seconds(1000 + 5399);
  CHECK(sf.falls_back(view, q));
  q.deadline = sim::SimTime::max();
  q.restarts = 2;
  CHECK(sf.falls_back(view, q));
}

TEST_CASE("a job's gpu key names the GPU models it accepts", "[model][scheduler][config]") {
  // fifo's best-fit would take the first type with room (a100); gpu: H100-SXM keeps J off it.
  auto only = run(two_types("{policy: fifo}", "    - {name: J, gpus: 8, duration: 1h, gpu: H100-SXM}\n"
                                              "    - {name: K, gpus: 8, duration: 1h}\n"));
  CHECK(only["J"].type == "h100");
  CHECK(only["K"].type == "a100");
  // A list, and an alias (A100-SXM4-40GB is the A100-40GB-SXM): both types, a100 first.
  auto both = run(two_types("{policy: fifo}", "    - {name: J, gpus: 8, duration: 1h, gpu: [H100-SXM, A100-SXM4-40GB]}\n"));
  CHECK(both["J"].type == "a100");
  // Two jobs that accept only the A100 queue for it while the H100 node idles.
  auto queue = run(two_types("{policy: fifo, blocking: skip}", "    - {name: J, gpus: 8, duration: 1h, gpu: A100-40GB-SXM}\n"
                                                               "    - {name: K, gpus: 8, duration: 1h, gpu: A100-40GB-SXM}\n"));
  CHECK(queue["K"].start_h == Approx(1));
  const auto fails = [&](const std::string& job, ErrorCode code, const std::string& text) {
    try {
      test::scenario_from_yaml(two_types("{policy: fifo}", job));
      FAIL("accepted " << job);
    } catch (const ConfigError& e) {
      CHECK(e.code() == code);
      CHECK_THAT(e.what(), Catch::Contains(text));
    }
  };
  fails("    - {gpus: 1, duration: 1h, gpu: H100-SMX}\n", ErrorCode::UnknownName, "did you mean 'H100-SXM'");
  fails("    - {gpus: 1, duration: 1h, gpu: T4}\n", ErrorCode::Infeasible, "no node type has the GPU");
  fails("    - {gpus: 16, duration: 1h, gpu: H100-SXM}\n", ErrorCode::Infeasible, "counting only node types with its `gpu`");
  fails("    - {gpus: 1, duration: 1h, gpu: []}\n", ErrorCode::OutOfRange, "at least one");
}

TEST_CASE("hetero places a model-described job by the step-time model's speed on each type", "[model][scheduler]") {
  // The ResNet-50 estimate example: 8 GPUs of A100, H100 or T4, one node each. The step-time
  // model gives 18,093 samples/s on the A100 node and 36,186 on the H100 node (gcsim
  // estimate); hetero puts the job on the H100 node, fifo's best-fit on the first type.
  const std::string base = test::read_bytes(GCSIM_SOURCE_DIR "/scenarios/examples/estimate_resnet50.yaml");
  auto on = [&](const std::string& scheduler) { return run_traced(base + "scheduler: " + scheduler + "\n")["rn50"].type; };
  CHECK(on("{policy: hetero}") == "p5-h100");
  CHECK(on("{policy: hetero, objective: cost}") == "p4d-a100");
  CHECK(on("{policy: fifo}") == "p4d-a100");
}
