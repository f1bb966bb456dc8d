// Preemption to make room for a waiting job (see preempter.hpp).
#include "models/scheduler/preempter.hpp"

#include <algorithm>
#include <string>

#include "sim/check.hpp"

namespace gcsim::models {

namespace {
// Drops the entries of jobs that ended (job `none`) from `entries`, where each job's
// entries are contiguous and stay in order, and tells set_first(job, index) where each
// job's entries now start.
template <class Entry, class SetFirst>
void compact_by_job(std::vector<Entry>& entries, std::uint32_t none, SetFirst&& set_first) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry e = entries[i];
    if (e.job == none) continue;
    if (kept == 0 || entries[kept - 1].job != e.job) set_first(e.job, kept);
    entries[kept++] = e;
  }
  entries.resize(kept);
}
}  // namespace

void Preempter::ended(std::uint32_t job) {
  unfile(job);
  if (order_.contains(job)) order_.erase(job);
  if (!is_preempted(job)) return;
  is_preempted_[job] = 0;
  const Span s = held_of_[job];
  for (std::uint32_t i = s.first; i < s.first + s.count; ++i) {
    Held& h = held_[i];
    add_stopping_room(h, -1);
    stopping_gpus_[h.node] -= h.gpus;
    dirty_.push_back(h.node);
    h.job = NONE;
  }
  dead_ += s.count;
  if (dead_ >= 1024 && 2 * dead_ > held_.size()) compact();
}

void Preempter::stopping(const ClusterView& cluster, std::uint32_t job, const RunningPlace& place) {
  if (job >= is_preempted_.size()) is_preempted_.resize(std::max<std::size_t>(job + 1, is_preempted_.size() * 2), 0);
  if (job >= held_of_.size()) held_of_.resize(std::max<std::size_t>(job + 1, held_of_.size() * 2));
  is_preempted_[job] = 1;
  held_of_[job] = Span{static_cast<std::uint32_t>(held_.size()), static_cast<std::uint32_t>(place.nodes.size()),
                       order_.key(job)};
  unfile(job);
  order_.erase(job);
  // A share frees no whole GPU (others may hold the rest of it); following GPUs, its
  // thousandths come back on its GPU.
  const bool share = place.gpu >= 0;
  const std::uint64_t mask = share ? std::uint64_t{1} << place.gpu : place.gpu_mask;
  for (std::uint32_t n : place.nodes) {
    held_.push_back(Held{job, n, share ? 0 : place.gpus_per_node, mask, share ? place.gpu_milli : 1000,
                         gpu_index(cluster, n, 0)});
    add_stopping_room(held_.back(), +1);
    stopping_gpus_[n] += held_.back().gpus;
    dirty_.push_back(n);
  }
}

void Preempter::file_unfiled(const ClusterView& cluster) {
  if (on_node_.size() < cluster.nodes.size()) on_node_.resize(cluster.nodes.size());
  for (std::uint32_t job : unfiled_) {
    if (!order_.contains(job) || (job < job_span_.size() && job_span_[job].count > 0)) continue;
    if (job >= job_span_.size()) job_span_.resize(std::max<std::size_t>(job + 1, job_span_.size() * 2));
    const RunningPlace place = cluster.running_jobs->where(job);
    job_span_[job] = NodeSpan{static_cast<std::uint32_t>(job_nodes_.size()), static_cast<std::uint32_t>(place.nodes.size())};
    const double key = order_.key(job);
    for (std::uint32_t n : place.nodes) {
      job_nodes_.push_back(JobNode{job, n});
      on_node_[n].push_back(OnNode{job, key});
      refile_node(n);
    }
  }
  unfiled_.clear();
}

void Preempter::unfile(std::uint32_t job) {
  if (job >= job_span_.size() || job_span_[job].count == 0) return;
  const NodeSpan span = job_span_[job];
  for (std::uint32_t i = span.first; i < span.first + span.count; ++i) {
    const std::uint32_t n = job_nodes_[i].node;
    std::vector<OnNode>& on = on_node_[n];
    for (std::size_t k = 0; k < on.size(); ++k)
      if (on[k].job == job) {
        on[k] = on.back();
        on.pop_back();
        break;
      }
    refile_node(n);
    job_nodes_[i].job = NONE;
  }
  job_span_[job].count = 0;
  dead_nodes_ += span.count;
  if (dead_nodes_ >= 1024 && 2 * dead_nodes_ > job_nodes_.size()) {
    compact_by_job(job_nodes_, NONE, [&](std::uint32_t j, std::size_t first) { job_span_[j].first = static_cast<std::uint32_t>(first); });
    dead_nodes_ = 0;
  }
}

