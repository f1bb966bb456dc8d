// First in, first out, strictly: jobs start in submit order, and when the job at the head
// of the queue does not fit, nothing behind it may start (no backfilling). Where each job
// goes is its placement strategy's choice (placement.hpp; best-fit unless told otherwise).
//
// Keys (`scheduler:` with `policy: fifo`):
//   placement   name   default `best-fit`   the placement strategy (`best-fit`, `first-fit`)
#pragma once

#include <memory>
#include <string>

#include "models/scheduler/placement.hpp"
#include "models/scheduler/scheduler.hpp"
#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::models {

class FifoScheduler final : public Scheduler {
 public:
  FifoScheduler() : FifoScheduler(std::make_unique<BestFitPlacement>()) {}
  explicit FifoScheduler(std::unique_ptr<PlacementStrategy> placement) : placement_(std::move(placement)) {}
  void schedule(const ClusterView& cluster, std::span<const QueuedJob> queue, Decisions& out) override;

 private:
  std::unique_ptr<PlacementStrategy> placement_;
};

struct FifoParams {
  std::string placement = "best-fit";
};

// The registry entry: register_builtins.cpp adds it with add_policy(fifo_policy()).
PolicyDef<FifoParams> fifo_policy();

}  // namespace gcsim::models
