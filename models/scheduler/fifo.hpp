// First in, first out, strictly: jobs start in submit order, and when the job at the head
// of the queue does not fit, nothing behind it may start (no backfilling).
#pragma once

#include "models/scheduler/placement.hpp"
#include "models/scheduler/scheduler.hpp"

namespace gcsim::models {

class FifoScheduler final : public Scheduler {
 public:
  void schedule(const ClusterView& cluster, std::span<const QueuedJob> queue, Decisions& out) override;

 private:
  PlacementPlanner planner_;
};

}  // namespace gcsim::models
