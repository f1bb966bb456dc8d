// Hardware context of a model-described job (see job_speed.hpp).
#include "models/coupling/job_speed.hpp"

#include <algorithm>

#include "models/config/scenario.hpp"
#include "models/storage/storage_datasets.hpp"

namespace gcsim::models {

HardwareContext hardware_context(const NodeTypeSpec& type, int job_gpus, const TrainingSpec& job,
                                 const std::optional<StorageSpec>& storage) {
  const auto& in = type.internals;
  HardwareContext hw = hardware_for(type.gpu, job_gpus, type.gpus, type.cpu_cores, in.nic_count * in.nic_bytes_per_s);
  hw.pcie_gen = in.pcie_gen;
  switch (in.nvlink) {
    case topology::NvlinkMode::None: hw.intra_node_bytes_per_s = topology::pcie_bytes_per_s(in.pcie_gen, in.pcie_lanes); break;
    case topology::NvlinkMode::PointToPoint:
      hw.intra_node_bytes_per_s = in.nvlink_links * topology::nvlink_link_bytes_per_s(in.nvlink_gen);
      break;
    case topology::NvlinkMode::NvSwitch:
    case topology::NvlinkMode::Auto: break;  // hardware_for: the GPU's NVLink bandwidth
  }
  if (storage && job.dataset && !job.dataset->tier.empty()) {
    if (const StorageTierSpec* tier = storage->find(job.dataset->tier)) {
      const double file = job.dataset->file_bytes > 0 ? job.dataset->file_bytes : job.figures().input_bytes;
      const double one = read_throughput_bytes_per_s(*tier, file, READERS_PER_GPU * hw.gpus_per_node());
      hw.storage_read_bytes_per_s = tier->per_node() ? one * hw.nodes : one;
    }
  }
  return hw;
}

std::optional<StagedInput> staged_input(const TrainingSpec& job, const std::optional<StorageSpec>& storage, int nodes,
                                        int gpus_per_node) {
  if (!storage || !job.dataset || job.dataset->access != DataAccess::Stage || nodes < 1) return std::nullopt;
  const StorageTierSpec* source = storage->find(job.dataset->tier);
  const auto local = std::find_if(storage->tiers.begin(), storage->tiers.end(),
                                  [](const StorageTierSpec& t) { return t.kind == TierKind::LocalNvme; });
  if (source == nullptr || !shared_tier(source->kind) || local == storage->tiers.end()) return std::nullopt;
  const double bytes = dataset_bytes_of(job);
  if (local->capacity_bytes > 0 && bytes > local->capacity_bytes) return std::nullopt;  // too big: streamed, as in a run
  const double file = file_bytes_of(job);
  const double device = tier_bandwidth_bytes_per_s(*source, file);  // the source device's, as the coupling shares it
  const double n = nodes;
  const double cap = n * std::min(read_throughput_bytes_per_s(*source, file, READERS_PER_GPU * gpus_per_node),
                                  local->write_bytes_per_s);
  StagedInput in;
  in.copy_s = source->retrieval_delay_s + n * bytes / std::min(device, cap);
  in.read_bytes_per_s = n * read_throughput_bytes_per_s(*local, file, READERS_PER_GPU * gpus_per_node);
  return in;
}

std::vector<std::string> unlimited_host_cpu_notes(const Scenario& s) {
  std::vector<std::string> notes;
  for (std::size_t t = 0; t < s.cluster.node_types.size(); ++t) {
    const NodeTypeSpec& type = s.cluster.node_types[t];
    if (type.cpu_cores > 0) continue;
    for (const JobSpec& job : s.workload.jobs) {
      if (!job.training || !(job.training->figures().cpu_decode_core_s > 0)) continue;
      const std::uint64_t eligible =
          eligible_node_types(s.cluster, job.gpus, &job.training->precision, &*job.training) & job.node_type_mask;
      if (!(eligible >> t & 1)) continue;
      notes.push_back("node type '" + type.name + "' gives no cpu_cores" +
                      (type.instance.empty() ? std::string() : " and its catalog row (" + type.instance + ") no vCPUs") +
                      ": its model jobs' input decoding is not limited by the host CPU (job '" + job.name +
                      "' may look faster there than it would run; write cpu_cores: N, docs/step-time.md)");
      break;
    }
  }
  return notes;
}

}  // namespace gcsim::models
