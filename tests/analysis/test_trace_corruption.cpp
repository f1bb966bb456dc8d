// Damaged traces: a trace that corruption has touched must be refused (exit code 2) or
// read, never crash or hang the reader (docs/trace-format.md, "Corruption"). Each damaged
// copy is read in a child process, so a crash is counted, not suffered (about 0.2 s a
// child, so the 300 flips are [.slow]). And the strings that reach fixed-width trace
// columns are bounded where the scenario is read.

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "support/scenario_support.hpp"
#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

#include "analysis/metrics.hpp"
#include "analysis/report.hpp"
#include "analysis/trace_data.hpp"
#include "models/gpu/gpu_catalog.hpp"
#include "models/pricing/instance_catalog.hpp"
#include "sim/config/config_node.hpp"
#include "sim/errors.hpp"

namespace {

const char* const SCENARIO = R"(name: flips
horizon: 4h
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 2, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: a, submit: 0h, gpus: 8, duration: 1h, team: x}
    - {name: b, submit: 0h, gpus: 16, duration: 2h, team: y}
budgets:
  - {team: x, limit: $100, action: alert}
)";

using gcsim::test::read_bytes;

// What `gcsim analyze` does with a trace, in a child process: "exit 0", "exit 2" (a
// gcsim::Error), "exit 1" (anything else thrown), "signal N", or "hang" (the child is
// killed by its alarm after `timeout_s`).
std::string analyze_in_child(const std::string& path, unsigned timeout_s) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::alarm(timeout_s);
    int code = 0;
    try {
      const gcsim::analysis::TraceData data = gcsim::analysis::read_trace(path);
      (void)gcsim::analysis::format_report(data, gcsim::analysis::compute_metrics(data));
    } catch (const gcsim::Error&) {
      code = 2;
    } catch (...) {
      code = 1;
    }
    ::_exit(code);  // no destructors, no Catch2 reporting in the child
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) return "hang";
  return "signal " + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : -1);
}

// SplitMix64: the flips are the same on every machine and standard library.
std::uint64_t next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

TEST_CASE("300 single-bit flips of a trace are each refused or read, never a crash or a hang", "[unit][trace][.slow]") {
  gcsim::test::TempDir dir("trace-flips");
  const std::string good = dir.file("good.h5");
  gcsim::test::run_to_trace(gcsim::test::scenario_from_yaml(SCENARIO), good);
  REQUIRE(analyze_in_child(good, 20) == "exit 0");
  const std::string bytes = read_bytes(good);
  REQUIRE(bytes.size() > 1000);

  const std::string damaged = dir.file("damaged.h5");
  std::map<std::string, int> outcomes;
  std::uint64_t rng = 20261201;
  for (int i = 0; i < 300; ++i) {
    const std::uint64_t r = next(rng);
    const std::size_t at = static_cast<std::size_t>(r % bytes.size());
    const int bit = static_cast<int>((r >> 32) % 8);
    std::string copy = bytes;
    copy[at] = static_cast<char>(copy[at] ^ (1 << bit));
    std::ofstream(damaged, std::ios::binary | std::ios::trunc) << copy;
    const std::string outcome = analyze_in_child(damaged, 20);
    ++outcomes[outcome];
    INFO("flip " << i << ": bit " << bit << " of byte " << at << " of " << bytes.size());
    CHECK((outcome == "exit 0" || outcome == "exit 2"));
  }
  for (const auto& [outcome, n] : outcomes) UNSCOPED_INFO(outcome << ": " << n);
  // Flips in bytes no read depends on (free space, padding, /input_bytes, which analyze
  // does not read) change nothing; the others are refused.
  CHECK(outcomes["exit 2"] > 0);
}

TEST_CASE("names that reach fixed-width trace columns are bounded when the scenario is read", "[unit][trace]") {
  const auto scenario_with_job_name = [](const std::string& name) {
    return gcsim::test::scenario_from_yaml(R"(name: bounded
horizon: 2h
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: )" + name + R"(, submit: 0h, gpus: 8, duration: 1h}
)");
  };
  // 255 bytes (the bound) load, run and read back whole.
  const std::string longest(255, 'j');
  gcsim::test::TempDir dir("trace-names");
  const gcsim::analysis::TraceData d = gcsim::test::run_to_trace(scenario_with_job_name(longest), dir.file("t.h5"));
  REQUIRE(d.jobs.size() == 1);
  CHECK(d.jobs[0].name == longest);
  // One more byte is refused with the key and its position.
  try {
    (void)scenario_with_job_name(std::string(256, 'j'));
    FAIL("a 256-byte name was accepted");
  } catch (const gcsim::ConfigError& e) {
    CHECK(e.code() == gcsim::ErrorCode::OutOfRange);
    CHECK_THAT(e.what(), Catch::Contains("workload.jobs[0].name") && Catch::Contains("at most 255 bytes") &&
                             Catch::Contains("test.yaml:8:"));
  }
}

TEST_CASE("catalog names that reach fixed-width trace columns are bounded when the catalog is read", "[unit][trace]") {
  const std::string long_name(256, 'g');
  SECTION("a GPU catalog entry") {
    const auto doc = gcsim::config::load_yaml_string("gpus:\n  - name: " + long_name + "\n", "gpus.yaml");
    gcsim::models::GpuCatalog gpus;
    try {
      gpus.add_from(doc.root);
      FAIL("a 256-byte GPU name was accepted");
    } catch (const gcsim::ConfigError& e) {
      CHECK(e.code() == gcsim::ErrorCode::OutOfRange);
      CHECK_THAT(e.what(), Catch::Contains("gpus.yaml:2:") && Catch::Contains("at most 255 bytes"));
    }
  }
  SECTION("each part of an instance id") {
    std::istringstream csv("provider,instance_type,gpu,gpus,region,on_demand_per_hour,snapshot,source\naws," + long_name +
                           ",H100,8,us-east-1,98.32,2026-01-21,test\n");
    gcsim::models::InstanceCatalog catalog;
    try {
      catalog.load(csv, "mine.csv");
      FAIL("a 256-byte instance type was accepted");
    } catch (const gcsim::ConfigError& e) {
      CHECK(e.code() == gcsim::ErrorCode::OutOfRange);
      CHECK_THAT(e.what(), Catch::Contains("mine.csv:2:") && Catch::Contains("instance_type"));
    }
  }
}
