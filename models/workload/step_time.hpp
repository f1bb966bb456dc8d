// How long one training step takes on the hardware a job got, and why.
//
// Per micro-batch of b samples on one GPU (equations and sources: docs/step-time.md). A
// model with an architecture takes its compute parts from the operator model instead
// (operator_time.hpp; Calibration::operator_model); the aggregate roofline below is what a
// model given by its totals takes:
//   compute   tensor:  3·b·F·φ / (tp·pp) / (peak(precision) · η_tc)      [η_simt for fp32]
//             memory:  max(b·M·(bytes/2) / (tp·pp) / (BW_hbm · η_mem),
//                          3·b·F·(1-φ) / (tp·pp) / (peak_fp32 · η_simt))  (roofline, Williams
//                          et al. 2009, per op class; the classes run one after the other)
//             optimizer: params_local · bytes_per_param / (BW_hbm · η_mem) per optimizer step
//             launch:  kernels / pp · t_kernel
//             (3 = forward + backward, Kaplan et al. 2020)
//   gradient sync: ring all-reduce, 2(n-1)/n · S / (η_bw·B) + 2(n-1)·α (Thakur et al. 2005;
//             Patarasuk & Yuan 2009); across nodes at min(η_bw·NVLink, η_net·NICs), the
//             cheaper of ring and tree as NCCL's tuning model picks; overlapped with the
//             backward pass: exposed = max(T - f·t_bwd, (1-f)·T) (PyTorch DDP bucketing,
//             Li et al. 2020). The network model's collectives replace it through
//             HardwareContext::all_reduce.
//   input:    max(storage read, CPU decode on the job's cores, host->device over PCIe),
//             prefetched, so it overlaps the GPU work.
//   step = max(GPU time, input time) · straggler factor; GPU time includes the pipeline
//   bubble (pp-1)/m (Narayanan et al. 2021) and tensor-parallel all-reduces.
//   straggler factor = 1 + σ·sqrt(2·ln n) for n synchronised GPUs: the expected maximum of n
//   step times with relative spread σ (extreme-value bound for Gaussian maxima).
// The efficiencies are constants fitted once on the V100 measurements in
// training_throughput_v100.csv. On other GPUs the tensor-core and CUDA-core efficiencies
// are the V100 values times the ratio of published large-GEMM efficiencies, target GPU
// over V100 (efficiency_ratios(), table and sources in step_time.cpp and docs/step-time.md).
// Anchors: a job whose model has a measured throughput that applies (pick_anchor()) has
// every compute part multiplied by the factor that reproduces that measurement on its own
// GPU (anchor_compute_scale(), kept in TrainingSpec::compute_scale): the measurement scaled
// part by part to the job's GPU roofs, in the manner of Habitat (Yu et al., USENIX ATC 2021).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "models/gpu/gpu_spec.hpp"
#include "models/workload/memory_fit.hpp"
#include "models/workload/operator_time.hpp"
#include "models/workload/training.hpp"

