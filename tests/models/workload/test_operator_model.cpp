// Leave-one-GPU-out validation of the operator-level step model (issue 34) against the
// aggregate roofline of today's estimate_step, on the same rows: the V100 rows of
// training_throughput_v100.csv (NVIDIA DeepLearningExamples) and the ResNet-50, BERT-large
// and BERT-base rows of training_throughputs.csv (Lambda's PyTorch benchmark, copied from
// branch tput at 6a30929; no A100 ResNet-50 or BERT row: held out by the issue, and refused
// here). For each GPU: fit the global constants on every other GPU's rows (the coordinate
// search of test_calibration.cpp), predict this GPU's rows, report the mean absolute
// percentage error. "[.calibrate-ops]" prints the table docs/step-time.md carries.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/workload/operator_time.hpp"
#include "models/workload/operators.hpp"
#include "tests/models/workload/calibration_rows.hpp"

using namespace gcsim::models;

namespace {

struct OpRow {
  std::string group;   // the GPU, V100 memory sizes merged: "V100", "H100-SXM", ...
  std::string label;
  TrainingSpec job;
  HardwareContext hw;
  double measured = 0;
  bool in_fit = true;
  Fusion fusion = Fusion::Eager;  // the framework's: XLA fuses elementwise operators
  std::string twin;               // Lambda rows: model, system, GPUs, sequence (AMP and FP32 pair up)
  OperatorGraph graph;
};

std::string group_of(const std::string& gpu) { return gpu.rfind("V100", 0) == 0 ? "V100" : gpu; }

bool is_16bit(Precision p) { return p == Precision::Fp16 || p == Precision::Bf16; }

OptimizerKind optimizer_kind(Optimizer o) { return o == Optimizer::Sgd ? OptimizerKind::Sgd : OptimizerKind::Adam; }

ModelSpec bert_base() {
  ModelSpec m = *gcsim::test::bundled_models().find_model("bert-large");
  m.name = "bert-base";
  m.transformer->layers = 12;
  m.transformer->hidden = 768;
  m.transformer->heads = 12;
  m.transformer->ffn = 3072;
  m.anchors.clear();  // bert-large's measurements are not bert-base's
  return m;
}

void attach_graph(OpRow& r) {
  r.graph = build_operators(r.job.model, r.job.batch_per_gpu, r.job.seq_len, r.job.precision,
                            optimizer_kind(r.job.optimizer), r.fusion);
}

std::vector<OpRow> load_rows() {
  std::vector<OpRow> rows;
  for (auto& c : gcsim::test::calibration_rows()) {
    OpRow r;
    r.group = group_of(c.hw.gpu.name);
    r.label = "DLE " + c.label;
    r.job = c.job;
    r.hw = c.hw;
    r.measured = c.measured;
    r.in_fit = c.in_fit;
    // DeepLearningExamples' TensorFlow ResNet-50 rows run with XLA (their framework column,
    // "TensorFlow1+XLA"); the PyTorch ones eagerly.
    if (c.label.find("+XLA ") != std::string::npos) r.fusion = Fusion::Fused;
    attach_graph(r);
    rows.push_back(std::move(r));
  }
  std::ifstream in(GCSIM_SOURCE_DIR "/tests/models/workload/data/training_throughputs.csv");
  if (!in) throw std::runtime_error("training_throughputs.csv missing");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    // Quoted cells hold commas: cut the row at the first 16 plain cells (none of which
    // is quoted in this file).
    const auto c = gcsim::test::split_csv(line);
    const std::string model = c[3], task = c[4], gpu_name = c[6], precision = c[10];
    if (model != "ResNet50v1.5" && model != "BERT-large" && model != "BERT-base") continue;
    if (gpu_name.rfind("A100", 0) == 0) throw std::runtime_error("A100 ResNet-50/BERT rows are held out (issue 34)");
    if (c[11].empty()) continue;
    const int gpus = std::stoi(c[8]);
    const int batch = std::stoi(c[11]);
    const int seq = c[12].empty() ? 0 : std::stoi(c[12]);
    const GpuSpec& g = gcsim::test::gpu(gpu_name);
    // "FP32" in NGC containers on Ampere and later runs TF32 tensor cores (PyTorch's and
    // cuDNN's default there); on the V100 it is FP32.
    const Precision p = precision == "AMP" ? Precision::Fp16 : (g.tf32_flop_per_s > 0 ? Precision::Tf32 : Precision::Fp32);
    OpRow r;
    r.group = group_of(gpu_name);
    r.label = "Lambda " + model + " " + precision + " b" + c[11] + " x" + c[8] + " (" + c[5].substr(8) + ")";
    if (model == "ResNet50v1.5") {
      // Synthetic data: no decoding (unlimited host cores), SGD with momentum.
      r.job = gcsim::test::make_job("resnet50", p, batch, gpus, 0, 1, Optimizer::Sgd, Decode::Gpu);
    } else {
      r.job = gcsim::test::make_job("bert-large", p, batch, gpus, seq, 1, Optimizer::Adam, Decode::Cpu);
      if (model == "BERT-base") r.job.model = bert_base();
    }
    r.hw = hardware_for(g, gpus, std::max(gpus, 1), 0);
    r.measured = std::stod(c[13]);
    // A multi-GPU row more than 5% faster per GPU than its system's one-GPU row
    // (scaling_vs_1gpu above 1.05 × the GPUs) is not data-parallel training of the same
    // step: no model of one step and its all-reduce can give it. Kept, but out of the fit
    // and the errors (docs/step-time.md, "Leave-one-GPU-out").
    if (gpus > 1 && !c[15].empty() && std::stod(c[15]) > 1.05 * gpus) r.in_fit = false;
    r.twin = model + "|" + c[5] + "|" + c[8] + "|" + c[12];
    attach_graph(r);
    rows.push_back(std::move(r));
  }
  // An AMP row less than 5% faster than its FP32/TF32 twin (same model, system, GPUs and
  // sequence) did not get what AMP changes: half the bytes of every memory-bound operator
  // and GEMMs at a 16-bit peak twice TF32's (8× FP32's on the V100). No GPU figure explains
  // that (the input is synthetic, docs/step-time.md, "Leave-one-GPU-out"). Kept, but out of
  // the fit and the errors, as the superlinear rows above.
  std::map<std::string, double> fp32_twin;
  for (const OpRow& r : rows)
    if (!r.twin.empty() && !is_16bit(r.job.precision)) fp32_twin[r.twin] = r.measured;
  for (OpRow& r : rows) {
    const auto t = fp32_twin.find(r.twin);
    if (!r.twin.empty() && is_16bit(r.job.precision) && t != fp32_twin.end() && r.measured < 1.05 * t->second)
      r.in_fit = false;
  }
  return rows;
}

