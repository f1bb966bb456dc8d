// Issue 27.2: a message about a file a scenario names (a CSV table, a catalog, a price or
// spot trace) never quotes that file's text. Such a file may be a link to any file the
// process can read; a jobs CSV linked to a password file printed its first line, hash
// included. Each reader is given secret-looking text and the message must not hold it,
// while still saying where (file, line, column) and what is wrong (the code).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "models/config/scenario_loader.hpp"
#include "sim/config/config_node.hpp"
#include "sim/errors.hpp"
#include "support/scenario_support.hpp"

namespace fs = std::filesystem;
using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::test::config_error;
using gcsim::test::TempDir;
using gcsim::test::write_file;

namespace {

// A /etc/shadow-like line, and a token-like one (letters, digits, '_': valid key text).
const std::string SHADOW = "root:$6$saltsalt$SeCrEtHaSh0123456789abcdef:19700:0:99999:7:::\n";
const std::string TOKEN = "ghp_SeCrEtToKeN0123456789\n";
bool leaks(const std::string& message) {
  return message.find("SeCrEt") != std::string::npos || message.find("root:") != std::string::npos;
}

// A scenario in `dir` with `extra` (catalogs, price, workload) spliced in; its load error.
ConfigError load_error(const TempDir& dir, const std::string& node_type_price, const std::string& catalogs,
                       const std::string& jobs) {
  write_file(dir.file("s.yaml"), "name: s\nhorizon: 2h\n" + catalogs +
                                     "cluster:\n  node_types:\n    - {name: a, gpu: A100-40GB-SXM, gpus: 1, count: 1, " +
                                     node_type_price + "}\nworkload:\n  jobs: " + jobs + "\n");
  return config_error([&] { (void)gcsim::models::load_scenario_file(dir.file("s.yaml"), gcsim::test::load_options()); });
}
const std::string ON_DEMAND = "price: {on_demand_per_hour: 2}";
const std::string ONE_JOB = "[{name: j, gpus: 1, duration: 1h}]";

}  // namespace

TEST_CASE("a jobs CSV linked to a secret file: the message says what is wrong, not what it holds", "[unit]") {
  TempDir dir("secret-jobs");
  write_file(dir.file("shadow"), SHADOW);
  fs::create_symlink(dir.file("shadow"), dir.file("jobs.csv"));
  const ConfigError header = load_error(dir, ON_DEMAND, "", "{file: jobs.csv}");
  CHECK(header.code() == ErrorCode::Syntax);
  CHECK(header.mark().line == 1);
  CHECK(header.mark().column == 1);
  CHECK_FALSE(leaks(header.what()));

  // A first line that is valid key text: an unknown column, named by its number.
  write_file(dir.file("token"), TOKEN);
  fs::remove(dir.file("jobs.csv"));
  fs::create_symlink(dir.file("token"), dir.file("jobs.csv"));
  const ConfigError column = load_error(dir, ON_DEMAND, "", "{file: jobs.csv}");
  CHECK(column.code() == ErrorCode::UnknownKey);
  CHECK_FALSE(leaks(column.what()));
  CHECK_FALSE(leaks(column.key_path()));
  CHECK_THAT(column.what(), Catch::Contains("header column 1"));

  // A valid header and a secret in a cell.
  fs::remove(dir.file("jobs.csv"));
  write_file(dir.file("jobs.csv"), "name,gpus,duration\nj,SeCrEt42,1h\n");
  const ConfigError cell = load_error(dir, ON_DEMAND, "", "{file: jobs.csv}");
  CHECK(cell.code() == ErrorCode::WrongType);
  CHECK(cell.mark().line == 2);
  CHECK(cell.mark().column == 3);
  CHECK(cell.key_path() == "workload.jobs[0].gpus");
  CHECK_FALSE(leaks(cell.what()));
  write_file(dir.file("jobs.csv"), "name,gpus,duration\nj,1,6SeCrEt\n");  // a unit error quotes the unit
  CHECK_FALSE(leaks(load_error(dir, ON_DEMAND, "", "{file: jobs.csv}").what()));
}

