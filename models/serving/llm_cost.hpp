// An LLM replica's cost (docs/serving.md, "Models"): a roofline per iteration of
// continuous batching, prefill and decode together, on `gpus` GPUs in tensor parallelism.
//
//   weights  W = N · e                  (N parameters, e bytes per element of the precision)
//   KV cache per token  k = 2 · L · kv · d · e   (K and V of every layer; Pope et al. 2022,
//            "Efficiently Scaling Transformer Inference"; Kwon et al. 2023, vLLM)
//   compute  F = 2 · N · (T + B)  +  2 · L · h · T² / n  +  4 · L · h · C
//            (2 FLOPs per parameter per token, Kaplan et al. 2020; causal attention of n
//            prompts of T/n tokens: QKᵀ and AV over the lower triangle, h·T_i² each per
//            layer; decode attention over C cached tokens: 4·h per token per layer)
//   memory   M = W + k · (C + T + B)    (weights read once per iteration, the cached KV read,
//            the new tokens' KV written; Yuan et al. 2024, "LLM Inference Unveiled", roofline)
//   iteration = max(F / p / (peak · η_tc), M / p / (BW · φ)) + 2 · L · AR(tokens · h · e) + t_launch
//   AR(S)    = 2(p−1)/p · S / (link · η_bw) + 2(p−1) · α   (ring all-reduce; two per layer:
//            Shoeybi et al. 2019, Megatron-LM, section 3)
//   KV capacity = (p · mem · u − W − p · w) / k_p  (u = 0.9: vLLM's gpu_memory_utilization
//            default; w the working memory per GPU; k_p the KV bytes per token over the p
//            GPUs, KV heads replicated when p exceeds them)
// T prefill tokens of n prompts, B decode sequences, C their cached tokens, p = `gpus`. The
// split into token-level work (matmuls), sequence-level work (attention) and communication
// is Vidur's (Agrawal et al. 2024, MLSys), priced here on the roofline instead of profiled.
#pragma once

#include <cstdint>
#include <string>

#include "models/serving/replica_cost.hpp"
#include "models/serving/replica_cost_factory.hpp"

namespace gcsim::models::serving {

// Share of a GPU's memory the serving engine may use (weights, KV cache, activations):
// vLLM's `gpu_memory_utilization`, whose default is 0.9 (vLLM EngineArgs; Kwon et al. 2023).
inline constexpr double USABLE_MEMORY_FRACTION = 0.9;
// Memory each GPU keeps beside weights and KV cache for the engine's activations and
// workspace (the peak of vLLM's profiling forward pass, cuBLAS workspace, CUDA graphs):
// an estimate, 2 GiB (a 7B model's activations over an 8,192-token prefill step, about
// 1.5 GiB, plus the cuBLAS workspace and captured graphs).
inline constexpr double WORKING_MEMORY_BYTES_PER_GPU = 2.0 * 1024 * 1024 * 1024;
// Achieved / peak HBM bandwidth of a decode step: gpt-fast (pytorch-labs/gpt-fast README,
// "Benchmarks") measured Llama-2-7B at 16 bits, batch 1, on an A100-80GB: 104.9 tokens/s,
// 1397.31 GB/s of the A100-80GB-SXM's 2039 GB/s. Its launch gaps are inside the figure
// (one CUDA graph per step), so t_launch below is one launch.
inline constexpr double DECODE_BANDWIDTH_FRACTION = 1397.31 / 2039.0;

// Bytes per element of weights, activations and KV cache at a precision: 2 for fp16/bf16
// (and `amp`), 1 for fp8, 4 for fp32/tf32 (tf32 is an fp32 storage format).
double bytes_per_element(Precision p);

class LlmCost final : public ReplicaCost {
 public:
  // Throws gcsim::Error when the precision is not supported by the GPU or the weights and
  // working memory leave no room for a KV cache.
  LlmCost(const ModelSpec& model, Precision precision, const ReplicaHardware& hw);

  double batch_s(int batch) const override;  // not for an LLM: an internal error
  // The iteration's cache after it, C + T + B tokens (cached contexts, prompts, the new
  // tokens), may not exceed kv_capacity_tokens(): the serving part caps its batch first,
  // and an iteration beyond it is an internal error. An empty iteration takes 0 s.
  double iteration_s(const Iteration& it) const override;
  std::int64_t kv_capacity_tokens() const override { return kv_capacity_tokens_; }
  bool tokens() const override { return true; }

  // The parts of one iteration, for tests and reports (seconds, on each GPU).
  struct Parts {
    double flop = 0;           // whole replica
    double bytes = 0;          // whole replica
    double compute_s = 0;
    double memory_s = 0;
    double all_reduce_s = 0;   // 2 · layers all-reduces, on the critical path
    double launch_s = 0;
    double total_s = 0;
    bool memory_bound() const { return memory_s > compute_s; }
  };
  Parts parts(const Iteration& it) const;

  double weights_bytes() const { return weights_bytes_; }
  double kv_bytes_per_token() const override { return kv_bytes_per_token_; }   // whole replica
  double memory_bytes() const override { return memory_bytes_; }
  double fixed_memory_bytes() const override { return fixed_memory_bytes_; }  // weights + working
  double params() const { return params_; }
  double matmul_flop_per_s() const { return matmul_flop_per_s_; }     // one GPU, achieved
  double memory_bytes_per_s() const { return memory_bytes_per_s_; }   // one GPU, achieved
  // One ring all-reduce of `bytes` across the replica's GPUs.
  double all_reduce_s(double bytes) const;

 private:
  std::string model_;
  int layers_ = 0;
  double hidden_ = 0;
  int gpus_ = 1;
  double e_ = 2;
  double params_ = 0;
  double weights_bytes_ = 0;
  double kv_bytes_per_token_ = 0;
  double memory_bytes_ = 0;
  double fixed_memory_bytes_ = 0;
  double matmul_flop_per_s_ = 0;
  double memory_bytes_per_s_ = 0;
  double link_bytes_per_s_ = 0;
  double link_latency_s_ = 0;
  double launch_s_ = 0;
  std::int64_t kv_capacity_tokens_ = 0;
};

}  // namespace gcsim::models::serving
