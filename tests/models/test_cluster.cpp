// The cluster model, FIFO and on-demand billing on a tiny cluster whose every start,
// finish and dollar is computed by hand in the comments.
#include <catch2/catch.hpp>

#include <tuple>

#include "models/accounting/cost_meter.hpp"
#include "models/cluster/cluster.hpp"
#include "models/scheduler/fifo.hpp"
#include "models/coupling/expand_workload.hpp"
#include "sim/engine.hpp"
#include "support/model_run.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::JobStatus;

namespace {

using test::ModelRun;

// Two nodes of 4 GPUs at $8/h per node ($2 per GPU-hour), given back with the last job.
const std::string CLUSTER = R"(name: hand
horizon: 10h
run_until: done
cluster:
  node_types:
    - {name: n4, gpu: A100-40GB-SXM, gpus: 4, count: 2, price: {on_demand_per_hour: 8}}
)";

}  // namespace

TEST_CASE("FIFO on two 4-GPU nodes: starts, finishes and costs by hand", "[model][cluster]") {
  // A (4 GPUs, 2h) takes node 0 at 0; B (2 GPUs, 1h) takes node 1 at 0.
  // C (8 GPUs) needs both whole nodes: waits for A's end at 2h, runs 2h-3h.
  // D (1 GPU, 30m) arrives at 1h; node 1 has room, but strict FIFO keeps it behind C: 3h-3h30.
  ModelRun run(CLUSTER + R"(workload:
  jobs:
    - {name: A, submit: 0h, gpus: 4, duration: 2h}
    - {name: B, submit: 0h, gpus: 2, duration: 1h}
    - {name: C, submit: 30m, gpus: 8, duration: 1h}
    - {name: D, submit: 1h, gpus: 1, duration: 30m}
)");
  const auto& A = run.job("A");
  const auto& B = run.job("B");
  const auto& C = run.job("C");
  const auto& D = run.job("D");
  for (const auto* j : {&A, &B, &C, &D}) CHECK(j->status == JobStatus::Completed);
  CHECK(A.start == sim::hours(0));
  CHECK(A.end == sim::hours(2));
  CHECK(run.cluster.nodes_of(A)[0] == 0);
  CHECK(B.start == sim::hours(0));
  CHECK(run.cluster.nodes_of(B)[0] == 1);
  CHECK(C.start == sim::hours(2));
  CHECK(C.end == sim::hours(3));
  CHECK(C.nodes_count == 2);
  CHECK(C.gpus_held() == 8);
  CHECK(D.start == sim::hours(3));
  CHECK(D.end == sim::hours(3) + sim::minutes(30));
  // run_until: done -> the run (and the rental) ends when D finishes, at 3.5h.
  CHECK(run.cluster.end_time() == sim::hours(3) + sim::minutes(30));
  // Nodes: 2 x $8/h x 3.5h = $56. Jobs at $2/GPU-h: A 4x2h=$16, B 2x1h=$4, C 8x1h=$16, D 1x0.5h=$1.
  CHECK(run.costs.total_cost_usd() == Approx(56.0).epsilon(1e-12));
  CHECK(run.costs.job_cost_usd(A.id) == Approx(16.0).epsilon(1e-12));
  CHECK(run.costs.job_cost_usd(B.id) == Approx(4.0).epsilon(1e-12));
  CHECK(run.costs.job_cost_usd(C.id) == Approx(16.0).epsilon(1e-12));
  CHECK(run.costs.job_cost_usd(D.id) == Approx(1.0).epsilon(1e-12));
  CHECK(run.costs.busy_cost_usd() == Approx(37.0).epsilon(1e-12));
}

TEST_CASE("best fit keeps whole nodes free for big jobs", "[model][cluster]") {
  // X (1 GPU) goes to node 0. Y (2 GPUs) best-fits node 0 too (3 free < 4 free), leaving
  // node 1 whole, so Z (4 GPUs) starts at once instead of waiting.
  ModelRun run(CLUSTER + R"(workload:
  jobs:
    - {name: X, gpus: 1, duration: 1h}
    - {name: Y, gpus: 2, duration: 1h}
    - {name: Z, gpus: 4, duration: 1h}
)");
  CHECK(run.cluster.nodes_of(run.job("Y"))[0] == 0);
  CHECK(run.cluster.nodes_of(run.job("Z"))[0] == 1);
  CHECK(run.job("Z").start == sim::hours(0));
}

