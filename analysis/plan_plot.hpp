// gcsim plan's picture (docs/plan.md, "The plot"): every candidate's cost against its time
// to finish, the Pareto frontier marked and joined, spot candidates' spread over their
// replications as error bars, the deadline as a vertical line; PNG and SVG, written as
// gcsim compare and gcsim sweep write theirs (analysis/plot_support.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gcsim::analysis {

struct PlanPlotPoint {
  std::string label;   // "aws/p4d.24xlarge spot x2"
  std::string market;  // on-demand | spot | reserved
  double time_s = 0, cost_usd = 0;
  double time_min_s = 0, time_max_s = 0, cost_min_usd = 0, cost_max_usd = 0;  // the spread (= the mean without one)
  bool frontier = false;
};

// Which axes go logarithmic: the times', the costs' (wants_log_axis over every value drawn).
struct PlanPlotAxes {
  bool log_time = false;
  bool log_cost = false;
};
PlanPlotAxes plan_plot_axes(const std::vector<PlanPlotPoint>& points);

// Writes `dir`/plan.png and plan.svg (the folder must exist); returns their paths. Throws
// gcsim::Error when gnuplot fails. `title` heads the picture.
std::vector<std::string> write_plan_plot(const std::vector<PlanPlotPoint>& points, std::optional<double> deadline_s,
                                         const std::string& title, const std::string& dir);

}  // namespace gcsim::analysis
