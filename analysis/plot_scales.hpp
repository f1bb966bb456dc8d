// The data-side decisions of the plots, apart from gnuplot so that tests can check them:
// the colours and dash types of overlaid lines, when an axis goes logarithmic, the tick
// steps of count and money axes and their labels, and the ticks of a logarithmic time axis.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gcsim::analysis {

// Overlaid lines: LINE_COLOURS colours ("#rrggbb"), none repeated, dark enough to read on
// white and apart in hue or lightness (blue, orange, green, red, purple, brown, pink, grey,
// olive, cyan, black, navy). Line i takes colour i mod 12 and dash type 1 + i mod 5 (a
// gnuplot `dt`), so that lines drawn over each other show the one beneath and that no two
// of the first 60 lines look the same.
constexpr std::size_t LINE_COLOURS = 12;
std::string line_colour(std::size_t i);
int line_dash(std::size_t i);

// A logarithmic axis when the positive values span more than LOG_AXIS_RATIO (the largest
// over the smallest positive one): on a linear axis the small ones would crowd into the
// first pixels. Values <= 0 and non-finite ones take no part; false with fewer than two
// distinct positive values.
constexpr double LOG_AXIS_RATIO = 100;
bool wants_log_axis(const std::vector<std::vector<double>>& samples);

// The step between ticks of an axis from 0 to `top`: 1, 2 or 5 times a power of ten, the
// smallest giving at most `max_intervals` intervals. On a count axis (`whole`: GPUs, jobs)
// at least 1, so that no tick falls between two counts. 1 for top <= 0 or not finite.
double tick_step(double top, int max_intervals, bool whole);

struct Tick {
  double value = 0;
  std::string label;
};

// The ticks of a money axis from 0 to at least `top` (the last tick is the first at or
// above it), at tick_step(top, max_intervals, false) apart, labelled as gcsim prints money
// (units::format_usd) without the cents when the step is a whole number of dollars:
// "$0", "$200,000", "$400,000".
std::vector<Tick> money_ticks(double top, int max_intervals);

// The ticks of a count axis (GPUs, jobs) from 0 to at least `top`, at
// tick_step(top, max_intervals, true) apart: "0", "20", ..., "1,000" (separated as the
// reports print counts). Never a tick between two whole numbers.
std::vector<Tick> count_ticks(double top, int max_intervals);

// The ticks of a logarithmic time axis over [lo_s, hi_s] seconds: those of 1ms, 10ms,
// 100ms, 1s, 10s, 1m, 10m, 1h, 6h, 1d, 7d, 30d and 365d inside it (labels as written here).
std::vector<Tick> log_time_ticks(double lo_s, double hi_s);

}  // namespace gcsim::analysis
