// Owned nodes: total cost of ownership per hour, the cost per delivered GPU-hour at a given
// utilization, and the break-even utilization against renting. Format of the `ownership:`
// block and the equations with their sources: docs/pricing.md ("Owned nodes").
//
//   ownership: {capex: 200000, depreciation: 3y, power_busy: 6.5kW, power_idle: 1.5kW,
//               pue: 1.3, electricity: 0.12/kWh, maintenance: 8%/y, hosting: 12000/y}
//
// Equations (per node; a year is 8,760 h, as in docs/units.md):
//   fixed  F = capex / depreciation_h + maintenance · capex / 8760 + hosting / 8760     [$/h]
//          (straight-line depreciation to zero salvage)
//   energy E(u) = (P_idle + u · (P_busy − P_idle)) / 1000 · PUE · price_kWh              [$/h]
//          (power linear in the busy fraction u, as in SimGrid's host energy plugin:
//           P = P_idle + load · (P_busy − P_idle); facility overhead by PUE, The Green Grid)
//   cost per delivered GPU-hour  c_own(u) = (F + E(u)) / (gpus · u)
//   break-even u* where c_own(u*) = c_cloud (renting only the GPU-hours used):
//          u* = (F + E_idle) / (gpus · c_cloud − (E_busy − E_idle))
// Owned cost accrues whether the node is used or not; only energy depends on use.
#pragma once

#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

inline constexpr double HOURS_PER_YEAR = 8760;

struct OwnershipSpec {
  double capex_usd = 0;                 // purchase price per node (servers, GPUs, share of network)
  sim::SimTime depreciation;            // straight-line, to zero
  double power_busy_w = 0;              // node wall power with every GPU busy
  double power_idle_w = 0;              // node wall power idle (powered on, no job)
  double pue = 1.5;                     // facility power / IT power
  double electricity_usd_per_kwh = 0;
  double maintenance_per_year = 0;      // fraction of capex per year (support contracts, spares)
  double hosting_usd_per_year = 0;      // colocation space, staff share, per node
};

inline constexpr double DEFAULT_PUE = 1.5;

// The keys of a node type's `ownership:` block, as parse_ownership reads them
// (docs/pricing.md).
inline constexpr config::KeySpec OWNERSHIP_KEYS[] = {
    {.name = "capex", .type = "USD", .required = true, .help = "purchase price per node", .kind = config::KeyKind::Usd},
    {.name = "depreciation", .type = "duration", .required = true, .help = "straight-line to zero",
     .kind = config::KeyKind::Duration, .min = 3600e9},
    {.name = "electricity", .type = "USD per kWh", .required = true, .help = "the price of energy",
     .kind = config::KeyKind::UsdPerKwh},
    {.name = "power_busy", .type = "power", .default_value = "`default_node_power_w(tdp, gpus, cores, true)`",
     .help = "wall power, all GPUs busy", .kind = config::KeyKind::Power},
    {.name = "power_idle", .type = "power", .default_value = "`default_node_power_w(..., false)`",
     .range = "at most power_busy", .help = "wall power idle", .kind = config::KeyKind::Power},
    {.name = "pue", .type = "number", .help = "facility / IT power", .kind = config::KeyKind::Number, .min = 1, .max = 3,
     .has_default = true, .default_number = DEFAULT_PUE},
    {"maintenance", "yearly fraction of capex", "`0`", false, ">= 0", "support, spares"},
    {"hosting", "USD with a period", "`0`", false, ">= 0", "colocation, staff share"},
};

// Parses `ownership:`. capex, depreciation and electricity are required; power_busy and
// power_idle default to the caller's figures (see default_node_power_w); pue defaults to
// DEFAULT_PUE; maintenance and hosting to 0. hosting needs a period ("12000/y", "1000/mo").
// Strict: ConfigError with the key path (OutOfRange: pue outside [1, 3], power_idle above
// power_busy, depreciation 0).
OwnershipSpec parse_ownership(const config::ConfigNode& node, double default_power_busy_w, double default_power_idle_w);

// Wall power of a GPU node from its GPUs' TDP and its CPU cores (a host model; constants and
// their sources in tco.cpp and docs/pricing.md). busy: GPUs at TDP plus a busy host; idle:
// GPUs at GPU_IDLE_FRACTION of TDP plus an idle host.
inline constexpr double GPU_IDLE_FRACTION = 0.15;
inline constexpr double HOST_BASE_BUSY_W = 200;   // board, memory, NICs, drives, fans at load
inline constexpr double HOST_W_PER_CORE = 4;      // CPU package power per core at load
inline constexpr double HOST_IDLE_FRACTION = 0.5; // host idle power / host busy power
double default_node_power_w(double gpu_tdp_w, int gpus, int cpu_cores, bool busy);

// F: depreciation + maintenance + hosting, per hour, independent of use.
double fixed_usd_per_hour(const OwnershipSpec& s);
// E(u): energy per hour at busy fraction u in [0, 1] (clamped).
double energy_usd_per_hour(const OwnershipSpec& s, double busy_fraction);
// F + E(u).
double ownership_usd_per_hour(const OwnershipSpec& s, double busy_fraction);
// (F + E(u)) / (gpus · u); +inf when u <= 0.
double cost_per_gpu_hour_delivered(const OwnershipSpec& s, int gpus, double utilization);
// u* (closed form above). Above 1 when owning breaks even only beyond full use; +inf when it
// never does (renting a busy GPU-hour costs no more than the owned node's extra energy).
double break_even_utilization(const OwnershipSpec& s, int gpus, double cloud_usd_per_gpu_hour);

}  // namespace gcsim::models
