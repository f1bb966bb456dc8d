// Small valid scenarios that must end (issue 27, items 3 to 5): a preempting pass must not
// take back at one instant the room a pass gave at that instant (docs/scheduling.md, "One
// preemption per run and instant"). The three reproducers of the issue, each of which
// preempted and placed the same jobs at one instant without end, and a randomized sweep over
// every policy x placement x quotas x GPU shares x checkpoints that requires every run to end
// within an event budget. A run is bounded here by counting events at each start and stop of
// a run: a livelock starts and stops runs, so it is stopped at the budget and fails, instead
// of growing until memory runs out.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/register_builtins.hpp"
#include "sim/check.hpp"
#include "sim/engine.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

struct BoundedRun {
  bool within_budget = true;
  std::uint64_t events = 0;
  std::size_t finished = 0;
  std::size_t jobs = 0;
  double end_s = 0;
};

// Runs `yaml` to its end, or stops it once it has handled more than `budget` events.
BoundedRun run_bounded(const std::string& yaml, std::uint64_t budget) {
  const models::Scenario s = test::scenario_from_yaml(yaml);
  sim::Engine engine;
  models::Cluster cluster(engine, s, models::expand_workload(s, 0), models::builtins().schedulers.make(s.scheduler));
  BoundedRun r;
  const auto count = [&](const models::Job&) {
    if (engine.events_handled() > budget) {
      r.within_budget = false;
      engine.stop();
    }
  };
  cluster.job_started.connect(count);
  cluster.job_stopped.connect(count);
  cluster.start();
  engine.run();
  r.events = engine.events_handled();
  r.end_s = engine.now().seconds();
  for (const models::Job& j : cluster.jobs()) {
    ++r.jobs;
    if (j.status == models::JobStatus::Completed) ++r.finished;
  }
  return r;
}

// Item 3: srtf with estimates, blocking: skip, one 4-GPU node, jobs sharing GPUs. A 2-GPU job
// W did not fit; the skip pass gave the free GPU to a job behind W, and W preempted a job with
// a free save while another victim still saved: the freed GPU went to a job behind W again,
// which W preempted, without end at t = 2306.348 s.
const std::string SRTF_SKIP = R"(name: srtf-skip-livelock
seed: 138
horizon: 5d
run_until: done
cluster:
  node_types:
    - {name: t0, gpu: H100-SXM, gpus: 4, count: 1, price: {reserved: {term: 1y, per_hour: 2}}, market: reserved}
scheduler: {policy: srtf, placement: first-fit, blocking: skip, lengths: estimate}
workload:
  jobs:
    - {name: j0, submit: 0s, gpus: 2, duration: 30m, team: a, deadline: 10h}
    - {name: j1, submit: 1h, gpus: 1, duration: 1m, team: b}
    - {name: j2, submit: 1h, gpus: 4, duration: 1h, team: b, estimate: 1m}
    - {name: j3, submit: 1m, gpus: 1, duration: 30m, gpu_milli: 700, team: b, estimate: 10m, deadline: 10h}
    - {name: j4, submit: 1h, gpus: 4, duration: 3h, checkpoint: {every: 20m, write_time: 0s, restore_time: 30s}, estimate: 10m}
    - {name: j5, submit: 0s, gpus: 4, duration: 1h, checkpoint: {every: 20m, write_time: 10s, restore_time: 30s}}
    - {name: j6, submit: 1m, gpus: 1, duration: 10m, team: b, estimate: 1m, deadline: 2h}
    - {name: j7, submit: 10m, gpus: 3, duration: 3h, checkpoint: {every: 5m, write_time: 1m, restore_time: 30s}, team: b, deadline: 10h}
    - {name: j8, submit: 1h, gpus: 1, duration: 1h, gpu_milli: 300}
    - {name: j9, submit: 0s, gpus: 1, duration: 1m, gpu_milli: 900, checkpoint: {every: 20m, write_time: 0s, restore_time: 0s}, deadline: 10h}
    - {name: j10, submit: 0s, gpus: 1, duration: 3h, checkpoint: {every: 20m, write_time: 10s, restore_time: 30s}, team: b, estimate: 1h}
    - {name: j11, submit: 10m, gpus: 1, duration: 3h, checkpoint: {every: 5m, write_time: 0s, restore_time: 30s}}
    - {name: j12, submit: 1h, gpus: 1, duration: 10m, checkpoint: {every: 20m, write_time: 1m, restore_time: 30s}, team: a, estimate: 5h}
  generators:
    - {name: g, count: 5, arrival: {dist: exponential, mean: 5m}, gpus: {choice: [1, 2]}, duration: {dist: lognormal, median: 20m, sigma: 1, max: 5h}, checkpoint: {every: 20m, write_time: 0s, restore_time: 30s}}
)";

