// Where a starting job's speed comes from. Duration and FLOP jobs have a speed the cluster
// knows (a second per second; GPUs x peak FLOP/s x efficiency); a model-described job's
// speed is the step-time model's estimate on its placement, and the one object that keeps
// that estimate (models/coupling/model_speeds.hpp) answers for it, so the speed is
// estimated in one place.
#pragma once

#include "models/workload/job.hpp"

namespace gcsim::models {

// A model-described job's speed on a placement, with the step-time figures behind it.
struct ModelSpeed {
  double samples_per_s = 0;
  double step_s = 0;
  int bottleneck = -1;  // models::Bottleneck
};

class RateProvider {
 public:
  virtual ~RateProvider() = default;
  // The speed model-described job `j` (Job::training) starts at on its placement (node_type,
  // nodes_of and GPUs already recorded on the job).
  virtual ModelSpeed start_speed(const Job& j) = 0;
  // The samples per second model-described job `j` would reach on nodes of `node_type`
  // alone (an idle cluster: no contention); what its true length is ranked by.
  virtual double alone_samples_per_s(const Job& j, int node_type) = 0;
};

}  // namespace gcsim::models
