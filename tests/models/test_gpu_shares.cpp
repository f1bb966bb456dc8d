// Jobs that share a GPU (gpu_milli < 1000): the allocator keeps each GPU's thousandths and
// never lets a whole-GPU job onto a shared GPU; placement puts a share on the tightest shared
// GPU first (spread on the emptiest node); a share computes, costs and counts GPU-hours at
// its share; the trace, the readers and every policy carry it. Every figure below is
// computed by hand in the comments.
#include <catch2/catch.hpp>

#include <bit>
#include <string>
#include <utility>
#include <vector>

#include "analysis/metrics.hpp"
#include "models/accounting/cost_meter.hpp"
#include "models/cluster/cluster.hpp"
#include "models/cluster/node_allocator.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/scheduler/fifo.hpp"
#include "models/register_builtins.hpp"
#include "models/scheduler/placement.hpp"
#include "sim/check.hpp"
#include "sim/engine.hpp"
#include "support/model_run.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::JobStatus;

namespace {

// Two nodes of 2 GPUs at $4/h per node ($2 per GPU-hour).
const std::string TWO_BY_TWO = R"(name: shares
horizon: 20h
run_until: done
cluster:
  node_types:
    - {name: n2, gpu: A100-40GB-SXM, gpus: 2, count: 2, price: {on_demand_per_hour: 4}}
)";

models::Job job(std::uint32_t id, int gpus, int milli) {
  models::Job j;
  j.id = id;
  j.name = "J" + std::to_string(id);
  j.gpus = gpus;
  j.gpu_milli = static_cast<std::int16_t>(milli);
  return j;
}

models::Decisions share_on(std::uint32_t node, int gpu) {
  models::Decisions d;
  d.placements.push_back(models::Placement{0, 0, 1, 1, 0, gpu, 0});
  d.nodes.push_back(node);
  return d;
}

// A run, with where each job that shares a GPU went.
struct Run : test::ModelRun {
  using test::ModelRun::ModelRun;
  // (node, local GPU) of a job that shares one.
  std::pair<std::uint32_t, int> gpu(const std::string& name) const {
    const models::Job& j = job(name);
    return {cluster.nodes_of(j)[0], std::countr_zero(j.gpu_mask)};
  }
};

}  // namespace

TEST_CASE("NodeAllocator: shares of one GPU add up to at most 1000, whole jobs never share", "[unit][cluster]") {
  const models::Scenario s = test::scenario_from_yaml(TWO_BY_TWO + "workload:\n  jobs:\n    - {gpus: 1, duration: 1h}\n");
  models::NodeAllocator a(s.cluster);
  models::Job x = job(0, 1, 600), y = job(1, 1, 400), z = job(2, 1, 1);
  const models::Decisions d = share_on(1, 1);
  a.allocate(x, d.placements[0], d, "test");
  // GPU 1 of node 1 (cluster-wide GPU 3) has 400 thousandths left; node 1 one free GPU.
  CHECK(a.gpu_room()[3] == 400);
  CHECK(a.view()[1].gpus_free == 1);
  CHECK(a.allocated_gpus() == Approx(0.6));
  CHECK(x.gpu_mask == 0b10);
  a.allocate(y, d.placements[0], d, "test");
  CHECK(a.gpu_room()[3] == 0);
  CHECK(a.allocated_gpus() == Approx(1.0));
  std::vector<std::uint32_t> on;
  a.jobs_on(1, on);
  CHECK(on.size() == 2);
  SECTION("a share past the GPU's room is refused, nothing taken") {
    CHECK_THROWS_AS(a.allocate(z, d.placements[0], d, "test"), InternalError);
    CHECK(a.allocated_gpus() == Approx(1.0));
  }
  SECTION("a whole-GPU job takes only a GPU nobody holds any of") {
    models::Job w = job(3, 2, 1000);
    models::Decisions dw;
    dw.placements.push_back(models::Placement{3, 0, 1, 2, 0});
    dw.nodes.push_back(1);
    CHECK_THROWS_AS(a.allocate(w, dw.placements[0], dw, "test"), InternalError);
    models::Job one = job(4, 1, 1000);
    dw.placements[0].gpus_per_node = 1;
    a.allocate(one, dw.placements[0], dw, "test");
    CHECK(one.gpu_mask == 0b01);  // GPU 0: the shared GPU 1 is not free
    CHECK(a.view()[1].gpus_free == 0);
  }
  SECTION("releases free the share; the GPU is free again when its last job leaves") {
    a.release(x, 3600);
    CHECK(a.gpu_room()[3] == 600);
    CHECK(a.view()[1].gpus_free == 1);
    CHECK(a.nodes()[1].busy_gpu_s == Approx(0.6 * 3600));
    CHECK_THROWS_AS(a.release(x, 1), InternalError);  // a second release
    a.release(y, 3600);
    CHECK(a.gpu_room()[3] == 1000);
    CHECK(a.view()[1].gpus_free == 2);
    CHECK(a.allocated_gpus() == 0);
  }
  SECTION("a noticed node offers no room on its shared GPUs") {
    a.release(y, 0);
    REQUIRE(a.transition(1, models::NodePhase::Draining, models::NodeReason::SpotInterruption, sim::SimTime::zero(), true, sim::hours(1)));
    CHECK(a.gpu_room()[3] == 0);
    CHECK_THROWS_AS(a.allocate(z, d.placements[0], d, "test"), InternalError);
  }
}

