// Step functions reduced to the columns of a picture: per pixel column, the smallest and
// the largest value the function takes over that column's time span. A plot drawn from
// these keeps a constant total flat however many rows the trace has, shows a spike one
// tick long in its column, and never draws a value the function did not take (a binned
// mean would draw both dips and values in between). Pure functions, so they are tested
// against hand-computed cases (tests/analysis/test_pixel_steps.cpp).
#pragma once

#include <cstddef>
#include <vector>

namespace gcsim::analysis {

// One step: `value` holds from `time_s` up to the next step's time (the last one up to the
// end of the picture). Steps are in ascending time order; several at one time are allowed
// (the last one is the value from then on).
struct StepPoint {
  double time_s = 0;
  double value = 0;
};

// One pixel column, [from_s, to_s). `has_value` is false where the function is not defined
// yet (before its first step); min, max and mean are then 0. `mean` is the time-weighted
// mean over the part of the column where the function is defined (the comparison's strips
// draw it, with the band from min to max).
struct PixelColumn {
  double from_s = 0;
  double to_s = 0;
  bool has_value = false;
  double min = 0;
  double max = 0;
  double mean = 0;
};

// The `columns` columns of equal width covering [start_s, end_s] (the last one includes
// end_s), each with the min, max and time-weighted mean of the values held for a positive time inside it. A
// step held for no time (another step at the same time follows it) takes no part. Steps
// before start_s count from start_s; the last step is held to end_s. Returns no column
// when columns is 0 or end_s <= start_s. O(steps + columns).
std::vector<PixelColumn> reduce_steps_to_pixels(const std::vector<StepPoint>& steps, double start_s, double end_s,
                                                std::size_t columns);

// Instants (interruptions) counted per pixel column of [start_s, end_s] (the columns of
// reduce_steps_to_pixels): only the columns holding at least one, in time order, whatever
// the order of `times_s`. Instants outside [start_s, end_s] are dropped.
struct PixelMark {
  double from_s = 0;
  double to_s = 0;
  std::size_t count = 0;
};
std::vector<PixelMark> marks_per_pixel(const std::vector<double>& times_s, double start_s, double end_s,
                                       std::size_t columns);

}  // namespace gcsim::analysis
