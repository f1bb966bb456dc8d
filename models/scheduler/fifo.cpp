// First in, first out (see fifo.hpp).
#include "models/scheduler/fifo.hpp"

namespace gcsim::models {

namespace {
const config::KeySpec FIFO_KEYS[] = {PLACEMENT_KEY, BLOCKING_KEY};
}  // namespace

PolicyDef<FifoParams> fifo_policy() {
  return ordered_policy_def<FifoScheduler, FifoParams>(
      "fifo", "first in, first out: strict (the head job waits for room, nothing overtakes it) or skip",
      FIFO_KEYS, false);
}

}  // namespace gcsim::models
