// Parsing of quantities with units into SI values (see sim/units.hpp and docs/units.md).
// Every parser splits "number [spaces] unit", looks the unit up in a small table and
// multiplies; numbers go through std::from_chars so that results never depend on the
// process locale.
#include "sim/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <system_error>
#include <utility>

namespace gcsim::units {

namespace {

using Kind = UnitError::Kind;

struct UnitFactor {
  std::string_view unit;
  double factor;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string quote(std::string_view s) {
  // Long or binary junk would make an unreadable message; the caller names the position.
  constexpr std::size_t MAX_SHOWN = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < s.size() && i < MAX_SHOWN; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    out += (c >= 0x20 && c < 0x7f) || c >= 0x80 ? static_cast<char>(c) : '?';
  }
  if (s.size() > MAX_SHOWN) out += "...";
  return out + "'";
}

// Length of the longest prefix shaped like a decimal number: [+-] digits [. digits]
// [e [+-] digits], with at least one digit in the mantissa. 0 when there is none, so
// "nan", "inf", "0x1p3" and ".e5" never reach from_chars as numbers.
std::size_t number_prefix_length(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && is_digit(s[j])) {
      while (j < s.size() && is_digit(s[j])) ++j;
      i = j;
    }
  }
  return i;
}

// `num` is exactly a number prefix (see above).
double to_double(std::string_view num, std::string_view whole) {
  if (!num.empty() && num.front() == '+') num.remove_prefix(1);  // from_chars refuses '+'
  double value = 0;
  const auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), value);
  if (ec == std::errc::result_out_of_range)
    throw UnitError("number " + quote(whole) + " is too large or too small", Kind::OutOfRange);
  if (ec != std::errc() || ptr != num.data() + num.size())
    throw UnitError(quote(whole) + " is not a number", Kind::NotANumber);
  if (!std::isfinite(value)) throw UnitError("number " + quote(whole) + " is too large", Kind::OutOfRange);
  return value;
}

struct Split {
  std::string_view number;
  std::string_view unit;  // trimmed; "" when absent
};

// "100 Gbps" -> {"100", "Gbps"}. Throws NotANumber when the text does not start with one.
Split split_number(std::string_view text) {
  const std::string_view t = trim(text);
  if (t.empty()) throw UnitError("empty value", Kind::NotANumber);
  const std::size_t n = number_prefix_length(t);
  if (n == 0) throw UnitError(quote(t) + " is not a number", Kind::NotANumber);
  return Split{t.substr(0, n), trim(t.substr(n))};
}

template <std::size_t N>
std::string unit_list(const std::array<UnitFactor, N>& table) {
  std::string out;
  for (const UnitFactor& u : table) {
    if (!out.empty()) out += ", ";
    out += u.unit;
  }
  return out;
}

template <std::size_t N>
const UnitFactor* find_unit(const std::array<UnitFactor, N>& table, std::string_view unit) {
  for (const UnitFactor& u : table)
    if (u.unit == unit) return &u;
  return nullptr;
}

double checked(double value, std::string_view text) {
  if (!std::isfinite(value)) throw UnitError("value " + quote(text) + " is too large", Kind::OutOfRange);
  return value;
}

// `value` (finite) when its magnitude is at most `max`; OutOfRange naming the bound
// (`limit`, as a person writes it) and why there is one.
double bounded(double value, std::string_view text, double max, std::string_view limit) {
  if (std::fabs(value) > max)
    throw UnitError(quote(trim(text)) + " is too large: the limit is " + std::string(limit) +
                        " (larger values have no physical meaning and would make totals overflow)",
                    Kind::OutOfRange);
  return value;
}

// A quantity whose unit is required (a bare zero excepted) and looked up in `table`.
template <std::size_t N>
double parse_with_table(std::string_view text, const std::array<UnitFactor, N>& table,
                        std::string_view family, std::string_view example) {
  const Split s = split_number(text);
  const double value = to_double(s.number, text);
  if (s.unit.empty()) {
    if (value == 0) return 0;
    throw UnitError("missing unit in " + quote(trim(text)) + ": write e.g. " + std::string(s.number) +
                        std::string(example) + " (valid " + std::string(family) + " units: " +
                        unit_list(table) + ")",
                    Kind::MissingUnit);
  }
  const UnitFactor* u = find_unit(table, s.unit);
  if (u == nullptr)
    throw UnitError("unknown " + std::string(family) + " unit " + quote(s.unit) + "; valid units: " + unit_list(table),
                    Kind::BadUnit);
  return checked(value * u->factor, text);
}