TEST_CASE("a work job runs at gpus x peak(precision) x efficiency", "[model][cluster]") {
  // A100 TF32 dense peak 156 TFLOP/s; 4 GPUs x 156e12 x 0.5 = 312e12 FLOP/s.
  // 312e12 x 5400 s = 1.6848e18 FLOP takes exactly 1.5 h.
  ModelRun run(CLUSTER + R"(workload:
  jobs:
    - {name: W, gpus: 4, work: 1.6848e18, precision: tf32, efficiency: 0.5}
)");
  CHECK(run.job("W").end.seconds() == Approx(5400.0).epsilon(1e-12));
}

TEST_CASE("the horizon ends the run: running and never-started jobs", "[model][cluster]") {
  // horizon 10h, run_until horizon. L (8 GPUs, 9h) runs 0-9h. M (8 GPUs, 2h) starts at 9h and
  // is still running at 10h. N (1 GPU) waits behind M and never starts. O arrives after the
  // horizon: never submitted, reported never started. F finishes exactly at the horizon.
  ModelRun run(R"(name: h
horizon: 10h
run_until: horizon
cluster:
  node_types:
    - {name: n4, gpu: A100-40GB-SXM, gpus: 4, count: 2, price: {on_demand_per_hour: 8}}
    - {name: one, gpu: T4, gpus: 1, count: 1, price: {on_demand_per_hour: 1}}
workload:
  jobs:
    - {name: F, gpus: 1, duration: 10h}
    - {name: L, gpus: 8, duration: 9h}
    - {name: M, gpus: 8, duration: 2h}
    - {name: N, gpus: 2, duration: 1h}
    - {name: O, submit: 11h, gpus: 1, duration: 1h}
)");
  CHECK(run.job("F").status == JobStatus::Completed);
  CHECK(run.job("F").end == sim::hours(10));
  CHECK(run.job("L").status == JobStatus::Completed);
  CHECK(run.job("M").status == JobStatus::Running);
  CHECK(run.job("N").status == JobStatus::NeverStarted);
  CHECK(run.job("O").status == JobStatus::NeverStarted);
  CHECK(run.cluster.end_time() == sim::hours(10));
  // M is charged for the hour it ran before the end: 8 GPUs x $2 x 1h.
  CHECK(run.costs.job_cost_usd(run.job("M").id) == Approx(16.0).epsilon(1e-12));
  // 2 x $8 x 10h + $1 x 10h.
  CHECK(run.costs.total_cost_usd() == Approx(170.0).epsilon(1e-12));
}

TEST_CASE("generated jobs are named after their generator and their number, zero-padded to the count's digits", "[model][workload]") {
  // The names std::snprintf("-%0*lld") gave: as many digits as the count has, from 1.
  for (const auto& [count, first, tenth, last] :
       {std::tuple{9, "g-1", "", "g-9"}, std::tuple{10, "g-01", "g-10", "g-10"}, std::tuple{1000, "g-0001", "g-0010", "g-1000"}}) {
    const auto s = test::scenario_from_yaml(CLUSTER + "workload:\n  generators:\n    - {name: g, count: " + std::to_string(count) +
                                            ", arrival: 1s, gpus: 1, duration: 1h}\n");
    const auto jobs = models::expand_workload(s, 0);
    REQUIRE(jobs.size() == static_cast<std::size_t>(count));
    CHECK(jobs.front().name == first);
    if (count >= 10) CHECK(jobs[9].name == tenth);
    CHECK(jobs.back().name == last);
  }
}

