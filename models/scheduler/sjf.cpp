// Shortest job first (see sjf.hpp).
#include "models/scheduler/sjf.hpp"

namespace gcsim::models {

namespace {
const config::KeySpec SJF_KEYS[] = {PLACEMENT_KEY, BLOCKING_KEY, LENGTHS_KEY};
}  // namespace

PolicyDef<SjfParams> sjf_policy() {
  return {
      .name = "sjf",
      .description = "shortest job first, without preemption (true lengths or the users' estimates)",
      .keys = SJF_KEYS,
      .parse = [](config::MapReader& map, const SchedulerRegistry& registry) {
        return SjfParams{read_ordered_params(map, registry, true)};
      },
      .make = [](const SjfParams& p, const SchedulerRegistry& registry) -> std::unique_ptr<Scheduler> {
        return std::make_unique<SjfScheduler>(registry.make_placement(p.placement), p);
      },
  };
}

}  // namespace gcsim::models
