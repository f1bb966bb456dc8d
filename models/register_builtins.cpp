// Fills the built-in registries (see register_builtins.hpp).
#include "models/register_builtins.hpp"

#include "models/scheduler/fifo.hpp"

namespace gcsim::models {

void register_builtins(Builtins& b) {
  b.schedulers.add("fifo", "strict first-in first-out: the head job waits for room and nothing overtakes it",
                   [](const SchedulerSpec&) { return std::make_unique<FifoScheduler>(); });
}

const Builtins& builtins() {
  static const Builtins instance = [] {
    Builtins b;
    register_builtins(b);
    return b;
  }();
  return instance;
}

std::vector<std::string> scheduler_names() { return builtins().schedulers.names(); }

}  // namespace gcsim::models
