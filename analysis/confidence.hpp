// Means of replications with their 95% confidence intervals, for `gcsim compare
// --replications R` (docs/analysis.md, "Comparing strategies").
#pragma once

#include <cstddef>
#include <span>

namespace gcsim::analysis {

// The 0.975 quantile of Student's t distribution with `degrees_of_freedom` (>= 1): the
// tabulated value for 1..30 (NIST/SEMATECH e-Handbook of Statistical Methods, section
// 1.3.6.7.2, "Critical values of the Student's t distribution", column 0.975), and the
// normal 1.96 beyond (t(30) = 2.042 already differs from it by 4%, t(60) = 2.000 by 2%).
double t_quantile_975(std::size_t degrees_of_freedom);

// The mean of a sample with the half-width of its two-sided 95% Student t interval,
// t_{0.975, n-1} s / sqrt(n), s the sample standard deviation (n - 1 in the denominator).
// NaN values (a figure a replication does not define) are left out and n counts the rest;
// mean is NaN when n = 0, half_width when n < 2.
struct MeanInterval {
  std::size_t n = 0;
  double mean = 0;
  double half_width = 0;
};
MeanInterval mean_ci95(std::span<const double> values);

}  // namespace gcsim::analysis
