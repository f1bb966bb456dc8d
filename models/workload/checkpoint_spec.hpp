// A job's checkpoint plan (JobSpec::checkpoint, GeneratorSpec::checkpoint), read by the
// loader, timed on a storage tier (models/storage/checkpoint_io.hpp) and carried out by the
// cluster.
#pragma once

#include <string>

#include "sim/time.hpp"

namespace gcsim::models {

// When and how a job saves its state (docs/spot.md, "Checkpoints"). Every `every` of
// progress (or the Young/Daly optimum for the pool it runs on), the job writes a checkpoint
// taking `write_time`, pausing training unless `pause` is false; a restart restores the
// last committed one in `restore_time`. Times are given, or derived from `size_bytes` and a
// storage tier's bandwidth.
struct CheckpointSpec {
  bool optimal = false;
  sim::SimTime every;
  sim::SimTime write_time;
  sim::SimTime restore_time;
  double size_bytes = 0;   // 0 when the times are given
  std::string tier;        // storage tier written to; empty when the times are given
  bool pause = true;
};

}  // namespace gcsim::models
