// Conservative backfilling that keeps its reservations from pass to pass
// (backfill_conservative.hpp): the pass, and the holds (reservations) it keeps. The search
// of a new job's reservation is in backfill_search.cpp, the fresh planner in
// backfill_conservative_fresh.cpp.
#include "models/scheduler/backfill_conservative.hpp"

#include <algorithm>
#include <string>

#include "sim/check.hpp"

namespace gcsim::models {

void ConservativeBackfill::run_started(const QueuedJob& job, sim::SimTime now) {
  if (!kept_expected(job.job) || now != kept_at_) kept_valid_ = false;
  running_.add(job.job, job.gpus, span_end(now, length_of(job)));
}

void ConservativeBackfill::run_ended(std::uint32_t job, sim::SimTime now) {
  if (!running_.contains(job) || running_.end_of(job) != now) kept_valid_ = false;  // not at its expected end
  running_.remove(job);
}

std::uint32_t ConservativeBackfill::add_hold(std::uint32_t job, sim::SimTime start, sim::SimTime end,
                                             std::span<const std::uint32_t> nodes, int gpus_per_node) {
  const auto i = static_cast<std::uint32_t>(holds_.size());
  if (end <= start) ++empty_holds_;
  hold_job_.push_back(job);
  holds_.push_back(Hold{start, end, static_cast<std::uint32_t>(hold_nodes_.size()),
                        static_cast<std::uint32_t>(nodes.size()), gpus_per_node});
  hold_nodes_.insert(hold_nodes_.end(), nodes.begin(), nodes.end());
  by_start_.insert(std::upper_bound(by_start_.begin(), by_start_.end(), start,
                                    [&](sim::SimTime s, std::uint32_t h) { return s < holds_[h].start; }),
                   i);
  by_end_.insert(std::upper_bound(by_end_.begin(), by_end_.end(), end,
                                  [&](sim::SimTime e, std::uint32_t h) { return e < holds_[h].end; }),
                 i);
  return i;
}

void ConservativeBackfill::rest_hold(const ClusterView& cluster, const Hold& h, int sign) {
  for (std::uint32_t k = h.first; k < h.first + h.count; ++k)
    profile_.rest_change(cluster, hold_nodes_[k], 0, sign * h.gpus_per_node);
}

// The pass below keeps the reservations of the last pass (kept_) while nothing happened
// that a plan did not expect (docs/scheduling.md, "mode: conservative"), and plans only
// the jobs beyond them, with fresh()'s rule (the same candidate times, the same
// capacity less the same holds, the same strategy on the same view).
//   - Between two passes at T and T', if the runs that ended did so exactly at their
//     expected ends, the runs that started are the jobs the pass at T started, no node
//     changed state, and no job joined or left the waiting jobs ahead of the last one
//     kept, then a kept reservation still fits beside every run and every reservation
//     ahead of it, at every instant: it was planned beside them, and a job started at T
//     holds from then on exactly the GPUs its hold did, until the end of its hold.
//     Planning afresh at T' gives the same reservations but where a job started at T
//     behind a reservation R: as a run it is subtracted whole on R's node together with
//     holds that start after it ends, which may move R later
//     (keep_reservations_across_backfills(false) drops kept_ after such a pass, and then
//     every pass decides as planning afresh: the test checks it pass by pass). No candidate time lies in (T, T') (a run end or a
//     hold end there would have been a pass), and at T' a job finds the capacity of its
//     last candidate before T' less at least the same holds, so it does not fit there
//     either (a strategy that fails on some capacity fails on less).
//   - A search walks the runs in order of expected end (the release schedule, read
//     only as far as needed) from a rest state that counts every hold and the runs
//     ending by front_, trying candidate times from the bound earlier searches learnt
//     (SearchMemo); it keeps per node the capacity and the GPUs of the holds overlapping
//     the job's span, and per node type how many nodes have each count of GPUs available:
//     a candidate time is rejected from that count (exact for one-node jobs and for whole
//     nodes), and the strategy is asked only where it says the job fits, on the profile's
//     view with only the nodes written since the last ask refiled (and only those that
//     may host the job written).
void ConservativeBackfill::build_holds(const ClusterView& cluster) {
  holds_.clear();
  hold_job_.clear();
  hold_nodes_.clear();
  by_start_.clear();
  empty_holds_ = 0;
  for (Kept& k : kept_) {
    if (!k.found) continue;
    if (k.end <= k.start) ++empty_holds_;
    k.hold = static_cast<std::uint32_t>(holds_.size());
    by_start_.push_back(k.hold);
    holds_.push_back(Hold{k.start, k.end, static_cast<std::uint32_t>(hold_nodes_.size()), k.count, k.gpus_per_node});
    hold_job_.push_back(k.job);
    hold_nodes_.insert(hold_nodes_.end(), kept_nodes_.begin() + k.first, kept_nodes_.begin() + k.first + k.count);
  }
  by_end_ = by_start_;
  std::stable_sort(by_start_.begin(), by_start_.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return holds_[a].start < holds_[b].start; });
  std::stable_sort(by_end_.begin(), by_end_.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return holds_[a].end < holds_[b].end; });
  hold_state_.assign(holds_.size(), 0);  // no mark of an earlier numbering
  holds_valid_ = true;
  count_holds_at_rest(cluster);
}

