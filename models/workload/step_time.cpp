// The step-time model (equations in step_time.hpp and docs/step-time.md): a roofline per op
// class (Williams, Waterman & Patterson 2009), 3x forward FLOPs for training (Kaplan et al.
// 2020), ring all-reduce alpha-beta cost (Thakur, Rabenseifner & Gropp 2005; Patarasuk &
// Yuan 2009) overlapped with backward as PyTorch DDP does (Li et al. 2020), the pipeline
// bubble (p-1)/m (Narayanan et al. 2021) and an extreme-value straggler factor.
#include "models/workload/step_time.hpp"

#include "models/workload/operators.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace gcsim::models {
namespace {

// Optimizer update traffic per parameter (read + write of weights, gradient and state):
// Adam reads w, g, m, v and writes w, m, v; mixed precision also writes the 16-bit copy.
double optimizer_traffic_bytes_per_param(Optimizer o) { return o == Optimizer::Adam ? 28 : 20; }

bool is_tensor_precision(Precision p) { return p != Precision::Fp32; }

double element_scale(Precision p) { return p == Precision::Fp32 || p == Precision::Tf32 ? 2.0 : 1.0; }

double gradient_bytes_per_param(Precision p) { return p == Precision::Fp32 || p == Precision::Tf32 ? 4.0 : 2.0; }

// NCCL's double binary tree reaches 0.92 of the ring's bus bandwidth (ncclTopoTuneModel in
// NCCL's src/graph/tuning.cc: `if (a == NCCL_ALGO_TREE) busBw = std::min(busBw*.92, ...)`).
constexpr double TREE_BW_FACTOR = 0.92;

double ring_s(double bytes, int n, double bytes_per_s, double latency_s) {
  if (n <= 1 || bytes <= 0) return 0;
  return 2.0 * (n - 1) / n * bytes / bytes_per_s + 2.0 * (n - 1) * latency_s;
}

// Achieved / dense peak of large cuBLAS GEMMs, per GPU (0 = not measured). The V100 row is
// the reference the fitted constants belong to. All figures are from CUDA 11-12 software,
// the era of the V100 training rows the constants and anchors come from (pytorch 21.x
// containers, CUDA 11), so a ratio compares GPU generations, not cuBLAS versions.
//   V100: zzc0721/torch-performance-test-data issue #140 (Tesla V100-SXM2-16GB, torch 2.7.0
//         + CUDA 12.8, square matmuls): FP16 97.36 TFLOP/s at 8192^3 of 125, FP32 14.51 at
//         10240^3 of 15.7. lablup/mlxcel issue #1654 (V100-PCIe, CUDA 12.9, m = 2048) agrees:
//         FP16 95-100 of 112. (Markidis et al. 2018, IPDPSW, measured 83 of 125 with CUDA 9:
//         the reference until 2026-12; it made every A100/H100 ratio carry four years of
//         cuBLAS progress as well.)
//   A100, H100, GH200, 16-bit: stas00/ml-engineering, compute/accelerator/README.md,
//         "Maximum Achievable Matmul FLOPS comparison table" (BF16 matmul, best shape found):
//         A100 SXM 267.9/312, A100 PCIe 256.4/312, H100 SXM 792.1/989, GH200 821.0/989.
//   A100 TF32: PaddlePaddle/Paddle PR #30612 (TF32 for cuBLAS on A100): a 10240^3 matmul
//         in 0.017 s with TF32 = 126 TFLOP/s of 156.
//   A100 FP32: Yinghan-Li/YHs_Sample issue #4: cuBLAS SGEMM 18.88 of 19.49 TFLOP/s on an
//         A100 80GB PCIe (5120x4096x4096).
//   H100 TF32 and FP32: zzc0721/torch-performance-test-data issue #79 (H100 80GB HBM3, the
//         V100 figure's script and CUDA 12.8): TF32 402.15 of 494.5, FP32 51.88 of 67.
// H100-PCIe, H100-NVL and H200 (the same GH100 die) take the H100 SXM figures; FP8 on
// Hopper takes its BF16 figure (no separate measurement found).
struct GemmEvidence {
  std::string_view gpu;
  double tensor_16bit = 0;
  double tensor_tf32 = 0;
  double simt = 0;
};
constexpr GemmEvidence V100_GEMM{"V100", 97.36 / 125, 0, 14.51 / 15.7};
constexpr GemmEvidence GEMM_EVIDENCE[] = {
    {"A100-40GB-SXM", 267.9 / 312, 126.3 / 156, 18.88 / 19.49},
    {"A100-80GB-SXM", 267.9 / 312, 126.3 / 156, 18.88 / 19.49},
    {"A100-40GB-PCIe", 256.4 / 312, 126.3 / 156, 18.88 / 19.49},
    {"A100-80GB-PCIe", 256.4 / 312, 126.3 / 156, 18.88 / 19.49},
    {"H100-SXM", 792.1 / 989, 402.15 / 494.5, 51.88 / 67},
    {"H100-PCIe", 792.1 / 989, 402.15 / 494.5, 51.88 / 67},
    {"H100-NVL", 792.1 / 989, 402.15 / 494.5, 51.88 / 67},
    {"H200", 792.1 / 989, 402.15 / 494.5, 51.88 / 67},
    {"GH200", 821.0 / 989, 0, 0},
};

}  // namespace