constexpr double KILO = 1e3;
constexpr double KIBI = 1024.0;

constexpr std::array<UnitFactor, 12> BYTE_UNITS{{
    {"B", 1},
    {"KB", KILO},
    {"kB", KILO},
    {"MB", KILO * KILO},
    {"GB", KILO * KILO * KILO},
    {"TB", KILO * KILO * KILO * KILO},
    {"PB", KILO * KILO * KILO * KILO * KILO},
    {"KiB", KIBI},
    {"MiB", KIBI * KIBI},
    {"GiB", KIBI * KIBI * KIBI},
    {"TiB", KIBI * KIBI * KIBI * KIBI},
    {"PiB", KIBI * KIBI * KIBI * KIBI * KIBI},
}};

// Bits are written lower-case "b" (bps, Gb/s) and divided by 8.
constexpr std::array<UnitFactor, 28> BANDWIDTH_UNITS{{
    {"B/s", 1},
    {"KB/s", KILO},
    {"kB/s", KILO},
    {"MB/s", KILO * KILO},
    {"GB/s", KILO * KILO * KILO},
    {"TB/s", KILO * KILO * KILO * KILO},
    {"PB/s", KILO * KILO * KILO * KILO * KILO},
    {"KiB/s", KIBI},
    {"MiB/s", KIBI * KIBI},
    {"GiB/s", KIBI * KIBI * KIBI},
    {"TiB/s", KIBI * KIBI * KIBI * KIBI},
    {"PiB/s", KIBI * KIBI * KIBI * KIBI * KIBI},
    {"bps", 1.0 / 8},
    {"Kbps", KILO / 8},
    {"kbps", KILO / 8},
    {"Mbps", KILO * KILO / 8},
    {"Gbps", KILO * KILO * KILO / 8},
    {"Tbps", KILO * KILO * KILO * KILO / 8},
    {"Pbps", KILO * KILO * KILO * KILO * KILO / 8},
    {"b/s", 1.0 / 8},
    {"Kb/s", KILO / 8},
    {"kb/s", KILO / 8},
    {"Mb/s", KILO * KILO / 8},
    {"Gb/s", KILO * KILO * KILO / 8},
    {"Tb/s", KILO * KILO * KILO * KILO / 8},
    {"Pb/s", KILO * KILO * KILO * KILO * KILO / 8},
    {"Gibps", KIBI * KIBI * KIBI / 8},
    {"Gib/s", KIBI * KIBI * KIBI / 8},
}};

constexpr std::array<UnitFactor, 5> POWER_UNITS{{
    {"W", 1},
    {"kW", KILO},
    {"KW", KILO},
    {"MW", KILO * KILO},
    {"GW", KILO * KILO * KILO},
}};

// Count suffixes (also used for USD amounts: "1.2k", "$3M").
constexpr std::array<UnitFactor, 5> COUNT_SUFFIXES{{
    {"k", KILO},
    {"K", KILO},
    {"M", KILO * KILO},
    {"G", KILO * KILO * KILO},
    {"T", KILO * KILO * KILO * KILO},
}};

// SI prefixes for FLOP/s ("19.5TFLOPS"); the empty prefix is plain FLOP/s.
constexpr std::array<UnitFactor, 8> FLOP_PREFIXES{{
    {"", 1},
    {"k", KILO},
    {"K", KILO},
    {"M", KILO * KILO},
    {"G", KILO * KILO * KILO},
    {"T", KILO * KILO * KILO * KILO},
    {"P", KILO * KILO * KILO * KILO * KILO},
    {"E", KILO * KILO * KILO * KILO * KILO * KILO},
}};

