// The bounds of a scenario's rates, intervals and time sums that make physical sense
// (docs/units.md, "Limits: time and numbers"). The unit parsers bound each quantity's
// magnitude (sim/units.hpp); these bound what a model makes of one value: how often a
// periodic event may recur and how fast a random process may fire. Each is checked at
// load, with the key and its position. (The events of a whole scenario, summed over its
// keys, are models/config/resource_estimate.hpp's, checked against --max-events.)
#pragma once

#include <cstdint>

#include "sim/time.hpp"

namespace gcsim::models::limits {

// A budget period: an hour at least (budgets are set per day, week or month).
inline constexpr sim::SimTime MIN_BUDGET_PERIOD = sim::hours(1);

// A node's interruption rate, and the rate of correlated events: at most once a minute.
// A replacement node takes minutes to provision, and spot notices last 30 s to 2 min, so
// more frequent interruptions cannot be told apart. 1/60 per second is 60/h.
inline constexpr double MAX_EVENT_RATE_PER_S = 1.0 / 60.0;

// Ticks of a spot availability trace and steps of a spot price trace: a second at least
// (providers publish spot prices and capacity every few minutes at best).
inline constexpr sim::SimTime MIN_TRACE_TICK = sim::seconds(1);

// The round of the policies that preempt on one (las, finish-time-fair `interval`): a
// second at least. Each round may stop running jobs and start others, and a preemption
// saves and restores state over seconds; a shorter round describes no scheduler and only
// multiplies events (`interval: 1ns` never ended). The rounds of a whole run are counted
// in the event estimate (resource_estimate.cpp).
inline constexpr sim::SimTime MIN_POLICY_ROUND = sim::seconds(1);

}  // namespace gcsim::models::limits
