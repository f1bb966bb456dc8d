// The bounds of a scenario's rates, intervals and time sums that make physical sense
// (docs/units.md, "Limits: time and numbers"). The unit parsers bound each quantity's
// magnitude (sim/units.hpp); these bound what a model makes of it: how often a periodic
// event may recur, how fast a random process may fire, and how far past the horizon the
// fixed parts of a job's life may reach. Each is checked at load, with the key and its
// position, so that no run schedules an event storm or a time past SimTime's range.
#pragma once

#include <cstdint>

#include "sim/time.hpp"

namespace gcsim::models::limits {

// The most events one periodic key may schedule over the horizon (budget checks, budget
// periods, checkpoints every `every`): 1e8 events take seconds to simulate, 1e9 and more
// minutes to hours and a trace of gigabytes. A check every second over a 30-day horizon
// is 2.6e6 events; every second over a century is 3.2e9.
inline constexpr std::int64_t MAX_PERIODIC_EVENTS = 100'000'000;

// A budget's spend check: cloud billing data is at best a minute fresh, so checking more
// often tells nothing new.
inline constexpr sim::SimTime MIN_BUDGET_CHECK = sim::minutes(1);
// A budget period: an hour at least (budgets are set per day, week or month).
inline constexpr sim::SimTime MIN_BUDGET_PERIOD = sim::hours(1);

// A node's interruption rate, and the rate of correlated events: at most once a minute.
// A replacement node takes minutes to provision, and spot notices last 30 s to 2 min, so
// more frequent interruptions cannot be told apart. 1/60 per second is 60/h.
inline constexpr double MAX_EVENT_RATE_PER_S = 1.0 / 60.0;

// Ticks of a spot availability trace and steps of a spot price trace: a second at least
// (providers publish spot prices and capacity every few minutes at best).
inline constexpr sim::SimTime MIN_TRACE_TICK = sim::seconds(1);

}  // namespace gcsim::models::limits
