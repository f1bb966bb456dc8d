// EASY backfilling (Lifka 1995, the Argonne SP scheduler; docs/scheduling.md, "Backfilling"):
// waiting jobs in submit order; only the first waiting job that does not fit holds a
// reservation: the earliest time it would fit if running jobs end at their expected ends
// (start + length, at `lengths`), on the nodes it would take then. A later job starts now
// if it fits now and either ends (now + its length) by that time, or takes, on each node
// the placement strategy chooses for it, no more GPUs than the node has left at that time
// beyond what the reservation takes there.
// The reservation is planned on the availability profile (availability_profile.hpp, the
// one conservative backfilling searches): the runs are given back in order of expected end
// until the profile's per-type count of nodes by free GPUs has room for the head, and the
// plan strategy is asked on the profile's view there. Where jobs share GPUs it is planned
// on the plan strategy's overlay of the view instead, which follows every GPU's unheld
// thousandths (as conservative plans afresh there).
// The reservation is recomputed every pass, so a job that runs past its expected end (an
// estimate too low) moves it later. It is planned only in a pass where a job behind the
// head could start (elsewhere it decides nothing), and the last plan is reused while the
// head, the running jobs and the nodes are unchanged (PlanMemo: the result is the same). A
// pass that started nothing is not repeated while only later arrivals joined (PassMemo). A
// pass visits at most `depth` waiting jobs behind the first that does not fit, and stops
// sooner once no size class left fits now (the order index's could_fit pruning), so its
// cost does not grow with the queue. Both memos, and the profile followed through the
// change log, are accelerators: use_caches(false) turns them off.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "models/scheduler/backfill_common.hpp"
#include "models/scheduler/order_index.hpp"

namespace gcsim::models {

class EasyBackfill final : public BackfillBase {
 public:
  using BackfillBase::BackfillBase;
  void job_waiting(const QueuedJob& job) override;
  void job_left(std::uint32_t job) override {
    waiting_.erase(job);
    pass_memo_.valid = false;
  }
  void run_started(const QueuedJob& job, sim::SimTime now) override;
  void run_ended(std::uint32_t job, sim::SimTime now) override;
  void schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) override;
  // Off: no plan or pass reused, and the head tried at every release (as in a view without
  // the cluster's change log, on which the caches rest).
  void use_caches(bool on) override { use_caches_ = on; }
  // For tests: every time it would reuse its plan, it plans afresh as well and fails
  // (InternalError) unless both give the same reservation and the same spare GPUs on every
  // node at its time; the fresh plan is kept.
  void check_reused_plans(bool on) { check_reuse_ = on; }
  // The head job's (none when every job visited started, when no job behind the head could
  // start now, so that the reservation would decide nothing and is not planned, or when it
  // fits nowhere even once every running job has ended).
  const std::vector<Reservation>& reservations() const override { return reservations_; }
  // The nodes of the head's reservation (Reservation::first, count index them).
  const std::vector<std::uint32_t>& reservation_nodes() const override { return head_nodes_; }

 private:
  void easy(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out);
  // The first job that does not fit: its reservation on plan_ (filled in reservations_ and
  // plan_), or false when it fits nowhere even once every running job has ended.
  bool reserve_head(const ClusterView& cluster, const WaitingJobs& waiting, const QueuedJob& head,
                    std::size_t started_from, const Decisions& out);
  bool check_reused_plan(const ClusterView& cluster, const WaitingJobs& waiting, const QueuedJob& head,
                         std::size_t started_from, const Decisions& out);
  bool repeat_last_pass(const ClusterView& cluster, const Decisions& out);
  // Each node's free GPUs as this scheduler last read them, following the cluster's change
  // log pass by pass, and what they changed since the last fresh plan.
  void follow_log(const ClusterView& cluster);
  // Per node, the GPUs free at the reservation beyond it: the plan's (the view's free GPUs
  // then, plus what the plan changed, read against this pass's view less what the view
  // changed since, drift_), less what long jobs started since the plan take (spare_taken_).
  int spare_at(const ClusterView& cluster, std::uint32_t node) const {
    return cluster.nodes[node].gpus_free + plan_change(node) - drift_[node] - spare_taken_[node];
  }
  // What the last fresh plan changed of a node's free GPUs at the reservation, the head's
  // GPUs taken: on the profile (spare_change_), or on the plan strategy's overlay.
  int plan_change(std::uint32_t node) const {
    return plan_on_profile_ ? spare_change_[node] : plan_->free_gpus_change(node);
  }