TEST_CASE("best-fit packs shares onto shared GPUs and keeps a node whole, spread fragments both", "[model][cluster]") {
  // Four shares of 500 (10 h) and then a 2-GPU job W (1 h), on two nodes of 2 GPUs.
  // best-fit: S1 opens node 0 GPU 0 (both nodes free: lowest); S2 fills it (room 500, the
  // tightest shared GPU); S3 opens a GPU on the tightest node, node 0 (1 free), GPU 1; S4
  // fills it. Node 1 stays whole: W starts at 0 on it.
  // spread: S1 node 0 GPU 0; S2 a free GPU on the emptiest node, node 1 GPU 0; S3: both
  // nodes have 1 free, the lowest is node 0 -> GPU 1; S4 node 1 GPU 1. Every GPU is half
  // held, so W waits for the shares to end at 10 h.
  const std::string jobs = R"(workload:
  jobs:
    - {name: S1, gpus: 1, gpu_milli: 500, duration: 10h}
    - {name: S2, gpus: 1, gpu_milli: 500, duration: 10h}
    - {name: S3, gpus: 1, gpu_milli: 500, duration: 10h}
    - {name: S4, gpus: 1, gpu_milli: 500, duration: 10h}
    - {name: W, submit: 1m, gpus: 2, duration: 1h}
)";
  const Run best(TWO_BY_TWO + "scheduler: {policy: fifo, placement: best-fit}\n" + jobs);
  CHECK(best.gpu("S1") == std::pair<std::uint32_t, int>{0, 0});
  CHECK(best.gpu("S2") == std::pair<std::uint32_t, int>{0, 0});
  CHECK(best.gpu("S3") == std::pair<std::uint32_t, int>{0, 1});
  CHECK(best.gpu("S4") == std::pair<std::uint32_t, int>{0, 1});
  CHECK(best.job("W").start == sim::minutes(1));
  CHECK(best.cluster.nodes_of(best.job("W"))[0] == 1);

  const Run spread(TWO_BY_TWO + "scheduler: {policy: fifo, placement: spread}\n" + jobs);
  CHECK(spread.gpu("S1") == std::pair<std::uint32_t, int>{0, 0});
  CHECK(spread.gpu("S2") == std::pair<std::uint32_t, int>{1, 0});
  CHECK(spread.gpu("S3") == std::pair<std::uint32_t, int>{0, 1});
  CHECK(spread.gpu("S4") == std::pair<std::uint32_t, int>{1, 1});
  CHECK(spread.job("W").start == sim::hours(10));

  // Costs at $2 per GPU-hour: each share 0.5 x 10 h x $2 = $10, W 2 x 1 h x $2 = $4.
  for (const char* s : {"S1", "S2", "S3", "S4"}) {
    CHECK(best.costs.job_cost_usd(best.job(s).id) == Approx(10.0).epsilon(1e-12));
    CHECK(best.job(s).held_gpu_s == Approx(0.5 * 36000).epsilon(1e-12));
  }
  CHECK(best.costs.job_cost_usd(best.job("W").id) == Approx(4.0).epsilon(1e-12));
}

