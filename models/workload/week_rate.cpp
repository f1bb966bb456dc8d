// The hour-of-week arrival rate (see week_rate.hpp).
#include "models/workload/week_rate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/calendar.hpp"

namespace gcsim::models {

namespace {
constexpr std::int64_t HOUR_NS = 3'600'000'000'000;
constexpr std::int64_t LAST_NS = std::numeric_limits<std::int64_t>::max();
}  // namespace

WeekRate WeekRate::from_hours(const double* values, std::size_t n) {
  WeekRate r;
  for (int h = 0; h < HOURS; ++h) r.per_hour[static_cast<std::size_t>(h)] = values[static_cast<std::size_t>(h) % n];
  r.per_week = 0;
  for (const double v : r.per_hour) r.per_week += v;
  return r;
}

sim::SimTime WeekRate::advance(sim::SimTime t, double jobs) const {
  std::int64_t ns = t.ns();
  if (!(jobs > 0)) return t;
  if (jobs > per_week) {
    // Whole weeks at once, leaving (0, per_week]: at most a week of hours is walked below.
    const double weeks = std::ceil(jobs / per_week) - 1;
    if (weeks * static_cast<double>(sim::WEEK_NS) >= static_cast<double>(LAST_NS - ns)) return sim::SimTime::max();
    ns += static_cast<std::int64_t>(weeks) * sim::WEEK_NS;
    jobs = std::max(0.0, jobs - weeks * per_week);
  }
  // Each hour: the jobs it holds from ns to its end; the arrival is in the first hour that
  // holds what is left. Rounding can leave a sliver past a week's worth: the walk then
  // goes on into the next week (at most two weeks of hours in all).
  for (int step = 0; step < 2 * HOURS + 1; ++step) {
    if (ns > LAST_NS - HOUR_NS) return sim::SimTime::max();
    const std::int64_t hour_end = (ns / HOUR_NS + 1) * HOUR_NS;
    const double rate = per_hour[static_cast<std::size_t>((ns % sim::WEEK_NS) / HOUR_NS)];
    const double held = rate * static_cast<double>(hour_end - ns) / static_cast<double>(HOUR_NS);
    // The first time the integral reaches `jobs`: where it is reached exactly at an
    // hour's end, that end, not the start of the next hour with a rate.
    if (rate > 0 && jobs <= held) {
      const auto into = static_cast<std::int64_t>(std::llround(jobs / rate * static_cast<double>(HOUR_NS)));
      return sim::SimTime::from_ns(std::min(ns + into, hour_end));
    }
    jobs -= held;
    ns = hour_end;
  }
  return sim::SimTime::from_ns(ns);
}

double WeekRate::expected_before(sim::SimTime t) const {
  const std::int64_t ns = t.ns();
  const std::int64_t weeks = ns / sim::WEEK_NS;
  std::int64_t rest = ns % sim::WEEK_NS;
  double jobs = static_cast<double>(weeks) * per_week;
  for (std::size_t h = 0; rest > 0; ++h, rest -= HOUR_NS)
    jobs += per_hour[h] * static_cast<double>(std::min(rest, HOUR_NS)) / static_cast<double>(HOUR_NS);
  return jobs;
}

}  // namespace gcsim::models
