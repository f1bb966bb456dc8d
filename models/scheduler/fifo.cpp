// Strict FIFO (see fifo.hpp).
#include "models/scheduler/fifo.hpp"

namespace gcsim::models {

void FifoScheduler::schedule(const ClusterView& cluster, std::span<const QueuedJob> queue, Decisions& out) {
  placement_->reset(cluster);
  for (std::uint32_t i = 0; i < queue.size(); ++i) {
    if (!placement_->try_place(queue[i], i, out)) break;
  }
}

namespace {
constexpr config::KeySpec FIFO_KEYS[] = {
    {.name = "placement", .type = "name", .default_value = "`best-fit`",
     .help = "placement strategy: where each job goes (`gcsim policies` lists them)"},
};
}  // namespace

PolicyDef<FifoParams> fifo_policy() {
  return {
      .name = "fifo",
      .description = "strict first-in first-out: the head job waits for room and nothing overtakes it",
      .keys = FIFO_KEYS,
      .parse =
          [](config::MapReader& map, const SchedulerRegistry& registry) {
            FifoParams p;
            if (const config::ConfigNode* n = map.optional("placement"))
              p.placement = config::read_enum(*n, registry.placements().names());
            return p;
          },
      .make =
          [](const FifoParams& p, const SchedulerRegistry& registry) -> std::unique_ptr<Scheduler> {
            return std::make_unique<FifoScheduler>(registry.make_placement(p.placement));
          },
  };
}

}  // namespace gcsim::models
