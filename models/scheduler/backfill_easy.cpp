// EASY backfilling (backfill_easy.hpp; docs/scheduling.md, "Backfilling").
#include "models/scheduler/backfill_easy.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "sim/check.hpp"

namespace gcsim::models {

void EasyBackfill::job_waiting(const QueuedJob& job) {
  waiting_.insert(job.job, job.gpus, SubmitOrder{});
  if (job.job >= brief_.size()) brief_.resize(std::max<std::size_t>(job.job + 1, brief_.size() * 2));
  brief_[job.job] = Brief{length_of(job), job.eligible_types, job.gpus, job.gpu_milli};
  if (job.job <= pass_memo_.last_visited) pass_memo_.valid = false;  // within what the last pass examined
}

void EasyBackfill::run_started(const QueuedJob& job, sim::SimTime now) {
  running_.add(job.job, job.gpus, span_end(now, length_of(job)));
  if (classified_starts_ > 0)
    --classified_starts_;  // one the last pass placed and the memo took into account
  else
    memo_.valid = false;
  pass_memo_.valid = false;
}

void EasyBackfill::run_ended(std::uint32_t job, sim::SimTime) {
  if (memo_.valid) {
    if (memo_.follows && memo_.before_fit > 1 && job < node_count_.size() && running_.first_to_end(job)) {
      --memo_.before_fit;
      memo_.node_changes += node_count_[job];
    } else {
      memo_.valid = false;
    }
  }
  running_.remove(job);
  pass_memo_.valid = false;
}

void EasyBackfill::schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  reservations_.clear();
  if (use_caches_) {
    easy(cluster, waiting, out);
    return;
  }
  // The caches rest on the change log: without it nothing is kept from pass to pass.
  ClusterView fresh = cluster;
  fresh.changes = nullptr;
  easy(fresh, waiting, out);
}

