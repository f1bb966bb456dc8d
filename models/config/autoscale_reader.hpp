// `autoscale:` on a node type (docs/autoscaling.md): the key tables, which are the
// reference for docs/scenario-reference.md (`cluster.node_types[i].autoscale` and below),
// and the reader. The `when:` expressions are parsed here (parse_trigger), a bad one an
// error at its own line and column.
#pragma once

#include <string>

#include "models/config/autoscale_spec.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"

namespace gcsim::models {

inline constexpr config::KeySpec AUTOSCALE_KEYS[] = {
    {.name = "min", .type = "integer", .help = "the fewest nodes the autoscaler keeps (provisioning or up)",
     .kind = config::KeyKind::Integer, .min = 0, .max = 1 << 20, .has_default = true, .default_number = 0},
    {.name = "max", .type = "integer", .required = true, .range = "at least `min`, `count` and 1",
     .help = "the most nodes at once (provisioning, up or draining): the pool's slots",
     .kind = config::KeyKind::Integer, .min = 1, .max = 1 << 20},
    {"scale_out", "map", "none", false, "", "when and by how much to add nodes, below"},
    {"scale_in", "map", "none", false, "", "when and by how much to remove nodes, below"},
    {.name = "cooldown", .type = "duration",
     .help = "after a scale decision, no other decision of the pool until this has passed (no flapping)",
     .kind = config::KeyKind::Duration, .min = 0, .has_default = true, .default_number = 0},
    {.name = "provisioning", .type = "duration", .help = "from a node's request to it being up and placeable (a spot pool: one delay with its own `provisioning`)",
     .kind = config::KeyKind::Duration, .min = 0, .has_default = true, .default_number = 0},
    {.name = "bill_provisioning", .type = "bool",
     .default_value = "the provider's (`aws`, `gcp`: false; others: true)",
     .help = "whether a node is billed while it provisions", .kind = config::KeyKind::Bool},
    {"schedule", "list of maps", "none", false, "at least one item",
     "the pool's size by the clock: `[{days, from, to, count}]`, below"},
    {"fallback", "node type name", "none", false, "another node type, not itself",
     "the pool that takes the waiting demand this one cannot (at `max`, or a spot pool's market without capacity)"},
};

inline constexpr config::KeySpec SCALE_RULE_KEYS[] = {
    {"when", "expression", "", true, "`waiting_gpus >= N`, `gpu_utilization > P%`, `gpu_memory > P%`, `idle`",
     "the trigger (>, >=, <, <= for the three measures); `idle` in scale_in only"},
    {.name = "for", .type = "duration", .help = "how long the trigger must hold before the decision",
     .kind = config::KeyKind::Duration, .min = 0, .has_default = true, .default_number = 0},
    {.name = "by", .type = "integer", .help = "nodes added or removed by one decision",
     .kind = config::KeyKind::Integer, .min = 1, .max = 1 << 20, .has_default = true, .default_number = 1},
};

inline constexpr config::KeySpec SCHEDULE_WINDOW_KEYS[] = {
    {"days", "day, range or list (`weekdays`, `sat`, `mon-fri`, `[mon, wed]`)", "`daily`", false, "",
     "the days of the week it starts on (t = 0 is Monday 00:00)"},
    {"from", "`HH:MM` (quote it: `\"09:00\"`)", "`\"00:00\"`", false, "", "the time of day the window starts"},
    {"to", "`HH:MM` (quote it)", "`\"24:00\"`", false, "", "the time of day it ends; at or before `from`: past midnight"},
    {.name = "count", .type = "integer", .required = true, .range = "`min`..`max`",
     .help = "the pool's size inside the window", .kind = config::KeyKind::Integer, .min = 0, .max = 1 << 20},
};

// Reads `autoscale:` of a node type with `count` nodes at the start; `bill_provisioning`
// is the provider's default. The fallback pool's name is checked by read_cluster (it needs
// every node type).
AutoscaleSpec read_autoscale(const config::ConfigNode& node, int count, bool bill_provisioning);

}  // namespace gcsim::models
