// Spot first, then fall back (see spot_fallback.hpp).
#include "models/scheduler/spot_fallback.hpp"

#include <algorithm>
#include <cstdio>

namespace gcsim::models {

namespace {
bool is_spot(const ClusterView& cluster, const TypeChoiceScheduler::Option& o) {
  return cluster.types[static_cast<std::size_t>(o.type)].market == Market::Spot;
}
}  // namespace

bool SpotFallbackScheduler::falls_back(const ClusterView& cluster, const QueuedJob& job) const {
  if (job.restarts >= after_) return true;
  if (job.deadline.is_max()) return false;
  options(cluster, job, spot_);  // scratch: nothing allocates once warm
  double fastest_spot_s = -1;
  for (const Option& o : spot_)
    if (is_spot(cluster, o) && (fastest_spot_s < 0 || o.time_s < fastest_spot_s)) fastest_spot_s = o.time_s;
  if (fastest_spot_s < 0) return false;
  return !(fastest_spot_s * (1 + margin_) <= (job.deadline - cluster.now).seconds());
}

void SpotFallbackScheduler::prefer(const ClusterView& cluster, const QueuedJob& job, std::vector<Option>& options) const {
  const bool any_spot = std::any_of(options.begin(), options.end(), [&](const Option& o) { return is_spot(cluster, o); });
  const bool any_other = std::any_of(options.begin(), options.end(), [&](const Option& o) { return !is_spot(cluster, o); });
  const bool on_spot = any_spot && (!any_other || !falls_back(cluster, job));
  options.erase(std::remove_if(options.begin(), options.end(), [&](const Option& o) { return is_spot(cluster, o) != on_spot; }),
                options.end());
  sort_options(options, [](const Option& o) { return std::pair{o.cost_usd, o.time_s}; });
}

std::string SpotFallbackScheduler::settings() const {
  char buf[96];
  std::snprintf(buf, sizeof buf, ", after: %d, margin: %g", after_, margin_);
  return OrderedScheduler::settings() + buf;
}

namespace {
const config::KeySpec SPOT_FALLBACK_KEYS[] = {
    PLACEMENT_KEY, BLOCKING_KEY,
    {.name = "after", .type = "integer",
     .help = "interruptions (runs ended before finishing) after which a job runs only on the other types",
     .kind = config::KeyKind::Integer, .min = 1, .max = 1'000'000, .has_default = true, .default_number = 2},
    {.name = "margin", .type = "number",
     .help = "a job leaves spot when its time alone there x (1 + margin) would pass its deadline",
     .kind = config::KeyKind::Number, .min = 0, .max = 1e6, .has_default = true, .default_number = 0},
};
}  // namespace

PolicyDef<SpotFallbackParams> spot_fallback_policy() {
  return ordered_policy_def<SpotFallbackScheduler, SpotFallbackParams>(
      "spot-fallback", "spot first; on-demand after N interruptions or when the deadline is at risk",
      SPOT_FALLBACK_KEYS, false, [](config::MapReader& map, const PolicyContext&, SpotFallbackParams& p) {
        p.after = static_cast<int>(map.value<std::int64_t>("after"));
        p.margin = map.value<double>("margin");
      });
}

}  // namespace gcsim::models
