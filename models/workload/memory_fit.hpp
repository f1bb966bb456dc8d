// Does a training job fit in GPU memory? Model states per parameter follow ZeRO
// (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter
// Models", section 3.1): mixed-precision Adam keeps 2 (fp16 weights) + 2 (fp16 gradients)
// + 12 (fp32 master weights, momentum, variance) = 16 bytes per parameter; stages 1/2/3
// shard the optimizer state / + gradients / + weights across the data-parallel ranks
// (section 5). Activations per sample come from the model catalog (2-byte elements;
// doubled for fp32/tf32), divided by the tensor-parallel degree; with 1F1B pipelining the
// first stage holds pp micro-batches of L/pp layers, i.e. one micro-batch of the whole
// model (Narayanan et al. 2021, section 2.2).
#pragma once

#include <string>

#include "models/gpu/gpu_spec.hpp"
#include "models/workload/training.hpp"

namespace gcsim::models {

// Per GPU, bytes.
struct MemoryBreakdown {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;
  double reserved = 0;   // CUDA context, allocator fragmentation, workspaces
  double total() const { return weights + gradients + optimizer + activations + reserved; }
};

// Bytes per parameter for each part of the model state (unsharded).
struct StateBytes {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
};
StateBytes state_bytes_per_param(Precision p, Optimizer o);

// CUDA context and allocator reserve, fixed per GPU (docs/step-time.md).
inline constexpr double RESERVED_BYTES = 1.0 * 1024 * 1024 * 1024;
// Share of the GPU's memory a job may plan to use (the rest: fragmentation headroom).
inline constexpr double USABLE_FRACTION = 0.95;

MemoryBreakdown memory_per_gpu(const TrainingSpec& job, int batch_per_gpu, int zero_stage);

struct MemoryFit {
  MemoryBreakdown need;          // at the job's batch and ZeRO stage
  double capacity_bytes = 0;     // usable: USABLE_FRACTION of the GPU's memory
  bool fits = false;
  int largest_batch = 0;         // largest batch <= the job's that fits at its ZeRO stage; 0 none
  int smallest_zero_stage = -1;  // smallest stage >= the job's that fits at its batch; -1 none
  // "needs 94.0 GiB per GPU with batch 32 (weights ..., activations ...); the A100 has 76 GiB
  // usable: fits with batch 8 or ZeRO-3 on 8 GPUs". Empty when it fits.
  std::string message;
};

MemoryFit check_memory_fit(const TrainingSpec& job, const GpuSpec& gpu);

// The bytes a restart needs: weights and optimizer state, unsharded (docs/spot.md), the
// size of a `checkpoint: {size: model}`.
double checkpoint_state_bytes(const TrainingSpec& job);

}  // namespace gcsim::models
