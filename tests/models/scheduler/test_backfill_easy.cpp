// EASY backfilling planned on the availability profile (models/scheduler/backfill_easy.hpp):
// a hand-worked case where the head's reservation depends on where free GPUs are, not on
// how many, and a brute-force check, at every pass of random runs, that the head's
// reservation is the earliest time it fits by capacity, on nodes where it does fit, and
// that no job started in the pass takes GPUs the head needs then.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <span>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/register_builtins.hpp"
#include "models/scheduler/backfill.hpp"
#include "support/cluster_run.hpp"
#include "support/recording_backfill.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::BackfillParams;
using models::EasyBackfill;

namespace {

std::string nodes(int count, bool spot) {
  return "name: easy\nhorizon: 4000d\nrun_until: done\ncluster:\n  node_types:\n"
         "    - {name: n4, gpu: A100-40GB-SXM, gpus: 4, count: " +
         std::to_string(count) +
         (spot ? ", market: spot, price: {spot_per_hour: 3}, interruptions: {process: poisson, rate: 0.3/h}, notice: 2m, "
                 "provisioning: 5m}\n"
               : ", price: {on_demand_per_hour: 8}}\n");
}

const models::Job& job(const models::Cluster& c, const std::string& name) {
  for (const auto& j : c.jobs())
    if (j.name == name) return j;
  FAIL("no job " << name);
  throw;
}

struct Counts {
  std::size_t passes = 0;
  std::size_t reservations = 0;  // checked
  std::size_t wrong_time = 0;    // not the earliest time the head fits by capacity
  std::size_t no_room = 0;       // the head does not fit on its reserved nodes then
  std::size_t delaying = 0;      // a start of the pass takes GPUs the head needs then
  std::size_t starts = 0;
  std::size_t long_starts = 0;   // starts behind the head ending after its reservation
};

// EASY with the cluster's change log, checked by brute force at every pass. The plan's model
// of the future: a run on up nodes ends at max(now, its expected end), one on a node not up
// never gives its GPUs back; a job started in the pass ends at now + its length; a node not
// up hosts nothing.
class CheckedEasy final : public models::Scheduler {
 public:
  CheckedEasy(const BackfillParams& p, std::shared_ptr<Counts> counts)
      : inner_(models::builtins().schedulers.make_placement(p.placement),
               models::builtins().schedulers.make_placement(p.placement), p),
        lengths_(p.lengths), counts_(std::move(counts)) {}
  void job_waiting(const models::QueuedJob& j) override { inner_.job_waiting(j); }
  void job_left(std::uint32_t j) override { inner_.job_left(j); }
  void run_started(const models::QueuedJob& j, sim::SimTime now) override {
    inner_.run_started(j, now);
    end_[j.job] = now + sim::SimTime::from_seconds(models::job_length_s(j, lengths_));
  }
  void run_ended(std::uint32_t j, sim::SimTime now) override {
    inner_.run_ended(j, now);
    end_.erase(j);
  }
  void schedule(const models::ClusterView& cluster, const models::WaitingJobs& waiting,
                models::Decisions& out) override {
    inner_.schedule(cluster, waiting, out);
    check(cluster, waiting, out);
  }

