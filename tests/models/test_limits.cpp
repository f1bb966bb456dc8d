// The limits of docs/units.md, "Limits: time and numbers": each hostile value is refused at
// load with out-of-range, at its key and line, and each bound itself is accepted. Before
// these bounds a price of 1e307/h ran and printed `$inf` and `-nan`, a checkpoint every
// 1 ns hung the run, and 64 node types of 2^20 nodes of 64 GPUs validated as "0 GPUs".
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "models/config/cluster_spec.hpp"
#include "sim/units.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using gcsim::test::scenario_from_yaml;

namespace {

// One on-demand pool and one job of team t; `pool` and `job` are appended to their maps,
// `tail` to the document.
std::string scenario(const std::string& horizon, const std::string& pool, const std::string& job,
                     const std::string& tail = "") {
  return "name: t\nhorizon: " + horizon +
         "\ncluster:\n  node_types:\n    - {name: p, gpu: A100-40GB-SXM, gpus: 8, count: 2" + pool +
         "}\nworkload:\n  jobs:\n    - {name: a, gpus: 8, duration: 6h, team: t" + job + "}\n" + tail;
}

const std::string PRICE = ", price: {on_demand_per_hour: 32.77}";

ConfigError error_of(const std::string& yaml) {
  INFO("scenario:\n" << yaml);
  return test::config_error([&] { scenario_from_yaml(yaml); });
}

// The error is out-of-range at `line`, under `path`.
void check_out_of_range(const std::string& yaml, int line, const std::string& path) {
  const ConfigError e = error_of(yaml);
  INFO(e.what());
  CHECK(e.code() == ErrorCode::OutOfRange);
  CHECK(e.mark().line == line);
  CHECK(e.key_path() == path);
}

}  // namespace

TEST_CASE("limits: quantities above their bound are refused by the unit parsers", "[unit][limits]") {
  using units::UnitError;
  auto kind = [](auto parse, const char* text) {
    try {
      (void)parse(text);
    } catch (const UnitError& e) {
      return e.kind();
    }
    FAIL("no UnitError for " << text);
    return UnitError::Kind::BadUnit;
  };
  // Each bound is accepted; just above it is out of range.
  CHECK(units::parse_usd_per_hour("$1000000/h") == 1e6);
  CHECK(kind(units::parse_usd_per_hour, "1e307") == UnitError::Kind::OutOfRange);
  CHECK(kind(units::parse_usd_per_hour, "$1000001/h") == UnitError::Kind::OutOfRange);
  CHECK(kind(units::parse_usd_per_hour, "$1e9/mo") == UnitError::Kind::OutOfRange);  // 1.37e6 per hour
  CHECK(units::parse_usd("$1e12") == 1e12);
  CHECK(kind(units::parse_usd, "$2e12") == UnitError::Kind::OutOfRange);
  CHECK(units::parse_watts("1GW") == 1e9);
  CHECK(kind(units::parse_watts, "2GW") == UnitError::Kind::OutOfRange);
  CHECK(units::parse_usd_per_kwh("$1000/kWh") == 1000);
  CHECK(kind(units::parse_usd_per_kwh, "$2/Wh") == UnitError::Kind::OutOfRange);
  CHECK(units::parse_fraction_per_year("10000%/y") == Approx(100));
  CHECK(kind(units::parse_fraction_per_year, "10001%/y") == UnitError::Kind::OutOfRange);
  CHECK(units::parse_bytes("1000PB") == 1e18);
  CHECK(kind(units::parse_bytes, "1e19B") == UnitError::Kind::OutOfRange);
  CHECK(units::parse_bytes_per_s("1PB/s") == 1e15);
  CHECK(kind(units::parse_bytes_per_s, "9Pbps") == UnitError::Kind::OutOfRange);  // 1.125e15 B/s
  CHECK(units::parse_flop_per_s("1EFLOPS") == 1e18);
  CHECK(kind(units::parse_flop_per_s, "2e18") == UnitError::Kind::OutOfRange);
  CHECK(kind(units::parse_flop_per_s, "2EFLOP/s") == UnitError::Kind::OutOfRange);
}

TEST_CASE("limits: prices and costs above their bound are refused at their key", "[unit][limits]") {
  check_out_of_range(scenario("30d", ", price: {on_demand_per_hour: 1e307}", ""), 5,
                     "cluster.node_types[0].price.on_demand_per_hour");
  check_out_of_range(scenario("30d", ", price: {on_demand_per_hour: $2e6/GPUh}", ""), 5,
                     "cluster.node_types[0].price.on_demand_per_hour");
  CHECK_NOTHROW(scenario_from_yaml(scenario("30d", ", price: {on_demand_per_hour: $1e6/GPUh}", "")));
  check_out_of_range(scenario("30d", PRICE, "", "budgets:\n  - {team: t, limit: 1e300}\n"), 10, "budgets[0].limit");
  check_out_of_range(
      scenario("30d", ", market: owned, ownership: {capex: 1e13, depreciation: 3y, electricity: 0.1/kWh}", ""), 5,
      "cluster.node_types[0].ownership.capex");
  check_out_of_range(
      scenario("30d", ", market: owned, ownership: {capex: 1e5, depreciation: 3y, electricity: 1e300/kWh}", ""), 5,
      "cluster.node_types[0].ownership.electricity");
  // An upfront spread over less than an hour: $1e12 over 1 ns would be $3.6e24 per hour.
  check_out_of_range(
      scenario("30d", ", market: reserved, price: {reserved: {term: 59m, upfront: all, upfront_usd: $1e12}}", ""), 5,
      "cluster.node_types[0].price.reserved.term");
  CHECK_NOTHROW(scenario_from_yaml(
      scenario("30d", ", market: reserved, price: {reserved: {term: 1h, upfront: all, upfront_usd: $1e12}}", "")));
}