// Durations in integer nanoseconds so that "3d" is exact. "m" is minutes; there is no
// month unit, because months differ in length and a silent 30 days would surprise.
struct DurationUnit {
  std::string_view unit;
  std::int64_t ns;
};
constexpr std::int64_t NS_PER_MIN = 60LL * 1'000'000'000LL;
constexpr std::array<DurationUnit, 30> DURATION_UNITS{{
    {"ns", 1},
    {"us", 1'000},
    {"\xC2\xB5s", 1'000},  // µs
    {"ms", 1'000'000},
    {"s", 1'000'000'000},
    {"sec", 1'000'000'000},
    {"secs", 1'000'000'000},
    {"second", 1'000'000'000},
    {"seconds", 1'000'000'000},
    {"m", NS_PER_MIN},
    {"min", NS_PER_MIN},
    {"mins", NS_PER_MIN},
    {"minute", NS_PER_MIN},
    {"minutes", NS_PER_MIN},
    {"h", 60 * NS_PER_MIN},
    {"hr", 60 * NS_PER_MIN},
    {"hrs", 60 * NS_PER_MIN},
    {"hour", 60 * NS_PER_MIN},
    {"hours", 60 * NS_PER_MIN},
    {"d", 24 * 60 * NS_PER_MIN},
    {"day", 24 * 60 * NS_PER_MIN},
    {"days", 24 * 60 * NS_PER_MIN},
    {"w", 7 * 24 * 60 * NS_PER_MIN},
    {"wk", 7 * 24 * 60 * NS_PER_MIN},
    {"week", 7 * 24 * 60 * NS_PER_MIN},
    {"weeks", 7 * 24 * 60 * NS_PER_MIN},
    {"y", 365 * 24 * 60 * NS_PER_MIN},
    {"yr", 365 * 24 * 60 * NS_PER_MIN},
    {"year", 365 * 24 * 60 * NS_PER_MIN},
    {"years", 365 * 24 * 60 * NS_PER_MIN},
}};

const DurationUnit* find_duration_unit(std::string_view unit) {
  for (const DurationUnit& u : DURATION_UNITS)
    if (u.unit == unit) return &u;
  return nullptr;
}

// A duration unit runs until the next digit, space, point or sign: "h" in "1h30m", "µs".
bool is_duration_unit_char(char c) { return !is_digit(c) && !is_space(c) && c != '.' && c != '+' && c != '-'; }

// Price periods, in hours: "$60/d" is 2.5 USD/h. A month is 730 h (8760 / 12), the
// convention of cloud price sheets. There is no GPU-hour here: the engine knows no GPUs,
// and a price per GPU-hour is per node only once multiplied by the node's GPUs, which the
// model layer does where it reads node prices (models/pricing/price_spec.cpp).
constexpr std::array<UnitFactor, 17> PRICE_PERIODS_H{{
    {"s", 1.0 / 3600},
    {"sec", 1.0 / 3600},
    {"min", 1.0 / 60},
    {"h", 1},
    {"hr", 1},
    {"hour", 1},
    {"d", 24},
    {"day", 24},
    {"w", 168},
    {"wk", 168},
    {"week", 168},
    {"mo", HOURS_PER_MONTH},
    {"mon", HOURS_PER_MONTH},
    {"month", HOURS_PER_MONTH},
    {"y", 8760},
    {"yr", 8760},
    {"year", 8760},
}};

// A dollar amount: [-]$?[-]digits with optional thousands separators, fraction, exponent,
// then an optional count suffix. Separators must group by three ("$2,00" is a typo).
double parse_usd_impl(std::string_view text) {
  std::string_view t = trim(text);
  if (t.empty()) throw UnitError("empty value", Kind::NotANumber);
  bool negative = false;
  if (t.front() == '-') negative = true, t.remove_prefix(1);
  if (!t.empty() && t.front() == '$') t.remove_prefix(1);
  if (!negative && !t.empty() && t.front() == '-') negative = true, t.remove_prefix(1);
  // Integer part with separators.
  std::string digits;
  std::size_t i = 0;
  std::size_t group = 0;
  bool saw_comma = false;
  while (i < t.size() && (is_digit(t[i]) || t[i] == ',')) {
    if (t[i] == ',') {
      if (digits.empty() || (saw_comma && group != 3) || (!saw_comma && group > 3))
        throw UnitError("misplaced thousands separator in " + quote(text), Kind::NotANumber);
      saw_comma = true;
      group = 0;
    } else {
      digits += t[i];
      ++group;
    }
    ++i;
  }
  if (saw_comma && group != 3)
    throw UnitError("misplaced thousands separator in " + quote(text), Kind::NotANumber);
  const std::string rest = digits + std::string(t.substr(i));
  const std::size_t n = number_prefix_length(rest);
  if (n == 0 || (n > 0 && (rest[0] == '+' || rest[0] == '-')))
    throw UnitError(quote(trim(text)) + " is not an amount of USD", Kind::NotANumber);
  const std::string_view num(rest.data(), n);
  double value = to_double(num, text);
  const std::string_view suffix = trim(std::string_view(rest).substr(n));
  if (!suffix.empty()) {
    const UnitFactor* u = find_unit(COUNT_SUFFIXES, suffix);
    if (u == nullptr)
      throw UnitError("unknown suffix " + quote(suffix) + " in an amount of USD; write e.g. $200,000 or 1.2k (suffixes: " +
                          unit_list(COUNT_SUFFIXES) + ")",
                      Kind::BadUnit);
    value *= u->factor;
  }
  return checked(negative ? -value : value, text);
}

std::string format_fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

}  // namespace

double parse_number(std::string_view text) {
  const Split s = split_number(text);
  if (!s.unit.empty()) throw UnitError(quote(trim(text)) + " is not a plain number", Kind::NotANumber);
  return to_double(s.number, text);
}

double parse_count(std::string_view text) {
  const Split s = split_number(text);
  const double value = to_double(s.number, text);
  if (s.unit.empty()) return value;
  const UnitFactor* u = find_unit(COUNT_SUFFIXES, s.unit);
  if (u == nullptr)
    throw UnitError("unknown count suffix " + quote(s.unit) + "; valid suffixes: " + unit_list(COUNT_SUFFIXES),
                    Kind::BadUnit);
  return checked(value * u->factor, text);
}

std::int64_t parse_duration_ns(std::string_view text) {
  const std::string_view t = trim(text);
  if (t.empty()) throw UnitError("empty value", Kind::NotANumber);
  const auto too_long = [&] {
    return UnitError("duration " + quote(t) + " is too long (the limit is about 292 years)", Kind::OutOfRange);
  };
  // A sign applies to the whole duration ("-1h30m" is -5400 s); parts carry none.
  std::string_view rest = t;
  const bool negative = rest.front() == '-';
  if (rest.front() == '+' || rest.front() == '-') rest.remove_prefix(1);
  std::int64_t total = 0;
  const DurationUnit* previous = nullptr;
  std::string_view previous_text;  // the parts read so far, for messages
  while (true) {
    const std::size_t n = rest.empty() || rest.front() == '+' || rest.front() == '-' ? 0 : number_prefix_length(rest);
    if (n == 0) {
      if (previous == nullptr) throw UnitError(quote(t) + " is not a number", Kind::NotANumber);
      throw UnitError("unexpected " + quote(rest) + " after " + quote(previous_text) + " in " + quote(t) +
                          ": a duration is a number and a unit, or parts such as 1h30m",
                      Kind::BadUnit);
    }
    const std::string_view number = rest.substr(0, n);
    std::size_t i = n;
    while (i < rest.size() && is_space(rest[i])) ++i;
    std::size_t j = i;
    while (j < rest.size() && is_duration_unit_char(rest[j])) ++j;
    const std::string_view unit = rest.substr(i, j - i);
    const std::string_view part = trim(rest.substr(0, j));
    rest = trim(rest.substr(j));
    const double value = to_double(number, t);
    if (unit.empty()) {
      if (previous == nullptr && rest.empty()) {
        if (value == 0) return 0;
        throw UnitError("missing unit in " + quote(t) + ": write e.g. " + std::string(number) + "s, " +
                            std::string(number) + "m, " + std::string(number) + "h or " + std::string(number) + "d",
                        Kind::MissingUnit);
      }
      throw UnitError("missing unit after " + quote(number) + " in " + quote(t) +
                          ": each part of a compound duration has its unit (write e.g. 1h30m)",
                      Kind::MissingUnit);
    }
    const DurationUnit* u = find_duration_unit(unit);
    if (u == nullptr) {
      std::string valid;
      for (const DurationUnit& d : DURATION_UNITS) {
        // The short forms are enough for the message; the long ones are in docs/units.md.
        if (d.unit == "ns" || d.unit == "us" || d.unit == "ms" || d.unit == "s" || d.unit == "m" ||
            d.unit == "min" || d.unit == "h" || d.unit == "d" || d.unit == "w" || d.unit == "y")
          valid += (valid.empty() ? "" : ", ") + std::string(d.unit);
      }
      throw UnitError("unknown duration unit " + quote(unit) + "; valid units: " + valid + " (m is minutes)",
                      Kind::BadUnit);
    }
    const bool compound = previous != nullptr || !rest.empty();
    const bool integer = number.find_first_of(".eE") == std::string_view::npos;
    if (compound) {
      // Largest unit first, each once: "30m1h" and "1h1h" are typos more often than sums.
      if (previous != nullptr && u->ns == previous->ns)
        throw UnitError("the unit " + quote(unit) + " appears twice in " + quote(t) +
                            ": a compound duration names each unit once, largest first (1h30m)",
                        Kind::BadUnit);
      if (previous != nullptr && u->ns > previous->ns)
        throw UnitError("the units of " + quote(t) + " must go from largest to smallest (write e.g. 1h30m, not 30m1h)",
                        Kind::BadUnit);
      // A fraction only where nothing smaller follows ("1h30.5m"); "1.5h30m" says one thing twice.
      if (number.find_first_of("eE") != std::string_view::npos || (!integer && !rest.empty()))
        throw UnitError("part " + quote(part) + " of " + quote(t) +
                            ": in a compound duration only the last part may have a fraction, and none an exponent",
                        Kind::BadUnit);
    }
    std::int64_t ns = 0;
    if (integer) {
      // Integers stay exact in int64 ("300d" is 2.592e16 ns, beyond double's 2^53).
      std::int64_t count = 0;
      const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), count);
      if (ec != std::errc() || ptr != number.data() + number.size() || __builtin_mul_overflow(count, u->ns, &ns))
        throw too_long();
    } else {
      const double scaled = std::round(value * static_cast<double>(u->ns));
      // 2^63 is exactly representable; anything at or beyond it does not fit.
      if (!(scaled < 9223372036854775808.0)) throw too_long();
      ns = static_cast<std::int64_t>(scaled);
    }
    if (__builtin_add_overflow(total, ns, &total)) throw too_long();
    previous = u;
    previous_text = t.substr(0, static_cast<std::size_t>(part.data() + part.size() - t.data()));
    if (rest.empty()) return negative ? -total : total;
  }
}

double parse_bytes(std::string_view text) {
  return bounded(parse_with_table(text, BYTE_UNITS, "size", "GiB"), text, MAX_BYTES, "1e18 B (1 EB)");
}

double parse_bytes_per_s(std::string_view text) {
  return bounded(parse_with_table(text, BANDWIDTH_UNITS, "bandwidth", "Gbps"), text, MAX_BYTES_PER_S,
                 "1e15 B/s (1 PB/s)");
}

double parse_watts(std::string_view text) {
  return bounded(parse_with_table(text, POWER_UNITS, "power", "W"), text, MAX_WATTS, "1e9 W (1 GW)");
}

double parse_flop_per_s(std::string_view text) {
  constexpr std::string_view LIMIT = "1e18 FLOP/s (1 EFLOP/s)";
  const Split s = split_number(text);
  const double value = to_double(s.number, text);
  if (s.unit.empty()) return bounded(value, text, MAX_FLOP_PER_S, LIMIT);  // bare numbers are FLOP/s: "8.1e12"
  // Prefix + "FLOPS" or "FLOP/s"; the base is case-insensitive ("TFlops" is common).
  auto base_len = [](std::string_view u) -> std::size_t {
    for (std::string_view base : {std::string_view("FLOPS"), std::string_view("FLOP/s")}) {
      if (u.size() < base.size()) continue;
      const std::string_view tail = u.substr(u.size() - base.size());
      bool same = true;
      for (std::size_t i = 0; i < base.size(); ++i) {
        const char a = tail[i] >= 'a' && tail[i] <= 'z' ? static_cast<char>(tail[i] - 'a' + 'A') : tail[i];
        const char b = base[i] >= 'a' && base[i] <= 'z' ? static_cast<char>(base[i] - 'a' + 'A') : base[i];
        if (a != b) same = false;
      }
      if (same) return base.size();
    }
    return 0;
  };
  const std::size_t n = base_len(s.unit);
  const UnitFactor* prefix = n == 0 ? nullptr : find_unit(FLOP_PREFIXES, s.unit.substr(0, s.unit.size() - n));
  if (prefix == nullptr)
    throw UnitError("unknown compute-rate unit " + quote(s.unit) +
                        "; write e.g. 19.5TFLOPS or 989 TFLOP/s (prefixes k, M, G, T, P, E)",
                    Kind::BadUnit);
  return bounded(checked(value * prefix->factor, text), text, MAX_FLOP_PER_S, LIMIT);
}

double parse_usd(std::string_view text) { return bounded(parse_usd_impl(text), text, MAX_USD, "$1e12"); }

double parse_usd_per_hour(std::string_view text) {
  const std::string_view t = trim(text);
  const std::size_t slash = t.rfind('/');
  constexpr std::string_view LIMIT = "$1e6 per hour";
  if (slash == std::string_view::npos) return bounded(parse_usd_impl(t), text, MAX_USD_PER_HOUR, LIMIT);  // bare: USD per hour
  const std::string_view period = trim(t.substr(slash + 1));
  const UnitFactor* p = find_unit(PRICE_PERIODS_H, period);
  if (p == nullptr)
    throw UnitError("unknown price period " + quote(period) + "; write e.g. $2.50/h (periods: " +
                        unit_list(PRICE_PERIODS_H) + ")",
                    Kind::BadUnit);
  return bounded(checked(parse_usd_impl(t.substr(0, slash)) / p->factor, text), text, MAX_USD_PER_HOUR, LIMIT);
}

double parse_fraction(std::string_view text) {
  const std::string_view t = trim(text);
  if (!t.empty() && t.back() == '%') return parse_number(t.substr(0, t.size() - 1)) / 100.0;
  const Split s = split_number(t);
  if (!s.unit.empty())
    throw UnitError("unknown suffix " + quote(s.unit) + " in a fraction; write e.g. 0.45 or 45%", Kind::BadUnit);
  return to_double(s.number, text);
}

namespace {
// "amount/unit" split at the last '/', both parts trimmed; MissingUnit (with `missing`, a
// hint such as "missing period ...: write e.g. 8%/y") when there is no '/'.
struct PerUnit {
  std::string_view amount;
  std::string_view unit;
};
PerUnit split_per_unit(std::string_view text, const std::string& missing_what, const char* example) {
  const std::string_view t = trim(text);
  const std::size_t slash = t.rfind('/');
  if (slash == std::string_view::npos)
    throw UnitError("missing " + missing_what + " in " + quote(t) + ": write e.g. " + example, Kind::MissingUnit);
  return {trim(t.substr(0, slash)), trim(t.substr(slash + 1))};
}
}  // namespace

double parse_rate_per_s(std::string_view text) {
  const std::string_view t = trim(text);
  const PerUnit parts = split_per_unit(t, "period", "0.05/h, 1/d or 2/w");
  const double count = parse_number(parts.amount);
  std::string period(parts.unit);
  // "0.05/h" means per one hour; "1/2h" would be ambiguous to a reader, so only a bare unit.
  if (period.empty() || period.find_first_of("0123456789. \t") != std::string::npos)
    throw UnitError("the period of " + quote(t) + " must be a bare unit: write e.g. 0.05/h or 1.2/d", Kind::BadUnit);
  const std::int64_t ns = parse_duration_ns("1" + period);
  return checked(count / (static_cast<double>(ns) * 1e-9), text);
}

double parse_usd_per_kwh(std::string_view text) {
  const PerUnit parts = split_per_unit(text, "energy unit", "$0.12/kWh");
  const std::string_view unit = parts.unit;
  double kwh = 0;
  if (unit == "kWh") kwh = 1;
  else if (unit == "MWh") kwh = 1000;
  else if (unit == "Wh") kwh = 0.001;
  else throw UnitError("unknown energy unit " + quote(unit) + "; write e.g. $0.12/kWh (units: Wh, kWh, MWh)", Kind::BadUnit);
  return bounded(checked(parse_usd_impl(parts.amount) / kwh, text), text, MAX_USD_PER_KWH, "$1,000 per kWh");
}

double parse_fraction_per_year(std::string_view text) {
  const PerUnit parts = split_per_unit(text, "period", "8%/y");
  const std::string_view period = parts.unit;
  const UnitFactor* p = find_unit(PRICE_PERIODS_H, period);
  if (p == nullptr || p->factor < 24)
    throw UnitError("unknown period " + quote(period) + "; write e.g. 8%/y or 0.7%/mo (a day or longer)", Kind::BadUnit);
  return bounded(checked(parse_fraction(parts.amount) * 8760.0 / p->factor, text), text, MAX_FRACTION_PER_YEAR,
                 "10,000% a year");
}

std::string format_duration_s(double seconds) {
  if (std::isnan(seconds)) return "nan";
  if (std::isinf(seconds)) return seconds > 0 ? "never" : "-never";
  if (seconds < 0) return "-" + format_duration_s(-seconds);
  if (seconds == 0) return "0s";
  if (seconds < 1e-6) return format_fixed(seconds * 1e9, 0) + "ns";
  if (seconds < 1e-3) return format_fixed(seconds * 1e6, 1) + "us";
  if (seconds < 1) return format_fixed(seconds * 1e3, 1) + "ms";
  if (seconds < 60) return format_fixed(seconds, 2) + "s";
  // Beyond a minute, whole components: "2h 5m 10s"; beyond a day the seconds are noise.
  const bool days = seconds >= 86400;
  const double step = days ? 60 : 1;
  const double total = std::round(seconds / step) * step;
  if (total >= 1e15) return format_fixed(total / 86400, 0) + "d";  // beyond any simulated span
  auto whole = static_cast<std::int64_t>(total);
  const std::int64_t d = whole / 86400;
  whole %= 86400;
  const std::int64_t h = whole / 3600;
  whole %= 3600;
  const std::int64_t m = whole / 60;
  const std::int64_t s = whole % 60;
  std::string out;
  auto add = [&out](std::int64_t v, const char* unit) {
    if (v == 0) return;
    if (!out.empty()) out += ' ';
    out += std::to_string(v) + unit;
  };
  add(d, "d");
  add(h, "h");
  add(m, "m");
  if (!days) add(s, "s");
  return out.empty() ? "0s" : out;
}

std::string format_bytes(double bytes) {
  if (!std::isfinite(bytes)) return std::isnan(bytes) ? "nan" : (bytes > 0 ? "inf B" : "-inf B");
  if (bytes < 0) return "-" + format_bytes(-bytes);
  static constexpr std::array<const char*, 6> NAMES{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::size_t k = 0;
  double v = bytes;
  while (v >= 1024 && k + 1 < NAMES.size()) v /= 1024, ++k;
  return k == 0 ? format_fixed(v, 0) + " B" : format_fixed(v, 2) + " " + NAMES[k];
}

std::string shortest_text(double v) {
  char buf[64];  // the longest double, "-2.2250738585072014e-308", is 24 characters
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, ec == std::errc() ? end : buf);
}

std::string format_usd(double usd) {
  if (!std::isfinite(usd)) return "n/a";
  std::string digits = format_fixed(std::fabs(usd), 2);
  const std::size_t dot = digits.find('.');
  for (std::size_t i = dot; i > 3; i -= 3) digits.insert(i - 3, ",");
  const bool negative = usd < 0 && digits.find_first_not_of("0.,") != std::string::npos;
  return (negative ? "-$" : "$") + digits;
}

}  // namespace gcsim::units