TEST_CASE("a share takes the tightest shared GPU that has room, not a free one", "[model][cluster]") {
  // A (700) opens node 0 GPU 0 (room 300); B (400) does not fit there and opens node 0
  // GPU 1 (best-fit node: node 0 with 1 free, room 600); C (300) fits both shared GPUs, the
  // tightest is GPU 0 (300 < 600), filling it; D (600) fits only GPU 1. Node 1 stays free.
  const Run run(TWO_BY_TWO + R"(workload:
  jobs:
    - {name: A, gpus: 1, gpu_milli: 700, duration: 2h}
    - {name: B, gpus: 1, gpu_milli: 400, duration: 2h}
    - {name: C, gpus: 1, gpu_milli: 300, duration: 2h}
    - {name: D, gpus: 1, gpu_milli: 600, duration: 2h}
    - {name: E, gpus: 2, duration: 1h}
)");
  CHECK(run.gpu("A") == std::pair<std::uint32_t, int>{0, 0});
  CHECK(run.gpu("B") == std::pair<std::uint32_t, int>{0, 1});
  CHECK(run.gpu("C") == std::pair<std::uint32_t, int>{0, 0});
  CHECK(run.gpu("D") == std::pair<std::uint32_t, int>{0, 1});
  CHECK(run.job("E").start == sim::SimTime::zero());
  CHECK(run.cluster.nodes_of(run.job("E"))[0] == 1);
}

TEST_CASE("a work job sharing a GPU computes at its share of the GPU's rate", "[model][cluster]") {
  // A100-40GB-SXM: 19.5 TFLOP/s FP32 peak; at efficiency 0.5 a whole GPU does 9.75e12
  // FLOP/s, so 3.51e16 FLOP take 1 h; a 250-thousandths share takes 4 h.
  const Run run(TWO_BY_TWO + R"(workload:
  jobs:
    - {name: Q, gpus: 1, gpu_milli: 250, work: 3.51e16, precision: fp32, efficiency: 0.5}
)");
  CHECK(run.job("Q").end.seconds() == Approx(4 * 3600.0).epsilon(1e-9));
  CHECK(run.job("Q").held_gpu_s == Approx(0.25 * 4 * 3600.0).epsilon(1e-9));
}

TEST_CASE("gpu_milli is read and checked: one-GPU duration and work jobs, 1..1000", "[unit][config]") {
  const std::string head = TWO_BY_TWO + "workload:\n  jobs:\n";
  CHECK(test::scenario_from_yaml(head + "    - {gpus: 1, gpu_milli: 250, duration: 1h}\n").workload.jobs[0].gpu_milli == 250);
  CHECK(test::scenario_from_yaml(head + "    - {gpus: 2, gpu_milli: 1000, duration: 1h}\n").workload.jobs[0].gpu_milli == 1000);
  const ConfigError many = test::config_error([&] { test::scenario_from_yaml(head + "    - {gpus: 2, gpu_milli: 500, duration: 1h}\n"); });
  CHECK_THAT(many.what(), Catch::Contains("one-GPU jobs"));
  CHECK_THAT(many.what(), Catch::Contains("gpu_milli"));
  const ConfigError range = test::config_error([&] { test::scenario_from_yaml(head + "    - {gpus: 1, gpu_milli: 1001, duration: 1h}\n"); });
  CHECK_THAT(range.what(), Catch::Contains("gpu_milli"));
  const ConfigError zero = test::config_error([&] { test::scenario_from_yaml(head + "    - {gpus: 1, gpu_milli: 0, duration: 1h}\n"); });
  CHECK_THAT(zero.what(), Catch::Contains("gpu_milli"));
  const ConfigError typo = test::config_error([&] { test::scenario_from_yaml(head + "    - {gpus: 1, gpu_mili: 500, duration: 1h}\n"); });
  CHECK_THAT(typo.what(), Catch::Contains("gpu_milli"));  // did you mean
  const ConfigError model = test::config_error([&] {
    test::scenario_from_yaml(head + "    - {gpus: 1, gpu_milli: 500, model: resnet50, batch_per_gpu: 64, samples: 1e6}\n");
  });
  CHECK_THAT(model.what(), Catch::Contains("whole GPUs"));
  const std::string gen = TWO_BY_TWO + "workload:\n  generators:\n    - {name: g, count: 5, arrival: 1m, gpus: 1, duration: 1h, gpu_milli: ";
  const ConfigError out = test::config_error([&] { test::scenario_from_yaml(gen + "{choice: [500, 1500]}}\n"); });
  CHECK_THAT(out.what(), Catch::Contains("1..1000"));
}

