// Checkpoint write and restore times on a storage tier, for one writer alone on it
// (docs/spot.md, "Checkpoints"): a checkpoint is a few large files, so bandwidth, not IOPS,
// bounds it.
//   write   = size / min(write bandwidth, per-stream bandwidth)
//   restore = retrieval delay + size / read throughput of one stream of files of the size
// The same read prices a service replica's cold start (image pull, model load).
#pragma once

#include <algorithm>

#include "models/storage/storage_spec.hpp"
#include "models/workload/checkpoint_spec.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

// Reading `bytes` (one file) from a tier, one reader alone on it: retrieval delay + bytes /
// read throughput of one stream of files of that size. A checkpoint's restore, and a
// service replica's image pull and model load (docs/serving.md, "Cold start").
inline sim::SimTime read_once_time(const StorageTierSpec& tier, double bytes) {
  return sim::SimTime::from_seconds(tier.retrieval_delay_s + bytes / read_throughput_bytes_per_s(tier, bytes));
}

inline CheckpointSpec checkpoint_times_from_tier(CheckpointSpec c, const StorageTierSpec& tier) {
  double write_bps = tier.write_bytes_per_s > 0 ? tier.write_bytes_per_s : tier.read_bytes_per_s;
  if (tier.stream_bytes_per_s > 0) write_bps = std::min(write_bps, tier.stream_bytes_per_s);
  c.write_time = sim::SimTime::from_seconds(c.size_bytes / write_bps);
  c.restore_time = read_once_time(tier, c.size_bytes);
  return c;
}

}  // namespace gcsim::models