// Item 3: finish-time-fair, blocking: skip, spread: at the round at t = 1920 s two 1-GPU
// jobs behind a blocked one took turns in the GPU the other's preemption freed, without end.
const std::string FTF_SKIP = R"(name: ftf-skip-livelock
seed: 260
horizon: 5d
run_until: done
cluster:
  node_types:
    - {name: t0, gpu: H100-SXM, gpus: 4, count: 3, price: {reserved: {term: 1y, per_hour: 2}}, market: reserved}
scheduler: {policy: finish-time-fair, placement: spread, blocking: skip, interval: 1m}
workload:
  jobs:
    - {name: j0, submit: 1m, gpus: 1, duration: 3h, gpu_milli: 700, team: a}
    - {name: j1, submit: 10m, gpus: 4, duration: 30m, checkpoint: {every: 20m, write_time: 1m, restore_time: 30s}, team: b}
    - {name: j2, submit: 0s, gpus: 1, duration: 30m, gpu_milli: 900, team: c, deadline: 2h}
    - {name: j3, submit: 1m, gpus: 4, duration: 10m, checkpoint: {every: 5m, write_time: 10s, restore_time: 30s}}
    - {name: j4, submit: 0s, gpus: 4, duration: 3h}
    - {name: j5, submit: 1m, gpus: 1, duration: 3h, estimate: 1h}
    - {name: j6, submit: 0s, gpus: 4, duration: 10m, checkpoint: {every: 1h, write_time: 1m, restore_time: 0s}, team: a}
    - {name: j7, submit: 10m, gpus: 1, duration: 30m, gpu_milli: 250, checkpoint: {every: 5m, write_time: 1m, restore_time: 30s}, estimate: 10m}
    - {name: j8, submit: 1h, gpus: 1, duration: 10m, gpu_milli: 100, checkpoint: {every: 20m, write_time: 10s, restore_time: 30s}, team: b, estimate: 1h}
  generators:
    - {name: g, count: 5, arrival: {dist: exponential, mean: 1m}, gpus: {choice: [1, 2]}, duration: {dist: lognormal, median: 20m, sigma: 1, max: 5h}, team: b}
)";

// Item 3: las, blocking: skip, checkpointed jobs: at the round at t = 13500 s a 2-GPU job
// behind a blocked one and two 1-GPU jobs took turns on one node, without end.
const std::string LAS_SKIP = R"(name: las-skip-livelock
seed: 2
horizon: 5d
run_until: done
cluster:
  node_types:
    - {name: t0, gpu: H100-SXM, gpus: 2, count: 3, price: {on_demand_per_hour: 2}}