EfficiencyRatios efficiency_ratios(const GpuSpec& gpu, Precision p) {
  EfficiencyRatios r;
  for (const GemmEvidence& e : GEMM_EVIDENCE) {
    if (e.gpu != gpu.name) continue;
    const double tensor = p == Precision::Tf32 && e.tensor_tf32 > 0 ? e.tensor_tf32 : e.tensor_16bit;
    r.tensor = tensor / V100_GEMM.tensor_16bit;
    if (e.simt > 0) {
      r.simt = e.simt / V100_GEMM.simt;
      r.simt_ceiling = e.simt;
    }
  }
  return r;
}

const Calibration& default_calibration() {
  // Fitted on training_throughput_v100.csv (docs/step-time.md, "Calibration"); the test
  // "[calibration]" reproduces every row within its documented residual.
  static const Calibration c{
      .tensor_efficiency = 0.47,
      .simt_efficiency = 0.81,
      .memory_efficiency = 0.95,
      .kernel_overhead_s = 20e-6,
      .straggler_sigma = 0.03,
      .overlap_fraction = 0.5,
      .comm_bw_efficiency = 0.705,
      .comm_latency_s = 4e-6,
      .net_bw_efficiency = 0.96,
      .pcie_efficiency = 0.8,
      .gpu_decode_cpu_share = 0.5,
  };
  return c;
}

double pcie_x16_bytes_per_s(int gen) {
  switch (gen) {
    case 3: return 15.75e9;
    case 4: return 31.5e9;
    case 5: return 63.0e9;
    case 6: return 126.0e9;
    default: return 0;
  }
}

HardwareContext hardware_for(const GpuSpec& gpu, int job_gpus, int gpus_per_node, int cpu_cores_per_node,
                             double inter_node_bytes_per_s) {
  HardwareContext hw;
  hw.gpu = gpu;
  hw.gpus = job_gpus;
  hw.nodes = std::max(1, (job_gpus + gpus_per_node - 1) / gpus_per_node);
  hw.pcie_gen = gpu.pcie_gen > 0 ? gpu.pcie_gen : 3;
  // A job holding part of a node gets the cores of its share of the node.
  hw.cpu_cores_per_gpu = cpu_cores_per_node > 0 ? static_cast<double>(cpu_cores_per_node) / gpus_per_node : 0;
  hw.intra_node_bytes_per_s = gpu.nvlink_bytes_per_s > 0 ? gpu.nvlink_bytes_per_s : pcie_x16_bytes_per_s(hw.pcie_gen);
  hw.inter_node_bytes_per_s = inter_node_bytes_per_s > 0 ? inter_node_bytes_per_s : 12.5e9 * gpus_per_node;
  return hw;
}

