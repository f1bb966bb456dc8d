// What validates must run, within bounds (issue 10): sizes that cannot fit the memory limit
// and event storms are refused at load with the key, by validate and by run (before
// anything is built); files that are not regular files are refused without waiting;
// output names that cannot be file names are refused at load; running out of memory
// anyway is a clean exit 2. The hostile scenarios are under tests/scenarios/hostile/.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/scenario_support.hpp"

namespace fs = std::filesystem;

using gcsim::test::run_command;
using gcsim::test::run_gcsim;

namespace {

const std::string HOSTILE = GCSIM_SOURCE_DIR "/tests/scenarios/hostile/";
const std::string QUICKSTART = GCSIM_SOURCE_DIR "/scenarios/examples/quickstart.yaml";
const std::string PARKING_LOT = GCSIM_SOURCE_DIR "/tests/models/network/data/parking_lot.yaml";

using gcsim::test::has;

}  // namespace

TEST_CASE("gcsim validate prints the resource estimate and checks it against --max-memory", "[scenario][cli]") {
  const auto ok = run_gcsim("validate " + QUICKSTART);
  INFO(ok.output);
  REQUIRE(ok.code == 0);
  CHECK(has(ok.output, "quickstart.yaml: needs about 502 jobs, 4 nodes, 32 GPUs, 0 links, 0 routes, "));

  const auto refused = run_gcsim("validate " + QUICKSTART + " --max-memory 1MiB");
  INFO(refused.output);
  CHECK(refused.code == 2);
  CHECK(has(refused.output, "error[infeasible]"));
  CHECK(has(refused.output, "over the limit of 1.00 MiB (--max-memory)"));

  const auto events = run_gcsim("validate " + QUICKSTART + " --max-events 100");
  CHECK(events.code == 2);
  CHECK(has(events.output, "quickstart.yaml:24:"));  // the generator, which has most of the events
  CHECK(has(events.output, "workload.generators[0].count"));

  CHECK(run_gcsim("validate " + QUICKSTART + " --max-memory 8").code == 2);     // a size needs its unit
  CHECK(run_gcsim("validate " + QUICKSTART + " --max-events lots").code == 2);
  CHECK(run_gcsim("validate " + QUICKSTART + " --max-memory 8GiB --max-events 1e9").code == 0);
}

TEST_CASE("sizes that cannot fit the memory limit are refused by validate and run", "[scenario][cli]") {
  gcsim::test::TempDir dir("cli-limits");
  struct Case {
    std::string file, key, line, flags;
  };
  const Case cases[] = {
      // 84 GiB and 36 GiB: over a limit of 8 GiB.
      {"generator_100m_jobs.yaml", "workload.generators[0].count", ":9:", " --max-memory 8GiB"},
      {"node_types_64m.yaml", "is the nodes and their GPUs of cluster.node_types (64 entries", ":6:", " --max-memory 8GiB"},
      // 490 GiB and 8.9 TiB: over the default (half of this machine's RAM) on any machine
      // that runs these tests.
      {"fat_tree_k1024.yaml", "network.fabric", ":7:", ""},
      {"leaf_spine_1e10.yaml", "network.fabric", ":7:", ""},
  };
  for (const Case& c : cases) {
    const auto v = run_gcsim("validate " + HOSTILE + c.file + c.flags);
    INFO(c.file << ": " << v.output);
    CHECK(v.code == 2);
    CHECK(has(v.output, c.key));
    CHECK(has(v.output, c.file + c.line));
    CHECK(has(v.output, "(--max-memory)"));
    const std::string out = dir.file(c.file + "-out");
    const auto r = run_gcsim("run " + HOSTILE + c.file + c.flags + " -o " + out);
    CHECK(r.code == 2);
    CHECK(has(r.output, c.key));
    CHECK(!fs::exists(out));  // refused before anything was made
  }
}

TEST_CASE("an event storm is refused at load with the key that makes it", "[scenario][cli]") {
  const auto v = run_gcsim("validate " + HOSTILE + "budget_check_storm.yaml");
  INFO(v.output);
  CHECK(v.code == 2);
  CHECK(has(v.output, "budgets[0].check_every"));
  CHECK(has(v.output, "6.31e+09 events, over the limit of 1e+09 events (--max-events)"));
  CHECK(run_gcsim("validate " + HOSTILE + "budget_check_storm.yaml --max-events 1e10").code == 0);

  // A tick of 1 ns is refused as a value first, in the trace (docs/units.md, "Limits:
  // time and numbers": ticks of at least 1 s).
  const auto tick = run_gcsim("validate " + HOSTILE + "spot_trace_1ns_loop.yaml");
  INFO(tick.output);
  CHECK(tick.code == 2);
  CHECK(has(tick.output, "spot_trace_1ns.json:1:30: error[out-of-range]: metadata.gap_seconds"));
}

TEST_CASE("output.trace names that are not file names are refused at load", "[scenario][cli]") {
  const auto dots = run_gcsim("validate " + HOSTILE + "trace_dotdot.yaml");
  INFO(dots.output);
  CHECK(dots.code == 2);
  CHECK(has(dots.output, "trace_dotdot.yaml:10:"));
  CHECK(has(dots.output, "output.trace"));
  const auto longer = run_gcsim("validate " + HOSTILE + "trace_long_name.yaml");
  INFO(longer.output);
  CHECK(longer.code == 2);
  CHECK(has(longer.output, "output.trace"));
  CHECK(has(longer.output, "229 bytes long; at most 170"));
}