 private:
  struct Use {
    sim::SimTime to;  // holds GPUs until then (from now)
    int gpus;
    bool before_head;  // a run, or a start of a job ahead of the head in submit order
  };
  void check(const models::ClusterView& cluster, const models::WaitingJobs& waiting, const models::Decisions& out) {
    ++counts_->passes;
    counts_->starts += out.placements.size();
    if (inner_.reservations().empty()) return;
    const sim::SimTime NEVER = sim::SimTime::max();
    const sim::SimTime now = cluster.now;
    const models::BackfillReservation& r = inner_.reservations().front();
    const models::QueuedJob& head = waiting[r.job];
    std::vector<std::vector<Use>> uses(cluster.nodes.size());
    std::vector<sim::SimTime> candidates{now};
    for (const auto& [id, end] : end_) {
      const models::RunningPlace place = cluster.running_jobs->where(id);
      const bool up = std::all_of(place.nodes.begin(), place.nodes.end(), [&](std::uint32_t n) {
        return cluster.nodes[n].status == models::NodeStatus::Up;
      });
      const sim::SimTime to = up ? std::max(now, end) : NEVER;
      candidates.push_back(to);
      for (const std::uint32_t n : place.nodes) uses[n].push_back(Use{to, place.gpus_per_node, true});
    }
    for (const models::Placement& p : out.placements) {
      const sim::SimTime to = now + sim::SimTime::from_seconds(models::job_length_s(waiting[p.job], lengths_));
      const bool before = p.job < head.job;  // job ids are in submit order
      if (before) candidates.push_back(to);
      if (!before && to > r.start) ++counts_->long_starts;
      for (std::uint32_t k = p.first; k < p.first + p.count; ++k) uses[out.nodes[k]].push_back(Use{to, p.gpus_per_node, before});
    }
    const auto taken = [&](std::uint32_t n, sim::SimTime c, bool all) {
      int t = 0;
      for (const Use& u : uses[n])
        if ((all || u.before_head) && u.to > c) t += u.gpus;
      return t;
    };
    // By capacity, with what holds GPUs ahead of the head: one eligible up node with its
    // GPUs free, or enough wholly free eligible up nodes of one type.
    const auto fits_at = [&](sim::SimTime c) {
      std::vector<int> whole(cluster.types.size(), 0);
      for (std::uint32_t n = 0; n < cluster.nodes.size(); ++n) {
        const std::uint16_t t = cluster.nodes[n].type;
        if (cluster.nodes[n].status != models::NodeStatus::Up || !(head.eligible_types >> t & 1)) continue;
        const int per = cluster.types[t].gpus_per_node;
        const int free = per - taken(n, c, false);
        if (head.gpus <= per && free >= head.gpus) return true;
        if (free == per) ++whole[t];
      }
      for (std::size_t t = 0; t < whole.size(); ++t)
        if (head.gpus > cluster.types[t].gpus_per_node && whole[t] * cluster.types[t].gpus_per_node >= head.gpus)
          return true;
      return false;
    };
    std::sort(candidates.begin(), candidates.end());
    sim::SimTime earliest = NEVER;
    for (const sim::SimTime c : candidates)
      if (c >= now && c < NEVER && fits_at(c)) {
        earliest = c;
        break;
      }
    ++counts_->reservations;
    if (earliest != r.start) ++counts_->wrong_time;
    // On its nodes at its time: the runs still running, every start of the pass (the
    // backfilled ones too) and the head take no more than the node has.
    const auto& nodes = inner_.reservation_nodes();
    if (r.count == 0 || r.first + r.count > nodes.size()) ++counts_->no_room;
    for (std::uint32_t k = r.first; k < r.first + r.count && k < nodes.size(); ++k) {
      const std::uint32_t n = nodes[k];
      const int per = cluster.types[cluster.nodes[n].type].gpus_per_node;
      if (cluster.nodes[n].status != models::NodeStatus::Up || per - taken(n, r.start, false) < r.gpus_per_node)
        ++counts_->no_room;
      else if (per - taken(n, r.start, true) < r.gpus_per_node)
        ++counts_->delaying;
    }
  }

  EasyBackfill inner_;
  models::Lengths lengths_;
  std::shared_ptr<Counts> counts_;
  std::map<std::uint32_t, sim::SimTime> end_;  // running jobs' expected ends
};

}  // namespace

