// The ReplicaCost of a catalog model (docs/serving.md, "Models"): a transformer with a
// vocabulary and causal attention (a decoder) is an LLM (llm_cost.hpp), any other model a forward pass (forward_cost.hpp).
#include "models/serving/replica_cost_factory.hpp"

#include "models/serving/forward_cost.hpp"
#include "models/serving/llm_cost.hpp"
#include "sim/check.hpp"

namespace gcsim::models::serving {

GpuSpec share_of_gpu(GpuSpec gpu, double share) {
  GCSIM_CHECK(share > 0 && share <= 1, "a GPU share is in (0, 1]");
  for (double* v : {&gpu.fp32_flop_per_s, &gpu.tf32_flop_per_s, &gpu.fp16_flop_per_s, &gpu.bf16_flop_per_s,
                    &gpu.fp8_flop_per_s, &gpu.memory_bytes, &gpu.memory_bytes_per_s})
    *v *= share;
  return gpu;
}

std::unique_ptr<ReplicaCost> make_replica_cost(const ModelSpec& model, Precision precision, const ReplicaHardware& hw) {
  ReplicaHardware on = hw;
  if (hw.share < 1) on.gpu = share_of_gpu(hw.gpu, hw.share);
  if (model.transformer && model.transformer->llm()) return std::make_unique<LlmCost>(model, precision, on);
  return std::make_unique<ForwardCost>(model, precision, on);
}

}  // namespace gcsim::models::serving
