// An external timeline as a profile (STYLE 6, SimGrid's ProfileBuilder): a value that is
// piecewise constant in simulated time, given as change points (time, value) from t = 0,
// optionally repeating with a period (a weekly price profile, a looped capacity trace).
// Models read it with value_at and schedule their next look with next_change_after;
// for_each_piece walks the constant pieces of an interval (a price's integral over a
// node's up time). Spot prices (models/pricing/price_profile.hpp) and spot capacities
// (models/spot/spot_spec.hpp) are profiles of double and of int.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "sim/check.hpp"
#include "sim/time.hpp"

namespace gcsim::sim {

template <class T>
struct ProfilePoint {
  SimTime at;  // from the start of the run (or of each period)
  T value{};
};

template <class T>
class Profile {
 public:
  Profile() = default;
  explicit Profile(T constant) : points_{{SimTime::zero(), std::move(constant)}} {}
  // `points` strictly increasing in time, the first at 0; `period` zero for none, else
  // greater than the last point's time. Neighbouring values may be equal (a price that
  // stays the same at a listed time): next_change_after skips them.
  Profile(std::vector<ProfilePoint<T>> points, SimTime period) : points_(std::move(points)), period_(period) {
    GCSIM_CHECK(!points_.empty() && points_.front().at == SimTime::zero(), "a profile's first point must be at 0");
    for (std::size_t i = 1; i < points_.size(); ++i)
      GCSIM_CHECK(points_[i - 1].at < points_[i].at, "profile points must be strictly increasing in time (point " +
                                                         std::to_string(i) + ")");
    GCSIM_CHECK(period_ == SimTime::zero() || period_ > points_.back().at,
                "a profile's period must be zero or after its last point");
  }

  bool empty() const { return points_.empty(); }
  bool constant() const { return points_.size() == 1; }
  const std::vector<ProfilePoint<T>>& points() const { return points_; }
  SimTime period() const { return period_; }

  // The value in force at t (t >= 0; the profile must not be empty).
  const T& value_at(SimTime t) const { return points_[index_at(fold(t))].value; }

  // The first change point after t: the next listed point, or the start of the next
  // period, whether or not the value differs there; SimTime::max() when there is none.
  // Saturates: a point past the time range is max() ("never").
  SimTime next_point_after(SimTime t) const {
    if (points_.size() == 1) return SimTime::max();  // a constant repeated is constant
    const SimTime base = t - fold(t);
    const std::size_t i = index_at(fold(t));
    if (i + 1 < points_.size()) return base + points_[i + 1].at;
    if (period_ > SimTime::zero()) return base + period_;
    return SimTime::max();
  }

  // The first time after t at which the value differs from value_at(t); SimTime::max()
  // when it never does. Within one period every point is looked at once at most: a
  // periodic profile that does not change in a lap never changes.
  SimTime next_change_after(SimTime t) const {
    const T& now = value_at(t);
    SimTime x = t;
    for (std::size_t step = 0; step < points_.size(); ++step) {
      x = next_point_after(x);
      if (x.is_max()) return x;
      if (!(value_at(x) == now)) return x;
    }
    return SimTime::max();
  }

  // Calls f(value, piece_from, piece_to) for each constant piece of [from, to), split at
  // every change point, in order.
  template <class F>
  void for_each_piece(SimTime from, SimTime to, F&& f) const {
    while (from < to) {
      const SimTime next = std::min(to, next_point_after(from));
      f(value_at(from), from, next);
      from = next;
    }
  }

 private:
  SimTime fold(SimTime t) const {
    if (period_ <= SimTime::zero()) return t;
    return SimTime::from_ns(t.ns() % period_.ns());
  }
  std::size_t index_at(SimTime folded) const {
    auto it = std::upper_bound(points_.begin(), points_.end(), folded,
                               [](SimTime v, const ProfilePoint<T>& p) { return v < p.at; });
    return static_cast<std::size_t>(it - points_.begin()) - 1;
  }

  std::vector<ProfilePoint<T>> points_;
  SimTime period_;
};

}  // namespace gcsim::sim