TEST_CASE("FIFOs and devices are refused without waiting by every reader", "[scenario][cli]") {
  gcsim::test::TempDir dir("cli-fifo");
  const std::string fifo = dir.file("pipe");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // `timeout` turns a hang into exit code 124, so a regression fails instead of hanging.
  const std::string t = "timeout 20 " + std::string(GCSIM_BINARY_DIR) + "/cli/gcsim ";
  const auto validate = run_command(t + "validate " + fifo);
  INFO(validate.output);
  CHECK(validate.code == 2);
  CHECK(has(validate.output, "is a FIFO (named pipe), not a regular file"));
  CHECK(run_command(t + "analyze " + fifo).code == 2);
  const auto flows = run_command(t + "flows " + PARKING_LOT + " " + fifo);
  CHECK(flows.code == 2);
  CHECK(has(flows.output, "flows CSV: is a FIFO"));
  const auto zero = run_command(t + "flows " + PARKING_LOT + " /dev/zero");
  CHECK(zero.code == 2);
  CHECK(has(zero.output, "/dev/zero: error[file-not-found]: flows CSV: is a character device"));
  const auto import = run_command(t + "catalog import --from skypilot-aws " + fifo);
  CHECK(import.code == 2);
  CHECK(has(import.output, "catalog import input: is a FIFO"));
}

// AddressSanitizer reserves terabytes of shadow address space at start, so a gcsim built
// with it (GCSIM_SANITIZE=ON) cannot start under `ulimit -v`: the two tests that limit the
// address space run in the plain builds only.
#ifdef GCSIM_SANITIZE
constexpr bool ADDRESS_SANITIZER = true;
#else
constexpr bool ADDRESS_SANITIZER = false;
#endif

TEST_CASE("running out of memory anyway is exit 2 with a message, not an internal error", "[scenario][cli]") {
  if (ADDRESS_SANITIZER) {
    WARN("skipped under AddressSanitizer, which cannot start under ulimit -v");
    return;
  }
  gcsim::test::TempDir dir("cli-oom");
  // Past the estimate (a limit of 1 TiB lets it through) into an address space of 256 MiB
  // (the quickstart runs in 200 MiB).
  const auto r = run_command("ulimit -v 262144; " + std::string(GCSIM_BINARY_DIR) + "/cli/gcsim run " + HOSTILE +
                             "generator_100m_jobs.yaml --max-memory 1TiB --no-plots -o " + dir.file("out"));
  INFO(r.output);
  CHECK(r.code == 2);
  CHECK(has(r.output, "gcsim: out of memory in `gcsim run "));
  CHECK(!has(r.output, "internal error"));
  CHECK((!fs::exists(dir.file("out")) || fs::is_empty(dir.file("out"))));  // no half-written trace
}

TEST_CASE("rerun, estimate and flows check the same limits before building anything", "[scenario][cli]") {
  gcsim::test::TempDir dir("cli-limits-others");
  const auto run = run_gcsim("run " + QUICKSTART + " --no-plots -q -o " + dir.file("out"));
  REQUIRE(run.code == 0);
  const std::string trace = dir.file("out/quickstart.h5");
  const auto rerun = run_gcsim("rerun " + trace + " --max-memory 1MiB -o " + dir.file("again"));
  CHECK(rerun.code == 2);
  CHECK(has(rerun.output, "(--max-memory)"));
  CHECK(!fs::exists(dir.file("again")));
  CHECK(run_gcsim("rerun " + trace + " --no-plots -q -o " + dir.file("again")).code == 0);

  const std::string resnet = GCSIM_SOURCE_DIR "/scenarios/examples/estimate_resnet50.yaml";
  CHECK(run_gcsim("estimate " + resnet + " --max-memory 1MiB").code == 2);
  CHECK(run_gcsim("estimate " + resnet).code == 0);

  const std::string flows = GCSIM_SOURCE_DIR "/tests/models/network/data/parking_lot_flows.csv";
  const auto f = run_gcsim("flows " + PARKING_LOT + " " + flows + " --max-events 1");
  CHECK(f.code == 2);
  CHECK(has(f.output, "(--max-events)"));
  CHECK(run_gcsim("flows " + PARKING_LOT + " " + flows).code == 0);
}

TEST_CASE("the default memory limit is half of what the process may use, ulimit -v included", "[scenario][cli]") {
  if (ADDRESS_SANITIZER) {
    WARN("skipped under AddressSanitizer, which cannot start under ulimit -v");
    return;
  }
  const std::string limited = "ulimit -v 1048576; " + std::string(GCSIM_BINARY_DIR) + "/cli/gcsim ";
  const auto ok = run_command(limited + "validate " + QUICKSTART);
  INFO(ok.output);
  CHECK(ok.code == 0);
  CHECK(has(ok.output, "(limits 512.00 MiB, 1e+09 events)"));
  // 10,000 jobs fit in 512 MiB, 100 million do not.
  const auto big = run_command(limited + "validate " + HOSTILE + "generator_100m_jobs.yaml");
  CHECK(big.code == 2);
  CHECK(has(big.output, "over the limit of 512.00 MiB (--max-memory)"));
}