TEST_CASE("generated workloads are reproducible and streams are independent", "[model][workload]") {
  const std::string base = CLUSTER + R"(seed: 11
workload:
  generators:
    - {name: g, count: 50, arrival: {dist: exponential, mean: 10m}, gpus: {choice: [1, 2, 4]}, duration: {dist: lognormal, median: 1h, sigma: 1}}
)";
  const auto s1 = test::scenario_from_yaml(base);
  const auto a = models::expand_workload(s1, 0);
  const auto b = models::expand_workload(s1, 0);
  REQUIRE(a.size() == 50);
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].submit == b[i].submit);
    CHECK(a[i].gpus == b[i].gpus);
    CHECK(a[i].duration == b[i].duration);
  }
  // Another replication draws other values.
  const auto c = models::expand_workload(s1, 1);
  CHECK(c[0].submit != a[0].submit);
  // Adding a second generator leaves the first one's draws untouched.
  const auto s2 = test::scenario_from_yaml(base + R"(    - {name: h, count: 5, arrival: 1h, gpus: 1, duration: 1h}
)");
  const auto d = models::expand_workload(s2, 0);
  std::vector<const models::Job*> from_g;
  for (const auto& j : d)
    if (j.name.rfind("g-", 0) == 0) from_g.push_back(&j);
  REQUIRE(from_g.size() == 50);
  for (std::size_t i = 0; i < 50; ++i) {
    CHECK(from_g[i]->submit == a[i].submit);
    CHECK(from_g[i]->duration == a[i].duration);
  }
}

TEST_CASE("a generator with active hours submits only inside them, its arrival clock stopped outside",
          "[model][workload][calendar]") {
  // Hourly arrivals on weekdays 09:00-18:00 from Monday 00:00 (t = 0): the first at Monday
  // 10:00 (1 h into the window), eight on Monday (10:00-17:00); the ninth reads 9 h, the
  // window's end, and so is Tuesday 09:00; the 18th is Wednesday 09:00. Twenty from Friday
  // noon (start: 4d12h) run into the weekend: Friday 13:00-17:00 (5), then Monday 09:00.
  const auto s = test::scenario_from_yaml(CLUSTER + R"(seed: 1
workload:
  generators:
    - {name: g, count: 20, arrival: 1h, gpus: 1, duration: 1h, active: {days: weekdays, hours: 09:00-18:00}}
    - {name: f, count: 6, start: 108h, arrival: 1h, gpus: 1, duration: 1h, active: {days: mon-fri, hours: 9-18}}
)");
  std::vector<double> g, f;
  for (const auto& j : models::expand_workload(s, 0))
    (j.name.rfind("g-", 0) == 0 ? g : f).push_back(j.submit.seconds() / 3600);
  REQUIRE(g.size() == 20);
  CHECK(g[0] == Approx(10));
  CHECK(g[7] == Approx(17));
  CHECK(g[8] == Approx(24 + 9));
  CHECK(g[16] == Approx(24 + 17));
  CHECK(g[17] == Approx(48 + 9));
  CHECK(g[19] == Approx(48 + 11));
  REQUIRE(f.size() == 6);
  CHECK(f[0] == Approx(4 * 24 + 13));
  CHECK(f[4] == Approx(4 * 24 + 17));
  CHECK(f[5] == Approx(7 * 24 + 9));
}

TEST_CASE("set_rate keeps progress and moves the finish", "[model][cluster]") {
  // S is a 2h job. After 1h at full speed, it is slowed to half speed: the remaining hour of
  // work takes 2h, so it ends at 3h. T (work job) is sped up 4x after 30 min of its 1.5h.
  const auto scenario = test::scenario_from_yaml(CLUSTER + R"(workload:
  jobs:
    - {name: S, gpus: 1, duration: 2h}
    - {name: T, gpus: 4, work: 1.6848e18, precision: tf32, efficiency: 0.5}
)");
  sim::Engine engine;
  models::Cluster cluster(engine, scenario, models::expand_workload(scenario, 0),
                          std::make_unique<models::FifoScheduler>());
  struct Slow {
    models::Cluster* c;
    void half(std::uint64_t id) { c->set_rate(static_cast<std::uint32_t>(id), 0.5); }
    void quad(std::uint64_t id) { c->set_rate(static_cast<std::uint32_t>(id), 4 * 312e12); }
  } slow{&cluster};
  cluster.job_started.connect([&](const models::Job& j) {
    if (j.name == "S") engine.schedule_after<&Slow::half>(sim::hours(1), &slow, j.id);
    if (j.name == "T") engine.schedule_after<&Slow::quad>(sim::minutes(30), &slow, j.id);
  });
  cluster.start();
  engine.run();
  CHECK(cluster.jobs()[0].end == sim::hours(3));
  // T: 30 min at 312e12 leaves 1h of work at the old rate, done in 15 min at 4x: ends at 45 min.
  CHECK(cluster.jobs()[1].end.seconds() == Approx(2700.0).epsilon(1e-12));
}
