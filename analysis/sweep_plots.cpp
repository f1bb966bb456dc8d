// A sweep's plots (see sweep_plots.hpp).
#include "analysis/sweep_plots.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>

#include "analysis/plot_support.hpp"
#include "analysis/strategy_comparison.hpp"
#include "sim/errors.hpp"

namespace gcsim::analysis {

namespace fs = std::filesystem;
using plotting::gp_quote;

namespace {

bool number_of(const std::string& text, double& v) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size() && std::isfinite(v);
}

// The keys whose every value is a number: the x axes.
std::vector<std::size_t> numeric_keys(const SweepTable& t) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < t.keys.size(); ++k) {
    bool all = !t.points.empty();
    double v = 0;
    for (const auto& p : t.points) all = all && number_of(p.values[k], v);
    if (all) out.push_back(k);
  }
  return out;
}

std::string file_part(const std::string& key) {
  std::string out;
  for (const char c : key)
    out += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-') ? c : '_';
  return out;
}

}  // namespace

std::vector<std::string> sweep_plot_names(const SweepTable& table) {
  std::vector<std::string> names;
  for (const std::string& m : table.metrics)
    for (const std::size_t k : numeric_keys(table)) names.push_back("sweep_" + m + "_vs_" + file_part(table.keys[k]));
  return names;
}

std::vector<std::string> write_sweep_plots(const SweepTable& table, const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error("plot directory '" + dir + "' does not exist");
  std::vector<std::string> paths;
  const std::vector<std::size_t> xs = numeric_keys(table);
  for (std::size_t m = 0; m < table.metrics.size(); ++m) {
    const std::string& metric = table.metrics[m];
    const FigureUnit unit = figure_unit(metric);
    // The y axis in a readable unit: time in the unit of its largest value, shares in %.
    double largest = 0;
    for (const auto& p : table.points)
      if (std::isfinite(p.mean[m])) largest = std::max(largest, std::fabs(p.mean[m]));
    double scale = 1;
    std::string y_label = metric;
    if (unit == FigureUnit::Seconds) {
      const plotting::TimeUnit u = plotting::time_unit_for(largest);
      scale = 1 / u.seconds;
      y_label += std::string(" (") + u.name + ")";
    } else if (unit == FigureUnit::Fraction) {
      scale = 100;
      y_label += " (%)";
    } else if (unit == FigureUnit::Usd) {
      y_label += " (USD)";
    } else if (unit == FigureUnit::GpuHours) {
      y_label += " (GPU-hours)";
    }
    for (const std::size_t k : xs) {
      // One line per combination of the other keys' values, in order of appearance.
      std::vector<std::string> labels;
      std::map<std::string, std::vector<std::tuple<double, double, double>>> lines;
      for (const auto& p : table.points) {
        std::string label;
        for (std::size_t o = 0; o < table.keys.size(); ++o)
          if (o != k) label += (label.empty() ? "" : ", ") + table.keys[o] + " = " + p.values[o];
        if (label.empty()) label = metric;
        if (!lines.contains(label)) labels.push_back(label);
        double x = 0;
        number_of(p.values[k], x);
        if (std::isfinite(p.mean[m]))
          lines[label].emplace_back(x, p.mean[m] * scale, std::isfinite(p.ci95[m]) ? p.ci95[m] * scale : 0.0);
      }
      for (auto& [label, pts] : lines) std::sort(pts.begin(), pts.end());
      const std::string name = "sweep_" + metric + "_vs_" + file_part(table.keys[k]);
      const auto draw = [&](Gnuplot& gp) {
        gp << "set title " << gp_quote(metric + " against " + table.keys[k] + " (mean and 95% interval over each point's runs)")
           << "\n";
        gp << "set xlabel " << gp_quote(table.keys[k]) << "\nset ylabel " << gp_quote(y_label) << "\n";
        gp << "set key outside below\nset offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n";
        std::vector<const std::string*> drawn;
        for (const std::string& l : labels)
          if (!lines[l].empty()) drawn.push_back(&l);
        if (drawn.empty()) {
          gp << "set label 1 'nothing to draw: no point has this figure' at graph 0.5, graph 0.5 center\nplot 2 notitle\n";
          return;
        }
        gp << "plot ";
        for (std::size_t i = 0; i < drawn.size(); ++i)
          gp << (i > 0 ? ", " : "") << "'-' using 1:2:3 with yerrorlines lw 2 lc rgb '" << line_colour(i) << "' dt "
             << line_dash(i) << " title " << gp_quote(*drawn[i]);
        gp << "\n";
        for (const std::string* l : drawn) gp.send1d(lines[*l]);
      };
      paths.push_back(plotting::plot_file(dir, name, plotting::PlotFormat::Png, draw));
      paths.push_back(plotting::plot_file(dir, name, plotting::PlotFormat::Svg, draw));
    }
  }
  return paths;
}

}  // namespace gcsim::analysis
