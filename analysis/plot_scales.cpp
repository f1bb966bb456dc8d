// See plot_scales.hpp.
#include "analysis/plot_scales.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "analysis/report.hpp"
#include "sim/units.hpp"

namespace gcsim::analysis {

namespace {

// Ten colours of the usual categorical set for line charts, then black and a dark
// magenta, which differ from all ten in lightness or hue.
constexpr std::array<const char*, LINE_COLOURS> COLOURS{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                                        "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                                        "#bcbd22", "#17becf", "#000000", "#8b008b"};

}  // namespace

std::string line_colour(std::size_t i) { return COLOURS[i % LINE_COLOURS]; }

int line_dash(std::size_t i) { return 1 + static_cast<int>(i % 5); }

bool wants_log_axis(const std::vector<std::vector<double>>& samples) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = 0;
  for (const auto& s : samples)
    for (const double v : s) {
      if (!(v > 0) || !std::isfinite(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  return hi > 0 && hi > LOG_AXIS_RATIO * lo;
}

double tick_step(double top, int max_intervals, bool whole) {
  if (!(top > 0) || !std::isfinite(top) || max_intervals < 1) return 1;
  const double rough = top / max_intervals;
  double power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = power;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step * max_intervals >= top * (1 - 1e-12)) break;
  }
  return whole ? std::max(1.0, step) : step;
}

namespace {

// Ticks k x step from 0 until the first at or above `top`, labelled by `label`.
template <typename Label>
std::vector<Tick> ticks_to(double top, double step, Label&& label) {
  std::vector<Tick> out;
  for (int k = 0;; ++k) {
    const double v = k * step;
    out.push_back({v, label(v)});
    if (!(v < top * (1 - 1e-12)) || k >= 1000) break;
  }
  return out;
}

}  // namespace

std::vector<Tick> money_ticks(double top, int max_intervals) {
  const double step = tick_step(top, max_intervals, false);
  const bool whole = step >= 1 && std::floor(step) == step;
  return ticks_to(top, step, [whole](double v) {
    std::string label = units::format_usd(v);
    if (whole) label.resize(label.size() - 3);  // ".00"
    return label;
  });
}

std::vector<Tick> count_ticks(double top, int max_intervals) {
  return ticks_to(top, tick_step(top, max_intervals, true), [](double v) { return format_count(v, 0); });
}

std::vector<Tick> log_time_ticks(double lo_s, double hi_s) {
  static const std::array<Tick, 13> LADDER{{{1e-3, "1ms"},
                                            {1e-2, "10ms"},
                                            {0.1, "100ms"},
                                            {1, "1s"},
                                            {10, "10s"},
                                            {60, "1m"},
                                            {600, "10m"},
                                            {3600, "1h"},
                                            {6 * 3600, "6h"},
                                            {86400, "1d"},
                                            {7 * 86400, "7d"},
                                            {30 * 86400, "30d"},
                                            {365 * 86400, "365d"}}};
  std::vector<Tick> out;
  for (const Tick& t : LADDER)
    if (t.value >= lo_s * (1 - 1e-12) && t.value <= hi_s * (1 + 1e-12)) out.push_back(t);
  return out;
}

}  // namespace gcsim::analysis
