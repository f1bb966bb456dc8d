// Input files are read whole through read_regular_file: regular files only (a FIFO with no
// writer must not hang the open, a device such as /dev/zero must not be read forever),
// within a size limit, and every refusal names the file. The CSV reader bounds its rows.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>

#include "sim/config/csv.hpp"
#include "sim/config/regular_file.hpp"
#include "sim/config/source_resolver.hpp"
#include "support/scenario_support.hpp"

using gcsim::ErrorCode;
using gcsim::config::FileReadStatus;
using gcsim::config::read_regular_file;
using gcsim::config::try_read_regular_file;
using gcsim::test::config_error;
using gcsim::test::TempDir;
using gcsim::test::write_file;

namespace {


}  // namespace

TEST_CASE("read_regular_file reads a regular file whole", "[unit]") {
  TempDir dir("regular-file");
  const std::string text = std::string("a,b\n1,2\n") + '\0' + "tail";
  write_file(dir.file("x.csv"), text);
  CHECK(read_regular_file(dir.file("x.csv"), 1024, "table") == text);
  CHECK(read_regular_file(dir.file("x.csv"), text.size(), "table") == text);  // the limit itself is allowed
}

TEST_CASE("read_regular_file refuses FIFOs, devices, folders and missing files, naming the file", "[unit]") {
  TempDir dir("regular-file");
  SECTION("a FIFO with no writer: refused at once, not waited on") {
    const std::string fifo = dir.file("pipe.csv");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(try_read_regular_file(fifo, 1024).status == FileReadStatus::NotRegular);
    const auto e = config_error([&] { read_regular_file(fifo, 1024, "flows CSV"); });
    CHECK(e.code() == ErrorCode::FileNotFound);
    CHECK(e.mark().file == fifo);
    CHECK(e.detail() == "flows CSV: is a FIFO (named pipe), not a regular file");
  }
  SECTION("/dev/zero: a device, never read") {
    const auto e = config_error([&] { read_regular_file("/dev/zero", 1024, "instance catalog"); });
    CHECK(e.code() == ErrorCode::FileNotFound);
    CHECK(e.detail() == "instance catalog: is a character device, not a regular file");
  }
  SECTION("a folder") {
    CHECK(try_read_regular_file(dir.path().string(), 1024).status == FileReadStatus::NotRegular);
  }
  SECTION("a missing file") {
    const auto e = config_error([&] { read_regular_file(dir.file("nothere.csv"), 1024, "spot trace"); });
    CHECK(e.code() == ErrorCode::FileNotFound);
    CHECK(e.detail() == "spot trace: no such file");
  }
}

TEST_CASE("read_regular_file refuses a file over its limit before reading it", "[unit]") {
  TempDir dir("regular-file");
  write_file(dir.file("big.csv"), std::string(1025, 'x'));
  const auto e = config_error([&] { read_regular_file(dir.file("big.csv"), 1024, "flows CSV"); });
  CHECK(e.code() == ErrorCode::OutOfRange);
  CHECK(e.mark().file == dir.file("big.csv"));
  CHECK(e.detail().find("larger than the limit of 1.00 KiB") != std::string::npos);
}

TEST_CASE("files a scenario names are regular files only, and the error says why not", "[unit]") {
  TempDir dir("regular-file");
  const std::string fifo = dir.file("prices.csv");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string scenario = dir.file("s.yaml");
  auto doc = gcsim::config::load_yaml_string("f: prices.csv\n", scenario);
  gcsim::config::SourceResolver sources;
  const auto e = config_error([&] { sources.read(*doc.root.find("f"), "price trace"); });
  CHECK(e.code() == ErrorCode::FileNotFound);
  CHECK(e.key_path() == "f");
  CHECK(e.detail() == "cannot read price trace '" + fifo + "': is a FIFO (named pipe), not a regular file");
}

TEST_CASE("a scenario that is a FIFO or a device is refused without waiting", "[unit]") {
  TempDir dir("regular-file");
  const std::string fifo = dir.file("s.yaml");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(config_error([&] { gcsim::config::load_yaml_file(fifo); }).code() == ErrorCode::FileNotFound);
  CHECK(config_error([&] { gcsim::config::load_yaml_file("/dev/zero"); }).code() == ErrorCode::FileNotFound);
}

TEST_CASE("a CSV row longer than 1 MiB is refused at its line", "[unit]") {
  using gcsim::config::csv::MAX_ROW_BYTES;
  SECTION("one long line") {
    std::istringstream in("a,b\n" + std::string(MAX_ROW_BYTES + 1, 'x') + "\n");
    gcsim::config::csv::Reader reader(in, "long.csv", true);
    gcsim::config::csv::Row row;
    REQUIRE(reader.next(row));
    const auto e = config_error([&] { reader.next(row); });
    CHECK(e.code() == ErrorCode::OutOfRange);
    CHECK(e.mark().file == "long.csv");
    CHECK(e.mark().line == 2);
  }
  SECTION("a quoted field over many lines counts whole") {
    std::string text = "\"";
    const std::string line(1000, 'y');
    while (text.size() <= MAX_ROW_BYTES) text += line + "\n";
    std::istringstream in(text + "\"\n");
    gcsim::config::csv::Reader reader(in, "quoted.csv", true);
    gcsim::config::csv::Row row;
    const auto e = config_error([&] { reader.next(row); });
    CHECK(e.code() == ErrorCode::OutOfRange);
    CHECK(e.mark().line == 1);
  }
  SECTION("a row of exactly the limit is read") {
    std::istringstream in(std::string(MAX_ROW_BYTES, 'z') + "\n");
    gcsim::config::csv::Reader reader(in, "edge.csv", true);
    gcsim::config::csv::Row row;
    REQUIRE(reader.next(row));
    CHECK(row.fields.at(0).text.size() == MAX_ROW_BYTES);
  }
}
