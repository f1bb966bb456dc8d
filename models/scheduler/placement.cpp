// Placement strategies (see placement.hpp).
#include "models/scheduler/placement.hpp"

#include "models/config/scenario.hpp"

namespace gcsim::models {

std::vector<NodeTypeView> node_type_views(const ClusterSpec& cluster) {
  std::vector<NodeTypeView> types;
  std::uint32_t first = 0;
  for (const NodeTypeSpec& nt : cluster.node_types) {
    types.push_back(NodeTypeView{nt.gpus, nt.count, first, nt.price.on_demand_usd_per_hour / nt.gpus});
    first += static_cast<std::uint32_t>(nt.count);
  }
  return types;
}

int node_type_on_idle_cluster(std::span<const NodeTypeView> types, const QueuedJob& job, Scheduler& policy) {
  std::vector<NodeView> nodes;
  for (std::size_t t = 0; t < types.size(); ++t)
    nodes.insert(nodes.end(), static_cast<std::size_t>(types[t].count),
                 NodeView{static_cast<std::uint16_t>(t), types[t].gpus_per_node});
  const ClusterView idle{sim::SimTime::zero(), types, nodes};
  WaitingJobs waiting;
  waiting.add(job);
  policy.job_waiting(job);
  Decisions d;
  policy.schedule(idle, waiting, d);
  policy.job_left(job.job);
  return d.placements.empty() ? -1 : d.placements.front().node_type;
}

void PlacementStrategy::reset(const ClusterView& cluster) {
  cluster_ = &cluster;
  for (std::uint32_t n : touched_) delta_[n] = 0;
  touched_.clear();
  if (delta_.size() != cluster.nodes.size()) delta_.assign(cluster.nodes.size(), 0);
  counted_ = false;
}

void PlacementStrategy::change(std::uint32_t node, int gpus) {
  if (delta_[node] == 0) touched_.push_back(node);  // may list a node twice: reset zeroes it twice
  const int before = free(node);
  delta_[node] += gpus;
  if (!counted_) return;
  const std::uint16_t t = cluster_->nodes[node].type;
  const int per = cluster_->types[t].gpus_per_node, after = before + gpus;
  whole_free_[t] += (after == per) - (before == per);
  if (after > max_free_[t]) max_free_[t] = after;
  else if (before == max_free_[t] && after < before) stale_[t] = 1;
}

void PlacementStrategy::take(std::uint32_t node, int gpus) { change(node, -gpus); }

void PlacementStrategy::count() const {
  const std::size_t types = cluster_->types.size();
  whole_free_.assign(types, 0);
  max_free_.assign(types, 0);
  stale_.assign(types, 0);
  for (std::uint32_t n = 0; n < cluster_->nodes.size(); ++n) {
    const std::uint16_t t = cluster_->nodes[n].type;
    const int f = free(n);
    if (f == cluster_->types[t].gpus_per_node) ++whole_free_[t];
    max_free_[t] = std::max(max_free_[t], f);
  }
  counted_ = true;
}

void PlacementStrategy::recount(std::size_t t) const {
  const NodeTypeView& type = cluster_->types[t];
  int m = 0;
  for (std::uint32_t n = type.first_node; n < type.first_node + static_cast<std::uint32_t>(type.count); ++n)
    m = std::max(m, free(n));
  max_free_[t] = m;
  stale_[t] = 0;
}

bool PlacementStrategy::could_fit(int gpus) const {
  if (!counted_) count();
  for (std::size_t t = 0; t < cluster_->types.size(); ++t) {
    const int per = cluster_->types[t].gpus_per_node;
    if (gpus > per) {
      if (static_cast<long long>(whole_free_[t]) * per >= gpus) return true;
      continue;
    }
    if (stale_[t]) recount(t);
    if (max_free_[t] >= gpus) return true;
  }
  return false;
}

bool PlacementStrategy::try_place(const QueuedJob& job, Decisions& out) {
  const NodeChoice c = choose_node(job);
  if (c.node < 0) return place_whole_nodes(job, out);
  take(static_cast<std::uint32_t>(c.node), job.gpus);
  out.placements.push_back(Placement{job.job, static_cast<std::uint32_t>(out.nodes.size()), 1, job.gpus, c.type});
  out.nodes.push_back(static_cast<std::uint32_t>(c.node));
  return true;
}

bool PlacementStrategy::reserve(const QueuedJob& job) {
  scratch_.clear();
  return try_place(job, scratch_);
}

void PlacementStrategy::give_back(const RunningPlace& place) {
  for (std::uint32_t n : place.nodes) change(n, place.gpus_per_node);
}

// Whole nodes of one type, in type order, lowest-index free nodes first.
bool PlacementStrategy::place_whole_nodes(const QueuedJob& job, Decisions& out) {
  const auto& types = cluster_->types;
  for (std::size_t t = 0; t < types.size(); ++t) {
    const int per = types[t].gpus_per_node;
    if (!(job.eligible_types >> t & 1) || job.gpus <= per) continue;
    const int needed = (job.gpus + per - 1) / per;
    if (needed > types[t].count) continue;
    const std::uint32_t first = static_cast<std::uint32_t>(out.nodes.size());
    const std::uint32_t end = types[t].first_node + static_cast<std::uint32_t>(types[t].count);
    for (std::uint32_t n = types[t].first_node; n < end && static_cast<int>(out.nodes.size() - first) < needed; ++n)
      if (free(n) == per) out.nodes.push_back(n);
    if (static_cast<int>(out.nodes.size() - first) == needed) {
      for (std::uint32_t i = first; i < out.nodes.size(); ++i) take(out.nodes[i], per);
      out.placements.push_back(Placement{job.job, first, static_cast<std::uint32_t>(needed), per, static_cast<int>(t)});
      return true;
    }
    out.nodes.resize(first);
  }
  return false;
}

// Over every eligible type whose nodes are big enough, in type then node order.
PlacementStrategy::NodeChoice BestFitPlacement::choose_node(const QueuedJob& job) const {
  const auto& types = cluster_->types;
  NodeChoice best;
  int best_free = 0;
  for (std::size_t t = 0; t < types.size(); ++t) {
    if (!(job.eligible_types >> t & 1) || job.gpus > types[t].gpus_per_node) continue;
    const std::uint32_t end = types[t].first_node + static_cast<std::uint32_t>(types[t].count);
    for (std::uint32_t n = types[t].first_node; n < end; ++n) {
      const int f = free(n);
      if (f >= job.gpus && (best.node < 0 || f < best_free)) {
        best = NodeChoice{static_cast<int>(n), static_cast<int>(t)};
        best_free = f;
        if (f == job.gpus) break;  // cannot fit tighter within this type
      }
    }
  }
  return best;
}

PlacementStrategy::NodeChoice FirstFitPlacement::choose_node(const QueuedJob& job) const {
  const auto& types = cluster_->types;
  for (std::size_t t = 0; t < types.size(); ++t) {
    if (!(job.eligible_types >> t & 1) || job.gpus > types[t].gpus_per_node) continue;
    const std::uint32_t end = types[t].first_node + static_cast<std::uint32_t>(types[t].count);
    for (std::uint32_t n = types[t].first_node; n < end; ++n)
      if (free(n) >= job.gpus) return NodeChoice{static_cast<int>(n), static_cast<int>(t)};
  }
  return {};
}

}  // namespace gcsim::models
