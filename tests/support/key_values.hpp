// Values just outside a typed key's bounds (sim/config/key_table.hpp), as a scenario writes
// them: for the tests that check each reader enforces its keys' bounds from the spec.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/config/key_table.hpp"

namespace gcsim::test {

// None for a bool, or for a duration that may be zero (a negative duration is refused by
// the parser itself); for a quantity, a value below its least (a negative one, which its
// reader refuses as out of range) and one above its most when it has one.
inline std::vector<std::string> outside_values(const config::KeySpec& k) {
  using config::KeyKind;
  const auto num = [](double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, v == std::floor(v) && std::fabs(v) < 1e15 ? "%.0f" : "%g", v);
    return std::string(buf);
  };
  std::vector<std::string> out;
  switch (k.kind) {
    case KeyKind::Integer:
      out.push_back(num(k.min - 1));
      if (!std::isinf(k.max) && k.max < 2147483647.0) out.push_back(num(k.max + 1));
      break;
    case KeyKind::Number:
    case KeyKind::Fraction:
    case KeyKind::Percent:
      out.push_back(num(k.above_min ? k.min : k.min - 1));
      if (!std::isinf(k.max)) out.push_back(num(k.max == 1 ? 1.5 : k.max * 2));
      break;
    case KeyKind::Usd: out.push_back(k.above_min ? "0" : "-1"); break;
    case KeyKind::Bytes: out.push_back("0B"); break;
    case KeyKind::Bandwidth: out.push_back("0Gbps"); break;
    case KeyKind::Rate:
      out.push_back(k.above_min ? num(k.min * 3600) + "/h" : "-1/h");
      if (!std::isinf(k.max)) out.push_back(num(k.max * 3600 * 2) + "/h");
      break;
    case KeyKind::Power: out.push_back("-1W"); break;
    case KeyKind::UsdPerHour: out.push_back("-1/h"); break;
    case KeyKind::UsdPerKwh: out.push_back("-1/kWh"); break;
    case KeyKind::Duration:
      if (k.min == 1) out.push_back("0s");
      else if (k.min > 1) out.push_back(config::format_key_duration(k.min / 2));
      break;
    default: break;
  }
  return out;
}

}  // namespace gcsim::test
