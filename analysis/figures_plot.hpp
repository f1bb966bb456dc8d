// A chart of a recipe's headline figures (gcsim cookbook run -o, docs/cookbook.md): one
// horizontal bar per figure, grouped into one panel per unit (figures of different units
// share no axis), each bar labelled with the figure as the recipe shows it. PNG, written as
// the other plots are (analysis/plot_support.hpp).
#pragma once

#include <string>
#include <vector>

namespace gcsim::analysis {

struct FigureBar {
  std::string label;  // "BERT-large training time, PCIe 3.0 against 4.0"
  double value = 0;   // in the panel's unit
  std::string shown;  // "+29.0%"
};

struct FigurePanel {
  std::string axis;  // "change (%)", "ratio (x)", "USD"
  std::vector<FigureBar> bars;
};

// Writes `dir`/`name`.png (the folder must exist) and returns its path; `title` heads it.
// Throws gcsim::Error when gnuplot fails.
std::string write_figures_plot(const std::vector<FigurePanel>& panels, const std::string& title, const std::string& dir,
                               const std::string& name);

}  // namespace gcsim::analysis
