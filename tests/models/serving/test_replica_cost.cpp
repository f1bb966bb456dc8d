// The serving cost models of a replica (models/serving/, docs/serving.md "Models"), each
// figure computed by hand from the catalogs: the LLM roofline (prefill compute-bound,
// decode memory-bound at small batch), the KV cache's capacity, tensor parallelism's
// all-reduces, the refusals, and a forward pass of ResNet-50 at two batch sizes.
//
// The GPU throughout is the catalog's A100-80GB-SXM (scenarios/catalog/gpus.yaml): fp16
// 312 TFLOP/s, fp32 19.5 TFLOP/s, memory 80 GiB = 85,899,345,920 B, 2039 GB/s, NVLink
// 300 GB/s. The constants they meet (llm_cost.hpp, step_time.cpp):
//   R   = achieved fp16 matmul rate = 312e12 · η_tc 0.47 · r_tc, r_tc = (267.9/312)/(97.36/125)
//       = 1.102421 → R = 161.659049e12 FLOP/s
//   BWa = achieved decode bandwidth = 2039e9 · (1397.31/2039) = 1397.31e9 B/s
//   t_launch = 20 µs (Calibration::kernel_overhead_s), u = 0.9, working memory 2 GiB/GPU.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "models/serving/forward_cost.hpp"
#include "models/serving/llm_cost.hpp"
#include "models/serving/replica_cost_factory.hpp"
#include "sim/check.hpp"
#include "sim/errors.hpp"
#include "tests/models/workload/calibration_rows.hpp"

using gcsim::models::ModelSpec;
using gcsim::models::Precision;
using gcsim::models::resolve;
using gcsim::models::serving::ForwardCost;
using gcsim::models::serving::Iteration;
using gcsim::models::serving::LlmCost;
using gcsim::models::serving::make_replica_cost;
using gcsim::models::serving::ReplicaHardware;

namespace {

const ModelSpec& model(const std::string& name) {
  const ModelSpec* m = gcsim::test::bundled_models().find_model(name);
  REQUIRE(m != nullptr);
  return *m;
}

ReplicaHardware a100(int gpus) {
  ReplicaHardware hw;
  hw.gpu = gcsim::test::gpu("A100-80GB-SXM");
  hw.gpus = gpus;
  hw.link_bytes_per_s = hw.gpu.nvlink_bytes_per_s;  // 300 GB/s
  hw.link_latency_s = 0;                            // the calibration's α, 4 µs
  return hw;
}

constexpr double R = 312e12 * 0.47 * (267.9 / 312) / (97.36 / 125);  // 161.659e12 FLOP/s
constexpr double BWA = 1397.31e9;                                     // B/s
constexpr double GIB = 1024.0 * 1024 * 1024;

Iteration prefill(std::int64_t tokens, int seqs) {
  Iteration it;
  it.prefill_tokens = tokens;
  it.prefill_seqs = seqs;
  return it;
}

Iteration decode(int seqs, std::int64_t context) {
  Iteration it;
  it.decode_seqs = seqs;
  it.context_tokens = context;
  return it;
}

}  // namespace

