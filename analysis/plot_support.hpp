// What the plot writers share (analysis/plots.cpp, analysis/overlay_plots.cpp): one gnuplot
// session per picture, written atomically; the picture's size and the plot area of the time
// plots; time units for axes; step functions reduced to pixel columns. Includes
// gnuplot-iostream, so only those .cpp files include it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gnuplot-iostream.h>

#include "analysis/pixel_steps.hpp"
#include "analysis/plot_scales.hpp"

namespace gcsim::analysis::plotting {

using Points = std::vector<std::pair<double, double>>;

// The picture, and the plot area of the time plots fixed in pixels (margins set "at
// screen"), so that one reduced column is one pixel column of the PNG.
constexpr int WIDTH_PX = 1000;
constexpr int HEIGHT_PX = 600;
constexpr int PLOT_LEFT_PX = 110;  // room for "$10,000,000" and the axis label
constexpr int PLOT_RIGHT_PX = 980;
constexpr std::size_t PLOT_COLUMNS = PLOT_RIGHT_PX - PLOT_LEFT_PX;
constexpr std::size_t CDF_POINTS = 2000;

// A time unit that keeps axis numbers readable.
struct TimeUnit {
  double seconds;
  const char* name;
};
TimeUnit time_unit_for(double span_s);

// gnuplot_text (plots.hpp): the only way text reaches a script.
std::string gp_quote(const std::string& s);

enum class PlotFormat { Png, Svg };

// Runs one gnuplot session writing `dir`/`name`.png (pngcairo) or .svg: `draw` writes the
// plot commands and data after the terminal is set. The file appears only when complete
// (sim/atomic_file.hpp). Returns its path; throws gcsim::Error("gnuplot failed ...") when
// gnuplot is missing or leaves an empty file.
std::string plot_file(const std::filesystem::path& dir, const std::string& name, PlotFormat format,
                      const std::function<void(Gnuplot&)>& draw, int height_px = HEIGHT_PX);
inline std::string plot_png(const std::filesystem::path& dir, const std::string& name,
                            const std::function<void(Gnuplot&)>& draw) {
  return plot_file(dir, name, PlotFormat::Png, draw);
}

// The plot area of a time plot at PLOT_COLUMNS pixel columns over [0, end].
void set_time_area(Gnuplot& gp, double end_s, const TimeUnit& unit);

// A step function reduced to pixel columns, ready for gnuplot: `line` (the max of each
// column, "with steps", the last value repeated at the end), `mean` (the time-weighted mean
// of each column, the same way) and `band` (x_from, x_to, min, max of the columns whose min
// and max differ, "with boxxyerror").
struct PixelSeries {
  Points line;
  Points mean;
  std::vector<std::tuple<double, double, double, double>> band;
};
PixelSeries pixel_series(const std::vector<StepPoint>& steps, double end_s, double unit_s);

// A number as gnuplot reads it back exactly (the stream's default keeps 6 digits).
std::string gp_number(double v);

// `set Ntics (...)`: exactly these ticks on `axis` ("x", "y"), labels quoted by gp_quote.
std::string tics_command(const std::string& axis, const std::vector<Tick>& ticks);

// A y axis from 0 to `data_top` and `headroom` of it above (room for the interruption
// ticks), with those of `ticks` inside it; when that is only the one at 0, the axis goes
// up to the last of `ticks` (the first at or above `data_top`) and shows them all.
void set_y_ticks(Gnuplot& gp, const std::vector<Tick>& ticks, double data_top, double headroom = 0);

// A logarithmic x axis over [lo_s, hi_s] seconds, ticked by log_time_ticks.
void set_log_time_x(Gnuplot& gp, double lo_s, double hi_s);

}  // namespace gcsim::analysis::plotting
