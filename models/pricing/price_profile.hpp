// A price that changes over time: a profile (sim/profile.hpp) of USD per hour per node,
// from t = 0, optionally repeating with a period (a weekly profile). Spot prices are
// these; a constant price is one point. Parsing lives with the pricing specs
// (price_spec.hpp); billing integrates cost_usd over a node's up time and price-driven
// interruptions look for crossings with next_change_after.
#pragma once

#include "sim/profile.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

using PricePoint = sim::ProfilePoint<double>;  // value: USD per hour per node
using PriceProfile = sim::Profile<double>;

// USD for one node over [from, to): the integral of the price, exact per piece.
inline double cost_usd(const PriceProfile& price, sim::SimTime from, sim::SimTime to) {
  double usd = 0;
  price.for_each_piece(from, to, [&](double usd_per_hour, sim::SimTime a, sim::SimTime b) {
    usd += usd_per_hour * (b - a).seconds() / 3600.0;
  });
  return usd;
}

}  // namespace gcsim::models
