// Strict, typed reading of config nodes: MapReader (unknown keys with did-you-mean) and
// the scalar readers, which turn every parse or range failure into a ConfigError at the
// node's position and key path.
#include "sim/config/reader.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <type_traits>

#include "sim/check.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::config {

namespace {

std::string describe(const ConfigNode& n) {
  if (n.is_null()) return "an empty value";
  if (n.is_scalar()) return "'" + n.scalar() + "'";
  return "a " + std::string(n.kind_name());
}

// The scalar's text, or WrongType naming what was expected.
TextView scalar_text(const ConfigNode& n, std::string_view expected) {
  if (!n.is_scalar()) n.fail(ErrorCode::WrongType, "expected " + std::string(expected) + ", got " + describe(n));
  return n.scalar();
}

// A quoted number is text (YAML's own rule); accepting it would hide "8" vs 8 confusions
// that other tools reading the same file would not forgive.
void reject_quoted(const ConfigNode& n, std::string_view expected) {
  if (n.quoted())
    n.fail(ErrorCode::WrongType, "expected " + std::string(expected) + ", got the quoted text " + describe(n) +
                                     "; write it without quotes");
}

void reject_quoted_number(const ConfigNode& n, std::string_view expected) {
  if (!n.quoted()) return;
  try {
    (void)units::parse_number(n.scalar());
  } catch (const units::UnitError&) {
    return;  // text with a unit ("6h", "$2/h") reads the same quoted or not
  }
  reject_quoted(n, expected);
}

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string range_text(double min, double max) {
  const bool has_min = min > std::numeric_limits<double>::lowest();
  const bool has_max = max < std::numeric_limits<double>::max();
  if (has_min && has_max) return "between " + format_number(min) + " and " + format_number(max);
  if (has_min) return "at least " + format_number(min);
  if (has_max) return "at most " + format_number(max);
  return "finite";
}

std::string range_text(std::int64_t min, std::int64_t max) {
  const bool has_min = min > std::numeric_limits<std::int64_t>::min();
  const bool has_max = max < std::numeric_limits<std::int64_t>::max();
  if (has_min && has_max) return "between " + std::to_string(min) + " and " + std::to_string(max);
  if (has_min) return "at least " + std::to_string(min);
  if (has_max) return "at most " + std::to_string(max);
  return "an integer";
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& s : names) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

// Quantities that must be positive (> 0) or non-negative (>= 0).
enum class Sign { Positive, NonNegative };

template <class Parse>
double read_quantity(const ConfigNode& n, std::string_view expected, Sign sign, Parse parse) {
  const std::string& text = scalar_text(n, expected);
  reject_quoted_number(n, expected);
  double v = 0;
  try {
    v = parse(text);
  } catch (const units::UnitError& e) {
    fail_unit(n, e);
  }
  if (sign == Sign::Positive && !(v > 0))
    n.fail(ErrorCode::OutOfRange, "'" + text + "' must be greater than zero");
  if (sign == Sign::NonNegative && !(v >= 0)) n.fail(ErrorCode::OutOfRange, "'" + text + "' must not be negative");
  return v;
}

}  // namespace

[[noreturn]] void fail_unit(const ConfigNode& n, const units::UnitError& e) {
  switch (e.kind()) {
    case units::UnitError::Kind::NotANumber: n.fail(ErrorCode::WrongType, e.what());
    case units::UnitError::Kind::MissingUnit:
    case units::UnitError::Kind::BadUnit: n.fail(ErrorCode::BadUnit, e.what());
    case units::UnitError::Kind::OutOfRange: n.fail(ErrorCode::OutOfRange, e.what());
  }
  n.fail(ErrorCode::BadUnit, e.what());
}

// ---------------------------------------------------------------------------------------
MapReader::MapReader(const ConfigNode& node) : node_(node) {
  if (!node.is_null() && !node.is_map()) node.fail(ErrorCode::WrongType, "expected a map, got " + describe(node));
}

MapReader::MapReader(const ConfigNode& node, std::initializer_list<std::string_view> keys) : MapReader(node) {
  for (std::string_view k : keys) known_.emplace_back(k);
  finish();
}

MapReader::MapReader(const ConfigNode& node, KeyTable keys) : MapReader(node) {
  table_ = keys;
  finish();
  for (const KeySpec& k : keys)
    if (k.required && (node_.is_null() || node_.find(k.name) == nullptr))
      throw ConfigError(ErrorCode::MissingKey, node_.mark(), join_key_path(node_.path(), k.name),
                        "missing required key '" + std::string(k.name) + "'");
}

