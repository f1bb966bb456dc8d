// Hardware context of a model-described job (see job_speed.hpp).
#include "models/coupling/job_speed.hpp"

#include <algorithm>

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

}  // namespace gcsim::models
