// Scaffold until the serving models land (issue 33): the llm/forward-pass costs replace it.
#include "models/serving/replica_cost_factory.hpp"

#include "sim/errors.hpp"

namespace gcsim::models::serving {

std::unique_ptr<ReplicaCost> make_replica_cost(const ModelSpec& model, Precision, const ReplicaHardware&) {
  throw Error("service model `" + model.name + "`: serving cost models are not built yet");
}

}  // namespace gcsim::models::serving
