// Ownership costs by hand: the worked example of docs/pricing.md (a DGX A100-class node), cost per delivered GPU-hour, the
// break-even utilization against renting, the host power model, and the parser's branches.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "models/pricing/tco.hpp"
#include "sim/config/config_node.hpp"
#include "sim/errors.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::models::OwnershipSpec;
namespace m = gcsim::models;

namespace {

const std::string EXAMPLE =
    "{capex: 200000, depreciation: 3y, power_busy: 6.5kW, power_idle: 1.5kW, pue: 1.3, electricity: 0.12/kWh, "
    "maintenance: 8%/y}";

OwnershipSpec ownership(const std::string& block, double busy_w = 4000, double idle_w = 1000) {
  const auto doc = gcsim::config::load_yaml_string("ownership: " + block + "\n", "o.yaml");
  return m::parse_ownership(*doc.root.find("ownership"), busy_w, idle_w);
}

ConfigError ownership_error(const std::string& block) {
  try {
    ownership(block);
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no ConfigError for " << block);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("TCO of the worked example node, by hand", "[model][pricing]") {
  const OwnershipSpec s = ownership(EXAMPLE);
  CHECK(s.capex_usd == 200000);
  CHECK(s.power_busy_w == 6500);
  CHECK(s.power_idle_w == 1500);
  CHECK(s.maintenance_per_year == Approx(0.08));
  // Depreciation: 200,000 / (3 × 8,760 h = 26,280 h) = 7.6104 $/h.
  // Maintenance: 8 %/y × 200,000 = 16,000 $/y; / 8,760 h = 1.8265 $/h.
  // Fixed: 7.6104 + 1.8265 = 9.4368 $/h (no hosting).
  CHECK(m::fixed_usd_per_hour(s) == Approx(200000.0 / 26280 + 16000.0 / 8760));
  CHECK(m::fixed_usd_per_hour(s) == Approx(9.4368).epsilon(1e-4));
  // Energy busy: 6.5 kW × PUE 1.3 × 0.12 $/kWh = 1.014 $/h; idle: 1.5 × 1.3 × 0.12 = 0.234 $/h.
  CHECK(m::energy_usd_per_hour(s, 1.0) == Approx(1.014));
  CHECK(m::energy_usd_per_hour(s, 0.0) == Approx(0.234));
  // Half busy: (1.5 + 0.5 × 5.0) = 4.0 kW × 1.3 × 0.12 = 0.624 $/h.
  CHECK(m::energy_usd_per_hour(s, 0.5) == Approx(0.624));
  CHECK(m::energy_usd_per_hour(s, 2.0) == Approx(1.014));  // clamped
  // 8 GPUs at 50 %: (9.4368 + 0.624) / (8 × 0.5) = 2.5152 $ per delivered GPU-hour.
  CHECK(m::cost_per_gpu_hour_delivered(s, 8, 0.5) == Approx((m::fixed_usd_per_hour(s) + 0.624) / 4));
  CHECK(m::cost_per_gpu_hour_delivered(s, 8, 0.5) == Approx(2.5152).epsilon(1e-4));
  CHECK(std::isinf(m::cost_per_gpu_hour_delivered(s, 8, 0)));
}

TEST_CASE("break-even utilization against a cloud price, by hand", "[model][pricing]") {
  const OwnershipSpec s = ownership(EXAMPLE);
  // Against $4.10 per GPU-hour (AWS p4d.24xlarge, 32.7726 / 8):
  //   u* = (F + E_idle) / (8 × 4.10 − (E_busy − E_idle)) = (9.4368 + 0.234) / (32.8 − 0.78) = 0.30203
  const double u = m::break_even_utilization(s, 8, 4.10);
  CHECK(u == Approx((m::fixed_usd_per_hour(s) + 0.234) / (32.8 - 0.78)));
  CHECK(u == Approx(0.30203).epsilon(1e-4));
  // At u* owning costs exactly the cloud price per delivered GPU-hour.
  CHECK(m::cost_per_gpu_hour_delivered(s, 8, u) == Approx(4.10));
  // Cheaper cloud GPUs: owning breaks even only beyond full use (u* > 1) ...
  CHECK(m::break_even_utilization(s, 8, 1.0) == Approx(9.6708 / (8 - 0.78)).epsilon(1e-4));
  CHECK(m::break_even_utilization(s, 8, 1.0) > 1);
  // ... or never, when a rented GPU-hour costs no more than the extra energy of owning.
  CHECK(std::isinf(m::break_even_utilization(s, 8, 0.05)));
}

TEST_CASE("hosting, defaults and the host power model", "[unit][pricing]") {
  // Hosting 12,000 $/y adds 12,000 / 8,760 = 1.36986 $/h.
  const OwnershipSpec h = ownership("{capex: 0, depreciation: 1y, electricity: 0.1/kWh, hosting: 12000/y}");
  CHECK(m::fixed_usd_per_hour(h) == Approx(12000.0 / 8760));
  CHECK(ownership("{capex: 0, depreciation: 1y, electricity: 0/kWh, hosting: 1000/mo}").hosting_usd_per_year ==
        Approx(12000));
  // Power and PUE defaults.
  const OwnershipSpec d = ownership("{capex: 1, depreciation: 1y, electricity: 0.1/kWh}", 3912, 836);
  CHECK(d.power_busy_w == 3912);
  CHECK(d.power_idle_w == 836);
  CHECK(d.pue == m::DEFAULT_PUE);
  CHECK(d.maintenance_per_year == 0);
  // 8 × A100 SXM (400 W), 128 cores: busy 3,200 + 200 + 128 × 4 = 3,912 W;
  // idle 8 × 400 × 0.15 = 480 + (200 + 512) × 0.5 = 356 -> 836 W.
  CHECK(m::default_node_power_w(400, 8, 128, true) == Approx(3912));
  CHECK(m::default_node_power_w(400, 8, 128, false) == Approx(836));
}

TEST_CASE("ownership block errors name the key", "[unit][pricing]") {
  struct Case {
    const char* block;
    ErrorCode code;
    const char* path;
  };
  const Case cases[] = {
      {"{depreciation: 3y, electricity: 0.1/kWh}", ErrorCode::MissingKey, "ownership.capex"},
      {"{capex: 1, electricity: 0.1/kWh}", ErrorCode::MissingKey, "ownership.depreciation"},
      {"{capex: 1, depreciation: 3y}", ErrorCode::MissingKey, "ownership.electricity"},
      {"{capex: 1, depreciation: 3, electricity: 0.1/kWh}", ErrorCode::BadUnit, "ownership.depreciation"},
      {"{capex: 1, depreciation: 0, electricity: 0.1/kWh}", ErrorCode::OutOfRange, "ownership.depreciation"},
      {"{capex: 1, depreciation: 3y, electricity: 0.1/kWh, pue: 0.9}", ErrorCode::OutOfRange, "ownership.pue"},
      {"{capex: 1, depreciation: 3y, electricity: 0.1/kWh, power_idle: 9kW}", ErrorCode::OutOfRange,
       "ownership.power_idle"},
      {"{capex: 1, depreciation: 3y, electricity: 0.1/kWh, power_busy: 6.5}", ErrorCode::BadUnit, "ownership.power_busy"},
      {"{capex: 1, depreciation: 3y, electricity: 0.1/kWh, hosting: 12000}", ErrorCode::BadUnit, "ownership.hosting"},
      {"{capex: 1, depreciation: 3y, electricity: 0.1/kWh, maintenance: 8%}", ErrorCode::BadUnit,
       "ownership.maintenance"},
      {"{capex: -5, depreciation: 3y, electricity: 0.1/kWh}", ErrorCode::OutOfRange, "ownership.capex"},
      {"{capex: 1, depreciation: 3y, electricity: 0.1/kWh, salvage: 0}", ErrorCode::UnknownKey, "ownership.salvage"},
  };
  for (const Case& c : cases) {
    INFO(c.block);
    const ConfigError e = ownership_error(c.block);
    CHECK(e.code() == c.code);
    CHECK(e.key_path() == c.path);
  }
}
