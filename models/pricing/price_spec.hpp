// A node pool's market and its `price:` block: what a node costs per hour on demand, on the
// spot market (a constant, or a PriceProfile given inline or as a CSV trace), under a
// reserved/committed term, and how its use is billed (billing.hpp). Owned pools are priced
// by their `ownership:` block instead (tco.hpp). Format: docs/pricing.md.
//
//   market: spot                    # on_demand | spot | reserved | owned
//   price: {on_demand_per_hour: 32.77, spot_per_hour: 0.92, max_per_hour: 1.2, billing: per_second}
//   price: {spot_profile: {points: [{at: 0h, price: 0.92}, {at: 4h, price: 1.4}], repeat: 7d}}
//   price: {spot_profile: {file: prices.csv, repeat: 7d}}        # CSV: time,usd_per_hour
//   price: {reserved: {term: 3y, upfront: all, upfront_usd: 500000}}
//   price: {on_demand_per_hour: $4/GPUh}   # per GPU: times the node type's GPUs
//
// Every price here is per node. A price per GPU ("$4/GPUh") is converted where it is read,
// by the node type's GPUs per node: the engine's units (sim/units.hpp) know no GPUs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/pricing/billing.hpp"
#include "models/pricing/price_profile.hpp"
#include "models/pricing/market.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"
#include "sim/config/source_resolver.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

// `market:`; UnknownName with did-you-mean.
Market parse_market(const config::ConfigNode& node);

enum class Upfront { None, Partial, All };
std::string_view upfront_name(Upfront u);  // "none", "partial", "all"

// A reservation or commitment: paid for the whole term whether the nodes are used or not.
struct ReservedTerms {
  sim::SimTime term;           // typically 1y or 3y (a year is 8,760 h)
  Upfront upfront = Upfront::None;
  double upfront_usd = 0;      // paid once per node at the start of the term
  double usd_per_hour = 0;     // recurring, per node, for every hour of the term
  double term_hours() const { return term.seconds() / 3600.0; }
  // upfront / term hours + recurring: 3y all-upfront $X -> X / 26,280 per hour.
  double effective_usd_per_hour() const { return upfront_usd / term_hours() + usd_per_hour; }
  // The terms signed to hold a node from 0 to `horizon` (a horizon of 1.5 terms signs 2),
  // and what they cost in all: a run charges only the horizon's share of them
  // (effective_usd_per_hour for every hour of the horizon), the report shows both.
  std::int64_t terms_overlapping(sim::SimTime horizon) const {
    return horizon <= sim::SimTime::zero() ? 0 : (horizon.ns() + term.ns() - 1) / term.ns();
  }
  double commitment_usd(sim::SimTime horizon) const {
    return static_cast<double>(terms_overlapping(horizon)) * term_hours() * effective_usd_per_hour();
  }
};

struct PriceSpec {
  Market market = Market::OnDemand;
  double on_demand_usd_per_hour = 0;       // per node; the reference price on every rented market
  std::optional<double> spot_usd_per_hour; // the constant spot price when given as one
  PriceProfile spot_profile;               // spot: the price over time (constant when spot_per_hour)
  std::optional<double> max_usd_per_hour;  // spot bid / max price: above it the node is reclaimed
  std::optional<ReservedTerms> reserved;   // reserved market only
  BillingRule billing;

  // The reserved price per hour (0 when not reserved).
  double reserved_effective_usd_per_hour() const { return reserved ? reserved->effective_usd_per_hour() : 0; }
  // The hourly price of a node at time t on this pool's market (owned: 0, see tco.hpp).
  double usd_per_hour_at(sim::SimTime t) const;
};

// A node's price per hour from text: per node ("$32/h", "36999/mo", bare = per hour) or per
// GPU ("$4/GPUh", "$96/GPU-d": "GPU", an optional '-', then any price period of
// docs/units.md), the latter multiplied by gpus_per_node. Throws units::UnitError
// (BadUnit for "$4/GPU", a per-GPU price without its period).
double parse_node_usd_per_hour(std::string_view text, int gpus_per_node);
// The same for a config value: ConfigError wrong-type, bad-unit or out-of-range (< 0) at `n`.
double read_node_usd_per_hour(const config::ConfigNode& n, int gpus_per_node);

