// `gcsim policies`: the scheduler registry, printed from itself (see commands.hpp).
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "models/config/scheduler_reader.hpp"
#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::cli {

int cmd_policies(const models::SchedulerRegistry& registry) {
  std::printf("scheduling policies (scheduler: {policy: NAME, ...}):\n");
  for (const auto& [name, policy] : registry.policies()) {
    std::printf("\n  %s: %s\n", name.c_str(), policy.description.c_str());
    std::vector<config::KeySpec> keys = models::scheduler_common_keys();
    keys.insert(keys.end(), policy.keys.begin(), policy.keys.end());
    print_key_table(keys);
  }
  std::printf("\nplacement strategies (scheduler: {placement: NAME}, for policies that take one):\n");
  for (const auto& [name, entry] : registry.placements().entries())
    std::printf("  %-10s  %s\n", name.c_str(), entry.description.c_str());
  return 0;
}

}  // namespace gcsim::cli
