// Checkpoint write and restore times on a storage tier, for one writer alone on it
// (docs/spot.md, "Checkpoints"): a checkpoint is a few large files, so bandwidth, not IOPS,
// bounds it.
//   write   = size / min(write bandwidth, per-stream bandwidth)
//   restore = retrieval delay + size / read throughput of one stream of files of the size
#pragma once

#include <algorithm>

#include "models/storage/storage_spec.hpp"
#include "models/workload/checkpoint_spec.hpp"

namespace gcsim::models {

inline CheckpointSpec checkpoint_times_from_tier(CheckpointSpec c, const StorageTierSpec& tier) {
  double write_bps = tier.write_bytes_per_s > 0 ? tier.write_bytes_per_s : tier.read_bytes_per_s;
  if (tier.stream_bytes_per_s > 0) write_bps = std::min(write_bps, tier.stream_bytes_per_s);
  c.write_time = sim::SimTime::from_seconds(c.size_bytes / write_bps);
  c.restore_time = sim::SimTime::from_seconds(tier.retrieval_delay_s +
                                              c.size_bytes / read_throughput_bytes_per_s(tier, c.size_bytes));
  return c;
}

}  // namespace gcsim::models
