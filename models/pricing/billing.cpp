// Billing rules; see billing.hpp. The providers' default rules, with their sources, are in
// providers.cpp.
#include "models/pricing/billing.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <stdexcept>

#include "sim/config/reader.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::models {
namespace {

BillingRule rule(sim::SimTime granularity, sim::SimTime minimum) { return BillingRule{granularity, minimum}; }

const std::vector<std::string>& rule_names() {
  static const std::vector<std::string> names{"per_second", "per_minute", "per_hour", "per_month"};
  return names;
}

BillingRule named_rule(std::string_view name) {
  if (name == "per_second") return per_second_billing();
  if (name == "per_minute") return per_minute_billing();
  if (name == "per_hour") return per_hour_billing();
  return per_month_billing();
}

std::string compact_duration(sim::SimTime t) {
  const std::int64_t ns = t.ns();
  struct Unit {
    std::int64_t ns;
    const char* suffix;
  };
  static const Unit units[] = {{3600 * sim::NS_PER_S, "h"}, {60 * sim::NS_PER_S, "m"}, {sim::NS_PER_S, "s"},
                               {1'000'000, "ms"},           {1'000, "us"},             {1, "ns"}};
  if (ns == 0) return "0";
  for (const Unit& u : units)
    if (ns % u.ns == 0) return std::to_string(ns / u.ns) + u.suffix;
  return std::to_string(ns) + "ns";
}

}  // namespace

BillingRule per_second_billing() { return rule(sim::seconds(1), sim::SimTime::zero()); }
BillingRule per_minute_billing() { return rule(sim::minutes(1), sim::SimTime::zero()); }
BillingRule per_hour_billing() { return rule(sim::hours(1), sim::SimTime::zero()); }
BillingRule per_month_billing() { return rule(sim::hours(units::HOURS_PER_MONTH), sim::SimTime::zero()); }

sim::SimTime billed_time(const BillingRule& r, sim::SimTime used) {
  if (used <= sim::SimTime::zero()) return sim::SimTime::zero();
  const std::int64_t g = std::max<std::int64_t>(1, r.granularity.ns());
  const std::int64_t u = used.ns();
  const std::int64_t granules = u / g + (u % g != 0 ? 1 : 0);
  sim::SimTime billed = granules > std::numeric_limits<std::int64_t>::max() / g ? sim::SimTime::max()
                                                                                 : sim::SimTime::from_ns(granules * g);
  return std::max(billed, r.minimum);
}

double billed_usd(const BillingRule& r, double usd_per_hour, sim::SimTime used) {
  return usd_per_hour * billed_time(r, used).seconds() / 3600.0;
}

BillingRule parse_billing(const config::ConfigNode& node) {
  if (node.is_scalar()) return named_rule(config::read_enum(node, rule_names()));
  if (!node.is_map())
    node.fail(ErrorCode::WrongType, "expected per_second, per_minute, per_hour, per_month or {granularity, minimum}");
  config::MapReader r(node, BILLING_KEYS);
  BillingRule b;
  b.granularity = r.need<sim::SimTime>("granularity");
  b.minimum = r.value<sim::SimTime>("minimum");
  r.finish();
  return b;
}

std::string describe_billing(const BillingRule& r) {
  std::string out;
  if (r.granularity == sim::seconds(1)) {
    out = "per second";
  } else if (r.granularity == sim::minutes(1)) {
    out = "per minute";
  } else if (r.granularity == sim::hours(1)) {
    out = "per hour";
  } else if (r.granularity == sim::hours(units::HOURS_PER_MONTH)) {
    out = "per month (730h)";
  } else {
    out = "per " + compact_duration(r.granularity);
  }
  if (r.minimum > r.granularity) out += ", " + compact_duration(r.minimum) + " minimum";
  return out;
}

std::string format_billing_compact(const BillingRule& r) {
  for (const std::string& name : rule_names()) {
    const BillingRule n = named_rule(name);
    if (n.granularity == r.granularity && r.minimum == sim::SimTime::zero()) return name;
  }
  return compact_duration(r.granularity) + "/" + compact_duration(r.minimum);
}

BillingRule parse_billing_text(std::string_view text) {
  for (const std::string& name : rule_names())
    if (text == name) return named_rule(name);
  const auto slash = text.find('/');
  if (slash == std::string_view::npos)
    throw std::invalid_argument("expected per_second, per_minute, per_hour, per_month or GRANULARITY/MINIMUM (1s/60s), got '" +
                                std::string(text) + "'");
  BillingRule b;
  b.granularity = sim::SimTime::from_ns(units::parse_duration_ns(text.substr(0, slash)));
  b.minimum = sim::SimTime::from_ns(units::parse_duration_ns(text.substr(slash + 1)));
  if (b.granularity <= sim::SimTime::zero() || b.minimum < sim::SimTime::zero())
    throw std::invalid_argument("billing granularity must be > 0 and minimum >= 0, got '" + std::string(text) + "'");
  return b;
}

}  // namespace gcsim::models