scheduler: {policy: las, placement: best-fit, blocking: skip, interval: 1m, thresholds: [10m, 1h]}
workload:
  jobs:
    - {name: j0, submit: 0s, gpus: 1, duration: 30m, gpu_milli: 500, checkpoint: {every: 1h, write_time: 10s, restore_time: 30s}, team: a}
    - {name: j1, submit: 0s, gpus: 4, duration: 3h, team: b, estimate: 1m, deadline: 2h}
    - {name: j2, submit: 10m, gpus: 2, duration: 10m, checkpoint: {every: 5m, write_time: 10s, restore_time: 30s}, team: c}
    - {name: j3, submit: 1m, gpus: 2, duration: 1h, checkpoint: {every: 20m, write_time: 1m, restore_time: 0s}, team: b}
    - {name: j4, submit: 0s, gpus: 2, duration: 3h, checkpoint: {every: 1h, write_time: 1m, restore_time: 30s}}
    - {name: j5, submit: 1h, gpus: 1, duration: 1m, gpu_milli: 500, checkpoint: {every: 20m, write_time: 10s, restore_time: 30s}}
    - {name: j6, submit: 0s, gpus: 2, duration: 3h, estimate: 10m}
    - {name: j7, submit: 0s, gpus: 1, duration: 10m, gpu_milli: 300, checkpoint: {every: 5m, write_time: 0s, restore_time: 0s}, deadline: 10h}
    - {name: j8, submit: 1h, gpus: 1, duration: 1m, team: a, deadline: 2h}
    - {name: j9, submit: 1m, gpus: 1, duration: 30m, team: c}
    - {name: j10, submit: 10m, gpus: 2, duration: 10m, checkpoint: {every: 1h, write_time: 1m, restore_time: 0s}}
    - {name: j11, submit: 10m, gpus: 1, duration: 1h, gpu_milli: 900, checkpoint: {every: 20m, write_time: 0s, restore_time: 0s}}
    - {name: j12, submit: 0s, gpus: 1, duration: 30m, checkpoint: {every: 20m, write_time: 10s, restore_time: 30s}}
  generators:
    - {name: g, count: 20, arrival: {dist: exponential, mean: 1m}, gpus: {choice: [1, 2]}, duration: {dist: lognormal, median: 20m, sigma: 1, max: 5h}, gpu_milli: {choice: [300, 1000]}, estimate: {error: lognormal, sigma: 1}}
)";

// Item 4: quota reclaim (one team at 50%, lending, reclaim by preemption), spread, a job
// sharing a GPU and a 60-job generator: reclaim preempted the newest borrower for team a's
// 2-GPU job, the policy placed another borrower in the room freed (spread: the emptiest
// node), reclaim preempted it, without end at t = 5460 s.
const std::string QUOTA_SPREAD = R"(name: quota-spread-livelock
seed: 79
horizon: 5d
run_until: done
cluster:
  node_types:
    - {name: t0, gpu: H100-SXM, gpus: 2, count: 3, price: {reserved: {term: 1y, per_hour: 2}}, market: reserved}
scheduler: {policy: srtf, placement: spread, blocking: skip, lengths: estimate, preemption: {save: 0s, restore: 0s}, quotas: {lending: true, reclaim: preempt, windows: [{teams: {a: {min: 50%, max: 80%}}}]}}
workload:
  jobs:
    - {name: j0, submit: 1m, gpus: 2, duration: 1h, checkpoint: {every: 5m, write_time: 10s, restore_time: 0s}, team: a}
    - {name: j1, submit: 0s, gpus: 1, duration: 1m, team: a, estimate: 1h}
    - {name: j2, submit: 1m, gpus: 1, duration: 1m, gpu_milli: 900, team: a}
    - {name: j3, submit: 10m, gpus: 2, duration: 1h, checkpoint: {every: 1h, write_time: 1m, restore_time: 0s}, team: a, estimate: 1m, deadline: 2h}
    - {name: j4, submit: 0s, gpus: 1, duration: 1h, team: a}
    - {name: j5, submit: 0s, gpus: 1, duration: 10m, team: a, estimate: 1h}
    - {name: j6, submit: 1m, gpus: 2, duration: 30m, checkpoint: {every: 5m, write_time: 0s, restore_time: 0s}, team: a, deadline: 10h}
    - {name: j7, submit: 1m, gpus: 2, duration: 10m, checkpoint: {every: 20m, write_time: 1m, restore_time: 30s}}
  generators:
    - {name: g, count: 60, arrival: {dist: exponential, mean: 5m}, gpus: {choice: [1, 2]}, duration: {dist: lognormal, median: 20m, sigma: 1, max: 5h}, checkpoint: {every: 5m, write_time: 1m, restore_time: 0s}}
)";

