// A price that changes over time: piecewise constant, USD per hour per node, given as
// change points (time, price) from t = 0, optionally repeating with a period (a weekly
// profile). Spot prices are these; a constant price is one point. Parsing lives with the
// pricing specs (price_spec.hpp); billing integrates cost_usd over a node's up time and
// price-driven interruptions look for crossings with next_change_after.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <vector>

#include "sim/time.hpp"

namespace gcsim::models {

struct PricePoint {
  sim::SimTime at;            // from the start of the run (or of each period)
  double usd_per_hour = 0;
};

class PriceProfile {
 public:
  PriceProfile() = default;
  explicit PriceProfile(double usd_per_hour) : points_{{sim::SimTime::zero(), usd_per_hour}} {}
  // `points` sorted by time, strictly increasing, the first at 0; `period` zero for none,
  // else greater than the last point's time.
  PriceProfile(std::vector<PricePoint> points, sim::SimTime period) : points_(std::move(points)), period_(period) {
    assert(!points_.empty() && points_.front().at == sim::SimTime::zero());
  }

  bool empty() const { return points_.empty(); }
  bool constant() const { return points_.size() == 1; }
  const std::vector<PricePoint>& points() const { return points_; }
  sim::SimTime period() const { return period_; }

  // The price in force at t (t >= 0).
  double usd_per_hour_at(sim::SimTime t) const { return points_[index_at(fold(t))].usd_per_hour; }

  // The first time after t at which the price changes; SimTime::max() when it never does.
  sim::SimTime next_change_after(sim::SimTime t) const {
    if (points_.size() == 1) return sim::SimTime::max();
    const sim::SimTime base = t - fold(t);
    const std::size_t i = index_at(fold(t));
    if (i + 1 < points_.size()) return base + points_[i + 1].at;
    if (period_ > sim::SimTime::zero()) return base + period_;
    return sim::SimTime::max();
  }

  // USD for one node over [from, to): the integral of the price, exact per piece.
  double cost_usd(sim::SimTime from, sim::SimTime to) const {
    double usd = 0;
    while (from < to) {
      const sim::SimTime next = std::min(to, next_change_after(from));
      usd += usd_per_hour_at(from) * (next - from).seconds() / 3600.0;
      from = next;
    }
    return usd;
  }

 private:
  sim::SimTime fold(sim::SimTime t) const {
    if (period_ <= sim::SimTime::zero()) return t;
    return sim::SimTime::from_ns(t.ns() % period_.ns());
  }
  std::size_t index_at(sim::SimTime folded) const {
    auto it = std::upper_bound(points_.begin(), points_.end(), folded,
                               [](sim::SimTime v, const PricePoint& p) { return v < p.at; });
    return static_cast<std::size_t>(it - points_.begin()) - 1;
  }

  std::vector<PricePoint> points_;
  sim::SimTime period_;
};

}  // namespace gcsim::models
