// The ReplicaCost of a catalog model (docs/serving.md, "Models"): a transformer with a
// vocabulary and causal attention (a decoder) is an LLM (llm_cost.hpp), any other model a forward pass (forward_cost.hpp).
#include "models/serving/replica_cost_factory.hpp"

#include "models/serving/forward_cost.hpp"
#include "models/serving/llm_cost.hpp"

namespace gcsim::models::serving {

std::unique_ptr<ReplicaCost> make_replica_cost(const ModelSpec& model, Precision precision, const ReplicaHardware& hw) {
  if (model.transformer && model.transformer->llm()) return std::make_unique<LlmCost>(model, precision, hw);
  return std::make_unique<ForwardCost>(model, precision, hw);
}

}  // namespace gcsim::models::serving
