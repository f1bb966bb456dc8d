// One forward pass of a model without tokens at a batch size: the step-time model's roofs
// and calibration (Williams, Waterman & Patterson 2009 roofline per op class; the forward
// third of a training step, Kaplan et al. 2020). Equations: forward_cost.hpp and
// docs/serving.md, "Models".
#include "models/serving/forward_cost.hpp"

#include <algorithm>

#include "models/serving/llm_cost.hpp"
#include "sim/check.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::models::serving {
namespace {

bool wide(Precision p) { return p == Precision::Fp32 || p == Precision::Tf32; }

}  // namespace

double simt_flop_per_s(const GpuSpec& gpu, Precision p, const Calibration& cal) {
  const EfficiencyRatios ratio = efficiency_ratios(gpu, p);
  return gpu.fp32_flop_per_s * std::min(cal.simt_efficiency * ratio.simt, ratio.simt_ceiling);
}

double matmul_flop_per_s(const GpuSpec& gpu, Precision p, const Calibration& cal) {
  if (p == Precision::Fp32) return simt_flop_per_s(gpu, p, cal);
  return gpu.peak_flop_per_s(p) * cal.tensor_efficiency * efficiency_ratios(gpu, p).tensor;
}

ForwardCost::ForwardCost(const ModelSpec& model, Precision precision, const ReplicaHardware& hw, const Calibration& cal)
    : model_(model.name), gpus_(hw.gpus) {
  GCSIM_CHECK(hw.gpus >= 1, "a replica has at least one GPU");
  if (!hw.gpu.supports(precision))
    throw Error("service model `" + model.name + "`: GPU " + hw.gpu.name + " has no " +
                std::string(precision_name(precision)) + " peak");
  const ModelFigures f = resolve(model);
  const double weights = f.params * bytes_per_element(precision);
  if (weights > hw.gpu.memory_bytes * USABLE_MEMORY_FRACTION)
    throw Error(model.name + " needs " + units::format_bytes(weights) + " of weights at " +
                std::string(precision_name(precision)) + "; 1 × " + hw.gpu.name + " holds " +
                units::format_bytes(hw.gpu.memory_bytes * USABLE_MEMORY_FRACTION));
  const double tensor_flop = f.forward_flop;  // one forward pass per sample
  tensor_s_per_sample_ = tensor_flop * f.tensor_fraction / matmul_flop_per_s(hw.gpu, precision, cal);
  const double element_scale = wide(precision) ? 2.0 : 1.0;
  const double traffic_s = FORWARD_SHARE_OF_STEP * f.memory_traffic_bytes * element_scale /
                           (hw.gpu.memory_bytes_per_s * cal.memory_efficiency);
  const double vector_s = tensor_flop * (1 - f.tensor_fraction) / simt_flop_per_s(hw.gpu, precision, cal);
  memory_s_per_sample_ = std::max(traffic_s, vector_s);
  launch_s_ = FORWARD_SHARE_OF_STEP * f.kernels_per_step * cal.kernel_overhead_s;
}

double ForwardCost::batch_s(int batch) const {
  GCSIM_CHECK(batch >= 1, "a batch of " + std::to_string(batch) + " requests");
  const double per_gpu = (batch + gpus_ - 1) / gpus_;
  return per_gpu * (tensor_s_per_sample_ + memory_s_per_sample_) + launch_s_;
}

double ForwardCost::iteration_s(const Iteration&) const {
  GCSIM_CHECK(false, "model `" + model_ + "` has no tokens: ask batch_s, not iteration_s");
  return 0;
}

}  // namespace gcsim::models::serving
