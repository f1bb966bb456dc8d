// The step-time model: roofline cases computed by hand on a made-up GPU, the all-reduce
// formula, a data-loader-bound job, 1 -> 8 GPU scaling on NVSwitch vs PCIe, the collective
// hook, and the estimate row's cost arithmetic.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/workload/memory_fit.hpp"
#include "tests/models/workload/calibration_rows.hpp"

using gcsim::models::alpha_beta_all_reduce_s;
using gcsim::models::Bottleneck;
using gcsim::models::Calibration;
using gcsim::models::Decode;
using gcsim::models::estimate_job;
using gcsim::models::estimate_step;
using gcsim::models::GpuSpec;
using gcsim::models::HardwareContext;
using gcsim::models::ModelSpec;
using gcsim::models::Optimizer;
using gcsim::models::Precision;
using gcsim::models::TrainingSpec;
using gcsim::test::gpu;
using gcsim::test::make_job;

namespace {

// Round numbers so that every term can be checked by hand.
GpuSpec toy_gpu() {
  GpuSpec g;
  g.name = "toy";
  g.fp32_flop_per_s = 10e12;
  g.fp16_flop_per_s = 100e12;
  g.memory_bytes = 16.0 * 1024 * 1024 * 1024;
  g.memory_bytes_per_s = 1e12;
  g.pcie_gen = 4;
  return g;
}

Calibration toy_cal() {
  Calibration c;
  c.tensor_efficiency = 0.5;
  c.simt_efficiency = 0.5;
  c.memory_efficiency = 0.5;
  c.kernel_overhead_s = 5e-6;
  c.straggler_sigma = 0;
  c.overlap_fraction = 0.5;
  c.comm_bw_efficiency = 1;
  c.comm_latency_s = 1e-6;
  c.net_bw_efficiency = 0.9;
  c.pcie_efficiency = 1;
  c.gpu_decode_cpu_share = 0.5;
  return c;
}

TrainingSpec toy_job(Precision p, int batch, int gpus = 1) {
  TrainingSpec t;
  t.model.name = "toy";
  t.model.forward_flop_per_sample = 1e9;
  t.model.tensor_fraction = 1;
  t.model.memory_traffic_bytes_per_sample = 1e6;
  t.model.params = 1e6;
  t.model.activation_bytes_per_sample = 1e6;
  t.model.kernels_per_step = 100;
  t.precision = p;
  t.batch_per_gpu = batch;
  t.gpus = gpus;
  t.parallel.data = gpus;
  t.optimizer = Optimizer::Adam;
  t.total_samples = 1e6;
  return t;
}

HardwareContext toy_hw(int gpus = 1) {
  HardwareContext hw;
  hw.gpu = toy_gpu();
  hw.gpus = gpus;
  hw.pcie_gen = 4;
  hw.intra_node_bytes_per_s = 100e9;
  return hw;
}

}  // namespace