// Item 5: cost-aware under quotas (team b guaranteed 70%, reclaim by preemption), spread,
// GPU shares and a checkpointed 60-job generator: before the fix the run stayed at one
// instant, its memory growing (285 MB after 20 s).
const std::string QUOTA_COST_AWARE = R"(name: quota-cost-aware-livelock
seed: 7016
horizon: 5d
run_until: done
cluster:
  node_types:
    - {name: t0, gpu: V100-SXM2-16GB, gpus: 2, count: 2, price: {on_demand_per_hour: 3}}
scheduler: {policy: cost-aware, placement: spread, blocking: strict, quotas: {lending: false, reclaim: preempt, windows: [{teams: {a: {min: 0%, max: 50%}, b: {min: 70%, max: 80%}}}]}}
workload:
  jobs:
    - {name: j0, submit: 0s, gpus: 1, duration: 3h, team: a, estimate: 1h}
    - {name: j1, submit: 10m, gpus: 1, duration: 30m, gpu_milli: 250, checkpoint: {every: 5m, write_time: 10s, restore_time: 0s}, team: b}
    - {name: j2, submit: 10m, gpus: 1, duration: 1h}
    - {name: j3, submit: 0s, gpus: 1, duration: 10m, gpu_milli: 700, team: b}
    - {name: j4, submit: 10m, gpus: 4, duration: 3h}
    - {name: j5, submit: 1m, gpus: 2, duration: 1h}
    - {name: j6, submit: 0s, gpus: 1, duration: 1h, checkpoint: {every: 1h, write_time: 10s, restore_time: 0s}, estimate: 10m}
    - {name: j7, submit: 1h, gpus: 2, duration: 1m, checkpoint: {every: 1h, write_time: 1m, restore_time: 0s}, team: b}
    - {name: j8, submit: 0s, gpus: 1, duration: 1h, deadline: 2h}
    - {name: j9, submit: 0s, gpus: 2, duration: 1m}
    - {name: j10, submit: 0s, gpus: 2, duration: 1h, checkpoint: {every: 20m, write_time: 10s, restore_time: 30s}, team: a}
  generators:
    - {name: g, count: 60, arrival: {dist: exponential, mean: 5m}, gpus: {choice: [1, 2]}, duration: {dist: lognormal, median: 20m, sigma: 1, max: 5h}, gpu_milli: {choice: [300, 1000]}, checkpoint: {every: 1h, write_time: 1m, restore_time: 30s}, estimate: {error: lognormal, sigma: 1}}
)";

