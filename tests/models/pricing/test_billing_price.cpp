// Billing rounding and minimums by hand, markets, price blocks, spot price profiles (inline
// and from a CSV trace) and reservations, and every validation branch of the price parser.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "models/pricing/billing.hpp"
#include "models/pricing/csv.hpp"
#include "models/pricing/price_spec.hpp"
#include "models/pricing/providers.hpp"
#include "sim/config/config_node.hpp"
#include "sim/errors.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::models::BillingRule;
using gcsim::models::Market;
using gcsim::models::PriceSpec;
using gcsim::sim::SimTime;
namespace m = gcsim::models;
namespace sim = gcsim::sim;

namespace {

const std::string FIXTURES = GCSIM_SOURCE_DIR "/tests/fixtures/pricing";

// Parses `price: {...}` (the text after "price: ") on `market` with AWS's default billing,
// for a node of 8 GPUs (prices per node: the per-GPU ones are in test_gpu_hour_prices.cpp).
PriceSpec price(const std::string& block, Market market = Market::OnDemand) {
  const auto doc = gcsim::config::load_yaml_string("price: " + block + "\n", FIXTURES + "/s.yaml");
  gcsim::config::SourceResolver sources;
  return m::parse_price(*doc.root.find("price"), market, m::default_billing("aws"), sources, 8);
}

ConfigError price_error(const std::string& block, Market market = Market::OnDemand) {
  try {
    price(block, market);
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no ConfigError for " << block);
  throw std::logic_error("unreachable");
}

BillingRule billing(const std::string& value) {
  const auto doc = gcsim::config::load_yaml_string("billing: " + value + "\n", "s.yaml");
  return m::parse_billing(*doc.root.find("billing"));
}

}  // namespace

TEST_CASE("billed time rounds up to the granularity, at least the minimum", "[unit][pricing]") {
  const BillingRule aws = m::default_billing("aws");  // per second, 60 s minimum
  CHECK(m::billed_time(aws, sim::seconds(61)) == sim::seconds(61));
  // 61 s at $3.60/h: 61 / 3600 × 3.60 = $0.061.
  CHECK(m::billed_usd(aws, 3.60, sim::seconds(61)) == Approx(0.061));
  CHECK(m::billed_time(aws, sim::seconds(30)) == sim::seconds(60));     // the minimum
  CHECK(m::billed_time(aws, SimTime::from_ns(1'500'000'000)) == sim::seconds(60));
  CHECK(m::billed_time(aws, SimTime::from_ns(61'000'000'001)) == sim::seconds(62));  // 61.000000001 s -> 62 s
  CHECK(m::billed_time(m::per_minute_billing(), sim::seconds(61)) == sim::seconds(120));
  CHECK(m::billed_time(m::per_hour_billing(), sim::seconds(1)) == sim::seconds(3600));
  CHECK(m::billed_time(m::per_hour_billing(), sim::hours(2)) == sim::hours(2));
  // Zero use bills zero, whatever the minimum.
  CHECK(m::billed_time(aws, SimTime::zero()) == SimTime::zero());
  CHECK(m::billed_time(m::default_billing("dgx-cloud"), SimTime::zero()) == SimTime::zero());
  // A monthly lease: one hour bills the month (730 h).
  CHECK(m::billed_time(m::default_billing("dgx-cloud"), sim::hours(1)) == sim::hours(730));
  CHECK(m::billed_time(m::default_billing("dgx-cloud"), sim::hours(731)) == sim::hours(1460));
  // Saturates instead of overflowing.
  CHECK(m::billed_time(m::per_month_billing(), SimTime::max()) == SimTime::max());
}

TEST_CASE("provider billing defaults", "[unit][pricing]") {
  CHECK(m::default_billing("AWS").minimum == sim::seconds(60));
  CHECK(m::default_billing("gcp").granularity == sim::seconds(1));
  CHECK(m::default_billing("gcp").minimum == sim::seconds(60));
  CHECK(m::default_billing("azure").minimum == sim::minutes(5));
  CHECK(m::default_billing("lambda").granularity == sim::minutes(1));
  CHECK(m::default_billing("tencent").granularity == sim::seconds(1));
  CHECK(m::default_billing("dgx-cloud").granularity == sim::hours(730));
  CHECK(m::find_provider("vast") != nullptr);
  CHECK(m::find_provider("acme") == nullptr);
  CHECK(m::default_billing("acme").minimum == SimTime::zero());  // exact proration
  CHECK(m::describe_billing(m::default_billing("aws")) == "per second, 1m minimum");
  CHECK(m::format_billing_compact(m::default_billing("aws")) == "1s/1m");
  CHECK(m::format_billing_compact(m::per_minute_billing()) == "per_minute");
  const BillingRule back = m::parse_billing_text("1s/1m");
  CHECK(back.granularity == sim::seconds(1));
  CHECK(back.minimum == sim::seconds(60));
  CHECK(m::parse_billing_text("per_hour").granularity == sim::hours(1));
  CHECK_THROWS_AS(m::parse_billing_text("per_fortnight"), std::invalid_argument);
  CHECK_THROWS_AS(m::parse_billing_text("0s/1m"), std::invalid_argument);
}

TEST_CASE("billing: values in a scenario", "[unit][pricing]") {
  CHECK(billing("per_second").granularity == sim::seconds(1));
  CHECK(billing("per_month").granularity == sim::hours(730));
  const BillingRule b = billing("{granularity: 1m, minimum: 10m}");
  CHECK(b.granularity == sim::minutes(1));
  CHECK(b.minimum == sim::minutes(10));
  auto code = [](const std::string& v) {
    try {
      billing(v);
    } catch (const ConfigError& e) {
      return e.code();
    }
    FAIL("no error for " << v);
    return ErrorCode::Syntax;
  };
  CHECK(code("per_sec") == ErrorCode::UnknownName);
  CHECK(code("{granularity: 0s}") == ErrorCode::OutOfRange);
  CHECK(code("{granularty: 1m}") == ErrorCode::UnknownKey);
  CHECK(code("{minimum: 1m}") == ErrorCode::MissingKey);
  CHECK(code("{granularity: 1}") == ErrorCode::BadUnit);
  CHECK(code("[per_second]") == ErrorCode::WrongType);
}

TEST_CASE("markets by name", "[unit][pricing]") {
  const auto doc = gcsim::config::load_yaml_string("a: spot\nb: spto\n", "s.yaml");
  CHECK(m::parse_market(*doc.root.find("a")) == Market::Spot);
  const ConfigError e = [&] {
    try {
      m::parse_market(*doc.root.find("b"));
    } catch (const ConfigError& err) {
      return err;
    }
    throw std::logic_error("no error");
  }();
  CHECK(e.code() == ErrorCode::UnknownName);
  CHECK(e.detail().find("did you mean 'spot'") != std::string::npos);
  for (const std::string& n : m::market_names()) CHECK(m::market_name(*m::market_from_name(n)) == n);
}

TEST_CASE("price blocks per market", "[unit][pricing]") {
  SECTION("on demand, with the provider's billing or its own") {
    const PriceSpec p = price("{on_demand_per_hour: 32.77}");
    CHECK(p.on_demand_usd_per_hour == 32.77);
    CHECK(p.billing.minimum == sim::seconds(60));
    CHECK(p.usd_per_hour_at(sim::hours(5)) == 32.77);
    CHECK(price("{on_demand_per_hour: $2.50/h, billing: per_hour}").billing.granularity == sim::hours(1));
    CHECK(price("{on_demand_per_hour: 60/d}").on_demand_usd_per_hour == Approx(2.5));
  }
  SECTION("spot at a constant price: the profile and its integral") {
    const PriceSpec p = price("{spot_per_hour: 0.92, max_per_hour: 1.2}", Market::Spot);
    REQUIRE(p.spot_usd_per_hour);
    CHECK(*p.spot_usd_per_hour == 0.92);
    CHECK(p.spot_profile.constant());
    CHECK(gcsim::models::cost_usd(p.spot_profile, SimTime::zero(), sim::hours(2)) == Approx(1.84));  // 2 h × 0.92
    REQUIRE(p.max_usd_per_hour);
    CHECK(*p.max_usd_per_hour == 1.2);
  }
  SECTION("spot profile from points, repeating weekly") {
    const PriceSpec p =
        price("{spot_profile: {points: [{at: 0h, price: 0.92}, {at: 4h, price: 1.4}], repeat: 7d}}", Market::Spot);
    CHECK_FALSE(p.spot_usd_per_hour);
    CHECK(p.spot_profile.points().size() == 2);
    CHECK(p.spot_profile.period() == sim::hours(168));
    // 0..6 h: 4 h × 0.92 + 2 h × 1.40 = 3.68 + 2.80 = 6.48.
    CHECK(gcsim::models::cost_usd(p.spot_profile, SimTime::zero(), sim::hours(6)) == Approx(6.48));
    CHECK(p.usd_per_hour_at(sim::hours(168 + 1)) == 0.92);  // the second week starts over
    CHECK(p.usd_per_hour_at(sim::hours(168 + 5)) == 1.4);
  }
  SECTION("spot profile from a CSV trace beside the scenario") {
    const PriceSpec p = price("{spot_profile: {file: spot_week.csv, repeat: 7d}}", Market::Spot);
    REQUIRE(p.spot_profile.points().size() == 3);
    CHECK(p.spot_profile.points()[2].at == sim::hours(30));
    CHECK(p.spot_profile.points()[2].value == 0.80);
    // 0..31 h: 4 × 0.92 + 26 × 1.40 + 1 × 0.80 = 3.68 + 36.40 + 0.80 = 40.88.
    CHECK(gcsim::models::cost_usd(p.spot_profile, SimTime::zero(), sim::hours(31)) == Approx(40.88));
  }
  SECTION("reserved: the effective hourly price by hand") {
    // 3y all upfront $262,800: 3 × 8,760 = 26,280 h, so 262,800 / 26,280 = $10/h.
    const PriceSpec all = price("{reserved: {term: 3y, upfront: all, upfront_usd: 262800}}", Market::Reserved);
    REQUIRE(all.reserved);
    CHECK(all.reserved->term_hours() == 26280);
    CHECK(all.reserved_effective_usd_per_hour() == Approx(10.0));
    CHECK(all.usd_per_hour_at(sim::hours(3)) == Approx(10.0));
    // 1y partial: $8,760 upfront (= $1/h over 8,760 h) + $1.50/h.
    const PriceSpec partial =
        price("{reserved: {term: 1y, upfront: partial, upfront_usd: 8760, per_hour: 1.5}}", Market::Reserved);
    CHECK(partial.reserved_effective_usd_per_hour() == Approx(2.5));
    const PriceSpec none = price("{reserved: {term: 1y, per_hour: 13.921}}", Market::Reserved);
    CHECK(none.reserved->upfront == m::Upfront::None);
    CHECK(none.reserved_effective_usd_per_hour() == Approx(13.921));
  }
  SECTION("owned pools take no price, and a null block reads as empty") {
    const auto doc = gcsim::config::load_yaml_string("price:\n", "s.yaml");
    gcsim::config::SourceResolver sources;
    const PriceSpec p = m::parse_price(*doc.root.find("price"), Market::Owned, m::default_billing("aws"), sources, 8);
    CHECK(p.usd_per_hour_at(sim::hours(1)) == 0);
  }
  SECTION("a catalog instance supplies the prices the block leaves out") {
    PriceSpec d;
    d.on_demand_usd_per_hour = 32.7726;
    d.spot_usd_per_hour = 6.7915;
    d.billing = m::per_minute_billing();
    const auto doc = gcsim::config::load_yaml_string("price: {}\n", "s.yaml");
    gcsim::config::SourceResolver sources;
    const PriceSpec p = m::parse_price(*doc.root.find("price"), Market::Spot, m::default_billing("aws"), sources, 8, &d);
    CHECK(p.on_demand_usd_per_hour == 32.7726);
    CHECK(p.usd_per_hour_at(sim::hours(1)) == 6.7915);
    CHECK(p.billing.granularity == sim::minutes(1));
  }
}

TEST_CASE("price block errors name the key", "[unit][pricing]") {
  struct Case {
    const char* block;
    Market market;
    ErrorCode code;
    const char* path;
  };
  const Case cases[] = {
      {"{on_demand_per_hour: 1, spot_price: 2}", Market::OnDemand, ErrorCode::UnknownKey, "price.spot_price"},
      {"{}", Market::OnDemand, ErrorCode::MissingKey, "price.on_demand_per_hour"},
      {"{on_demand_per_hour: -1}", Market::OnDemand, ErrorCode::OutOfRange, "price.on_demand_per_hour"},
      {"{on_demand_per_hour: cheap}", Market::OnDemand, ErrorCode::WrongType, "price.on_demand_per_hour"},
      {"{on_demand_per_hour: 1, spot_per_hour: 0.3}", Market::OnDemand, ErrorCode::Conflict, "price.spot_per_hour"},
      {"{on_demand_per_hour: 1, max_per_hour: 0.3}", Market::OnDemand, ErrorCode::Conflict, "price.max_per_hour"},
      {"{spot_profile: {points: [{at: 0h, price: 1}]}}", Market::Owned, ErrorCode::Conflict, "price.spot_profile"},
      {"{on_demand_per_hour: 3}", Market::Owned, ErrorCode::Conflict, "price.on_demand_per_hour"},
      {"{spot_per_hour: 1, reserved: {term: 1y, per_hour: 1}}", Market::Spot, ErrorCode::Conflict, "price.reserved"},
      {"{spot_per_hour: 1, spot_profile: {points: [{at: 0h, price: 1}]}}", Market::Spot, ErrorCode::Conflict,
       "price.spot_profile"},
      {"{on_demand_per_hour: 3}", Market::Spot, ErrorCode::MissingKey, "price.spot_per_hour"},
      {"{on_demand_per_hour: 3}", Market::Reserved, ErrorCode::MissingKey, "price.reserved"},
      {"{reserved: {term: 1y, upfront: none, upfront_usd: 5, per_hour: 1}}", Market::Reserved, ErrorCode::Conflict,
       "price.reserved.upfront_usd"},
      {"{reserved: {term: 1y, upfront: all}}", Market::Reserved, ErrorCode::MissingKey, "price.reserved.upfront_usd"},
      {"{reserved: {term: 1y, upfront: partial, upfront_usd: 5}}", Market::Reserved, ErrorCode::MissingKey,
       "price.reserved.per_hour"},
      {"{reserved: {term: 1y, upfront: all, upfront_usd: 5, per_hour: 1}}", Market::Reserved, ErrorCode::Conflict,
       "price.reserved.per_hour"},
      {"{reserved: {term: 1y, upfront: some, per_hour: 1}}", Market::Reserved, ErrorCode::UnknownName,
       "price.reserved.upfront"},
      {"{reserved: {term: 0, per_hour: 1}}", Market::Reserved, ErrorCode::OutOfRange, "price.reserved.term"},
      {"{reserved: {per_hour: 1}}", Market::Reserved, ErrorCode::MissingKey, "price.reserved.term"},
      {"{spot_profile: {points: [{at: 1h, price: 1}]}}", Market::Spot, ErrorCode::OutOfRange,
       "price.spot_profile.points[0].at"},
      {"{spot_profile: {points: [{at: 0h, price: 1}, {at: 0h, price: 2}]}}", Market::Spot, ErrorCode::OutOfRange,
       "price.spot_profile.points[1].at"},
      {"{spot_profile: {points: [{at: 0h, price: 1}, {at: 8d, price: 2}], repeat: 7d}}", Market::Spot,
       ErrorCode::OutOfRange, "price.spot_profile.repeat"},
      {"{spot_profile: {points: [{at: 0h, price: 1}], file: spot_week.csv}}", Market::Spot, ErrorCode::Conflict,
       "price.spot_profile.file"},
      {"{spot_profile: {repeat: 7d}}", Market::Spot, ErrorCode::MissingKey, "price.spot_profile.points"},
      {"{spot_profile: {points: []}}", Market::Spot, ErrorCode::WrongType, "price.spot_profile.points"},
      {"{spot_profile: {points: [{at: 0h, prize: 1}]}}", Market::Spot, ErrorCode::UnknownKey,
       "price.spot_profile.points[0].prize"},
      {"{spot_profile: {points: [{at: 0, price: 1}], repeat: 7}}", Market::Spot, ErrorCode::BadUnit,
       "price.spot_profile.repeat"},
      {"{spot_profile: {file: no_such.csv}}", Market::Spot, ErrorCode::FileNotFound, "price.spot_profile.file"},
      {"{on_demand_per_hour: 1, billing: per_fortnight}", Market::OnDemand, ErrorCode::UnknownName, "price.billing"},
  };
  for (const Case& c : cases) {
    INFO(c.block << " on " << m::market_name(c.market));
    const ConfigError e = price_error(c.block, c.market);
    CHECK(e.code() == c.code);
    CHECK(e.key_path() == c.path);
    CHECK(e.mark().file == FIXTURES + "/s.yaml");  // the scenario file, where the price block is
    CHECK(e.mark().line == 1);
  }
}

TEST_CASE("spot price traces: CSV errors name file, line, column and column name", "[unit][pricing]") {
  auto error = [](const std::string& text) {
    std::istringstream in(text);
    try {
      m::read_price_profile_csv(in, "p.csv", SimTime::zero(), 8);
    } catch (const ConfigError& e) {
      return e;
    }
    FAIL("no error for " << text);
    throw std::logic_error("unreachable");
  };
  ConfigError e = error("time,usd_per_hour\n0h,0.9\n2,1.0\n");
  CHECK(e.code() == ErrorCode::BadUnit);
  CHECK(e.mark().file == "p.csv");
  CHECK(e.mark().line == 3);
  CHECK(e.mark().column == 1);
  CHECK(e.key_path() == "time");
  e = error("time,usd_per_hour\n0h,  free\n");
  CHECK(e.code() == ErrorCode::WrongType);
  CHECK(e.mark().column == 6);
  CHECK(e.key_path() == "usd_per_hour");
  CHECK(error("time,price\n0h,1\n").code() == ErrorCode::MissingKey);
  CHECK(error("time,usd_per_hour,x\n0h,1,2\n").code() == ErrorCode::UnknownKey);
  CHECK(error("time,usd_per_hour\n0h,1,2\n").code() == ErrorCode::WrongType);
  CHECK(error("time,usd_per_hour\n1h,1\n").code() == ErrorCode::OutOfRange);
  CHECK(error("time,usd_per_hour\n0h,1\n2h,2\n1h,3\n").mark().line == 4);
  CHECK(error("time,usd_per_hour\n0h,-1\n").code() == ErrorCode::OutOfRange);
  CHECK(error("time,usd_per_hour\n").code() == ErrorCode::EmptyFile);
  CHECK(error("# nothing\n").code() == ErrorCode::EmptyFile);
}

TEST_CASE("the CSV reader: quotes, embedded commas, doubled quotes, newlines, positions", "[unit][pricing]") {
  std::istringstream in("# comment\n\na, \"b,c\" ,\"say \"\"hi\"\"\",\n\"two\nlines\",x\n");
  m::csv::Reader r(in, "t.csv", true);
  m::csv::Row row;
  REQUIRE(r.next(row));
  CHECK(row.line == 3);
  REQUIRE(row.fields.size() == 4);
  CHECK(row.fields[0].text == "a");
  CHECK(row.fields[1].text == "b,c");
  CHECK(row.fields[1].column == 4);
  CHECK(row.fields[2].text == "say \"hi\"");
  CHECK(row.fields[3].text.empty());
  REQUIRE(r.next(row));
  CHECK(row.line == 4);
  REQUIRE(row.fields.size() == 2);
  CHECK(row.fields[0].text == "two\nlines");
  CHECK(row.fields[1].text == "x");
  CHECK_FALSE(r.next(row));
  CHECK(m::csv::escape("a,b") == "\"a,b\"");
  CHECK(m::csv::escape("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(m::csv::escape("plain") == "plain");

  std::istringstream open("a,\"never closed\n");
  m::csv::Reader bad(open, "t.csv", true);
  try {
    bad.next(row);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.code() == ErrorCode::Syntax);
    CHECK(e.mark().line == 1);
    CHECK(e.mark().column == 3);
  }
  std::istringstream trailing("\"a\"b,c\n");
  m::csv::Reader bad2(trailing, "t.csv", true);
  CHECK_THROWS_AS(bad2.next(row), ConfigError);
}

TEST_CASE("billing: the map's keys come from its key table", "[unit][pricing]") {
  // A misspelt key is unknown-key at its own line and column, with did-you-mean from the
  // table. "price: {on_demand_per_hour: 1, billing: {granularity: 1m, minimun: 60s}}":
  // `minimun` starts at column 59 of line 1.
  const ConfigError e = price_error("{on_demand_per_hour: 1, billing: {granularity: 1m, minimun: 60s}}");
  CHECK(e.code() == ErrorCode::UnknownKey);
  CHECK(e.key_path() == "price.billing.minimun");
  CHECK(e.mark().file == FIXTURES + "/s.yaml");
  CHECK(e.mark().line == 1);
  CHECK(e.mark().column == 59);
  CHECK(e.detail().find("did you mean 'minimum'?") != std::string::npos);
  // The table says granularity is required: missing, it is missing-key at once.
  const ConfigError missing = price_error("{on_demand_per_hour: 1, billing: {minimum: 60s}}");
  CHECK(missing.code() == ErrorCode::MissingKey);
  CHECK(missing.key_path() == "price.billing.granularity");
  const gcsim::config::KeySpec* minimum = gcsim::config::find_key(m::BILLING_KEYS, "minimum");
  REQUIRE(minimum != nullptr);
  CHECK(gcsim::config::default_text(*minimum) == "`0s`");
  CHECK(billing("{granularity: 1m}").minimum == SimTime::zero());  // the default the table states
}
