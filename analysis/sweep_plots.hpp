// A sweep's plots (docs/sweeps.md, "Plots"): each metric against each numeric varied key,
// one line per combination of the other keys' values, each point's mean with its 95%
// interval as an error bar; PNG and SVG, as gcsim compare writes its plots.
#pragma once

#include <string>
#include <vector>

#include "analysis/sweep_report.hpp"

namespace gcsim::analysis {

// The plots' file names (without extension): "sweep_<metric>_vs_<key>", the key's
// characters other than letters, digits, '_' and '-' as '_'; one per metric and numeric key.
std::vector<std::string> sweep_plot_names(const SweepTable& table);
// Writes them into `dir` (which must exist); returns the paths written. Throws gcsim::Error
// when gnuplot fails.
std::vector<std::string> write_sweep_plots(const SweepTable& table, const std::string& dir);

}  // namespace gcsim::analysis