std::string_view bottleneck_name(Bottleneck b) {
  switch (b) {
    case Bottleneck::Compute: return "compute";
    case Bottleneck::Memory: return "memory";
    case Bottleneck::Overhead: return "overhead";
    case Bottleneck::Communication: return "communication";
    case Bottleneck::InputStorage: return "input-storage";
    case Bottleneck::InputCpu: return "input-cpu";
    case Bottleneck::InputPcie: return "input-pcie";
  }
  return "unknown";
}

double alpha_beta_all_reduce_s(double bytes, int ranks, const HardwareContext& hw, const Calibration& cal) {
  if (ranks <= 1 || bytes <= 0) return 0;
  const double alpha = hw.intra_node_latency_s > 0 ? hw.intra_node_latency_s : cal.comm_latency_s;
  const double intra_bw = hw.intra_node_bytes_per_s * cal.comm_bw_efficiency;
  const int nodes = std::max(1, std::min(hw.nodes, ranks));
  if (nodes == 1) return ring_s(bytes, ranks, intra_bw, alpha);
  // Across nodes NCCL runs one pipelined ring (or tree) through every GPU, each channel
  // leaving the node through its own NIC: chunks cross NVLink and the NICs at the same time,
  // so the slower of the two sets the bus bandwidth (NCCL's ncclTopoTuneModel: busBw =
  // channels x inter-node bandwidth beyond two nodes; NVIDIA measures 192 GB/s all-reduce
  // busbw on DGX A100s with 8x 200 Gb/s NICs, nccl issue #812). The ring pays 2(n-1) steps,
  // 2N of them on the network. The double binary tree (Sanders et al. 2009) moves 2S through
  // each node's NICs like the ring, but S on two nodes (each tree is one edge), so there it
  // can beat the NIC bound (NVIDIA/nccl-tests #196); its latency is 2((k-1) + ceil(log2 N))
  // steps; it runs at 0.92 of its bound. NCCL picks the cheaper (docs/step-time.md,
  // "Gradient synchronisation").
  const int local = std::max(1, ranks / nodes);
  const double net_bw = hw.inter_node_bytes_per_s * cal.net_bw_efficiency;
  const double bus_bw = std::min(intra_bw, net_bw);
  const double alpha_net = hw.inter_node_latency_s;
  const double ring_steps_net = 2.0 * nodes;
  const double ring_steps_intra = std::max(0.0, 2.0 * (ranks - 1) - ring_steps_net);
  const double ring = 2.0 * (ranks - 1) / ranks * bytes / bus_bw + ring_steps_intra * alpha + ring_steps_net * alpha_net;
  const double tree_net_bytes = nodes == 2 ? bytes : 2.0 * bytes;
  const double tree = std::max(tree_net_bytes / net_bw, 2.0 * bytes / intra_bw) / TREE_BW_FACTOR +
                      2.0 * ((local - 1) * alpha + std::ceil(std::log2(static_cast<double>(nodes))) * alpha_net);
  return std::min(ring, tree);
}

double gradient_sync_bytes(const TrainingSpec& job) {
  const double split = static_cast<double>(job.parallel.tensor) * job.parallel.pipeline;
  const double bytes = job.figures().params / split * gradient_bytes_per_param(job.precision);
  return job.parallel.zero_stage >= 3 ? 1.5 * bytes : bytes;  // parameter all-gathers in fwd and bwd
}