TEST_CASE("a generator draws shares for its one-GPU jobs only, from its own stream", "[model][workload]") {
  // gpus: choice of 1 and 2; gpu_milli: uniform 100..900. Jobs of 2 GPUs take whole GPUs;
  // the one-GPU jobs' shares lie in 100..900; adding the gpu_milli key does not change the
  // sizes or the arrivals drawn (each field has its own stream).
  const std::string base = TWO_BY_TWO + R"(workload:
  generators:
    - {name: g, count: 200, arrival: {dist: exponential, mean: 10m}, gpus: {choice: [1, 2]}, duration: 30m)";
  const auto with = models::expand_workload(test::scenario_from_yaml(base + ", gpu_milli: {dist: uniform, min: 100, max: 900}}\n"), 7);
  const auto without = models::expand_workload(test::scenario_from_yaml(base + "}\n"), 7);
  REQUIRE(with.size() == without.size());
  int shares = 0;
  for (std::size_t i = 0; i < with.size(); ++i) {
    CHECK(with[i].submit == without[i].submit);
    CHECK(with[i].gpus == without[i].gpus);
    CHECK(without[i].gpu_milli == 1000);
    if (with[i].gpus == 2) CHECK(with[i].gpu_milli == 1000);
    if (with[i].gpus == 1) {
      CHECK(with[i].gpu_milli >= 100);
      CHECK(with[i].gpu_milli <= 900);
      ++shares;
    }
  }
  CHECK(shares > 50);
}

TEST_CASE("the trace carries each job's share and the allocated GPUs as shares", "[model][trace]") {
  // Two 500 shares on one GPU from 0 to 2 h, then nothing: allocated 1.0 GPU over [0, 2 h).
  test::TempDir dir("shares-trace");
  const analysis::TraceData t = test::run_yaml(TWO_BY_TWO + R"(workload:
  jobs:
    - {name: A, gpus: 1, gpu_milli: 500, duration: 2h}
    - {name: B, gpus: 1, gpu_milli: 500, duration: 2h}
    - {name: C, gpus: 1, duration: 1h}
)", dir);
  CHECK(test::job_named(t, "A").gpu_milli == 500);
  CHECK(test::job_named(t, "C").gpu_milli == 1000);
  CHECK(test::job_named(t, "A").resilience.gpu_s_held == Approx(3600.0));
  REQUIRE_FALSE(t.utilization.empty());
  CHECK(t.utilization.front().allocated_gpus == Approx(2.0));  // A + B = 1 GPU, C 1 GPU
  CHECK(t.attrs.trace_schema == 6);
  // analyze: two jobs sharing, 0.5 GPU x 2 h each = 2 GPU-hours held by shares of 3 in all.
  const analysis::Metrics m = analysis::compute_metrics(t);
  CHECK(m.jobs_sharing_gpu == 2);
  CHECK(m.share_gpu_hours_held == Approx(2.0).epsilon(1e-12));
  CHECK(m.gpu_hours_held == Approx(3.0).epsilon(1e-12));
}

