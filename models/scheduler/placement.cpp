// Placement shared by the policies (see placement.hpp).
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

int node_type_on_idle_cluster(std::span<const NodeTypeView> types, const QueuedJob& job) {
  std::vector<NodeView> nodes;
  for (std::size_t t = 0; t < types.size(); ++t)
    nodes.insert(nodes.end(), static_cast<std::size_t>(types[t].count),
                 NodeView{static_cast<std::uint16_t>(t), types[t].gpus_per_node});
  const ClusterView idle{sim::SimTime::zero(), types, nodes};
  PlacementPlanner planner;
  planner.reset(idle);
  Decisions d;
  return planner.try_place(job, 0, d) ? d.placements.front().node_type : -1;
}

void PlacementPlanner::reset(const ClusterView& cluster) {
  cluster_ = &cluster;
  free_.resize(cluster.nodes.size());
  for (std::size_t i = 0; i < cluster.nodes.size(); ++i) free_[i] = cluster.nodes[i].gpus_free;
}

bool PlacementPlanner::try_place(const QueuedJob& job, std::uint32_t queue_index, Decisions& out) {
  const auto& types = cluster_->types;
  // One node: best fit over every eligible type whose nodes are big enough.
  int best_node = -1;
  int best_free = 0;
  int best_type = -1;
  for (std::size_t t = 0; t < types.size(); ++t) {
    if (!(job.eligible_types >> t & 1) || job.gpus > types[t].gpus_per_node) continue;
    const std::uint32_t end = types[t].first_node + static_cast<std::uint32_t>(types[t].count);
    for (std::uint32_t n = types[t].first_node; n < end; ++n) {
      const int f = free_[n];
      if (f >= job.gpus && (best_node < 0 || f < best_free)) {
        best_node = static_cast<int>(n);
        best_free = f;
        best_type = static_cast<int>(t);
        if (f == job.gpus) break;  // cannot fit tighter within this type
      }
    }
  }
  if (best_node >= 0) {
    free_[best_node] -= job.gpus;
    out.placements.push_back(Placement{queue_index, static_cast<std::uint32_t>(out.nodes.size()), 1, job.gpus, best_type});
    out.nodes.push_back(static_cast<std::uint32_t>(best_node));
    return true;
  }
  // Whole nodes of one type, in type order, lowest-index free nodes first.
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
      for (std::uint32_t i = first; i < out.nodes.size(); ++i) free_[out.nodes[i]] = 0;
      out.placements.push_back(Placement{queue_index, first, static_cast<std::uint32_t>(needed), per, static_cast<int>(t)});
      return true;
    }
    out.nodes.resize(first);
  }
  return false;
}

}  // namespace gcsim::models