ComputeParts aggregate_compute_parts(const TrainingSpec& job, const GpuSpec& gpu, const Calibration& cal) {
  const ModelFigures f = job.figures();
  const ParallelismSpec& par = job.parallel;
  const double b = job.batch_per_gpu;
  const double split = static_cast<double>(par.tensor) * par.pipeline;
  ComputeParts e;

  // Compute: each op class at its own roof, run back to back.
  const double train_flop = 3.0 * b * f.forward_flop / split;
  const EfficiencyRatios ratio = efficiency_ratios(gpu, job.precision);
  const double simt_peak = gpu.fp32_flop_per_s * std::min(cal.simt_efficiency * ratio.simt, ratio.simt_ceiling);
  const double mm_peak = is_tensor_precision(job.precision)
                             ? gpu.peak_flop_per_s(job.precision) * cal.tensor_efficiency * ratio.tensor
                             : simt_peak;
  e.tensor_s = train_flop * f.tensor_fraction / mm_peak;
  const double hbm = gpu.memory_bytes_per_s * cal.memory_efficiency;
  const double mem_bytes = b * f.memory_traffic_bytes * element_scale(job.precision) / split;
  const double vec_flop = train_flop * (1 - f.tensor_fraction);
  e.memory_s = std::max(mem_bytes / hbm, vec_flop / simt_peak);
  const double params_local = f.params / split;
  const double params_updated = par.zero_stage >= 1 ? params_local / par.data : params_local;
  e.optimizer_s = params_updated * optimizer_traffic_bytes_per_param(job.optimizer) / hbm / job.grad_accum;
  e.overhead_s = f.kernels_per_step / static_cast<double>(par.pipeline) * cal.kernel_overhead_s;
  return e;
}

ComputeParts operator_compute_parts(const TrainingSpec& job, const GpuSpec& gpu, const OperatorCalibration& oc) {
  const ParallelismSpec& par = job.parallel;
  const double split = static_cast<double>(par.tensor) * par.pipeline;
  const OptimizerKind opt = job.optimizer == Optimizer::Sgd ? OptimizerKind::Sgd : OptimizerKind::Adam;
  const OperatorGraph g = build_operators(job.model, job.batch_per_gpu, job.seq_len, job.precision, opt);
  const OperatorStep s = operator_step(g, gpu, job.precision, job.grad_accum, oc);
  ComputeParts e;
  e.tensor_s = s.gemm_s / split;
  e.memory_s = s.memory_bound_s / split;
  e.optimizer_s = s.optimizer_s / split / (par.zero_stage >= 1 ? par.data : 1);
  e.overhead_s = s.launch_s / par.pipeline;
  return e;
}

std::vector<OperatorShare> step_operators(const TrainingSpec& job, const GpuSpec& gpu, const Calibration& cal) {
  std::vector<OperatorShare> out;
  if (!cal.operator_model || !has_operator_model(job.model)) return out;
  const ParallelismSpec& par = job.parallel;
  const double split = static_cast<double>(par.tensor) * par.pipeline;
  const OptimizerKind opt = job.optimizer == Optimizer::Sgd ? OptimizerKind::Sgd : OptimizerKind::Adam;
  const OperatorGraph g = build_operators(job.model, job.batch_per_gpu, job.seq_len, job.precision, opt);
  const GpuComputeFigures f = gpu_compute_figures(gpu);
  // As operator_step and operator_compute_parts count them.
  for (const Operator& op : g.ops) {
    const OperatorTime t = operator_time(op, gpu, f, job.precision, cal.operators);
    const double launch = cal.operators.launch_s * op.count;
    const double roof = t.time_s - launch;
    double time_s = 0;
    if (op.kind == OpKind::Optimizer)
      time_s = roof / std::max(1, job.grad_accum) / split / (par.zero_stage >= 1 ? par.data : 1) +
               launch / std::max(1, job.grad_accum) / par.pipeline;
    else
      time_s = roof / split + launch / par.pipeline;
    out.push_back({op.name, op_kind_name(op.kind), op_pass_name(op.pass), op.count, time_s * job.compute_scale, t.compute_bound});
  }
  return out;
}

StepEstimate estimate_step(const TrainingSpec& job, const HardwareContext& hw, const Calibration& cal) {
  const bool ops = cal.operator_model && has_operator_model(job.model);
  return estimate_step_from(job, hw, cal,
                            ops ? operator_compute_parts(job, hw.gpu, cal.operators) : aggregate_compute_parts(job, hw.gpu, cal));
}

