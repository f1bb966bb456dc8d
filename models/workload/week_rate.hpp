// An arrival rate that varies by hour of the week: a non-homogeneous Poisson process whose
// rate is constant within each hour and repeats every week (time 0 is Monday 00:00, as
// for `active:`). Sampled by inverting the cumulative rate: the n-th arrival is where the
// rate integrated from the start reaches E1 + ... + En, with Ei ~ Exp(1) (Cinlar's method,
// e.g. Law, "Simulation Modeling and Analysis", 5th ed., section 8.6.2); exact, with no
// rejected draws, so each arrival takes one draw from its stream.
#pragma once

#include <array>
#include <cstdint>

#include "sim/time.hpp"

namespace gcsim::models {

struct WeekRate {
  static constexpr int HOURS = 168;
  std::array<double, HOURS> per_hour{};  // jobs per hour, Monday 00:00-01:00 first; >= 0, finite
  double per_week = 0;                   // their sum (> 0)

  // From 168 values, or 24 (every day alike), each >= 0 and not all 0: not checked here.
  static WeekRate from_hours(const double* values, std::size_t n);
  // The first time at which the rate integrated over [t, result) reaches `jobs` (>= 0): the next
  // arrival after t for jobs ~ Exp(1). SimTime::max() past the time range.
  sim::SimTime advance(sim::SimTime t, double jobs) const;
  // The rate integrated over [0, t): the expected count of arrivals before t.
  double expected_before(sim::SimTime t) const;
};

}  // namespace gcsim::models
