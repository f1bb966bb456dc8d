// SimTime arithmetic: exact inside the range, saturating at max() ("never") and min() at
// its ends instead of wrapping into the past.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include "sim/time.hpp"

using gcsim::sim::SimTime;
namespace s = gcsim::sim;

TEST_CASE("SimTime arithmetic is exact in range and saturates at its ends", "[unit]") {
  constexpr std::int64_t MAX = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t MIN = std::numeric_limits<std::int64_t>::min();
  CHECK((s::hours(2) + s::minutes(30)).ns() == 9000LL * 1'000'000'000);
  CHECK((s::seconds(5) - s::seconds(7)).ns() == -2'000'000'000);
  CHECK((s::seconds(3) * 4).ns() == 12'000'000'000);
  // 290 years and an image pull of 290 years: never, not a time before the run began
  // (wrapping gave about -124 years).
  const SimTime years_290 = SimTime::from_seconds(290 * 365.25 * 86400);
  CHECK((years_290 + years_290).is_max());
  CHECK((SimTime::max() + s::seconds(1)).is_max());
  CHECK((SimTime::from_ns(MAX - 1) + SimTime::from_ns(1)).ns() == MAX);
  CHECK((SimTime::from_ns(MAX - 1) + SimTime::from_ns(2)).is_max());
  CHECK((SimTime::min() - s::seconds(1)).ns() == MIN);
  CHECK((SimTime::from_ns(MIN + 1) + SimTime::from_ns(-2)).ns() == MIN);
  CHECK((s::seconds(1) - SimTime::min()).is_max());
  CHECK((SimTime::max() - SimTime::max()).ns() == 0);
  CHECK((years_290 * 2).is_max());
  CHECK((years_290 * -2).ns() == MIN);
  CHECK((SimTime::from_ns(-3) * -4).ns() == 12);
  SimTime t = years_290;
  t += years_290;
  CHECK(t.is_max());
  t -= SimTime::max();
  CHECK(t.ns() == 0);
  CHECK(SimTime::from_seconds(1e300).is_max());
  CHECK(SimTime::from_seconds(-1e300).ns() == MIN);
  CHECK(SimTime::from_seconds(std::numeric_limits<double>::quiet_NaN()).is_max());
  CHECK(years_290.saturating_add(years_290).is_max());
}