bool EasyBackfill::reserve_head(const ClusterView& cluster, const WaitingJobs& waiting, const QueuedJob& head,
                                     std::size_t started_from, const Decisions& out) {
  const sim::SimTime now = cluster.now;
  const bool memo_able = cluster.changes != nullptr && started_from == out.placements.size();
  const std::uint64_t node_changes = memo_able ? cluster.changes->total() : 0;
  if (memo_able && memo_.valid && memo_.head == head.job && memo_.gpus == head.gpus && memo_.gpu_milli == head.gpu_milli &&
      memo_.eligible_types == head.eligible_types && memo_.node_changes == node_changes) {
    if (check_reuse_) return check_reused_plan(cluster, waiting, head, started_from, out);
    if (!memo_.fits) return false;
    reservations_.push_back(Reservation{head.job, std::max(now, memo_.end), 0,
                                        static_cast<std::uint32_t>(head_nodes_.size()), head_gpus_per_node_});
    return true;
  }
  memo_.valid = false;
  // A fresh plan: what long jobs took of its spare GPUs, and what the view changed since,
  // start again from none.
  for (const std::uint32_t n : spare_touched_) spare_taken_[n] = 0;
  spare_touched_.clear();
  for (const std::uint32_t n : drift_touched_) drift_[n] = 0;
  drift_touched_.clear();
  sim::SimTime fit_end;
  std::uint32_t released = 0;   // releases so far
  std::uint32_t not_up = 0;     // runs passed over, on nodes not up
  // The runs this pass started from started_from on end at now + length: merged, by end,
  // with the running ones.
  started_.clear();
  for (std::size_t i = started_from; i < out.placements.size(); ++i) {
    const Placement& p = out.placements[i];
    started_.push_back(
        Hold{now, span_end(now, length_of(waiting[p.job])), p.first, p.count, p.gpus_per_node, p.gpu, p.gpu_milli, p.gpu_mask});
  }
  std::sort(started_.begin(), started_.end(), [](const Hold& a, const Hold& b) { return a.end < b.end; });
  // The plan starts from the pass's view less what the pass placed from started_from on: on
  // the availability profile in whole GPUs (a search of the profile with no holds), or,
  // where jobs share GPUs, on the plan strategy's own overlay of the view, which follows
  // every GPU's unheld thousandths (a share that ends gives its thousandths back).
  const bool on_profile = cluster.gpu_room.empty();
  if (on_profile) {
    if (cluster.changes == nullptr) {
      bool rebuilt = false;
      profile_.follow(cluster, rebuilt);
    }
    profile_.begin_search(true);
    for (const Hold& h : started_)
      for (std::uint32_t k = h.first; k < h.first + h.count; ++k) profile_.change(cluster, out.nodes[k], -h.gpus_per_node, 0);
  } else {
    plan_->reset(cluster);
    for (std::size_t i = started_from; i < out.placements.size(); ++i) plan_->take_placed(out.placements[i], out.nodes);
  }
  std::size_t next_started = 0;
  sim::SimTime at = now;
  bool fits = false;
  // The head is tried after a release only where it may fit. On the profile, the per-type
  // count of nodes by GPUs available says so exactly (a node with its GPUs, or enough whole
  // nodes), and the strategy is asked on the profile's view (every strategy places a job
  // wherever that count has room). On the overlay, after the first try, only when a node
  // this release gave back now has room for it (free GPUs >= its GPUs, or the whole node
  // for a job bigger than a node) or it asks for a share: a whole-GPU job's place depends
  // only on which nodes have that room; a view without the change log gets it tried at
  // every release (the tests' reference).
  bool tried = false;
  const bool try_every_release = cluster.changes == nullptr;
  const auto release = [&](sim::SimTime end, const RunningPlace& place) {
    ++released;
    at = std::max(now, end);  // a run past its expected end may end any moment
    fit_end = end;
    if (on_profile) {
      GCSIM_CHECK(place.gpu < 0, "EASY backfill: a run shares a GPU in a view without gpu_room");
      for (const std::uint32_t n : place.nodes) profile_.change(cluster, n, place.gpus_per_node, 0);
      if (!profile_.may_fit(cluster, head)) return false;
      plan_->reset(profile_.sync_view(cluster, head));
      profile_.view_read();
    } else {
      plan_->give_back(place);
      bool may_fit = try_every_release || !tried || head.gpu_milli < 1000;
      for (std::size_t i = 0; !may_fit && i < place.nodes.size(); ++i) {
        const std::uint32_t n = place.nodes[i];
        may_fit = plan_->free_gpus(n) >= std::min(head.gpus, cluster.types[cluster.nodes[n].type].gpus_per_node);
      }
      if (!may_fit) return false;
      tried = true;
    }
    fits = plan_->could_fit(head.gpus) && plan_->reserve(head);  // capacity only: the quotas admitted the head
    return fits;
  };
  const auto release_started_until = [&](sim::SimTime end) {
    for (; next_started < started_.size() && started_[next_started].end <= end; ++next_started) {
      const Hold& h = started_[next_started];
      if (release(h.end, RunningPlace{-1, std::span<const std::uint32_t>(out.nodes).subspan(h.first, h.count),
                                        h.gpus_per_node, false, h.gpu, h.gpu_milli, h.gpu_mask}))
        return true;
    }
    return false;
  };
  running_.scan([&](std::uint32_t id, sim::SimTime end) {
    if (release_started_until(end)) return Visit::Stop;
    const RunningPlace place = cluster.running_jobs->where(id);
    if (!ReleaseSchedule::on_up_nodes(cluster, place.nodes)) {
      ++not_up;
      return Visit::Next;
    }
    return release(end, place) ? Visit::Stop : Visit::Next;
  });
  if (!fits) release_started_until(sim::SimTime::max());
  // The spare GPUs at the reservation, per node, as a change to this view (spare_at reads
  // it in later passes against their views): the GPUs available then less the head's.
  for (const std::uint32_t n : spare_change_touched_) spare_change_[n] = 0;
  spare_change_touched_.clear();
  spare_change_.resize(cluster.nodes.size());
  plan_on_profile_ = on_profile;
  head_nodes_.clear();
  if (fits) {
    const Placement& r = plan_->reserved();
    head_nodes_.assign(plan_->reserved_nodes().begin(), plan_->reserved_nodes().end());
    head_gpus_per_node_ = r.gpus_per_node;
    if (on_profile) {
      const auto add = [&](std::uint32_t n, int d) {
        if (d == 0) return;
        if (spare_change_[n] == 0) spare_change_touched_.push_back(n);  // may list a node twice: harmless
        spare_change_[n] += d;
      };
      for (const std::uint32_t n : profile_.touched()) add(n, profile_.avail(n) - cluster.nodes[n].gpus_free);
      for (const std::uint32_t n : head_nodes_) add(n, -r.gpus_per_node);
    }
  }
  if (on_profile) profile_.end_search();
  if (memo_able) {
    bool whole_nodes = head.gpu_milli >= 1000;
    for (std::size_t t = 0; whole_nodes && t < cluster.types.size() && t < 64; ++t)
      whole_nodes = !(head.eligible_types >> t & 1) || head.gpus >= cluster.types[t].gpus_per_node;
    memo_ = PlanMemo{true,      head.job, head.gpus, head.gpu_milli, head.eligible_types, node_changes, fits, fit_end,
                     fits && not_up == 0, whole_nodes && plan_->chooses_least_candidate(), released};
  }
  if (!fits) return false;
  reservations_.push_back(Reservation{head.job, at, 0, static_cast<std::uint32_t>(head_nodes_.size()), head_gpus_per_node_});
  return true;
}

