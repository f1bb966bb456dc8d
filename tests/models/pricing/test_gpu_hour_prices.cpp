// Prices per GPU-hour (docs/pricing.md, "Prices per GPU-hour"): a node type's price keys
// take "$4/GPUh", multiplied by the type's GPUs per node; every other price key, and the
// engine's unit parser, refuse it. Node prices are kept per node-hour everywhere inside.
#include <catch2/catch.hpp>

#include <fstream>

#include "models/config/scenario_loader.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

// One node type of 8 GPUs; `pool` is the rest of its flow map (market, price, ...).
std::string eight_gpus(const std::string& pool) {
  return R"(name: gpuh
horizon: 1h
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, )" +
         pool + R"(}
workload:
  jobs:
    - {name: a, gpus: 8, duration: 1h}
)";
}

const models::PriceSpec& price_of(const models::Scenario& s) { return s.cluster.node_types.at(0).price; }

ConfigError error_of(const std::string& yaml) {
  INFO("scenario:\n" << yaml);
  return test::config_error([&] { test::scenario_from_yaml(yaml); });
}

}  // namespace

TEST_CASE("A node price per GPU-hour is multiplied by the GPUs per node", "[model][pricing]") {
  SECTION("on demand, every spelling of the GPU-hour") {
    // $4 per GPU-hour x 8 GPUs = $32 per node-hour.
    for (const char* text : {"$4/GPUh", "4/GPUh", "$4/GPU-h", "$4/GPU-hour", "$4/GPU-hr"}) {
      INFO(text);
      const auto s = test::scenario_from_yaml(eight_gpus(std::string("price: {on_demand_per_hour: \"") + text + "\"}"));
      CHECK(price_of(s).on_demand_usd_per_hour == Approx(32.0).epsilon(1e-15));
    }
  }
  SECTION("any price period after GPU") {
    // $2,920 per GPU-month: a month is 730 h, so $4 per GPU-hour, $32 per node-hour;
    // $96 per GPU-day is $4 per GPU-hour too.
    for (const char* text : {"$2920/GPU-mo", "$96/GPU-d"}) {
      INFO(text);
      const auto s = test::scenario_from_yaml(eight_gpus(std::string("price: {on_demand_per_hour: \"") + text + "\"}"));
      CHECK(price_of(s).on_demand_usd_per_hour == Approx(32.0).epsilon(1e-12));
    }
  }
  SECTION("node-hour prices are unchanged") {
    const auto s = test::scenario_from_yaml(eight_gpus("price: {on_demand_per_hour: $4/h}"));
    CHECK(price_of(s).on_demand_usd_per_hour == 4.0);
  }
  SECTION("spot: constant price, bid and profile points") {
    // spot $1/GPUh -> $8/h; bid $2/GPUh -> $16/h; on demand per node-hour stays $30.
    const auto s = test::scenario_from_yaml(
        eight_gpus("market: spot, price: {on_demand_per_hour: 30, spot_per_hour: $1/GPUh, max_per_hour: $2/GPUh}"));
    CHECK(price_of(s).on_demand_usd_per_hour == 30.0);
    CHECK(*price_of(s).spot_usd_per_hour == Approx(8.0).epsilon(1e-15));
    CHECK(price_of(s).spot_profile.value_at(sim::hours(0)) == Approx(8.0).epsilon(1e-15));
    CHECK(*price_of(s).max_usd_per_hour == Approx(16.0).epsilon(1e-15));
    // Profile points: $0.5/GPUh -> $4/h from 0; a plain $6 (per node-hour) from 1h.
    const auto p = test::scenario_from_yaml(eight_gpus(
        "market: spot, price: {spot_profile: {points: [{at: 0h, price: $0.5/GPUh}, {at: 1h, price: 6}]}}"));
    CHECK(price_of(p).spot_profile.value_at(sim::minutes(30)) == Approx(4.0).epsilon(1e-15));
    CHECK(price_of(p).spot_profile.value_at(sim::minutes(90)) == 6.0);
  }
  SECTION("a spot price trace in CSV") {
    // Row 1 per GPU-hour ($1 x 8 = $8), row 2 per node-hour ($2).
    test::TempDir dir("gpuh-csv");
    const std::string csv = dir.file("prices.csv");
    std::ofstream(csv) << "time,usd_per_hour\n0h,$1/GPUh\n1h,2\n";
    const auto s = test::scenario_from_yaml(
        eight_gpus("market: spot, price: {spot_profile: {file: " + csv + "}}"));
    CHECK(price_of(s).spot_profile.value_at(sim::minutes(30)) == Approx(8.0).epsilon(1e-15));
    CHECK(price_of(s).spot_profile.value_at(sim::minutes(90)) == 2.0);
  }
  SECTION("reserved: the recurring hourly charge") {
    // $3 per GPU-hour x 8 = $24 per node-hour, no upfront: effective $24/h.
    const auto s = test::scenario_from_yaml(eight_gpus(
        "market: reserved, price: {on_demand_per_hour: 30, reserved: {term: 1y, upfront: none, per_hour: $3/GPUh}}"));
    CHECK(price_of(s).reserved->usd_per_hour == Approx(24.0).epsilon(1e-15));
    CHECK(price_of(s).reserved_effective_usd_per_hour() == Approx(24.0).epsilon(1e-15));
  }
}

