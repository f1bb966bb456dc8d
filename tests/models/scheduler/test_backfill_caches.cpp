// Backfilling's caches are accelerators (models/scheduler/backfill.hpp): with every cache
// switched off (use_caches(false)) EASY and conservative backfilling decide the same, pass
// by pass, as with them on; and decisions do not depend on when the workload happens: the
// same jobs shifted by 0, 200 and 3,000 days start at the same offsets on the same nodes
// (times are integer nanoseconds; in double seconds, past about 104 days a nanosecond is
// below the resolution: architecture review 2026-12-04, §5.2).
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>

#include "models/cluster/cluster.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/register_builtins.hpp"
#include "models/scheduler/backfill.hpp"
#include "sim/engine.hpp"
#include "support/cluster_run.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::BackfillMode;
using models::BackfillParams;

namespace {

struct Tally {
  std::size_t passes = 0;
  std::size_t differing = 0;  // passes where the two differ in starts (nodes included) or reservations
  std::size_t starts = 0;
  std::size_t reservations = 0;
};

// Two instances of the policy that see the same events and views: one with its caches (its
// decisions are applied), one without any; every pass's decisions are compared.
class CachesOnAndOff final : public models::Scheduler {
 public:
  CachesOnAndOff(const BackfillParams& p, std::shared_ptr<Tally> tally)
      : on_(make(p)), off_(make(p)), mode_(p.mode), tally_(std::move(tally)) {
    off_->use_caches(false);
  }
  void job_waiting(const models::QueuedJob& job) override {
    on_->job_waiting(job);
    off_->job_waiting(job);
  }
  void job_left(std::uint32_t job) override {
    on_->job_left(job);
    off_->job_left(job);
  }
  void run_started(const models::QueuedJob& job, sim::SimTime now) override {
    on_->run_started(job, now);
    off_->run_started(job, now);
  }
  void run_ended(std::uint32_t job, sim::SimTime now) override {
    on_->run_ended(job, now);
    off_->run_ended(job, now);
  }
  void schedule(const models::ClusterView& cluster, const models::WaitingJobs& waiting,
                models::Decisions& out) override {
    off_out_.clear();
    off_->schedule(cluster, waiting, off_out_);
    on_->schedule(cluster, waiting, out);
    bool same = out.placements.size() == off_out_.placements.size() &&
                on_->reservations().size() == off_->reservations().size();
    for (std::size_t i = 0; same && i < out.placements.size(); ++i) {
      const models::Placement& x = out.placements[i];
      const models::Placement& y = off_out_.placements[i];
      same = x.job == y.job && x.count == y.count && x.gpus_per_node == y.gpus_per_node &&
             std::equal(out.nodes.begin() + x.first, out.nodes.begin() + x.first + x.count,
                        off_out_.nodes.begin() + y.first);
    }
    for (std::size_t i = 0; same && i < on_->reservations().size(); ++i) {
      const models::BackfillReservation& x = on_->reservations()[i];
      const models::BackfillReservation& y = off_->reservations()[i];
      same = x.job == y.job && x.start == y.start;
      // EASY gives its head's nodes with or without caches (conservative planning afresh
      // gives none): the same nodes, the same GPUs on each.
      if (same && mode_ == BackfillMode::Easy) {
        const auto& xn = on_->reservation_nodes();
        const auto& yn = off_->reservation_nodes();
        same = x.count > 0 && x.count == y.count && x.gpus_per_node == y.gpus_per_node &&
               std::equal(xn.begin() + x.first, xn.begin() + x.first + x.count, yn.begin() + y.first);
      }
    }
    ++tally_->passes;
    if (!same) ++tally_->differing;
    tally_->starts += out.placements.size();
    tally_->reservations += on_->reservations().size();
  }

 private:
  static std::unique_ptr<models::BackfillBase> make(const BackfillParams& p) {
    return models::make_backfill(p, models::builtins().schedulers.make_placement(p.placement),
                                 models::builtins().schedulers.make_placement(p.placement));
  }
  std::unique_ptr<models::BackfillBase> on_;
  std::unique_ptr<models::BackfillBase> off_;
  models::Decisions off_out_;
  BackfillMode mode_;
  std::shared_ptr<Tally> tally_;
};

// Nodes of 4 GPUs: on demand, or spot with interruptions (nodes go down and come back, jobs
// rejoin the waiting jobs).
std::string cluster(int nodes, bool spot) {
  return "name: caches\nhorizon: 4000d\nrun_until: done\ncluster:\n  node_types:\n"
         "    - {name: n4, gpu: A100-40GB-SXM, gpus: 4, count: " +
         std::to_string(nodes) +
         (spot ? ", market: spot, price: {spot_per_hour: 3}, interruptions: {process: poisson, rate: 0.3/h}, notice: 2m, "
                 "provisioning: 5m}\n"
               : ", price: {on_demand_per_hour: 8}}\n");
}

std::string workload(int seed, int jobs, const std::string& mean, bool checkpoints, bool shares = false) {
  return "seed: " + std::to_string(seed) + R"(
workload:
  generators:
    - name: mix
      count: )" + std::to_string(jobs) + R"(
      arrival: {dist: exponential, mean: )" + mean + R"(}
      gpus: {choice: [1, 2, 3, 4, 8], weights: [0.4, 0.2, 0.1, 0.2, 0.1]}
      duration: {dist: lognormal, median: 1h, sigma: 1.0}
      estimate: {error: lognormal, sigma: 0.5}
)" + (checkpoints ? "      checkpoint: {every: 30m, write_time: 5m, restore_time: 1m}\n" : "") +
         (shares ? "      gpu_milli: {choice: [250, 500, 1000], weights: [0.3, 0.3, 0.4]}\n" : "");
}

}  // namespace

