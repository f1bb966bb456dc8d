// The step-time model against the V100 measurements it was fitted to: every row of
// training_throughput_v100.csv reproduced within its documented residual, and (hidden,
// [.calibrate]) the fit itself, which prints the constants and the residual table that
// docs/step-time.md carries.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "tests/models/workload/calibration_rows.hpp"

using gcsim::models::Calibration;
using gcsim::models::default_calibration;
using gcsim::models::estimate_step;

namespace {
// Bounds of the leave-one-out test (docs/step-time.md, "Fidelity").
constexpr double LOO_MAE_BOUND = 0.13;     // measured 12.3% over 34 rows
constexpr double ANCHOR_MAE_BOUND = 0.04;  // measured 3.4% over 28 rows
}  // namespace

namespace gcsim::test {

// |model / measured - 1| bounds, rounded up to the next percent, CSV row order.
std::vector<double> documented_residuals() {
  return {0.04, 0.07, 0.04, 0.05, 0.01, 0.04, 0.01, 0.09, 0.14, 0.16, 0.09, 0.09, 0.18,
          0.19, 0.12, 0.01, 0.05, 0.07, 0.12, 0.15, 0.44, 0.46, 0.44, 0.46, 0.24, 0.28,
          0.13, 0.14, 0.06, 0.06, 0.06, 0.05, 0.03, 0.07, 0.20, 0.32, 0.33, 0.29};
}

}  // namespace gcsim::test

namespace {

// These tests characterise the aggregate roofline (F, φ, M, K), which custom models given
// by their totals still take; bundled models with an architecture take the operator model
// by default (Calibration::operator_model; validated in test_operator_model.cpp).
Calibration aggregate_calibration() {
  Calibration c = default_calibration();
  c.operator_model = false;
  return c;
}

// Sum of squared log residuals over the fitted rows, without row `skip` (npos: all).
double objective(const std::vector<gcsim::test::CalibrationRow>& rows, const Calibration& c,
                 std::size_t skip = std::string::npos) {
  double sum = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (!r.in_fit || i == skip) continue;
    const double model = estimate_step(r.job, r.hw, c).samples_per_s;
    const double d = std::log(model / r.measured);
    sum += d * d;
  }
  return sum;
}

// The fit: coordinate search with shrinking multiplicative steps over the free constants
// (a handful of smooth parameters), from the shipped constants, without row `skip`.
constexpr int FIT_PARAMS = 7;
const char* const FIT_NAMES[FIT_PARAMS] = {"tensor_efficiency", "simt_efficiency", "memory_efficiency",
                                           "kernel_overhead_s", "straggler_sigma", "gpu_decode_cpu_share",
                                           "overlap_fraction"};

Calibration fit(const std::vector<gcsim::test::CalibrationRow>& rows, std::size_t skip, double* best_out = nullptr) {
  Calibration c = aggregate_calibration();
  c.overlap_fraction = 0.5;
  double* params[FIT_PARAMS] = {&c.tensor_efficiency, &c.simt_efficiency, &c.memory_efficiency, &c.kernel_overhead_s,
                                &c.straggler_sigma, &c.gpu_decode_cpu_share, &c.overlap_fraction};
  // Physical ranges: per-kernel overhead 1-20 us (CUDA launch latency up to eager-mode
  // framework dispatch per op), efficiencies up to 95%.
  // overlap_fraction is held at 0.5 (docs/step-time.md: the rows cannot identify it).
  const double lo[] = {0.05, 0.05, 0.05, 1e-6, 0.0, 0.05, 0.5};
  const double hi[] = {0.95, 0.95, 0.95, 20e-6, 0.2, 1.0, 0.5};
  double best = objective(rows, c, skip);
  for (double step = 0.2; step > 1e-4; step *= 0.5) {
    bool improved = true;
    while (improved) {
      improved = false;
      for (int i = 0; i < FIT_PARAMS; ++i) {
        for (double dir : {1 + step, 1 / (1 + step)}) {
          const double old = *params[i];
          double v = old == 0 ? (i == 3 ? 1e-6 : 0.001) : old * dir;
          v = std::min(hi[i], std::max(lo[i], v));
          *params[i] = v;
          const double o = objective(rows, c, skip);
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
  if (best_out) *best_out = best;
  return c;
}

// Leave-one-out over the fitted rows: refit the constants without row i, predict row i.
// Residuals model / measured - 1, NaN for rows outside the fit.
std::vector<double> leave_one_out_residuals(const std::vector<gcsim::test::CalibrationRow>& rows) {
  std::vector<double> out(rows.size(), std::nan(""));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].in_fit) continue;
    const Calibration c = fit(rows, i);
    out[i] = estimate_step(rows[i].job, rows[i].hw, c).samples_per_s / rows[i].measured - 1;
  }
  return out;
}

// A row as an anchor, as a catalog entry would write it.
gcsim::models::ModelAnchor anchor_of(const gcsim::test::CalibrationRow& r) {
  gcsim::models::ModelAnchor a;
  a.gpu = r.hw.gpu;
  a.gpus = r.job.gpus;
  a.gpus_per_node = r.hw.gpus_per_node();
  a.host_cores = static_cast<int>(std::lround(r.hw.cpu_cores_per_gpu * r.job.gpus / r.hw.nodes));
  a.precision = r.job.precision;
  a.batch_per_gpu = r.job.batch_per_gpu;
  a.grad_accum = r.job.grad_accum;
  a.seq_len = r.job.seq_len;
  a.samples_per_s = r.measured;
  a.source = r.label;
  return a;
}

// The same benchmark set (framework, model, task, precision: the label without batch and
// GPU count).
std::string workload_of(const gcsim::test::CalibrationRow& r) { return r.label.substr(0, r.label.rfind(" b")); }

// Anchor transfer: every row predicted from another row of the same workload as its only
// anchor: a multi-GPU row from the 1-GPU row of its system (same GPU and host), a 1-GPU row
// from the 1-GPU row of the other system or memory size when the set has one.
// Residuals model / measured - 1; NaN where the workload has no other row to anchor on.
std::vector<double> anchor_transfer_residuals(const std::vector<gcsim::test::CalibrationRow>& rows) {
  std::vector<double> out(rows.size(), std::nan(""));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const gcsim::test::CalibrationRow* anchor = nullptr;
    for (std::size_t j = 0; j < rows.size(); ++j) {
      const auto& o = rows[j];
      if (j == i || o.job.gpus != 1 || workload_of(o) != workload_of(r)) continue;
      const bool same_system = o.hw.gpu.name == r.hw.gpu.name && o.hw.cpu_cores_per_gpu == r.hw.cpu_cores_per_gpu * r.job.gpus;
      if (r.job.gpus > 1 ? same_system : !same_system) anchor = &o;
    }
    if (anchor == nullptr) continue;
    auto job = r.job;
    job.model.anchors = {anchor_of(*anchor)};
    job.compute_scale = gcsim::models::anchor_compute_scale(job, aggregate_calibration());
    out[i] = estimate_step(job, r.hw, aggregate_calibration()).samples_per_s / r.measured - 1;
  }
  return out;
}

