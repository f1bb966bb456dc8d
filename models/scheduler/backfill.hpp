// Backfilling (docs/scheduling.md, "Backfilling"): waiting jobs in submit order, and a later job
// may start before an earlier one that does not fit only if it delays no reservation.
//   easy          (Lifka 1995, the Argonne SP scheduler) only the first waiting job that
//                 does not fit holds a reservation: the earliest time it would fit if
//                 running jobs end at their expected ends (start + length, at `lengths`),
//                 on the nodes it would take then. A later job starts now if it fits now
//                 and either ends (now + its length) by that time, or takes, on each node
//                 the placement strategy chooses for it, no more GPUs than the node has
//                 left at that time beyond what the reservation takes there.
//   conservative  (Mu'alem and Feitelson 2001) each waiting job in order, up to `depth`
//                 of them, holds a reservation on a profile of free GPUs per node over
//                 time; a job starts now only if it fits beside every earlier reservation
//                 for the whole of its length. With the change log and whole GPUs the
//                 reservations are kept from pass to pass while runs end exactly when
//                 expected (at the nanosecond) and nothing else unexpected happens
//                 (backfill_conservative.cpp); below, "recomputed every pass" is EASY's.
// Reservations are recomputed every pass, so a job that runs past its expected end (an
// estimate too low) moves them later; EASY plans its one only in a pass where a job behind
// the head could start (elsewhere it decides nothing), and reuses the last plan while the
// head, the running jobs and the nodes are unchanged (the result is the same); a plan tries
// the head again only after a release that gave some node room for it. A pass that started
// nothing is not repeated while only later arrivals joined (PassMemo). A pass visits at
// most `depth` waiting jobs behind the first that does not fit, and stops sooner once no
// size class left fits now (the order index's could_fit pruning), so its cost does not
// grow with the queue.
//
// Keys (`scheduler:` with `policy: backfill`): placement, lengths (ordered.hpp), mode, depth.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/scheduler/id_set.hpp"
#include "models/scheduler/order_index.hpp"
#include "models/scheduler/ordered.hpp"
#include "models/scheduler/placement.hpp"
#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::models {

enum class BackfillMode : std::uint8_t { Easy, Conservative };

struct BackfillParams {
  std::string placement = "best-fit";
  Lengths lengths = Lengths::True;
  BackfillMode mode = BackfillMode::Easy;
  int depth = 100;  // waiting jobs a pass examines behind the first that does not fit
};

