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
  constexpr SimTime operator+(SimTime o) const { return SimTime(ns_ + o.ns_); }
  constexpr SimTime operator-(SimTime o) const { return SimTime(ns_ - o.ns_); }
  constexpr SimTime& operator+=(SimTime o) { ns_ += o.ns_; return *this; }
  constexpr SimTime& operator-=(SimTime o) { ns_ -= o.ns_; return *this; }
  constexpr SimTime operator*(std::int64_t k) const { return SimTime(ns_ * k); }

  // Saturating addition for "now + delay" where delay may be max() ("never").
  constexpr SimTime saturating_add(SimTime d) const {
    if (d.ns_ > 0 && ns_ > std::numeric_limits<std::int64_t>::max() - d.ns_) return max();
    return SimTime(ns_ + d.ns_);
  }

 private:
  constexpr explicit SimTime(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

constexpr SimTime seconds(std::int64_t s) { return SimTime::from_ns(s * NS_PER_S); }
constexpr SimTime minutes(std::int64_t m) { return seconds(m * 60); }
constexpr SimTime hours(std::int64_t h) { return seconds(h * 3600); }

}  // namespace gcsim::sim