TEST_CASE("backfilling with every cache switched off decides as with them, pass by pass", "[model][scheduler]") {
  // Random workloads arriving faster than served (queues of tens to hundreds): both modes,
  // true and estimated lengths (runs then end off their expected ends, and past them),
  // depth 3 and 100, spot interruptions, checkpoint pauses, three placement strategies,
  // eight seeds; two cases with jobs sharing GPUs (EASY then plans on the plan strategy's
  // overlay, which follows every GPU, instead of the availability profile). A pass without
  // caches plans everything afresh: it is the reference. For EASY the head's nodes are
  // compared too.
  int cases = 0;
  for (const BackfillMode mode : {BackfillMode::Easy, BackfillMode::Conservative})
    for (const auto& [seed, lengths, depth, spot, checkpoints, placement, shares] :
         {std::tuple{1, models::Lengths::True, 100, false, false, "best-fit", false},
          std::tuple{2, models::Lengths::Estimate, 100, false, false, "best-fit", false},
          std::tuple{3, models::Lengths::Estimate, 3, true, false, "best-fit", false},
          std::tuple{4, models::Lengths::True, 100, true, false, "spread", false},
          std::tuple{5, models::Lengths::Estimate, 100, false, true, "first-fit", false},
          std::tuple{6, models::Lengths::True, 3, false, false, "topology", false},
          std::tuple{7, models::Lengths::Estimate, 100, true, false, "pack", false},
          std::tuple{8, models::Lengths::Estimate, 100, false, false, "best-fit", true}}) {
      BackfillParams p;
      p.mode = mode;
      p.lengths = lengths;
      p.depth = depth;
      p.placement = placement;
      INFO("mode " << (mode == BackfillMode::Easy ? "easy" : "conservative") << ", seed " << seed << ", depth "
                   << depth << ", spot " << spot << ", checkpoints " << checkpoints << ", " << placement
                   << ", shares " << shares);
      const bool small = seed % 2 == 0;
      const models::Scenario s =
          test::scenario_from_yaml(cluster(small ? 4 : 8, spot) +
                                   workload(seed, 300, small ? "10m" : "5m", checkpoints, shares));
      auto tally = std::make_shared<Tally>();
      const test::ClusterRun run(s, std::make_unique<CachesOnAndOff>(p, tally));
      REQUIRE(run.cluster->jobs().size() == 300);
      CHECK(tally->differing == 0);
      // Not vacuous: many passes, starts and reservations compared.
      CHECK(tally->passes > 300);
      CHECK(tally->starts >= 300);
      CHECK(tally->reservations > 100);
      ++cases;
    }
  CHECK(cases == 16);
}

TEST_CASE("backfilling decides the same for a workload shifted by 0, 200 and 3,000 days", "[model][scheduler]") {
  // The same 300 jobs (estimated lengths, so runs end off and past their expected ends),
  // submitted 0, 200 and 3,000 days later: every job starts and ends at the same offset
  // from its submit time, on the same nodes, under EASY and conservative backfilling.
  for (const BackfillMode mode : {BackfillMode::Easy, BackfillMode::Conservative}) {
    BackfillParams p;
    p.mode = mode;
    p.lengths = models::Lengths::Estimate;
    INFO("mode " << (mode == BackfillMode::Easy ? "easy" : "conservative"));
    const models::Scenario s = test::scenario_from_yaml(cluster(4, false) + workload(21, 300, "8m", false));
    std::vector<std::vector<models::Job>> runs;
    for (const int days : {0, 200, 3000}) {
      const sim::SimTime shift = sim::hours(24) * days;
      std::vector<models::Job> jobs = models::expand_workload(s, 0);
      for (models::Job& j : jobs) j.submit += shift;
      sim::Engine engine;
      models::Cluster c(engine, s, std::move(jobs),
                        models::make_backfill(p, models::builtins().schedulers.make_placement(p.placement),
                                              models::builtins().schedulers.make_placement(p.placement)));
      c.start();
      engine.run();
      std::vector<models::Job> done(c.jobs().begin(), c.jobs().end());
      for (models::Job& j : done) {
        REQUIRE(j.status == models::JobStatus::Completed);
        j.start -= shift;
        j.end -= shift;
        j.submit -= shift;
      }
      runs.push_back(std::move(done));
    }
    std::size_t backfilled = 0;
    sim::SimTime latest = sim::SimTime::zero();
    for (std::size_t i = 0; i < runs[0].size(); ++i) {
      const models::Job& a = runs[0][i];
      if (a.start < latest) ++backfilled;
      latest = std::max(latest, a.start);
      for (std::size_t r = 1; r < runs.size(); ++r) {
        INFO("job " << a.name << ", run " << r);
        CHECK(runs[r][i].start == a.start);
        CHECK(runs[r][i].end == a.end);
        CHECK(runs[r][i].nodes_offset == a.nodes_offset);
      }
    }
    CHECK(backfilled > 20);  // reservations decided something
  }
}
