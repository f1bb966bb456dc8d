// Generator distributions (see distribution_reader.hpp). The dist maps are read against one
// table of all their keys; the keys that apply depend on `dist:`, and are checked last.
#include "models/config/distribution_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/reader.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {

using config::ConfigNode;
using config::MapReader;

namespace {

constexpr double INF = std::numeric_limits<double>::infinity();

const std::vector<std::string>& dist_names() {
  static const std::vector<std::string> names{"constant", "exponential", "uniform", "normal", "lognormal",
                                                "empirical"};
  return names;
}

// Refuses a key of DISTRIBUTION_KEYS that the chosen form (`dist: <name>`, or `choice`)
// does not read: read after the form's own keys, so a missing parameter is reported first.
void refuse_other_keys(const ConfigNode& n, std::string_view form, std::initializer_list<std::string_view> applies) {
  const auto& entries = n.entries();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string& key = entries[i].first;
    if (std::find(applies.begin(), applies.end(), key) != applies.end()) continue;
    std::string keys;
    for (std::string_view k : applies) keys += (keys.empty() ? "" : ", ") + std::string(k);
    throw ConfigError(ErrorCode::Conflict, n.key_mark(i), entries[i].second.path(),
                      "'" + key + "' does not apply to " + std::string(form) + ", which takes " + keys);
  }
}

// The standard normal's CDF.
double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// The probability that one draw (before truncation) of d falls below `lo` / above `hi`.
double below(const Distribution& d, double lo) {
  switch (d.kind) {
    case Distribution::Kind::Normal:
      return d.p2 > 0 ? normal_cdf((lo - d.p1) / d.p2) : static_cast<double>(d.p1 < lo);
    case Distribution::Kind::Exponential:
    case Distribution::Kind::Lognormal: return lo > 0 ? 1.0 : 0.0;  // never < 0; lo is 0 here
    default: return 0;
  }
}
double above(const Distribution& d, double hi) {
  switch (d.kind) {
    case Distribution::Kind::Normal:
      return d.p2 > 0 ? 1 - normal_cdf((hi - d.p1) / d.p2) : static_cast<double>(d.p1 > hi);
    case Distribution::Kind::Exponential: return std::exp(-hi / d.p1);
    case Distribution::Kind::Lognormal:
      return d.p2 > 0 ? 1 - normal_cdf((std::log(hi) - std::log(d.p1)) / d.p2) : static_cast<double>(d.p1 > hi);
    default: return 0;
  }
}

// Every draw must be a value of the field: a duration or a count >= 0, a fraction in
// (0, 1] (a whole number is rounded and taken as at least 1 where it is used, by design).
// An exponential, normal or lognormal distribution can draw outside that unless its min and
// max keep it inside. Where it would more often than once in a million draws, that is an
// error naming how often and the bound to give (a negative time between arrivals stopped
// a run with an internal error; a negative amount of work or an efficiency above 1 ran as
// nonsense). Rarer strays are kept inside by truncation at the field's bound, as min and
// max do: a draw outside is drawn again, which no run of a few million draws can tell apart.
void keep_in_field(const ConfigNode& n, Distribution& d, ValueKind kind, std::string_view form) {
  if (kind == ValueKind::Integer) return;
  constexpr double RARE = 1e-6;
  const double lo = 0;  // inclusive for durations and counts; a fraction must be > 0, and
                        // these distributions draw exactly 0 with probability 0
  const double hi = kind == ValueKind::Fraction ? 1.0 : INF;
  const char* field = kind == ValueKind::Duration ? "a time cannot be negative"
                      : kind == ValueKind::Count  ? "this value cannot be negative"
                                                  : "a fraction is in (0, 1]";
  // The least min the field's reader takes (a fraction's must be > 0).
  const char* min_hint = kind == ValueKind::Duration ? "0s" : kind == ValueKind::Count ? "0" : "1%";
  const auto percent = [](double p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, p >= 0.01 ? "%.0f%%" : "%.2g%%", 100 * p);
    return std::string(buf);
  };
  if (d.min < lo) {
    const double p = below(d, lo);
    if (p > RARE)
      n.fail(ErrorCode::OutOfRange, std::string(form) + " draws below 0 about " + percent(p) + " of the time, and " +
                                        field + ": bound it with `min: " + min_hint + "` (a draw below min is drawn again) or "
                                        "choose another distribution");
    d.min = lo;
  }
  if (d.max > hi) {
    const double p = above(d, hi);
    if (p > RARE)
      n.fail(ErrorCode::OutOfRange, std::string(form) + " draws above 1 about " + percent(p) + " of the time, and " +
                                        field + ": bound it with `max: 1` (a draw above max is drawn again) or choose another "
                                        "distribution");
    d.max = hi;
  }
}

}  // namespace

double read_value(const ConfigNode& n, ValueKind kind) {
  switch (kind) {
    case ValueKind::Duration: return config::read_duration(n).seconds();
    case ValueKind::Count: return config::read_double(n, 0, INF);
    case ValueKind::Integer: {
      const double v = config::read_double(n, 1, 1e9);
      if (v != std::floor(v)) n.fail(ErrorCode::WrongType, "expected a whole number, got '" + n.scalar() + "'");
      return v;
    }
    case ValueKind::Fraction: {
      const double v = config::read_fraction(n);
      if (!(v > 0 && v <= 1)) n.fail(ErrorCode::OutOfRange, "expected a fraction in (0, 1], got '" + n.scalar() + "'");
      return v;
    }
  }
  return 0;
}