  OrderIndex<SubmitOrder> waiting_;  // submit order (job id order)
  bool use_caches_ = true;
  // The last plan of the head's reservation, at the expected end e of the run whose
  // release let the head fit, reused (as max(now, e)) while a fresh plan would give the
  // same: the same head (id, size, eligible types), no run started earlier in the pass,
  // and since the plan only these changes, each of which leaves the plan as it is
  // (docs/scheduling.md, "Backfilling"), with no other change to any node's view (the
  // cluster's change log has as many entries as they explain):
  //   - a run ends that is strictly first in the order of expected ends, the plan having
  //     fit at a later release (before_fit > 1): a fresh plan's releases are the same less
  //     that one, and the head did not fit after it;
  //   - a run starts that a pass placed behind the head and that is expected to end before
  //     e: it holds GPUs only before e, where the head did not fit with more;
  //   - a run starts that is expected to end after e, placed on GPUs the reservation left
  //     spare (spare_taken_ keeps them): only when the head takes whole nodes of every type
  //     it may use and the plan's strategy chooses the least candidate by its own order
  //     (chooses_least_candidate: best-fit, first-fit, pack), so that the nodes it reserved
  //     are still those a fresh plan takes; and only a run of whole GPUs (a share counted as
  //     a whole GPU taken may sit on a GPU a fresh plan never counted free at e).
  // Every other start or end, and a plan with a run on a node that is not up before its
  // fit, ends the memo.
  struct PlanMemo {
    bool valid = false;
    std::uint32_t head = 0;
    int gpus = 0;
    int gpu_milli = 1000;
    std::uint64_t eligible_types = 0;
    std::uint64_t node_changes = 0;  // entries of the change log the plan accounts for
    bool fits = false;
    sim::SimTime end;
    bool follows = false;          // starts and ends may keep it (above)
    bool long_starts = false;      // runs ending after end may start on spare GPUs
    std::uint32_t before_fit = 0;  // releases up to the one it fit at, that one included
  };
  PlanMemo memo_;
  bool check_reuse_ = false;
  std::vector<int> check_spare_;
  std::vector<std::uint32_t> check_nodes_;
  // The last fresh plan: on the profile or the overlay, the head's nodes and GPUs on each,
  // and (on the profile) each node's change of free GPUs at the reservation.
  bool plan_on_profile_ = false;
  std::vector<std::uint32_t> head_nodes_;
  int head_gpus_per_node_ = 0;
  std::vector<int> spare_change_;
  std::vector<std::uint32_t> spare_change_touched_;
  std::uint32_t classified_starts_ = 0;  // starts of the last pass's placements the memo accounts for
  std::vector<std::uint32_t> node_count_;  // by job: nodes of its run (for an end that keeps the memo)
  // A pass that started nothing and stopped at `depth`, repeated while only jobs later in
  // submit order than the last it examined (arrivals) joined the waiting jobs, no job left
  // them, no run started or ended and no node's view changed: every job it examined meets
  // the same capacity, the same head and the same plan, so it starts nothing again and keeps
  // its reservation (at max(now, the expected end it was planned at): a job too long for the
  // reservation then is too long later). Without quotas only (they depend on time). (A
  // requeued job or an ended run also changes some node's view; the invalidations in
  // job_waiting, job_left and run_* are defensive.)
  struct PassMemo {
    bool valid = false;
    std::uint32_t last_visited = 0;  // the largest job id the pass examined
    std::uint64_t node_changes = 0;
    bool reserved = false;
  };
  PassMemo pass_memo_;
  std::vector<int> spare_taken_;
  std::vector<std::uint32_t> spare_touched_;  // nodes where spare_taken_ is not 0
  std::vector<int> seen_free_;
  std::uint64_t log_read_ = 0;  // log entries read (dropped ones included)
  bool seen_valid_ = false;
  std::vector<int> drift_;
  std::vector<std::uint32_t> drift_touched_;
  std::vector<Hold> started_;  // runs this pass started, by end (nodes in the pass's Decisions)
  // What a pass reads of a waiting job behind the head, by job id, dense (a waiting job's
  // entry does not change while it waits), so the jobs a pass visits in submit order are
  // read from neighbouring memory.
  struct Brief {
    sim::SimTime length;
    std::uint64_t eligible_types;
    int gpus;
    int gpu_milli;
  };
  std::vector<Brief> brief_;
  ClassFitMemo may_fit_;  // whether a class may fit now
  std::vector<std::pair<int, std::uint64_t>> refused_;  // (gpus, eligible types) refused since the last start
};

}  // namespace gcsim::models
