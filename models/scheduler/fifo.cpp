// First in, first out (see fifo.hpp).
#include "models/scheduler/fifo.hpp"

namespace gcsim::models {

namespace {
const config::KeySpec FIFO_KEYS[] = {PLACEMENT_KEY, BLOCKING_KEY};
}  // namespace

PolicyDef<FifoParams> fifo_policy() {
  return {
      .name = "fifo",
      .description = "first in, first out: strict (the head job waits for room, nothing overtakes it) or skip",
      .keys = FIFO_KEYS,
      .parse = [](config::MapReader& map, const SchedulerRegistry& registry) {
        return FifoParams{read_ordered_params(map, registry, false)};
      },
      .make = [](const FifoParams& p, const SchedulerRegistry& registry) -> std::unique_ptr<Scheduler> {
        return std::make_unique<FifoScheduler>(registry.make_placement(p.placement), p);
      },
  };
}

}  // namespace gcsim::models
