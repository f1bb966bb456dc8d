// A recipe's figures as bars (see figures_plot.hpp).
#include "analysis/figures_plot.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <tuple>

#include "analysis/plot_support.hpp"
#include "analysis/plots.hpp"
#include "sim/errors.hpp"

namespace gcsim::analysis {

namespace fs = std::filesystem;
using plotting::gp_number;
using plotting::gp_quote;

std::string write_figures_plot(const std::vector<FigurePanel>& panels, const std::string& title, const std::string& dir,
                               const std::string& name) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error("plot directory '" + dir + "' does not exist");
  std::size_t rows = 0;
  for (const FigurePanel& p : panels) rows += p.bars.size();
  // 44 px a bar with its label above it, 90 px a panel's axis and margins, 60 px the title.
  const int height = static_cast<int>(60 + 90 * panels.size() + 44 * rows);
  const auto draw = [&](Gnuplot& gp) {
    gp << "set multiplot title " << gp_quote(title) << "\n";
    gp << "set style fill solid 0.8 border -1\nset grid xtics\nunset key\nset lmargin at screen 0.04\n"
          "set rmargin at screen 0.95\n";
    double top = 1.0 - 60.0 / height;  // screen fraction below the title
    for (const FigurePanel& p : panels) {
      const double h = (90.0 + 44.0 * p.bars.size()) / height;
      gp << "set tmargin at screen " << gp_number(top - 10.0 / height) << "\nset bmargin at screen "
         << gp_number(top - h + 50.0 / height) << "\n";
      top -= h;
      double lo = 0, hi = 0;
      for (const FigureBar& b : p.bars) {
        lo = std::min(lo, b.value);
        hi = std::max(hi, b.value);
      }
      const double span = hi - lo > 0 ? hi - lo : 1;
      // Room on both sides for the value labels.
      gp << "set xrange [" << gp_number(lo - (lo < 0 ? 0.25 : 0.02) * span) << ":" << gp_number(hi + 0.25 * span) << "]\n";
      gp << "set yrange [" << gp_number(p.bars.size() - 0.5) << ":-0.5]\n";
      gp << "set xlabel " << gp_quote(p.axis) << "\nunset ytics\n";
      // Bars from 0 to the value (boxxyerror: x, y, xlow, xhigh, ylow, yhigh), and the shown
      // figure beyond each bar's end.
      std::vector<std::tuple<double, double, double, double, double, double>> boxes;
      for (std::size_t i = 0; i < p.bars.size(); ++i) {
        const double v = p.bars[i].value, y = static_cast<double>(i);
        boxes.emplace_back(v / 2, y + 0.12, std::min(0.0, v), std::max(0.0, v), y - 0.05, y + 0.3);
      }
      gp << "unset label\n";
      for (std::size_t i = 0; i < p.bars.size(); ++i) {
        const double v = p.bars[i].value;
        // The figure's label above its bar, from the panel's left edge; its value at the bar's end.
        gp << "set label " << 2 * i + 1 << " " << gp_quote(p.bars[i].label) << " at graph 0.005, first " << gp_number(i - 0.22)
           << " left font ',9'\n";
        gp << "set label " << 2 * i + 2 << " " << gp_quote(p.bars[i].shown) << " at " << gp_number(v) << ", "
           << gp_number(i + 0.12) << (v < 0 ? " right offset -0.5, 0" : " left offset 0.5, 0") << " font ',9'\n";
      }
      gp << "plot '-' using 1:2:3:4:5:6 with boxxyerror lc rgb '" << line_colour(0) << "'\n";
      gp.send1d(boxes);
    }
    gp << "unset multiplot\n";
  };
  return plotting::plot_file(dir, name, plotting::PlotFormat::Png, draw, height);
}

}  // namespace gcsim::analysis