double mean_abs(const std::vector<double>& v, std::size_t* n = nullptr) {
  double sum = 0;
  std::size_t k = 0;
  for (double x : v)
    if (!std::isnan(x)) sum += std::fabs(x), ++k;
  if (n) *n = k;
  return k ? sum / k : 0;
}

}  // namespace

TEST_CASE("V100 rows are reproduced within their documented residuals", "[model][calibration]") {
  const auto rows = gcsim::test::calibration_rows();
  REQUIRE(rows.size() == 38);
  for (const auto& r : rows) {
    const double model = estimate_step(r.job, r.hw, aggregate_calibration()).samples_per_s;
    const double residual = model / r.measured - 1;
    INFO(r.label << ": model " << model << " measured " << r.measured << " residual " << residual);
    CHECK(std::fabs(residual) <= r.documented + 1e-9);
  }
}

TEST_CASE("Leave-one-out fidelity on the V100 rows", "[model][calibration]") {
  // docs/step-time.md, "Fidelity": the bounds are the measured mean absolute errors
  // rounded up to the next percent, so a change to the model that makes any of them worse
  // fails here and must update the documented table.
  const auto rows = gcsim::test::calibration_rows();
  std::size_t n_loo = 0, n_anchor = 0;
  const double loo = mean_abs(leave_one_out_residuals(rows), &n_loo);
  const double anchored = mean_abs(anchor_transfer_residuals(rows), &n_anchor);
  INFO("leave-one-out MAE " << loo << " over " << n_loo << " rows; anchor transfer MAE " << anchored << " over "
                            << n_anchor << " rows");
  CHECK(n_loo == 34);
  CHECK(loo <= LOO_MAE_BOUND);
  CHECK(anchored <= ANCHOR_MAE_BOUND);
}

TEST_CASE("Fit the efficiency constants on the V100 rows", "[.calibrate]") {
  const auto rows = gcsim::test::calibration_rows();
  double best = 0;
  Calibration c = fit(rows, std::string::npos, &best);
  const double fitted[FIT_PARAMS] = {c.tensor_efficiency, c.simt_efficiency, c.memory_efficiency, c.kernel_overhead_s,
                                     c.straggler_sigma, c.gpu_decode_cpu_share, c.overlap_fraction};
  std::cout << "objective (sum of squared log residuals) " << best << "\n";
  for (int i = 0; i < FIT_PARAMS; ++i) std::cout << FIT_NAMES[i] << " = " << fitted[i] << "\n";
  // The table below uses the rounded constants shipped in default_calibration().
  c = aggregate_calibration();
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
  // The fidelity table of docs/step-time.md.
  const auto loo = leave_one_out_residuals(rows);
  const auto anchored = anchor_transfer_residuals(rows);
  std::cout << "| # | row | roofline (shipped) | leave-one-out | anchored on another row |\n|---|---|---|---|---|\n";
  const auto cell = [](double x) {
    char b[32];
    if (std::isnan(x)) return std::string("-");
    std::snprintf(b, sizeof b, "%+.1f%%", 100 * x);
    return std::string(b);
  };
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const double res = estimate_step(rows[k].job, rows[k].hw, c).samples_per_s / rows[k].measured - 1;
    std::cout << "| " << k + 1 << " | " << rows[k].label << " | " << cell(res) << " | " << cell(loo[k]) << " | "
              << cell(anchored[k]) << " |\n";
  }
  std::size_t n_loo = 0, n_anchor = 0;
  const double mae_loo = mean_abs(loo, &n_loo), mae_anchor = mean_abs(anchored, &n_anchor);
  std::cout << "leave-one-out MAE " << mae_loo << " over " << n_loo << " rows; anchor transfer MAE " << mae_anchor
            << " over " << n_anchor << " rows\n";
}
