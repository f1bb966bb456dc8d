// Distributions for generated workloads. Any field that takes a distribution also takes a
// plain value (a constant). Sampling draws only from the stream it is given; bounds make
// a draw outside [min, max] be redrawn (truncation), which keeps the shape inside the
// bounds and never blocks: after 1000 rejected draws the value is clamped.
#pragma once

#include <limits>
#include <vector>

#include "sim/rng.hpp"

namespace gcsim::models {

struct Distribution {
  enum class Kind { Constant, Exponential, Uniform, Normal, Lognormal, Choice, Empirical };
  Kind kind = Kind::Constant;
  // constant: value; exponential: mean; uniform: lo; normal: mean; lognormal: median;
  // empirical: the median (for summaries: the draws use `values`)
  double p1 = 0;
  double p2 = 0;  // uniform: hi; normal: stddev; lognormal: sigma
  std::vector<double> values;   // choice; empirical: the quantiles, non-decreasing, >= 2
  std::vector<double> weights;  // choice (same length; equal when not given)
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();

  static Distribution constant(double v) {
    Distribution d;
    d.p1 = v;
    return d;
  }
  // Empirical from its quantiles (at least two, non-decreasing: not checked here).
  static Distribution empirical(std::vector<double> quantiles);
  double sample(sim::RngStream& rng) const;
  // Smallest and largest values a draw can take (used to validate feasibility up front).
  double lowest() const;
  double highest() const;
};

}  // namespace gcsim::models