std::vector<std::string> MapReader::all_known() const {
  std::vector<std::string> all;
  for (const KeySpec& k : table_) all.emplace_back(k.name);
  all.insert(all.end(), known_.begin(), known_.end());
  return all;
}

// The key's node, by name: never a typed key's (refuse_typed). One pass over the table
// both refuses a typed key and knows a table key (the constructor declared them all).
const ConfigNode* MapReader::find_known(std::string_view key) {
  if (const KeySpec* spec = find_key(table_, key)) {
    if (spec->typed()) refuse_typed(key);
  } else if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
    known_.emplace_back(key);
  }
  return node_.is_null() ? nullptr : node_.find(key);
}

void MapReader::refuse_typed(std::string_view key) const {
  const KeySpec* spec = find_key(table_, key);
  GCSIM_CHECK(spec == nullptr || !spec->typed(),
              "key '" + std::string(key) + "' is typed: read it through its KeySpec (MapReader::get or value)");
}

const ConfigNode& MapReader::required(std::string_view key) {
  const ConfigNode* found = find_known(key);
  if (found == nullptr)
    throw ConfigError(ErrorCode::MissingKey, node_.mark(), join_key_path(node_.path(), key),
                      "missing required key '" + std::string(key) + "'");
  return *found;
}

const ConfigNode* MapReader::optional(std::string_view key) {
  const ConfigNode* found = find_known(key);
  return found == nullptr || found->is_null() ? nullptr : found;
}

const KeySpec& MapReader::spec(std::string_view key) const {
  const KeySpec* spec = find_key(table_, key);
  GCSIM_CHECK(spec != nullptr, "key '" + std::string(key) + "' is not in this map's key table");
  return *spec;
}

const ConfigNode* MapReader::where(std::string_view key) const {
  const ConfigNode* found = node_.is_null() ? nullptr : node_.find(key);
  return found == nullptr || found->is_null() ? nullptr : found;
}

namespace {

template <class T>
constexpr bool kind_reads_as(KeyKind kind) {
  switch (kind) {
    case KeyKind::Integer: return std::is_same_v<T, std::int64_t>;
    case KeyKind::Number:
    case KeyKind::Fraction:
    case KeyKind::Percent:
    case KeyKind::Bytes:
    case KeyKind::Usd:
    case KeyKind::Bandwidth:
    case KeyKind::Rate:
    case KeyKind::Power:
    case KeyKind::UsdPerHour:
    case KeyKind::UsdPerKwh: return std::is_same_v<T, double>;
    case KeyKind::Duration: return std::is_same_v<T, sim::SimTime>;
    case KeyKind::Bool: return std::is_same_v<T, bool>;
    case KeyKind::Untyped: return false;
  }
  return false;
}

template <class T>
T read_typed(const ConfigNode& n, const KeySpec& spec) {
  if constexpr (std::is_same_v<T, std::int64_t>) return read_key_int(n, spec);
  else if constexpr (std::is_same_v<T, double>) return read_key_number(n, spec);
  else if constexpr (std::is_same_v<T, sim::SimTime>) return read_key_duration(n, spec);
  else return read_key_bool(n, spec);
}

template <class T>
T typed_default(const KeySpec& spec) {
  if constexpr (std::is_same_v<T, std::int64_t>) return static_cast<std::int64_t>(spec.default_number);
  else if constexpr (std::is_same_v<T, double>) return spec.default_number;
  else if constexpr (std::is_same_v<T, sim::SimTime>) return sim::SimTime::from_ns(static_cast<std::int64_t>(spec.default_number));
  else return spec.default_number != 0;
}

}  // namespace

template <class T>
std::optional<T> MapReader::get(const KeySpec& spec) {
  GCSIM_CHECK(kind_reads_as<T>(spec.kind), "key '" + std::string(spec.name) + "' is not read as this type");
  // A spec of this reader's table is known already; another is declared here.
  const std::less<const KeySpec*> before;  // a total order, for pointers into other arrays too
  const bool own = !table_.empty() && !before(&spec, table_.data()) && before(&spec, table_.data() + table_.size());
  if (!own && std::find(known_.begin(), known_.end(), spec.name) == known_.end()) known_.emplace_back(spec.name);
  const ConfigNode* found = node_.is_null() ? nullptr : node_.find(spec.name);
  if (found == nullptr || found->is_null()) {
    if (spec.required)
      throw ConfigError(ErrorCode::MissingKey, node_.mark(), join_key_path(node_.path(), spec.name),
                        "missing required key '" + std::string(spec.name) + "'");
    return std::nullopt;
  }
  return read_typed<T>(*found, spec);
}

