// First in, first out: jobs are ordered by submit time (ties by their place in the
// workload). With `blocking: strict` (the default) the head job waits for room and nothing
// overtakes it (no backfilling); with `blocking: skip` every job that fits starts, in
// order. Where each job goes is its placement strategy's choice (placement.hpp).
//
// Keys (`scheduler:` with `policy: fifo`):
//   placement   name                default `best-fit`   the placement strategy
//   blocking    `strict` | `skip`   default `strict`     ordered.hpp
#pragma once

#include <memory>

#include "models/scheduler/ordered.hpp"
#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::models {

class FifoScheduler final : public OrderedScheduler {
 public:
  FifoScheduler() : FifoScheduler(std::make_unique<BestFitPlacement>(), OrderedParams{}) {}
  explicit FifoScheduler(std::unique_ptr<PlacementStrategy> placement)
      : FifoScheduler(std::move(placement), OrderedParams{}) {}
  FifoScheduler(std::unique_ptr<PlacementStrategy> placement, const OrderedParams& params)
      : OrderedScheduler(std::move(placement), params) {}

 protected:
  double order_key(const QueuedJob&) const override { return 0; }  // job id order is submit order
  bool uses_lengths() const override { return false; }
};

struct FifoParams : OrderedParams {};

// The registry entry: register_builtins.cpp adds it with add_policy(fifo_policy()).
PolicyDef<FifoParams> fifo_policy();

}  // namespace gcsim::models
