// The `budgets:` section: a spending limit per team. That each team is one some job or
// generator names is checked in the resolve step (scenario_resolve.hpp).
#pragma once

#include <vector>

#include "models/core/limits.hpp"
#include "models/config/scenario.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"

namespace gcsim::models {

inline constexpr config::KeySpec BUDGET_KEYS[] = {
    {"team", "a team named by some job's or generator's `team:`", "", true, "", "whose spend"},
    {.name = "limit", .type = "USD", .required = true, .help = "spend per period", .kind = config::KeyKind::Usd,
     .min = 0, .above_min = true, .below_min = "a budget's limit must be more than $0"},
    {.name = "period", .type = "duration", .default_value = "the whole run",
     .help = "the spend restarts from zero every period, from t = 0", .kind = config::KeyKind::Duration,
     .min = static_cast<double>(limits::MIN_BUDGET_PERIOD.ns())},
    {"action", "`alert` | `stop_new` | `stop_running` | `stop_instances`", "`alert`", false, "",
     "what happens at the limit: record it; hold queued and new jobs; also stop running ones; also give back the "
     "elastic pools' nodes they held"},
    {.name = "alert_at", .type = "fraction", .default_value = "none", .help = "also record an alert at this share of the limit",
     .kind = config::KeyKind::Percent, .min = 0, .max = 1, .above_min = true,
     .below_min = "alert_at is a share of the limit, in (0, 100%]"},
    {.name = "check_every", .type = "duration", .help = "how often the full spend is checked",
     .kind = config::KeyKind::Duration, .min = 1e9, .has_default = true, .default_number = 3600e9},
};

// budgets: [{team: vision, limit: $5000, period: 30d, action: stop_new, alert_at: 80%, check_every: 1h}]
std::vector<BudgetSpec> read_budgets(const config::ConfigNode& node);

}  // namespace gcsim::models
