// Operator times (equations in operator_time.hpp and docs/step-time.md, "Operator-level
// model"): the roofline of Williams, Waterman & Patterson 2009 per operator, tile and wave
// quantization from NVIDIA's "Matrix Multiplication Background User's Guide", the per-SM
// wave scaling idea of Habitat (Yu et al., USENIX ATC 2021).
#include "models/workload/operator_time.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace gcsim::models {
namespace {

constexpr double TILE = 128;           // output tile edge (cuBLAS/CUTLASS 128×128 default)
constexpr double MIN_SPLIT_K = 256;    // a split-K slice keeps at least this much of K
// Winograd's minimal filtering F(2×2, 3×3): 16 multiplies for a 2×2 output tile of a 3×3
// filter against 36 direct (Lavin & Gray, "Fast Algorithms for Convolutional Neural
// Networks", CVPR 2016, section 4); the transforms' own work is not counted.
constexpr double WINOGRAD_2X2_3X3 = 36.0 / 16.0;

// Streaming multiprocessors per GPU: NVIDIA's architecture whitepapers and datasheets
// (Tesla V100 / GV100 whitepaper 2017: 80; Turing whitepaper, T4: 40; A100 whitepaper
// 2020: 108; GA102 whitepaper: RTX 3090 82, RTX A6000 84, A10 72, A10G 80; Ada AD102
// whitepaper: RTX 4090 128, L40 and L40S 142; L4 datasheet / AD104: 58; H100 whitepaper
// 2022: SXM5 132, PCIe 114; H100 NVL, H200, GH200: 132 (GH100 SXM configuration); B200:
// 148; Pascal P100 56, P40 30; K80: 13 per GK210, two per board).
struct SmRow {
  std::string_view prefix;
  int sms;
};
constexpr SmRow SM_TABLE[] = {
    {"V100", 80},  {"T4", 40},      {"A100", 108},     {"A10G", 80},     {"A10", 72},   {"RTX-3090", 82},
    {"RTX-A6000", 84}, {"RTX-4090", 128}, {"L40", 142}, {"L40S", 142}, {"L4", 58},       {"H100-PCIe", 114}, {"H100", 132},
    {"H200", 132}, {"GH200", 132},  {"B200", 148},     {"P100", 56},     {"P40", 30},   {"K80", 26},
};

// Achieved / dense catalog peak of large GEMMs (16-bit tensor, TF32 tensor, FP32 SIMT),
// best square size of published PyTorch/cuBLAS microbenchmarks, as measured. Two GeForce
// figures exceed 1 (RTX 3080 Ti 1.111 and 1.107, RTX 4090 1.020 and 1.037): a datasheet peak
// is at the rated boost clock, and a GeForce board boosts past it while its power and
// temperature allow. Both tensor precisions of one card agree, as a clock would make them
// (PyTorch's 16-bit GEMMs accumulate in FP32, the rate the GeForce peaks in the catalog
// are quoted at), so the ratio is kept rather than capped at 1:
//   V100: zzc0721/torch-performance-test-data issue #140 (V100-SXM2-16GB, torch 2.7 + CUDA
//         12.8): FP16 97.36 / 125, FP32 14.51 / 15.7.
//   A100 SXM / PCIe: stas00/ml-engineering "Maximum Achievable Matmul FLOPS" (BF16 267.9 /
//         256.4 of 312); TF32 PaddlePaddle/Paddle PR #30612 (126.3 of 156); FP32
//         Yinghan-Li/YHs_Sample issue #4 (18.88 of 19.49). The same figures as step_time.cpp.
//   H100 (and GH100 parts): MAMF table BF16 792.1 / 989 (GH200 821.0); TF32 402.15 / 494.5,
//         FP32 51.88 / 67: torch-performance-test-data issue #79.
//   T4: torch-performance-test-data PR #29 (Tesla T4, torch 2.6 + CUDA 12.4): FP16 42.71 of
//         65, FP32 4.43 of 8.1 (a 70 W card: clocks fall under load).
//   RTX 4090: torch-performance-test-data issue #78 (torch 2.7 + CUDA 12.8): FP16 168.38 of
//         165, TF32 85.65 of 82.6, FP32 53.84 of 82.6.
//   L4: torch-performance-test-data issue #120 (torch 2.9 + CUDA 12.8): FP16 68.83 of 121,
//         TF32 31.88 of 60, FP32 15.38 of 30.3 (a 72 W card).
//   A10G: torch-performance-test-data issue #126 (torch 2.7 + CUDA 12.8): FP16 69.47 of 70,
//         TF32 34.71 of 35, FP32 23.37 of 31.2 (the catalog's peaks, estimates for this AWS part).
//   Ampere GA10x family (A10, A10G, RTX A6000: the professional parts, FP32 accumulate at
//         full rate): the A40's, torch-performance-test-data issue #185: FP16 119.18 of
//         149.7, TF32 59.52 of 74.8, FP32 23.73 of 37.4 (NVIDIA A40 datasheet peaks).
//   GeForce GA102 (RTX 3090): the RTX 3080 Ti's, torch-performance-test-data issue #132
//         (torch 2.8 + CUDA 12.8): FP16 75.75 of 68.2 (the GeForce FP32-accumulate peak),
//         TF32 37.75 of 34.1, FP32 24.38 of 34.1.
//   Ada family (L40, L40S): the RTX 4090's. Hopper and Blackwell: the H100's. Volta,
//         Pascal, Kepler and anything else: the V100's.
struct GemmRow {
  std::string_view prefix;
  double tensor_16bit, tensor_tf32, simt;
  bool measured;
  // The GPU the row was measured on (its architecture, board power in W, SMs and FP32 peak
  // in FLOP/s), for the sustained clock of another GPU that takes the row; empty: none.
  std::string_view ref_arch = {};
  double ref_tdp_w = 0, ref_sms = 0, ref_fp32 = 0;
};
constexpr GemmRow V100_ROW{"V100", 97.36 / 125, 0, 14.51 / 15.7, true, "Volta", 300, 80, 15.7e12};
constexpr GemmRow GA10X_ROW{"", 119.18 / 149.7, 59.52 / 74.8, 23.73 / 37.4, false, "Ampere", 300, 84, 37.4e12};
constexpr GemmRow AD10X_ROW{"", 168.38 / 165, 85.65 / 82.6, 53.84 / 82.6, false, "Ada", 450, 128, 82.6e12};
constexpr GemmRow GH100_ROW{"", 792.1 / 989, 402.15 / 494.5, 51.88 / 67, false, "Hopper", 700, 132, 67e12};
constexpr GemmRow GEMM_TABLE[] = {
    V100_ROW,
    {"A100-40GB-SXM", 267.9 / 312, 126.3 / 156, 18.88 / 19.49, true},
    {"A100-80GB-SXM", 267.9 / 312, 126.3 / 156, 18.88 / 19.49, true},
    {"A100", 256.4 / 312, 126.3 / 156, 18.88 / 19.49, true},
    {"H100", 792.1 / 989, 402.15 / 494.5, 51.88 / 67, true, "Hopper", 700, 132, 67e12},
    {"H200", 792.1 / 989, 402.15 / 494.5, 51.88 / 67, true},
    {"GH200", 821.0 / 989, 402.15 / 494.5, 51.88 / 67, true},
    {"T4", 42.71 / 65, 0, 4.43 / 8.1, true},
    {"RTX-4090", 168.38 / 165, 85.65 / 82.6, 53.84 / 82.6, true},
    // GeForce GA102 (the RTX 3090): the RTX 3080 Ti's figures (80 SMs, 350 W, FP32 34.1),
    // not the professional A40's: its catalog peaks are the GeForce half-rate ones, which
    // cuBLAS reaches (and passes, boosting above the rated clock).
    {"RTX-3090", 75.75 / 68.2, 37.75 / 34.1, 24.38 / 34.1, false, "Ampere", 350, 80, 34.1e12},
    {"L4", 68.83 / 121, 31.88 / 60, 15.38 / 30.3, true},
    {"A10G", 69.47 / 70, 34.71 / 35, 23.37 / 31.2, true},
};

// A table row names one catalog GPU, or with a trailing part every "<row>-..." variant.
bool matches(std::string_view name, std::string_view row) {
  return name == row || (name.size() > row.size() && name.substr(0, row.size()) == row && name[row.size()] == '-');
}

}  // namespace

