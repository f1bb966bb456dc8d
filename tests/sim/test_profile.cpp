// sim::Profile: a piecewise-constant, optionally repeating timeline (the spot price and the
// spot capacity are both one). Every expected time below is worked out by hand from the
// points given.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <vector>

#include "sim/profile.hpp"
#include "sim/time.hpp"

using gcsim::sim::hours;
using gcsim::sim::Profile;
using gcsim::sim::seconds;
using gcsim::sim::SimTime;

TEST_CASE("Profile: the value at a time and the next change, without repetition", "[unit]") {
  // 0 h: 1, 10 h: 3, 14 h: 2; after 14 h the last value holds for ever.
  const Profile<int> p({{SimTime::zero(), 1}, {hours(10), 3}, {hours(14), 2}}, SimTime::zero());
  CHECK(p.value_at(SimTime::zero()) == 1);
  CHECK(p.value_at(hours(10) - SimTime::from_ns(1)) == 1);
  CHECK(p.value_at(hours(10)) == 3);   // a point takes effect at its own time
  CHECK(p.value_at(hours(13)) == 3);
  CHECK(p.value_at(hours(1000)) == 2);
  CHECK(p.next_change_after(SimTime::zero()) == hours(10));
  CHECK(p.next_change_after(hours(10)) == hours(14));  // strictly after t
  CHECK(p.next_change_after(hours(14)).is_max());
  CHECK(p.next_change_after(hours(500)).is_max());
  CHECK(!p.constant());
}

TEST_CASE("Profile: repetition across the period boundary", "[unit]") {
  // Daily: 0 h: 1.0, 18 h: 5.0, period 24 h. Day 2 starts at 24 h with 1.0 again.
  const Profile<double> p({{SimTime::zero(), 1.0}, {hours(18), 5.0}}, hours(24));
  CHECK(p.value_at(hours(23)) == 5.0);
  CHECK(p.value_at(hours(24)) == 1.0);
  CHECK(p.value_at(hours(24 + 18)) == 5.0);
  CHECK(p.value_at(hours(10 * 24 + 17)) == 1.0);
  CHECK(p.next_change_after(hours(20)) == hours(24));       // the wrap is a change: 5 -> 1
  CHECK(p.next_change_after(hours(24)) == hours(24 + 18));
  CHECK(p.next_change_after(hours(3 * 24 + 18)) == hours(4 * 24));

  // When the last value equals the first, the wrap is not a change: 0 h: 2, 6 h: 7,
  // 12 h: 2, period 24 h; from 12 h the next change is at 24 h + 6 h = 30 h. The wrap is
  // still a point, for walking pieces.
  const Profile<int> q({{SimTime::zero(), 2}, {hours(6), 7}, {hours(12), 2}}, hours(24));
  CHECK(q.next_change_after(hours(12)) == hours(30));
  CHECK(q.next_change_after(hours(25)) == hours(30));
  CHECK(q.next_point_after(hours(12)) == hours(24));
}

TEST_CASE("Profile: equal neighbours are points but not changes", "[unit]") {
  // 0 h: 4, 1 h: 4, 2 h: 9 (no repetition): the first change is at 2 h.
  const Profile<int> p({{SimTime::zero(), 4}, {hours(1), 4}, {hours(2), 9}}, SimTime::zero());
  CHECK(p.next_point_after(SimTime::zero()) == hours(1));
  CHECK(p.next_change_after(SimTime::zero()) == hours(2));
  // All values equal and repeating: it never changes (and the search ends).
  const Profile<int> flat({{SimTime::zero(), 3}, {hours(5), 3}}, hours(8));
  CHECK(flat.next_change_after(hours(7)).is_max());
  CHECK(flat.next_point_after(hours(7)) == hours(8));
}

TEST_CASE("Profile: one point, and a point at 0", "[unit]") {
  const Profile<double> c(2.5);  // one point at 0
  REQUIRE(c.points().size() == 1);
  CHECK(c.points()[0].at == SimTime::zero());
  CHECK(c.constant());
  CHECK(c.value_at(SimTime::zero()) == 2.5);
  CHECK(c.value_at(hours(1'000'000)) == 2.5);
  CHECK(c.next_point_after(SimTime::zero()).is_max());
  CHECK(c.next_change_after(hours(3)).is_max());
  // One point repeated is constant too: no wrap events.
  const Profile<int> r({{SimTime::zero(), 6}}, hours(24));
  CHECK(r.next_point_after(hours(23)).is_max());
  CHECK(r.value_at(hours(49)) == 6);
  // The first point is in force at 0 itself, and 0 is never "after 0".
  const Profile<int> z({{SimTime::zero(), 0}, {seconds(1), 1}}, SimTime::zero());
  CHECK(z.value_at(SimTime::zero()) == 0);
  CHECK(z.next_change_after(SimTime::zero()) == seconds(1));
  CHECK(Profile<int>().empty());
}

TEST_CASE("Profile: times near the SimTime limit saturate to never", "[unit]") {
  constexpr std::int64_t MAX = std::numeric_limits<std::int64_t>::max();
  const SimTime day = hours(24);
  const Profile<int> p({{SimTime::zero(), 1}, {hours(18), 2}}, day);
  // The last whole period before the limit starts at base = MAX - MAX % day; from
  // base + 18 h the wrap at base + 24 h is past MAX, so it saturates to max() ("never").
  const std::int64_t base = MAX - MAX % day.ns();
  REQUIRE(base + hours(18).ns() < MAX);                  // 18 h into that period fits
  REQUIRE(MAX - base < day.ns());                        // the next period does not
  CHECK(p.value_at(SimTime::from_ns(base + hours(18).ns())) == 2);
  CHECK(p.next_change_after(SimTime::from_ns(base)) == SimTime::from_ns(base + hours(18).ns()));
  CHECK(p.next_change_after(SimTime::from_ns(base + hours(18).ns())).is_max());
  CHECK(p.next_point_after(SimTime::from_ns(base + hours(18).ns())).is_max());
  // Walking the pieces up to max() ends: [base + 18 h, max) is one piece of value 2.
  std::vector<int> values;
  p.for_each_piece(SimTime::from_ns(base + hours(18).ns()), SimTime::max(),
                   [&](int v, SimTime, SimTime to) {
                     values.push_back(v);
                     CHECK(to.is_max());
                   });
  CHECK(values == std::vector<int>{2});
}

TEST_CASE("Profile: for_each_piece splits an interval at every point", "[unit]") {
  // Daily 0 h: 1, 18 h: 5 over [17 h, 43 h): pieces [17,18) 1, [18,24) 5, [24,42) 1, [42,43) 5.
  const Profile<int> p({{SimTime::zero(), 1}, {hours(18), 5}}, hours(24));
  std::vector<std::int64_t> ends_h;
  std::int64_t weighted = 0;  // value x hours
  p.for_each_piece(hours(17), hours(43), [&](int v, SimTime from, SimTime to) {
    ends_h.push_back(to.ns() / hours(1).ns());
    weighted += v * ((to - from).ns() / hours(1).ns());
  });
  CHECK(ends_h == std::vector<std::int64_t>{18, 24, 42, 43});
  CHECK(weighted == 1 * 1 + 5 * 6 + 1 * 18 + 5 * 1);
  int calls = 0;
  p.for_each_piece(hours(5), hours(5), [&](int, SimTime, SimTime) { ++calls; });
  CHECK(calls == 0);  // an empty interval has no pieces
}