TEST_CASE("EASY plans the head's reservation where its GPUs are free on one node, not where enough are free in all",
          "[model][scheduler]") {
  // Two 4-GPU nodes, best-fit, true lengths. At 0, in submit order:
  //   A (3 GPUs, 5h): both nodes have 4 free, node 0 (lowest index);    node 0: 1 free
  //   C (1 GPU, 1h):  node 0, the fewest that suffice (1);              node 0: 0 free
  //   B (1 GPU, 5h):  node 1;                                           node 1: 3 free
  //   D (1 GPU, 2h):  node 1;                                           node 1: 2 free
  // H (3 GPUs, 1h) at 10m does not fit (2 free GPUs, on node 1). Counting GPUs alone, it
  // would fit at 1h (C's end: 1 + 2 = 3 free), but no node then has 3; at 2h D ends and
  // node 1 has 3: the reservation is 2h, on node 1.
  // S (1 GPU, 1h30m) at 20m fits on node 1 and ends at 1h50 <= 2h: it starts at 20m (with a
  // reservation at 1h, it would end after it, on a node with no GPU spare then: refused).
  // L (1 GPU, 10h) at 30m fits only on node 1 (1 free), where at 2h the head takes 3 of the
  // 3 free (B holds one): not clear of the reservation, refused. At 1h (C ends) the
  // reservation is still 2h on node 1 (S ends at 1h50, D at 2h); L best-fits node 0 (1 free,
  // lowest index among the nodes with 1), which is spare at 2h (A holds 3, the head takes
  // none): L starts at 1h. At 2h H starts on node 1, as reserved.
  BackfillParams p;
  const models::Scenario s = test::scenario_from_yaml(nodes(2, false) + R"(workload:
  jobs:
    - {name: A, submit: 0h, gpus: 3, duration: 5h}
    - {name: C, submit: 0h, gpus: 1, duration: 1h}
    - {name: B, submit: 0h, gpus: 1, duration: 5h}
    - {name: D, submit: 0h, gpus: 1, duration: 2h}
    - {name: H, submit: 10m, gpus: 3, duration: 1h}
    - {name: S, submit: 20m, gpus: 1, duration: 1h30m}
    - {name: L, submit: 30m, gpus: 1, duration: 10h}
)");
  auto policy = std::make_unique<test::RecordingBackfill>(p, true, test::RecordingBackfill::Record::First);
  const auto reserved = policy->first_reserved;
  const test::ClusterRun run(s, std::move(policy));
  const models::Cluster& c = *run.cluster;
  for (const auto& j : c.jobs()) CHECK(j.status == models::JobStatus::Completed);
  for (const char* name : {"A", "C", "B", "D"}) CHECK(job(c, name).start == sim::SimTime::zero());
  CHECK(job(c, "S").start == sim::minutes(20));
  CHECK(job(c, "L").start == sim::hours(1));
  CHECK(job(c, "H").start == sim::hours(2));
  CHECK(reserved->at(job(c, "H").id) == sim::hours(2));
  CHECK(job(c, "H").end == sim::hours(3));
}

TEST_CASE("EASY's reservation on the profile: the head's node and the spare GPUs there, by hand", "[model][scheduler]") {
  // The same state as above at 20m, as a hand-built view (no change log: the profile is built
  // afresh): node 0 has 0 free (A until 5h, C until 1h), node 1 has 2 (B until 5h, D until
  // 2h). H (3 GPUs) is reserved at 2h on node 1, 3 GPUs; S (1 GPU, 1h30m) ends by then and
  // starts; L (1 GPU, 10h) would take node 1's last GPU, which the head needs then: refused.
  class Runs final : public models::RunningJobs {
   public:
    models::RunningPlace where(std::uint32_t job) const override {
      return models::RunningPlace{0, std::span<const std::uint32_t>(&node_[job < 2 ? 0 : 1], 1), job == 0 ? 3 : 1};
    }

   private:
    std::uint32_t node_[2] = {0, 1};
  };
  EasyBackfill policy(std::make_unique<models::BestFitPlacement>(), std::make_unique<models::BestFitPlacement>(),
                      BackfillParams{});
  const auto queued = [](std::uint32_t id, int gpus, double length_s) {
    models::QueuedJob q{id, gpus, sim::SimTime::zero(), 1};
    q.length_s = length_s;
    return q;
  };
  // A, C on node 0; B, D on node 1 (Runs::where), started at 0.
  for (const auto& q : {queued(0, 3, 5 * 3600.0), queued(1, 1, 3600.0), queued(2, 1, 5 * 3600.0), queued(3, 1, 2 * 3600.0)})
    policy.run_started(q, sim::SimTime::zero());
  const std::vector<models::NodeTypeView> types{models::NodeTypeView{4, 2, 0, 1.0}};
  const std::vector<models::NodeView> view_nodes{models::NodeView{0, 0}, models::NodeView{0, 2}};
  const Runs runs;
  const std::vector<models::QueuedJob> queue{queued(4, 3, 3600.0), queued(5, 1, 5400.0), queued(6, 1, 36000.0)};
  models::ClusterView view{sim::minutes(20), types, view_nodes};
  view.running_jobs = &runs;
  models::Decisions d;
  test::schedule_once(policy, view, queue, d);
  REQUIRE(policy.reservations().size() == 1);
  const models::BackfillReservation& r = policy.reservations()[0];
  CHECK(r.job == 4);
  CHECK(r.start == sim::hours(2));
  REQUIRE(r.count == 1);
  CHECK(policy.reservation_nodes()[r.first] == 1);
  CHECK(r.gpus_per_node == 3);
  REQUIRE(d.placements.size() == 1);
  CHECK(d.placements[0].job == 5);
  CHECK(d.nodes[d.placements[0].first] == 1);
}

