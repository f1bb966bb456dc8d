// The cluster spec's own queries (see cluster_spec.hpp).
#include "models/config/cluster_spec.hpp"

#include <sstream>

#include "models/workload/memory_fit.hpp"

namespace gcsim::models {

double node_usd_per_hour(const NodeTypeSpec& type, double busy, sim::SimTime at) {
  switch (type.price.market) {
    case Market::Reserved: return type.price.reserved_effective_usd_per_hour();
    case Market::Owned: return ownership_usd_per_hour(*type.ownership, busy);
    case Market::Spot: return type.price.spot_profile.value_at(at);
    case Market::OnDemand: break;
  }
  return type.price.on_demand_usd_per_hour;
}

std::int64_t ClusterSpec::total_gpus() const {
  std::int64_t n = 0;
  for (const auto& t : node_types) n += std::int64_t{t.gpus} * t.count;
  return n;
}

std::int64_t ClusterSpec::total_nodes() const {
  std::int64_t n = 0;
  for (const auto& t : node_types) n += t.count;
  return n;
}

long nodes_needed(const NodeTypeSpec& type, int gpus) {
  return gpus <= type.gpus ? 1 : (static_cast<long>(gpus) + type.gpus - 1) / type.gpus;
}

Ineligible ineligibility(const NodeTypeSpec& nt, int gpus, const Precision* precision, const TrainingSpec* training) {
  if (precision && !nt.gpu.supports(*precision)) return Ineligible::Precision;
  if (training && !check_memory_fit(*training, nt.gpu).fits) return Ineligible::Memory;
  return nodes_needed(nt, gpus) <= nt.slots() ? Ineligible::None : Ineligible::Nodes;
}

std::uint64_t eligible_node_types(const ClusterSpec& cluster, int gpus, const Precision* precision,
                                  const TrainingSpec* training) {
  std::uint64_t mask = 0;
  for (std::size_t t = 0; t < cluster.node_types.size() && t < 64; ++t) {
    if (ineligibility(cluster.node_types[t], gpus, precision, training) == Ineligible::None)
      mask |= std::uint64_t{1} << t;
  }
  return mask;
}

std::string infeasible_message(const ClusterSpec& cluster, int gpus, const Precision* precision) {
  std::ostringstream msg;
  msg << "no node type can ever hold a job of " << gpus << " GPU" << (gpus == 1 ? "" : "s");
  if (precision) msg << " in " << precision_name(*precision);
  msg << " (a job takes GPUs on one node, or whole nodes of one type); the cluster has:";
  for (const auto& t : cluster.node_types) {
    msg << " " << t.slots() << " x " << t.name << " (" << t.gpus << " x " << t.gpu.name;
    if (precision && !t.gpu.supports(*precision)) msg << ", no " << precision_name(*precision);
    msg << ")";
  }
  return msg.str();
}

std::string memory_fit_hint(const ClusterSpec& cluster, const TrainingSpec& training) {
  const GpuSpec* best = nullptr;
  for (const auto& nt : cluster.node_types)
    if (nt.gpu.supports(training.precision) && (!best || nt.gpu.memory_bytes > best->memory_bytes)) best = &nt.gpu;
  if (!best) return "";
  const MemoryFit fit = check_memory_fit(training, *best);
  return fit.fits ? "" : " On " + best->name + ": " + fit.message;
}

}  // namespace gcsim::models