// A random small scenario: a policy and placement from the registry's lists, one or two
// node types, and jobs with or without quotas, GPU shares, checkpoints (free saves among
// them), estimates, deadlines and priorities. The draws use mt19937_64's raw output, which
// the standard fixes, so every library makes the same scenarios.
std::string random_scenario(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto pick = [&](auto const& options) { return options[rng() % std::size(options)]; };
  const auto chance = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
  static const char* const POLICIES[] = {"fifo", "sjf", "srtf", "backfill", "las", "priority", "fair-share",
                                         "finish-time-fair", "hetero", "cost-aware", "spot-fallback"};
  static const char* const PLACEMENTS[] = {"best-fit", "first-fit", "pack", "spread", "topology"};
  const std::string policy = pick(POLICIES);
  std::string sched = "{policy: " + policy + ", placement: " + pick(PLACEMENTS);
  if (policy != "backfill") sched += std::string(", blocking: ") + (chance(50) ? "skip" : "strict");
  if ((policy == "sjf" || policy == "srtf" || policy == "backfill") && chance(60)) sched += ", lengths: estimate";
  if (policy == "las" || policy == "finish-time-fair") sched += std::string(", interval: ") + pick(std::vector<const char*>{"1m", "5m", "10m"});
  if (policy == "las" && chance(50)) sched += ", thresholds: [10m, 1h]";
  sched += pick(std::vector<const char*>{"", "", ", preemption: {save: 0s, restore: 0s}", ", preemption: {mode: lose}",
                                         ", preemption: {save: 1m, restore: 1m}"});
  const int team_count = 1 + static_cast<int>(rng() % 3);
  static const char* const TEAMS[] = {"a", "b", "c"};
  if (chance(50)) {
    std::string shares;
    int left = 100;
    for (int t = 0; t < team_count; ++t) {
      int min = std::min(left, pick(std::vector<int>{0, 10, 30, 50, 70}));
      left -= min;
      const int max = std::max(min, pick(std::vector<int>{100, 100, 80, 50}));
      shares += std::string(t ? ", " : "") + TEAMS[t] + ": {min: " + std::to_string(min) + "%, max: " + std::to_string(max) + "%}";
    }
    sched += std::string(", quotas: {lending: ") + (chance(50) ? "true" : "false") +
             ", reclaim: " + (chance(70) ? "preempt" : "wait") + ", windows: [{teams: {" + shares + "}}]}";
  }
  sched += "}";
  std::string y = "name: random-" + std::to_string(seed) + "\nseed: " + std::to_string(seed) +
                  "\nhorizon: 5d\nrun_until: done\ncluster:\n  node_types:\n";
  const int types = chance(70) ? 1 : 2;
  int max_per = 0, max_total = 0;
  for (int t = 0; t < types; ++t) {
    const int gpus = pick(std::vector<int>{1, 2, 4, 4, 8});
    const int count = 1 + static_cast<int>(rng() % 3);
    max_per = std::max(max_per, gpus);
    max_total = std::max(max_total, gpus * count);
    const std::string price = std::to_string(1 + rng() % 3);
    y += "    - {name: t" + std::to_string(t) + ", gpu: " +
         pick(std::vector<const char*>{"A100-40GB-SXM", "V100-SXM2-16GB", "H100-SXM"}) + ", gpus: " +
         std::to_string(gpus) + ", count: " + std::to_string(count) +
         (chance(25) ? ", market: reserved, price: {reserved: {term: 1y, per_hour: " + price + "}}}\n"
                     : ", price: {on_demand_per_hour: " + price + "}}\n");
  }
  y += "scheduler: " + sched + "\nworkload:\n  jobs:\n";
  const auto checkpoint = [&]() -> std::string {
    if (chance(50)) return "";
    return std::string(", checkpoint: {every: ") + pick(std::vector<const char*>{"5m", "20m", "1h"}) +
           ", write_time: " + pick(std::vector<const char*>{"0s", "10s", "1m"}) +
           ", restore_time: " + pick(std::vector<const char*>{"0s", "30s"}) + "}";
  };
  const int jobs = team_count + static_cast<int>(rng() % 12);
  for (int i = 0; i < jobs; ++i) {
    std::string extra;
    int gpus = 1;
    if (chance(30)) {
      extra += ", gpu_milli: " + std::to_string(pick(std::vector<int>{100, 250, 300, 500, 700, 900}));
    } else {
      gpus = pick(std::vector<int>{1, 1, 2, 3, 4, 8});
      gpus = chance(90) ? std::min(gpus, max_per) : std::min(2 * gpus, max_total);
    }
    extra += checkpoint();
    if (i < team_count) extra += std::string(", team: ") + TEAMS[i];
    else if (chance(50)) extra += std::string(", team: ") + TEAMS[rng() % team_count];
    if (chance(40)) extra += std::string(", estimate: ") + pick(std::vector<const char*>{"1m", "10m", "1h", "5h"});
    if (policy == "priority") extra += ", priority: " + std::to_string(rng() % 3);
    if (chance(20)) extra += std::string(", deadline: ") + pick(std::vector<const char*>{"2h", "10h"});
    y += "    - {name: j" + std::to_string(i) + ", submit: " + pick(std::vector<const char*>{"0s", "0s", "1m", "10m", "1h"}) +
         ", gpus: " + std::to_string(gpus) + ", duration: " +
         pick(std::vector<const char*>{"1m", "10m", "30m", "1h", "3h"}) + extra + "}\n";
  }
  if (chance(50)) {
    y += "  generators:\n    - {name: g, count: " + std::to_string(pick(std::vector<int>{5, 20, 60})) +
         ", arrival: {dist: exponential, mean: " + pick(std::vector<const char*>{"1m", "5m"}) +
         "}, gpus: {choice: [1, " + std::to_string(std::min(2, max_per)) +
         "]}, duration: {dist: lognormal, median: 20m, sigma: 1, max: 5h}" +
         (chance(40) ? ", gpu_milli: {choice: [300, 1000]}" : "") + checkpoint() +
         (chance(60) ? std::string(", team: ") + TEAMS[rng() % team_count] : "") +
         (chance(40) ? ", estimate: {error: lognormal, sigma: 1}" : "") + "}\n";
  }
  return y;
}

