// Precision names as written in scenarios, and the peak-rate lookup by precision.
#include "models/gpu/gpu_spec.hpp"

#include <stdexcept>

namespace gcsim::models {

const std::vector<std::string>& precision_names() {
  static const std::vector<std::string> names{"fp32", "tf32", "fp16", "amp", "bf16", "fp8"};
  return names;
}

Precision parse_precision(std::string_view name) {
  if (name == "fp32") return Precision::Fp32;
  if (name == "tf32") return Precision::Tf32;
  // "amp" is PyTorch's automatic mixed precision, which runs fp16 tensor math.
  if (name == "fp16" || name == "amp") return Precision::Fp16;
  if (name == "bf16") return Precision::Bf16;
  if (name == "fp8") return Precision::Fp8;
  std::string valid;
  for (const auto& n : precision_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown precision '" + std::string(name) + "' (valid: " + valid + ")");
}

std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::Fp32: return "fp32";
    case Precision::Tf32: return "tf32";
    case Precision::Fp16: return "fp16";
    case Precision::Bf16: return "bf16";
    case Precision::Fp8: return "fp8";
  }
  return "unknown";
}

double GpuSpec::peak_flop_per_s(Precision p) const {
  switch (p) {
    case Precision::Fp32: return fp32_flop_per_s;
    case Precision::Tf32: return tf32_flop_per_s;
    case Precision::Fp16: return fp16_flop_per_s;
    case Precision::Bf16: return bf16_flop_per_s;
    case Precision::Fp8: return fp8_flop_per_s;
  }
  return 0;
}

}  // namespace gcsim::models
