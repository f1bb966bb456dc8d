// Conservative backfilling (Mu'alem and Feitelson 2001): every waiting job examined holds a
// reservation on a profile of free GPUs per node over time (see backfill.hpp and
// docs/scheduling.md, "mode: conservative"). EASY is in backfill.cpp.
#include "models/scheduler/backfill.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/check.hpp"

namespace gcsim::models {

namespace {
// Whether every node of a running job is up: a job on a noticed or down node gives no
// placeable GPUs back when it ends.
bool on_up_nodes(const ClusterView& cluster, std::span<const std::uint32_t> nodes) {
  return std::all_of(nodes.begin(), nodes.end(),
                     [&](std::uint32_t n) { return cluster.nodes[n].status == NodeStatus::Up; });
}
}  // namespace

void BackfillScheduler::start_plan(const ClusterView& cluster, const Decisions& out, std::size_t from) {
  plan_nodes_.assign(cluster.nodes.begin(), cluster.nodes.end());
  for (NodeView& n : plan_nodes_)
    if (n.status != NodeStatus::Up) n.gpus_free = 0;
  for (std::size_t i = from; i < out.placements.size(); ++i) {
    const Placement& p = out.placements[i];
    for (std::uint32_t k = p.first; k < p.first + p.count; ++k) plan_nodes_[out.nodes[k]].gpus_free -= p.gpus_per_node;
  }
  plan_view_ = ClusterView{cluster.now, cluster.types, plan_nodes_};
  plan_view_.node_group = cluster.node_group;  // so a topology plan reserves what the pass would place
}

namespace {
// Whether a hold overlaps a job that would run over [t, t + length): half-open spans, and a
// hold starting at t always does (a run of length 0 still holds its GPUs when it starts).
bool overlaps(double start_s, double end_s, double t, double length) {
  return start_s == t || (start_s < t + length && end_s > t);
}
}  // namespace

void BackfillScheduler::add_capacity(const ClusterView& cluster, std::uint32_t node, int gpus) {
  const std::uint16_t t = cluster.nodes[node].type;
  cap_[node] += gpus;
  if (cap_[node] == cluster.types[t].gpus_per_node) ++cap_whole_[t];
  cap_max_[t] = std::max(cap_max_[t], cap_[node]);
}

bool BackfillScheduler::capacity_may_fit(const ClusterView& cluster, const QueuedJob& q) const {
  for (std::size_t t = 0; t < cluster.types.size(); ++t) {
    if (!(q.eligible_types >> t & 1)) continue;
    const int per = cluster.types[t].gpus_per_node;
    if (q.gpus <= per ? cap_max_[t] >= q.gpus : static_cast<long long>(cap_whole_[t]) * per >= q.gpus) return true;
  }
  return false;
}

bool BackfillScheduler::try_at(double t, double length, const QueuedJob& q, long long cap_total) {
  long long held = 0;
  for (const Hold& h : holds_)
    if (overlaps(h.start_s, h.end_s, t, length)) held += static_cast<long long>(h.count) * h.gpus_per_node;
  if (cap_total - held < q.gpus) return false;
  for (std::size_t n = 0; n < plan_nodes_.size(); ++n) plan_nodes_[n].gpus_free = cap_[n];
  for (const Hold& h : holds_)
    if (overlaps(h.start_s, h.end_s, t, length))
      for (std::uint32_t k = h.first; k < h.first + h.count; ++k) {
        int& f = plan_nodes_[plan_hold_nodes_[k]].gpus_free;
        f = std::max(0, f - h.gpus_per_node);
      }
  plan_->reset(plan_view_);
  plan_out_.clear();
  return plan_->could_fit(q.gpus) && plan_->try_place(q, plan_out_);
}

void BackfillScheduler::conservative(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  constexpr double NEVER = std::numeric_limits<double>::infinity();
  const double now_s = cluster.now.seconds();
  start_plan(cluster, out, out.placements.size());
  base_free_.resize(plan_nodes_.size());
  long long base_total = 0;
  for (std::size_t n = 0; n < plan_nodes_.size(); ++n) {
    base_free_[n] = plan_nodes_[n].gpus_free;
    base_total += base_free_[n];
  }
  long long free_now = base_total;
  // Jobs that share GPUs start on the GPU now_ picks on the planned node: the plan counts
  // whole GPUs, now_ follows every GPU.
  if (!cluster.gpu_room.empty()) now_->reset(cluster);
  // The running jobs' releases, by expected end. A run at or past it may end any moment, but
  // has not yet: its GPUs are released just after now, so nothing starts on them now (a run
  // that paused for checkpoints outlasts its length).
  // A shared GPU is released whole when the last of its jobs is expected to end.
  releases_.clear();
  holds_nodes_.clear();
  shared_.clear();
  if (cluster.running_jobs != nullptr)
    running_.scan([](int) { return true; }, [&](std::uint32_t id, bool) {
      const RunningPlace place = cluster.running_jobs->where(id);
      if (!on_up_nodes(cluster, place.nodes)) return Visit::Next;
      const double end_s = std::max(std::nextafter(now_s, NEVER), running_.key(id));
      if (place.gpu >= 0) {
        const std::pair<std::uint32_t, int> gpu{place.nodes[0], place.gpu};
        const auto it = std::find_if(shared_.begin(), shared_.end(), [&](const auto& s) { return s.first == gpu; });
        if (it == shared_.end()) shared_.emplace_back(gpu, end_s);
        else it->second = std::max(it->second, end_s);
        return Visit::Next;
      }
      releases_.push_back(Hold{0, end_s, static_cast<std::uint32_t>(holds_nodes_.size()),
                               static_cast<std::uint32_t>(place.nodes.size()), place.gpus_per_node});
      holds_nodes_.insert(holds_nodes_.end(), place.nodes.begin(), place.nodes.end());
      return Visit::Next;
    });
  if (!shared_.empty()) {
    for (const auto& [gpu, end_s] : shared_) {
      releases_.push_back(Hold{0, end_s, static_cast<std::uint32_t>(holds_nodes_.size()), 1, 1});
      holds_nodes_.push_back(gpu.first);
    }
    std::stable_sort(releases_.begin(), releases_.end(), [](const Hold& a, const Hold& b) { return a.end_s < b.end_s; });
  }
  holds_.clear();
  plan_hold_nodes_.clear();
  hold_ends_.clear();
  bool blocked = false;
  int behind = 0;
  waiting_.scan([](int) { return true; }, [&](std::uint32_t id, bool) {
    // Nothing more can start now: later reservations would change nothing in this pass.
    if (free_now == 0 || (blocked && behind++ == params_.depth)) return Visit::Stop;
    const QueuedJob& q = waiting[id];
    if (held_by_quota(cluster, q)) return Visit::Next;  // no start and no reservation while the quotas hold it
    const double length = length_s(q);
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
    long long cap_total = base_total;
    std::size_t next_release = 0;
    std::size_t next_hold = 0;
    for (double t = now_s; t != NEVER;) {
      for (; next_release < releases_.size() && releases_[next_release].end_s <= t; ++next_release) {
        const Hold& r = releases_[next_release];
        for (std::uint32_t k = r.first; k < r.first + r.count; ++k) add_capacity(cluster, holds_nodes_[k], r.gpus_per_node);
        cap_total += static_cast<long long>(r.count) * r.gpus_per_node;
      }
      while (next_hold < hold_ends_.size() && hold_ends_[next_hold] <= t) ++next_hold;
      if (capacity_may_fit(cluster, q) && try_at(t, length, q, cap_total)) {
        const Placement& p = plan_out_.placements.back();
        holds_.push_back(Hold{t, t + length, static_cast<std::uint32_t>(plan_hold_nodes_.size()), p.count, p.gpus_per_node});
        plan_hold_nodes_.insert(plan_hold_nodes_.end(), plan_out_.nodes.begin(), plan_out_.nodes.end());
        hold_ends_.insert(std::upper_bound(hold_ends_.begin(), hold_ends_.end(), t + length), t + length);
        if (t == now_s) {
          if (q.gpu_milli < 1000) {
            // The plan counted a whole GPU of its node for it; it takes its share there.
            const bool placed = now_->place_share_on(q, plan_out_.nodes[p.first], out);
            GCSIM_CHECK(placed, "conservative backfill: no room for a share on node " +
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
        return Visit::Next;
      }
      t = std::min(next_release < releases_.size() ? releases_[next_release].end_s : NEVER,
                   next_hold < hold_ends_.size() ? hold_ends_[next_hold] : NEVER);
    }
    blocked = true;  // it fits nowhere even once every run and reservation has ended
    return Visit::Next;
  });
}

}  // namespace gcsim::models
