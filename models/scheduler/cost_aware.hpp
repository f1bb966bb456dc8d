// The cheapest pool that still meets the job's deadline. For each job, first in, first
// out: of its eligible node types, those where it would finish by its deadline (job key
// `deadline`) if it started now, running alone, cheapest first (cost = time x GPUs x the
// type's price per GPU-hour now; ties: the faster, then type order); it takes the first
// with room now, else waits. A job no type can get done in time goes to the fastest type
// with room (least late); a job without a deadline simply to the cheapest with room.
// Blocking as fifo's. Prices now include spot price profiles and reserved effective
// prices, so a job moves to spot when spot is cheap and fast enough.
//
// Keys (`scheduler:` with `policy: cost-aware`): placement, blocking (ordered.hpp).
#pragma once

#include "models/scheduler/scheduler_registry.hpp"
#include "models/scheduler/type_choice.hpp"

namespace gcsim::models {

struct CostAwareParams : OrderedParams {};

class CostAwareScheduler final : public TypeChoiceScheduler {
 public:
  using TypeChoiceScheduler::TypeChoiceScheduler;

 protected:
  void prefer(const ClusterView& cluster, const QueuedJob& job, std::vector<Option>& options) const override;
};

PolicyDef<CostAwareParams> cost_aware_policy();

}  // namespace gcsim::models
