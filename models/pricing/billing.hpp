// Billing rules: how providers round the time a node is rented (granularity) and the least
// they charge for one rental (minimum). Prices are per hour; bills are computed on the
// billed time, so a 61 s rental of a per-second/60 s-minimum node costs 61/3600 of the
// hourly price, and a 30 s one costs 60/3600 of it. Provider defaults and their sources:
// default_billing() in providers.hpp and docs/pricing.md ("Billing rules").
#pragma once

#include <string>
#include <string_view>

#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

struct BillingRule {
  sim::SimTime granularity = sim::seconds(1);  // use is rounded up to a multiple of this (> 0)
  sim::SimTime minimum = sim::SimTime::zero();  // the least billed for any non-zero use
};


// Named rules: per second (no minimum), per minute, per hour, per month (730 h).
BillingRule per_second_billing();
BillingRule per_minute_billing();
BillingRule per_hour_billing();
BillingRule per_month_billing();

// The time billed for `used` of a rental: rounded up to the granularity, at least the
// minimum. Zero (or negative) use bills zero: a rental that never started (a node
// requested and refused, a spot request never filled) is not charged, which is how the
// providers below bill an instance that never reached the running state. Saturates at
// SimTime::max().
sim::SimTime billed_time(const BillingRule& rule, sim::SimTime used);

// USD for `used` at a constant `usd_per_hour`, on the billed time.
double billed_usd(const BillingRule& rule, double usd_per_hour, sim::SimTime used);

// The keys of a `billing:` map (docs/scenario-reference.md).
inline constexpr config::KeySpec BILLING_KEYS[] = {
    {.name = "granularity", .type = "duration", .required = true, .help = "use is rounded up to a multiple of this",
     .kind = config::KeyKind::Duration, .min = 1},
    {.name = "minimum", .type = "duration", .help = "the least billed for any non-zero use",
     .kind = config::KeyKind::Duration, .min = 0, .has_default = true, .default_number = 0},
};

// A scenario's `billing:` value: one of per_second, per_minute, per_hour, per_month, or a
// map {granularity: 1m, minimum: 60s} (granularity required, > 0; minimum default 0).
// Strict: ConfigError with the key path on any other value or key.
BillingRule parse_billing(const config::ConfigNode& node);

// "per second, 60s minimum", "per minute", "per month (730h)"; "1s/60s"-style when
// compact (the catalog files' `billing` column; parse_billing_text reads it back).
std::string describe_billing(const BillingRule& rule);
std::string format_billing_compact(const BillingRule& rule);
// Reads the compact form: per_second | per_minute | per_hour | per_month | GRANULARITY/MINIMUM
// ("1m/1m", "1s/60s"). Throws units::UnitError (via std::invalid_argument) on bad text.
BillingRule parse_billing_text(std::string_view text);

}  // namespace gcsim::models
