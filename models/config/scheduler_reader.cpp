// The `scheduler:` section reader (see scheduler_reader.hpp).
#include "models/config/scheduler_reader.hpp"

#include <vector>

#include "models/scheduler/scheduler_registry.hpp"
#include "sim/config/reader.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {

const config::KeySpec SCHEDULER_POLICY_KEY = {
    .name = "policy", .type = "name", .default_value = "`fifo`",
    .help = "the scheduling policy; its own keys follow in the same map (`gcsim policies` lists them)"};

SchedulerSpec read_scheduler(const config::ConfigNode* section, const SchedulerRegistry& registry) {
  SchedulerSpec spec;
  if (section == nullptr) return spec;
  // The policy first: it decides which keys the rest of the map may hold.
  if (const config::ConfigNode* policy = config::MapReader(*section).optional("policy"))
    spec.policy = config::read_enum(*policy, registry.policy_names());
  const SchedulerRegistry::Policy* entry = registry.find_policy(spec.policy);
  if (entry == nullptr)
    section->fail(ErrorCode::UnknownName, "the default policy '" + spec.policy + "' is not registered; name one");
  std::vector<config::KeySpec> keys{SCHEDULER_POLICY_KEY};
  keys.insert(keys.end(), entry->keys.begin(), entry->keys.end());
  config::MapReader map(*section, keys);  // refuses keys the policy does not have, at once
  spec.params = entry->parse(map, registry);
  return spec;
}

}  // namespace gcsim::models