namespace gcsim::models {

struct Calibration {
  double tensor_efficiency = 0;     // η_tc: achieved / peak on tensor-core matmuls and convs
  double simt_efficiency = 0;       // η_simt: achieved / peak of fp32 math on CUDA cores
  double memory_efficiency = 0;     // η_mem: achieved / peak HBM bandwidth, memory-bound ops
  double kernel_overhead_s = 0;     // t_kernel: launch gap per kernel
  double straggler_sigma = 0;       // σ: relative spread of per-GPU step times
  double overlap_fraction = 0;      // f: share of backward usable to hide gradient sync
  double comm_bw_efficiency = 0;    // η_bw: bus bandwidth / link bandwidth, large messages
  double comm_latency_s = 0;        // α: per ring step
  double net_bw_efficiency = 0;     // η_net: all-reduce bus bandwidth / NIC line rate across nodes
  double pcie_efficiency = 0;       // achieved / theoretical host-to-device bandwidth
  double gpu_decode_cpu_share = 0;  // CPU share of decode work with Decode::Gpu (DALI mixed)
  // The operator-level model (docs/step-time.md, "Operator-level model") for the compute
  // parts of models with an architecture (has_operator_model); off: the aggregate roofline.
  bool operator_model = true;
  OperatorCalibration operators = default_operator_calibration();
};

// The fitted constants (docs/step-time.md, "Calibration").
const Calibration& default_calibration();

// How much better (or worse) a GPU runs large GEMMs than the V100 the constants were fitted
// on: achieved / peak of cuBLAS GEMMs on this GPU over the same on the V100, from published
// measurements (docs/step-time.md, "Efficiency across GPU generations"). 1 for the V100 and
// for GPUs without a published measurement.
struct EfficiencyRatios {
  double tensor = 1;          // multiplies η_tc at the job's precision
  double simt = 1;            // multiplies η_simt
  double simt_ceiling = 1;    // η_simt × simt never exceeds this measured SGEMM fraction
};
EfficiencyRatios efficiency_ratios(const GpuSpec& gpu, Precision p);

struct HardwareContext;
// Seconds of one all-reduce of `bytes` across `ranks` data-parallel GPUs of the job.
using AllReduceFn = std::function<double(double bytes, int ranks, const HardwareContext&)>;

// What the job got: its GPUs, where they are, and what feeds them.
struct HardwareContext {
  GpuSpec gpu;
  int gpus = 1;                        // GPUs of the job
  int nodes = 1;                       // nodes they are on (gpus spread evenly)
  double cpu_cores_per_gpu = 0;        // host cores for the input pipeline; 0 = unlimited
  int pcie_gen = 3;                    // host link of each GPU (x16)
  double intra_node_bytes_per_s = 0;   // per GPU per direction (NVLink/NVSwitch or PCIe)
  double intra_node_latency_s = 0;     // 0 = Calibration::comm_latency_s
  double inter_node_bytes_per_s = 0;   // per node per direction (all its NICs)
  double inter_node_latency_s = 5e-6;
  double storage_read_bytes_per_s = 0; // available to the whole job; 0 = not limited
  AllReduceFn all_reduce;              // when set, replaces the alpha-beta term