const OperatorCalibration& default_operator_calibration() {
  // Fitted on every GPU's rows of the model as it is (tests/models/workload/
  // test_operator_model.cpp, "[.calibrate-ops]", "fitted on every GPU"); docs/step-time.md,
  // "Operator-level model". Three of the seven sit at a bound (docs/step-time.md says what
  // that means): the memory efficiency at 95%, launch_s at 20 µs, small_k at 1 element (no
  // small-K penalty); the other four are inside their ranges.
  static const OperatorCalibration c{
      .gemm_fraction = 0.848,
      .tf32_fraction = 0.623,
      .simt_fraction = 0.962,
      .memory_efficiency = 0.95,
      .launch_s = 20e-6,
      .small_k = 1,
      .sm_element_rate = 1.09e10,
  };
  return c;
}

GpuComputeFigures gpu_compute_figures(const GpuSpec& gpu) {
  GpuComputeFigures f;
  for (const SmRow& r : SM_TABLE) {
    if (matches(gpu.name, r.prefix)) {
      f.sms = r.sms;
      break;
    }
  }
  if (f.sms == 0) f.sms = 80;  // unknown part: the V100's count
  const GemmRow* row = nullptr;
  for (const GemmRow& r : GEMM_TABLE) {
    if (matches(gpu.name, r.prefix)) {
      row = &r;
      break;
    }
  }
  if (row == nullptr) {
    if (gpu.arch == "Ampere") row = &GA10X_ROW;
    else if (gpu.arch == "Ada") row = &AD10X_ROW;
    else if (gpu.arch == "Hopper" || gpu.arch == "Blackwell") row = &GH100_ROW;
    else row = &V100_ROW;
    f.measured = false;
  } else {
    f.measured = true;
  }
  // A GPU that takes another's figures, of the same architecture, runs its GEMMs and
  // memory-bound kernels at the clock its board's power sustains (operator_time.hpp).
  if (!row->ref_arch.empty() && gpu.arch == row->ref_arch && gpu.tdp_w > 0 && gpu.fp32_flop_per_s > 0) {
    // Its boost clock relative to the reference's, from FP32 peak per SM (the same FP32
    // lanes per SM within an architecture).
    const double clock = (gpu.fp32_flop_per_s / f.sms) / (row->ref_fp32 / row->ref_sms);
    // The power per SM the reference draws at full load, scaled to that clock as f^3, and
    // the power per SM this board has.
    const double need_w = row->ref_tdp_w / row->ref_sms * clock * clock * clock;
    const double have_w = gpu.tdp_w / f.sms;
    if (have_w < need_w) f.clock_factor = std::cbrt(have_w / need_w);
  }
  f.tensor_16bit = row->tensor_16bit;
  f.tensor_tf32 = row->tensor_tf32 > 0 ? row->tensor_tf32 : row->tensor_16bit;
  f.simt_fp32 = row->simt;
  return f;
}