// Each random scenario must end (every job finished, or the 5-day horizon reached) within
// EVENT_BUDGET events: at most 80 jobs, so a run that ends handles some thousands; the
// livelocks of issue 27 passed a million within a second.
constexpr std::uint64_t EVENT_BUDGET = 200000;

// A draw that validate refuses as infeasible (a job its team's quota caps keep out at every
// time of the week, issue 27 item 19) never runs and is skipped; any other error fails. Most
// draws must run.
void sweep(std::uint64_t first, std::uint64_t count) {
  std::uint64_t refused = 0;
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    const std::string yaml = random_scenario(seed);
    INFO(yaml);
    BoundedRun r;
    try {
      r = run_bounded(yaml, EVENT_BUDGET);
    } catch (const gcsim::ConfigError& e) {
      INFO(e.what());
      REQUIRE(e.code() == gcsim::ErrorCode::Infeasible);
      ++refused;
      continue;
    }
    REQUIRE(r.within_budget);
  }
  CHECK(refused * 10 < count);
}

}  // namespace

TEST_CASE("issue 27 item 3: preempting policies with blocking: skip end (srtf, estimates, shares)", "[model][scheduler][livelock]") {
  const BoundedRun r = run_bounded(SRTF_SKIP, EVENT_BUDGET);
  REQUIRE(r.within_budget);
  CHECK(r.finished == r.jobs);
}

TEST_CASE("issue 27 item 3: finish-time-fair with blocking: skip ends", "[model][scheduler][livelock]") {
  const BoundedRun r = run_bounded(FTF_SKIP, EVENT_BUDGET);
  REQUIRE(r.within_budget);
  CHECK(r.finished == r.jobs);
}

TEST_CASE("issue 27 item 3: las with blocking: skip ends", "[model][scheduler][livelock]") {
  const BoundedRun r = run_bounded(LAS_SKIP, EVENT_BUDGET);
  REQUIRE(r.within_budget);
  CHECK(r.finished == r.jobs);
}

TEST_CASE("issue 27 item 4: quota reclaim with spread placement ends", "[model][scheduler][livelock][quotas]") {
  const BoundedRun r = run_bounded(QUOTA_SPREAD, EVENT_BUDGET);
  REQUIRE(r.within_budget);
  CHECK(r.finished == r.jobs);
}

TEST_CASE("issue 27 item 5: quota reclaim under cost-aware ends", "[model][scheduler][livelock][quotas]") {
  const BoundedRun r = run_bounded(QUOTA_COST_AWARE, EVENT_BUDGET);
  REQUIRE(r.within_budget);
  // j4 (4 GPUs, no team) never starts: with lending off team b's idle guarantee (2 of the 4
  // GPUs) is never free for it. The run ends at the horizon, as it should.
  CHECK(r.finished == r.jobs - 1);
  CHECK(r.end_s == Approx(5 * 86400.0));
}

TEST_CASE("issue 27: every small random scenario ends, all policies x placements x quotas x shares x checkpoints",
          "[model][scheduler][livelock]") {
  sweep(1, 1000);
}

TEST_CASE("issue 27: every random scenario ends, the long sweep", "[model][scheduler][livelock][.slow]") {
#ifdef GCSIM_SANITIZE
  // Under the sanitizers (a Debug build, tens of times slower: 226 s for the whole sweep)
  // its first 4,000 scenarios, for memory and undefined behaviour; the release build runs
  // all 20,000 for the property.
  sweep(1000, 4000);
#else
  sweep(1000, 20000);
#endif
}