void ConservativeBackfill::count_holds_at_rest(const ClusterView& cluster) {
  profile_.clear_held();
  for (const std::uint32_t h : by_start_)
    for (std::uint32_t k = holds_[h].first; k < holds_[h].first + holds_[h].count; ++k)
      profile_.add_held(hold_nodes_[k], holds_[h].gpus_per_node);
  profile_.refile_rest(cluster);
}

void ConservativeBackfill::forget_kept() {
  kept_.clear();
  kept_nodes_.clear();
  holds_valid_ = false;
  search_memo_.clear();
}

const std::vector<BackfillReservation>& ConservativeBackfill::reservations() const {
  if (reservations_lazy_) {
    reservations_.clear();
    for (std::size_t i = 0; i < lazy_reserved_; ++i) {
      const Kept& k = kept_[i];
      if (k.found) reservations_.push_back(Reservation{k.job, k.start, k.first, k.count, k.gpus_per_node});
    }
    reservations_lazy_ = false;
  }
  return reservations_;
}

void ConservativeBackfill::schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  reservations_.clear();
  reservations_lazy_ = false;
  if (!use_caches_ || cluster.changes == nullptr || !cluster.gpu_room.empty() || cluster.running_jobs == nullptr ||
      !out.placements.empty()) {
    kept_valid_ = false;
    forget_kept();
    kept_started_.clear();
    profile_.invalidate();
    fresh(cluster, waiting, out);
    return;
  }
  kept_pass(cluster, waiting, out);
}

