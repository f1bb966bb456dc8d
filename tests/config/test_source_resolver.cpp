// The source resolver: one rule for relative paths (relative to the file that names them),
// one FileNotFound error at the naming node, and a record of every file read; and the
// loader's use of it: the scenario's inputs (bundled and extra catalogs) are recorded with
// their bytes and digests, and reach the trace's /inputs table.
#include <catch2/catch.hpp>

#include "support/scenario_support.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/trace_data.hpp"
#include "sim/config/source_resolver.hpp"
#include "sim/trace/trace_reader.hpp"

using gcsim::ErrorCode;
using gcsim::config::load_yaml_string;
using gcsim::config::SourceResolver;
using gcsim::test::config_error;
using gcsim::test::TempDir;
using gcsim::test::write_file;

namespace {


}  // namespace

TEST_CASE("FNV-1a 64 digests match the published test vectors", "[unit]") {
  CHECK(gcsim::config::fnv1a64_hex("") == "cbf29ce484222325");
  CHECK(gcsim::config::fnv1a64_hex("a") == "af63dc4c8601ec8c");
  CHECK(gcsim::config::fnv1a64_hex("foobar") == "85944171f73967e8");
}

TEST_CASE("a relative path is relative to the file that names it, absolute paths stay", "[unit]") {
  CHECK(SourceResolver::resolve("/a/b/scenario.yaml", "x.csv") == "/a/b/x.csv");
  CHECK(SourceResolver::resolve("/a/b/scenario.yaml", "../c/./x.csv") == "/a/c/x.csv");
  CHECK(SourceResolver::resolve("/a/b/scenario.yaml", "/elsewhere/x.csv") == "/elsewhere/x.csv");
  CHECK(SourceResolver::resolve("scenario.yaml", "x.csv") == "x.csv");

  TempDir dir("resolver");
  std::filesystem::create_directories(dir.path() / "sub");
  write_file(dir.file("data.csv"), "a,b\n1,2\n");
  const auto doc = load_yaml_string("table: {file: ../data.csv}\n", dir.file("sub/s.yaml"));
  const auto& at = *doc.root.find("table")->find("file");
  SourceResolver sources;
  CHECK(sources.read(at, "the CSV table") == "a,b\n1,2\n");
  CHECK(sources.read(at, "the CSV table") == "a,b\n1,2\n");
  REQUIRE(sources.records().size() == 1);  // read twice, recorded once
  const auto& r = sources.records()[0];
  CHECK(r.key == "table.file");
  CHECK(r.written == "../data.csv");
  CHECK(r.resolved == (dir.path() / "data.csv").lexically_normal().string());
  CHECK(r.bytes->size() == 8);
  CHECK(r.digest == "fnv1a64:" + gcsim::config::fnv1a64_hex("a,b\n1,2\n"));
}

TEST_CASE("a large file's digest, computed beside the load, is that of its bytes", "[unit]") {
  // Files of 1 MiB and more are hashed on a thread of their own (SourceResolver::record);
  // records() waits for the digest. Two such files and a small one between them: each
  // record keeps its own digest, in the order read.
  TempDir dir("resolver-large");
  std::string big_a(std::size_t{3} << 20, 'a');
  for (std::size_t i = 0; i < big_a.size(); i += 4099) big_a[i] = static_cast<char>('0' + i % 10);
  std::string big_b = big_a;
  big_b[big_b.size() / 2] = 'x';  // one byte apart
  write_file(dir.file("a.csv"), big_a);
  write_file(dir.file("small.csv"), "a,b\n1,2\n");
  write_file(dir.file("b.csv"), big_b);
  const auto doc = load_yaml_string("{a: a.csv, s: small.csv, b: b.csv}\n", dir.file("s.yaml"));
  SourceResolver sources;
  for (const char* key : {"a", "s", "b"}) sources.read(*doc.root.find(key), "the CSV table");
  const auto& r = sources.records();
  REQUIRE(r.size() == 3);
  CHECK(r[0].digest == "fnv1a64:" + gcsim::config::fnv1a64_hex(big_a));
  CHECK(r[1].digest == "fnv1a64:" + gcsim::config::fnv1a64_hex("a,b\n1,2\n"));
  CHECK(r[2].digest == "fnv1a64:" + gcsim::config::fnv1a64_hex(big_b));
  CHECK(r[0].digest != r[2].digest);
  CHECK(sources.records()[2].digest == r[2].digest);  // asked again: the same
}

TEST_CASE("a missing file is FileNotFound at the naming key, naming the resolved file", "[unit]") {
  TempDir dir("resolver-missing");
  const auto doc = load_yaml_string("price:\n  file: nothere.csv\n", dir.file("s.yaml"));
  const auto& at = *doc.root.find("price")->find("file");
  SourceResolver sources;
  const auto e = config_error([&] { sources.read(at, "price trace"); });
  CHECK(e.code() == ErrorCode::FileNotFound);
  CHECK(e.key_path() == "price.file");
  CHECK(e.mark().line == 2);
  CHECK(e.mark().column == 9);
  CHECK(std::string(e.what()).find("cannot read price trace '" + dir.file("nothere.csv") + "'") != std::string::npos);
  std::filesystem::create_directories(dir.path() / "nothere.csv");
  CHECK(config_error([&] { sources.read(at, "price trace"); }).code() == ErrorCode::FileNotFound);  // a directory
  CHECK(sources.records().empty());
}

