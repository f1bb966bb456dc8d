// Backfilling, EASY (see backfill.hpp and docs/scheduling.md, "Backfilling"); conservative is in
// backfill_conservative.cpp.
#include "models/scheduler/backfill.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/check.hpp"

namespace gcsim::models {

void BackfillScheduler::run_started(const QueuedJob& job, sim::SimTime now) {
  if (!kept_expected(job.job) || now.seconds() != kept_at_s_) kept_valid_ = false;  // conservative
  running_.insert(job.job, job.gpus,
                  params_.mode == BackfillMode::Conservative ? span_end_s(now.seconds(), length_s(job))
                                                             : now.seconds() + length_s(job));
  if (classified_starts_ > 0)
    --classified_starts_;  // one the last pass placed and the memo took into account
  else
    memo_.valid = false;
  pass_memo_.valid = false;
}

bool BackfillScheduler::first_to_end(std::uint32_t job) const {
  std::uint32_t first = 0;
  double first_s = 0;
  double second_s = std::numeric_limits<double>::infinity();
  int seen = 0;
  running_.scan([](int) { return true; }, [&](std::uint32_t id, bool, double end_s) {
    if (seen++ == 0) {
      first = id;
      first_s = end_s;
      return Visit::Next;
    }
    second_s = end_s;
    return Visit::Stop;
  });
  return seen > 0 && first == job && first_s < second_s;
}

void BackfillScheduler::run_ended(std::uint32_t job, sim::SimTime now) {
  if (memo_.valid) {
    if (memo_.follows && memo_.before_fit > 1 && job < node_count_.size() && first_to_end(job)) {
      --memo_.before_fit;
      memo_.node_changes += node_count_[job];
    } else {
      memo_.valid = false;
    }
  }
  if (!running_.contains(job) || running_.key(job) != now.seconds()) kept_valid_ = false;  // conservative: not at its expected end
  running_.erase(job);
  pass_memo_.valid = false;
}

void BackfillScheduler::schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  reservations_.clear();
  reservations_lazy_ = false;
  if (params_.mode == BackfillMode::Easy)
    easy(cluster, waiting, out);
  else
    conservative(cluster, waiting, out);
}

void BackfillScheduler::undo_last(Decisions& out) {
  const Placement p = out.placements.back();
  now_->give_back(RunningPlace{p.node_type, std::span<const std::uint32_t>(out.nodes).subspan(p.first, p.count),
                               p.gpus_per_node, false, p.gpu, p.gpu_milli, p.gpu_mask});
  out.nodes.resize(p.first);
  out.placements.pop_back();
}

