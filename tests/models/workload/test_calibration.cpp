// The step-time model against the V100 measurements it was fitted to: every row of
// training_throughput_v100.csv reproduced within its documented residual, and (hidden,
// [.calibrate]) the fit itself, which prints the constants and the residual table that
// docs/step-time.md carries.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "tests/models/workload/calibration_rows.hpp"

using gcsim::models::Calibration;
using gcsim::models::default_calibration;
using gcsim::models::estimate_step;

namespace gcsim::test {

// |model / measured - 1| bounds, rounded up to the next percent, CSV row order.
std::vector<double> documented_residuals() {
  return {0.04, 0.07, 0.04, 0.05, 0.01, 0.04, 0.01, 0.09, 0.14, 0.16, 0.09, 0.09, 0.18,
          0.19, 0.12, 0.01, 0.05, 0.07, 0.12, 0.15, 0.44, 0.46, 0.44, 0.46, 0.24, 0.28,
          0.13, 0.14, 0.06, 0.06, 0.06, 0.05, 0.03, 0.07, 0.20, 0.32, 0.33, 0.29};
}

}  // namespace gcsim::test

namespace {

double objective(const std::vector<gcsim::test::CalibrationRow>& rows, const Calibration& c) {
  double sum = 0;
  for (const auto& r : rows) {
    if (!r.in_fit) continue;
    const double model = estimate_step(r.job, r.hw, c).samples_per_s;
    const double d = std::log(model / r.measured);
    sum += d * d;
  }
  return sum;
}

}  // namespace

TEST_CASE("V100 rows are reproduced within their documented residuals", "[model][calibration]") {
  const auto rows = gcsim::test::calibration_rows();
  REQUIRE(rows.size() == 38);
  for (const auto& r : rows) {
    const double model = estimate_step(r.job, r.hw).samples_per_s;
    const double residual = model / r.measured - 1;
    INFO(r.label << ": model " << model << " measured " << r.measured << " residual " << residual);
    CHECK(std::fabs(residual) <= r.documented + 1e-9);
  }
}

TEST_CASE("Fit the efficiency constants on the V100 rows", "[.calibrate]") {
  const auto rows = gcsim::test::calibration_rows();
  Calibration c = default_calibration();
  c.overlap_fraction = 0.5;
  double* params[] = {&c.tensor_efficiency, &c.simt_efficiency, &c.memory_efficiency, &c.kernel_overhead_s,
                      &c.straggler_sigma, &c.gpu_decode_cpu_share, &c.overlap_fraction};
  const char* names[] = {"tensor_efficiency", "simt_efficiency", "memory_efficiency", "kernel_overhead_s",
                         "straggler_sigma", "gpu_decode_cpu_share", "overlap_fraction"};
  // Physical ranges: per-kernel overhead 1-20 us (CUDA launch latency up to eager-mode
  // framework dispatch per op), efficiencies up to 95%.
  // overlap_fraction is held at 0.5 (docs/step-time.md: the rows cannot identify it).
  const double lo[] = {0.05, 0.05, 0.05, 1e-6, 0.0, 0.05, 0.5};
  const double hi[] = {0.95, 0.95, 0.95, 20e-6, 0.2, 1.0, 0.5};
  double best = objective(rows, c);
  // Coordinate search with shrinking multiplicative steps: a handful of smooth parameters.
  for (double step = 0.2; step > 1e-4; step *= 0.5) {
    bool improved = true;
    while (improved) {
      improved = false;
      for (int i = 0; i < 7; ++i) {
        for (double dir : {1 + step, 1 / (1 + step)}) {
          const double old = *params[i];
          double v = old == 0 ? (i == 3 ? 1e-6 : 0.001) : old * dir;
          v = std::min(hi[i], std::max(lo[i], v));
          *params[i] = v;
          const double o = objective(rows, c);
          if (o < best - 1e-12) {
            best = o;
            improved = true;
          } else {
            *params[i] = old;
          }
        }
      }
    }
  }
  std::cout << "objective (sum of squared log residuals) " << best << "\n";
  for (int i = 0; i < 7; ++i) std::cout << names[i] << " = " << *params[i] << "\n";
  // The table below uses the rounded constants shipped in default_calibration().
  c = default_calibration();
  std::cout << "| # | row | measured | model | residual | in fit | bottleneck |\n|---|---|---|---|---|---|---|\n";
  int i = 0;
  double rms = 0;
  int n = 0;
  for (const auto& r : rows) {
    const auto e = estimate_step(r.job, r.hw, c);
    const double res = e.samples_per_s / r.measured - 1;
    if (r.in_fit) rms += res * res, ++n;
    char buf[400];
    std::snprintf(buf, sizeof buf, "| %d | %s | %.1f | %.1f | %+.1f%% | %s | %s |\n", ++i, r.label.c_str(), r.measured,
                  e.samples_per_s, 100 * res, r.in_fit ? "yes" : "no",
                  std::string(gcsim::models::bottleneck_name(e.bottleneck)).c_str());
    std::cout << buf;
  }
  std::cout << "rms residual over fitted rows " << std::sqrt(rms / n) << "\n";
}