TEST_CASE("EASY's reservation is the earliest fit by capacity and no start of its pass takes its GPUs (brute force)",
          "[model][scheduler]") {
  // Random workloads faster than served on four (or eight) 4-GPU nodes, jobs of 1-3 GPUs,
  // a whole node and two whole nodes: true lengths and estimates (runs past their expected
  // ends), depth 3 and 100, spot interruptions (nodes noticed and down), each placement
  // strategy. At every pass that reserves, by brute force over the runs and the pass's
  // starts: the reservation is the earliest of now and the expected ends at which the head
  // fits by capacity; on each of its nodes, then, the head fits beside the runs and the jobs
  // started ahead of it, and beside every start of the pass (none delays it).
  int cases = 0;
  for (const auto& [seed, lengths, depth, spot, placement, count] :
       {std::tuple{31, models::Lengths::True, 100, false, "best-fit", 4},
        std::tuple{32, models::Lengths::Estimate, 100, false, "best-fit", 4},
        std::tuple{33, models::Lengths::True, 3, true, "best-fit", 4},
        std::tuple{34, models::Lengths::Estimate, 100, true, "spread", 4},
        std::tuple{35, models::Lengths::True, 100, false, "first-fit", 8},
        std::tuple{36, models::Lengths::Estimate, 3, false, "pack", 4},
        std::tuple{37, models::Lengths::True, 100, false, "topology", 8}}) {
    BackfillParams p;
    p.lengths = lengths;
    p.depth = depth;
    p.placement = placement;
    INFO("seed " << seed << ", depth " << depth << ", spot " << spot << ", " << placement);
    const models::Scenario s = test::scenario_from_yaml(nodes(count, spot) + "seed: " + std::to_string(seed) + R"(
workload:
  generators:
    - name: mix
      count: 300
      arrival: {dist: exponential, mean: )" + (count == 4 ? "10m" : "5m") + R"(}
      gpus: {choice: [1, 2, 3, 4, 8], weights: [0.4, 0.2, 0.1, 0.2, 0.1]}
      duration: {dist: lognormal, median: 1h, sigma: 1.0}
      estimate: {error: lognormal, sigma: 0.5}
)");
    auto counts = std::make_shared<Counts>();
    const test::ClusterRun run(s, std::make_unique<CheckedEasy>(p, counts));
    REQUIRE(run.cluster->jobs().size() == 300);
    CHECK(counts->wrong_time == 0);
    CHECK(counts->no_room == 0);
    CHECK(counts->delaying == 0);
    // Not vacuous: many reservations, and jobs started behind the head that outlast it.
    CHECK(counts->reservations > 100);
    CHECK(counts->long_starts > 10);
    ++cases;
  }
  CHECK(cases == 7);
}
