// Student t intervals (see confidence.hpp).
#include "analysis/confidence.hpp"

#include <array>
#include <cmath>

#include "analysis/metrics.hpp"

namespace gcsim::analysis {

namespace {
// t_{0.975, df} for df = 1..30, NIST/SEMATECH e-Handbook, table 1.3.6.7.2.
constexpr std::array<double, 30> T_975 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                          2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                          2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
constexpr double NORMAL_975 = 1.96;
}  // namespace

double t_quantile_975(std::size_t degrees_of_freedom) {
  if (degrees_of_freedom == 0) return NOT_A_NUMBER;
  return degrees_of_freedom <= T_975.size() ? T_975[degrees_of_freedom - 1] : NORMAL_975;
}

MeanInterval mean_ci95(std::span<const double> values) {
  MeanInterval out;
  double sum = 0;
  for (double v : values) {
    if (std::isnan(v)) continue;
    ++out.n;
    sum += v;
  }
  if (out.n == 0) return {0, NOT_A_NUMBER, NOT_A_NUMBER};
  out.mean = sum / static_cast<double>(out.n);
  if (out.n < 2) {
    out.half_width = NOT_A_NUMBER;
    return out;
  }
  double squares = 0;
  for (double v : values)
    if (!std::isnan(v)) squares += (v - out.mean) * (v - out.mean);
  const double s = std::sqrt(squares / static_cast<double>(out.n - 1));
  out.half_width = t_quantile_975(out.n - 1) * s / std::sqrt(static_cast<double>(out.n));
  return out;
}

}  // namespace gcsim::analysis