TEST_CASE("Roofline per op class, by hand", "[model][step]") {
  const Calibration cal = toy_cal();
  SECTION("amp: tensor cores at 50% of 100 TFLOPS, memory at 50% of 1 TB/s") {
    const auto e = estimate_step(toy_job(Precision::Fp16, 10), toy_hw(), cal);
    CHECK(e.tensor_s == Approx(3 * 10 * 1e9 / 50e12));       // 0.6 ms
    CHECK(e.memory_s == Approx(10 * 1e6 / 0.5e12));          // 20 us
    CHECK(e.optimizer_s == Approx(1e6 * 28 / 0.5e12));       // 56 us
    CHECK(e.overhead_s == Approx(100 * 5e-6));               // 0.5 ms
    CHECK(e.compute_s == Approx(0.6e-3 + 20e-6 + 56e-6 + 0.5e-3));
    CHECK(e.step_s == Approx(e.compute_s));
    CHECK(e.bottleneck == Bottleneck::Compute);
    CHECK(e.samples_per_s == Approx(10 / e.step_s));
  }
  SECTION("fp32: CUDA-core peak and 4-byte elements") {
    const auto e = estimate_step(toy_job(Precision::Fp32, 10), toy_hw(), cal);
    CHECK(e.tensor_s == Approx(3 * 10 * 1e9 / 5e12));
    CHECK(e.memory_s == Approx(2 * 10 * 1e6 / 0.5e12));
  }
  SECTION("memory-bound when traffic dominates") {
    auto job = toy_job(Precision::Fp16, 10);
    job.model.memory_traffic_bytes_per_sample = 100e6;
    const auto e = estimate_step(job, toy_hw(), cal);
    CHECK(e.memory_s == Approx(10 * 100e6 / 0.5e12));  // 2 ms > 0.6 ms of tensor work
    CHECK(e.bottleneck == Bottleneck::Memory);
  }
  SECTION("elementwise FLOPs use the fp32 roof when they exceed the bandwidth roof") {
    auto job = toy_job(Precision::Fp16, 10);
    job.model.tensor_fraction = 0.5;
    job.model.memory_traffic_bytes_per_sample = 0;
    const auto e = estimate_step(job, toy_hw(), cal);
    CHECK(e.tensor_s == Approx(0.5 * 30e9 / 50e12));
    CHECK(e.memory_s == Approx(0.5 * 30e9 / 5e12));
  }
  SECTION("launch overhead dominates tiny batches") {
    const auto e = estimate_step(toy_job(Precision::Fp16, 1), toy_hw(), cal);
    CHECK(e.bottleneck == Bottleneck::Overhead);
  }
  SECTION("gradient accumulation amortises the optimizer") {
    auto job = toy_job(Precision::Fp16, 10);
    job.grad_accum = 4;
    CHECK(estimate_step(job, toy_hw(), cal).optimizer_s == Approx(56e-6 / 4));
  }
}

TEST_CASE("Ring all-reduce alpha-beta inside a node, NCCL's ring or tree across nodes", "[model][step]") {
  const Calibration cal = toy_cal();  // η_bw 1, α 1 µs, η_net 0.9
  HardwareContext hw = toy_hw(8);     // 100 GB/s per GPU inside the node
  CHECK(alpha_beta_all_reduce_s(1e9, 8, hw, cal) == Approx(2.0 * 7 / 8 * 1e9 / 100e9 + 14 * 1e-6));
  CHECK(alpha_beta_all_reduce_s(1e9, 1, hw, cal) == 0);
  hw.inter_node_bytes_per_s = 50e9;  // per node, all NICs: 45 GB/s at η_net 0.9, below NVLink's 100
  hw.inter_node_latency_s = 5e-6;
  SECTION("4 nodes x 8 GPUs, 1 GB: the ring at the NICs' 45 GB/s") {
    hw.gpus = 32;
    hw.nodes = 4;
    // ring: 2·31/32 · 1 GB / 45 GB/s = 43.056 ms; 62 steps, 8 of them on the network:
    // 54 · 1 µs + 8 · 5 µs = 94 µs. Together 43.150 ms.
    // tree: 2 · 1 GB / (0.92 · 45 GB/s) = 48.309 ms + 2·(7·1 + 2·5) µs = 48.343 ms.
    CHECK(alpha_beta_all_reduce_s(1e9, 32, hw, cal) == Approx(0.0430556 + 94e-6).epsilon(1e-5));
    CHECK(alpha_beta_all_reduce_s(1e9, 32, hw, cal) == Approx(0.0431496).epsilon(1e-5));
  }
  SECTION("32 nodes x 8 GPUs, 1 MB: latency-bound, the tree") {
    hw.gpus = 256;
    hw.nodes = 32;
    // ring: 2·255/256 · 1 MB / 45 GB/s = 44.27 µs + 446 · 1 µs + 64 · 5 µs = 810.3 µs;
    // tree: 2 MB / 41.4 GB/s = 48.31 µs + 2·(7·1 + 5·5) µs = 112.31 µs.
    CHECK(alpha_beta_all_reduce_s(1e6, 256, hw, cal) == Approx(48.309e-6 + 64e-6).epsilon(1e-4));
  }
  SECTION("2 nodes x 8 GPUs, one slow NIC each: the tree, S through each NIC instead of 2S") {
    hw.gpus = 16;
    hw.nodes = 2;
    hw.inter_node_bytes_per_s = 25e9;  // 22.5 GB/s at η_net
    // ring: 2·15/16 · 1 GB / 22.5 GB/s = 83.333 ms + (30 − 4) · 1 µs + 4 · 5 µs = 83.379 ms;
    // tree: max(1 GB / 22.5 GB/s, 2 GB / 100 GB/s) / 0.92 = 48.309 ms + 2·(7·1 + 1·5) µs.
    CHECK(alpha_beta_all_reduce_s(1e9, 16, hw, cal) == Approx(1.0 / 22.5 / 0.92 + 24e-6).epsilon(1e-6));
  }
  SECTION("NICs faster than NVLink: NVLink sets the bus bandwidth") {
    hw.gpus = 16;
    hw.nodes = 2;
    hw.inter_node_bytes_per_s = 400e9;  // 360 GB/s at η_net, above NVLink's 100
    // ring: 2·15/16 · 1 GB / 100 GB/s = 18.75 ms + (30 − 4) · 1 µs + 4 · 5 µs = 18.796 ms
    CHECK(alpha_beta_all_reduce_s(1e9, 16, hw, cal) == Approx(0.01875 + 46e-6).epsilon(1e-6));
  }
}