StepEstimate estimate_step_from(const TrainingSpec& job, const HardwareContext& hw, const Calibration& cal,
                                const ComputeParts& parts) {
  const ModelFigures f = job.figures();
  const ParallelismSpec& par = job.parallel;
  const double b = job.batch_per_gpu;
  const double split = static_cast<double>(par.tensor) * par.pipeline;
  StepEstimate e;
  e.tensor_s = parts.tensor_s;
  e.memory_s = parts.memory_s;
  e.optimizer_s = parts.optimizer_s;
  e.overhead_s = parts.overhead_s;
  // An anchored job: the anchor's measured/modelled residual on every compute part, each
  // part already at this GPU's roof (docs/step-time.md, "Anchors").
  for (double* part : {&e.tensor_s, &e.memory_s, &e.optimizer_s, &e.overhead_s}) *part *= job.compute_scale;
  e.compute_s = e.tensor_s + e.memory_s + e.optimizer_s + e.overhead_s;

  // Gradient synchronisation once per optimizer step, hidden behind the last micro-step's
  // backward pass (2/3 of its compute) as far as it goes.
  const double sync_bytes = gradient_sync_bytes(job);
  double sync_s = 0;
  if (par.data > 1) {
    sync_s = hw.all_reduce ? hw.all_reduce(sync_bytes, par.data, hw) : alpha_beta_all_reduce_s(sync_bytes, par.data, hw, cal);
  }
  const double backward_s = 2.0 / 3.0 * (e.tensor_s + e.memory_s);
  const double exposed = std::max(sync_s - cal.overlap_fraction * backward_s, (1 - cal.overlap_fraction) * sync_s);
  e.comm_s = sync_s / job.grad_accum;
  e.comm_exposed_s = exposed / job.grad_accum;
  // Tensor parallelism: 2 all-reduces of the layer output in forward and 2 in backward per
  // layer (Shoeybi et al. 2019, Megatron-LM section 3), on the critical path.
  if (par.tensor > 1 && job.model.transformer) {
    const TransformerShape& t = *job.model.transformer;
    const double act_bytes = b * f.tokens * t.hidden * 2.0 * element_scale(job.precision);
    const double per_layer = 4.0 * ring_s(act_bytes, par.tensor, hw.intra_node_bytes_per_s * cal.comm_bw_efficiency,
                                          hw.intra_node_latency_s > 0 ? hw.intra_node_latency_s : cal.comm_latency_s);
    e.comm_exposed_s += per_layer * t.layers / par.pipeline;
  }
  const double work_s = e.compute_s + e.comm_exposed_s;
  e.bubble_s = par.pipeline > 1 ? work_s * (par.pipeline - 1) / job.grad_accum : 0;
  e.gpu_s = work_s + e.bubble_s;

  // Input pipeline for one data-parallel replica (tensor x pipeline GPUs share its cores).
  const double job_samples = b * par.data;
  if (hw.storage_read_bytes_per_s > 0) {
    const double bytes = job.dataset && job.dataset->file_bytes > 0 ? job.dataset->file_bytes : f.input_bytes;
    e.input_storage_s = job_samples * bytes / hw.storage_read_bytes_per_s;
  }
  if (hw.cpu_cores_per_gpu > 0) {
    const double share = job.decode == Decode::Gpu ? cal.gpu_decode_cpu_share : 1.0;
    e.input_cpu_s = b * f.cpu_decode_core_s * share / (hw.cpu_cores_per_gpu * split);
  }
  const double pcie = pcie_x16_bytes_per_s(hw.pcie_gen) * cal.pcie_efficiency;
  const double h2d_bytes = job.decode == Decode::Gpu ? f.input_bytes : f.device_bytes;
  if (pcie > 0) e.input_h2d_s = b * h2d_bytes / pcie;
  e.input_s = std::max({e.input_storage_s, e.input_cpu_s, e.input_h2d_s});

  const double base = std::max(e.gpu_s, e.input_s);
  const double n = hw.gpus;
  e.straggler_s = n > 1 ? base * cal.straggler_sigma * std::sqrt(2.0 * std::log(n)) : 0;
  e.step_s = base + e.straggler_s;

  if (e.input_s > e.gpu_s) {
    if (e.input_s == e.input_storage_s) e.bottleneck = Bottleneck::InputStorage;
    else if (e.input_s == e.input_cpu_s) e.bottleneck = Bottleneck::InputCpu;
    else e.bottleneck = Bottleneck::InputPcie;
  } else {
    const double parts[] = {e.tensor_s, e.memory_s + e.optimizer_s, e.overhead_s, e.comm_exposed_s + e.bubble_s};
    const Bottleneck names[] = {Bottleneck::Compute, Bottleneck::Memory, Bottleneck::Overhead, Bottleneck::Communication};
    e.bottleneck = names[std::max_element(std::begin(parts), std::end(parts)) - std::begin(parts)];
  }
  e.samples_per_s = job_samples / e.step_s;
  e.samples_per_s_per_gpu = e.samples_per_s / job.gpus;
  return e;
}

