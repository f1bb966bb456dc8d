// The cluster spec's own queries (see cluster_spec.hpp).
#include "models/config/cluster_spec.hpp"

#include "models/workload/memory_fit.hpp"

namespace gcsim::models {

int ClusterSpec::total_gpus() const {
  int n = 0;
  for (const auto& t : node_types) n += t.gpus * t.count;
  return n;
}

int ClusterSpec::total_nodes() const {
  int n = 0;
  for (const auto& t : node_types) n += t.count;
  return n;
}

std::uint64_t eligible_node_types(const ClusterSpec& cluster, int gpus, const Precision* precision,
                                  const TrainingSpec* training) {
  std::uint64_t mask = 0;
  for (std::size_t t = 0; t < cluster.node_types.size() && t < 64; ++t) {
    const auto& nt = cluster.node_types[t];
    if (precision && !nt.gpu.supports(*precision)) continue;
    if (training && !check_memory_fit(*training, nt.gpu).fits) continue;
    const long nodes = gpus <= nt.gpus ? 1 : (gpus + nt.gpus - 1) / nt.gpus;
    if (nodes <= nt.count) mask |= std::uint64_t{1} << t;
  }
  return mask;
}

}  // namespace gcsim::models
