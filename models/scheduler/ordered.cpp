// The ordering policies' shared pass and keys (see ordered.hpp).
#include "models/scheduler/ordered.hpp"

#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::models {

void OrderedScheduler::schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  pass(cluster, waiting, out, order_);
}

std::string OrderedScheduler::settings() const {
  std::string s = "placement: " + params_.placement + ", blocking: " +
                  (params_.blocking == Blocking::Strict ? "strict" : "skip");
  if (uses_lengths())
    s += params_.lengths == Lengths::True ? ", lengths: true" : ", lengths: estimate (true where a job has none)";
  return s;
}

const config::KeySpec PLACEMENT_KEY = {
    .name = "placement", .type = "name", .default_value = "`best-fit`",
    .help = "placement strategy: where each job goes (`gcsim policies` lists them)"};
const config::KeySpec BLOCKING_KEY = {
    .name = "blocking", .type = "`strict` | `skip`", .default_value = "`strict`",
    .help = "`strict`: the first job in order that does not fit holds the rest; `skip`: every job that fits starts, in order"};
const config::KeySpec LENGTHS_KEY = {
    .name = "lengths", .type = "`true` | `estimate`", .default_value = "`true`",
    .help = "rank jobs by their true length, or by the user's estimate where a job has one (`estimate` key)"};

OrderedParams read_ordered_params(config::MapReader& map, const SchedulerRegistry& registry, bool with_lengths) {
  OrderedParams p;
  if (const config::ConfigNode* n = map.optional("placement"))
    p.placement = config::read_enum(*n, registry.placements().names());
  if (const config::ConfigNode* n = map.optional("blocking"))
    p.blocking = config::read_enum(*n, {"strict", "skip"}) == "skip" ? Blocking::Skip : Blocking::Strict;
  if (with_lengths)
    if (const config::ConfigNode* n = map.optional("lengths"))
      p.lengths = config::read_enum(*n, {"true", "estimate"}) == "estimate" ? Lengths::Estimate : Lengths::True;
  return p;
}

}  // namespace gcsim::models
