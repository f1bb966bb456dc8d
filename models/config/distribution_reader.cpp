// Generator distributions (see distribution_reader.hpp). The dist maps are read against one
// table of all their keys; the keys that apply depend on `dist:`, and are checked last.
#include "models/config/distribution_reader.hpp"

#include <algorithm>
#include <cmath>
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
  return d;
}

}  // namespace gcsim::models
