// The operator lists against totals counted by hand (ResNet-50's 25,557,032 parameters and
// 4.09 GMAC, BERT-large's 335,141,888 parameters, a transformer layer's 24·b·s·h² + 4·b·s²·h
// forward GEMM FLOPs) and against the catalog's aggregate figures; operator times on a
// made-up GPU and the tile / wave / split-K factors computed by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "models/workload/operator_time.hpp"
#include "models/workload/operators.hpp"
#include "tests/models/workload/calibration_rows.hpp"

using namespace gcsim::models;
using gcsim::test::bundled_models;

namespace {

double sum_bytes(const OperatorGraph& g, OpKind k) {
  double s = 0;
  for (const Operator& op : g.ops)
    if (op.kind == k) s += op.bytes * op.count;
  return s;
}

double gemm_flop(const OperatorGraph& g, OpPass p) {
  double s = 0;
  for (const Operator& op : g.ops)
    if (op.gemm && op.pass == p) s += op.flop * op.count;
  return s;
}

// Every fitted fraction 1, no launch gap, no small-K penalty, no element-rate term: an
// operator's time is its roofline at the GPU's figures alone.
OperatorCalibration roofline_only() {
  OperatorCalibration c;
  c.gemm_fraction = 1;
  c.tf32_fraction = 1;
  c.simt_fraction = 1;
  c.memory_efficiency = 1;
  c.launch_s = 0;
  c.small_k = 0;
  c.sm_element_rate = 0;
  return c;
}

}  // namespace

