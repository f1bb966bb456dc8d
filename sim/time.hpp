// Simulated time: a strong type over int64 nanoseconds (ns-3's Time), used both for
// instants and for durations. Doubles never hold timestamps inside the simulator; they
// appear only at the trace and report edge, through seconds().
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>

namespace gcsim::sim {

inline constexpr std::int64_t NS_PER_S = 1'000'000'000;

class SimTime {
 public:
  constexpr SimTime() = default;

  static constexpr SimTime from_ns(std::int64_t ns) { return SimTime(ns); }
  // Rounds to the nearest nanosecond. Values beyond the representable range saturate
  // at max()/min() (about +-292 years), which callers treat as "never".
  static SimTime from_seconds(double seconds) {
    const double ns = std::round(seconds * static_cast<double>(NS_PER_S));
    if (!(ns < 9.2e18)) return max();
    if (!(ns > -9.2e18)) return min();
    return SimTime(static_cast<std::int64_t>(ns));
  }
  static constexpr SimTime zero() { return SimTime(0); }
  static constexpr SimTime max() { return SimTime(std::numeric_limits<std::int64_t>::max()); }
  static constexpr SimTime min() { return SimTime(std::numeric_limits<std::int64_t>::min()); }

  constexpr std::int64_t ns() const { return ns_; }
  constexpr double seconds() const { return static_cast<double>(ns_) / static_cast<double>(NS_PER_S); }
  constexpr bool is_max() const { return ns_ == std::numeric_limits<std::int64_t>::max(); }

  constexpr auto operator<=>(const SimTime&) const = default;
  // Arithmetic saturates at max() and min() instead of wrapping: a sum past about 292
  // years is "never" (max()), never a time in the past. A time 290 years out plus an hour
  // is never, not an instant before the run began (docs/units.md, "Limits").
  constexpr SimTime operator+(SimTime o) const {
    std::int64_t r = 0;
    if (__builtin_add_overflow(ns_, o.ns_, &r)) return o.ns_ > 0 ? max() : min();
    return SimTime(r);
  }
  constexpr SimTime operator-(SimTime o) const {
    std::int64_t r = 0;
    if (__builtin_sub_overflow(ns_, o.ns_, &r)) return o.ns_ < 0 ? max() : min();
    return SimTime(r);
  }
  constexpr SimTime& operator+=(SimTime o) { return *this = *this + o; }
  constexpr SimTime& operator-=(SimTime o) { return *this = *this - o; }
  constexpr SimTime operator*(std::int64_t k) const {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(ns_, k, &r)) return (ns_ > 0) == (k > 0) ? max() : min();
    return SimTime(r);
  }

  // "now + delay" where delay may be max() ("never"): the same as operator+, which
  // saturates; kept for the call sites that say so.
  constexpr SimTime saturating_add(SimTime d) const { return *this + d; }

 private:
  constexpr explicit SimTime(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

constexpr SimTime seconds(std::int64_t s) { return SimTime::from_ns(NS_PER_S) * s; }
constexpr SimTime minutes(std::int64_t m) { return seconds(1) * (m * 60); }
constexpr SimTime hours(std::int64_t h) { return seconds(1) * (h * 3600); }

}  // namespace gcsim::sim