TEST_CASE("limits: a price trace cell above the bound names its row", "[unit][limits]") {
  test::TempDir dir;
  const std::string csv = dir.file("prices.csv");
  std::ofstream(csv) << "time,usd_per_hour\n0h,1\n1h,1e307\n";
  const std::string yaml = scenario(
      "30d", ", market: spot, price: {max_per_hour: 2, spot_profile: {file: " + csv + "}}, interruptions: {process: price}",
      "");
  const ConfigError e = error_of(yaml);
  INFO(e.what());
  CHECK(e.code() == ErrorCode::OutOfRange);  // was bad-unit: the code of a too-large value
  CHECK(e.mark().file == csv);
  CHECK(e.mark().line == 3);
  CHECK(e.mark().column == 4);
}

TEST_CASE("limits: intervals and rates that would make event storms are refused", "[unit][limits]") {
  const std::string budget = "budgets:\n  - {team: t, limit: 100, ";
  // A budget period of a nanosecond (its floor is an hour).
  check_out_of_range(scenario("30d", PRICE, "", budget + "period: 1ns}\n"), 10, "budgets[0].period");
  check_out_of_range(scenario("30d", PRICE, "", budget + "period: 59m}\n"), 10, "budgets[0].period");
  CHECK_NOTHROW(scenario_from_yaml(scenario("30d", PRICE, "", budget + "check_every: 1s, period: 1h}\n")));

  // A checkpoint every nanosecond hung the run; every second (the optimal interval's
  // floor) over 30 days is 2.6e6 checkpoints.
  check_out_of_range(scenario("30d", PRICE, ", checkpoint: {every: 1ns, write_time: 0s}"), 8,
                     "workload.jobs[0].checkpoint.every");
  CHECK_NOTHROW(scenario_from_yaml(scenario("30d", PRICE, ", checkpoint: {every: 1s, write_time: 0s}")));

  // Spot processes: at most once a minute per node.
  const std::string spot = ", market: spot, price: {spot_per_hour: 1}, interruptions: ";
  check_out_of_range(scenario("30d", spot + "{process: poisson, rate: 1e12/h}", ""), 5,
                     "cluster.node_types[0].interruptions.rate");
  CHECK_NOTHROW(scenario_from_yaml(scenario("30d", spot + "{process: poisson, rate: 60/h}", "")));
  check_out_of_range(scenario("30d", spot + "{process: poisson, rate: 61/h}", ""), 5,
                     "cluster.node_types[0].interruptions.rate");
  check_out_of_range(scenario("30d", spot + "{process: none, correlated: {rate: 2/min, fraction: 50%}}", ""), 5,
                     "cluster.node_types[0].interruptions.correlated.rate");
  check_out_of_range(scenario("30d", spot + "{process: weibull, shape: 0.7, scale: 59s}", ""), 5,
                     "cluster.node_types[0].interruptions.scale");
  check_out_of_range(
      scenario("30d", ", market: spot, price: {spot_per_hour: 1}, availability: {windows: [{every: 1ns, from: 0, to: 1ns, "
                      "available: 0}]}",
               ""),
      5, "cluster.node_types[0].availability.windows[0].every");
  // A spot price step of 1 ns.
  check_out_of_range(
      scenario("30d", ", market: spot, price: {spot_profile: {points: [{at: 0h, price: 1}, {at: 1ns, price: 2}]}}", ""), 5,
      "cluster.node_types[0].price.spot_profile.points[1].at");
  check_out_of_range(
      scenario("30d", ", market: spot, price: {spot_profile: {points: [{at: 0h, price: 1}], repeat: 1ns}}", ""), 5,
      "cluster.node_types[0].price.spot_profile.repeat");
}