void ConservativeBackfill::kept_pass(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  const sim::SimTime now = cluster.now;
  if (profile_.valid_for(cluster)) {
    // Before the profile's base gets what ended: a run that ended off its expected end
    // (the pass is not clean) may still be counted at rest as a release.
    if (!kept_valid_ || cluster.admission != nullptr)
      move_front(cluster, sim::SimTime::min());
    else
      retire_releases(cluster);
  }
  bool rebuilt = false;
  if (!profile_.follow(cluster, rebuilt)) kept_valid_ = false;
  if (rebuilt) front_ = sim::SimTime::min();  // no release counted at rest
  bool clean = kept_valid_ && cluster.admission == nullptr;
  // A run at or past its expected end "ends any moment" (just after now): the plan then
  // depends on now, and is not kept.
  bool past_due = false;
  running_.scan([&](std::uint32_t, sim::SimTime end) {
    past_due = end <= now;
    return Visit::Stop;
  });
  // The holds (kept reservations, and the jobs started now, which are kept entries too)
  // are kept from pass to pass with kept_ (built afresh after a pass dropped some).
  if (clean && !holds_valid_) build_holds(cluster);
  if (clean && !by_start_.empty()) clean = holds_[by_start_.front()].start >= now;  // none missed
  follow_releases(cluster, clean && !past_due);
  if (clean && !past_due) move_front(cluster, now + front_ahead_);
  kept_started_.clear();
  // A run past its expected end (a checkpoint's pause, an estimate too low) still holds
  // GPUs that the kept reservations counted on from then: they are planned again.
  if (!clean || past_due) forget_kept();
  kept_at_ = now;
  long long free_now = profile_.total_free();
  bool blocked = false;
  bool backfilled = false;
  int behind = 0;
  started_pos_.clear();
  // Each job in submit order, as fresh()'s scan: the kept ones first (the
  // waiting jobs up to the last one kept, in order), then the others, each searched.
  const auto examine = [&](std::size_t i) {
    const Kept& k = kept_[i];
    if (!k.found) {
      blocked = true;  // it fits nowhere even once every run and reservation has ended
      return;
    }
    if (k.start == now) {
      out.placements.push_back(Placement{k.job, static_cast<std::uint32_t>(out.nodes.size()), k.count, k.gpus_per_node,
                                         static_cast<int>(cluster.nodes[kept_nodes_[k.first]].type), -1, 1000, 0});
      out.nodes.insert(out.nodes.end(), kept_nodes_.begin() + k.first, kept_nodes_.begin() + k.first + k.count);
      for (std::uint32_t n = k.first; n < k.first + k.count; ++n)
        GCSIM_CHECK(profile_.base(kept_nodes_[n]) >= k.gpus_per_node,
                    "conservative backfill: job " + std::to_string(k.job) + " kept for now on node " +
                        std::to_string(kept_nodes_[n]) + ", which has no room for it");
      free_now -= static_cast<long long>(k.count) * k.gpus_per_node;
      kept_started_.push_back(k.job);
      started_pos_.push_back(i);
      if (blocked) backfilled = true;
    } else {
      blocked = true;  // a reservation (listed by reservations())
    }
  };
  // Nothing more can start once no GPU is free now: later reservations would change
  // nothing in this pass.
  const auto stops = [&] { return free_now == 0 || (blocked && behind++ == params_.depth); };
  // The kept entries: only those reserved for now start, found through the holds by start
  // (the earliest); the entries between them are passed over in one step each run, as
  // stops() and examine() would take them one by one (none starts, free_now stays).
  now_pos_.clear();
  if (holds_valid_)
    for (std::size_t j = 0; j < by_start_.size() && holds_[by_start_[j]].start == now; ++j) {
      const std::uint32_t job = hold_job_[by_start_[j]];
      now_pos_.push_back(static_cast<std::size_t>(
          std::lower_bound(kept_.begin(), kept_.end(), job, [](const Kept& a, std::uint32_t b) { return a.job < b; }) -
          kept_.begin()));
    }
  std::sort(now_pos_.begin(), now_pos_.end());
  std::size_t examined = 0;  // kept_: those the pass reached
  bool stopped = false;
  const auto pass_over = [&](std::size_t to) {  // kept_[examined, to), none reserved for now
    while (examined < to) {
      if (free_now == 0) return false;
      if (!blocked) {
        examine(examined++);
        continue;
      }
      const std::size_t allowed = static_cast<std::size_t>(params_.depth - behind);  // checks that pass
      if (to - examined <= allowed) {
        behind += static_cast<int>(to - examined);
        examined = to;
      } else {
        examined += allowed;
        behind = params_.depth + 1;
        return false;
      }
    }
    return true;
  };
  for (const std::size_t p : now_pos_) {
    if ((stopped = !pass_over(p) || stops())) break;
    examine(examined++);
  }
  if (!stopped) stopped = !pass_over(kept_.size());
  if (!stopped) {
    for (std::uint32_t id = waiting_ids_.next(kept_.empty() ? 0 : kept_.back().job + 1); id != IdSet::NONE;
         id = waiting_ids_.next(id + 1)) {
      if (stops()) break;
      const QueuedJob& q = waiting[id];
      if (held_by_quota(cluster, q)) continue;  // no start and no reservation while the quotas hold it
      if (!holds_valid_) build_holds(cluster);
      Kept k;
      if (search(cluster, q, length_of(q), k)) {
        k.hold = add_hold(k.job, k.start, k.end,
                          std::span<const std::uint32_t>(kept_nodes_).subspan(k.first, k.count), k.gpus_per_node);
        rest_hold(cluster, holds_[k.hold], 1);
      }
      kept_.push_back(k);
      examine(kept_.size() - 1);
      examined = kept_.size();
    }
  }
  // Keep what the next pass may reuse: not the jobs started now (runs from now on), and
  // nothing from a job not examined whose reservation is now (it did not start: what
  // follows it counted on its hold from now). Their nodes stay in kept_nodes_ until it is
  // compacted.
  std::size_t keep_to = kept_.size();
  for (const std::size_t p : now_pos_)
    if (p >= examined) {
      keep_to = p;
      holds_valid_ = false;
      search_memo_.clear();  // a hold leaves that the searches counted on
      break;
    }
  lazy_reserved_ = examined - started_pos_.size();
  reservations_lazy_ = true;
  if (!started_pos_.empty()) {
    if (holds_valid_) {  // started: their holds go
      hold_state_.resize(holds_.size());
      for (const std::size_t i : started_pos_) {
        hold_state_[kept_[i].hold] = 3;
        rest_hold(cluster, holds_[kept_[i].hold], -1);
        if (kept_[i].end <= kept_[i].start) --empty_holds_;
      }
      const auto is_gone = [&](std::uint32_t h) { return hold_state_[h] == 3; };
      by_start_.erase(std::remove_if(by_start_.begin(), by_start_.end(), is_gone), by_start_.end());
      by_end_.erase(std::remove_if(by_end_.begin(), by_end_.end(), is_gone), by_end_.end());
      for (const std::size_t i : started_pos_) hold_state_[kept_[i].hold] = 0;  // no mark left behind
      if (holds_.size() > 2 * by_start_.size() + 16) holds_valid_ = false;  // mostly gone: built afresh
    }
    std::size_t to = started_pos_.front();
    for (std::size_t i = to, s = 0; i < keep_to; ++i) {
      if (s < started_pos_.size() && started_pos_[s] == i) {
        ++s;
        continue;
      }
      kept_[to++] = kept_[i];
    }
    kept_.resize(to);
  } else {
    kept_.resize(keep_to);
  }
  compact_kept_nodes();
  kept_valid_ = !past_due && cluster.admission == nullptr && (keep_across_backfills_ || !backfilled);
}

void ConservativeBackfill::compact_kept_nodes() {
  if (!(kept_nodes_.size() > 1024 && kept_nodes_.size() > 4 * kept_.size() * 8)) return;
  kept_nodes_spare_.clear();
  for (Kept& k : kept_) {
    const std::uint32_t first = k.first;
    k.first = static_cast<std::uint32_t>(kept_nodes_spare_.size());
    if (k.found)
      kept_nodes_spare_.insert(kept_nodes_spare_.end(), kept_nodes_.begin() + first,
                               kept_nodes_.begin() + first + k.count);
  }
  kept_nodes_.swap(kept_nodes_spare_);
}

}  // namespace gcsim::models
