// The `days` and `hours` of a weekly window, as a person writes them (`days: weekdays`,
// `hours: 09:00-18:00`), read into a calendar (sim/calendar.hpp): quota windows
// (scheduler.quotas.windows[i]) and generators' active hours
// (workload.generators[i].active) use the same two keys and the same rules
// (docs/scenario-reference.md, "Days and hours").
#pragma once

#include "sim/calendar.hpp"
#include "sim/config/key_table.hpp"
#include "sim/config/reader.hpp"

namespace gcsim::models {

inline constexpr config::KeySpec DAYS_KEY = {
    "days", "day, range or list (`weekdays`, `sat`, `mon-thu`, `[mon, wed]`)", "`daily`", false, "",
    "the days of the week it starts on (t = 0 is Monday 00:00)"};
inline constexpr config::KeySpec HOURS_KEY = {
    "hours", "`HH:MM-HH:MM`", "`00:00-24:00`", false, "",
    "the time of day it holds; an end at or before the start runs past midnight"};

// Reads `days` and `hours` from `map` (both declared to it; both optional). `days`: a day
// (`mon` or `monday`), a range (`mon-fri`, `fri-mon` wraps), `weekdays`, `weekend`,
// `daily`, or a list of these; default `daily`. `hours`: `HH:MM-HH:MM`, minutes optional
// (`9-18`), `24:00` the day's end; an end at or before the start runs past midnight into
// the next day (`22:00-06:00`, starting on each listed day); default the whole day.
// Errors: a day that is none of these is unknown-name with did-you-mean, a day listed
// twice duplicate, hours not in that form wrong-type, an hour past 24:00 (or minutes past
// 59) out-of-range.
sim::WeekCalendar read_week_calendar(config::MapReader& map);

// The same window written with `days`, `from` and `to` (an autoscaled pool's `schedule`):
// `from` and `to` are times of day as in `hours` (`"09:00"`, `"24:00"` the day's end), each
// optional (the day's start and end); the same rules and errors.
sim::WeekCalendar read_week_window(config::MapReader& map);

}  // namespace gcsim::models