TEST_CASE("Gradient sync overlaps backward, the collective hook replaces alpha-beta", "[model][step]") {
  const Calibration cal = toy_cal();
  auto job = toy_job(Precision::Fp16, 10, 8);
  HardwareContext hw = toy_hw(8);
  int calls = 0;
  hw.all_reduce = [&](double bytes, int ranks, const HardwareContext&) {
    ++calls;
    CHECK(bytes == Approx(1e6 * 2));  // fp16 gradients
    CHECK(ranks == 8);
    return 1e-3;
  };
  const auto e = estimate_step(job, hw, cal);
  CHECK(calls == 1);
  CHECK(e.comm_s == Approx(1e-3));
  const double backward = 2.0 / 3.0 * (e.tensor_s + e.memory_s);  // 0.4133 ms
  CHECK(e.comm_exposed_s == Approx(std::max(1e-3 - 0.5 * backward, 0.5e-3)));
  CHECK(e.step_s == Approx(e.compute_s + e.comm_exposed_s));
}

TEST_CASE("A data-loader-bound job speeds up with CPU cores, not with a faster GPU", "[model][step]") {
  auto job = make_job("resnet50", Precision::Fp16, 256, 8, 0, 1, Optimizer::Sgd, Decode::Cpu);
  auto a100 = gcsim::models::hardware_for(gpu("A100-80GB-SXM"), 8, 8, 16);  // 2 cores per GPU
  auto h100 = gcsim::models::hardware_for(gpu("H100-SXM"), 8, 8, 16);
  const auto slow = estimate_step(job, a100);
  CHECK(slow.bottleneck == Bottleneck::InputCpu);
  // 5 ms per image on 2 cores: 400 images/s per GPU, whatever the GPU.
  CHECK(slow.samples_per_s_per_gpu * (1 + 0.03 * std::sqrt(2 * std::log(8.0))) == Approx(400).epsilon(1e-6));
  CHECK(estimate_step(job, h100).samples_per_s == Approx(slow.samples_per_s));
  auto more_cores = a100;
  more_cores.cpu_cores_per_gpu = 4;
  CHECK(estimate_step(job, more_cores).samples_per_s == Approx(2 * slow.samples_per_s));
  // With enough cores the GPU is the limit again, and then H100 is faster.
  a100.cpu_cores_per_gpu = h100.cpu_cores_per_gpu = 32;
  CHECK(estimate_step(job, a100).bottleneck != Bottleneck::InputCpu);
  CHECK(estimate_step(job, h100).samples_per_s > 1.5 * estimate_step(job, a100).samples_per_s);
}

TEST_CASE("Storage-bound input", "[model][step]") {
  auto job = make_job("resnet50", Precision::Fp16, 256, 8, 0, 1, Optimizer::Sgd, Decode::Gpu);
  auto hw = gcsim::models::hardware_for(gpu("A100-80GB-SXM"), 8, 8, 256);
  hw.storage_read_bytes_per_s = 200e6;  // 200 MB/s for the whole job
  const auto e = estimate_step(job, hw);
  CHECK(e.bottleneck == Bottleneck::InputStorage);
  CHECK(e.input_storage_s == Approx(8 * 256 * 109e3 / 200e6));
}

