// Heterogeneity-aware placement in the spirit of Gavel (Narayanan et al., OSDI 2020): each
// job goes to the node type where it does best, by `objective`:
//   throughput   the least time alone there (the most throughput per GPU);
//   cost         the least cost there: time x GPUs x the price per GPU-hour now (the most
//                throughput per dollar).
// A job tries its eligible types in that order (ties: type order) and takes the first with
// room now; it waits only when none has room. Jobs go first in, first out, blocking as
// fifo's. gcsim knows every job's speed on every type from its step-time model (or peak x
// efficiency), so no profiled throughput matrix is needed; Gavel's optimisation over
// allocations (max-min fairness of normalised throughput, time-sliced rounds) is not
// modelled: this is its greedy per-job core.
//
// Keys (`scheduler:` with `policy: hetero`): placement, blocking (ordered.hpp), and
//   objective   `throughput` | `cost`   default `throughput`
#pragma once

#include "models/scheduler/scheduler_registry.hpp"
#include "models/scheduler/type_choice.hpp"

namespace gcsim::models {

struct HeteroParams : OrderedParams {
  bool by_cost = false;
};

class HeteroScheduler final : public TypeChoiceScheduler {
 public:
  HeteroScheduler(std::unique_ptr<PlacementStrategy> placement, const HeteroParams& params)
      : TypeChoiceScheduler(std::move(placement), params), by_cost_(params.by_cost) {}
  std::string settings() const override {
    return OrderedScheduler::settings() + (by_cost_ ? ", objective: cost" : ", objective: throughput");
  }

 protected:
  void prefer(const ClusterView& cluster, const QueuedJob& job, std::vector<Option>& options) const override;

 private:
  bool by_cost_;
};

PolicyDef<HeteroParams> hetero_policy();

}  // namespace gcsim::models