TEST_CASE("limits: a spot trace ticking faster than once a second is refused", "[unit][limits]") {
  test::TempDir dir;
  const std::string trace = dir.file("trace.json");
  std::ofstream(trace) << "{\"metadata\": {\"gap_seconds\": 1e-9},\n \"data\": [1, 0, 1]}\n";
  const ConfigError e =
      error_of(scenario("30d", ", market: spot, price: {spot_per_hour: 1}, interruptions: {process: trace, file: " + trace + "}", ""));
  INFO(e.what());
  CHECK(e.code() == ErrorCode::OutOfRange);
  CHECK(e.mark().file == trace);
  CHECK(e.mark().line == 1);
  CHECK(e.key_path() == "metadata.gap_seconds");

  // Ten ticks of 1e9 s are 1e19 s, past the range: the profile's raw nanoseconds would
  // overflow. Nine (9e18 ns) fit.
  std::ofstream(trace) << "{\"metadata\": {\"gap_seconds\": 1e9},\n \"data\": [1, 0, 1, 0, 1, 0, 1, 0, 1, 0]}\n";
  const std::string yaml =
      scenario("30d", ", market: spot, price: {spot_per_hour: 1}, interruptions: {process: trace, file: " + trace + "}", "");
  const ConfigError longer = error_of(yaml);
  INFO(longer.what());
  CHECK(longer.code() == ErrorCode::OutOfRange);
  CHECK(longer.key_path() == "metadata.gap_seconds");
  std::ofstream(trace) << "{\"metadata\": {\"gap_seconds\": 1e9},\n \"data\": [1, 0, 1, 0, 1, 0, 1, 0, 1]}\n";
  CHECK_NOTHROW(scenario_from_yaml(yaml));
}

TEST_CASE("limits: the fixed parts of a job's life must end within the time range after the horizon",
          "[unit][limits]") {
  // SimTime holds 2^63 - 1 ns: 292.47 years of 365 days. A 3-year horizon leaves 289.47.
  check_out_of_range(scenario("3y", PRICE, ", image_pull: 290y"), 8, "workload.jobs[0].image_pull");
  CHECK_NOTHROW(scenario_from_yaml(scenario("3y", PRICE, ", image_pull: 289y")));
  check_out_of_range(scenario("3y", PRICE, ", image_pull: 100y, checkpoint: {every: 1h, write_time: 190y}"), 8,
                     "workload.jobs[0].checkpoint.write_time");
  check_out_of_range(scenario("3y", PRICE, ", checkpoint: {every: 1h, write_time: 1h, restore_time: 290y}"), 8,
                     "workload.jobs[0].checkpoint.restore_time");
  // Times from a tier: 1e18 B at 1 B/s is 1e18 s, "never": refused at the checkpoint.
  check_out_of_range(scenario("3y", PRICE, ", checkpoint: {every: 1h, size: 1000PB, tier: fs}",
                              "storage:\n  tiers:\n    - {name: fs, kind: shared-fs, read: 1B/s}\n"),
                     8, "workload.jobs[0].checkpoint");
  // A generator's jobs too.
  const std::string gen = scenario("3y", PRICE, "") +
                          "  generators:\n    - {name: g, count: 2, arrival: {dist: constant, value: 1h}, gpus: 8, "
                          "duration: 1h, image_pull: 290y}\n";
  check_out_of_range(gen, 10, "workload.generators[0].image_pull");
}

TEST_CASE("limits: GPU counts are summed in 64 bits and a cluster holds at most 2^31 - 1 GPUs", "[unit][limits]") {
  models::ClusterSpec c;
  models::NodeTypeSpec t;
  t.gpus = 64;
  t.count = 1 << 20;
  c.node_types.assign(64, t);
  CHECK(c.total_gpus() == std::int64_t{1} << 32);  // 0 in 32 bits, the GPU total validate printed
  CHECK(c.total_nodes() == std::int64_t{1} << 26);

  // 32 types of 2^20 nodes of 64 GPUs are 2^31 GPUs: one more than the limit.
  std::string yaml = "name: t\nhorizon: 1d\ncluster:\n  node_types:\n";
  for (int i = 0; i < 32; ++i)
    yaml += "    - {name: p" + std::to_string(i) +
            ", gpu: A100-40GB-SXM, gpus: 64, count: 1048576, price: {on_demand_per_hour: 1}}\n";
  yaml += "workload:\n  jobs:\n    - {name: a, gpus: 8, duration: 6h}\n";
  check_out_of_range(yaml, 5, "cluster.node_types");
}

TEST_CASE("limits: a workload holds at most 2^32 - 2 jobs in all, summed in 64 bits", "[unit][limits]") {
  // 43 generators of 1e8 jobs are 4.3e9 jobs: past the 32-bit job ids. 42 (4.2e9) fit.
  auto workload = [](int generators) {
    std::string yaml = "name: t\nhorizon: 1d\ncluster:\n  node_types:\n    - {name: p, gpu: A100-40GB-SXM, gpus: 8, "
                       "count: 2, price: {on_demand_per_hour: 1}}\nworkload:\n  generators:\n";
    for (int i = 0; i < generators; ++i)
      yaml += "    - {name: g" + std::to_string(i) + ", count: 100M, arrival: 1s, gpus: 8, duration: 1h}\n";
    return yaml;
  };
  check_out_of_range(workload(43), 7, "workload");
  CHECK_NOTHROW(scenario_from_yaml(workload(42)));
}