void Preempter::rekeyed(std::uint32_t job) {
  if (job >= job_span_.size() || job_span_[job].count == 0) return;
  const NodeSpan span = job_span_[job];
  const double key = order_.key(job);
  for (std::uint32_t i = span.first; i < span.first + span.count; ++i) {
    const std::uint32_t n = job_nodes_[i].node;
    for (OnNode& e : on_node_[n])
      if (e.job == job) e.key = key;
    refile_node(n);
  }
}

// The job of on_node_[n] last in the order (the largest key, ties by the larger id).
std::uint32_t Preempter::last_on_node(std::uint32_t n) const {
  const std::vector<OnNode>& on = on_node_[n];
  std::size_t last = 0;
  for (std::size_t k = 1; k < on.size(); ++k)
    if (on[last].key < on[k].key || (!(on[k].key < on[last].key) && on[last].job < on[k].job)) last = k;
  return on[last].job;
}

void Preempter::refile_node(std::uint32_t n) {
  const bool filed = node_order_.contains(n);
  if (on_node_[n].empty()) {
    if (filed) node_order_.erase(n);
    return;
  }
  double key = on_node_[n].front().key;
  for (const OnNode& e : on_node_[n]) key = std::max(key, e.key);
  if (!filed) {
    node_order_.insert(n, 1, key);
  } else if (node_order_.key(n) != key) {
    node_order_.rekey(n, key);
  }
}

void Preempter::keep_needed(const ClusterView& cluster, const PlacementStrategy& placement, const QueuedJob& w) {
  const Placement& p = placement.reserved();
  const std::span<const std::uint32_t> w_nodes = placement.reserved_nodes();
  if (need_.size() < cluster.nodes.size()) need_.assign(cluster.nodes.size(), 0);
  // need_[n], on W's nodes: what victims must still free there, in GPUs (thousandths of
  // W's GPU for a share; following GPUs, a whole job needs every victim on its GPUs).
  const bool share = p.gpu >= 0;
  const std::uint64_t w_mask = share ? std::uint64_t{1} << p.gpu : p.gpu_mask;
  const bool by_mask = gpus_ && !share;
  // What the victims give back on n (on W's GPU for a share, in thousandths).
  auto given = [&](const RunningPlace& place) {
    if (share && place.gpu >= 0) return place.gpu == p.gpu ? place.gpu_milli : 0;
    if (share) return (place.gpu_mask >> p.gpu & 1) != 0 ? 1000 : 0;
    return place.gpus_per_node;
  };
  if (!by_mask) {
    // Free after the reservation = free before + given back - taken, so what the victims
    // must give = given back - free after.
    for (std::uint32_t n : w_nodes)
      need_[n] = share ? -placement.gpu_room_of(n, p.gpu) : -placement.free_gpus(n);
    for (std::uint32_t id : victims_) {
      const RunningPlace place = cluster.running_jobs->where(id);
      for (std::uint32_t n : place.nodes)
        if (std::find(w_nodes.begin(), w_nodes.end(), n) != w_nodes.end()) need_[n] += given(place);
    }
  }
  std::size_t kept = 0;
  unneeded_.clear();
  for (std::uint32_t id : victims_) {
    const RunningPlace place = cluster.running_jobs->where(id);
    bool needed = false;
    for (std::uint32_t n : place.nodes) {
      if (std::find(w_nodes.begin(), w_nodes.end(), n) == w_nodes.end()) continue;
      if (by_mask) {
        const std::uint64_t mask = place.gpu >= 0 ? std::uint64_t{1} << place.gpu : place.gpu_mask;
        needed = needed || (mask & w_mask) != 0;
      } else if (need_[n] > 0 && given(place) > 0) {
        needed = true;
      }
    }
    if (!needed) {
      unneeded_.push_back(id);
      continue;
    }
    if (!by_mask)
      for (std::uint32_t n : place.nodes)
        if (std::find(w_nodes.begin(), w_nodes.end(), n) != w_nodes.end()) need_[n] -= given(place);
    victims_[kept++] = id;
  }
  victims_.resize(kept);
  for (std::uint32_t n : w_nodes) need_[n] = 0;
  GCSIM_CHECK(!victims_.empty(), "preempter: room made for job " + std::to_string(w.job) + " needs no victim");
}

