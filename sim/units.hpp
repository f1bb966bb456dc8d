// Parsing of quantities written as people write them: 30m, 80GiB, 100Gbps, $2.50/h.
// Everything is converted to SI: seconds, bytes, bytes per second, USD, watts. These
// functions know nothing of files; they throw UnitError with a short reason that the
// config layer wraps into a ConfigError at the offending node.
//
// Conventions (documented in docs/units.md):
//   durations  ns us ms s m h d w y    ("m" is minutes; months are never implied; y = 365 d)
//   bytes      B KB MB GB TB PB (powers of 1000), KiB MiB GiB TiB PiB (powers of 1024)
//   bandwidth  B/s KB/s MB/s GB/s TB/s, KiB/s..TiB/s, bps Kbps Mbps Gbps Tbps (bits)
//   counts     plain numbers, 1e18, and suffixes k M G T (powers of 1000): 115.3M
//   prices     $2.50/h, 2.50/h, $0.12/kWh handled by callers; $ and thousands separators
//   zero       a bare "0" needs no unit in any family (zero is zero in every unit)
// The parsers check syntax and magnitude, not sign or range: "-5m" parses to a negative
// duration and the caller (sim/config/reader.hpp) decides what range is valid. Magnitude:
// a duration beyond about 292 years and a quantity above its MAX_* bound below are
// OutOfRange, so that time sums stay in range and every cost stays finite.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gcsim::units {

// The month of cloud price sheets: 8,760 h / 12. Every "per month" figure (price periods,
// storage per GB-month, monthly billing, monthly interruption chances) uses this one.
inline constexpr std::int64_t HOURS_PER_MONTH = 730;

// The largest magnitude each parser accepts (docs/units.md, "Limits: time and numbers").
// Each lies far above any real part, price or fleet, and low enough that every product
// the accounting forms stays finite: a cost multiplies at most a price (<= 1e12 USD per
// unit), a quantity (<= 1e18 B, or 1e15 B/s, or 1e9 W), a number of nodes (<= 2^26) and a
// time (<= 9.3e9 s), below 1e48 USD, far below a double's 1.8e308.
inline constexpr double MAX_BYTES = 1e18;               // 1 EB: more than any one storage system
inline constexpr double MAX_BYTES_PER_S = 1e15;         // 1 PB/s: 100 times a GPU's HBM
inline constexpr double MAX_FLOP_PER_S = 1e18;          // 1 EFLOP/s for one GPU
inline constexpr double MAX_WATTS = 1e9;                // 1 GW: a large power plant
inline constexpr double MAX_USD = 1e12;                 // $1 trillion
inline constexpr double MAX_USD_PER_HOUR = 1e6;         // $1M per hour (per node or per GPU)
inline constexpr double MAX_USD_PER_KWH = 1e3;          // $1,000 per kWh
inline constexpr double MAX_FRACTION_PER_YEAR = 100;    // 10,000% a year

class UnitError : public std::invalid_argument {
 public:
  // Lets the config layer pick the error code: NotANumber -> wrong-type, MissingUnit and
  // BadUnit -> bad-unit, OutOfRange -> out-of-range.
  enum class Kind {
    NotANumber,   // no number where one was expected ("abc", "nan", "")
    MissingUnit,  // a bare number where a unit is required ("6" for a duration)
    BadUnit,      // an unknown unit or trailing garbage ("5 parsecs", "6h30")
    OutOfRange,   // a number too large to represent ("1e400", "1e12d" in int64 ns)
  };

  explicit UnitError(const std::string& what, Kind kind = Kind::BadUnit)
      : std::invalid_argument(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// A plain decimal number (no unit). Rejects trailing garbage, NaN and infinities.
double parse_number(std::string_view text);
// A count: a number with an optional k/M/G/T suffix.
double parse_count(std::string_view text);
// A duration in nanoseconds (rounded to nearest); a unit is required ("0" alone is allowed).
std::int64_t parse_duration_ns(std::string_view text);
double parse_bytes(std::string_view text);
double parse_bytes_per_s(std::string_view text);
// USD per hour: "$2.50/h", "2.50/h", "$2.50/hr", "60/d" (converted), or a bare number.
double parse_usd_per_hour(std::string_view text);
// USD: "$200,000", "200000", "1.2k".
double parse_usd(std::string_view text);
// A fraction: "0.45" or "45%".
double parse_fraction(std::string_view text);
// Compute rate in FLOP/s: "19.5TFLOPS", "989 TFLOP/s", "1.2PFLOPS", "8.1e12" (bare = FLOP/s).
double parse_flop_per_s(std::string_view text);
// An event rate in events per second: "0.05/h", "1.2/d", "2/w" (a count per one unit of
// time; the period is a bare duration unit).
double parse_rate_per_s(std::string_view text);
// Energy price in USD per kWh: "$0.12/kWh", "0.12/kWh", "120/MWh", "0.00012/Wh".
double parse_usd_per_kwh(std::string_view text);
// A yearly fraction: "8%/y", "0.08/y", "0.7%/mo" (x 12) -> fraction per year.
double parse_fraction_per_year(std::string_view text);
// Power in watts: "6.5kW", "700W".
double parse_watts(std::string_view text);

// Formatting for reports: "1d 2h 3m", "1.50 GiB"...
std::string format_duration_s(double seconds);
std::string format_bytes(double bytes);
// An amount of money, the one way gcsim prints it everywhere (run summary, analyze, compare,
// estimate, messages): "$94,377.60", "-$12.50", "$0.00" (a negative amount that rounds to
// zero too); "n/a" for NaN and infinities. Cents rounded half away from zero by printf,
// commas every three digits, the same whatever the process locale.
std::string format_usd(double usd);
// The shortest text that reads back as exactly `v` (std::to_chars): "0.1", "1e+300",
// "inf", "nan". For machine-read output: JSON, CSV, gnuplot data, scenario values.
std::string shortest_text(double v);

}  // namespace gcsim::units