const std::vector<OpRow>& rows() {
  static const std::vector<OpRow> r = load_rows();
  return r;
}

// The operator model without anchors (the row's graph is built once).
double op_model(const OpRow& r, const OperatorCalibration& oc) {
  const OperatorStep s = operator_step(r.graph, r.hw.gpu, r.job.precision, r.job.grad_accum, oc);
  const ComputeParts parts{s.gemm_s, s.memory_bound_s, s.optimizer_s, s.launch_s};
  return estimate_step_from(r.job, r.hw, default_calibration(), parts).samples_per_s;
}

// A row as gcsim would estimate it for a user: scaled from the model's catalog anchor (the
// V100 measurements of resnet50 and bert-large) where one applies (same sequence length and
// element width), with the aggregate roofline or with the operator model.
double anchored(const OpRow& r, const Calibration& c) {
  TrainingSpec job = r.job;
  job.compute_scale = anchor_compute_scale(job, c);
  return estimate_step(job, r.hw, c).samples_per_s;
}

Calibration with_operators(const OperatorCalibration& oc) {
  Calibration c = default_calibration();
  c.operator_model = true;
  c.operators = oc;
  return c;
}

double aggregate_model(const OpRow& r, const Calibration& c) { return estimate_step(r.job, r.hw, c).samples_per_s; }

// Coordinate search with shrinking multiplicative steps (as test_calibration.cpp's fit)
// minimising the sum of squared log residuals over the rows `use` accepts.
struct Param {
  double* value;
  double lo, hi;
};
void coordinate_search(const std::vector<Param>& params, const std::function<double()>& objective) {
  double best = objective();
  for (double step = 0.2; step > 5e-4; step *= 0.5) {
    bool improved = true;
    while (improved) {
      improved = false;
      for (const Param& p : params) {
        for (double dir : {1 + step, 1 / (1 + step)}) {
          const double old = *p.value;
          *p.value = std::min(p.hi, std::max(p.lo, old * dir));
          const double o = objective();
          if (o < best - 1e-12) {
            best = o;
            improved = true;
          } else {
            *p.value = old;
          }
        }
      }
    }
  }
}