bool BackfillScheduler::reserve_head(const ClusterView& cluster, const WaitingJobs& waiting, const QueuedJob& head,
                                     std::size_t started_from, const Decisions& out) {
  const double now_s = cluster.now.seconds();
  const bool memo_able = cluster.changes != nullptr && started_from == out.placements.size();
  const std::uint64_t node_changes = memo_able ? cluster.changes->total() : 0;
  if (memo_able && memo_.valid && memo_.head == head.job && memo_.gpus == head.gpus && memo_.gpu_milli == head.gpu_milli &&
      memo_.eligible_types == head.eligible_types && memo_.node_changes == node_changes) {
    if (check_reuse_) return check_reused_plan(cluster, waiting, head, started_from, out);
    if (!memo_.fits) return false;
    reservations_.push_back(Reservation{head.job, std::max(now_s, memo_.end_s)});
    return true;
  }
  memo_.valid = false;
  // A fresh plan: what long jobs took of its spare GPUs, and what the view changed since,
  // start again from none.
  for (const std::uint32_t n : spare_touched_) spare_taken_[n] = 0;
  spare_touched_.clear();
  for (const std::uint32_t n : drift_touched_) drift_[n] = 0;
  drift_touched_.clear();
  double fit_end_s = 0;
  std::uint32_t released = 0;   // releases so far
  std::uint32_t not_up = 0;     // runs passed over, on nodes not up
  // The plan starts from the pass's view (following the cluster's log, GPU by GPU where
  // jobs share GPUs), less what this pass placed from started_from on.
  plan_->reset(cluster);
  for (std::size_t i = started_from; i < out.placements.size(); ++i) plan_->take_placed(out.placements[i], out.nodes);
  // The runs this pass started end at now + length: merged, by end, with the running ones.
  started_.clear();
  for (std::size_t i = started_from; i < out.placements.size(); ++i) {
    const Placement& p = out.placements[i];
    started_.push_back(
        Hold{now_s, now_s + length_s(waiting[p.job]), p.first, p.count, p.gpus_per_node, p.gpu, p.gpu_milli, p.gpu_mask});
  }
  std::sort(started_.begin(), started_.end(), [](const Hold& a, const Hold& b) { return a.end_s < b.end_s; });
  std::size_t next_started = 0;
  double at_s = now_s;
  bool fits = false;
  // After the first release, the head is tried again only when a node this release gave
  // back now has room for it (free GPUs >= its GPUs, or the whole node for a job bigger
  // than a node) or it asks for a share: a whole-GPU job's place depends only on which
  // nodes have that room, so with the same such nodes as at the last try it fails again.
  // A view without a change log gets the plain plan, tried at every release (the tests'
  // reference).
  bool tried = false;
  const bool try_every_release = cluster.changes == nullptr;
  const auto release = [&](double end_s, const RunningPlace& place) {
    plan_->give_back(place);
    ++released;
    at_s = std::max(now_s, end_s);  // a run past its expected end may end any moment
    fit_end_s = end_s;
    bool may_fit = try_every_release || !tried || head.gpu_milli < 1000;
    for (std::size_t i = 0; !may_fit && i < place.nodes.size(); ++i) {
      const std::uint32_t n = place.nodes[i];
      may_fit = plan_->free_gpus(n) >= std::min(head.gpus, cluster.types[cluster.nodes[n].type].gpus_per_node);
    }
    if (!may_fit) return false;
    tried = true;
    fits = plan_->could_fit(head.gpus) && plan_->reserve(head);  // capacity only: the quotas admitted the head
    return fits;
  };
  const auto release_started_until = [&](double end_s) {
    for (; next_started < started_.size() && started_[next_started].end_s <= end_s; ++next_started) {
      const Hold& h = started_[next_started];
      if (release(h.end_s, RunningPlace{-1, std::span<const std::uint32_t>(out.nodes).subspan(h.first, h.count),
                                        h.gpus_per_node, false, h.gpu, h.gpu_milli, h.gpu_mask}))
        return true;
    }
    return false;
  };
  plan_out_.clear();
  running_.scan([](int) { return true; }, [&](std::uint32_t id, bool, double end_s) {
    if (release_started_until(end_s)) return Visit::Stop;
    const RunningPlace place = cluster.running_jobs->where(id);
    if (!on_up_nodes(cluster, place.nodes)) {
      ++not_up;
      return Visit::Next;
    }
    return release(end_s, place) ? Visit::Stop : Visit::Next;
  });
  if (!fits) release_started_until(std::numeric_limits<double>::infinity());
  if (memo_able) {
    bool whole_nodes = head.gpu_milli >= 1000;
    for (std::size_t t = 0; whole_nodes && t < cluster.types.size() && t < 64; ++t)
      whole_nodes = !(head.eligible_types >> t & 1) || head.gpus >= cluster.types[t].gpus_per_node;
    memo_ = PlanMemo{true,      head.job, head.gpus, head.gpu_milli, head.eligible_types, node_changes, fits, fit_end_s,
                     fits && not_up == 0, whole_nodes && plan_->chooses_least_candidate(), released};
  }
  if (!fits) return false;
  // plan_ now holds, per node, the whole GPUs free at the reservation beyond what the head
  // takes there, as a change to this view (spare_at reads it in later passes against their
  // views; only this function changes plan_).
  reservations_.push_back(Reservation{head.job, at_s});
  return true;
}