TEST_CASE("Scaling 1 -> 8 GPUs: NVSwitch keeps up, PCIe does not", "[model][step]") {
  // BERT-large fine-tuning without accumulation: 670 MB of fp16 gradients per step.
  const auto one = make_job("bert-large", Precision::Fp16, 8, 1, 384);
  const auto eight = make_job("bert-large", Precision::Fp16, 8, 8, 384);
  const auto& a100 = gpu("A100-80GB-SXM");
  const auto nvswitch = gcsim::models::hardware_for(a100, 8, 8, 128);
  auto pcie = nvswitch;
  pcie.intra_node_bytes_per_s = gcsim::models::pcie_x16_bytes_per_s(4);
  const double base = estimate_step(one, gcsim::models::hardware_for(a100, 1, 8, 128)).samples_per_s;
  const double s_nvswitch = estimate_step(eight, nvswitch).samples_per_s / base;
  const double s_pcie = estimate_step(eight, pcie).samples_per_s / base;
  INFO("speedup NVSwitch " << s_nvswitch << ", PCIe gen4 " << s_pcie);
  CHECK(s_nvswitch > 7.0);
  CHECK(s_nvswitch <= 8.0);
  CHECK(s_pcie < 0.8 * s_nvswitch);
  const auto e = estimate_step(eight, pcie);
  CHECK(e.comm_exposed_s > 0.25 * e.step_s);
  pcie.intra_node_bytes_per_s = gcsim::models::pcie_x16_bytes_per_s(3);
  CHECK(estimate_step(eight, pcie).bottleneck == Bottleneck::Communication);
}

TEST_CASE("Pipeline bubble and straggler factor", "[model][step]") {
  Calibration cal = toy_cal();
  auto job = toy_job(Precision::Fp16, 10, 4);
  job.parallel = {1, 1, 4, 0};
  job.grad_accum = 8;
  const auto e = estimate_step(job, toy_hw(4), cal);
  CHECK(e.bubble_s == Approx((e.compute_s + e.comm_exposed_s) * 3 / 8));
  cal.straggler_sigma = 0.1;
  const auto s = estimate_step(job, toy_hw(4), cal);
  CHECK(s.straggler_s == Approx(s.gpu_s * 0.1 * std::sqrt(2 * std::log(4.0))));
}

TEST_CASE("Estimate row: throughput, memory and cost per epoch", "[model][step]") {
  auto job = make_job("resnet50", Precision::Fp16, 256, 8, 0, 1, Optimizer::Sgd, Decode::Gpu);
  job.dataset = gcsim::models::DatasetRef{"imagenet-1k", 1'281'167, 0, 0, "", gcsim::models::DataAccess::Stream};
  job.total_samples = 90 * 1'281'167.0;
  const auto hw = gcsim::models::hardware_for(gpu("A100-80GB-SXM"), 8, 8, 128);
  const auto row = estimate_job(job, hw, 32.77, 8);
  CHECK(row.memory.fits);
  CHECK(row.usd_per_hour == Approx(32.77));
  CHECK(row.time_per_epoch_s == Approx(1'281'167 / row.samples_per_s));
  CHECK(row.cost_per_epoch_usd == Approx(row.time_per_epoch_s / 3600 * 32.77));
  CHECK(row.total_cost_usd == Approx(90 * row.cost_per_epoch_usd));
  CHECK(row.cost_per_million_samples_usd == Approx(1e6 / row.samples_per_s / 3600 * 32.77));
  // Half a node pays half the node.
  auto half = make_job("resnet50", Precision::Fp16, 256, 4, 0, 1, Optimizer::Sgd, Decode::Gpu);
  CHECK(estimate_job(half, gcsim::models::hardware_for(gpu("A100-80GB-SXM"), 4, 8, 128), 32.77, 8).usd_per_hour ==
        Approx(32.77 / 2));
}