template <class T>
T MapReader::value(const KeySpec& spec) {
  GCSIM_CHECK(spec.has_default || spec.required, "key '" + std::string(spec.name) + "' has no default");
  if (std::optional<T> v = get<T>(spec)) return *v;
  return typed_default<T>(spec);
}

template <class T>
T MapReader::need(const KeySpec& spec) {
  if (std::optional<T> v = get<T>(spec)) return *v;
  throw ConfigError(ErrorCode::MissingKey, node_.mark(), join_key_path(node_.path(), spec.name),
                    "missing required key '" + std::string(spec.name) + "'");
}

template std::optional<std::int64_t> MapReader::get<std::int64_t>(const KeySpec&);
template std::optional<double> MapReader::get<double>(const KeySpec&);
template std::optional<sim::SimTime> MapReader::get<sim::SimTime>(const KeySpec&);
template std::optional<bool> MapReader::get<bool>(const KeySpec&);
template std::int64_t MapReader::value<std::int64_t>(const KeySpec&);
template double MapReader::value<double>(const KeySpec&);
template sim::SimTime MapReader::value<sim::SimTime>(const KeySpec&);
template bool MapReader::value<bool>(const KeySpec&);
template std::int64_t MapReader::need<std::int64_t>(const KeySpec&);
template double MapReader::need<double>(const KeySpec&);
template sim::SimTime MapReader::need<sim::SimTime>(const KeySpec&);

bool MapReader::has(std::string_view key) const { return !node_.is_null() && node_.find(key) != nullptr; }

void MapReader::finish() const {
  if (node_.is_null()) return;
  const auto& entries = node_.entries();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string& key = entries[i].first;
    if (find_key(table_, key) != nullptr || std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    const std::vector<std::string> known = all_known();
    std::vector<std::string> absent;
    for (const auto& k : known)
      if (node_.find(k) == nullptr) absent.push_back(k);
    // A key of a file the user did not write (a CSV table's header, a catalog) may be any
    // file's text: said to be unknown, not quoted, also in the key path.
    if (node_.text_hidden())
      throw ConfigError(ErrorCode::UnknownKey, node_.key_mark(i), node_.path(),
                        hide_text("key " + std::to_string(i + 1) + ": " + unknown_key_detail(key, absent, known), key));
    throw ConfigError(ErrorCode::UnknownKey, node_.key_mark(i), entries[i].second.path(),
                      unknown_key_detail(key, absent, known));
  }
}

std::string unknown_key_detail(const std::string& key, const std::vector<std::string>& absent,
                               const std::vector<std::string>& known) {
  std::string detail = "unknown key '" + key + "'";
  const std::string suggestion = did_you_mean(key, absent);
  if (!suggestion.empty())
    detail += "; did you mean '" + suggestion + "'?";
  else if (known.empty())
    detail += "; no keys are allowed here";
  else
    detail += "; valid keys: " + join(known);
  return detail;
}

// ---------------------------------------------------------------------------------------
std::string read_string(const ConfigNode& n) {
  const std::string& text = scalar_text(n, "a string");
  if (text.empty()) n.fail(ErrorCode::WrongType, "expected a non-empty string");
  return text;
}

std::string read_enum(const ConfigNode& n, const std::vector<std::string>& allowed) {
  const std::string& text = scalar_text(n, "one of: " + join(allowed));
  if (std::find(allowed.begin(), allowed.end(), text) != allowed.end()) return text;
  const std::string suggestion = did_you_mean(text, allowed);
  n.fail(ErrorCode::UnknownName, "unknown value '" + text + "'" +
                                     (suggestion.empty() ? "; valid values: " + join(allowed)
                                                         : "; did you mean '" + suggestion + "'?"));
}

bool read_bool(const ConfigNode& n) {
  const std::string& text = scalar_text(n, "true or false");
  reject_quoted(n, "true or false");
  const std::string v = ascii_lower(text);
  if (v == "true" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "no" || v == "off") return false;
  n.fail(ErrorCode::WrongType, "expected true or false, got '" + text + "'");
}

