// Spot first, on-demand when spot has failed the job: each job, first in, first out, runs
// only on spot node types (cheapest first, at the spot price now) until it has been
// interrupted `after` times (QueuedJob::restarts: runs ended before finishing) or its
// deadline is at risk (job key `deadline`: it would not finish by then if it started now on
// the fastest spot type, running alone, with `margin` of that time to spare); from then on
// it runs only on the other types (on-demand, reserved, owned: cheapest first). A job with
// no eligible spot type uses the others from the start, one with no other type stays on
// spot. It takes the first type with room now, else waits: a job that has not fallen back
// waits for spot capacity even when on-demand nodes are free (that is the point of the
// policy; `cost-aware` is the one that weighs them). Blocking as fifo's. This is the
// managed-spot pattern of SkyPilot and of AWS' capacity-rebalancing fallbacks.
//
// Keys (`scheduler:` with `policy: spot-fallback`): placement, blocking (ordered.hpp), and
//   after    integer >= 1   default 2   interruptions after which a job leaves spot
//   margin   fraction >= 0  default 0   spare time, as a fraction of its spot time, the deadline test asks for
#pragma once

#include "models/scheduler/scheduler_registry.hpp"
#include "models/scheduler/type_choice.hpp"

namespace gcsim::models {

struct SpotFallbackParams : OrderedParams {
  int after = 2;
  double margin = 0;
};

class SpotFallbackScheduler final : public TypeChoiceScheduler {
 public:
  SpotFallbackScheduler(std::unique_ptr<PlacementStrategy> placement, const SpotFallbackParams& params)
      : TypeChoiceScheduler(std::move(placement), params), after_(params.after), margin_(params.margin) {}
  std::string settings() const override;
  // Whether `job` has left spot for good (tests).
  bool falls_back(const ClusterView& cluster, const QueuedJob& job) const;

 protected:
  void prefer(const ClusterView& cluster, const QueuedJob& job, std::vector<Option>& options) const override;

 private:
  int after_;
  double margin_;
  mutable std::vector<Option> spot_;  // scratch of falls_back()
};

PolicyDef<SpotFallbackParams> spot_fallback_policy();

}  // namespace gcsim::models