void Preempter::add_stopping_room(const Held& h, int sign) {
  if (!gpus_) return;
  GCSIM_CHECK(h.mask != 0, "preempter: a stopping job's GPUs are not known");
  for (int local = 0; local < 64; ++local)
    if (h.mask >> local & 1) stopping_room_[h.first_gpu + static_cast<std::uint32_t>(local)] += sign * h.milli;
}

void Preempter::compact() {
  compact_by_job(held_, NONE, [&](std::uint32_t j, std::size_t first) { held_of_[j].first = static_cast<std::uint32_t>(first); });
  dead_ = 0;
}

void Preempter::refresh(const ClusterView& cluster, std::uint32_t n) {
  NodeView v = cluster.nodes[n];
  bool rooms_changed = false;
  if (gpus_) {
    // Free GPUs are those with all their thousandths unheld or stopping (on an up node).
    const int per = cluster.types[v.type].gpus_per_node;
    v.gpus_free = 0;
    for (int local = 0; local < per; ++local) {
      const std::uint32_t g = gpu_index(cluster, n, local);
      const int room = v.status == NodeStatus::Up ? cluster.gpu_room[g] + stopping_room_[g] : 0;
      GCSIM_CHECK(room >= 0 && room <= 1000, "preempter: GPU " + std::to_string(g) + " would have " +
                                                 std::to_string(room) + " thousandths unheld");
      if (rooms_[g] != room) {
        rooms_[g] = static_cast<std::uint16_t>(room);
        rooms_changed = true;
      }
      v.gpus_free += room == 1000;
    }
  } else {
    v.gpus_free += stopping_gpus_[n];
  }
  NodeView& mine = nodes_[n];
  if (!rooms_changed && v.gpus_free == mine.gpus_free && v.status == mine.status && v.type == mine.type) return;
  mine = v;
  changes_.nodes.push_back(n);
}

PlacementStrategy& Preempter::plan(const ClusterView& cluster, const Decisions& out) {
  const std::size_t count = cluster.nodes.size();
  const bool gpus = !cluster.gpu_room.empty();
  if (stopping_gpus_.size() != count || gpus != gpus_ || (gpus && rooms_.size() != cluster.gpu_room.size())) {
    // First use (nothing is stopping here yet: victims are recorded after a plan).
    GCSIM_CHECK(held_.size() == dead_, "preempter: the cluster's nodes changed while jobs it preempted stop");
    stopping_gpus_.assign(count, 0);
    gpus_ = gpus;
    stopping_room_.assign(gpus ? cluster.gpu_room.size() : 0, 0);
    rooms_.assign(gpus ? cluster.gpu_room.size() : 0, 0);
    nodes_.clear();  // copied afresh below
  }
  if (nodes_.size() != count || cluster.nodes.data() != cluster_nodes_) {
    nodes_.resize(count);
    for (std::uint32_t n = 0; n < count; ++n) {
      nodes_[n] = NodeView{cluster.nodes[n].type, -1, cluster.nodes[n].status};  // -1: refreshed below
      refresh(cluster, n);
    }
  } else {
    const NodeChanges* log = cluster.changes;
    // The cluster's log since the last plan, when it still has it all; else every node.
    if (log != nullptr && log == log_ && log->dropped <= seen_ && seen_ <= log->total()) {
      for (std::size_t i = static_cast<std::size_t>(seen_ - log->dropped); i < log->nodes.size(); ++i)
        refresh(cluster, log->nodes[i]);
    } else {
      for (std::uint32_t n = 0; n < count; ++n) refresh(cluster, n);
    }
    for (std::uint32_t n : dirty_) refresh(cluster, n);
  }
  dirty_.clear();
  cluster_nodes_ = cluster.nodes.data();
  log_ = cluster.changes;
  seen_ = log_ != nullptr ? log_->total() : 0;
  view_ = cluster;
  view_.nodes = nodes_;
  view_.changes = &changes_;
  if (gpus_) view_.gpu_room = rooms_;
  room_.reset(view_);
  // room_ has read the log: drop it, counted as dropped, so that it follows it next time.
  changes_.dropped += changes_.nodes.size();
  changes_.nodes.clear();
  for (const Placement& p : out.placements) room_.take_placed(p, out.nodes);
  return room_;
}

}  // namespace gcsim::models
