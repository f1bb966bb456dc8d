// Heterogeneity-aware type choice (see hetero.hpp).
#include "models/scheduler/hetero.hpp"

namespace gcsim::models {

void HeteroScheduler::prefer(const ClusterView&, const QueuedJob&, std::vector<Option>& options) const {
  if (by_cost_) sort_options(options, [](const Option& o) { return o.cost_usd; });
  else sort_options(options, [](const Option& o) { return o.time_s; });
}

namespace {
const config::KeySpec HETERO_KEYS[] = {
    PLACEMENT_KEY, BLOCKING_KEY,
    {.name = "objective", .type = "`throughput` | `cost`", .default_value = "`throughput`",
     .help = "each job on the type where it runs fastest alone, or where its run costs least at today's prices"},
};
}  // namespace

PolicyDef<HeteroParams> hetero_policy() {
  return ordered_policy_def<HeteroScheduler, HeteroParams>(
      "hetero", "heterogeneity-aware (Gavel-style): each job on the node type with the best throughput per GPU or per dollar",
      HETERO_KEYS, false, [](config::MapReader& map, const PolicyContext&, HeteroParams& p) {
        if (const config::ConfigNode* n = map.optional("objective"))
          p.by_cost = config::read_enum(*n, {"throughput", "cost"}) == "cost";
      });
}

}  // namespace gcsim::models