  int gpus_per_node() const { return (gpus + nodes - 1) / nodes; }
};

// Bandwidth of a PCIe x16 link per direction: 8/16/32 GT/s per lane with 128b/130b coding
// (PCI-SIG base specifications 3.0/4.0/5.0): 15.75, 31.5, 63 GB/s. 0 for unknown gens.
double pcie_x16_bytes_per_s(int gen);

// A context from catalog figures: NVLink when the GPU has it, else PCIe between GPUs;
// `job_gpus` on ceil(job_gpus / gpus_per_node) nodes; inter-node bandwidth per node given
// (0 = 100 Gb/s per GPU, an 8-NIC HDR-class node has 8 x 200 Gb/s).
HardwareContext hardware_for(const GpuSpec& gpu, int job_gpus, int gpus_per_node, int cpu_cores_per_node,
                             double inter_node_bytes_per_s = 0);

enum class Bottleneck { Compute, Memory, Overhead, Communication, InputStorage, InputCpu, InputPcie };
std::string_view bottleneck_name(Bottleneck b);  // "compute", "memory", "input-storage", ...

struct StepEstimate {
  // Per micro-step of one GPU, seconds.
  double tensor_s = 0;            // matmul/conv at the precision's peak
  double memory_s = 0;            // memory-bound ops (roofline with their FLOPs)
  double optimizer_s = 0;         // optimizer update, per micro-step (amortised over grad_accum)
  double overhead_s = 0;          // kernel launch gaps
  double compute_s = 0;           // the four above
  double comm_s = 0;              // gradient all-reduce, per micro-step (amortised), whole
  double comm_exposed_s = 0;      // the part not hidden behind backward, + tensor-parallel comm
  double bubble_s = 0;            // pipeline bubble
  double gpu_s = 0;               // compute + exposed comm + bubble
  double input_storage_s = 0;
  double input_cpu_s = 0;
  double input_h2d_s = 0;
  double input_s = 0;             // max of the three (a prefetched pipeline)
  double straggler_s = 0;         // added by synchronising n GPUs
  double step_s = 0;              // max(gpu, input) + straggler: one micro-step
  Bottleneck bottleneck = Bottleneck::Compute;
  double samples_per_s = 0;       // whole job
  double samples_per_s_per_gpu = 0;
};

StepEstimate estimate_step(const TrainingSpec& job, const HardwareContext& hw,
                           const Calibration& cal = default_calibration());

// The compute parts of one micro-step of one GPU (seconds), before the anchor's scale.
struct ComputeParts {
  double tensor_s = 0;     // matmul/conv work
  double memory_s = 0;     // memory-bound work
  double optimizer_s = 0;  // the update, amortised over grad_accum
  double overhead_s = 0;   // kernel launches
};
// The aggregate roofline's parts (F, φ, M, K of the model's figures): what estimate_step
// uses unless Calibration::operator_model is set and the model has an architecture.
ComputeParts aggregate_compute_parts(const TrainingSpec& job, const GpuSpec& gpu, const Calibration& cal);
// The operator model's parts: the operators' times summed per class (GEMMs and convolutions,
// memory-bound operators, the optimizer per micro-batch, launches), divided over the
// tensor × pipeline split as the aggregate parts are. Throws std::invalid_argument for a
// model without an architecture.
ComputeParts operator_compute_parts(const TrainingSpec& job, const GpuSpec& gpu, const OperatorCalibration& oc);

// Why a step takes what it takes (`gcsim estimate`, docs/step-time.md "Which operators
// bound a step"): each operator row of the job's operator model (a row folds its identical
// layers, `count`), its time per micro-step of one GPU on `gpu` as estimate_step counts it
// (roofline + launches, the optimizer amortised over grad_accum, split by tensor x pipeline
// parallelism, times the job's anchor scale) and whether its compute or its bytes bound it.
// Empty for a model without an architecture (custom totals) or with the operator model off.
struct OperatorShare {
  std::string name;         // "layer3.2.conv2", "ffn1"
  std::string_view kind;    // op_kind_name: gemm, conv, elementwise, normalization, ...
  std::string_view pass;    // op_pass_name: forward, backward-data, backward-weight, update
  int count = 1;
  double time_s = 0;
  bool compute_bound = false;
};
std::vector<OperatorShare> step_operators(const TrainingSpec& job, const GpuSpec& gpu,
                                          const Calibration& cal = default_calibration());
// The step around given compute parts: the anchor's scale, gradient synchronisation, the
// pipeline bubble, the input pipeline and the straggler term, as estimate_step.
StepEstimate estimate_step_from(const TrainingSpec& job, const HardwareContext& hw, const Calibration& cal,
                                const ComputeParts& parts);

// The job's model's anchor that applies to it (docs/step-time.md, "Anchors"): same sequence
// length, same element width (fp32/tf32, or 16/8-bit), the same precision first, then the
// fewest GPUs, then the first listed. nullptr when none applies.
const ModelAnchor* pick_anchor(const TrainingSpec& job);

// The factor on the compute parts that makes the model reproduce the picked anchor's
// measured throughput on the anchor's own GPU and system (solved by fixed-point iteration:
// the step is monotone in it). 1 without an anchor, and when the anchor's modelled run is
// input-bound (its compute cannot be identified from its throughput).
double anchor_compute_scale(const TrainingSpec& job, const Calibration& cal = default_calibration());

// Bytes each data-parallel rank all-reduces per optimizer step: the local parameters'
// gradients (2 B each in 16-bit precisions, 4 B in fp32/tf32), x1.5 with ZeRO-3 for the
// parameter all-gathers (Rajbhandari et al. 2020, section 7). What HardwareContext::all_reduce
// is asked for, and what the network model sends for a job's gradient synchronisation.
double gradient_sync_bytes(const TrainingSpec& job);

// The alpha-beta all-reduce the model uses when HardwareContext::all_reduce is empty:
// one flat ring inside a node; across nodes NCCL's pipelined ring through every GPU at the
// bus bandwidth of the slower of NVLink and the node's NICs, or its tree when cheaper
// (docs/step-time.md, "Gradient synchronisation").
double alpha_beta_all_reduce_s(double bytes, int ranks, const HardwareContext& hw, const Calibration& cal);

// What `gcsim estimate` prints for one job on one node type.
struct EstimateRow {
  StepEstimate step;
  MemoryFit memory;
  double samples_per_s = 0;              // whole job
  double gpu_hours_per_epoch = 0;
  double time_per_epoch_s = 0;
  double total_time_s = 0;               // all of the job's samples
  double usd_per_hour = 0;               // the job's share of its nodes
  double cost_per_epoch_usd = 0;
  double cost_per_million_samples_usd = 0;
  double total_cost_usd = 0;
};

// node_price_usd_per_hour: one node; a job is charged price / gpus_per_node per GPU it
// holds (whole nodes when it spans several), as in the scenario billing.
EstimateRow estimate_job(const TrainingSpec& job, const HardwareContext& hw, double node_price_usd_per_hour,
                         int gpus_per_node, const Calibration& cal = default_calibration());

}  // namespace gcsim::models