void EasyBackfill::follow_log(const ClusterView& cluster) {
  const NodeChanges* log = cluster.changes;
  if (log == nullptr) {  // no memo without a log: nothing drifts
    seen_valid_ = false;
    drift_.resize(cluster.nodes.size());
    return;
  }
  const std::uint64_t total = log->total();
  if (!seen_valid_ || seen_free_.size() != cluster.nodes.size() || log->dropped > log_read_ || log_read_ > total) {
    // First pass, or entries dropped unread: read every node; what changed since the plan is unknown.
    seen_free_.resize(cluster.nodes.size());
    for (std::size_t n = 0; n < cluster.nodes.size(); ++n) seen_free_[n] = cluster.nodes[n].gpus_free;
    drift_.assign(cluster.nodes.size(), 0);
    drift_touched_.clear();
    seen_valid_ = true;
    memo_.valid = false;
    log_read_ = total;
    return;
  }
  for (std::size_t i = static_cast<std::size_t>(log_read_ - log->dropped); i < log->nodes.size(); ++i) {
    const std::uint32_t n = log->nodes[i];
    const int d = cluster.nodes[n].gpus_free - seen_free_[n];
    if (d == 0) continue;
    if (drift_[n] == 0) drift_touched_.push_back(n);  // may list a node twice: reset handles it twice
    drift_[n] += d;
    seen_free_[n] += d;
  }
  log_read_ = total;
}

bool EasyBackfill::check_reused_plan(const ClusterView& cluster, const WaitingJobs& waiting, const QueuedJob& head,
                                          std::size_t started_from, const Decisions& out) {
  const PlanMemo kept = memo_;
  check_nodes_ = head_nodes_;
  check_spare_.clear();
  for (std::uint32_t n = 0; n < cluster.nodes.size(); ++n) check_spare_.push_back(kept.fits ? spare_at(cluster, n) : 0);
  memo_.valid = false;
  const bool fits = reserve_head(cluster, waiting, head, started_from, out);
  bool same = fits == kept.fits && (!fits || (memo_.end == kept.end && head_nodes_ == check_nodes_));
  for (std::uint32_t n = 0; same && fits && n < cluster.nodes.size(); ++n) same = check_spare_[n] == spare_at(cluster, n);
  GCSIM_CHECK(same, "backfill: the plan kept for job " + std::to_string(head.job) + " at " +
                        std::to_string(cluster.now.seconds()) + " s differs from a fresh one");
  return fits;
}

bool EasyBackfill::repeat_last_pass(const ClusterView& cluster, const Decisions& out) {
  const bool same = pass_memo_.valid && cluster.admission == nullptr && cluster.changes != nullptr &&
                    out.placements.empty() && pass_memo_.node_changes == cluster.changes->total();
  if (!same) return false;
  if (pass_memo_.reserved)
    reservations_.push_back(Reservation{memo_.head, std::max(cluster.now, memo_.end), 0,
                                        static_cast<std::uint32_t>(head_nodes_.size()), head_gpus_per_node_});
  return true;
}

