// gcsim plan's picture (see plan_plot.hpp).
#include "analysis/plan_plot.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <tuple>

#include "analysis/plot_support.hpp"
#include "sim/errors.hpp"

namespace gcsim::analysis {

namespace fs = std::filesystem;
using plotting::gp_number;
using plotting::gp_quote;

PlanPlotAxes plan_plot_axes(const std::vector<PlanPlotPoint>& points) {
  std::vector<double> times, costs;
  for (const PlanPlotPoint& p : points) {
    times.insert(times.end(), {p.time_s, p.time_min_s, p.time_max_s});
    costs.insert(costs.end(), {p.cost_usd, p.cost_min_usd, p.cost_max_usd});
  }
  return {wants_log_axis({times}), wants_log_axis({costs})};
}

std::vector<std::string> write_plan_plot(const std::vector<PlanPlotPoint>& points, std::optional<double> deadline_s,
                                         const std::string& title, const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error("plot directory '" + dir + "' does not exist");
  const PlanPlotAxes axes = plan_plot_axes(points);
  double t_lo = std::numeric_limits<double>::infinity(), t_hi = 0;
  for (const PlanPlotPoint& p : points) {
    if (p.time_min_s > 0) t_lo = std::min(t_lo, p.time_min_s);
    t_hi = std::max({t_hi, p.time_max_s, p.time_s});
  }
  if (deadline_s && *deadline_s > 0) {
    t_lo = std::min(t_lo, *deadline_s);
    t_hi = std::max(t_hi, *deadline_s);
  }
  // Linear time in a readable unit; a logarithmic one in seconds with time-named ticks.
  const plotting::TimeUnit unit = plotting::time_unit_for(t_hi);
  const double x_scale = axes.log_time ? 1.0 : 1.0 / unit.seconds;
  // One series per market (point type), spot with its spread as xy error bars; the
  // frontier joined, in order of time.
  using Row = std::tuple<double, double, double, double, double, double>;
  const char* markets[] = {"on-demand", "reserved", "spot"};
  std::vector<std::vector<Row>> series(3);
  std::vector<std::pair<double, double>> front;
  for (const PlanPlotPoint& p : points) {
    const std::size_t m = p.market == "spot" ? 2 : p.market == "reserved" ? 1 : 0;
    series[m].emplace_back(p.time_s * x_scale, p.cost_usd, p.time_min_s * x_scale, p.time_max_s * x_scale, p.cost_min_usd,
                           p.cost_max_usd);
    if (p.frontier) front.emplace_back(p.time_s * x_scale, p.cost_usd);
  }
  std::sort(front.begin(), front.end());
  const auto draw = [&](Gnuplot& gp) {
    gp << "set title " << gp_quote(title) << "\n";
    gp << "set xlabel " << gp_quote(axes.log_time ? "time to finish (log scale)" : std::string("time to finish (") + unit.name + ")")
       << "\nset ylabel " << gp_quote(axes.log_cost ? "cost (USD, log scale)" : "cost (USD)") << "\n";
    gp << "set key outside below\nset grid\n";
    if (axes.log_time) plotting::set_log_time_x(gp, t_lo / 1.5, t_hi * 1.5);
    else gp << "set xrange [0:*]\nset offsets 0, graph 0.05, graph 0.05, 0\n";
    if (axes.log_cost) gp << "set logscale y\n";
    else gp << "set yrange [0:*]\n";
    if (deadline_s)
      gp << "set arrow 1 from " << gp_number(*deadline_s * x_scale) << ", graph 0 to " << gp_number(*deadline_s * x_scale)
         << ", graph 1 nohead lw 2 dt 2 lc rgb '#c00000'\nset label 1 "
         << gp_quote("deadline") << " at " << gp_number(*deadline_s * x_scale) << ", graph 0.97 left offset 0.5, 0 tc rgb '#c00000'\n";
    // The frontier's candidates named beside their points (the first 12, by time).
    std::vector<const PlanPlotPoint*> named;
    for (const PlanPlotPoint& p : points)
      if (p.frontier) named.push_back(&p);
    std::sort(named.begin(), named.end(), [](const PlanPlotPoint* a, const PlanPlotPoint* b) { return a->time_s < b->time_s; });
    for (std::size_t i = 0; i < named.size() && i < 12; ++i) {
      // Beside the point, on its left in the right third of the picture so that it stays in.
      const double t = named[i]->time_s;
      const double at = axes.log_time ? std::log(t / t_lo) / std::log(t_hi / t_lo) : t / t_hi;
      gp << "set label " << 10 + i << " " << gp_quote(named[i]->label) << " at " << gp_number(t * x_scale) << ", "
         << gp_number(named[i]->cost_usd) << (at > 0.66 ? " right offset -1, " : " left offset 1, ")
         << (i % 2 == 0 ? "0.8" : "-0.8") << " font ',8'\n";
    }
    std::vector<std::string> parts;
    std::vector<std::size_t> sent;
    for (std::size_t m = 0; m < 3; ++m) {
      if (series[m].empty()) continue;
      const std::string style = m == 2 ? "using 1:2:3:4:5:6 with xyerrorbars pt 7 ps 1" : "using 1:2 with points pt " +
                                                                                            std::string(m == 0 ? "5" : "9") + " ps 1.2";
      parts.push_back("'-' " + style + " lc rgb '" + line_colour(m) + "' title " + gp_quote(std::string(markets[m])));
      sent.push_back(m);
    }
    if (!front.empty())
      parts.push_back("'-' using 1:2 with linespoints lw 2 pt 6 ps 2.2 lc rgb '" + line_colour(3) +
                      "' title 'Pareto frontier (cheaper than every faster candidate)'");
    if (parts.empty()) {
      gp << "set label 2 'nothing to draw: no candidate finished' at graph 0.5, graph 0.5 center\nplot 2 notitle\n";
      return;
    }
    gp << "plot ";
    for (std::size_t i = 0; i < parts.size(); ++i) gp << (i > 0 ? ", " : "") << parts[i];
    gp << "\n";
    for (const std::size_t m : sent) gp.send1d(series[m]);
    if (!front.empty()) gp.send1d(front);
  };
  return {plotting::plot_file(dir, "plan", plotting::PlotFormat::Png, draw),
          plotting::plot_file(dir, "plan", plotting::PlotFormat::Svg, draw)};
}

}  // namespace gcsim::analysis