TEST_CASE("paths and key paths longer than a trace's /inputs columns are refused where they are written", "[unit]") {
  TempDir dir("resolver-long");
  // 4,097 bytes of path: one byte over; 4,096 is read (and not found).
  const std::string too_long = std::string(4092, 'a') + ".csv";
  const auto doc = load_yaml_string("price:\n  file: /" + too_long + "\n", dir.file("s.yaml"));
  const auto& at = *doc.root.find("price")->find("file");
  SourceResolver sources;
  const auto e = config_error([&] { sources.read(at, "price trace"); });
  CHECK(e.code() == ErrorCode::OutOfRange);
  CHECK(e.key_path() == "price.file");
  CHECK(std::string(e.what()).find("4097 bytes long; at most 4096") != std::string::npos);
  const auto fits = load_yaml_string("price:\n  file: /" + too_long.substr(1) + "\n", dir.file("s.yaml"));
  CHECK(config_error([&] { sources.read(*fits.root.find("price")->find("file"), "price trace"); }).code() ==
        ErrorCode::FileNotFound);

  // A key path of 1,025 bytes (a 1,020-byte map key, '.', "file").
  const std::string key(1020, 'k');
  const auto deep = load_yaml_string(key + ":\n  file: x.csv\n", dir.file("s.yaml"));
  const auto long_key = config_error([&] { sources.read(*deep.root.find(key)->find("file"), "price trace"); });
  CHECK(long_key.code() == ErrorCode::OutOfRange);
  CHECK(std::string(long_key.what()).find("a key path of 1025 bytes; at most 1024") != std::string::npos);
  CHECK(sources.records().empty());
}

TEST_CASE("a scenario's extra instance catalog is recorded with its bytes and reaches the trace's /inputs",
          "[scenario]") {
  TempDir dir("inputs");
  const std::string csv = gcsim::test::one_row_instance_csv("1.50");
  gcsim::test::write_own_price_scenario(dir.path(), "inputs", "1.50");
  const auto s = gcsim::models::load_scenario_file(dir.file("s.yaml"), gcsim::test::load_options());
  CHECK(s.cluster.node_types[0].price.on_demand_usd_per_hour == 1.50);
  const gcsim::config::SourceRecord* mine = nullptr;
  bool bundled_gpus = false;
  for (const auto& r : s.inputs) {
    if (r.key == "catalogs.instances") mine = &r;
    if (r.key.empty() && std::filesystem::path(r.resolved).filename() == "gpus.yaml") bundled_gpus = true;
  }
  REQUIRE(mine != nullptr);
  CHECK(mine->written == "prices/mine.csv");
  CHECK(*mine->bytes == csv);
  CHECK(mine->digest == "fnv1a64:" + gcsim::config::fnv1a64_hex(csv));
  CHECK(bundled_gpus);  // the bundled catalogs it resolved names against are inputs too

  const std::string path = dir.file("inputs.h5");
  gcsim::test::run_to_trace(s, path);
  const auto trace = gcsim::trace::TraceReader::open(path);
  const auto recorded = gcsim::analysis::read_inputs(*trace, path);
  REQUIRE(recorded.size() == s.inputs.size());
  std::size_t row = recorded.size();
  for (std::size_t i = 0; i < recorded.size(); ++i)
    if (recorded[i].key == "catalogs.instances") row = i;
  REQUIRE(row < recorded.size());
  CHECK(*recorded[row].bytes == csv);
  CHECK(recorded[row].digest == mine->digest);
  CHECK(recorded[row].written == "prices/mine.csv");
}

TEST_CASE("paths_for_trace: relative to the scenario, bundled as <bundled>/, absolute only when asked", "[unit]") {
  using gcsim::config::SourceRecord;
  const auto record = [](std::string key, std::string written, std::string resolved) {
    SourceRecord r;
    r.key = std::move(key);
    r.written = std::move(written);
    r.resolved = std::move(resolved);
    return r;
  };
  const std::vector<SourceRecord> in{
      record("", "/build/gcsim/scenarios/catalog/gpus.yaml", "/build/gcsim/scenarios/catalog/gpus.yaml"),
      record("", "/build/gcsim/scenarios/catalog/instances/aws.csv", "/build/gcsim/scenarios/catalog/instances/aws.csv"),
      record("catalogs.instances", "prices/mine.csv", "/home/a/proj/prices/mine.csv"),
      record("workload.jobs.file", "../shared/jobs.csv", "/home/a/shared/jobs.csv"),
      record("cluster.node_types[0].interruptions.file", "/data/t.json", "/data/t.json")};
  const auto portable = gcsim::config::paths_for_trace("/home/a/proj/s.yaml", in, false);
  CHECK(portable.scenario_file == "s.yaml");
  CHECK(portable.records[0].resolved == "<bundled>/gpus.yaml");
  CHECK(portable.records[0].written == "<bundled>/gpus.yaml");
  CHECK(portable.records[1].resolved == "<bundled>/instances/aws.csv");
  CHECK(portable.records[2].resolved == "prices/mine.csv");
  CHECK(portable.records[3].resolved == "../shared/jobs.csv");
  CHECK(portable.records[4].resolved == "/data/t.json");  // written absolute: as written
  // What resolve() gives for the scenario loaded under its recorded name, for a rerun.
  CHECK(gcsim::config::SourceResolver::resolve(portable.scenario_file, "../shared/jobs.csv") == "../shared/jobs.csv");
  // A relative scenario path: its folder is left out too.
  const auto relative = gcsim::config::paths_for_trace("proj/s.yaml", {record("k", "p.csv", "proj/p.csv")}, false);
  CHECK(relative.scenario_file == "s.yaml");
  CHECK(relative.records[0].resolved == "p.csv");
  const auto absolute = gcsim::config::paths_for_trace("proj/s.yaml", {record("k", "p.csv", "proj/p.csv")}, true);
  CHECK(absolute.scenario_file == (std::filesystem::current_path() / "proj/s.yaml").lexically_normal().string());
  CHECK(absolute.records[0].resolved == (std::filesystem::current_path() / "proj/p.csv").lexically_normal().string());
}