void EasyBackfill::easy(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  follow_log(cluster);
  // The profile follows the change log at every pass (a pass that plans reads it then);
  // without the log it is built afresh when a pass plans.
  if (cluster.changes != nullptr && cluster.gpu_room.empty()) {
    bool rebuilt = false;
    profile_.follow(cluster, rebuilt);
  }
  if (repeat_last_pass(cluster, out)) return;
  pass_memo_.valid = false;
  now_->reset(cluster);
  spare_taken_.resize(cluster.nodes.size());  // (reset by each fresh plan: the memo's spare GPUs)
  classified_starts_ = 0;
  const sim::SimTime now = cluster.now;
  const std::size_t started_from = out.placements.size();
  std::uint32_t last_visited = 0;
  bool stopped_at_depth = false;
  const QueuedJob* head = nullptr;
  std::size_t placed_before_head = 0;
  // The head's reservation is planned only when a job behind it could start now (it then
  // decides whether that job may): a pass in which none can, the common case on a full
  // cluster, decides the same without it and skips the plan, its costliest part.
  bool planned = false;
  bool reserved = false;
  int behind = 0;
  // Sizes (with eligible types) whose placement now was refused for the reservation: the
  // same request on the same capacity gets the same nodes, so it is not tried again until
  // a job starts (which changes the capacity).
  refused_.clear();
  int too_big = std::numeric_limits<int>::max();
  const std::uint64_t all_types =
      cluster.types.size() >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << cluster.types.size()) - 1;
  // Whether a class may fit now, asked before each job the scan visits: the answer is kept
  // per class until the capacity or too_big changes (a start, an undone start, a refusal).
  may_fit_.changed();
  const auto class_may_fit = [&](int gpus) {
    return may_fit_(gpus, [&](int g) { return g < too_big && now_->could_fit(g); });
  };
  waiting_.scan(class_may_fit,
                [&](std::uint32_t id, bool fits) {
                  const QueuedJob& q = waiting[id];
                  last_visited = id;
                  // A job the quotas hold back is passed over: it is no head and holds no reservation.
                  if (head == nullptr) {
                    if (fits && now_->try_place(q, out)) {
                      may_fit_.changed();
                      return Visit::Next;
                    }
                    if (held_by_quota(cluster, q)) return Visit::Next;
                    head = &q;
                    placed_before_head = out.placements.size();
                    return Visit::Next;
                  }
                  if (behind++ == params_.depth) {
                    stopped_at_depth = true;
                    return Visit::Stop;
                  }
                  const Brief& b = brief_[id];
                  if (!fits || b.gpus >= too_big || held_by_quota(cluster, q)) return Visit::Next;
                  if (!planned) {  // nothing was placed since the head: the plan is the same as then
                    planned = true;
                    reserved = cluster.running_jobs != nullptr && reserve_head(cluster, waiting, *head, started_from, out);
                  }
                  const bool short_enough = !reserved || span_end(now, b.length) <= reservations_.front().start;
                  const int request = b.gpus * 1024 + b.gpu_milli % 1000;  // a share is its own request
                  const auto refused = std::find_if(refused_.begin(), refused_.end(), [&](const auto& r) {
                    return r.first == request && r.second == b.eligible_types;
                  });
                  if (!short_enough && refused != refused_.end()) return Visit::Next;
                  if (!now_->try_place(q, out)) {
                    if ((q.eligible_types & all_types) == all_types && q.gpu_milli >= 1000 && q.gpus < too_big) {
                      too_big = q.gpus;
                      may_fit_.changed();
                    }
                    return Visit::Next;
                  }
                  may_fit_.changed();  // started (or undone below)
                  if (short_enough) {
                    refused_.clear();
                    return Visit::Next;
                  }
                  // A long job: on each of its nodes, the GPUs it takes must be left at the
                  // reservation's time beyond what the reservation takes there. A share
                  // counts as a whole GPU: it may keep any one GPU of its node from being
                  // free then, and with one spare the reservation still has what it planned.
                  const Placement& p = out.placements.back();
                  bool clear = true;
                  for (std::uint32_t k = p.first; k < p.first + p.count; ++k)
                    clear = clear && spare_at(cluster, out.nodes[k]) >= p.gpus_per_node;
                  if (!clear) {
                    undo_last(out);
                    refused_.emplace_back(request, q.eligible_types);
                    return Visit::Next;
                  }
                  for (std::uint32_t k = p.first; k < p.first + p.count; ++k) {
                    const std::uint32_t n = out.nodes[k];
                    if (spare_taken_[n] == 0) spare_touched_.push_back(n);
                    spare_taken_[n] += p.gpus_per_node;
                  }
                  refused_.clear();
                  return Visit::Next;
                });
  // The runs this pass starts: their nodes, and whether the plan's memo accounts for them
  // (placed behind its head, each ending before its reservation or, where allowed, after).
  const std::size_t placed = out.placements.size() - started_from;
  for (std::size_t i = started_from; i < out.placements.size(); ++i) {
    const Placement& p = out.placements[i];
    if (p.job >= node_count_.size()) node_count_.resize(std::max<std::size_t>(p.job + 1, 2 * node_count_.size()));
    node_count_[p.job] = p.count;
  }
  if (memo_.valid && placed > 0) {
    bool keep = memo_.follows && head != nullptr && head->job == memo_.head && placed_before_head == started_from;
    for (std::size_t i = started_from; keep && i < out.placements.size(); ++i) {
      const Placement& p = out.placements[i];
      const sim::SimTime end = span_end(now, brief_[p.job].length);  // as run_started files it
      if (end < memo_.end)
        ++memo_.before_fit;
      else
        keep = end > memo_.end && memo_.long_starts && p.gpu_milli >= 1000;
      memo_.node_changes += p.count;
    }
    if (keep)
      classified_starts_ = static_cast<std::uint32_t>(placed);
    else
      memo_.valid = false;
  }
  // The pass may be repeated (PassMemo) if it started nothing, stopped at `depth` (a later
  // arrival is not examined), and its reservation, if any, came from a memoized plan.
  const bool has_reservation = !reservations_.empty();
  if (stopped_at_depth && out.placements.size() == started_from && started_from == 0 && cluster.changes != nullptr &&
      cluster.admission == nullptr && (!has_reservation || (memo_.valid && memo_.fits && memo_.head == reservations_.front().job)))
    pass_memo_ = PassMemo{true, last_visited, cluster.changes->total(), has_reservation};
}

}  // namespace gcsim::models
