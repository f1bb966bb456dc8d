// The `scheduler:` section: `policy` names an entry of the registry given (default `fifo`),
// and the rest of the map is that policy's parameters, read and validated by its entry
// (models/scheduler/scheduler_registry.hpp), so every policy's keys are checked against
// its own table: an unknown key lists that policy's keys, with a did-you-mean. `preemption`
// (how a preempted job stops) and `quotas` (team shares by the time of the week) are
// common to every policy.
#pragma once

#include <vector>

#include "models/scheduler/scheduler_registry.hpp"

#include "models/config/calendar_reader.hpp"
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
    {.name = "save", .type = "duration", .default_value = "the job's checkpoint `write_time`", .range = "mode `save` only",
     .help = "GPUs held, no progress, before the job stops with all its work kept", .kind = config::KeyKind::Duration,
     .min = 0},
    {.name = "restore", .type = "duration", .default_value = "the job's checkpoint `restore_time`",
     .range = "mode `save` only", .help = "GPUs held, no progress, at the next start before it resumes",
     .kind = config::KeyKind::Duration, .min = 0},
};

// The `quotas` key, common to every policy, and its maps (docs/scenario-reference.md).
extern const config::KeySpec SCHEDULER_QUOTAS_KEY;
// The keys every policy's map has: policy, preemption, quotas (the policy's own follow).
std::vector<config::KeySpec> scheduler_common_keys();
inline constexpr config::KeySpec QUOTA_KEYS[] = {
    {"windows", "list of maps", "", true, "at least one",
     "the windows of the week, each with the teams' shares in it; where several hold, the first listed wins"},
    {.name = "lending", .type = "bool",
     .help = "whether a team's idle guaranteed GPUs may run other teams' jobs (reclaimed when its own jobs wait)",
     .kind = config::KeyKind::Bool, .has_default = true, .default_number = 1},
    {"reclaim", "`preempt` | `wait`", "`preempt`", false, "",
     "how an owner below its guarantee gets lent GPUs back: preempting the borrowers, or waiting for them to end"},
};
inline constexpr config::KeySpec QUOTA_WINDOW_KEYS[] = {
    {"name", "text, unique", "`window N` (its place, from 1)", false, "", "the window's name in the report"},
    DAYS_KEY,
    HOURS_KEY,
    {"teams", "map: team name -> share or `{min, max}`", "", true, "at least one team",
     "each named team's guaranteed share and cap of the cluster's GPUs in the window"},
};
inline constexpr config::KeySpec TEAM_SHARE_KEYS[] = {
    {.name = "min", .type = "fraction (`80%`)", .range = "the window's mins add up to <= 100%",
     .help = "guaranteed: the team's waiting jobs may reclaim lent GPUs up to this share", .kind = config::KeyKind::Percent,
     .min = 0, .max = 1, .has_default = true, .default_number = 0},
    {.name = "max", .type = "fraction", .range = "at least `min`", .help = "cap: the team's jobs never hold more than this share",
     .kind = config::KeyKind::Percent, .min = 0, .max = 1, .has_default = true, .default_number = 1},
};

// `section` is the `scheduler:` value, or null when the scenario has none (all defaults).
// A preemption's save and restore, begun as late as `horizon`, must end within SimTime's
// range. `context` is what the policy's keys may refer to (the workload's teams). Throws
// ConfigError at the offending node (file:line:column, key path).
SchedulerSpec read_scheduler(const config::ConfigNode* section, const SchedulerRegistry& registry,
                             sim::SimTime horizon, const PolicyContext& context = {});

}  // namespace gcsim::models
