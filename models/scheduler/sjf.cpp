// Shortest job first (see sjf.hpp).
#include "models/scheduler/sjf.hpp"

namespace gcsim::models {

namespace {
const config::KeySpec SJF_KEYS[] = {PLACEMENT_KEY, BLOCKING_KEY, LENGTHS_KEY};
}  // namespace

PolicyDef<SjfParams> sjf_policy() {
  return ordered_policy_def<SjfScheduler, SjfParams>(
      "sjf", "shortest job first, without preemption (true lengths or the users' estimates)",
      SJF_KEYS, true);
}

}  // namespace gcsim::models
