// The checkpoint state machine of running jobs (docs/spot.md, "Checkpoints"): periodic
// writes every CheckpointSpec::every of progress (or the Young/Daly interval for the pool
// a job runs on), their commits, and the last checkpoint a job writes before a stop it
// knows of (a market's notice, a budget stop, a preemption). It has its own events; a
// write that pauses the job holds its progress through the Cluster, and a commit is
// announced by Cluster::checkpoint_written. Which work survives a stop is decided here
// too: a checkpoint on the node's own NVMe does not outlive the run.
#pragma once

#include <cstdint>

#include "models/config/scenario.hpp"
#include "models/workload/job.hpp"
#include "sim/engine.hpp"

namespace gcsim::models {

class Cluster;

class CheckpointController {
 public:
  CheckpointController(sim::Engine& engine, const Scenario& scenario, Cluster& cluster);

  // A run of a checkpointing job began: resolve its interval and schedule the first write.
  void on_run_started(Job& j);
  // Writes a checkpoint of the work done now, taking `write`, and stops progress; at stop_at
  // the run ends. The write must fit before stop_at. A preemption's save (`is_save`) is a
  // pause of that length with no tier traffic, whose work survives the stop whatever the
  // job's checkpoints (none, or on the node's NVMe).
  void begin_last(Job& j, sim::SimTime stop_at, sim::SimTime write, bool is_save);
  // The write in progress now ends at done_at (>= now): its commit, and a paused job's
  // progress, move with it.
  void move_write(Job& j, sim::SimTime done_at);
  // The run ends now (accrued): a last checkpoint that completes at this instant commits,
  // and overheads counted whole when they began count only the part spent. Returns the
  // work that survives the stop (what a restart resumes from).
  double on_run_stopped(Job& j);

 private:
  void on_checkpoint(std::uint64_t arg);
  void on_checkpoint_done(std::uint64_t arg);
  void on_last_checkpoint_done(std::uint64_t arg);
  void commit_last(Job& j);

  sim::Engine& engine_;
  const Scenario& scenario_;
  Cluster& cluster_;
};

}  // namespace gcsim::models