TEST_CASE("A price per GPU-hour is refused where it cannot be read", "[model][pricing]") {
  const std::string on_demand = "cluster.node_types[0].price.on_demand_per_hour";
  SECTION("no period after GPU") {
    const auto e = error_of(eight_gpus("price: {on_demand_per_hour: $4/GPU}"));
    CHECK(e.code() == ErrorCode::BadUnit);
    CHECK(e.key_path() == on_demand);
    CHECK(e.mark().line == 5);
    CHECK(e.mark().column > 0);
  }
  SECTION("an unknown period after GPU") {
    const auto e = error_of(eight_gpus("price: {on_demand_per_hour: $4/GPU-fortnight}"));
    CHECK(e.code() == ErrorCode::BadUnit);
    CHECK(e.key_path() == on_demand);
  }
  SECTION("not an amount") {
    const auto e = error_of(eight_gpus("price: {on_demand_per_hour: four/GPUh}"));
    CHECK(e.code() == ErrorCode::WrongType);
    CHECK(e.key_path() == on_demand);
  }
  SECTION("a negative price") {
    const auto e = error_of(eight_gpus("price: {on_demand_per_hour: -4/GPUh}"));
    CHECK(e.code() == ErrorCode::OutOfRange);
    CHECK(e.key_path() == on_demand);
  }
  SECTION("an upfront payment is an amount, not a rate") {
    const auto e = error_of(eight_gpus(
        "market: reserved, price: {reserved: {term: 1y, upfront: all, upfront_usd: $4/GPUh}}"));
    CHECK(e.code() == ErrorCode::BadUnit);
    CHECK(e.key_path() == "cluster.node_types[0].price.reserved.upfront_usd");
  }
  SECTION("an owned node's hosting fee") {
    const auto e = error_of(eight_gpus(
        "market: owned, ownership: {capex: 100000, depreciation: 3y, electricity: 0.1/kWh, hosting: 1/GPUh}"));
    CHECK(e.code() == ErrorCode::BadUnit);
    CHECK(e.key_path() == "cluster.node_types[0].ownership.hosting");
  }
  SECTION("a budget limit") {
    std::string yaml = eight_gpus("price: {on_demand_per_hour: 4}");
    yaml.replace(yaml.find("duration: 1h}"), 13, "duration: 1h, team: x}");
    const auto e = error_of(yaml + "budgets:\n  - {team: x, limit: $4/GPUh}\n");
    CHECK(e.code() == ErrorCode::BadUnit);
    CHECK(e.key_path() == "budgets[0].limit");
  }
  SECTION("a malformed row of a price trace names its file, line and column") {
    test::TempDir dir("gpuh-csv-bad");
    const std::string csv = dir.file("prices.csv");
    std::ofstream(csv) << "time,usd_per_hour\n0h,1\n1h,$1/GPU\n";
    const auto e = error_of(eight_gpus("market: spot, price: {spot_profile: {file: " + csv + "}}"));
    CHECK(e.code() == ErrorCode::BadUnit);
    CHECK(e.mark().file == csv);
    CHECK(e.mark().line == 3);
    CHECK(e.mark().column == 4);
    CHECK(e.key_path() == "usd_per_hour");
  }
}

TEST_CASE("The engine's unit parser knows no GPUs", "[unit][units]") {
  // sim/ has no notion of a GPU: a per-GPU price is the model layer's to read.
  for (const char* text : {"$4/GPUh", "$4/GPU-h"}) {
    INFO(text);
    try {
      (void)units::parse_usd_per_hour(text);
      FAIL("accepted " << text);
    } catch (const units::UnitError& e) {
      CHECK(e.kind() == units::UnitError::Kind::BadUnit);
    }
  }
}
