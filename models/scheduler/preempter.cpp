// Preemption to make room for a waiting job (see preempter.hpp).
#include "models/scheduler/preempter.hpp"

#include <algorithm>

namespace gcsim::models {

void Preempter::ended(std::uint32_t job) {
  if (order_.contains(job)) order_.erase(job);
  if (is_preempted(job)) {
    is_preempted_[job] = 0;
    preempted_.erase(std::find(preempted_.begin(), preempted_.end(), job));
  }
}

}  // namespace gcsim::models
