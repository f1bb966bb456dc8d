// What a model-described job gets on a node type: the HardwareContext the step-time model
// takes, built from the node type's GPU, host and internals and from the job's storage
// tier. One function, used both by runs (the cluster's job rates) and by `gcsim estimate`,
// so an estimate and a run of the same job agree. It joins the workload's step-time model
// to the cluster and storage specs, so it lives with the couplings: workload/ includes no
// cluster or storage spec.
#pragma once

#include <optional>

#include "models/config/cluster_spec.hpp"
#include "models/storage/storage_spec.hpp"
#include "models/workload/step_time.hpp"

namespace gcsim::models {

// Data-loader requests in flight per GPU when reading a dataset (PyTorch DataLoader's
// common num_workers; docs/step-time.md, "Storage").
inline constexpr int READERS_PER_GPU = 4;

HardwareContext hardware_context(const NodeTypeSpec& type, int job_gpus, const TrainingSpec& job,
                                 const std::optional<StorageSpec>& storage);

}  // namespace gcsim::models
