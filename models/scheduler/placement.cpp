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
  const std::size_t types = cluster.types.size();
  free_.resize(cluster.nodes.size());
  type_of_.resize(cluster.nodes.size());
  whole_free_.assign(types, 0);
  max_free_.assign(types, 0);
  stale_.assign(types, 0);
  for (std::size_t i = 0; i < cluster.nodes.size(); ++i) {
    const NodeView& n = cluster.nodes[i];
    free_[i] = n.gpus_free;
    type_of_[i] = n.type;
    if (n.gpus_free == cluster.types[n.type].gpus_per_node) ++whole_free_[n.type];
    max_free_[n.type] = std::max(max_free_[n.type], n.gpus_free);
  }
}

void PlacementStrategy::take(std::uint32_t node, int gpus) {
  const std::uint16_t t = type_of_[node];
  if (free_[node] == cluster_->types[t].gpus_per_node) --whole_free_[t];
  if (free_[node] == max_free_[t]) stale_[t] = 1;
  free_[node] -= gpus;
}

void PlacementStrategy::recount(std::size_t t) const {
  const NodeTypeView& type = cluster_->types[t];
  int m = 0;
  for (std::uint32_t n = type.first_node; n < type.first_node + static_cast<std::uint32_t>(type.count); ++n)
    m = std::max(m, free_[n]);
  max_free_[t] = m;
  stale_[t] = 0;
}

bool PlacementStrategy::could_fit(int gpus) const {
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
  for (std::uint32_t n : place.nodes) {
    const std::uint16_t t = type_of_[n];
    free_[n] += place.gpus_per_node;
    if (free_[n] == cluster_->types[t].gpus_per_node) ++whole_free_[t];
    max_free_[t] = std::max(max_free_[t], free_[n]);
  }
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
      if (free_[n] == per) out.nodes.push_back(n);
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
      const int f = free_[n];
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
      if (free_[n] >= job.gpus) return NodeChoice{static_cast<int>(n), static_cast<int>(t)};
  }
  return {};
}

}  // namespace gcsim::models