// Each GPU weighs the same, whatever its number of rows (the H100-SXM has 180 of 382):
// the mean squared log residual of each GPU, summed over the GPUs.
template <class Model>
double sum_sq_log(const Model& model, const std::string& skip_group) {
  std::map<std::string, std::pair<double, int>> per_gpu;
  for (const OpRow& r : rows()) {
    if (!r.in_fit || r.group == skip_group) continue;
    const double d = std::log(model(r) / r.measured);
    auto& [sum, n] = per_gpu[r.group];
    sum += d * d;
    ++n;
  }
  double total = 0;
  for (const auto& [gpu, s] : per_gpu) total += s.first / s.second;
  return total;
}

// Physical ranges: GEMM fractions up to the best large GEMM, HBM efficiency up to 95%,
// launch gaps 1-20 µs, k0 up to 512 elements, the SMs' element rate 1e8-1e11 per SM and
// second (a resident thread moving one element per 0.02-20 µs).
OperatorCalibration fit_ops(const std::string& skip_group) {
  OperatorCalibration c = default_operator_calibration();
  coordinate_search({{&c.gemm_fraction, 0.2, 1.0},
                     {&c.tf32_fraction, 0.2, 1.0},
                     {&c.simt_fraction, 0.2, 1.0},
                     {&c.memory_efficiency, 0.3, 0.95},
                     {&c.launch_s, 1e-6, 20e-6},
                     {&c.small_k, 1, 512},
                     {&c.sm_element_rate, 1e8, 1e11}},
                    [&] { return sum_sq_log([&](const OpRow& r) { return op_model(r, c); }, skip_group); });
  return c;
}

// Today's aggregate roofline (operator_model off), its shipped V100-fitted constants.
Calibration aggregate_default() {
  Calibration c = default_calibration();
  c.operator_model = false;
  return c;
}

Calibration fit_aggregate(const std::string& skip_group) {
  Calibration c = aggregate_default();
  coordinate_search({{&c.tensor_efficiency, 0.05, 0.95},
                     {&c.simt_efficiency, 0.05, 0.95},
                     {&c.memory_efficiency, 0.05, 0.95},
                     {&c.kernel_overhead_s, 1e-6, 20e-6}},
                    [&] { return sum_sq_log([&](const OpRow& r) { return aggregate_model(r, c); }, skip_group); });
  return c;
}

struct GroupResult {
  std::string group;
  int rows = 0;
  double mape_ops = 0;
  double mape_aggregate = 0;
  double mape_anchored_ops = 0;        // 0 on the V100 (the anchors' own GPU)
  double mape_anchored_aggregate = 0;
};

std::vector<GroupResult> leave_one_gpu_out(bool print) {
  std::vector<std::string> groups;
  for (const OpRow& r : rows())
    if (std::find(groups.begin(), groups.end(), r.group) == groups.end()) groups.push_back(r.group);
  std::vector<GroupResult> out;
  for (const std::string& g : groups) {
    const OperatorCalibration oc = fit_ops(g);
    const Calibration ac = fit_aggregate(g);
    GroupResult res{g};
    if (print)
      std::printf("\nheld out %s: fitted on the others gemm_fraction %.3f tf32_fraction %.3f simt_fraction %.3f memory_efficiency %.3f "
                  "launch_s %.2e small_k %.1f\n| row | measured | operators | error | aggregate | error | anchored "
                  "operators | error | anchored aggregate (shipped) | error |\n|---|---|---|---|---|---|---|---|---|---|\n",
                  g.c_str(), oc.gemm_fraction, oc.tf32_fraction, oc.simt_fraction, oc.memory_efficiency, oc.launch_s, oc.small_k);
    const Calibration anchored_ops = with_operators(oc);
    for (const OpRow& r : rows()) {
      if (r.group != g || !r.in_fit) continue;
      const double po = op_model(r, oc), pa = aggregate_model(r, ac);
      res.mape_ops += std::fabs(po / r.measured - 1);
      res.mape_aggregate += std::fabs(pa / r.measured - 1);
      ++res.rows;
      // The anchors are V100 rows: on the V100 an anchored row is partly its own answer.
      if (g != "V100") {
        const double qo = anchored(r, anchored_ops), qa = anchored(r, aggregate_default());
        res.mape_anchored_ops += std::fabs(qo / r.measured - 1);
        res.mape_anchored_aggregate += std::fabs(qa / r.measured - 1);
        if (print)
          std::printf("| %s | %.1f | %.1f | %+.1f%% | %.1f | %+.1f%% | %.1f | %+.1f%% | %.1f | %+.1f%% |\n", r.label.c_str(),
                      r.measured, po, 100 * (po / r.measured - 1), pa, 100 * (pa / r.measured - 1), qo,
                      100 * (qo / r.measured - 1), qa, 100 * (qa / r.measured - 1));
      } else if (print) {
        std::printf("| %s | %.1f | %.1f | %+.1f%% | %.1f | %+.1f%% | - | - | - | - |\n", r.label.c_str(), r.measured, po,
                    100 * (po / r.measured - 1), pa, 100 * (pa / r.measured - 1));
      }
    }
    res.mape_ops /= res.rows;
    res.mape_aggregate /= res.rows;
    res.mape_anchored_ops /= res.rows;
    res.mape_anchored_aggregate /= res.rows;
    out.push_back(res);
  }
  if (print) {
    std::printf("\n| held-out GPU | rows | MAPE operators | MAPE aggregate | MAPE anchored operators | MAPE anchored "
                "aggregate (shipped) |\n|---|---|---|---|---|---|\n");
    for (const GroupResult& r : out)
      std::printf("| %s | %d | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n", r.group.c_str(), r.rows, 100 * r.mape_ops,
                  100 * r.mape_aggregate, 100 * r.mape_anchored_ops, 100 * r.mape_anchored_aggregate);
  }
  return out;
}

}  // namespace