TEST_CASE("The LLMs' parameters derived from their shapes match the published counts within 2%", "[model][catalog]") {
  // Derived = L·(2h² + 2h·kv·d + 3h·ffn) + L·(9h + ffn) + 2·V·h (untied head). By hand:
  //   llama-2-7b : 32·(2·4096² + 2·4096·4096 + 3·4096·11008) + 32·(9·4096 + 11008) + 2·32000·4096
  //              = 6,476,005,376 + 1,531,904 + 262,144,000 = 6,739,681,280   (published 6.74e9)
  //   llama-2-13b: 40·(4·5120² + 3·5120·13824) + 40·(9·5120 + 13824) + 2·32000·5120 = 13,017,845,760 (13.0e9)
  //   llama-2-70b: 80·(2·8192² + 2·8192·1024 + 3·8192·28672) + 80·(9·8192 + 28672) + 2·32000·8192
  //              = 68,983,521,280                                                  (69.0e9)
  //   mistral-7b : 32·(2·4096² + 2·4096·1024 + 3·4096·14336) + ... + 2·32000·4096 = 7,243,104,256 (7.24e9)
  //   llama-3-8b : the same layers + 2·128256·4096 = 8,031,633,408                 (8.03e9)
  const struct {
    const char* name;
    double derived;
    double published;
  } cases[] = {{"llama-2-7b", 6'739'681'280, 6.74e9},
               {"llama-2-13b", 13'017'845'760, 13.0e9},
               {"llama-2-70b", 68'983'521'280, 69.0e9},
               {"mistral-7b", 7'243'104'256, 7.24e9},
               {"llama-3-8b", 8'031'633'408, 8.03e9}};
  for (const auto& c : cases) {
    INFO(c.name);
    const double params = resolve(model(c.name)).params;
    CHECK(params == Approx(c.derived).epsilon(1e-12));
    CHECK(params == Approx(c.published).epsilon(0.02));
  }
  // Without its untied head llama-3-8b would be 6.5% short (7.51e9), and without its third
  // MLP matrix llama-2-7b 21% short (5.30e9): the keys matter.
  ModelSpec tied = model("llama-3-8b");
  tied.transformer->tie_embeddings = true;
  CHECK(resolve(tied).params == Approx(8'031'633'408 - 128'256.0 * 4096));
  CHECK(resolve(tied).params < 0.98 * 8.03e9);
  ModelSpec plain = model("llama-2-7b");
  plain.transformer->mlp = gcsim::models::MlpForm::Plain;
  CHECK(resolve(plain).params < 0.98 * 6.74e9);
}

TEST_CASE("An LLM's weights and KV cache per token, from its shape and precision", "[model]") {
  const LlmCost fp16(model("llama-2-7b"), Precision::Fp16, a100(1));
  // KV per token = 2 (K and V) · 32 layers · 32 KV heads · 128 head dim · 2 B = 524,288 B.
  CHECK(fp16.kv_bytes_per_token() == 524'288);
  CHECK(fp16.weights_bytes() == 6'739'681'280.0 * 2);
  // fp8 halves both, fp32 doubles them.
  const LlmCost fp32(model("llama-2-7b"), Precision::Fp32, a100(1));
  CHECK(fp32.kv_bytes_per_token() == 1'048'576);
  CHECK(fp32.weights_bytes() == 6'739'681'280.0 * 4);
  // GQA: llama-2-70b keeps 8 KV heads of 64: 2 · 80 · 8 · 128 · 2 B = 327,680 B per token.
  CHECK(LlmCost(model("llama-2-70b"), Precision::Fp16, a100(4)).kv_bytes_per_token() == 327'680);
  // Over 16 GPUs its 8 KV heads are each held twice: 2 · 80 · (1 · 16) · 128 · 2 B.
  ReplicaHardware wide = a100(16);
  CHECK(LlmCost(model("llama-2-70b"), Precision::Fp16, wide).kv_bytes_per_token() == 655'360);
}

TEST_CASE("Prefill is compute-bound and decode memory-bound at small batch: llama-2-7b fp16 on one A100-80GB",
          "[model]") {
  const LlmCost llm(model("llama-2-7b"), Precision::Fp16, a100(1));
  const double P = 6'739'681'280, W = 2 * P, k = 524'288, L = 32, h = 4096;

  SECTION("prefill of one 512-token prompt: compute-bound") {
    // F = 2·P·512 + 2·L·h·512² (causal attention) = 6,901,433,630,720 + 68,719,476,736
    //   = 6,970,153,107,456 FLOP → 6.970e12 / 161.659e12 = 43.116 ms
    // M = W + k·512 = 13,479,362,560 + 268,435,456 B → 13.748e9 / 1397.31e9 = 9.839 ms
    const auto p = llm.parts(prefill(512, 1));
    CHECK(p.flop == Approx(2 * P * 512 + 2 * L * h * 512 * 512));
    CHECK(p.compute_s == Approx(0.0431164).epsilon(1e-5));
    CHECK(p.memory_s == Approx(0.00983876).epsilon(1e-5));
    CHECK_FALSE(p.memory_bound());
    CHECK(p.all_reduce_s == 0);  // one GPU
    // iteration = max(43.116, 9.839) ms + 20 µs = 43.136 ms
    CHECK(llm.iteration_s(prefill(512, 1)) == Approx(0.0431164 + 20e-6).epsilon(1e-5));
    // The attention term is causal over the mean prompt: two prompts of 256 tokens pay
    // 2·L·h·512²/2, half of one prompt of 512.
    CHECK(llm.parts(prefill(512, 2)).flop == Approx(2 * P * 512 + L * h * 512 * 512));
  }

  SECTION("decode at batch 1: memory-bound, about the weights over the achieved bandwidth") {
    // One sequence with 512 cached tokens: F = 2·P + 4·L·h·512 = 13,747,798,016 FLOP → 85.04 µs;
    // M = W + k·(512 + 1) = 13,748,322,304 B → 9.8391 ms ≈ W / BWa = 9.6467 ms (+ its KV).
    const auto p = llm.parts(decode(1, 512));
    CHECK(p.compute_s == Approx(8.504193e-5).epsilon(1e-5));
    CHECK(p.memory_s == Approx((W + k * 513) / BWA));
    CHECK(p.memory_s == Approx(W / BWA).epsilon(0.03));
    CHECK(p.memory_bound());
    CHECK(llm.iteration_s(decode(1, 512)) == Approx(0.00983914 + 20e-6).epsilon(1e-5));  // ≈ 101 tokens/s
  }

  SECTION("decode at batch 64: still memory-bound (the ridge is near 116 sequences), and per token 29x cheaper") {
    // 64 sequences of 512 cached tokens each, C = 32,768:
    // F = 2·P·64 + 4·L·h·32,768 = 879,859,073,024 FLOP → 5.4427 ms
    // M = W + k·(32,768 + 64) = 30,693,064,704 B → 21.9656 ms
    const auto p = llm.parts(decode(64, 64 * 512));
    CHECK(p.compute_s == Approx(0.00544268).epsilon(1e-5));
    CHECK(p.memory_s == Approx(0.0219656).epsilon(1e-5));
    CHECK(p.memory_bound());
    const double per_token_1 = llm.iteration_s(decode(1, 512));
    const double per_token_64 = llm.iteration_s(decode(64, 64 * 512)) / 64;
    CHECK(per_token_1 / per_token_64 == Approx(0.00985914 / (0.0219856 / 64)).epsilon(1e-4));
  }

  SECTION("decode at batch 256 of short contexts: compute-bound") {
    // 256 sequences of 16 tokens: F = 2·P·256 + 4·L·h·4096 = 3.4530e12 FLOP → 21.359 ms;
    // M = W + k·(4096 + 256) = 15.761e9 B → 11.280 ms.
    const auto p = llm.parts(decode(256, 256 * 16));
    CHECK(p.compute_s == Approx(0.0213589).epsilon(1e-5));
    CHECK(p.memory_s == Approx(0.0112796).epsilon(1e-5));
    CHECK_FALSE(p.memory_bound());
  }

  SECTION("prefill and decode of one iteration share one read of the weights") {
    Iteration both = prefill(512, 1);
    both.decode_seqs = 1;
    both.context_tokens = 512;
    const auto p = llm.parts(both);
    CHECK(p.flop == Approx(llm.parts(prefill(512, 1)).flop + llm.parts(decode(1, 512)).flop));
    CHECK(p.bytes == Approx(W + k * (512 + 512 + 1)));
    CHECK(llm.iteration_s(Iteration{}) == 0);
  }
}

TEST_CASE("The KV cache holds what the weights and working memory leave, and refuses a batch beyond it", "[model]") {
  // (1 · 85,899,345,920 B · 0.9 − 13,479,362,560 B of weights − 2 GiB) / 524,288 B
  //   = (77,309,411,328 − 13,479,362,560 − 2,147,483,648) / 524,288 = 61,682,565,120 / 524,288
  //   = 117,650.16 → 117,650 tokens (229 requests of 512 tokens).
  const LlmCost llm(model("llama-2-7b"), Precision::Fp16, a100(1));
  CHECK(llm.kv_capacity_tokens() == 117'650);
  CHECK(make_replica_cost(model("llama-2-7b"), Precision::Fp16, a100(1))->kv_capacity_tokens() == 117'650);
  // 229 sequences of 512 tokens: 117,248 cached + 229 new = 117,477 fit; 230 do not.
  CHECK(llm.iteration_s(decode(229, 229 * 512)) > 0);
  CHECK_THROWS_AS(llm.iteration_s(decode(230, 230 * 512)), gcsim::InternalError);
  // A prompt counts its own tokens: 117,650 − 512 cached leave no room for a 117,200-token prefill.
  Iteration it = prefill(117'200, 1);
  it.context_tokens = 512;
  CHECK_THROWS_AS(llm.iteration_s(it), gcsim::InternalError);
}

TEST_CASE("A replica on a share of a GPU (gpu_milli) sees that share of its memory, compute and bandwidth", "[model]") {
  // Half an A100-80GB: (0.5 · 85,899,345,920 · 0.9 − 13,479,362,560 − 2 GiB) / 524,288
  //   = 23,027,859,456 / 524,288 = 43,922.16 → 43,922 tokens.
  ReplicaHardware half = a100(1);
  half.share = 0.5;
  const auto h = make_replica_cost(model("llama-2-7b"), Precision::Fp16, half);
  const auto w = make_replica_cost(model("llama-2-7b"), Precision::Fp16, a100(1));
  CHECK(h->kv_capacity_tokens() == 43'922);
  CHECK(h->memory_bytes() == Approx(0.5 * 80 * GIB));
  // Every roofline term doubles (time-slicing halves compute and bandwidth); the launch
  // (20 µs) does not: prefill (compute-bound) and decode (memory-bound) alike.
  constexpr double LAUNCH = 20e-6;
  for (const Iteration& it : {prefill(512, 1), decode(8, 8 * 600)})
    CHECK(h->iteration_s(it) - LAUNCH == Approx(2 * (w->iteration_s(it) - LAUNCH)).epsilon(1e-12));
  // A tenth (8 GiB) does not hold its 13.5 GB of weights.
  ReplicaHardware tenth = a100(1);
  tenth.share = 0.1;
  CHECK_THROWS_AS(make_replica_cost(model("llama-2-7b"), Precision::Fp16, tenth), gcsim::Error);
  // A forward pass at batch 32 on a quarter: four times the whole GPU's roofline time; its
  // launches (530/3 kernels · 20 µs, as above) stay.
  ReplicaHardware quarter = a100(1);
  quarter.share = 0.25;
  const auto rq = make_replica_cost(model("resnet50"), Precision::Fp16, quarter);
  const auto rw = make_replica_cost(model("resnet50"), Precision::Fp16, a100(1));
  constexpr double LAUNCHES = 530.0 / 3 * 20e-6;
  CHECK(rq->batch_s(32) - LAUNCHES == Approx(4 * (rw->batch_s(32) - LAUNCHES)).epsilon(1e-9));
}

TEST_CASE("llama-2-70b at fp16: refused on one 80 GB GPU, served by four in tensor parallelism", "[model]") {
  // Weights 68,983,521,280 · 2 B = 137,967,042,560 B = 128.49 GiB; one GPU holds 0.9 · 80 GiB
  // = 72 GiB.
  try {
    LlmCost(model("llama-2-70b"), Precision::Fp16, a100(1));
    FAIL("no error");
  } catch (const gcsim::Error& e) {
    const std::string what = e.what();
    CHECK(what.find("llama-2-70b") != std::string::npos);
    CHECK(what.find("A100-80GB-SXM") != std::string::npos);
    CHECK(what.find("128.49 GiB") != std::string::npos);
    CHECK(what.find("72.00 GiB") != std::string::npos);
  }
  CHECK_THROWS_AS(make_replica_cost(model("llama-2-70b"), Precision::Fp16, a100(1)), gcsim::Error);

  const LlmCost tp4(model("llama-2-70b"), Precision::Fp16, a100(4));
  // KV capacity: (4 · 77,309,411,328 − 137,967,042,560 − 4 · 2 GiB) / 327,680 = 496,462 tokens.
  CHECK(tp4.kv_capacity_tokens() == 496'462);
  // A decode iteration of 8 sequences, 8,192 cached tokens in all:
  //   all-reduce of 8 tokens · 8192 · 2 B = 131,072 B over 4 GPUs at 300 GB/s · η_bw 0.705:
  //   2·3/4 · 131,072 / 211.5e9 + 2·3 · 4 µs = 0.92957 µs + 24 µs = 24.92957 µs; two per layer,
  //   80 layers: 160 · 24.92957 µs = 3.98873 ms.
  const double one = 2.0 * 3 / 4 * 131'072 / (300e9 * 0.705) + 2 * 3 * 4e-6;
  CHECK(tp4.all_reduce_s(131'072) == Approx(one));
  const auto p = tp4.parts(decode(8, 8192));
  CHECK(p.all_reduce_s == Approx(160 * one));
  CHECK(p.all_reduce_s == Approx(0.00398873).epsilon(1e-5));
  // compute 2·P·8 + 4·80·8192·8192 = 1.12521e12 FLOP / 4 / R = 1.7401 ms; memory
  // (137,967,042,560 + 327,680 · 8,200) / 4 / BWa = 25.1651 ms: memory-bound.
  CHECK(p.compute_s == Approx(0.00174010).epsilon(1e-4));
  CHECK(p.memory_s == Approx(0.0251651).epsilon(1e-5));
  CHECK(p.memory_bound());
  CHECK(p.total_s == Approx(0.0251651 + 0.00398873 + 20e-6).epsilon(1e-5));
  // Without a link between them the GPUs cannot split the model.
  ReplicaHardware unlinked = a100(4);
  unlinked.link_bytes_per_s = 0;
  CHECK_THROWS_AS(LlmCost(model("llama-2-70b"), Precision::Fp16, unlinked), gcsim::Error);
}

TEST_CASE("A precision the GPU does not support is refused", "[model]") {
  // The A100 has no fp8 peak (gpus.yaml); a V100 has no bf16.
  CHECK_THROWS_AS(make_replica_cost(model("llama-2-7b"), Precision::Fp8, a100(1)), gcsim::Error);
  CHECK_THROWS_AS(make_replica_cost(model("resnet50"), Precision::Fp8, a100(1)), gcsim::Error);
  ReplicaHardware v100 = a100(1);
  v100.gpu = gcsim::test::gpu("V100-SXM2-32GB");
  CHECK_THROWS_AS(make_replica_cost(model("resnet50"), Precision::Bf16, v100), gcsim::Error);
}

TEST_CASE("A forward pass of ResNet-50 at batch 1 and 64, from the step-time model's forward share", "[model]") {
  // Catalog: F = 8.18e9 FLOP, φ = 0.985, M = 350 MB fwd+bwd, K = 530 kernels per step.
  //   tensor  = F·φ / R = 8.0573e9 / 161.659e12 = 49.8413 µs per sample
  //   memory  = max(M/3 / (2039e9 · η_mem 0.95), F·(1−φ) / R_simt)
  //           = max(116.667e6 / 1937.05e9, 1.227e8 / 16.5555e12) = max(60.2290, 7.41) µs
  //             (R_simt = 19.5e12 · 0.81 · (18.88/19.49)/(14.51/15.7) = 16.5555e12)
  //   launch  = 530/3 · 20 µs = 3.53333 ms
  // batch_s(1)  = 49.8413 + 60.2290 µs + 3.53333 ms = 3.64340 ms
  // batch_s(64) = 64 · 110.0703 µs + 3.53333 ms = 10.57784 ms
  const auto cost = make_replica_cost(model("resnet50"), Precision::Fp16, a100(1));
  CHECK_FALSE(cost->tokens());
  CHECK(cost->kv_capacity_tokens() == 0);
  CHECK(cost->batch_s(1) == Approx(0.00364340).epsilon(1e-5));
  CHECK(cost->batch_s(64) == Approx(0.0105778).epsilon(1e-5));
  double last = 0, last_per_request = 1e9;
  for (int b : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
    INFO("batch " << b);
    const double t = cost->batch_s(b);
    CHECK(t > last);
    CHECK(t / b < last_per_request);
    last = t;
    last_per_request = t / b;
  }
  // Two GPUs in the replica split a batch: 64 requests take what 32 take on one.
  const auto two = make_replica_cost(model("resnet50"), Precision::Fp16, a100(2));
  CHECK(two->batch_s(64) == Approx(cost->batch_s(32)));
  CHECK(two->batch_s(63) == Approx(cost->batch_s(32)));
}

TEST_CASE("A forward model whose weights do not fit one GPU is refused", "[model]") {
  // 40e9 parameters · 2 B = 80e9 B = 74.5 GiB > 0.9 · 80 GiB = 72 GiB; 38e9 (70.8 GiB) fit.
  ModelSpec big = model("resnet50");
  big.params = 40e9;
  CHECK_THROWS_AS(ForwardCost(big, Precision::Fp16, a100(1)), gcsim::Error);
  big.params = 38e9;
  CHECK_NOTHROW(ForwardCost(big, Precision::Fp16, a100(1)));
}

TEST_CASE("Serving and training share one set of efficiencies: a forward pass is a third of a step's compute",
          "[model]") {
  // estimate_step prices fwd+bwd as 3 forward passes, class by class, plus the optimizer.
  for (int b : {1, 64}) {
    INFO("batch " << b);
    const gcsim::models::TrainingSpec job = gcsim::test::make_job("resnet50", Precision::Fp16, b, 1);
    const auto hw = gcsim::models::hardware_for(a100(1).gpu, 1, 8, 0);
    // Serving prices a forward pass with the aggregate figures; training a model with an
    // architecture takes the operator model by default, so compare with the aggregate step.
    auto aggregate = gcsim::models::default_calibration();
    aggregate.operator_model = false;
    const auto e = gcsim::models::estimate_step(job, hw, aggregate);
    const ForwardCost fwd(model("resnet50"), Precision::Fp16, a100(1));
    CHECK(fwd.batch_s(b) == Approx((e.tensor_s + e.memory_s + e.overhead_s) / 3));
  }
}

TEST_CASE("The factory picks the LLM model for a transformer with a vocabulary, the forward pass otherwise", "[model]") {
  CHECK(make_replica_cost(model("llama-3-8b"), Precision::Bf16, a100(1))->tokens());
  CHECK(make_replica_cost(model("mistral-7b"), Precision::Bf16, a100(1))->tokens());
  CHECK_FALSE(make_replica_cost(model("vit-b16"), Precision::Fp16, a100(1))->tokens());
  // Each refuses the other's question.
  CHECK_THROWS_AS(make_replica_cost(model("llama-3-8b"), Precision::Bf16, a100(1))->batch_s(1), gcsim::InternalError);
  CHECK_THROWS_AS(make_replica_cost(model("vit-b16"), Precision::Fp16, a100(1))->iteration_s(decode(1, 1)),
                  gcsim::InternalError);
}

TEST_CASE("A decoder with a vocabulary is served as an LLM, an encoder as a forward pass", "[model]") {
  // gpt2-xl (causal, a vocabulary) and llama-2-7b: LLMs; bert-large (`attention:
  // bidirectional`, a vocabulary) and resnet50: one forward pass per batch.
  CHECK(make_replica_cost(model("gpt2-xl"), Precision::Fp16, a100(1))->tokens());
  CHECK(make_replica_cost(model("llama-2-7b"), Precision::Fp16, a100(1))->tokens());
  const auto bert = make_replica_cost(model("bert-large"), Precision::Fp16, a100(1));
  CHECK_FALSE(bert->tokens());
  CHECK(bert->kv_capacity_tokens() == 0);
  CHECK(bert->batch_s(8) > 0);
  CHECK_FALSE(make_replica_cost(model("resnet50"), Precision::Fp16, a100(1))->tokens());
}
