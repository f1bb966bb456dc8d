// What a model-described job gets on a node type: the HardwareContext the step-time model
// takes, built from the node type's GPU, host and internals and from the job's storage
// tier. One function, used both by runs (the cluster's job rates) and by `gcsim estimate`,
// so an estimate and a run of the same job agree. It joins the workload's step-time model
// to the cluster and storage specs, so it lives with the couplings: workload/ includes no
// cluster or storage spec.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/config/cluster_spec.hpp"
#include "models/storage/storage_spec.hpp"
#include "models/workload/step_time.hpp"

namespace gcsim::models {

// Data-loader requests in flight per GPU when reading a dataset (PyTorch DataLoader's
// common num_workers; docs/step-time.md, "Storage").
inline constexpr int READERS_PER_GPU = 4;

HardwareContext hardware_context(const NodeTypeSpec& type, int job_gpus, const TrainingSpec& job,
                                 const std::optional<StorageSpec>& storage);

// A dataset staged to local NVMe first (`dataset.access: stage` on a shared tier, with a
// local-nvme tier in the scenario and room for the dataset there; docs/storage.md,
// "Staging"), for a job alone on `nodes` nodes of `gpus_per_node` GPUs: the copy's time as a
// run gives it with no other reader on the source (retrieval delay + nodes x dataset bytes
// at min(the source's bandwidth for these files, nodes x min(read throughput, NVMe write))),
// and the read rate of the steps after it (the nodes' NVMe). nullopt: the job streams.
struct StagedInput {
  double copy_s = 0;
  double read_bytes_per_s = 0;
};
std::optional<StagedInput> staged_input(const TrainingSpec& job, const std::optional<StorageSpec>& storage, int nodes,
                                        int gpus_per_node);

struct Scenario;
// What the step-time model cannot charge for want of a figure: one sentence per node type
// that gives no cpu_cores (neither written nor from a catalog row with vCPUs) and can hold a
// model job whose input is decoded on the host. Its input pipeline then costs no CPU time
// (HardwareContext::cpu_cores_per_gpu = 0: unlimited), which can decide which type is
// fastest; `gcsim estimate` and `gcsim run` print these as notes (docs/step-time.md).
std::vector<std::string> unlimited_host_cpu_notes(const Scenario& scenario);

}  // namespace gcsim::models