TEST_CASE("Operator model rows: no held-out A100 row, every GPU resolved", "[model][operator-model]") {
  std::map<std::string, int> per_gpu;
  for (const OpRow& r : rows()) {
    CHECK(r.hw.gpu.name.rfind("A100", 0) != 0);
    ++per_gpu[r.group];
  }
  CHECK(per_gpu.size() >= 8);
  CHECK(per_gpu["V100"] >= 38);
  // The two rules that leave Lambda rows out (docs/step-time.md, "Leave-one-GPU-out"): 16
  // superlinear multi-GPU rows, and AMP rows no faster than their FP32/TF32 twin, which are
  // the B200's four ResNet-50 AMP rows and no others.
  int out = 0, amp_twin = 0;
  for (const OpRow& r : rows()) {
    if (r.twin.empty() || r.in_fit) continue;
    ++out;
    if (r.group == "B200" && r.job.model.name == "resnet50" && is_16bit(r.job.precision)) ++amp_twin;
  }
  CHECK(out == 16 + 4);
  CHECK(amp_twin == 4);
}

TEST_CASE("Leave-one-GPU-out: print the table", "[.calibrate-ops]") {
  const OperatorCalibration all = fit_ops("");
  std::printf("fitted on every GPU: gemm_fraction %.3f tf32_fraction %.3f simt_fraction %.3f memory_efficiency %.3f launch_s %.2e small_k %.1f sm_element_rate %.3g\n",
              all.gemm_fraction, all.tf32_fraction, all.simt_fraction, all.memory_efficiency, all.launch_s, all.small_k, all.sm_element_rate);
  leave_one_gpu_out(true);
}

TEST_CASE("Leave-one-GPU-out errors stay within their documented bounds", "[model][operator-model]") {
  // docs/step-time.md, "Operator-level model": each bound is the held-out GPU's measured
  // mean absolute percentage error rounded up to the next percent, plus 1 point of margin,
  // so a change that makes any GPU's transfer worse by more than that fails here.
  const std::map<std::string, double> bound_percent = {
      {"V100", 14}, {"RTX-3090", 11}, {"RTX-4090", 14}, {"A10", 10}, {"RTX-A6000", 8},
      {"H100-PCIe", 6}, {"H100-SXM", 7}, {"GH200", 14}, {"H200", 8}, {"B200", 6},
  };
  const auto results = leave_one_gpu_out(false);
  REQUIRE(results.size() == bound_percent.size());
  double ops = 0, aggregate = 0;
  for (const GroupResult& r : results) {
    INFO(r.group << ": " << r.rows << " rows, MAPE operators " << r.mape_ops << ", aggregate " << r.mape_aggregate);
    REQUIRE(bound_percent.count(r.group) == 1);
    CHECK(r.rows >= 6);
    CHECK(100 * r.mape_ops <= bound_percent.at(r.group));
    // Why the operator model is what estimate_step uses for models with an architecture:
    // on every held-out GPU it transfers better than the aggregate roofline refitted the
    // same way (measured: 4.5 to 38.3 points better; the A10 the least, since its clock
    // under its 150 W is counted, docs/step-time.md, "Clocks under the board's power").
    CHECK(r.mape_ops < r.mape_aggregate);
    ops += r.mape_ops;
    aggregate += r.mape_aggregate;
  }
  // Mean of the per-GPU errors: 8.3% against 25.1%.
  CHECK(ops / results.size() < aggregate / results.size() - 0.10);
}
