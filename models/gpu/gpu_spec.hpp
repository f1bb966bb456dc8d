// One GPU model's datasheet figures, in SI units, and the numeric precisions jobs use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gcsim::models {

// Numeric precision of training math. Fp16 is "amp" (fp16 mixed precision on tensor cores).
enum class Precision : std::uint8_t { Fp32, Tf32, Fp16, Bf16, Fp8 };

// Names accepted in scenarios: fp32, tf32, fp16, amp (= fp16), bf16, fp8.
const std::vector<std::string>& precision_names();
// Throws std::invalid_argument for an unknown name.
Precision parse_precision(std::string_view name);
std::string_view precision_name(Precision p);

struct GpuSpec {
  std::string name;                  // canonical catalog name, e.g. "A100-40GB-SXM"
  std::vector<std::string> aliases;  // other accepted names, e.g. "A100-SXM4-40GB"
  std::string vendor = "NVIDIA";
  std::string arch;                  // "Ampere"
  std::string form_factor;           // "SXM4", "PCIe"
  // Dense peak rates in FLOP/s; 0 means the precision is not supported by tensor/FP units.
  double fp32_flop_per_s = 0;
  double tf32_flop_per_s = 0;
  double fp16_flop_per_s = 0;        // fp16 tensor, fp32 accumulate (what AMP uses)
  double bf16_flop_per_s = 0;
  double fp8_flop_per_s = 0;
  double memory_bytes = 0;
  double memory_bytes_per_s = 0;
  double nvlink_bytes_per_s = 0;     // aggregate per direction per GPU; 0 = no NVLink
  int pcie_gen = 0;                  // 3, 4, 5 (x16)
  double tdp_w = 0;
  std::string sources;               // where each figure comes from
  std::string notes;                 // caveats: variants, unverified figures, usable memory

  double peak_flop_per_s(Precision p) const;
  bool supports(Precision p) const { return peak_flop_per_s(p) > 0; }
};

}  // namespace gcsim::models
