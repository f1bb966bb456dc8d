// Weekly calendars: membership, the next change, and the clock that runs only inside the
// calendar, against spans worked out by hand; and both checked against a minute-by-minute
// walk over two weeks for a calendar of three spans, one across the turn of the week.
#include <catch2/catch.hpp>

#include "sim/calendar.hpp"

using namespace gcsim;
using sim::SimTime;

namespace {
SimTime at_hours(double h) { return SimTime::from_seconds(h * 3600); }
constexpr double DAY_H = 24;
}  // namespace

TEST_CASE("a weekly calendar holds its spans every week and says when that changes", "[sim][calendar]") {
  sim::WeekCalendar office;  // Monday and Tuesday 09:00-18:00
  for (int d = 0; d < 2; ++d) office.add(at_hours(d * DAY_H + 9).ns(), at_hours(d * DAY_H + 18).ns());
  CHECK_FALSE(office.contains(at_hours(8.99)));
  CHECK(office.contains(at_hours(9)));
  CHECK_FALSE(office.contains(at_hours(18)));  // half-open
  CHECK(office.contains(at_hours(7 * DAY_H + 24 + 10)));  // next week's Tuesday 10:00
  CHECK(office.next_change(at_hours(0)) == at_hours(9));
  CHECK(office.next_change(at_hours(9)) == at_hours(18));
  CHECK(office.next_change(at_hours(20)) == at_hours(DAY_H + 9));
  CHECK(office.next_change(at_hours(DAY_H + 18)) == at_hours(7 * DAY_H + 9));  // over the weekend
  CHECK(office.inside_per_week_ns() == at_hours(18).ns());
  // The clock inside: 9 h on Monday; Tuesday 10:00 is 10 h in.
  CHECK(office.inside_before(at_hours(DAY_H + 10)) == at_hours(10));
  CHECK(office.at_inside(at_hours(10)) == at_hours(DAY_H + 10));
  // A reading at a span's end is the next span's start.
  CHECK(office.at_inside(at_hours(9)) == at_hours(DAY_H + 9));
  CHECK(office.at_inside(at_hours(18)) == at_hours(7 * DAY_H + 9));

  sim::WeekCalendar always;
  always.add(0, sim::WEEK_NS);
  CHECK(always.whole_week());
  CHECK(always.next_change(at_hours(5)).is_max());
  CHECK(always.at_inside(at_hours(100)) == at_hours(100));
}

TEST_CASE("a span across the turn of the week wraps, and merges with one from Monday 00:00", "[sim][calendar]") {
  sim::WeekCalendar c;
  c.add(at_hours(6 * DAY_H + 22).ns(), at_hours(7 * DAY_H + 2).ns());  // Sunday 22:00 - Monday 02:00
  c.add(at_hours(1).ns(), at_hours(3).ns());                             // Monday 01:00-03:00: merges
  c.add(at_hours(2 * DAY_H + 12).ns(), at_hours(2 * DAY_H + 13).ns());   // Wednesday noon
  REQUIRE(c.spans().size() == 3);
  // Sunday 22:00 to Monday 03:00 is one stretch: no change at midnight.
  CHECK(c.next_change(at_hours(6 * DAY_H + 23)) == at_hours(7 * DAY_H + 3));
  // Walk two weeks minute by minute: contains() changes exactly at next_change(), and the
  // inside clock counts the minutes inside.
  SimTime expected = c.next_change(SimTime::zero());
  std::int64_t inside_minutes = 0;
  bool was = c.contains(SimTime::zero());
  for (int m = 0; m < 2 * 7 * 24 * 60; ++m) {
    const SimTime t = SimTime::from_seconds(m * 60.0);
    const bool in = c.contains(t);
    if (m > 0 && in != was) {
      REQUIRE(t == expected);
      expected = c.next_change(t);
    }
    REQUIRE(c.inside_before(t) == SimTime::from_seconds(inside_minutes * 60.0));
    if (in) {
      REQUIRE(c.at_inside(c.inside_before(t)) == t);
      ++inside_minutes;
    }
    was = in;
  }
  CHECK(inside_minutes == 2 * (5 + 1) * 60);
}