// Parses a `price:` block for a pool on `market` whose nodes have `gpus_per_node` GPUs (by
// which every per-GPU price is multiplied). `provider_default` is the billing rule used
// when the block has no `billing:` key; `sources` reads `spot_profile.file` (relative
// to the file naming it). `defaults`, when given (a catalog
// instance the node type names), supplies on_demand_per_hour and spot_per_hour the block
// leaves out. Strict: unknown keys; missing prices (MissingKey); keys that do not apply to the
// market (Conflict: spot_profile on an owned pool, reserved on a spot pool, ...); both
// spot_per_hour and spot_profile (Conflict); bad profiles (OutOfRange). A null block reads
// as empty.
// The keys of a node type's `price:` block, its `reserved:` terms, a `spot_profile:` and
// the profile's points, as parse_price and parse_price_profile read them (docs/pricing.md).
// Which keys a pool needs depends on its market, so none is required by the table.
inline constexpr config::KeySpec PRICE_KEYS[] = {
    {"on_demand_per_hour", "USD per hour per node", "the catalog instance's, if the node type names one", false, ">= 0", "the on-demand price; required on market: on_demand"},
    {"spot_per_hour", "USD/h", "the catalog instance's spot price", false, ">= 0", "a constant spot price"},
    {"spot_profile", "map", "", false, "", "a spot price that changes over time"},
    {"max_per_hour", "USD/h", "none", false, ">= 0", "the bid: above it the node is reclaimed"},
    {"reserved", "map", "", false, "", "the reservation; required on market: reserved"},
    {"billing", "rule or map", "the provider's (below) or the catalog instance's", false, "", "how use is rounded"},
};
inline constexpr config::KeySpec RESERVED_KEYS[] = {
    {.name = "term", .type = "duration", .required = true, .help = "the commitment", .kind = config::KeyKind::Duration,
     .min = 3600e9},
    {"upfront", "`none` | `partial` | `all`", "`none`", false, "", "payment option"},
    {.name = "upfront_usd", .type = "USD per node", .help = "paid once; needed with partial and all",
     .kind = config::KeyKind::Usd},
    {"per_hour", "USD/h per node", "", false, ">= 0", "recurring; needed with none and partial"},
};
inline constexpr config::KeySpec PRICE_PROFILE_KEYS[] = {
    {"points", "list of maps", "", false, "non-empty", "the profile's points (or `file`)"},
    {"file", "path", "", false, "", "a CSV price trace (or `points`)"},
    {.name = "repeat", .type = "duration", .default_value = "none", .help = "the period of a repeating profile",
     .kind = config::KeyKind::Duration, .min = 1},
};
inline constexpr config::KeySpec PRICE_POINT_KEYS[] = {
    {.name = "at", .type = "duration", .required = true, .help = "when the price starts", .kind = config::KeyKind::Duration,
     .min = 0},
    {"price", "USD/h", "", true, ">= 0", "the price from then on"},
};

PriceSpec parse_price(const config::ConfigNode& price_block, Market market, const BillingRule& provider_default,
                      config::SourceResolver& sources, int gpus_per_node, const PriceSpec* defaults = nullptr);

// A `spot_profile:` value on its own ({points: [...], repeat: 7d} or {file: x.csv, repeat: 7d}).
PriceProfile parse_price_profile(const config::ConfigNode& node, config::SourceResolver& sources, int gpus_per_node);
// A price trace in CSV: header `time,usd_per_hour`, then rows such as `0h,0.92` / `30m,1.4`
// (times with a unit, from 0, strictly increasing; prices >= 0, "$0.92/h" and "$0.1/GPUh"
// accepted, the latter times gpus_per_node). `#` comment lines allowed. Errors name
// label:line:column and the column.
PriceProfile read_price_profile_csv(std::istream& in, const std::string& label, sim::SimTime repeat,
                                    int gpus_per_node);

}  // namespace gcsim::models