std::int64_t read_int(const ConfigNode& n, std::int64_t min, std::int64_t max) {
  const std::string& text = scalar_text(n, "an integer");
  reject_quoted(n, "an integer");
  std::string_view t = text;
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  std::string_view digits = t;
  if (digits.size() > 1 && digits.front() == '+' && digits[1] >= '0' && digits[1] <= '9') digits.remove_prefix(1);
  std::int64_t value = 0;
  const bool all_digits = !digits.empty() && std::all_of(digits.begin() + (digits.front() == '-' ? 1 : 0), digits.end(),
                                                         [](char c) { return c >= '0' && c <= '9'; });
  if (all_digits && digits != "-") {
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc::result_out_of_range || ptr != digits.data() + digits.size())
      n.fail(ErrorCode::OutOfRange, "'" + text + "' is out of range: must be " + range_text(min, max));
  } else if (!t.empty() && std::string_view("kKMGT").find(t.back()) != std::string_view::npos) {
    // A count suffix: "16k" is 16000; "1.5k" is fine, "1.0005k" is not an integer.
    double v = 0;
    try {
      v = units::parse_count(t);
    } catch (const units::UnitError& e) {
      fail_unit(n, e);
    }
    if (v != std::floor(v)) n.fail(ErrorCode::WrongType, "expected an integer, got '" + text + "'");
    if (!(std::fabs(v) < 9.2e18))
      n.fail(ErrorCode::OutOfRange, "'" + text + "' is out of range: must be " + range_text(min, max));
    value = static_cast<std::int64_t>(v);
  } else {
    try {
      (void)units::parse_count(t);  // "abc" -> wrong-type, "5x" -> bad-unit
    } catch (const units::UnitError& e) {
      fail_unit(n, e);
    }
    n.fail(ErrorCode::WrongType, "expected an integer, got '" + text + "'");  // "8.0", "1e3"
  }
  if (value < min || value > max)
    n.fail(ErrorCode::OutOfRange, "'" + text + "' is out of range: must be " + range_text(min, max));
  return value;
}

double read_double(const ConfigNode& n, double min, double max) {
  const std::string& text = scalar_text(n, "a number");
  reject_quoted(n, "a number");
  double v = 0;
  try {
    v = units::parse_count(text);
  } catch (const units::UnitError& e) {
    fail_unit(n, e);
  }
  if (v < min || v > max)
    n.fail(ErrorCode::OutOfRange, "'" + text + "' is out of range: must be " + range_text(min, max));
  return v;
}

double read_positive(const ConfigNode& n) {
  const double v = read_double(n, 0, std::numeric_limits<double>::infinity());
  if (!(v > 0)) n.fail(ErrorCode::OutOfRange, "must be greater than zero");
  return v;
}

double read_fraction(const ConfigNode& n) {
  const std::string& text = scalar_text(n, "a fraction (0.45 or 45%)");
  reject_quoted_number(n, "a fraction (0.45 or 45%)");
  double v = 0;
  try {
    v = units::parse_fraction(text);
  } catch (const units::UnitError& e) {
    fail_unit(n, e);
  }
  if (v < 0 || v > 1) n.fail(ErrorCode::OutOfRange, "'" + text + "' is out of range: must be between 0 and 1 (0% and 100%)");
  return v;
}

sim::SimTime read_duration(const ConfigNode& n, sim::SimTime min) {
  const std::string& text = scalar_text(n, "a duration (30m, 6h, 1.5d)");
  reject_quoted_number(n, "a duration (30m, 6h, 1.5d)");
  std::int64_t ns = 0;
  try {
    ns = units::parse_duration_ns(text);
  } catch (const units::UnitError& e) {
    fail_unit(n, e);
  }
  const sim::SimTime t = sim::SimTime::from_ns(ns);
  if (t < min)
    n.fail(ErrorCode::OutOfRange, "'" + text + "' is out of range: must be at least " + units::format_duration_s(min.seconds()));
  return t;
}

double read_bytes(const ConfigNode& n) {
  return read_quantity(n, "a size (80GiB, 1.5TB)", Sign::Positive, units::parse_bytes);
}

double read_bytes_per_s(const ConfigNode& n) {
  return read_quantity(n, "a bandwidth (100Gbps, 25GB/s)", Sign::Positive, units::parse_bytes_per_s);
}

double read_flop_per_s(const ConfigNode& n) {
  return read_quantity(n, "a compute rate (19.5TFLOPS)", Sign::NonNegative, units::parse_flop_per_s);
}

