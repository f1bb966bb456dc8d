// Ownership costs; equations and sources in tco.hpp and docs/pricing.md.
//
// Host power model constants (default_node_power_w), all ASSUMPTIONS to be overridden by
// power_busy/power_idle when the node's measured or nameplate figures are known:
//   HOST_W_PER_CORE 4 W: server CPU TDP per core, e.g. AMD EPYC 7742 225 W / 64 cores = 3.5 W
//     (the DGX A100's CPUs) and Intel Xeon Platinum 8480+ 350 W / 56 cores = 6.25 W (DGX H100);
//     vendor TDP figures, not verified in the corpus.
//   HOST_BASE_BUSY_W 200 W: memory, NICs, local NVMe and fans of a dual-socket GPU server.
//   GPU_IDLE_FRACTION 0.15: data-center GPUs idle at roughly 50-90 W against 300-700 W TDP.
//   HOST_IDLE_FRACTION 0.5: a server's idle power is typically 30-60 % of its peak (SPECpower
//     results); 0.5 is the middle.
// Cross-check: 8 × A100 SXM (400 W) with 128 cores gives 3,200 + 712 = 3.9 kW busy, below the
// DGX A100's 6.5 kW maximum system power (NVIDIA datasheet, a supply rating that also covers
// NVSwitches and fan headroom), which the worked example in docs/pricing.md uses as power_busy.
#include "models/pricing/tco.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "sim/config/reader.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {

double default_node_power_w(double gpu_tdp_w, int gpus, int cpu_cores, bool busy) {
  const double host_busy = HOST_BASE_BUSY_W + HOST_W_PER_CORE * std::max(0, cpu_cores);
  if (busy) return gpus * gpu_tdp_w + host_busy;
  return gpus * gpu_tdp_w * GPU_IDLE_FRACTION + host_busy * HOST_IDLE_FRACTION;
}

OwnershipSpec parse_ownership(const config::ConfigNode& node, double default_power_busy_w, double default_power_idle_w) {
  config::MapReader r(node, OWNERSHIP_KEYS);
  OwnershipSpec s;
  s.capex_usd = r.need<double>("capex");
  s.depreciation = r.need<sim::SimTime>("depreciation");
  s.electricity_usd_per_kwh = r.need<double>("electricity");
  s.power_busy_w = r.get<double>("power_busy").value_or(default_power_busy_w);
  s.power_idle_w = r.get<double>("power_idle").value_or(default_power_idle_w);
  const config::ConfigNode* busy = r.where("power_busy");
  const config::ConfigNode* idle = r.where("power_idle");
  if (s.power_idle_w > s.power_busy_w) {
    const config::ConfigNode& at = idle != nullptr ? *idle : busy != nullptr ? *busy : node;
    at.fail(ErrorCode::OutOfRange, "power_idle (" + std::to_string(s.power_idle_w) + " W) exceeds power_busy (" +
                                       std::to_string(s.power_busy_w) + " W)");
  }
  s.pue = r.value<double>("pue");
  if (const config::ConfigNode* m = r.optional("maintenance")) s.maintenance_per_year = config::read_fraction_per_year(*m);
  if (const config::ConfigNode* h = r.optional("hosting")) {
    if (!h->is_scalar() || h->scalar().find('/') == std::string::npos)
      h->fail(ErrorCode::BadUnit, "hosting needs its period: write e.g. 12000/y or 1000/mo");
    s.hosting_usd_per_year = config::read_usd_per_hour(*h) * HOURS_PER_YEAR;
  }
  r.finish();
  return s;
}

double fixed_usd_per_hour(const OwnershipSpec& s) {
  const double depreciation_h = s.depreciation.seconds() / 3600.0;
  const double depreciation = depreciation_h > 0 ? s.capex_usd / depreciation_h : 0;
  return depreciation + s.maintenance_per_year * s.capex_usd / HOURS_PER_YEAR + s.hosting_usd_per_year / HOURS_PER_YEAR;
}

double energy_usd_per_hour(const OwnershipSpec& s, double busy_fraction) {
  const double u = std::clamp(busy_fraction, 0.0, 1.0);
  const double watts = s.power_idle_w + u * (s.power_busy_w - s.power_idle_w);
  return watts / 1000.0 * s.pue * s.electricity_usd_per_kwh;
}

double ownership_usd_per_hour(const OwnershipSpec& s, double busy_fraction) {
  return fixed_usd_per_hour(s) + energy_usd_per_hour(s, busy_fraction);
}

double cost_per_gpu_hour_delivered(const OwnershipSpec& s, int gpus, double utilization) {
  if (!(utilization > 0) || gpus <= 0) return std::numeric_limits<double>::infinity();
  return ownership_usd_per_hour(s, utilization) / (gpus * std::min(utilization, 1.0));
}

double break_even_utilization(const OwnershipSpec& s, int gpus, double cloud_usd_per_gpu_hour) {
  const double e_idle = energy_usd_per_hour(s, 0);
  const double e_slope = energy_usd_per_hour(s, 1) - e_idle;
  const double denominator = gpus * cloud_usd_per_gpu_hour - e_slope;
  if (!(denominator > 0)) return std::numeric_limits<double>::infinity();
  return (fixed_usd_per_hour(s) + e_idle) / denominator;
}

}  // namespace gcsim::models
