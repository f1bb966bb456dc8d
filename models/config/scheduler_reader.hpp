// The `scheduler:` section: `policy` names an entry of the registry given (default `fifo`),
// and the rest of the map is that policy's parameters, read and validated by its entry
// (models/scheduler/scheduler_registry.hpp), so every policy's keys are checked against
// its own table: an unknown key lists that policy's keys, with a did-you-mean. `preemption`
// (how a preempted job stops) is common to every policy.
#pragma once

#include "models/scheduler/scheduler_registry.hpp"

#include "models/config/scenario.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"

namespace gcsim::models {

class SchedulerRegistry;

// The `policy` and `preemption` keys, common to every policy.
extern const config::KeySpec SCHEDULER_POLICY_KEY;
extern const config::KeySpec SCHEDULER_PREEMPTION_KEY;

// scheduler.preemption: {save: 30s, restore: 1m} or {mode: lose}.
inline constexpr config::KeySpec PREEMPTION_KEYS[] = {
    {"mode", "`save` | `lose`", "`save`", false, "",
     "save: hold the GPUs for `save`, keep all the work, restore on the next start; lose: stop now, back to the last checkpoint"},
    {"save", "duration", "the job's checkpoint `write_time`", false, "mode `save` only",
     "GPUs held, no progress, before the job stops with all its work kept"},
    {"restore", "duration", "the job's checkpoint `restore_time`", false, "mode `save` only",
     "GPUs held, no progress, at the next start before it resumes"},
};

// `section` is the `scheduler:` value, or null when the scenario has none (all defaults).
// A preemption's save and restore, begun as late as `horizon`, must end within SimTime's
// range. `context` is what the policy's keys may refer to (the workload's teams). Throws
// ConfigError at the offending node (file:line:column, key path).
SchedulerSpec read_scheduler(const config::ConfigNode* section, const SchedulerRegistry& registry,
                             sim::SimTime horizon, const PolicyContext& context = {});

}  // namespace gcsim::models
