// GPU memory of a training job and what would make it fit (see memory_fit.hpp; model-state
// bytes from Rajbhandari et al. 2020, section 3.1; activations from the model catalog).
#include "models/workload/memory_fit.hpp"

#include <cstdio>

namespace gcsim::models {
namespace {

double gib(double bytes) { return bytes / (1024.0 * 1024.0 * 1024.0); }

std::string format_gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", gib(bytes));
  return buf;
}

bool is_mixed(Precision p) { return p == Precision::Fp16 || p == Precision::Bf16 || p == Precision::Fp8; }

}  // namespace

StateBytes state_bytes_per_param(Precision p, Optimizer o) {
  // Adam: momentum + variance in fp32 (8 B); SGD with momentum: 4 B. Mixed precision adds
  // the fp32 master copy to the optimizer state (ZeRO's K = 12 for Adam) and keeps 16-bit
  // weights and gradients. FP8 training (Transformer Engine) keeps the same 16/32-bit
  // states and casts to FP8 per matmul.
  const double moments = o == Optimizer::Adam ? 8 : 4;
  if (is_mixed(p)) return StateBytes{2, 2, 4 + moments};
  return StateBytes{4, 4, moments};
}

MemoryBreakdown memory_per_gpu(const TrainingSpec& job, int batch_per_gpu, int zero_stage) {
  const ModelFigures f = job.figures();
  const StateBytes s = state_bytes_per_param(job.precision, job.optimizer);
  const double params_local = f.params / (job.parallel.tensor * job.parallel.pipeline);
  const double dp = job.parallel.data;
  MemoryBreakdown m;
  m.weights = params_local * s.weights / (zero_stage >= 3 ? dp : 1);
  m.gradients = params_local * s.gradients / (zero_stage >= 2 ? dp : 1);
  m.optimizer = params_local * s.optimizer / (zero_stage >= 1 ? dp : 1);
  const double element_scale = is_mixed(job.precision) ? 1.0 : 2.0;
  m.activations = f.activation_bytes * element_scale * batch_per_gpu / job.parallel.tensor;
  m.reserved = RESERVED_BYTES;
  return m;
}

MemoryFit check_memory_fit(const TrainingSpec& job, const GpuSpec& gpu) {
  MemoryFit fit;
  fit.capacity_bytes = gpu.memory_bytes * USABLE_FRACTION;
  const int stage = job.parallel.zero_stage;
  fit.need = memory_per_gpu(job, job.batch_per_gpu, stage);
  fit.fits = fit.need.total() <= fit.capacity_bytes;
  // Memory grows with batch, so the largest fitting batch is found by bisection.
  if (memory_per_gpu(job, 1, stage).total() <= fit.capacity_bytes) {
    int lo = 1;
    int hi = job.batch_per_gpu;
    while (lo < hi) {
      const int mid = lo + (hi - lo + 1) / 2;
      if (memory_per_gpu(job, mid, stage).total() <= fit.capacity_bytes) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    fit.largest_batch = lo;
  }
  for (int z = stage; z <= 3; ++z) {
    if (memory_per_gpu(job, job.batch_per_gpu, z).total() <= fit.capacity_bytes) {
      fit.smallest_zero_stage = z;
      break;
    }
  }
  if (fit.fits) return fit;

  const MemoryBreakdown& n = fit.need;
  std::string msg = "needs " + format_gib(n.total()) + " per GPU with batch " + std::to_string(job.batch_per_gpu) +
                    (stage > 0 ? " and ZeRO-" + std::to_string(stage) : "") + " (weights " + format_gib(n.weights) +
                    ", gradients " + format_gib(n.gradients) + ", optimizer " + format_gib(n.optimizer) +
                    ", activations " + format_gib(n.activations) + ", reserved " + format_gib(n.reserved) + "); " +
                    gpu.name + " has " + format_gib(fit.capacity_bytes) + " usable: ";
  std::string options;
  if (fit.largest_batch > 0) options = "fits with batch " + std::to_string(fit.largest_batch);
  if (fit.smallest_zero_stage > stage) {
    if (!options.empty()) options += " or ";
    else options = "fits with ";
    options += "ZeRO-" + std::to_string(fit.smallest_zero_stage) + " on " + std::to_string(job.parallel.data) + " GPUs";
  }
  if (options.empty()) {
    options = "does not fit even with batch 1 and ZeRO-3 on " + std::to_string(job.parallel.data) +
              " GPUs; add tensor or pipeline parallelism, or more GPUs";
  }
  fit.message = msg + options;
  return fit;
}

double checkpoint_state_bytes(const TrainingSpec& job) {
  const StateBytes b = state_bytes_per_param(job.precision, job.optimizer);
  return job.figures().params * (b.weights + b.optimizer);
}

}  // namespace gcsim::models
