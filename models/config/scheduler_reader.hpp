// The `scheduler:` section: `policy` names an entry of the registry given (default `fifo`),
// and the rest of the map is that policy's parameters, read and validated by its entry
// (models/scheduler/scheduler_registry.hpp), so every policy's keys are checked against
// its own table: an unknown key lists that policy's keys, with a did-you-mean.
#pragma once

#include "models/config/scenario.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"

namespace gcsim::models {

class SchedulerRegistry;

// The `policy` key, common to every policy.
extern const config::KeySpec SCHEDULER_POLICY_KEY;

// `section` is the `scheduler:` value, or null when the scenario has none (all defaults).
// Throws ConfigError at the offending node (file:line:column, key path).
SchedulerSpec read_scheduler(const config::ConfigNode* section, const SchedulerRegistry& registry);

}  // namespace gcsim::models
