// The trace's compression level from the command line and the scenario (output.compression,
// --trace-compression on run, rerun and compare): which one wins, what is refused, and that
// Debian's h5dump reads the chunks gcsim compressed itself (checksums checked on read).
#include <catch2/catch.hpp>
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/scenario_support.hpp"

namespace fs = std::filesystem;
using gcsim::test::run_command;
using gcsim::test::run_gcsim;

namespace {

const std::string QUICKSTART = GCSIM_SOURCE_DIR "/scenarios/examples/quickstart.yaml";

using gcsim::test::has;

// The quickstart with `output:` replaced by the given lines.
std::string scenario_with_output(const gcsim::test::TempDir& dir, const std::string& name, const std::string& output) {
  const std::string text = gcsim::test::read_bytes(QUICKSTART);
  const std::size_t at = text.find("output:");
  REQUIRE(at != std::string::npos);
  const std::string path = dir.file(name);
  std::ofstream(path) << text.substr(0, at) << output;
  return path;
}

// The deflate level of /jobs in a trace, -1 when it has no deflate filter.
int deflate_level(const std::string& trace) {
  const hid_t f = H5Fopen(trace.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t d = H5Dopen2(f, "jobs", H5P_DEFAULT);
  REQUIRE(d >= 0);
  const hid_t dcpl = H5Dget_create_plist(d);
  unsigned flags = 0;
  std::size_t n = 1;
  unsigned values[1] = {};
  const bool deflated =
      H5Pget_filter_by_id2(dcpl, H5Z_FILTER_DEFLATE, &flags, &n, values, 0, nullptr, nullptr) >= 0;
  H5Pclose(dcpl);
  H5Dclose(d);
  H5Fclose(f);
  return deflated ? static_cast<int>(values[0]) : -1;
}

}  // namespace

TEST_CASE("output.compression sets the trace's deflate level and --trace-compression overrides it",
          "[scenario][cli]") {
  gcsim::test::TempDir dir("trace-compression-cli");
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // a missing deflate filter is not an error here
  const std::string nine = scenario_with_output(dir, "nine.yaml", "output: {trace: q.h5, compression: 9}\n");
  REQUIRE(run_gcsim("run " + nine + " -o " + dir.file("a") + " --no-plots -q").code == 0);
  CHECK(deflate_level(dir.file("a/q.h5")) == 9);
  REQUIRE(run_gcsim("run " + nine + " -o " + dir.file("b") + " --no-plots -q --trace-compression 0").code == 0);
  CHECK(deflate_level(dir.file("b/q.h5")) == -1);
  // The default, without the key.
  REQUIRE(run_gcsim("run " + QUICKSTART + " -o " + dir.file("c") + " --no-plots -q").code == 0);
  CHECK(deflate_level(dir.file("c/quickstart.h5")) == 1);
  // Rerun writes at the flag's level, else the embedded scenario's.
  REQUIRE(run_gcsim("rerun " + dir.file("a/q.h5") + " -o " + dir.file("d") + " --no-plots -q").code == 0);
  CHECK(deflate_level(dir.file("d/q.h5")) == 9);
  REQUIRE(run_gcsim("rerun " + dir.file("a/q.h5") + " -o " + dir.file("e") + " --no-plots -q --trace-compression 3")
              .code == 0);
  CHECK(deflate_level(dir.file("e/q.h5")) == 3);
  // The level changes the bytes, never the contents: both traces analyze the same (but
  // for the run's wall-clock time).
  const auto report = [&](const std::string& trace) {
    const auto r = run_gcsim("analyze --json " + trace);
    REQUIRE(r.code == 0);
    std::string kept;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);)
      if (!has(line, "wall_clock_s")) kept += line + "\n";
    return kept;
  };
  const std::string nine_report = report(dir.file("a/q.h5"));
  CHECK(has(nine_report, "total_cost_usd"));
  CHECK(nine_report == report(dir.file("b/q.h5")));
  // compare: every trace at the flag's level.
  const auto cmp = run_gcsim("compare " + nine + " --policy fifo --policy sjf -j 2 --no-plots -o " + dir.file("f") +
                             " --trace-compression 2");
  INFO(cmp.output);
  REQUIRE(cmp.code == 0);
  int traces = 0;
  for (const auto& e : fs::directory_iterator(dir.file("f"))) {
    if (e.path().extension() != ".h5") continue;
    ++traces;
    CHECK(deflate_level(e.path().string()) == 2);
  }
  CHECK(traces == 2);
}

TEST_CASE("a compression level outside 0-9 is refused, in the scenario and on the command line", "[scenario][cli]") {
  gcsim::test::TempDir dir("trace-compression-bad");
  const std::string ten = scenario_with_output(dir, "ten.yaml", "output:\n  compression: 10\n");
  const auto v = run_gcsim("validate " + ten);
  INFO(v.output);
  CHECK(v.code == 2);
  CHECK(has(v.output, "ten.yaml:30:16: error[out-of-range]: output.compression"));
  const std::string word = scenario_with_output(dir, "word.yaml", "output:\n  compression: fast\n");
  const auto w = run_gcsim("validate " + word);
  INFO(w.output);
  CHECK(w.code == 2);
  CHECK(has(w.output, "word.yaml:30:16: error["));
  CHECK(has(w.output, "output.compression"));
  for (const std::string bad : {"10", "-1", "fast"}) {
    INFO(bad);
    CHECK(run_gcsim("run " + QUICKSTART + " -o " + dir.file("x") + " --no-plots -q --trace-compression " + bad).code == 2);
    CHECK(run_gcsim("compare " + QUICKSTART + " --policy fifo --trace-compression " + bad).code == 2);
  }
  CHECK(!fs::exists(dir.file("x")));
}

TEST_CASE("h5dump reads and checksums the chunks gcsim compressed itself", "[scenario][cli]") {
  if (!fs::exists("/usr/bin/h5dump")) {
    WARN("h5dump (Debian's hdf5-tools) not installed: skipped");
    return;
  }
  gcsim::test::TempDir dir("trace-h5dump");
  for (const char* level : {"0", "1", "9"}) {
    INFO("level " << level);
    const std::string out = dir.file(std::string("l") + level);
    REQUIRE(run_gcsim("run " + QUICKSTART + " -o " + out + " --no-plots -q --trace-compression " + level).code == 0);
    const std::string trace = out + "/quickstart.h5";
    // -p: the filters as stored; the jobs' names are in the data only if the chunk decoded.
    const auto jobs = run_command("/usr/bin/h5dump -p -d /jobs " + trace);
    REQUIRE(jobs.code == 0);
    CHECK(has(jobs.output, "CHECKSUM FLETCHER32"));
    CHECK(has(jobs.output, std::string(level) == "0" ? "FILTERS" : "COMPRESSION DEFLATE { LEVEL " + std::string(level) + " }"));
    CHECK(has(jobs.output, "\"bert-large\\000"));  // null-padded cells
    CHECK(has(jobs.output, "\"resnet50\\000"));
    // The input files, byte arrays of several chunks: the whole dataset decodes.
    const auto inputs = run_command("/usr/bin/h5dump -d /input_bytes " + trace + " > /dev/null");
    CHECK(inputs.code == 0);
  }
}
