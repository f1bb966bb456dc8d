// Weekly calendars: sets of times of the week that repeat every week. Simulated time 0 is
// Monday 00:00, as for spot availability windows (docs/spot.md), so the time of the week
// is t mod 1 week. Scheduler quota windows (docs/scheduling.md, "Team quotas and
// time-sharing windows") and generators' active hours are calendars, written with `days`
// and `hours` (docs/scenario-reference.md, "Days and hours").
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/time.hpp"

namespace gcsim::sim {

inline constexpr std::int64_t DAY_NS = 86'400 * NS_PER_S;
inline constexpr std::int64_t WEEK_NS = 7 * DAY_NS;

class WeekCalendar {
 public:
  // Adds [from_ns, to_ns) of the week (ns from Monday 00:00): 0 <= from_ns < WEEK_NS,
  // from_ns < to_ns <= from_ns + WEEK_NS; a span past the week's end wraps to its start
  // (Sunday 22:00 to Monday 02:00). Overlaps merge. InternalError otherwise.
  void add(std::int64_t from_ns, std::int64_t to_ns);

  bool empty() const { return spans_.empty(); }
  bool whole_week() const { return spans_.size() == 1 && spans_[0].first == 0 && spans_[0].second == WEEK_NS; }
  bool contains(SimTime t) const;
  // The first time after t at which contains() changes; SimTime::max() when it never does
  // (an empty or whole-week calendar). t >= 0.
  SimTime next_change(SimTime t) const;

  // The calendar as a clock that runs only inside it: the time inside it in [0, t); and
  // the time, inside the calendar, at which that clock shows `inside` (>= 0; a reading at
  // a span's end is the next span's start; max() past the range; InternalError for an
  // empty calendar). inside_before(at_inside(x)) == x, and at_inside(inside_before(t)) == t
  // for t inside the calendar.
  SimTime inside_before(SimTime t) const;
  SimTime at_inside(SimTime inside) const;
  std::int64_t inside_per_week_ns() const { return per_week_ns_; }

  // Its spans in the week, sorted and disjoint (a wrapping span is two).
  const std::vector<std::pair<std::int64_t, std::int64_t>>& spans() const { return spans_; }

 private:
  std::vector<std::pair<std::int64_t, std::int64_t>> spans_;
  std::int64_t per_week_ns_ = 0;
};

}  // namespace gcsim::sim
