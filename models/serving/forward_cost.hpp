// A replica of a model without tokens (a vision or encoder model: dynamic batching): one
// batch is one forward pass (docs/serving.md, "Models"), priced by the step-time model's
// forward share with its calibration (models/workload/step_time.hpp, docs/step-time.md):
//
//   batch_s(b) = b' · F · φ / R_tc  +  max(b' · M_fwd · s_e / (BW · η_mem), b' · F · (1−φ) / R_simt)
//                + K_fwd · t_kernel
//
// b' = ⌈b / gpus⌉ (each GPU of the replica holds the whole model and takes its share of the
// batch), F the forward FLOPs per sample and φ their tensor share (ModelFigures),
// R_tc = peak(precision) · η_tc · r_tc the achieved matmul rate of estimate_step (R_simt on
// fp32: peak_fp32 · min(η_simt · r_simt, ceiling)), M_fwd = M / 3 the forward's share of the
// catalog's fwd+bwd memory traffic (the catalog counts backward as twice forward's accesses:
// docs/step-time.md, "Memory-bound traffic"), s_e = 2 for fp32/tf32 (the catalog's traffic
// is at 2-byte elements), K_fwd = K / 3 the forward's kernels (ResNet-50's 530 are about
// 175 forward + 355 backward: scenarios/catalog/models.yaml). The op classes run one after
// the other, as in training (Williams et al. 2009 roofline per op class).
#pragma once

#include <cstdint>
#include <string>

#include "models/serving/replica_cost.hpp"
#include "models/serving/replica_cost_factory.hpp"
#include "models/workload/step_time.hpp"

namespace gcsim::models::serving {

// The forward pass's share of a training step's FLOPs, memory traffic and kernels (forward
// + backward = 3 forwards: Kaplan et al. 2020; the catalog's convention for traffic and
// kernels).
inline constexpr double FORWARD_SHARE_OF_STEP = 1.0 / 3.0;

// The achieved rate of the matmul/convolution path at a precision on a GPU, as
// estimate_step prices it: tensor cores at peak · η_tc · r_tc, fp32 on CUDA cores at
// peak_fp32 · min(η_simt · r_simt, ceiling) (docs/step-time.md, "Calibration" and
// "Efficiency across GPU generations").
double matmul_flop_per_s(const GpuSpec& gpu, Precision p, const Calibration& cal);
// The CUDA-core rate of the elementwise work's FLOPs (estimate_step's simt roof).
double simt_flop_per_s(const GpuSpec& gpu, Precision p, const Calibration& cal);

class ForwardCost final : public ReplicaCost {
 public:
  // Throws gcsim::Error when the precision is not supported by the GPU or one copy of the
  // weights does not fit one GPU's memory.
  ForwardCost(const ModelSpec& model, Precision precision, const ReplicaHardware& hw,
              const Calibration& cal = default_calibration());

  double batch_s(int batch) const override;
  double iteration_s(const Iteration& it) const override;  // not for this model: an internal error
  std::int64_t kv_capacity_tokens() const override { return 0; }
  bool tokens() const override { return false; }

 private:
  std::string model_;
  int gpus_ = 1;
  double tensor_s_per_sample_ = 0;
  double memory_s_per_sample_ = 0;
  double launch_s_ = 0;
};

}  // namespace gcsim::models::serving
