// Conservative backfilling (Mu'alem and Feitelson 2001; docs/scheduling.md, "mode:
// conservative"): each waiting job in submit order, up to `depth` of them behind the first
// that does not fit, holds a reservation on a profile of free GPUs per node over time; a
// job starts now only if it fits beside every earlier reservation for the whole of its
// length.
// Two planners give the same decisions:
//   fresh  every reservation planned afresh each pass (backfill_conservative_fresh.cpp): a
//          view without the change log, jobs sharing GPUs, or use_caches(false);
//   kept   with the change log and whole GPUs (backfill_conservative.cpp): the reservations
//          are kept from pass to pass while runs end exactly when expected (at the
//          nanosecond) and nothing else unexpected happens, and each new job's reservation
//          is searched (backfill_search.cpp) over the availability profile
//          (availability_profile.hpp) and the release schedule, from what earlier searches
//          learnt (SearchMemo).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "models/scheduler/availability_profile.hpp"
#include "models/scheduler/backfill_common.hpp"
#include "models/scheduler/id_set.hpp"

namespace gcsim::models {

class ConservativeBackfill final : public BackfillBase {
 public:
  using BackfillBase::BackfillBase;
  void job_waiting(const QueuedJob& job) override {
    waiting_ids_.insert(job.job);
    if (kept_covers(job.job)) kept_valid_ = false;
  }
  void job_left(std::uint32_t job) override {
    waiting_ids_.erase(job);
    if (!kept_expected(job) && kept_covers(job)) kept_valid_ = false;
  }
  void run_started(const QueuedJob& job, sim::SimTime now) override;
  void run_ended(std::uint32_t job, sim::SimTime now) override;
  void schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) override;
  // Off: every pass plans every reservation afresh (the fresh planner).
  void use_caches(bool on) override { use_caches_ = on; }
  // For tests: with false, a pass that started a job behind a reservation drops the
  // reservations it keeps, so that every pass decides as planning every reservation afresh.
  void keep_reservations_across_backfills(bool on) { keep_across_backfills_ = on; }
  // For tests: with false, every search tries every candidate time from now on (without
  // what earlier searches learnt, search_memo_).
  void use_search_memo(bool on) { use_search_memo_ = on; }
  // Every reserved job's, in order. Keeping its reservations it builds the list when asked
  // (the reservations are its kept entries): valid until the next pass.
  const std::vector<Reservation>& reservations() const override;
  const std::vector<std::uint32_t>& reservation_nodes() const override { return kept_nodes_; }

 private:
  // backfill_conservative_fresh.cpp
  void fresh(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out);
  void start_fresh_view(const ClusterView& cluster);
  void add_capacity(const ClusterView& cluster, std::uint32_t node, int gpus);
  bool capacity_may_fit(const ClusterView& cluster, const QueuedJob& q) const;
  bool try_at(sim::SimTime t, sim::SimTime length, const QueuedJob& q);

  // backfill_conservative.cpp: the pass that keeps reservations, and its holds.
  void kept_pass(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out);
  struct Kept {
    std::uint32_t job = 0;
    sim::SimTime start;  // its reservation (the pass's time: it started)
    sim::SimTime end;    // start + its length
    std::uint32_t first = 0;  // its nodes: kept_nodes_[first, first + count)
    std::uint32_t count = 0;
    int gpus_per_node = 0;
    bool found = false;  // false: it fits nowhere even once every run and reservation has ended
    std::uint32_t hold = 0;  // its entry in holds_
  };
  bool kept_expected(std::uint32_t job) const {
    return std::binary_search(kept_started_.begin(), kept_started_.end(), job);
  }
  bool kept_covers(std::uint32_t job) const { return !kept_.empty() && job <= kept_.back().job; }
  void build_holds(const ClusterView& cluster);
  void count_holds_at_rest(const ClusterView& cluster);
  std::uint32_t add_hold(std::uint32_t job, sim::SimTime start, sim::SimTime end, std::span<const std::uint32_t> nodes,
                         int gpus_per_node);
  void rest_hold(const ClusterView& cluster, const Hold& h, int sign);
  void forget_kept();  // drops the kept reservations (and what search_memo_ learnt)
  void compact_kept_nodes();

