// The text forms of typed keys' ranges and defaults (see key_table.hpp).
#include "sim/config/key_table.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace gcsim::config {

namespace {

// A number as a person writes it: whole numbers in full (1048576), others shortest (%g).
std::string number_text(double v) {
  char buf[64];
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string percent_text(double fraction) { return number_text(fraction * 100) + "%"; }

// Events per second as events per hour ("60/h"), the unit the reference writes rates in;
// a product that misses a whole number by rounding alone is written whole.
std::string per_hour_text(double per_s) {
  if (per_s == 0) return "0";
  double h = per_s * 3600;
  if (std::fabs(h - std::round(h)) <= 1e-9 * std::fmax(1.0, std::fabs(h))) h = std::round(h);
  return number_text(h) + "/h";
}

// Bytes per second in the largest bit rate that writes it exactly ("100Gbps"), else B/s.
std::string bandwidth_text(double bytes_per_s) {
  struct Unit {
    double bits;
    const char* suffix;
  };
  static constexpr Unit UNITS[] = {{1e12, "Tbps"}, {1e9, "Gbps"}, {1e6, "Mbps"}, {1e3, "kbps"}, {1, "bps"}};
  const double bits = bytes_per_s * 8;
  if (bits > 0)
    for (const Unit& u : UNITS)
      if (std::fmod(bits, u.bits) == 0) return number_text(bits / u.bits) + u.suffix;
  return number_text(bytes_per_s) + "B/s";
}

std::string bound_text(const KeySpec& k, double v) {
  switch (k.kind) {
    case KeyKind::Percent: return percent_text(v);
    case KeyKind::Duration: return format_key_duration(v);
    case KeyKind::Rate: return per_hour_text(v);
    case KeyKind::Bandwidth: return bandwidth_text(v);
    default: return number_text(v);
  }
}

// "min..max", ">= min", "> min" or "(min, max]".
std::string bounds_text(const KeySpec& k) {
  // An integer's limit of representation (an int's 2^31 - 1) is no bound a person sets.
  const bool upper = !std::isinf(k.max) && !(k.kind == KeyKind::Integer && k.max >= 2147483647.0);
  if (k.above_min) return upper ? "(" + bound_text(k, k.min) + ", " + bound_text(k, k.max) + "]" : "> " + bound_text(k, k.min);
  return upper ? bound_text(k, k.min) + ".." + bound_text(k, k.max) : ">= " + bound_text(k, k.min);
}

}  // namespace

std::string format_key_duration(double ns) {
  struct Unit {
    double ns;
    const char* suffix;
  };
  static constexpr Unit UNITS[] = {{86400e9, "d"}, {3600e9, "h"}, {60e9, "m"}, {1e9, "s"},
                                   {1e6, "ms"},    {1e3, "us"},   {1, "ns"}};
  if (ns == 0) return "0s";
  for (const Unit& u : UNITS)
    if (std::fmod(ns, u.ns) == 0) return number_text(ns / u.ns) + u.suffix;
  return number_text(ns) + "ns";
}

std::string default_text(const KeySpec& k) {
  if (!k.typed() || !k.has_default) return std::string(k.default_value);
  const double v = k.default_number;
  switch (k.kind) {
    case KeyKind::Bool: return v != 0 ? "`true`" : "`false`";
    case KeyKind::Percent: return "`" + percent_text(v) + "`";
    case KeyKind::Duration: return "`" + format_key_duration(v) + "`";
    case KeyKind::Rate: return "`" + per_hour_text(v) + "`";
    case KeyKind::Bandwidth: return "`" + bandwidth_text(v) + "`";
    default: return "`" + number_text(v) + "`";
  }
}

std::string range_text(const KeySpec& k) {
  std::string typed;
  switch (k.kind) {
    case KeyKind::Untyped: return std::string(k.range);
    case KeyKind::Bool: break;
    case KeyKind::Bytes:
    case KeyKind::Bandwidth: typed = "> 0"; break;
    case KeyKind::Duration:
      typed = k.min <= 0 ? ">= 0" : k.min == 1 ? "> 0" : ">= " + format_key_duration(k.min);
      break;
    default: typed = bounds_text(k); break;
  }
  if (k.range.empty()) return typed;
  return typed.empty() ? std::string(k.range) : typed + "; " + std::string(k.range);
}

}  // namespace gcsim::config