TEST_CASE("ResNet-50 operators: parameters and FLOPs counted by hand", "[model][operators]") {
  const OperatorGraph g = resnet50_operators(1, Precision::Fp16, OptimizerKind::Sgd);
  // torchvision resnet50: 25,557,032 parameters (conv weights, 2 per batch-norm channel,
  // the 2048 × 1000 classifier and its bias).
  CHECK(g.params == 25'557'032);
  // 4.09 GMAC (torchvision's "GFLOPS" column) = 8.18e9 FLOPs per 224² image, counted as
  // 2 per multiply-add; the exact implicit-GEMM count is 4,089,184,256 multiply-adds
  // (53 convolutions and the classifier).
  const double fwd = gemm_flop(g, OpPass::Forward);
  CHECK(fwd == Approx(2 * 4'089'184'256.0).epsilon(1e-12));
  int convs = 0;
  for (const Operator& op : g.ops) convs += op.kind == OpKind::Conv && op.pass == OpPass::Forward;
  CHECK(convs == 53);
  // Backward: data and weight gradients as large as the forward product each, except the
  // first convolution's data gradient (the image needs none): 2·7·7·3·64·112² multiply-adds.
  const double conv1 = 2.0 * 7 * 7 * 3 * 64 * 112 * 112;
  CHECK(gemm_flop(g, OpPass::BackwardData) + gemm_flop(g, OpPass::BackwardWeight) == Approx(2 * fwd - conv1));
  // The catalog's F (8.18 G) within 0.1%: its figure is torchvision's rounded 4.09 GMAC.
  const ModelFigures f = resolve(*bundled_models().find_model("resnet50"));
  CHECK(fwd == Approx(f.forward_flop).epsilon(0.001));
  CHECK(g.params == f.params);
}

TEST_CASE("ResNet-50 GEMM shapes: implicit GEMM of a convolution", "[model][operators]") {
  const OperatorGraph g = resnet50_operators(256, Precision::Fp16, OptimizerKind::Sgd);
  // layer2.0.conv2: 3×3, 128 → 128, stride 2, 56² → 28² (v1.5: the stride on the 3×3).
  const Operator* fwd = nullptr;
  const Operator* dgrad = nullptr;
  const Operator* wgrad = nullptr;
  for (const Operator& op : g.ops) {
    if (op.name == "layer2.0.conv2") fwd = &op;
    if (op.name == "layer2.0.conv2.dgrad") dgrad = &op;
    if (op.name == "layer2.0.conv2.wgrad") wgrad = &op;
  }
  REQUIRE(fwd);
  REQUIRE(dgrad);
  REQUIRE(wgrad);
  CHECK(fwd->gemm->m == 256.0 * 28 * 28);
  CHECK(fwd->gemm->n == 128);
  CHECK(fwd->gemm->k == 128 * 9);
  CHECK(dgrad->gemm->m == 256.0 * 56 * 56);
  CHECK(dgrad->gemm->n == 128);
  CHECK(dgrad->gemm->k == 128 * 9 / 4.0);
  CHECK(wgrad->gemm->m == 128);
  CHECK(wgrad->gemm->n == 128 * 9);
  CHECK(wgrad->gemm->k == 256.0 * 28 * 28);
  CHECK(dgrad->flop == Approx(fwd->flop));
  CHECK(wgrad->flop == Approx(fwd->flop));
  // The batch norm after it reads its output twice and writes once, 2-byte elements.
  for (const Operator& op : g.ops)
    if (op.name == "layer2.0.conv2.bn") CHECK(op.bytes == 3.0 * 256 * 28 * 28 * 128 * 2);
}

TEST_CASE("A transformer layer's GEMMs: 24·b·s·h² + 4·b·s²·h forward", "[model][operators]") {
  TransformerShape t;
  t.layers = 1;
  t.hidden = 1024;
  t.heads = 16;
  t.ffn = 4096;
  t.seq_len = 128;
  t.causal = false;
  const double b = 8, s = 128, h = 1024;
  const OperatorGraph g = transformer_operators(t, 8, 0, Precision::Fp16, OptimizerKind::Adam);
  CHECK(gemm_flop(g, OpPass::Forward) == 24 * b * s * h * h + 4 * b * s * s * h);
  CHECK(gemm_flop(g, OpPass::BackwardData) + gemm_flop(g, OpPass::BackwardWeight) == 2 * gemm_flop(g, OpPass::Forward));
  // Q·Kᵀ per head: batch b·a, M = N = s, K = h/a.
  for (const Operator& op : g.ops) {
    if (op.name != "layer.scores") continue;
    CHECK(op.gemm->batch == 8 * 16);
    CHECK(op.gemm->m == 128);
    CHECK(op.gemm->n == 128);
    CHECK(op.gemm->k == 64);
  }
  // FP32 moves every activation at 4 bytes: twice AMP's bytes for the normalizations.
  const OperatorGraph g32 = transformer_operators(t, 8, 0, Precision::Fp32, OptimizerKind::Adam);
  CHECK(sum_bytes(g32, OpKind::Normalization) == 2 * sum_bytes(g, OpKind::Normalization));
}

TEST_CASE("BERT-large operators: 335,141,888 parameters and the catalog's figures", "[model][operators]") {
  const ModelSpec& bert = *bundled_models().find_model("bert-large");
  TransformerShape t = *bert.transformer;
  // BertModel (Hugging Face bert-large-uncased): 24 layers of 12,596,224 parameters, the
  // word (30522), position (512) and type (2) embeddings with their layer norm, the pooler.
  const double h = 1024;
  const double bert_model_extra = (512 + 2) * h + 2 * h + (h * h + h);
  const OperatorGraph g = transformer_operators(t, 1, 128, Precision::Fp16, OptimizerKind::Adam, bert_model_extra);
  CHECK(g.params == 335'141'888);
  // With the catalog's own extra_params, exactly the catalog's N (the same count).
  const OperatorGraph gc = build_operators(bert, 1, 128, Precision::Fp16, OptimizerKind::Adam);
  const ModelFigures f = resolve(bert, 128);
  CHECK(gc.params == Approx(f.params).epsilon(1e-12));
  // Forward FLOPs within 0.2% of the catalog's F: the operators add the MLM head's dense
  // transform (2·h² on 15% of the tokens), which the catalog's formula leaves out.
  CHECK(gemm_flop(gc, OpPass::Forward) == Approx(f.forward_flop).epsilon(0.002));
  CHECK(gemm_flop(gc, OpPass::Forward) > f.forward_flop);
}

TEST_CASE("Every bundled model with an architecture agrees with its catalog F and N", "[model][operators]") {
  // Tolerance 1% on F: the catalog counts the layers' and the LM head's GEMMs by formula;
  // the operators count the same GEMMs plus an encoder's MLM transform (under 0.2%). N is
  // the same count term by term (exact to rounding).
  int checked = 0;
  for (const ModelSpec& m : bundled_models().models()) {
    if (!has_operator_model(m)) continue;
    const ModelFigures f = resolve(m);
    const OperatorGraph g = build_operators(m, 1, 0, Precision::Bf16, OptimizerKind::Adam);
    INFO(m.name);
    const double extra = m.transformer ? m.transformer->extra_forward_flop : 0;
    CHECK(gemm_flop(g, OpPass::Forward) + extra == Approx(f.forward_flop).epsilon(0.01));
    // A gated (LLaMA) layer has only 2h of norm weights where the catalog counts a GPT
    // layer's 9h + f biases and norms (its documented over-count, under 0.03%).
    const bool gated = m.transformer && m.transformer->mlp == MlpForm::Gated;
    CHECK(g.params == Approx(f.params).epsilon(gated ? 3e-4 : 1e-9));
    if (m.name == "llama-2-7b") CHECK(g.params == 6'738'415'616);  // Hugging Face Llama-2-7b-hf
    ++checked;
  }
  CHECK(checked >= 8);
}

TEST_CASE("Optimizer bytes per parameter", "[model][operators]") {
  CHECK(optimizer_bytes_per_param(OptimizerKind::Adam, Precision::Fp32) == 28);
  CHECK(optimizer_bytes_per_param(OptimizerKind::Adam, Precision::Fp16) == 32);
  CHECK(optimizer_bytes_per_param(OptimizerKind::Sgd, Precision::Tf32) == 20);
  CHECK(optimizer_bytes_per_param(OptimizerKind::Sgd, Precision::Bf16) == 24);
  const OperatorGraph g = resnet50_operators(32, Precision::Fp32, OptimizerKind::Sgd);
  CHECK(sum_bytes(g, OpKind::Optimizer) == 20.0 * 25'557'032);
  CHECK_THROWS_AS(build_operators(*bundled_models().find_model("yolov5s"), 1, 0, Precision::Fp16, OptimizerKind::Sgd),
                  std::invalid_argument);
}

TEST_CASE("GEMM shape efficiency: tile, wave and split-K by hand", "[model][operators]") {
  // 1280 × 1280: 100 tiles of 128² on 80 SMs -> 2 waves, 100 / 160 = 0.625; K = 4096 with
  // k0 = 64: 4096 / 4160.
  CHECK(gemm_shape_efficiency({1280, 1280, 4096, 1}, 80, 64) == Approx(0.625 * 4096 / 4160.0));
  // Tile quantization: 192 × 192 fills 192² of 256²; 4 tiles split K (20480 / 256 = 80,
  // 80 / 4 = 20 splits) into 80 tiles of K = 1024: one full wave.
  CHECK(gemm_shape_efficiency({192, 192, 20480, 1}, 80, 64) == Approx(0.5625 * 1024 / 1088.0));
  // One tile, K = 512: only 2 splits keep 256 of K each: 2 tiles on 80 SMs.
  CHECK(gemm_shape_efficiency({128, 128, 512, 1}, 80, 0) == Approx(2.0 / 80));
  // A batched GEMM: 128 heads of 128 × 128 tiles on 108 SMs: 2 waves, 128 / 216.
  CHECK(gemm_shape_efficiency({128, 128, 64, 128}, 108, 0) == Approx(128.0 / 216));
}

TEST_CASE("Operator time: the roofline of one operator on a made-up GPU", "[model][operators]") {
  GpuSpec gpu;
  gpu.name = "V100-toy";  // the V100's microbenchmark row: 16-bit 0.7789, FP32 0.9242
  gpu.fp32_flop_per_s = 10e12;
  gpu.fp16_flop_per_s = 100e12;
  gpu.memory_bytes_per_s = 1e12;
  OperatorCalibration cal;
  cal.gemm_fraction = 0.5;
  cal.simt_fraction = 1;
  cal.memory_efficiency = 0.5;
  cal.launch_s = 1e-5;
  cal.small_k = 0;
  // A memory-bound op: 1 GB at 0.5 TB/s = 2 ms, + 10 µs launch.
  Operator ew;
  ew.kind = OpKind::Elementwise;
  ew.bytes = 1e9;
  ew.flop = 1e6;
  CHECK(operator_time(ew, gpu, Precision::Fp16, cal).time_s == Approx(2e-3 + 1e-5));
  // A GEMM of 80 × 80 full tiles (one wave each) and K = 10240: 2·10240³ FLOPs at
  // 100 TFLOP/s × 0.7789 × 0.5.
  Operator mm;
  mm.kind = OpKind::Gemm;
  mm.gemm = GemmShape{10240, 10240, 10240, 1};
  mm.flop = mm.gemm->flop();
  mm.bytes = 3 * 10240.0 * 10240 * 2;
  const OperatorTime t = operator_time(mm, gpu, Precision::Fp16, cal);
  CHECK(t.compute_bound);
  CHECK(t.time_s == Approx(mm.flop / (100e12 * (97.36 / 125) * 0.5) + 1e-5));
  // The same in FP32 runs on the CUDA cores at the FP32 SGEMM fraction.
  CHECK(operator_time(mm, gpu, Precision::Fp32, cal).time_s == Approx(mm.flop / (10e12 * (14.51 / 15.7)) + 1e-5));

  // The SMs' element rate: 1e10 elements/s per SM on the V100's 80 SMs. The 1 GB op moves
  // 5e8 two-byte elements in 16-bit (+0.625 ms), 2.5e8 four-byte ones in FP32 (+0.3125 ms);
  // a GEMM does not pay it.
  cal.sm_element_rate = 1e10;
  CHECK(operator_time(ew, gpu, Precision::Fp16, cal).time_s == Approx(2e-3 + 6.25e-4 + 1e-5));
  CHECK(operator_time(ew, gpu, Precision::Fp32, cal).time_s == Approx(2e-3 + 3.125e-4 + 1e-5));
  CHECK(operator_time(mm, gpu, Precision::Fp16, cal).time_s == Approx(mm.flop / (100e12 * (97.36 / 125) * 0.5) + 1e-5));
  // More SMs, less latency-bound time: the B200's 148 (a name from SM_TABLE).
  gpu.name = "B200";
  CHECK(operator_time(ew, gpu, Precision::Fp16, cal).memory_s == Approx(2e-3 + 5e8 / (1e10 * 148)));
}

TEST_CASE("A GPU on another's GEMM figures runs at the clock its board's power sustains", "[model][operators]") {
  // The A10 takes the A40's figures (300 W, 84 SMs, 37.4 TFLOPS FP32): boost clock ratio
  // (31.2/72)/(37.4/84) = 0.97326; the A40's 300/84 W per SM at that clock is
  // 3.5714 × 0.97326³ = 3.2926 W; the A10 has 150/72 = 2.0833 W: (2.0833/3.2926)^(1/3).
  CHECK(gpu_compute_figures(gcsim::test::gpu("A10")).clock_factor == Approx(0.85850).epsilon(1e-4));
  // The RTX A6000: the A40's power per SM at a 3.5% higher boost clock: 0.96641.
  CHECK(gpu_compute_figures(gcsim::test::gpu("RTX-A6000")).clock_factor == Approx(0.96641).epsilon(1e-4));
  // The H100 PCIe on the H100 SXM's row (700 W, 132 SMs, 67 TFLOPS): 0.94562.
  CHECK(gpu_compute_figures(gcsim::test::gpu("H100-PCIe")).clock_factor == Approx(0.94562).epsilon(1e-4));
  // The L40 on the RTX 4090's (450 W, 128 SMs, 82.6 TFLOPS): 0.85445.
  CHECK(gpu_compute_figures(gcsim::test::gpu("L40")).clock_factor == Approx(0.85445).epsilon(1e-4));
  // The RTX 3090 on the RTX 3080 Ti's (350 W, 80 SMs, 34.1 TFLOPS): a 1.8523% higher boost
  // clock, 4.375 × 1.018523³ = 4.6226 W per SM needed, 350/82 = 4.2683 there: 0.97376.
  CHECK(gpu_compute_figures(gcsim::test::gpu("RTX-3090")).clock_factor == Approx(0.97376).epsilon(1e-4));
  // Measured on itself (the A10G on its own microbenchmark, #126), or of another
  // architecture than its row's: none.
  const GpuComputeFigures a10g = gpu_compute_figures(gcsim::test::gpu("A10G"));
  CHECK(a10g.measured);
  CHECK(a10g.simt_fp32 == Approx(23.37 / 31.2));
  for (const char* name : {"A10G", "H100-SXM", "V100-SXM2-16GB", "T4", "L4", "GH200", "B200", "K80"})
    CHECK(gpu_compute_figures(gcsim::test::gpu(name)).clock_factor == 1);

  // It scales a GEMM's rate and the SMs' element rate, not the memory's bandwidth.
  const GpuSpec& a10 = gcsim::test::gpu("A10");
  OperatorCalibration cal = roofline_only();
  cal.sm_element_rate = 1e10;
  Operator mm;
  mm.kind = OpKind::Gemm;
  mm.gemm = GemmShape{9216, 9216, 9216, 1};  // 72 × 72 tiles: 72 full waves on 72 SMs
  mm.flop = mm.gemm->flop();
  mm.bytes = 0;
  CHECK(operator_time(mm, a10, Precision::Bf16, cal).compute_s ==
        Approx(mm.flop / (125e12 * (119.18 / 149.7) * 0.85850)).epsilon(1e-4));
  Operator ew;
  ew.kind = OpKind::Elementwise;
  ew.bytes = 1e9;
  CHECK(operator_time(ew, a10, Precision::Bf16, cal).memory_s ==
        Approx(1e9 / 600e9 + 5e8 / (1e10 * 0.85850 * 72)).epsilon(1e-4));
}

TEST_CASE("A 3×3 convolution of stride 1 in FP32 or TF32 takes Winograd's F(2×2, 3×3) where it is faster", "[model][operators]") {
  // ResNet-50's 3×3 convolutions of stride 1: 16 in the bottlenecks less the 3 whose stage
  // starts with stride 2, each with its forward, data-gradient and weight-gradient pass.
  const OperatorGraph g = resnet50_operators(64, Precision::Fp32, OptimizerKind::Sgd);
  int marked = 0;
  for (const Operator& op : g.ops) {
    if (!op.winograd) continue;
    ++marked;
    CHECK(op.kind == OpKind::Conv);
    CHECK(op.name.find(".conv2") != std::string::npos);
  }
  CHECK(marked == 13 * 3);
  CHECK(std::none_of(g.ops.begin(), g.ops.end(), [](const Operator& op) {
    return op.winograd && (op.name.rfind("layer2.0.", 0) == 0 || op.name.rfind("layer3.0.", 0) == 0 ||
                           op.name.rfind("layer4.0.", 0) == 0);
  }));

  OperatorCalibration cal = roofline_only();
  Operator conv;
  conv.kind = OpKind::Conv;
  conv.gemm = GemmShape{80 * 128, 128, 9 * 256, 1};  // 80 × 1 full tiles: one full wave on 80 SMs
  conv.flop = conv.gemm->flop();
  conv.bytes = 0;
  conv.winograd = true;
  // The V100 in FP32 (no tensor cores for it): 15.7 TFLOPS × 14.51/15.7 × 36/16.
  const GpuSpec& v100 = gcsim::test::gpu("V100-SXM2-16GB");
  CHECK(operator_time(conv, v100, Precision::Fp32, cal).compute_s == Approx(conv.flop / (14.51e12 * 2.25)).epsilon(1e-6));
  // In 16-bit precision the tensor cores: 125 TFLOPS × 97.36/125.
  CHECK(operator_time(conv, v100, Precision::Fp16, cal).compute_s == Approx(conv.flop / 97.36e12).epsilon(1e-6));
  // The RTX 3090 in TF32 (the RTX 3080 Ti's figures, at 0.97376 of its clock): tensor cores
  // 35.6 × 1 against CUDA cores 35.6 × 24.38/34.1 × 2.25: Winograd (80 tiles on 82 SMs: one
  // wave, 80/82 of it busy).
  const GpuSpec& rtx = gcsim::test::gpu("RTX-3090");
  const double rtx_clock = gpu_compute_figures(rtx).clock_factor;
  CHECK(operator_time(conv, rtx, Precision::Tf32, cal).compute_s ==
        Approx(conv.flop / (35.6e12 * (24.38 / 34.1) * rtx_clock * 2.25 * (80.0 / 82))).epsilon(1e-6));
  // The H100 SXM in TF32: 494.5 × 0.813 on tensor cores beats 67 × 0.774 × 2.25.
  const GpuSpec& h100 = gcsim::test::gpu("H100-SXM");
  CHECK(operator_time(conv, h100, Precision::Tf32, cal).compute_s ==
        Approx(conv.flop / (402.15e12 * (80.0 / 132))).epsilon(1e-6));
  // TF32 work on tensor cores takes its own fraction of the large-GEMM figure; 16-bit work
  // the GEMM fraction.
  cal.tf32_fraction = 0.5;
  CHECK(operator_time(conv, h100, Precision::Tf32, cal).compute_s ==
        Approx(conv.flop / (0.5 * 402.15e12 * (80.0 / 132))).epsilon(1e-6));
  CHECK(operator_time(conv, h100, Precision::Bf16, cal).compute_s ==
        Approx(conv.flop / (792.1e12 * (80.0 / 132))).epsilon(1e-6));
  cal.tf32_fraction = 1;
  // Not marked (a 1×1 or strided convolution): the implicit GEMM alone.
  conv.winograd = false;
  CHECK(operator_time(conv, v100, Precision::Fp32, cal).compute_s == Approx(conv.flop / 14.51e12).epsilon(1e-6));
}

TEST_CASE("ResNet-50 fused as XLA fuses it: no ReLU kernels, the residual add reads its shortcut only", "[model][operators]") {
  const OperatorGraph eager = resnet50_operators(32, Precision::Fp16, OptimizerKind::Sgd);
  const OperatorGraph fused = resnet50_operators(32, Precision::Fp16, OptimizerKind::Sgd, Fusion::Fused);
  const auto sum = [](const OperatorGraph& g, const std::string& part, bool gemm) {
    double bytes = 0;
    int n = 0;
    for (const Operator& op : g.ops)
      if (op.name.find(part) != std::string::npos && op.gemm.has_value() == gemm) bytes += op.bytes * op.count, ++n;
    return std::pair{bytes, n};
  };
  // 33 ReLUs after a batch norm (conv1's and two per bottleneck) and 16 after the residual
  // adds, forward and backward: all gone.
  CHECK(sum(eager, "relu", false).second == 2 * (1 + 16 * 3));
  CHECK(sum(fused, "relu", false).second == 0);
  // The 16 residual adds: 3 accesses per output element eagerly, 1 fused (backward twice).
  CHECK(sum(fused, ".add", false).first == Approx(sum(eager, ".add", false).first / 3));
  // Convolutions, batch norms, the optimizer and the parameters are the same.
  CHECK(sum(fused, "", true).first == Approx(sum(eager, "", true).first));
  CHECK(sum(fused, ".bn", false).first == Approx(sum(eager, ".bn", false).first));
  CHECK(fused.params == eager.params);
  CHECK(fused.forward_gemm_flop() == Approx(eager.forward_gemm_flop()));
}