  // backfill_search.cpp: a new job's reservation, and the releases counted at rest.
  bool search(const ClusterView& cluster, const QueuedJob& q, sim::SimTime length, Kept& into);
  void rest_release(const ClusterView& cluster, const ReleaseSchedule::Release& r, int sign);
  void move_front(const ClusterView& cluster, sim::SimTime to);
  void retire_releases(const ClusterView& cluster);
  void follow_releases(const ClusterView& cluster, bool clean);

  IdSet waiting_ids_;  // the waiting jobs, in submit order (job id)
  bool use_caches_ = true;
  // The fresh planner's state (a pass).
  std::vector<NodeView> fresh_nodes_;
  ClusterView fresh_view_;
  std::vector<Hold> fresh_releases_;  // running jobs, by expected end
  std::vector<std::uint32_t> fresh_release_nodes_;
  std::vector<Hold> fresh_holds_;  // runs started and reservations made this pass
  std::vector<std::uint32_t> fresh_hold_nodes_;
  std::vector<int> base_free_;  // free GPUs per node at the start of the pass
  std::vector<int> cap_;        // ... once the runs ending by a candidate time have ended
  std::vector<int> cap_whole_;  // per node type, nodes of cap_ wholly free
  std::vector<int> cap_max_;    // per node type, the most GPUs of cap_ on one node
  std::vector<sim::SimTime> hold_ends_;  // ends of fresh_holds_, sorted
  // shared GPUs ((node, GPU)) and the latest expected end of their jobs
  std::vector<std::pair<std::pair<std::uint32_t, int>, sim::SimTime>> shared_;

  // The kept reservations: those of the jobs the last pass examined, kept while nothing
  // happened that a fresh plan would see differently.
  std::vector<Kept> kept_;
  std::vector<std::uint32_t> kept_nodes_;
  std::vector<std::uint32_t> kept_nodes_spare_;  // kept_nodes_ compacted
  bool kept_valid_ = false;
  bool keep_across_backfills_ = true;
  sim::SimTime kept_at_;  // the time of the pass that made or used them
  std::vector<std::uint32_t> kept_started_;  // jobs the last pass started (ascending)
  // The reservations of the last pass, when it keeps them: the first lazy_reserved_
  // entries of kept_ (those found), built into reservations_ when asked.
  mutable bool reservations_lazy_ = false;
  std::size_t lazy_reserved_ = 0;
  std::vector<std::size_t> now_pos_;      // a pass: kept_ entries reserved for now
  std::vector<std::size_t> started_pos_;  // a pass: kept_ entries it started
  // The holds of the pass (reservations and starts, in kept_ order), their jobs and nodes,
  // by start and by end.
  std::vector<Hold> holds_;
  std::vector<std::uint32_t> hold_job_;
  std::vector<std::uint32_t> hold_nodes_;
  std::vector<std::uint32_t> by_start_;
  std::vector<std::uint32_t> by_end_;
  int empty_holds_ = 0;  // holds of no length (end <= start)
  // In a search: 1 counted (all, at first), 0 left out (starting at or after the span's
  // end), 2 past (ended by the candidate time); between passes, 3 marks a hold that goes.
  std::vector<char> hold_state_;
  bool holds_valid_ = false;  // holds_ and by_* hold kept_'s reservations (and nothing else but gone ones)
  // The runs ending by front_ are counted at rest (kept near where searches start trying):
  // a search takes back those ending after its first try.
  sim::SimTime front_ = sim::SimTime::min();
  sim::SimTime front_ahead_;  // where front_ is moved at a pass: now + this
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
    sim::SimTime bound(int gpus, std::uint64_t types, sim::SimTime length, sim::SimTime now);
    void record(int gpus, std::uint64_t types, sim::SimTime length, sim::SimTime t, sim::SimTime now);
    void clear() {
      for (Shape& s : shapes_) s.front.clear();
    }

   private:
    struct Shape {
      int gpus = 0;
      std::uint64_t types = 0;
      std::vector<std::pair<sim::SimTime, sim::SimTime>> front;  // (length, time)
    };
    Shape& shape(int gpus, std::uint64_t types);
    std::vector<Shape> shapes_;
  };
  SearchMemo search_memo_;
  bool use_search_memo_ = true;
};

}  // namespace gcsim::models
