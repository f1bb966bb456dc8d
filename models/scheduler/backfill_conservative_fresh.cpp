// Conservative backfilling planned afresh every pass (backfill_conservative.hpp): the
// reference the pass that keeps its reservations must match, and the planner for views
// without the change log, for jobs that share GPUs, and with use_caches(false).
#include <algorithm>
#include <limits>
#include <string>

#include "models/scheduler/backfill_conservative.hpp"
#include "sim/check.hpp"

namespace gcsim::models {

namespace {
// Whether a hold overlaps a job that would run over [t, t_end): half-open spans, and a
// hold starting at t always does (a run of length 0 still holds its GPUs when it starts).
bool overlaps(sim::SimTime start, sim::SimTime end, sim::SimTime t, sim::SimTime t_end) {
  return start == t || (start < t_end && end > t);
}
}  // namespace

void ConservativeBackfill::start_fresh_view(const ClusterView& cluster) {
  fresh_nodes_.assign(cluster.nodes.begin(), cluster.nodes.end());
  for (NodeView& n : fresh_nodes_)
    if (n.status != NodeStatus::Up) n.gpus_free = 0;
  fresh_view_ = ClusterView{cluster.now, cluster.types, fresh_nodes_};
  fresh_view_.node_group = cluster.node_group;  // so a topology plan reserves what the pass would place
}

void ConservativeBackfill::add_capacity(const ClusterView& cluster, std::uint32_t node, int gpus) {
  const std::uint16_t t = cluster.nodes[node].type;
  cap_[node] += gpus;
  if (cap_[node] == cluster.types[t].gpus_per_node) ++cap_whole_[t];
  cap_max_[t] = std::max(cap_max_[t], cap_[node]);
}

bool ConservativeBackfill::capacity_may_fit(const ClusterView& cluster, const QueuedJob& q) const {
  for (std::size_t t = 0; t < cluster.types.size(); ++t) {
    if (!(q.eligible_types >> t & 1)) continue;
    const int per = cluster.types[t].gpus_per_node;
    if (q.gpus <= per ? cap_max_[t] >= q.gpus : static_cast<long long>(cap_whole_[t]) * per >= q.gpus) return true;
  }
  return false;
}

bool ConservativeBackfill::try_at(sim::SimTime t, sim::SimTime length, const QueuedJob& q) {
  const sim::SimTime t_end = span_end(t, length);
  for (std::size_t n = 0; n < fresh_nodes_.size(); ++n) fresh_nodes_[n].gpus_free = cap_[n];
  for (const Hold& h : fresh_holds_)
    if (overlaps(h.start, h.end, t, t_end))
      for (std::uint32_t k = h.first; k < h.first + h.count; ++k) {
        int& f = fresh_nodes_[fresh_hold_nodes_[k]].gpus_free;
        f = std::max(0, f - h.gpus_per_node);
      }
  plan_->reset(fresh_view_);
  plan_out_.clear();
  return plan_->could_fit(q.gpus) && plan_->try_place(q, plan_out_);
}

void ConservativeBackfill::fresh(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  const sim::SimTime NEVER = sim::SimTime::max();
  const sim::SimTime now = cluster.now;
  start_fresh_view(cluster);
  base_free_.resize(fresh_nodes_.size());
  long long free_now = 0;
  for (std::size_t n = 0; n < fresh_nodes_.size(); ++n) {
    base_free_[n] = fresh_nodes_[n].gpus_free;
    free_now += base_free_[n];
  }
  // Jobs that share GPUs start on the GPU now_ picks on the planned node: the plan counts
  // whole GPUs, now_ follows every GPU.
  if (!cluster.gpu_room.empty()) now_->reset(cluster);
  // The running jobs' releases, by expected end. A run at or past it may end any moment, but
  // has not yet: its GPUs are released just after now (the next nanosecond), so nothing
  // starts on them now (a run that paused for checkpoints outlasts its length).
  // A shared GPU is released whole when the last of its jobs is expected to end.
  const sim::SimTime just_after_now = now + sim::SimTime::from_ns(1);
  fresh_releases_.clear();
  fresh_release_nodes_.clear();
  shared_.clear();
  if (cluster.running_jobs != nullptr)
    running_.scan([&](std::uint32_t id, sim::SimTime expected_end) {
      const RunningPlace place = cluster.running_jobs->where(id);
      if (!ReleaseSchedule::on_up_nodes(cluster, place.nodes)) return Visit::Next;
      const sim::SimTime end = std::max(just_after_now, expected_end);
      if (place.gpu >= 0) {
        const std::pair<std::uint32_t, int> gpu{place.nodes[0], place.gpu};
        const auto it = std::find_if(shared_.begin(), shared_.end(), [&](const auto& s) { return s.first == gpu; });
        if (it == shared_.end()) shared_.emplace_back(gpu, end);
        else it->second = std::max(it->second, end);
        return Visit::Next;
      }
      fresh_releases_.push_back(Hold{sim::SimTime::zero(), end, static_cast<std::uint32_t>(fresh_release_nodes_.size()),
                                     static_cast<std::uint32_t>(place.nodes.size()), place.gpus_per_node});
      fresh_release_nodes_.insert(fresh_release_nodes_.end(), place.nodes.begin(), place.nodes.end());
      return Visit::Next;
    });
  if (!shared_.empty()) {
    for (const auto& [gpu, end] : shared_) {
      fresh_releases_.push_back(
          Hold{sim::SimTime::zero(), end, static_cast<std::uint32_t>(fresh_release_nodes_.size()), 1, 1});
      fresh_release_nodes_.push_back(gpu.first);
    }
    std::stable_sort(fresh_releases_.begin(), fresh_releases_.end(),
                     [](const Hold& a, const Hold& b) { return a.end < b.end; });
  }
  fresh_holds_.clear();
  fresh_hold_nodes_.clear();
  hold_ends_.clear();
  bool blocked = false;
  int behind = 0;
  for (std::uint32_t id = waiting_ids_.next(0); id != IdSet::NONE; id = waiting_ids_.next(id + 1)) {
    // Nothing more can start now: later reservations would change nothing in this pass.
    if (free_now == 0 || (blocked && behind++ == params_.depth)) break;
    const QueuedJob& q = waiting[id];
    if (held_by_quota(cluster, q)) continue;  // no start and no reservation while the quotas hold it
    const sim::SimTime length = length_of(q);
    // Candidate starts, in time order: now, then every time a run or a reservation ends;
    // the capacity only grows from one to the next (holds aside, checked in try_at).
    cap_ = base_free_;
    cap_whole_.assign(cluster.types.size(), 0);
    cap_max_.assign(cluster.types.size(), 0);
    for (std::size_t n = 0; n < cap_.size(); ++n) {
      const std::uint16_t ty = cluster.nodes[n].type;
      if (cap_[n] == cluster.types[ty].gpus_per_node) ++cap_whole_[ty];
      cap_max_[ty] = std::max(cap_max_[ty], cap_[n]);
    }
    std::size_t next_release = 0;
    std::size_t next_hold = 0;
    bool placed = false;  // started or reserved
    for (sim::SimTime t = now; t != NEVER;) {
      for (; next_release < fresh_releases_.size() && fresh_releases_[next_release].end <= t; ++next_release) {
        const Hold& r = fresh_releases_[next_release];
        for (std::uint32_t k = r.first; k < r.first + r.count; ++k)
          add_capacity(cluster, fresh_release_nodes_[k], r.gpus_per_node);
      }
      while (next_hold < hold_ends_.size() && hold_ends_[next_hold] <= t) ++next_hold;
      if (capacity_may_fit(cluster, q) && try_at(t, length, q)) {
        const Placement& p = plan_out_.placements.back();
        const sim::SimTime end = span_end(t, length);
        fresh_holds_.push_back(Hold{t, end, static_cast<std::uint32_t>(fresh_hold_nodes_.size()), p.count, p.gpus_per_node});
        fresh_hold_nodes_.insert(fresh_hold_nodes_.end(), plan_out_.nodes.begin(), plan_out_.nodes.end());
        hold_ends_.insert(std::upper_bound(hold_ends_.begin(), hold_ends_.end(), end), end);
        if (t == now) {
          if (q.gpu_milli < 1000) {
            // The plan counted a whole GPU of its node for it; it takes its share there.
            const bool on_node = now_->place_share_on(q, plan_out_.nodes[p.first], out);
            GCSIM_CHECK(on_node, "conservative backfill: no room for a share on node " +
                                     std::to_string(plan_out_.nodes[p.first]) + ", where the plan has a free GPU");
          } else {
            out.placements.push_back(Placement{q.job, static_cast<std::uint32_t>(out.nodes.size()), p.count,
                                               p.gpus_per_node, p.node_type, -1, 1000, 0});
            out.nodes.insert(out.nodes.end(), plan_out_.nodes.begin(), plan_out_.nodes.end());
            if (!cluster.gpu_room.empty()) now_->take_placed(out.placements.back(), out.nodes);
          }
          free_now -= static_cast<long long>(p.count) * p.gpus_per_node;
        } else {
          reservations_.push_back(Reservation{q.job, t});
          blocked = true;
        }
        placed = true;
        break;
      }
      t = std::min(next_release < fresh_releases_.size() ? fresh_releases_[next_release].end : NEVER,
                   next_hold < hold_ends_.size() ? hold_ends_[next_hold] : NEVER);
    }
    if (!placed) blocked = true;  // it fits nowhere even once every run and reservation has ended
  }
}

}  // namespace gcsim::models