double gemm_shape_efficiency(const GemmShape& s, int sms, double small_k) {
  const double tm = std::ceil(s.m / TILE), tn = std::ceil(s.n / TILE);
  const double tile_q = s.m * s.n / (tm * TILE * tn * TILE);
  double tiles = tm * tn * s.batch;
  double k = s.k;
  if (tiles < sms) {
    const double split = std::max(1.0, std::min(std::floor(sms / tiles), std::floor(k / MIN_SPLIT_K)));
    tiles *= split;
    k /= split;
  }
  const double waves = std::ceil(tiles / sms);
  const double wave_q = tiles / (waves * sms);
  return tile_q * wave_q * k / (k + small_k);
}

OperatorTime operator_time(const Operator& op, const GpuSpec& gpu, Precision p, const OperatorCalibration& cal) {
  return operator_time(op, gpu, gpu_compute_figures(gpu), p, cal);
}

OperatorTime operator_time(const Operator& op, const GpuSpec& gpu, const GpuComputeFigures& f, Precision p,
                           const OperatorCalibration& cal) {
  OperatorTime t;
  const double simt_peak = gpu.fp32_flop_per_s * f.simt_fp32 * cal.simt_fraction * f.clock_factor;
  double rate = simt_peak;
  if (op.gemm) {
    double peak = 0, frac = 0, g = cal.gemm_fraction;
    switch (p) {
      case Precision::Fp32: peak = gpu.fp32_flop_per_s, frac = f.simt_fp32, g = cal.simt_fraction; break;
      case Precision::Tf32: peak = gpu.tf32_flop_per_s, frac = f.tensor_tf32, g = cal.tf32_fraction; break;
      default: peak = gpu.peak_flop_per_s(p), frac = f.tensor_16bit; break;
    }
    const double shape = gemm_shape_efficiency(*op.gemm, f.sms, cal.small_k);
    rate = peak * frac * g * f.clock_factor * shape;
    // A 3×3 convolution of stride 1 in FP32 or TF32 may run as Winograd's F(2×2, 3×3) on the
    // CUDA cores: cuDNN, asked for its fastest algorithm, takes it where it beats the implicit
    // GEMM (on GPUs without TF32, or with TF32 no faster than FP32).
    if (op.winograd && (p == Precision::Fp32 || p == Precision::Tf32))
      rate = std::max(rate, simt_peak * WINOGRAD_2X2_3X3 * shape);
  }
  t.compute_s = rate > 0 ? op.flop / rate : 0;
  t.memory_s = op.bytes / (gpu.memory_bytes_per_s * cal.memory_efficiency);
  // A memory-bound kernel also pays its SMs' element rate (Little's law, operator_time.hpp).
  if (!op.gemm && cal.sm_element_rate > 0)
    t.memory_s += op.bytes / (activation_bytes(p) * cal.sm_element_rate * f.clock_factor * f.sms);
  t.compute_bound = t.compute_s >= t.memory_s;
  t.time_s = (std::max(t.compute_s, t.memory_s) + cal.launch_s) * op.count;
  return t;
}

OperatorStep operator_step(const OperatorGraph& g, const GpuSpec& gpu, Precision p, int grad_accum,
                           const OperatorCalibration& cal) {
  OperatorStep s;
  const GpuComputeFigures f = gpu_compute_figures(gpu);
  for (const Operator& op : g.ops) {
    const OperatorTime t = operator_time(op, gpu, f, p, cal);
    const double roof = t.time_s - cal.launch_s * op.count;
    const double per_micro = op.kind == OpKind::Optimizer ? 1.0 / std::max(1, grad_accum) : 1.0;
    if (op.kind == OpKind::Optimizer) s.optimizer_s += roof * per_micro;
    else if (op.gemm) s.gemm_s += roof;
    else s.memory_bound_s += roof;
    (t.compute_bound ? s.compute_bound_s : s.memory_bound_ops_s) += roof * per_micro;
    s.launch_s += cal.launch_s * op.count * per_micro;
    s.kernels += op.count;
  }
  return s;
}

}  // namespace gcsim::models