TEST_CASE("ResNet-50 on 8xA100 vs 8xH100 vs 8xT4 (the bundled estimate example)", "[model][step]") {
  // scenarios/examples/estimate_resnet50.yaml: AWS p4d.24xlarge, p5.48xlarge, g4dn.metal
  // (on-demand us-east-1, scenarios/catalog/instances/aws.csv), physical cores = vCPUs / 2.
  struct Node {
    const char* gpu;
    int cores;
    double price;
  };
  const Node nodes[] = {{"A100-40GB-SXM", 48, 32.7726}, {"H100-SXM", 96, 98.32}, {"T4", 48, 7.824}};
  double rate[3];
  for (int i = 0; i < 3; ++i) {
    auto job = make_job("resnet50", Precision::Fp16, 256, 8, 0, 1, Optimizer::Sgd, Decode::Gpu);
    job.dataset = gcsim::models::DatasetRef{"imagenet-1k", 1'281'167, 0, 0, "", gcsim::models::DataAccess::Stream};
    job.total_samples = 90 * 1'281'167.0;
    const auto row = estimate_job(job, gcsim::models::hardware_for(gpu(nodes[i].gpu), 8, 8, nodes[i].cores),
                                  nodes[i].price, 8);
    rate[i] = row.samples_per_s;
    CHECK(row.memory.fits);
    INFO(nodes[i].gpu << ": " << row.samples_per_s << " img/s, " << row.time_per_epoch_s / 60 << " min/epoch, $"
                      << row.cost_per_epoch_usd << "/epoch, bottleneck "
                      << gcsim::models::bottleneck_name(row.step.bottleneck) << ", step " << row.step.step_s * 1e3
                      << " ms, memory " << row.memory.need.total() / (1 << 30) << " GiB");
  }
  CHECK(rate[1] > rate[0]);
  CHECK(rate[0] > 3 * rate[2]);
}

TEST_CASE("Tensor- and CUDA-core efficiency scale by the published GEMM efficiency ratio to the V100",
          "[model][step]") {
  using gcsim::models::efficiency_ratios;
  // Cited figures (step_time.cpp), all CUDA 11-12: V100 FP16 97.36 of 125 TFLOP/s, FP32
  // 14.51 of 15.7; A100 SXM BF16 267.9 of 312, TF32 126.3 of 156, SGEMM 18.88 of 19.49; H100
  // SXM BF16 792.1 of 989.
  const double v100_tc = 97.36 / 125, v100_simt = 14.51 / 15.7;
  SECTION("the V100 and GPUs without a measurement keep the fitted constants") {
    for (const char* name : {"V100-SXM2-16GB", "V100-SXM2-32GB", "T4", "L4"}) {
      const auto r = efficiency_ratios(gpu(name), Precision::Fp16);
      CHECK(r.tensor == 1);
      CHECK(r.simt == 1);
    }
  }
  SECTION("A100: per precision") {
    const auto& a100 = gpu("A100-80GB-SXM");
    CHECK(efficiency_ratios(a100, Precision::Fp16).tensor == Approx(267.9 / 312 / v100_tc));  // 1.102
    CHECK(efficiency_ratios(a100, Precision::Bf16).tensor == Approx(267.9 / 312 / v100_tc));
    CHECK(efficiency_ratios(a100, Precision::Tf32).tensor == Approx(126.3 / 156 / v100_tc));  // 1.039
    CHECK(efficiency_ratios(a100, Precision::Fp32).simt == Approx(18.88 / 19.49 / v100_simt));  // 1.048
    CHECK(efficiency_ratios(gpu("A100-40GB-PCIe"), Precision::Fp16).tensor == Approx(256.4 / 312 / v100_tc));
  }
  SECTION("H100: the BF16 figure for 16- and 8-bit, its own TF32 and FP32 figures") {
    for (const auto p : {Precision::Fp16, Precision::Bf16, Precision::Fp8}) {
      CHECK(efficiency_ratios(gpu("H100-SXM"), p).tensor == Approx(792.1 / 989 / v100_tc));  // 1.028
    }
    CHECK(efficiency_ratios(gpu("H100-SXM"), Precision::Tf32).tensor == Approx(402.15 / 494.5 / v100_tc));  // 1.044
    CHECK(efficiency_ratios(gpu("H100-SXM"), Precision::Fp32).simt == Approx(51.88 / 67 / v100_simt));     // 0.838
    CHECK(efficiency_ratios(gpu("H200"), Precision::Tf32).tensor == Approx(402.15 / 494.5 / v100_tc));
  }
  SECTION("in the step: tensor roof and the CUDA-core ceiling") {
    // The aggregate roofline (what a model given by its totals takes).
    auto aggregate = gcsim::models::default_calibration();
    aggregate.operator_model = false;
    const auto& a100 = gpu("A100-80GB-SXM");
    const auto job = make_job("resnet50", Precision::Fp16, 256, 1, 0, 1, Optimizer::Sgd, Decode::Gpu);
    const auto f = job.figures();
    const auto e = estimate_step(job, gcsim::models::hardware_for(a100, 1, 8, 128), aggregate);
    const double eta = gcsim::models::default_calibration().tensor_efficiency * 267.9 / 312 / v100_tc;
    CHECK(e.tensor_s == Approx(3 * 256 * f.forward_flop * f.tensor_fraction / (312e12 * eta)));
    // fp32 on the A100: 0.81 x 1.048 = 0.849, under the A100's own measured SGEMM fraction
    // (96.9%), which caps the product (tested with a ratio that would exceed it below).
    const auto fp32 = make_job("resnet50", Precision::Fp32, 128, 1, 0, 1, Optimizer::Sgd, Decode::Gpu);
    const auto e32 = estimate_step(fp32, gcsim::models::hardware_for(a100, 1, 8, 128), aggregate);
    const double simt = gcsim::models::default_calibration().simt_efficiency * (18.88 / 19.49) / v100_simt;
    CHECK(e32.tensor_s == Approx(3 * 128 * f.forward_flop * f.tensor_fraction / (19.5e12 * simt)));
    auto cal = aggregate;
    cal.simt_efficiency = 0.95;  // 0.95 x 1.048 = 0.996 > 0.969: the ceiling applies
    const auto capped = estimate_step(fp32, gcsim::models::hardware_for(a100, 1, 8, 128), cal);
    CHECK(capped.tensor_s == Approx(3 * 128 * f.forward_flop * f.tensor_fraction / (19.5e12 * 18.88 / 19.49)));
  }
}