TEST_CASE("every policy runs a mix of shares and whole-GPU jobs without breaking a GPU", "[model][scheduler]") {
  // 300 jobs on 4 nodes of 2 GPUs: half one-GPU shares of 100..900, the rest 1-4 whole
  // GPUs. The allocator checks every placement (a share past a GPU's room, a whole job on a
  // shared GPU, a second release are InternalErrors), so a run that ends has kept the
  // rules; each completed job that ran once held exactly its share x its run.
  const std::string cluster = R"(name: mix
horizon: 30d
run_until: done
cluster:
  node_types:
    - {name: n2, gpu: A100-40GB-SXM, gpus: 2, count: 4, price: {on_demand_per_hour: 4}}
workload:
  generators:
    - {name: s, count: 150, arrival: {dist: exponential, mean: 4m}, gpus: 1, gpu_milli: {dist: uniform, min: 100, max: 900}, duration: {dist: lognormal, median: 30m, sigma: 0.8, max: 6h}, checkpoint: {every: 10m, write_time: 10s}}
    - {name: w, count: 150, arrival: {dist: exponential, mean: 4m}, gpus: {choice: [1, 2, 4]}, duration: {dist: lognormal, median: 30m, sigma: 0.8, max: 6h}, checkpoint: {every: 10m, write_time: 10s}}
)";
  for (const char* policy : {"fifo", "{policy: fifo, blocking: skip}", "{policy: fifo, placement: spread}",
                             "{policy: fifo, placement: pack}", "{policy: fifo, placement: topology}",
                             "{policy: fifo, placement: first-fit}", "sjf", "{policy: sjf, blocking: skip}",
                             "{policy: srtf, preemption: {save: 10s, restore: 10s}}", "backfill",
                             "{policy: backfill, mode: conservative}", "{policy: las, preemption: {save: 10s, restore: 10s}}",
                             "fair-share", "priority", "{policy: finish-time-fair, preemption: {save: 10s, restore: 10s}}",
                             "hetero", "cost-aware", "spot-fallback"}) {
    INFO(policy);
    const std::string p = policy[0] == '{' ? std::string(policy) : "{policy: " + std::string(policy) + "}";
    const models::Scenario s = test::scenario_from_yaml(cluster + "scheduler: " + p + "\n");
    const std::vector<models::Job> jobs = test::run_jobs(s);
    int completed = 0;
    for (const models::Job& j : jobs) {
      if (j.status != JobStatus::Completed) continue;
      ++completed;
      // Its run and its checkpoint pauses (10 s each), at its share.
      if (j.interruptions() == 0)
        CHECK(j.held_gpu_s ==
              Approx((j.duration.seconds() + 10.0 * j.checkpoints()) * j.gpus * j.gpu_milli / 1000.0).epsilon(1e-9));
    }
    CHECK(completed == 300);
  }
}

TEST_CASE("quotas count a share as its share of a GPU", "[model][quotas]") {
  // Team a may hold at most 25% of 4 GPUs: 1 GPU. Its three 500 shares (2 h each, all at
  // 0): A1 and A2 fill one GPU (500 + 500 = 1000, at the cap) and start at 0; A3 would take
  // a over its cap and waits for A1 to end at 2 h. Counted as a whole GPU each, A2 would wait
  // too. Team b's whole-GPU job starts at 0 beside them.
  const Run run(TWO_BY_TWO + R"(scheduler: {policy: fifo, blocking: skip, quotas: {windows: [{teams: {a: {max: 25%}}}]}}
workload:
  jobs:
    - {name: A1, team: a, gpus: 1, gpu_milli: 500, duration: 2h}
    - {name: A2, team: a, gpus: 1, gpu_milli: 500, duration: 2h}
    - {name: A3, team: a, gpus: 1, gpu_milli: 500, duration: 2h}
    - {name: B1, team: b, gpus: 1, duration: 1h}
)");
  CHECK(run.job("A1").start == sim::SimTime::zero());
  CHECK(run.job("A2").start == sim::SimTime::zero());
  CHECK(run.job("A3").start == sim::hours(2));
  CHECK(run.job("B1").start == sim::SimTime::zero());
}

TEST_CASE("a preempting policy makes room for a share by taking back another job's share", "[model][scheduler]") {
  // One GPU. L (600, 10 h) starts at 0. S (600, 1 h) arrives at 1 m: 400 are unheld, too
  // few; srtf preempts L (its 9 h 59 m left > S's 1 h), whose 600 come back: S runs 1 m to
  // 1 h 1 m. T (300, 1 h) at 2 m fits beside S (400 unheld) without preempting anyone.
  // L resumes when S ends (T's 300 leave it 700): 1 h 1 m + 9 h 59 m = 11 h.
  const Run run(R"(name: one-gpu
horizon: 2d
run_until: done
cluster:
  node_types:
    - {name: n1, gpu: A100-40GB-SXM, gpus: 1, count: 1, price: {on_demand_per_hour: 2}}
scheduler: {policy: srtf, preemption: {save: 0s, restore: 0s}}
workload:
  jobs:
    - {name: L, gpus: 1, gpu_milli: 600, duration: 10h}
    - {name: S, submit: 1m, gpus: 1, gpu_milli: 600, duration: 1h}
    - {name: T, submit: 2m, gpus: 1, gpu_milli: 300, duration: 1h}
)");
  CHECK(run.job("L").preemptions() == 1);
  CHECK(run.job("S").start == sim::minutes(1));
  CHECK(run.job("S").end == sim::minutes(61));
  CHECK(run.job("T").start == sim::minutes(2));
  CHECK(run.job("T").preemptions() == 0);
  CHECK(run.job("L").end == sim::hours(11));
}
