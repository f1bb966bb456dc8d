// The `budgets:` section: a spending limit per team. That each team is one some job or
// generator names is checked in the resolve step (scenario_resolve.hpp).
#pragma once

#include <vector>

#include "models/config/scenario.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"

namespace gcsim::models {

inline constexpr config::KeySpec BUDGET_KEYS[] = {
    {"team", "a team named by some job's or generator's `team:`", "", true, "", "whose spend"},
    {"limit", "USD", "", true, "> 0", "spend per period"},
    {"period", "duration", "the whole run", false, ">= 1 h", "the spend restarts from zero every period, from t = 0"},
    {"action", "`alert` | `stop_new` | `stop_running`", "`alert`", false, "", "what happens at the limit"},
    {"alert_at", "fraction", "none", false, "(0, 100%]", "also record an alert at this share of the limit"},
    {"check_every", "duration", "`1h`", false, ">= 1 s", "how often the full spend is checked"},
};

// budgets: [{team: vision, limit: $5000, period: 30d, action: stop_new, alert_at: 80%, check_every: 1h}]
std::vector<BudgetSpec> read_budgets(const config::ConfigNode& node);

}  // namespace gcsim::models