const ModelAnchor* pick_anchor(const TrainingSpec& job) {
  const auto wide = [](Precision p) { return p == Precision::Fp32 || p == Precision::Tf32; };
  const int seq = job.figures().seq_len;
  const ModelAnchor* best = nullptr;
  for (const ModelAnchor& a : job.model.anchors) {
    if (resolve(job.model, a.seq_len).seq_len != seq || wide(a.precision) != wide(job.precision)) continue;
    if (best == nullptr) {
      best = &a;
      continue;
    }
    const bool exact = a.precision == job.precision, best_exact = best->precision == job.precision;
    if (exact != best_exact ? exact : a.gpus < best->gpus) best = &a;
  }
  return best;
}

double anchor_compute_scale(const TrainingSpec& job, const Calibration& cal) {
  const ModelAnchor* a = pick_anchor(job);
  if (a == nullptr) return 1;
  TrainingSpec run = job;
  run.precision = a->precision;
  run.batch_per_gpu = a->batch_per_gpu;
  run.grad_accum = a->grad_accum;
  run.seq_len = a->seq_len;
  run.gpus = a->gpus;
  run.parallel = ParallelismSpec{a->gpus, 1, 1, 0};
  run.dataset.reset();
  HardwareContext hw = hardware_for(a->gpu, a->gpus, a->gpus_per_node, a->host_cores);
  // A benchmark run gives all the host's cores to the GPUs it uses.
  if (a->host_cores > 0) hw.cpu_cores_per_gpu = static_cast<double>(a->host_cores) / std::min(a->gpus, a->gpus_per_node);
  double k = 1;
  for (int i = 0; i < 64; ++i) {
    run.compute_scale = k;
    const StepEstimate e = estimate_step(run, hw, cal);
    if (e.input_s >= e.gpu_s) break;
    const double ratio = e.samples_per_s / a->samples_per_s;
    if (std::fabs(ratio - 1) < 1e-12) break;
    k *= ratio;
  }
  return k;
}

EstimateRow estimate_job(const TrainingSpec& job, const HardwareContext& hw, double node_price_usd_per_hour,
                         int gpus_per_node, const Calibration& cal) {
  EstimateRow row;
  row.step = estimate_step(job, hw, cal);
  row.memory = check_memory_fit(job, hw.gpu);
  row.samples_per_s = row.step.samples_per_s;
  const int held = job.gpus <= gpus_per_node ? job.gpus : hw.nodes * gpus_per_node;
  row.usd_per_hour = node_price_usd_per_hour / gpus_per_node * held;
  const double epoch = job.epoch_samples();
  row.time_per_epoch_s = epoch / row.samples_per_s;
  row.gpu_hours_per_epoch = row.time_per_epoch_s / 3600.0 * held;
  row.total_time_s = job.total_samples / row.samples_per_s;
  row.cost_per_epoch_usd = row.time_per_epoch_s / 3600.0 * row.usd_per_hour;
  row.cost_per_million_samples_usd = 1e6 / row.samples_per_s / 3600.0 * row.usd_per_hour;
  row.total_cost_usd = row.total_time_s / 3600.0 * row.usd_per_hour;
  return row;
}

}  // namespace gcsim::models
