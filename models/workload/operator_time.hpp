// The time of each operator of a training step on one GPU, and their sum (issue 34;
// docs/step-time.md, "Operator-level model"):
//
//   t(op) = max( flop / (P(prec, kind) · η_shape(op, gpu)),  t_mem(op) ) + t_launch
//   t_mem = bytes / (B_hbm · η_mem)  [+ bytes / (e · r_SM · SMs), memory-bound operators only]
//   step  = Σ t(op) over forward and backward, + the optimizer's t / grad_accum
//
// P(prec, kind): GEMMs and convolutions at the precision's tensor-core peak (FP32: the
// CUDA-core FP32 peak), memory-bound operators' FLOPs at the FP32 peak.
// η_shape(op, gpu) = e_gpu(prec) · g · q_tile · q_wave · k / (k + k0), for GEMMs only:
//   e_gpu      achieved / peak of large cuBLAS GEMMs on that GPU (published microbenchmarks,
//              table in operator_time.cpp), the figure of its architecture family where the
//              GPU itself was not measured;
//   g          one global factor, fitted: what framework GEMMs of training reach of the best
//              large GEMM (the same on every GPU);
//   q_tile     tile quantization: m·n / (⌈m/128⌉·128 · ⌈n/128⌉·128) (NVIDIA, "Matrix
//              Multiplication Background User's Guide", "Tile quantization");
//   q_wave     wave quantization: tiles / (⌈tiles / SMs⌉ · SMs), one 128×128 tile per SM per
//              wave (same guide, "Wave quantization"; Habitat, Yu et al. USENIX ATC 2021,
//              scales kernel times by SM count for this reason); a GEMM with fewer tiles
//              than SMs is split along K as cuBLAS and CUTLASS do ("split-K", CUTLASS
//              "Efficient GEMM in CUDA") while each slice keeps ≥ 256 of K;
//   k/(k+k0)   small-K inefficiency: a short reduction cannot hide the tile's load and
//              epilogue (k0 fitted, in elements of K).
// η_mem: achieved / peak HBM bandwidth of memory-bound kernels (one global figure, fitted).
// r_SM: elements per second one SM's memory-bound kernels (elementwise, normalization,
//   softmax, loss, embedding, optimizer) move, e the precision's element size: such a kernel
//   keeps a fixed number of elements per resident thread in flight, so by Little's law its
//   bandwidth is bounded by SMs × threads × elements × e / latency (Volkov, "Understanding Latency
//   Hiding on GPUs", UC Berkeley PhD thesis 2016; Little 1961) whatever the HBM's
//   peak; the two costs add (fitted, one figure for every GPU). GEMMs and convolutions
//   (cuBLAS/cuDNN kernels with wide asynchronous copies) do not pay it.
// t_launch: per-kernel launch and framework gap (fitted).
// c: the clock the board's power sustains, for a GPU that takes another's e_gpu
//   (GpuComputeFigures::clock_factor); it scales P and r_SM.
// Winograd: a 3×3 convolution of stride 1 in FP32 or TF32 runs at the better of its
//   implicit GEMM above and F(2×2, 3×3) on the CUDA cores, the FP32 rate × 36/16 (Lavin &
//   Gray, CVPR 2016), as cuDNN's search for its fastest algorithm would pick.
#pragma once

#include <string_view>
#include <vector>

#include "models/gpu/gpu_spec.hpp"
#include "models/workload/operators.hpp"

namespace gcsim::models {

struct OperatorCalibration {
  double gemm_fraction = 1;          // g: training GEMMs / best large GEMM (16-bit tensor cores)
  double tf32_fraction = 1;          // the same for TF32 GEMMs and convolutions on tensor cores
  double simt_fraction = 1;          // the same for FP32 GEMMs on CUDA cores
  double memory_efficiency = 1;      // η_mem
  double launch_s = 0;               // t_launch per kernel
  double small_k = 0;                // k0, elements of K
  double sm_element_rate = 0;        // r_SM: elements/s one SM's memory-bound kernels move (0: no such term)
};

// The shipped constants (docs/step-time.md, "Operator-level model").
const OperatorCalibration& default_operator_calibration();

// Datasheet and microbenchmark figures of one GPU the operator model needs.
struct GpuComputeFigures {
  int sms = 0;                  // streaming multiprocessors (datasheet / whitepaper)
  double tensor_16bit = 0;      // achieved / dense peak of large 16-bit tensor GEMMs
  double tensor_tf32 = 0;       // the same in TF32
  double simt_fp32 = 0;         // the same for FP32 SGEMM on CUDA cores
  bool measured = false;        // false: the figures of its family (or the V100's)
  // Sustained / boost clock under the board's power, for a GPU that takes the figures of
  // another of its architecture (the A40's for the A10): 1 when it has the power per SM
  // the measured GPU drew at full load, scaled to its own boost clock as f^3; otherwise
  // the cube root of the ratio (dynamic power ~ C·V²·f with V roughly proportional to f
  // across the DVFS range). Scales its GEMM and FP32 rates and its SMs' element rate.
  double clock_factor = 1;
};
GpuComputeFigures gpu_compute_figures(const GpuSpec& gpu);

// Tile, wave and small-K factors of a GEMM on `sms` SMs (the product q_tile·q_wave·k/(k+k0)).
double gemm_shape_efficiency(const GemmShape& s, int sms, double small_k);

struct OperatorTime {
  double compute_s = 0;   // flop / achieved FLOP/s
  double memory_s = 0;    // bytes / achieved bandwidth
  double time_s = 0;      // max of the two + launch, × count
  bool compute_bound = false;
};
OperatorTime operator_time(const Operator& op, const GpuSpec& gpu, Precision p, const OperatorCalibration& cal);
OperatorTime operator_time(const Operator& op, const GpuSpec& gpu, const GpuComputeFigures& f, Precision p,
                           const OperatorCalibration& cal);

// A step's operators summed per class, per micro-batch of one GPU, seconds.
struct OperatorStep {
  double gemm_s = 0;          // GEMMs and convolutions (their roofline, no launch)
  double memory_bound_s = 0;  // elementwise, normalization, softmax, loss, embedding
  double optimizer_s = 0;     // the update, per micro-batch (÷ grad_accum)
  double launch_s = 0;        // kernels × t_launch
  double compute_bound_s = 0; // of all operator time, the part in compute-bound operators
  double memory_bound_ops_s = 0; // the part in memory-bound operators (incl. GEMMs that are)
  int kernels = 0;
  double total_s() const { return gemm_s + memory_bound_s + optimizer_s + launch_s; }
};
OperatorStep operator_step(const OperatorGraph& g, const GpuSpec& gpu, Precision p, int grad_accum,
                           const OperatorCalibration& cal = default_operator_calibration());

}  // namespace gcsim::models