void BackfillScheduler::follow_log(const ClusterView& cluster) {
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

bool BackfillScheduler::check_reused_plan(const ClusterView& cluster, const WaitingJobs& waiting, const QueuedJob& head,
                                          std::size_t started_from, const Decisions& out) {
  const PlanMemo kept = memo_;
  check_spare_.clear();
  for (std::uint32_t n = 0; n < cluster.nodes.size(); ++n) check_spare_.push_back(kept.fits ? spare_at(cluster, n) : 0);
  memo_.valid = false;
  const bool fits = reserve_head(cluster, waiting, head, started_from, out);
  bool same = fits == kept.fits && (!fits || memo_.end_s == kept.end_s);
  for (std::uint32_t n = 0; same && fits && n < cluster.nodes.size(); ++n) same = check_spare_[n] == spare_at(cluster, n);
  GCSIM_CHECK(same, "backfill: the plan kept for job " + std::to_string(head.job) + " at " +
                        std::to_string(cluster.now.seconds()) + " s differs from a fresh one");
  return fits;
}

bool BackfillScheduler::repeat_last_pass(const ClusterView& cluster, const Decisions& out) {
  const bool same = pass_memo_.valid && cluster.admission == nullptr && cluster.changes != nullptr &&
                    out.placements.empty() && pass_memo_.node_changes == cluster.changes->total();
  if (!same) return false;
  if (pass_memo_.reserved) reservations_.push_back(Reservation{memo_.head, std::max(cluster.now.seconds(), memo_.end_s)});
  return true;
}

void BackfillScheduler::easy(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  follow_log(cluster);
  if (repeat_last_pass(cluster, out)) return;
  pass_memo_.valid = false;
  now_->reset(cluster);
  spare_taken_.resize(cluster.nodes.size());  // (reset by each fresh plan: the memo's spare GPUs)
  classified_starts_ = 0;
  const double now_s = cluster.now.seconds();
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
                  const bool short_enough = !reserved || now_s + b.length_s <= reservations_.front().start_s;
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
      const double end_s = now_s + brief_[p.job].length_s;  // as run_started files it
      if (end_s < memo_.end_s)
        ++memo_.before_fit;
      else
        keep = end_s > memo_.end_s && memo_.long_starts;
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

namespace {
const config::KeySpec MODE_KEY = {
    .name = "mode", .type = "`easy` | `conservative`", .default_value = "`easy`",
    .help = "`easy`: only the first waiting job that does not fit holds a reservation; `conservative`: every waiting "
            "job does"};
// The most jobs a conservative pass may examine. A pass that plans afresh (after a run
// ended off its expected end, as nearly every run does under `lengths: estimate`, or while
// one is past it, or after an interruption) searches a reservation for every job examined
// beside the holds of those before it: O(depth^2) per pass. Unbounded, 2,500 jobs under
// `lengths: estimate` took 57 s and 5,000 more than 120 s; at 500, 4.3 s and 10.5 s
// (docs/scheduling.md, "The bound: depth").
constexpr int MAX_CONSERVATIVE_DEPTH = 500;
const config::KeySpec DEPTH_KEY = {
    .name = "depth", .type = "integer", .range = "at most 500 with `mode: conservative`",
    .help = "waiting jobs a pass examines behind the first that does not fit (Slurm's `bf_max_job_test`)",
    .kind = config::KeyKind::Integer, .min = 1, .max = std::numeric_limits<int>::max(), .has_default = true,
    .default_number = 100};
const config::KeySpec BACKFILL_KEYS[] = {PLACEMENT_KEY, LENGTHS_KEY, MODE_KEY, DEPTH_KEY};
}  // namespace

PolicyDef<BackfillParams> backfill_policy() {
  return {
      .name = "backfill",
      .description = "submit order; later jobs start early only if they delay no reservation (EASY: the first "
                     "waiting job's; conservative: every waiting job's)",
      .keys = BACKFILL_KEYS,
      .parse = [](config::MapReader& map, const SchedulerRegistry& registry, const PolicyContext&) {
        BackfillParams p;
        const OrderedParams o = read_ordered_params(map, registry, true);
        p.placement = o.placement;
        p.lengths = o.lengths;
        if (const config::ConfigNode* n = map.optional("mode"))
          p.mode = config::read_enum(*n, {"easy", "conservative"}) == "conservative" ? BackfillMode::Conservative
                                                                                     : BackfillMode::Easy;
        p.depth = static_cast<int>(map.value<std::int64_t>("depth"));
        if (const config::ConfigNode* n = map.where("depth")) {
          if (p.mode == BackfillMode::Conservative && p.depth > MAX_CONSERVATIVE_DEPTH)
            n->fail(ErrorCode::OutOfRange,
                    "'" + std::to_string(p.depth) + "' is out of range: at most " +
                        std::to_string(MAX_CONSERVATIVE_DEPTH) +
                        " with mode: conservative (a pass that plans afresh searches a reservation for every job it "
                        "examines beside those before it, in time that grows with the square of depth)");
        }
        return p;
      },
      .make = [](const BackfillParams& p, const SchedulerRegistry& registry) -> std::unique_ptr<Scheduler> {
        return std::make_unique<BackfillScheduler>(registry.make_placement(p.placement),
                                                   registry.make_placement(p.placement), p);
      },
  };
}

}  // namespace gcsim::models