TEST_CASE("Anchors: the measured run is reproduced, other GPUs get it scaled part by part", "[model][step]") {
  using gcsim::models::anchor_compute_scale;
  using gcsim::models::pick_anchor;
  // bert-large's seq-512 AMP anchor: 75 seq/s on one V100-SXM2-32GB of a DGX-1 (40 cores),
  // batch 8, 256 micro-batches per optimizer step.
  auto job = make_job("bert-large", Precision::Fp16, 8, 1, 512, 256);
  const auto* a = pick_anchor(job);
  REQUIRE(a != nullptr);
  CHECK(a->samples_per_s == 75);
  auto v100 = gcsim::models::hardware_for(gpu("V100-SXM2-32GB"), 1, 8, 40);
  v100.cpu_cores_per_gpu = 40;
  const double roof_anchor = estimate_step(job, v100).samples_per_s;
  job.compute_scale = anchor_compute_scale(job);
  INFO("roofline " << roof_anchor << " seq/s, scale " << job.compute_scale);
  CHECK(job.compute_scale < 0.7);  // the roofline's -44% on this row (docs/step-time.md)
  SECTION("on its own GPU the anchored job gives the measurement") {
    CHECK(estimate_step(job, v100).samples_per_s == Approx(75).epsilon(1e-9));
  }
  SECTION("one A100: every compute part scaled by its own roof, so the ratio to the roofline carries over") {
    const auto hw = gcsim::models::hardware_for(gpu("A100-80GB-SXM"), 1, 8, 128);
    auto roof = job;
    roof.compute_scale = 1;
    const auto e = estimate_step(job, hw);
    const auto r = estimate_step(roof, hw);
    CHECK(e.tensor_s == Approx(r.tensor_s * job.compute_scale));
    CHECK(e.memory_s == Approx(r.memory_s * job.compute_scale));
    CHECK(e.samples_per_s == Approx(r.samples_per_s * 75 / roof_anchor));
  }
  SECTION("eight A100s: communication and input stay at their own roofs") {
    auto eight = make_job("bert-large", Precision::Fp16, 8, 8, 512, 256);
    eight.compute_scale = job.compute_scale;
    auto roof = eight;
    roof.compute_scale = 1;
    const auto hw = gcsim::models::hardware_for(gpu("A100-80GB-SXM"), 8, 8, 128);
    CHECK(estimate_step(eight, hw).comm_s == Approx(estimate_step(roof, hw).comm_s));
    CHECK(estimate_step(eight, hw).input_s == Approx(estimate_step(roof, hw).input_s));
  }
}