Distribution read_distribution(const ConfigNode& n, ValueKind kind) {
  if (n.is_scalar()) return Distribution::constant(read_value(n, kind));
  if (!n.is_map()) n.fail(ErrorCode::WrongType, "expected a value or a distribution map, got a " + std::string(n.kind_name()));
  MapReader r(n, DISTRIBUTION_KEYS);  // unknown keys, with a did-you-mean among all of them
  Distribution d;
  if (r.has("choice")) {
    d.kind = Distribution::Kind::Choice;
    const ConfigNode& values = r.required("choice");
    if (!values.is_sequence() || values.size() == 0)
      values.fail(ErrorCode::WrongType, "choice needs a non-empty list of values");
    for (const auto& v : values.items()) d.values.push_back(read_value(v, kind));
    if (const ConfigNode* w = r.optional("weights")) {
      if (!w->is_sequence()) w->fail(ErrorCode::WrongType, "weights must be a list of numbers");
      if (w->size() != values.size())
        w->fail(ErrorCode::Conflict, "weights has " + std::to_string(w->size()) + " entries but choice has " +
                                         std::to_string(values.size()));
      double sum = 0;
      for (const auto& x : w->items()) {
        d.weights.push_back(config::read_double(x, 0, INF));
        sum += d.weights.back();
      }
      if (!(sum > 0)) w->fail(ErrorCode::OutOfRange, "weights must not all be zero");
    } else {
      d.weights.assign(d.values.size(), 1.0);
    }
    refuse_other_keys(n, "`choice`", {"choice", "weights"});
    return d;
  }
  const ConfigNode& dist = r.required("dist");
  const std::string name = config::read_enum(dist, dist_names());
  const std::string form = "`dist: " + name + "`";
  auto positive = [&](std::string_view key) {
    const ConfigNode& v = r.required(key);
    const double x = read_value(v, kind == ValueKind::Integer ? ValueKind::Count : kind);
    if (!(x > 0)) v.fail(ErrorCode::OutOfRange, std::string(key) + " must be > 0");
    return x;
  };
  auto number = [&](std::string_view key, double lo) {
    const ConfigNode& v = r.required(key);
    return config::read_double(v, lo, INF);
  };
  if (name == "empirical") {
    // Quantiles at probabilities 0, 1/N, ..., 1: at least two, none decreasing.
    const ConfigNode& q = r.required("quantiles");
    if (!q.is_sequence() || q.size() < 2)
      q.fail(ErrorCode::WrongType, "quantiles needs a list of at least two values (the minimum and the maximum)");
    std::vector<double> values;
    values.reserve(q.size());
    for (const auto& v : q.items()) {
      values.push_back(read_value(v, kind == ValueKind::Integer ? ValueKind::Count : kind));
      if (values.size() > 1 && values.back() < values[values.size() - 2])
        v.fail(ErrorCode::OutOfRange, "quantiles must not decrease: this one is below the one before it");
    }
    refuse_other_keys(n, form, {"dist", "quantiles"});
    return Distribution::empirical(std::move(values));
  }
  if (name == "constant") {
    d.kind = Distribution::Kind::Constant;
    d.p1 = read_value(r.required("value"), kind);
    refuse_other_keys(n, form, {"dist", "value"});
    return d;
  } else if (name == "exponential") {
    d.kind = Distribution::Kind::Exponential;
    d.p1 = positive("mean");
  } else if (name == "uniform") {
    d.kind = Distribution::Kind::Uniform;
    d.p1 = read_value(r.required("min"), kind == ValueKind::Integer ? ValueKind::Count : kind);
    const ConfigNode& hi = r.required("max");
    d.p2 = read_value(hi, kind == ValueKind::Integer ? ValueKind::Count : kind);
    if (!(d.p2 > d.p1)) hi.fail(ErrorCode::OutOfRange, "max must be greater than min");
    refuse_other_keys(n, form, {"dist", "min", "max"});
    return d;
  } else if (name == "normal") {
    d.kind = Distribution::Kind::Normal;
    d.p1 = positive("mean");
    d.p2 = kind == ValueKind::Duration ? config::read_duration(r.required("stddev")).seconds() : number("stddev", 0);
  } else {
    d.kind = Distribution::Kind::Lognormal;
    d.p1 = positive("median");
    d.p2 = number("sigma", 0);
  }
  if (const ConfigNode* lo = r.optional("min")) d.min = read_value(*lo, kind == ValueKind::Integer ? ValueKind::Count : kind);
  if (const ConfigNode* hi = r.optional("max")) {
    d.max = read_value(*hi, kind == ValueKind::Integer ? ValueKind::Count : kind);
    if (!(d.max > d.min)) hi->fail(ErrorCode::OutOfRange, "max must be greater than min");
  }
  if (d.kind == Distribution::Kind::Exponential)
    refuse_other_keys(n, form, {"dist", "mean", "min", "max"});
  else if (d.kind == Distribution::Kind::Normal)
    refuse_other_keys(n, form, {"dist", "mean", "stddev", "min", "max"});
  else
    refuse_other_keys(n, form, {"dist", "median", "sigma", "min", "max"});
  keep_in_field(n, d, kind, form);
  return d;
}

}  // namespace gcsim::models
