// Strict FIFO (see fifo.hpp).
#include "models/scheduler/fifo.hpp"

namespace gcsim::models {

void FifoScheduler::schedule(const ClusterView& cluster, std::span<const QueuedJob> queue, Decisions& out) {
  planner_.reset(cluster);
  for (std::uint32_t i = 0; i < queue.size(); ++i) {
    if (!planner_.try_place(queue[i], i, out)) break;
  }
}

}  // namespace gcsim::models