TEST_CASE("Anchors: which one applies", "[model][step]") {
  using gcsim::models::anchor_compute_scale;
  using gcsim::models::pick_anchor;
  SECTION("same precision first") {
    CHECK(pick_anchor(make_job("resnet50", Precision::Fp16, 256, 8))->samples_per_s == 1200);
    CHECK(pick_anchor(make_job("resnet50", Precision::Fp32, 112, 1))->samples_per_s == 367);
  }
  SECTION("else the same element width: tf32 from fp32, bf16 from amp") {
    CHECK(pick_anchor(make_job("resnet50", Precision::Tf32, 256, 1))->samples_per_s == 367);
    CHECK(pick_anchor(make_job("bert-large", Precision::Bf16, 64, 1, 128))->samples_per_s == 224);
  }
  SECTION("the sequence length must match") {
    CHECK(pick_anchor(make_job("bert-large", Precision::Fp32, 4, 1, 512))->samples_per_s == 19);
    CHECK(pick_anchor(make_job("bert-large", Precision::Fp16, 32, 1))->samples_per_s == 224);  // default 128
    const auto squad = make_job("bert-large", Precision::Fp16, 16, 1, 384);
    CHECK(pick_anchor(squad) == nullptr);
    CHECK(anchor_compute_scale(squad) == 1);
  }
  SECTION("no anchors: the roofline") {
    CHECK(pick_anchor(make_job("gpt2-xl", Precision::Bf16, 4, 8)) == nullptr);
  }
  SECTION("fewest GPUs among equals") {
    auto job = make_job("resnet50", Precision::Fp16, 256, 1);
    auto eight = job.model.anchors[1];
    eight.gpus = 8;
    eight.samples_per_s = 8000;
    job.model.anchors.insert(job.model.anchors.begin(), eight);
    CHECK(pick_anchor(job)->gpus == 1);
  }
  SECTION("an anchor the model runs input-bound identifies nothing") {
    auto job = make_job("resnet50", Precision::Fp16, 256, 1);
    job.model.anchors[1].host_cores = 1;  // one core decoding for the GPU
    CHECK(anchor_compute_scale(job) == 1);
  }
}

TEST_CASE("step_operators: the operators' times add up to the step's compute, each marked by what bounds it",
          "[model][operators][estimate]") {
  // ResNet-50 AMP (SGD) and BERT-large with 4 micro-steps per update (Adam) on an A100: the
  // rows step_operators gives, summed, are exactly the compute part estimate_step counts
  // (tensor + memory + optimizer + launches), so `gcsim estimate`'s shares are of that.
  const auto& a100 = gpu("A100-40GB-SXM");
  HardwareContext hw = gcsim::models::hardware_for(a100, 1, 8, 0, 0);
  for (const auto& job : {make_job("resnet50", Precision::Fp16, 256, 1, 0, 1, Optimizer::Sgd, Decode::Gpu),
                          make_job("bert-large", Precision::Fp16, 16, 1, 128, 4, Optimizer::Adam, Decode::Cpu)}) {
    INFO(job.model.name);
    const auto ops = gcsim::models::step_operators(job, a100);
    REQUIRE(ops.size() > 10);
    const auto e = estimate_step(job, hw);
    double sum = 0, compute_bound = 0;
    for (const auto& o : ops) {
      CHECK(o.time_s > 0);
      sum += o.time_s;
      if (o.compute_bound) compute_bound += o.time_s;
    }
    CHECK(sum == Approx(e.tensor_s + e.memory_s + e.optimizer_s + e.overhead_s).epsilon(1e-9));
    CHECK(compute_bound > 0);
    CHECK(compute_bound < sum);
    // Only the update is amortised over the micro-steps: with 4, its row is a quarter.
    if (job.grad_accum == 4) {
      auto once = job;
      once.grad_accum = 1;
      const auto ops1 = gcsim::models::step_operators(once, a100);
      for (std::size_t i = 0; i < ops.size(); ++i)
        CHECK(ops[i].time_s == Approx(ops1[i].time_s / (ops[i].pass == "update" ? 4.0 : 1.0)).epsilon(1e-12));
    }
  }
  // A model given by its totals has no operators.
  CHECK(gcsim::models::step_operators(toy_job(Precision::Fp16, 8), toy_gpu()).empty());
}
