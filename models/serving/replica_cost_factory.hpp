// The ReplicaCost of a catalog model on a replica's GPUs (docs/serving.md, "Models"): an
// LLM (a transformer entry with a vocabulary: prefill, decode, KV cache, tensor
// parallelism) or a forward pass of any other model at a batch size.
#pragma once

#include <memory>

#include "models/gpu/gpu_spec.hpp"
#include "models/serving/replica_cost.hpp"
#include "models/workload/model_catalog.hpp"

namespace gcsim::models::serving {

// What a replica runs on: `gpus` GPUs of one node (the tensor-parallel degree), linked by
// the node's GPU interconnect.
struct ReplicaHardware {
  GpuSpec gpu;
  int gpus = 1;
  // The replica's share of its one GPU (gpu_milli / 1000, GPU sharing), 1 with whole GPUs.
  // make_replica_cost prices the replica on share_of_gpu(gpu, share).
  double share = 1;
  double link_bytes_per_s = 0;   // between two of its GPUs, per direction (NVLink, else PCIe)
  double link_latency_s = 0;     // per message on that link
};

// A GPU as a replica holding `share` (0, 1] of it sees it (docs/serving.md, "A share of a
// GPU"): its memory partitioned (share x memory, as Alibaba's cGPU / GPU-sharing
// schedulers and NVIDIA MIG slice it) and its compute and memory bandwidth time-sliced
// (share x each peak). Links and power are the GPU's.
GpuSpec share_of_gpu(GpuSpec gpu, double share);

// Throws gcsim::Error when the model cannot be served there: its
// weights do not fit the replica's memory, or the precision is not supported by the GPU.
std::unique_ptr<ReplicaCost> make_replica_cost(const ModelSpec& model, Precision precision, const ReplicaHardware& hw);

}  // namespace gcsim::models::serving
