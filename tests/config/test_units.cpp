// Unit parsing (sim/units.hpp): every family with good inputs, SI results, and each
// rejection branch (matched by UnitError::Kind, not wording).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "sim/units.hpp"

using gcsim::units::UnitError;
namespace u = gcsim::units;

namespace {

template <class F>
UnitError::Kind unit_error_kind(F&& f) {
  try {
    f();
  } catch (const UnitError& e) {
    return e.kind();
  }
  FAIL("no UnitError thrown");
  throw std::logic_error("unreachable");
}

constexpr std::int64_t S = 1'000'000'000;
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

TEST_CASE("parse_number accepts plain decimals only", "[unit]") {
  CHECK(u::parse_number("42") == 42);
  CHECK(u::parse_number("-1.5") == -1.5);
  CHECK(u::parse_number("+3") == 3);
  CHECK(u::parse_number("1e3") == 1000);
  CHECK(u::parse_number(" 7 ") == 7);
  CHECK(u::parse_number(".5") == 0.5);
  CHECK(u::parse_number("5.") == 5);

  using K = UnitError::Kind;
  CHECK(unit_error_kind([] { u::parse_number(""); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_number("   "); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_number("abc"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_number("nan"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_number("inf"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_number("-inf"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_number("1.2.3"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_number("5x"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_number("0x10"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_number("+-5"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_number("1e400"); }) == K::OutOfRange);
  REQUIRE_THROWS_AS(u::parse_number("twelve"), UnitError);
}

TEST_CASE("parse_count takes k/M/G/T suffixes", "[unit]") {
  CHECK(u::parse_count("115.3M") == Approx(115.3e6));
  CHECK(u::parse_count("16k") == 16000);
  CHECK(u::parse_count("16K") == 16000);
  CHECK(u::parse_count("2G") == 2e9);
  CHECK(u::parse_count("1T") == 1e12);
  CHECK(u::parse_count("1e18") == 1e18);
  CHECK(u::parse_count("12") == 12);
  CHECK(unit_error_kind([] { u::parse_count("5x"); }) == UnitError::Kind::BadUnit);
  CHECK(unit_error_kind([] { u::parse_count("5m"); }) == UnitError::Kind::BadUnit);  // milli? mega? refuse
  CHECK(unit_error_kind([] { u::parse_count("k"); }) == UnitError::Kind::NotANumber);
  REQUIRE_THROWS_AS(u::parse_count("1e308T"), UnitError);
}

TEST_CASE("parse_duration_ns: units, fractions, zero, rounding", "[unit]") {
  CHECK(u::parse_duration_ns("30m") == 1800 * S);
  CHECK(u::parse_duration_ns("6h") == 6 * 3600 * S);
  CHECK(u::parse_duration_ns("1.5h") == 5400 * S);
  CHECK(u::parse_duration_ns("1.5d") == 129600 * S);
  CHECK(u::parse_duration_ns("250ms") == 250'000'000);
  CHECK(u::parse_duration_ns("10us") == 10'000);
  CHECK(u::parse_duration_ns("5ns") == 5);
  CHECK(u::parse_duration_ns("100 s") == 100 * S);
  CHECK(u::parse_duration_ns("2min") == 120 * S);
  CHECK(u::parse_duration_ns("3sec") == 3 * S);
  CHECK(u::parse_duration_ns("1hr") == 3600 * S);
  CHECK(u::parse_duration_ns("1d") == 86400 * S);
  CHECK(u::parse_duration_ns("1w") == 7 * 86400 * S);
  CHECK(u::parse_duration_ns("2 hours") == 7200 * S);
  CHECK(u::parse_duration_ns("0") == 0);
  CHECK(u::parse_duration_ns("0s") == 0);
  CHECK(u::parse_duration_ns("-5m") == -300 * S);  // sign is the reader's business
  CHECK(u::parse_duration_ns("300d") == 300LL * 86400 * S);  // exact beyond 2^53
  CHECK(u::parse_duration_ns("1.5ns") == 2);                 // rounded to nearest
  CHECK(u::parse_duration_ns("1e3s") == 1000 * S);

  using K = UnitError::Kind;
  CHECK(unit_error_kind([] { u::parse_duration_ns("6"); }) == K::MissingUnit);
  CHECK(unit_error_kind([] { u::parse_duration_ns("1.5"); }) == K::MissingUnit);
  CHECK(unit_error_kind([] { u::parse_duration_ns("5 parsecs"); }) == K::BadUnit);
  CHECK(unit_error_kind([] { u::parse_duration_ns("6h30"); }) == K::MissingUnit);  // not 6h
  CHECK(unit_error_kind([] { u::parse_duration_ns("6M"); }) == K::BadUnit);  // no months
  CHECK(unit_error_kind([] { u::parse_duration_ns("6H"); }) == K::BadUnit);
  CHECK(unit_error_kind([] { u::parse_duration_ns(""); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_duration_ns("h"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_duration_ns("nan s"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_duration_ns("1e300h"); }) == K::OutOfRange);
  CHECK(unit_error_kind([] { u::parse_duration_ns("1e10d"); }) == K::OutOfRange);
  CHECK(unit_error_kind([] { u::parse_duration_ns("10000000000000d"); }) == K::OutOfRange);
  CHECK(unit_error_kind([] { u::parse_duration_ns("99999999999999999999s"); }) == K::OutOfRange);
  REQUIRE_THROWS_AS(u::parse_duration_ns("6"), UnitError);
}

// Issue 27.23: availability windows read "3d12h" and every other key refused it. One
// parser now reads it for every key: parts largest unit first, each unit once.
TEST_CASE("parse_duration_ns: compound durations, largest unit first", "[unit]") {
  CHECK(u::parse_duration_ns("1h30m") == 5400 * S);
  CHECK(u::parse_duration_ns("3d12h") == (3 * 86400 + 12 * 3600) * S);
  CHECK(u::parse_duration_ns("1d6h30m15s") == (86400 + 6 * 3600 + 30 * 60 + 15) * S);
  CHECK(u::parse_duration_ns("1h 30m") == 5400 * S);
  CHECK(u::parse_duration_ns("2 hours 30 minutes") == 9000 * S);
  CHECK(u::parse_duration_ns("1hr30min") == 5400 * S);
  CHECK(u::parse_duration_ns("1s500ms") == 1'500'000'000);
  CHECK(u::parse_duration_ns("1ms250us") == 1'250'000);
  CHECK(u::parse_duration_ns("1h30.5m") == 5430 * S);  // a fraction in the last part
  CHECK(u::parse_duration_ns("0h30m") == 1800 * S);
  CHECK(u::parse_duration_ns("-1h30m") == -5400 * S);  // the sign is the whole's; the reader refuses it
  CHECK(u::parse_duration_ns("292y1d") == (292LL * 365 + 1) * 86400 * S);  // exact in int64

  using K = UnitError::Kind;
  CHECK(unit_error_kind([] { u::parse_duration_ns("30m1h"); }) == K::BadUnit);  // not largest first
  CHECK(unit_error_kind([] { u::parse_duration_ns("1h1h"); }) == K::BadUnit);   // a unit twice
  CHECK(unit_error_kind([] { u::parse_duration_ns("1h1hr"); }) == K::BadUnit);  // the same unit spelled twice
  CHECK(unit_error_kind([] { u::parse_duration_ns("1h30"); }) == K::MissingUnit);
  CHECK(unit_error_kind([] { u::parse_duration_ns("1 30m"); }) == K::MissingUnit);
  CHECK(unit_error_kind([] { u::parse_duration_ns("1h30x"); }) == K::BadUnit);
  CHECK(unit_error_kind([] { u::parse_duration_ns("1h-30m"); }) == K::BadUnit);  // a sign inside
  CHECK(unit_error_kind([] { u::parse_duration_ns("1h+30m"); }) == K::BadUnit);
  CHECK(unit_error_kind([] { u::parse_duration_ns("1.5h30m"); }) == K::BadUnit);  // fraction not last
  CHECK(unit_error_kind([] { u::parse_duration_ns("1h3e1m"); }) == K::BadUnit);   // no exponent in parts
  CHECK(unit_error_kind([] { u::parse_duration_ns("1h30m,"); }) == K::BadUnit);
  CHECK(unit_error_kind([] { u::parse_duration_ns("292y1y"); }) == K::BadUnit);
  // Overflow: each part in range, the sum beyond 2^63 - 1 ns (about 292.47 years).
  CHECK(unit_error_kind([] { u::parse_duration_ns("292y200d"); }) == K::OutOfRange);
  CHECK(unit_error_kind([] { u::parse_duration_ns("200y100000000000000000h"); }) == K::OutOfRange);
  CHECK(unit_error_kind([] { u::parse_duration_ns("1y1e300s"); }) == K::BadUnit);  // exponent before range
  CHECK(unit_error_kind([] { u::parse_duration_ns("290y9999999999999999999ns"); }) == K::OutOfRange);
  // A rate's period stays a bare unit: "1/h30m" is not "once in 90 minutes".
  CHECK(unit_error_kind([] { u::parse_rate_per_s("1/h30m"); }) == K::BadUnit);
}

TEST_CASE("parse_bytes: decimal and binary prefixes", "[unit]") {
  CHECK(u::parse_bytes("80GiB") == 80 * GiB);
  CHECK(u::parse_bytes("1152GiB") == 1152 * GiB);
  CHECK(u::parse_bytes("1.5TB") == 1.5e12);
  CHECK(u::parse_bytes("100 MB") == 100e6);
  CHECK(u::parse_bytes("1KiB") == 1024);
  CHECK(u::parse_bytes("1kB") == 1000);
  CHECK(u::parse_bytes("512B") == 512);
  CHECK(u::parse_bytes("1PB") == 1e15);
  CHECK(u::parse_bytes("1PiB") == 1024 * 1024 * GiB);
  CHECK(u::parse_bytes("0") == 0);

  using K = UnitError::Kind;
  CHECK(unit_error_kind([] { u::parse_bytes("80"); }) == K::MissingUnit);
  CHECK(unit_error_kind([] { u::parse_bytes("80Gb"); }) == K::BadUnit);  // bits are not a size
  CHECK(unit_error_kind([] { u::parse_bytes("80 GiBs"); }) == K::BadUnit);
  CHECK(unit_error_kind([] { u::parse_bytes("GiB"); }) == K::NotANumber);
  REQUIRE_THROWS_AS(u::parse_bytes("80 parsecs"), UnitError);
}

TEST_CASE("parse_bytes_per_s: bytes and bits per second", "[unit]") {
  CHECK(u::parse_bytes_per_s("100Gbps") == 12.5e9);
  CHECK(u::parse_bytes_per_s("400 Gb/s") == 50e9);
  CHECK(u::parse_bytes_per_s("10GB/s") == 10e9);
  CHECK(u::parse_bytes_per_s("25GiB/s") == 25 * GiB);
  CHECK(u::parse_bytes_per_s("1Tbps") == 125e9);
  CHECK(u::parse_bytes_per_s("800Mbps") == 100e6);
  CHECK(u::parse_bytes_per_s("8bps") == 1);
  CHECK(u::parse_bytes_per_s("1 KiB/s") == 1024);

  using K = UnitError::Kind;
  CHECK(unit_error_kind([] { u::parse_bytes_per_s("100"); }) == K::MissingUnit);
  CHECK(unit_error_kind([] { u::parse_bytes_per_s("100G"); }) == K::BadUnit);
  CHECK(unit_error_kind([] { u::parse_bytes_per_s("100Gbit"); }) == K::BadUnit);
  CHECK(unit_error_kind([] { u::parse_bytes_per_s("fast"); }) == K::NotANumber);
  REQUIRE_THROWS_AS(u::parse_bytes_per_s("100 GiB"), UnitError);
}

TEST_CASE("parse_flop_per_s: prefixes, both spellings, bare numbers", "[unit]") {
  CHECK(u::parse_flop_per_s("19.5TFLOPS") == Approx(19.5e12));
  CHECK(u::parse_flop_per_s("989 TFLOP/s") == Approx(989e12));
  CHECK(u::parse_flop_per_s("1.2PFLOPS") == Approx(1.2e15));
  CHECK(u::parse_flop_per_s("312 TFlops") == Approx(312e12));
  CHECK(u::parse_flop_per_s("500GFLOPS") == Approx(500e9));
  CHECK(u::parse_flop_per_s("8.1e12") == 8.1e12);
  CHECK(u::parse_flop_per_s("100FLOPS") == 100);

  using K = UnitError::Kind;
  CHECK(unit_error_kind([] { u::parse_flop_per_s("19.5T"); }) == K::BadUnit);
  CHECK(unit_error_kind([] { u::parse_flop_per_s("5 TOPS"); }) == K::BadUnit);
  CHECK(unit_error_kind([] { u::parse_flop_per_s("5 XFLOPS"); }) == K::BadUnit);
  CHECK(unit_error_kind([] { u::parse_flop_per_s("TFLOPS"); }) == K::NotANumber);
  REQUIRE_THROWS_AS(u::parse_flop_per_s("lots"), UnitError);
}

TEST_CASE("parse_watts", "[unit]") {
  CHECK(u::parse_watts("700W") == 700);
  CHECK(u::parse_watts("6.5kW") == 6500);
  CHECK(u::parse_watts("1.2 MW") == Approx(1.2e6));
  CHECK(u::parse_watts("0") == 0);
  CHECK(unit_error_kind([] { u::parse_watts("700"); }) == UnitError::Kind::MissingUnit);
  CHECK(unit_error_kind([] { u::parse_watts("700 J"); }) == UnitError::Kind::BadUnit);
  REQUIRE_THROWS_AS(u::parse_watts("W"), UnitError);
}

TEST_CASE("parse_usd: dollar sign, separators, suffixes", "[unit]") {
  CHECK(u::parse_usd("$200,000") == 200000);
  CHECK(u::parse_usd("200000") == 200000);
  CHECK(u::parse_usd("1.2k") == Approx(1200));
  CHECK(u::parse_usd("$1.5M") == Approx(1.5e6));
  CHECK(u::parse_usd("$1,234.56") == Approx(1234.56));
  CHECK(u::parse_usd("$1,000,000") == 1e6);
  CHECK(u::parse_usd("-$5") == -5);
  CHECK(u::parse_usd("$-5") == -5);
  CHECK(u::parse_usd(" $0 ") == 0);

  using K = UnitError::Kind;
  CHECK(unit_error_kind([] { u::parse_usd("$2,00"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_usd("$1,2345"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_usd("1234,567"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_usd(",5"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_usd("$"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_usd(""); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_usd("--5"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_usd("12 euro"); }) == K::BadUnit);
  REQUIRE_THROWS_AS(u::parse_usd("free"), UnitError);
}

TEST_CASE("parse_usd_per_hour: periods are converted to hours", "[unit]") {
  CHECK(u::parse_usd_per_hour("$2.50/h") == 2.5);
  CHECK(u::parse_usd_per_hour("2.50/h") == 2.5);
  CHECK(u::parse_usd_per_hour("$2.50/hr") == 2.5);
  CHECK(u::parse_usd_per_hour("$3/hour") == 3);
  CHECK(u::parse_usd_per_hour("$3 / h") == 3);
  CHECK(u::parse_usd_per_hour("60/d") == 2.5);
  CHECK(u::parse_usd_per_hour("$730/month") == 1);
  CHECK(u::parse_usd_per_hour("$1.2k/month") == Approx(1200.0 / 730));
  CHECK(u::parse_usd_per_hour("$8760/year") == 1);
  CHECK(u::parse_usd_per_hour("$1/min") == 60);
  CHECK(u::parse_usd_per_hour("32.77") == 32.77);  // bare: the key says per hour

  using K = UnitError::Kind;
  CHECK(unit_error_kind([] { u::parse_usd_per_hour("$2/fortnight"); }) == K::BadUnit);
  CHECK(unit_error_kind([] { u::parse_usd_per_hour("$0.12/kWh"); }) == K::BadUnit);
  CHECK(unit_error_kind([] { u::parse_usd_per_hour("/h"); }) == K::NotANumber);
  CHECK(unit_error_kind([] { u::parse_usd_per_hour("$2.50/"); }) == K::BadUnit);
  REQUIRE_THROWS_AS(u::parse_usd_per_hour("cheap"), UnitError);
}

TEST_CASE("parse_fraction: decimals and percentages", "[unit]") {
  CHECK(u::parse_fraction("0.45") == 0.45);
  CHECK(u::parse_fraction("45%") == Approx(0.45));
  CHECK(u::parse_fraction("45 %") == Approx(0.45));
  CHECK(u::parse_fraction("100%") == 1);
  CHECK(u::parse_fraction("1.5") == 1.5);  // range is the reader's business
  CHECK(unit_error_kind([] { u::parse_fraction("45 percent"); }) == UnitError::Kind::BadUnit);
  CHECK(unit_error_kind([] { u::parse_fraction("%"); }) == UnitError::Kind::NotANumber);
  CHECK(unit_error_kind([] { u::parse_fraction("half"); }) == UnitError::Kind::NotANumber);
  REQUIRE_THROWS_AS(u::parse_fraction("45%%"), UnitError);
}

TEST_CASE("parse_rate_per_s, parse_usd_per_kwh, parse_fraction_per_year, years", "[unit]") {
  CHECK(u::parse_rate_per_s("0.05/h") == Approx(0.05 / 3600));
  CHECK(u::parse_rate_per_s("1.2/d") == Approx(1.2 / 86400));
  CHECK(u::parse_rate_per_s("2/w") == Approx(2.0 / 604800));
  CHECK(u::parse_rate_per_s("0/h") == 0);
  CHECK(unit_error_kind([] { u::parse_rate_per_s("0.05"); }) == UnitError::Kind::MissingUnit);
  CHECK(unit_error_kind([] { u::parse_rate_per_s("1/2h"); }) == UnitError::Kind::BadUnit);
  CHECK(unit_error_kind([] { u::parse_rate_per_s("1/fortnight"); }) == UnitError::Kind::BadUnit);
  CHECK(u::parse_usd_per_kwh("$0.12/kWh") == Approx(0.12));
  CHECK(u::parse_usd_per_kwh("120/MWh") == Approx(0.12));
  CHECK(unit_error_kind([] { u::parse_usd_per_kwh("0.12"); }) == UnitError::Kind::MissingUnit);
  CHECK(unit_error_kind([] { u::parse_usd_per_kwh("0.12/kW"); }) == UnitError::Kind::BadUnit);
  CHECK(u::parse_fraction_per_year("8%/y") == Approx(0.08));
  CHECK(u::parse_fraction_per_year("0.5%/mo") == Approx(0.06));
  CHECK(unit_error_kind([] { u::parse_fraction_per_year("8%"); }) == UnitError::Kind::MissingUnit);
  CHECK(unit_error_kind([] { u::parse_fraction_per_year("8%/h"); }) == UnitError::Kind::BadUnit);
  CHECK(u::parse_duration_ns("3y") == std::int64_t{3} * 365 * 86400 * 1'000'000'000);
  CHECK(u::parse_duration_ns("1year") == std::int64_t{365} * 86400 * 1'000'000'000);
}

TEST_CASE("format_duration_s and format_bytes", "[unit]") {
  CHECK(u::format_duration_s(0) == "0s");
  CHECK(u::format_duration_s(1.5) == "1.50s");
  CHECK(u::format_duration_s(0.25) == "250.0ms");
  CHECK(u::format_duration_s(3725) == "1h 2m 5s");
  CHECK(u::format_duration_s(90061) == "1d 1h 1m");
  CHECK(u::format_duration_s(86400) == "1d");
  CHECK(u::format_duration_s(-60) == "-1m");
  CHECK(u::format_bytes(1.5 * GiB) == "1.50 GiB");
  CHECK(u::format_bytes(512) == "512 B");
}

TEST_CASE("format_usd: the one money format, thousands separated, two decimals", "[unit]") {
  CHECK(u::format_usd(94377.6) == "$94,377.60");
  CHECK(u::format_usd(0) == "$0.00");
  CHECK(u::format_usd(-0.0) == "$0.00");
  CHECK(u::format_usd(-0.004) == "$0.00");  // rounds to zero: no "-$0.00"
  CHECK(u::format_usd(-12.5) == "-$12.50");
  CHECK(u::format_usd(-1234.5) == "-$1,234.50");
  CHECK(u::format_usd(0.07) == "$0.07");
  CHECK(u::format_usd(999.999) == "$1,000.00");
  CHECK(u::format_usd(100000) == "$100,000.00");
  CHECK(u::format_usd(1234567.891) == "$1,234,567.89");
  CHECK(u::format_usd(1e12) == "$1,000,000,000,000.00");
  CHECK(u::format_usd(std::nan("")) == "n/a");
  CHECK(u::format_usd(std::numeric_limits<double>::infinity()) == "n/a");
}