class BackfillScheduler final : public Scheduler {
 public:
  // `now` and `plan` are two instances of the same placement strategy: one places jobs on
  // the free capacity of the pass, the other plans on capacity in the future.
  BackfillScheduler(std::unique_ptr<PlacementStrategy> now, std::unique_ptr<PlacementStrategy> plan,
                    const BackfillParams& params)
      : now_(std::move(now)), plan_(std::move(plan)), params_(params) {}
  // Easy keeps its waiting jobs in an order index (scanned by size class) and their briefs;
  // conservative walks them in id order only (waiting_ids_).
  void job_waiting(const QueuedJob& job) override {
    if (params_.mode == BackfillMode::Conservative) {
      kept_waiting(job.job);
      return;
    }
    waiting_.insert(job.job, job.gpus, SubmitOrder{});
    if (job.job >= brief_.size()) brief_.resize(std::max<std::size_t>(job.job + 1, brief_.size() * 2));
    brief_[job.job] = Brief{length_s(job), job.eligible_types, job.gpus, job.gpu_milli};
    if (job.job <= pass_memo_.last_visited) pass_memo_.valid = false;  // within what the last pass examined
  }
  void job_left(std::uint32_t job) override {
    if (params_.mode == BackfillMode::Conservative) {
      kept_left(job);
      return;
    }
    waiting_.erase(job);
    pass_memo_.valid = false;
  }
  void run_started(const QueuedJob& job, sim::SimTime now) override;
  void run_ended(std::uint32_t job, sim::SimTime) override;
  void schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) override;
  // For tests: every time EASY would reuse its plan, it plans afresh as well and fails
  // (InternalError) unless both give the same reservation and the same spare GPUs on every
  // node at its time; the fresh plan is kept.
  void check_reused_plans(bool on) { check_reuse_ = on; }
  // Conservative, for tests: with false, a pass that started a job behind a reservation
  // drops the reservations it keeps, so that every pass decides as planning every
  // reservation afresh (docs/scheduling.md, "mode: conservative").
  void keep_reservations_across_backfills(bool on) { keep_across_backfills_ = on; }
  // Conservative, for tests: with false, every search tries every candidate time from now
  // on (without what earlier searches learnt, search_memo_).
  void use_search_memo(bool on) { use_search_memo_ = on; }

  // A reservation made in the last pass: the job and the time, in seconds, it would start.
  struct Reservation {
    std::uint32_t job = 0;
    double start_s = 0;
    // Conservative with the change log: its nodes, reservation_nodes()[first, first + count),
    // and GPUs on each (for tests).
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    int gpus_per_node = 0;
  };
  // Easy: the head job's (none when every job visited started, when no job behind the head
  // could start now, so that the reservation would decide nothing and is not planned, or
  // when it fits nowhere even once every running job has ended); conservative: every
  // reserved job's, in order.
  // Conservative keeping its reservations builds the list when asked (the reservations are
  // its kept entries): valid until the next pass.
  const std::vector<Reservation>& reservations() const;
  const std::vector<std::uint32_t>& reservation_nodes() const { return kept_nodes_; }

 private:
  // A span of time in which a job holds GPUs on some nodes (a run, or a reservation).
  struct Hold {
    double start_s = 0;
    double end_s = 0;
    std::uint32_t first = 0;  // its nodes: holds_nodes_[first, first + count)
    std::uint32_t count = 0;
    int gpus_per_node = 0;
    int gpu = -1;  // a share of a GPU: its local index, and the thousandths
    int gpu_milli = 1000;
    std::uint64_t gpu_mask = 0;  // Placement::gpu_mask
  };
  // Whether every node of a running job is up: a job on a noticed or down node gives no
  // placeable GPUs back when it ends.
  static bool on_up_nodes(const ClusterView& cluster, std::span<const std::uint32_t> nodes) {
    return std::all_of(nodes.begin(), nodes.end(),
                       [&](std::uint32_t n) { return cluster.nodes[n].status == NodeStatus::Up; });
  }
  void easy(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out);
  void conservative(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out);
  // Conservative without a change log or with shared GPUs: every reservation planned afresh.
  void conservative_fresh(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out);
  // The first job that does not fit: its reservation on plan_ (filled in reservations_ and
  // plan_), or false when it fits nowhere even once every running job has ended.
  bool reserve_head(const ClusterView& cluster, const WaitingJobs& waiting, const QueuedJob& head,
                    std::size_t started_from, const Decisions& out);
  // The capacity of the pass as a view for plan_: free GPUs of up nodes, less what this
  // pass placed from placement `from` on.
  void start_plan(const ClusterView& cluster, const Decisions& out, std::size_t from);
  // Conservative: cap_ gains `gpus` on `node`; whether a job may fit on cap_ (an upper
  // bound: holds aside); whether it fits at t on cap_ less the holds overlapping its run
  // (placed on plan_out_ if so).
  void add_capacity(const ClusterView& cluster, std::uint32_t node, int gpus);
  bool capacity_may_fit(const ClusterView& cluster, const QueuedJob& q) const;
  bool try_at(double t, double length, const QueuedJob& q);
  // Undoes out's last placement on now_ (a job that would have delayed a reservation).
  void undo_last(Decisions& out);
  double length_s(const QueuedJob& q) const { return job_length_s(q, params_.lengths); }

  std::unique_ptr<PlacementStrategy> now_;
  std::unique_ptr<PlacementStrategy> plan_;
  BackfillParams params_;
  OrderIndex<SubmitOrder> waiting_;  // easy: submit order (job id order)
  OrderIndex<double> running_;  // expected end, s, soonest first
  mutable std::vector<Reservation> reservations_;
  // Easy: the last plan of the head's reservation, at the expected end e of the run whose
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
  //     are still those a fresh plan takes.
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
    double end_s = 0;
    bool follows = false;          // starts and ends may keep it (above)
    bool long_starts = false;      // runs ending after end_s may start on spare GPUs
    std::uint32_t before_fit = 0;  // releases up to the one it fit at, that one included
  };
  PlanMemo memo_;
  bool check_reuse_ = false;
  std::vector<int> check_spare_;
  bool check_reused_plan(const ClusterView& cluster, const WaitingJobs& waiting, const QueuedJob& head,
                         std::size_t started_from, const Decisions& out);
  std::uint32_t classified_starts_ = 0;  // starts of the last pass's placements the memo accounts for
  std::vector<std::uint32_t> node_count_;  // by job: nodes of its run (for an end that keeps the memo)
  // Whether `job` is expected to end strictly before every other running job.
  bool first_to_end(std::uint32_t job) const;
  // Easy: a pass that started nothing and stopped at `depth`, repeated while only jobs later
  // in submit order than the last it examined (arrivals) joined the waiting jobs, no job
  // left them, no run started or ended and no node's view changed: every job it examined
  // meets the same capacity, the same head and the same plan, so it starts nothing again
  // and keeps its reservation (at max(now, the expected end it was planned at): a job too
  // long for the reservation then is too long later). Without quotas only (they depend on
  // time). The pass is then not repeated: on a full cluster, most arrivals. (A requeued job
  // or an ended run also changes some node's view; the invalidations in job_waiting, job_left
  // and run_* are defensive: without them the equivalence test still passes.)
  struct PassMemo {
    bool valid = false;
    std::uint32_t last_visited = 0;  // the largest job id the pass examined
    std::uint64_t node_changes = 0;
    bool reserved = false;
  };
  PassMemo pass_memo_;
  bool repeat_last_pass(const ClusterView& cluster, const Decisions& out);
  // Scratch of a pass.
  std::vector<NodeView> plan_nodes_;
  ClusterView plan_view_;
  // Easy: per node, the GPUs free at the reservation beyond it: the plan's (the view's
  // free GPUs then, plus what the plan changed, read against this pass's view less what
  // the view changed since, drift_), less what long jobs started since the plan take
  // (spare_taken_); and the nodes where those took some.
  int spare_at(const ClusterView& cluster, std::uint32_t node) const {
    return cluster.nodes[node].gpus_free + plan_->free_gpus_change(node) - drift_[node] - spare_taken_[node];
  }
  std::vector<int> spare_taken_;
  std::vector<std::uint32_t> spare_touched_;
  // Easy: each node's free GPUs as this scheduler last read them, following the cluster's
  // change log pass by pass (follow_log), and what they changed since the last fresh plan.
  void follow_log(const ClusterView& cluster);
  std::vector<int> seen_free_;
  std::uint64_t log_read_ = 0;  // log entries read (dropped ones included)
  bool seen_valid_ = false;
  std::vector<int> drift_;
  std::vector<std::uint32_t> drift_touched_;
  std::vector<Hold> started_;    // easy: runs this pass started, by end
  // Easy: what a pass reads of a waiting job behind the head, by job id, dense (a waiting
  // job's entry does not change while it waits), so the jobs a pass visits in submit order
  // are read from neighbouring memory.
  struct Brief {
    double length_s;
    std::uint64_t eligible_types;
    int gpus;
    int gpu_milli;
  };
  std::vector<Brief> brief_;
  ClassFitMemo may_fit_;  // easy: whether a class may fit now
  std::vector<std::pair<int, std::uint64_t>> refused_;  // easy: (gpus, eligible types) refused since the last start
  std::vector<Hold> releases_;   // conservative: running jobs, by expected end
  std::vector<std::uint32_t> holds_nodes_;  // their nodes
  std::vector<Hold> holds_;      // conservative: runs started and reservations made this pass
  std::vector<std::uint32_t> plan_hold_nodes_;  // their nodes
  std::vector<int> base_free_;   // conservative: free GPUs per node at the start of the pass
  std::vector<int> cap_;         // conservative: ... once the runs ending by a candidate time have ended
  std::vector<int> cap_whole_;   // conservative: per node type, nodes of cap_ wholly free
  std::vector<int> cap_max_;     // conservative: per node type, the most GPUs of cap_ on one node
  std::vector<double> hold_ends_;  // conservative: ends of holds_, sorted
  // conservative: shared GPUs ((node, GPU)) and the latest expected end of their jobs
  std::vector<std::pair<std::pair<std::uint32_t, int>, double>> shared_;
  Decisions plan_out_;

  // Conservative, with the cluster's change log and whole GPUs (backfill_conservative.cpp;
  // docs/scheduling.md, "mode: conservative"): the reservations of the jobs the last pass
  // examined, kept while nothing happened that a fresh plan would see differently, and a
  // search of each new job's reservation over a per-node profile that costs the runs and
  // holds it passes, not every node.
  struct Kept {
    std::uint32_t job = 0;
    double start_s = 0;  // its reservation (the pass's time: it started)
    double end_s = 0;    // start_s + its length
    std::uint32_t first = 0;  // its nodes: kept_nodes_[first, first + count)
    std::uint32_t count = 0;
    int gpus_per_node = 0;
    bool found = false;  // false: it fits nowhere even once every run and reservation has ended
    std::uint32_t hold = 0;  // its entry in holds_
  };
  // The end of a span of `length` seconds from t as the cluster ends a run: at the
  // nanosecond (a run's expected end, a hold's end; so a run ends exactly when expected).
  static double span_end_s(double t, double length) {
    return (sim::SimTime::from_seconds(t) + sim::SimTime::from_seconds(length)).seconds();
  }
  std::vector<Kept> kept_;
  std::vector<std::uint32_t> kept_nodes_spare_;  // kept_nodes_ compacted
  IdSet waiting_ids_;  // conservative: the waiting jobs, in submit order (job id)
  std::vector<std::uint32_t> kept_nodes_;
  bool kept_valid_ = false;
  bool keep_across_backfills_ = true;
  double kept_at_s_ = 0;  // the time of the pass that made or used them
  std::vector<std::uint32_t> kept_started_;  // jobs the last pass started (ascending)
  bool kept_expected(std::uint32_t job) const {
    return std::binary_search(kept_started_.begin(), kept_started_.end(), job);
  }
  bool kept_covers(std::uint32_t job) const { return !kept_.empty() && job <= kept_.back().job; }
  void kept_waiting(std::uint32_t job) {
    waiting_ids_.insert(job);
    if (kept_covers(job)) kept_valid_ = false;
  }
  void kept_left(std::uint32_t job) {
    waiting_ids_.erase(job);
    if (!kept_expected(job) && kept_covers(job)) kept_valid_ = false;
  }
  // The free GPUs now per node (0 unless up), followed through the change log; per node
  // type, nodes by GPUs available at rest (base_hist_, by rest_avail below).
  void follow_base(const ClusterView& cluster);
  std::vector<int> base_;
  std::vector<NodeStatus> base_status_;
  std::vector<int> base_hist_;      // [hist_first_[type] + available GPUs]: at rest, or in a search
                                    // as scap_ less sheld_
  std::vector<int> hist_saved_;     // base_hist_ at the start of a search
  std::vector<int> hist_first_;
  long long base_total_ = 0;
  std::uint64_t base_log_read_ = 0;
  bool base_valid_ = false;
  // A search: capacity (base_ plus the runs ended by the candidate time) and what holds
  // overlapping the job's span take per node; both back to rest (rcap_, rheld_) after it.
  std::vector<int> scap_;
  std::vector<int> sheld_;
  std::vector<char> stouched_flag_;
  std::vector<std::uint32_t> stouched_;
  void change_node(const ClusterView& cluster, std::uint32_t n, int cap, int held);
  // Node n, filed at `before` available GPUs, to what scap_ less sheld_ leaves.
  void refile_hist(const ClusterView& cluster, std::uint32_t n, int before);
  bool avail_may_fit(const ClusterView& cluster, const QueuedJob& q) const;
  // The holds of the pass (reservations and starts, in kept_ order) by start and by end.
  std::vector<std::uint32_t> by_start_;
  std::vector<std::uint32_t> by_end_;
  int empty_holds_ = 0;  // holds of no length (end <= start)
  // In a search: 1 counted (all, at first), 0 left out (starting at or after the span's
  // end), 2 past (ended by the candidate time); between passes, 3 marks a hold that goes.
  std::vector<char> hold_state_;
  std::uint32_t add_hold(std::uint32_t job, double start_s, double end_s, std::span<const std::uint32_t> nodes,
                         int gpus_per_node);
  bool holds_valid_ = false;  // holds_ and by_* hold kept_'s reservations (and nothing else but gone ones)
  bool search(const ClusterView& cluster, const QueuedJob& q, double length, Kept& into);
  // The runs on up nodes by expected end, read from running_ only as far as a search needed
  // (every run ending by rel_horizon_s_), kept while the kept reservations are: runs that
  // end leave from the front, runs started where the list reaches their end join rel_new_.
  struct Release {
    double end_s = 0;
    std::uint32_t first = 0;  // rel_nodes_[first, first + count)
    std::uint32_t count = 0;
    int gpus_per_node = 0;
  };
  std::vector<Release> rel_;
  std::vector<Release> rel_new_;  // runs started since rel_ was merged, by expected end (a few)
  std::vector<std::uint32_t> rel_nodes_;  // both lists' nodes
  std::vector<std::uint32_t> rel_nodes_spare_;
  std::size_t rel_from_ = 0;  // rel_ before it: ended
  std::size_t rel_new_from_ = 0;  // rel_new_ before it: ended
  double rel_horizon_s_ = -std::numeric_limits<double>::infinity();
  bool rel_complete_ = false;
  void push_release(std::vector<Release>& list, double end_s, const RunningPlace& place);
  bool extend_releases(const ClusterView& cluster, std::size_t count);  // false: none left
  void follow_releases(const ClusterView& cluster, bool clean);
  void retire_releases(const ClusterView& cluster);
  // Drops the ended releases and the nodes no list refers to; with `merge`, rel_new_ joins rel_.
  void compact_releases(bool merge);
  // plan_nodes_ as the view of plan_, with a change log of its own so that a reset
  // refiles only the nodes written since the last.
  NodeChanges plan_log_;
  std::vector<std::uint32_t> plan_dirty_;  // nodes whose plan_nodes_ entry may not be their value at rest
  std::vector<char> plan_dirty_flag_;      // by node: listed in plan_dirty_
  std::vector<int> plan_need_;             // by node type: GPUs of one node the job asked about needs
  void set_plan_node(std::uint32_t n, int gpus_free);
  // A search's lower bound (search_memo_): while false, change_node leaves base_hist_ to
  // refresh_hist, which files the nodes touched so far at once before the first try.
  bool hist_live_ = true;
  void refresh_hist(const ClusterView& cluster);
  // The job of each entry of holds_ (a kept reservation, or a job started this pass).
  std::vector<std::uint32_t> hold_job_;
  void build_holds(const ClusterView& cluster);
  // Holds are counted at rest (rheld_, and base_hist_ by rest_avail): a search leaves out
  // those that do not overlap the job's span instead of adding those that do (most do).
  std::vector<int> rheld_;
  // Likewise the runs ending by front_s_ (kept near where searches start trying): rcap_ is
  // base_ plus their GPUs, and a search takes back those ending after its first try.
  std::vector<int> rcap_;
  double front_s_ = -std::numeric_limits<double>::infinity();
  double front_ahead_s_ = 0;  // where front_s_ is moved at a pass: now + this
  // Node n's rest capacity and held GPUs change by cap and held (histogram, plan view).
  void rest_change(const ClusterView& cluster, std::uint32_t n, int cap, int held);
  void rest_release(const ClusterView& cluster, const Release& r, int sign);
  void move_front(const ClusterView& cluster, double to_s);
  int rest_avail(std::uint32_t n) const { return std::max(0, rcap_[n] - rheld_[n]); }
  void rest_hold(const ClusterView& cluster, const Hold& h, int sign);
  void count_holds_at_rest(const ClusterView& cluster);
  // Drops the kept reservations (and with them what search_memo_ learnt).
  void forget_kept();
  // The reservations of the last pass, when conservative keeps them: the first
  // lazy_reserved_ entries of kept_ (those found), built into reservations_ when asked.
  mutable bool reservations_lazy_ = false;
  std::size_t lazy_reserved_ = 0;
  // Scratch of a pass: positions in kept_ of the kept entries reserved for now, and of the
  // entries the pass started.
  std::vector<std::size_t> now_pos_;
  std::vector<std::size_t> started_pos_;
  // What the searches learnt, while the reservations are kept (docs/scheduling.md, "mode:
  // conservative"): per job shape (GPUs, eligible node types), pairs (length L, time T)
  // such that no candidate time before T fits a job of that shape and of length >= L. It
  // holds while the pass is clean: reservations are only added (a job started from its
  // reservation holds the same GPUs as a run, a run ending when expected gives them back
  // where the plan counted them), so a candidate that did not fit fits no better later,
  // and a candidate added since (the end of a new hold) lies between two old ones and
  // meets the capacity of the earlier one less at least its holds. Kept as a front: L and T
  // both increasing; a search starts trying at bound(L).
  class SearchMemo {
   public:
    double bound(int gpus, std::uint64_t types, double length, double now_s);
    void record(int gpus, std::uint64_t types, double length, double t, double now_s);
    void clear() {
      for (Shape& s : shapes_) s.front.clear();
    }

   private:
    struct Shape {
      int gpus = 0;
      std::uint64_t types = 0;
      std::vector<std::pair<double, double>> front;  // (length, time)
    };
    Shape& shape(int gpus, std::uint64_t types);
    std::vector<Shape> shapes_;
  };
  SearchMemo search_memo_;
  bool use_search_memo_ = true;
};

PolicyDef<BackfillParams> backfill_policy();

}  // namespace gcsim::models