double read_watts(const ConfigNode& n) {
  return read_quantity(n, "a power (700W, 6.5kW)", Sign::NonNegative, units::parse_watts);
}

double read_usd_per_hour(const ConfigNode& n) {
  return read_quantity(n, "a price per hour ($2.50/h)", Sign::NonNegative, units::parse_usd_per_hour);
}

double read_rate_per_s(const ConfigNode& n) {
  return read_quantity(n, "a rate (0.05/h, 1.2/d)", Sign::NonNegative, units::parse_rate_per_s);
}

double read_usd_per_kwh(const ConfigNode& n) {
  return read_quantity(n, "an energy price ($0.12/kWh)", Sign::NonNegative, units::parse_usd_per_kwh);
}

double read_fraction_per_year(const ConfigNode& n) {
  return read_quantity(n, "a yearly fraction (8%/y)", Sign::NonNegative, units::parse_fraction_per_year);
}

double read_usd(const ConfigNode& n) {
  return read_quantity(n, "an amount of USD ($200,000)", Sign::NonNegative, units::parse_usd);
}

}  // namespace gcsim::config

// ---------------------------------------------------------------------------------------
namespace gcsim::config {

namespace {

// A value at `min` of a bound it must exceed.
[[noreturn]] void fail_below(const ConfigNode& n, const KeySpec& spec, const std::string& standard) {
  n.fail(ErrorCode::OutOfRange, spec.below_min.empty() ? standard : std::string(spec.below_min));
}

}  // namespace

std::int64_t read_key_int(const ConfigNode& n, const KeySpec& spec) {
  GCSIM_CHECK(spec.kind == KeyKind::Integer, "key '" + std::string(spec.name) + "' is not an integer");
  constexpr std::int64_t MAX = std::numeric_limits<std::int64_t>::max();
  const std::int64_t lo = static_cast<std::int64_t>(spec.min);
  const std::int64_t hi = spec.max >= 9.2e18 ? MAX : static_cast<std::int64_t>(spec.max);
  GCSIM_CHECK(!spec.above_min, "key '" + std::string(spec.name) + "': an integer's bounds are inclusive");
  return read_int(n, lo, hi);
}

double read_key_number(const ConfigNode& n, const KeySpec& spec) {
  double v = 0;
  switch (spec.kind) {
    case KeyKind::Number: v = read_double(n, spec.min, spec.max); break;
    case KeyKind::Fraction:
    case KeyKind::Percent:
      v = read_fraction(n);
      if (v < spec.min || v > spec.max || (spec.above_min && !(v > spec.min)))
        fail_below(n, spec, "expected a fraction in " + range_text(spec) + ", got '" + n.scalar() + "'");
      return v;
    case KeyKind::Bytes: return read_bytes(n);
    case KeyKind::Bandwidth: return read_bytes_per_s(n);
    case KeyKind::Usd: v = read_usd(n); break;
    case KeyKind::Rate: v = read_rate_per_s(n); break;
    case KeyKind::Power: v = read_watts(n); break;
    case KeyKind::UsdPerHour: v = read_usd_per_hour(n); break;
    case KeyKind::UsdPerKwh: v = read_usd_per_kwh(n); break;
    default: GCSIM_CHECK(false, "key '" + std::string(spec.name) + "' is not a number");
  }
  // A plain number's bounds were applied by read_double; a quantity's are applied here.
  if (spec.kind != KeyKind::Number && (v < spec.min || v > spec.max)) {
    const bool reason = v > spec.max && !spec.above_max.empty();
    n.fail(ErrorCode::OutOfRange, "'" + n.scalar() + "' is out of range: " +
                                      (reason ? std::string(spec.above_max) : "must be " + range_text(spec)));
  }
  if (spec.above_min && !(v > spec.min))
    fail_below(n, spec, std::string(spec.name) + " must be " + range_text(spec));
  return v;
}

sim::SimTime read_key_duration(const ConfigNode& n, const KeySpec& spec) {
  GCSIM_CHECK(spec.kind == KeyKind::Duration, "key '" + std::string(spec.name) + "' is not a duration");
  return read_duration(n, sim::SimTime::from_ns(static_cast<std::int64_t>(spec.min)));
}

bool read_key_bool(const ConfigNode& n, const KeySpec& spec) {
  GCSIM_CHECK(spec.kind == KeyKind::Bool, "key '" + std::string(spec.name) + "' is not a bool");
  return read_bool(n);
}

}  // namespace gcsim::config
