// An LLM replica's roofline per iteration (equations in llm_cost.hpp and docs/serving.md,
// "Models"): Pope et al. 2022 (KV cache, decode memory-bound), Kwon et al. 2023 (vLLM:
// the KV cache's share of memory), Yuan et al. 2024 (roofline of prefill and decode),
// Shoeybi et al. 2019 (Megatron-LM tensor parallelism: two all-reduces per layer).
#include "models/serving/llm_cost.hpp"

#include <algorithm>
#include <cmath>

#include "models/serving/forward_cost.hpp"
#include "models/workload/step_time.hpp"
#include "sim/check.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::models::serving {

double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::Fp32:
    case Precision::Tf32: return 4;
    case Precision::Fp16:
    case Precision::Bf16: return 2;
    case Precision::Fp8: return 1;
  }
  return 2;
}

LlmCost::LlmCost(const ModelSpec& model, Precision precision, const ReplicaHardware& hw)
    : model_(model.name), gpus_(hw.gpus) {
  GCSIM_CHECK(model.transformer && model.transformer->llm(), "model `" + model.name + "` is not an LLM");
  GCSIM_CHECK(hw.gpus >= 1, "a replica has at least one GPU");
  const TransformerShape& t = *model.transformer;
  const Calibration& cal = default_calibration();
  const std::string gpus_text = std::to_string(hw.gpus) + " × " + hw.gpu.name;
  if (!hw.gpu.supports(precision))
    throw Error("service model `" + model.name + "`: GPU " + hw.gpu.name + " has no " +
                std::string(precision_name(precision)) + " peak");
  layers_ = t.layers;
  hidden_ = t.hidden;
  e_ = bytes_per_element(precision);
  params_ = resolve(model).params;
  weights_bytes_ = params_ * e_;
  // Each GPU holds ceil(kv / p) of the K/V heads: with more GPUs than K/V heads, a head is
  // replicated (Pope et al. 2022, the partitioning of multi-query attention).
  const int kv_per_gpu = (t.kv_heads_or_heads() + hw.gpus - 1) / hw.gpus;
  kv_bytes_per_token_ = 2.0 * t.layers * kv_per_gpu * hw.gpus * t.head_dim() * e_;
  matmul_flop_per_s_ = serving::matmul_flop_per_s(hw.gpu, precision, cal);
  memory_bytes_per_s_ = hw.gpu.memory_bytes_per_s * DECODE_BANDWIDTH_FRACTION;
  link_bytes_per_s_ = hw.link_bytes_per_s * cal.comm_bw_efficiency;
  link_latency_s_ = hw.link_latency_s > 0 ? hw.link_latency_s : cal.comm_latency_s;
  if (hw.gpus > 1 && !(link_bytes_per_s_ > 0))
    throw Error("service model `" + model.name + "` on " + gpus_text + ": the GPUs have no link between them");
  launch_s_ = cal.kernel_overhead_s;

  const double usable = hw.gpus * hw.gpu.memory_bytes * USABLE_MEMORY_FRACTION;
  const double working = hw.gpus * WORKING_MEMORY_BYTES_PER_GPU;
  const double free_bytes = usable - weights_bytes_ - working;
  memory_bytes_ = hw.gpus * hw.gpu.memory_bytes;
  fixed_memory_bytes_ = weights_bytes_ + working;
  if (free_bytes < kv_bytes_per_token_)
    throw Error(model.name + " needs " + units::format_bytes(weights_bytes_) + " of weights at " +
                std::string(precision_name(precision)) + " and " + units::format_bytes(working) +
                " of working memory; " + gpus_text + " holds " + units::format_bytes(usable) + " (" +
                std::to_string(static_cast<int>(std::lround(USABLE_MEMORY_FRACTION * 100))) + "% of " +
                units::format_bytes(hw.gpus * hw.gpu.memory_bytes) + "), no room for a KV cache");
  kv_capacity_tokens_ = static_cast<std::int64_t>(std::floor(free_bytes / kv_bytes_per_token_));
}

double LlmCost::batch_s(int) const {
  GCSIM_CHECK(false, "model `" + model_ + "` is an LLM: ask iteration_s, not batch_s");
  return 0;
}

double LlmCost::all_reduce_s(double bytes) const {
  if (gpus_ <= 1 || bytes <= 0) return 0;
  const double p = gpus_;
  return 2 * (p - 1) / p * bytes / link_bytes_per_s_ + 2 * (p - 1) * link_latency_s_;
}

LlmCost::Parts LlmCost::parts(const Iteration& it) const {
  GCSIM_CHECK(it.prefill_tokens >= 0 && it.prefill_seqs >= 0 && it.decode_seqs >= 0 && it.context_tokens >= 0,
              "an iteration with a negative count");
  GCSIM_CHECK(it.prefill_tokens == 0 || it.prefill_seqs >= 1, "prefill tokens without a prompt");
  GCSIM_CHECK(it.context_tokens + it.prefill_tokens + it.decode_seqs <= kv_capacity_tokens_,
              "model `" + model_ + "`: an iteration holds " +
                  std::to_string(it.context_tokens + it.prefill_tokens + it.decode_seqs) +
                  " tokens of KV cache, beyond the replica's " + std::to_string(kv_capacity_tokens_));
  Parts r;
  const double T = static_cast<double>(it.prefill_tokens);
  const double B = it.decode_seqs;
  const double C = static_cast<double>(it.context_tokens);
  const double L = layers_;
  const double h = hidden_;
  const double n = std::max(1, it.prefill_seqs);
  if (T == 0 && B == 0) return r;
  r.flop = 2 * params_ * (T + B) + 2 * L * h * T * T / n + 4 * L * h * C;
  r.bytes = weights_bytes_ + kv_bytes_per_token_ * (C + T + B);
  r.compute_s = r.flop / gpus_ / matmul_flop_per_s_;
  r.memory_s = r.bytes / gpus_ / memory_bytes_per_s_;
  r.all_reduce_s = 2 * L * all_reduce_s((T + B) * h * e_);
  r.launch_s = launch_s_;
  r.total_s = std::max(r.compute_s, r.memory_s) + r.all_reduce_s + r.launch_s;
  return r;
}

double LlmCost::iteration_s(const Iteration& it) const { return parts(it).total_s; }

}  // namespace gcsim::models::serving