TEST_CASE("catalogs a scenario names never have their text quoted in a message", "[unit]") {
  TempDir dir("secret-catalogs");
  write_file(dir.file("shadow"), SHADOW);
  write_file(dir.file("token"), TOKEN);
  SECTION("an instance catalog CSV") {
    fs::create_symlink(dir.file("shadow"), dir.file("a.csv"));
    fs::create_symlink(dir.file("token"), dir.file("b.csv"));
    for (const char* f : {"a.csv", "b.csv"}) {
      const ConfigError e = load_error(dir, ON_DEMAND, std::string("catalogs: {instances: ") + f + "}\n", ONE_JOB);
      CHECK(e.mark().line == 1);
      CHECK_FALSE(leaks(e.what()));
    }
  }
  SECTION("an instance catalog CSV with a secret in a cell") {
    write_file(dir.file("c.csv"), "provider,instance_type,gpu,gpus,on_demand_per_hour,snapshot,source\nlambda,x,A100-40GB-SXM,SeCrEt,1,2026-11-30,s\n");
    const ConfigError e = load_error(dir, ON_DEMAND, "catalogs: {instances: c.csv}\n", ONE_JOB);
    CHECK(e.code() == ErrorCode::WrongType);
    CHECK(e.mark().line == 2);
    CHECK_FALSE(leaks(e.what()));
  }
  SECTION("a GPU catalog (YAML)") {
    fs::create_symlink(dir.file("shadow"), dir.file("g.yaml"));
    CHECK_FALSE(leaks(load_error(dir, ON_DEMAND, "catalogs: {gpus: g.yaml}\n", ONE_JOB).what()));
    const std::string entry =
        "gpus:\n  - {name: Z1, vendor: NVIDIA, arch: Turing, form_factor: PCIe, fp32: 8TFLOPS, fp16: 65TFLOPS, "
        "memory: 16GiB, memory_bandwidth: 320GB/s, pcie: gen3, tdp: 70W, sources: x";
    write_file(dir.file("k.yaml"), entry + ", SeCrEtKey: 1}\n");  // an unknown key
    const ConfigError key = load_error(dir, ON_DEMAND, "catalogs: {gpus: k.yaml}\n", ONE_JOB);
    CHECK(key.code() == ErrorCode::UnknownKey);
    CHECK(key.mark().line == 2);
    CHECK_FALSE(leaks(key.what()));
    CHECK_FALSE(leaks(key.key_path()));
    write_file(dir.file("v.yaml"), entry + ", name: SeCrEt}\n");  // a duplicate key
    CHECK_FALSE(leaks(load_error(dir, ON_DEMAND, "catalogs: {gpus: v.yaml}\n", ONE_JOB).what()));
    std::string bad_unit = entry + "}\n";
    bad_unit.replace(bad_unit.find("16GiB"), 5, "16SeCrEt");
    write_file(dir.file("u.yaml"), bad_unit);  // a value: the unit parser quotes its unit
    const ConfigError unit = load_error(dir, ON_DEMAND, "catalogs: {gpus: u.yaml}\n", ONE_JOB);
    CHECK(unit.code() == ErrorCode::BadUnit);
    CHECK(unit.key_path() == "gpus[0].memory");
    CHECK_FALSE(leaks(unit.what()));
    write_file(dir.file("y.yaml"), "- {name: SeCrEt\n");  // a syntax error
    CHECK_FALSE(leaks(load_error(dir, ON_DEMAND, "catalogs: {gpus: y.yaml}\n", ONE_JOB).what()));
  }
}

TEST_CASE("price and spot traces a scenario names never have their text quoted in a message", "[unit]") {
  TempDir dir("secret-traces");
  write_file(dir.file("shadow"), SHADOW);
  const std::string spot = "market: spot, price: {spot_profile: {file: p.csv}}";
  SECTION("a spot price CSV") {
    fs::create_symlink(dir.file("shadow"), dir.file("p.csv"));
    CHECK_FALSE(leaks(load_error(dir, spot, "", ONE_JOB).what()));
    fs::remove(dir.file("p.csv"));
    write_file(dir.file("p.csv"), "time,usd_per_hour,SeCrEt\n0h,1\n");
    CHECK_FALSE(leaks(load_error(dir, spot, "", ONE_JOB).what()));
    write_file(dir.file("p.csv"), "time,usd_per_hour\n0SeCrEt,1\n");
    const ConfigError cell = load_error(dir, spot, "", ONE_JOB);
    CHECK(cell.mark().line == 2);
    CHECK_FALSE(leaks(cell.what()));
    write_file(dir.file("p.csv"), "time,usd_per_hour\n0h,1SeCrEt\n");
    CHECK_FALSE(leaks(load_error(dir, spot, "", ONE_JOB).what()));
  }
  SECTION("a spot interruption trace (JSON)") {
    const std::string trace = "market: spot, price: {spot_per_hour: 1}, interruptions: {process: trace, file: t.json}";
    fs::create_symlink(dir.file("shadow"), dir.file("t.json"));
    CHECK_FALSE(leaks(load_error(dir, trace, "", ONE_JOB).what()));
    fs::remove(dir.file("t.json"));
    write_file(dir.file("t.json"), "{\"SeCrEt\": 1}");
    const ConfigError key = load_error(dir, trace, "", ONE_JOB);
    CHECK(key.code() == ErrorCode::UnknownKey);
    CHECK_FALSE(leaks(key.what()));
    CHECK_FALSE(leaks(key.key_path()));
    write_file(dir.file("t.json"), "{\"metadata\": {\"gap_seconds\": 1SeCrEt}}");
    CHECK_FALSE(leaks(load_error(dir, trace, "", ONE_JOB).what()));
  }
}

TEST_CASE("hide_text hides quoted parts of the text and keeps our own words", "[unit]") {
  CHECK(gcsim::hide_text("expected an integer, got 'abc'", "abc") == "expected an integer, got <text not shown>");
  CHECK(gcsim::hide_text("missing unit in '6': write e.g. 6s", "6") == "missing unit in <text not shown>: write e.g. 6s");
  CHECK(gcsim::hide_text("unknown value 'fifp'; did you mean 'fifo'?", "fifp") ==
        "unknown value <text not shown>; did you mean 'fifo'?");
  CHECK(gcsim::hide_text("'1' is out of range: must be between 1 and 8", "1") ==
        "<text not shown> is out of range: must be between 1 and 8");
  CHECK(gcsim::hide_text("got 'it's'", "it's") == "got '<text not shown>'");
  CHECK(gcsim::hide_text("unknown unit 'parsecs' in '5parsecs'", "5parsecs") ==
        "unknown unit <text not shown> in <text not shown>");
}
