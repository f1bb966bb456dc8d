// Cheapest pool that meets the deadline (see cost_aware.hpp).
#include "models/scheduler/cost_aware.hpp"

#include <algorithm>

namespace gcsim::models {

void CostAwareScheduler::prefer(const ClusterView& cluster, const QueuedJob& job, std::vector<Option>& options) const {
  const auto by_time = [](const Option& o) { return o.time_s; };
  const auto by_cost = [](const Option& o) { return std::pair{o.cost_usd, o.time_s}; };
  if (job.deadline.is_max()) {
    sort_options(options, by_cost);
    return;
  }
  const double left_s = (job.deadline - cluster.now).seconds();
  const auto late = [&](const Option& o) { return !(o.time_s <= left_s); };
  if (std::all_of(options.begin(), options.end(), late)) {
    sort_options(options, by_time);  // none in time: the least late first
    return;
  }
  options.erase(std::remove_if(options.begin(), options.end(), late), options.end());
  sort_options(options, by_cost);
}

namespace {
const config::KeySpec COST_AWARE_KEYS[] = {PLACEMENT_KEY, BLOCKING_KEY};
}  // namespace

PolicyDef<CostAwareParams> cost_aware_policy() {
  return ordered_policy_def<CostAwareScheduler, CostAwareParams>(
      "cost-aware", "each job on the cheapest node type (price now) that still meets its deadline", COST_AWARE_KEYS,
      false);
}

}  // namespace gcsim::models
