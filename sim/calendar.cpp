// Weekly calendars (see calendar.hpp).
#include "sim/calendar.hpp"

#include <algorithm>
#include <limits>

#include "sim/check.hpp"

namespace gcsim::sim {

void WeekCalendar::add(std::int64_t from_ns, std::int64_t to_ns) {
  GCSIM_CHECK(from_ns >= 0 && from_ns < WEEK_NS && to_ns > from_ns && to_ns - from_ns <= WEEK_NS,
              "a calendar span must start inside the week and last at most a week");
  if (to_ns <= WEEK_NS) {
    spans_.emplace_back(from_ns, to_ns);
  } else {
    spans_.emplace_back(from_ns, WEEK_NS);
    spans_.emplace_back(0, to_ns - WEEK_NS);
  }
  std::sort(spans_.begin(), spans_.end());
  std::vector<std::pair<std::int64_t, std::int64_t>> merged;
  for (const auto& s : spans_) {
    if (!merged.empty() && s.first <= merged.back().second) merged.back().second = std::max(merged.back().second, s.second);
    else merged.push_back(s);
  }
  spans_ = std::move(merged);
  per_week_ns_ = 0;
  for (const auto& [a, b] : spans_) per_week_ns_ += b - a;
}

bool WeekCalendar::contains(SimTime t) const {
  const std::int64_t w = t.ns() % WEEK_NS;
  // The last span starting at or before w.
  const auto it = std::upper_bound(spans_.begin(), spans_.end(), std::pair{w, std::numeric_limits<std::int64_t>::max()});
  return it != spans_.begin() && w < std::prev(it)->second;
}

SimTime WeekCalendar::next_change(SimTime t) const {
  if (spans_.empty() || whole_week()) return SimTime::max();
  const std::int64_t week_start = t.ns() - t.ns() % WEEK_NS;
  const std::int64_t w = t.ns() % WEEK_NS;
  // Span edges in the week, in order; a span ending at the week's end and one starting at 0
  // are one stretch across the turn of the week, whose edge there is no change.
  const bool joined = spans_.front().first == 0 && spans_.back().second == WEEK_NS;
  for (const auto& [a, b] : spans_) {
    if (a > w && !(joined && a == 0)) return SimTime::from_ns(week_start + a);
    if (b > w && !(joined && b == WEEK_NS)) return SimTime::from_ns(week_start + b);
  }
  // Into the next week: its first edge.
  const std::int64_t next_week = week_start + WEEK_NS;
  if (next_week > std::numeric_limits<std::int64_t>::max() - WEEK_NS) return SimTime::max();
  for (const auto& [a, b] : spans_) {
    if (!(joined && a == 0)) return SimTime::from_ns(next_week + a);
    if (!(joined && b == WEEK_NS)) return SimTime::from_ns(next_week + b);
  }
  return SimTime::max();
}

SimTime WeekCalendar::inside_before(SimTime t) const {
  const std::int64_t weeks = t.ns() / WEEK_NS;
  const std::int64_t w = t.ns() % WEEK_NS;
  std::int64_t inside = weeks * per_week_ns_;
  for (const auto& [a, b] : spans_) {
    if (a >= w) break;
    inside += std::min(b, w) - a;
  }
  return SimTime::from_ns(inside);
}

SimTime WeekCalendar::at_inside(SimTime inside) const {
  GCSIM_CHECK(per_week_ns_ > 0, "an empty calendar has no time inside it");
  const std::int64_t weeks = inside.ns() / per_week_ns_;
  std::int64_t left = inside.ns() % per_week_ns_;
  if (weeks > (std::numeric_limits<std::int64_t>::max() - WEEK_NS) / WEEK_NS) return SimTime::max();
  const std::int64_t week_start = weeks * WEEK_NS;
  for (const auto& [a, b] : spans_) {
    // A clock reading at a span's end is the next span's start: the time is inside.
    if (left < b - a) return SimTime::from_ns(week_start + a + left);
    left -= b - a;
  }
  // Unreachable: left < per_week_ns_.
  return SimTime::from_ns(week_start + WEEK_NS);
}

}  // namespace gcsim::sim
