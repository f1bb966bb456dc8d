// Traces built in memory (TraceFile::create_in_memory, read_trace_image): the runs of a
// sweep keep their figures without a file. The bytes must be the file's, byte for byte,
// so every figure computed from them is the one `gcsim analyze` gives for the file.
#include <catch2/catch.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/metrics.hpp"
#include "analysis/trace_data.hpp"
#include "models/register_builtins.hpp"
#include "models/simulation.hpp"
#include "sim/errors.hpp"
#include "sim/trace/table_writer.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

const char* SCENARIO = R"(name: mem
seed: 3
horizon: 3d
cluster:
  node_types:
    - {name: p4d, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 96, memory: 1152GiB, count: 2,
       price: {on_demand_per_hour: 32.77}}
workload:
  generators:
    - name: g
      count: 60
      arrival: {dist: exponential, mean: 30m}
      gpus: {choice: [1, 2, 4, 8]}
      duration: {dist: lognormal, median: 1h, sigma: 1}
)";

}  // namespace

TEST_CASE("a trace built in memory holds the bytes of the same trace written to a file", "[unit][trace]") {
  test::TempDir dir("trace_in_memory");
  const models::Scenario s = test::scenario_from_yaml(SCENARIO);
  models::RunOptions o;
  o.fixed_wall_clock_s = 0.0;
  for (const int level : {0, 1}) {
    o.trace_compression = level;
    const std::string path = dir.file("mem" + std::to_string(level) + ".h5");
    models::run_simulation_to(s, models::builtins().schedulers, path, o);

    std::vector<std::byte> image;
    trace::TraceOptions t;
    t.compression_level = level;
    auto memory = trace::TraceFile::create_in_memory("mem (in memory)", image, t);
    models::run_simulation(s, models::builtins().schedulers, memory.get(), o);
    CHECK(image.empty());  // nothing until commit
    memory->commit();
    REQUIRE_FALSE(image.empty());

    const std::string bytes = test::read_bytes(path);
    CHECK(image.size() == bytes.size());
    CHECK(std::string(reinterpret_cast<const char*>(image.data()), image.size()) == bytes);

    // And it reads back to the same figures as the file.
    const analysis::Metrics from_file = analysis::compute_metrics(analysis::read_trace(path));
    const analysis::Metrics from_memory = analysis::compute_metrics(analysis::read_trace_image(image, "mem (in memory)"));
    CHECK(from_memory.total_cost_usd == from_file.total_cost_usd);
    CHECK(from_memory.jobs_completed == from_file.jobs_completed);
    CHECK(from_memory.jct_s.mean == from_file.jct_s.mean);
    CHECK(from_memory.jobs_completed > 0);
  }
  // Nothing but the two files was written.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 2);
}

TEST_CASE("bytes that are not a trace are refused by label, with no file opened", "[unit][trace]") {
  const std::vector<std::byte> junk(4096, std::byte{0x5a});
  CHECK_THROWS_AS(analysis::read_trace_image(junk, "junk (in memory)"), Error);
  CHECK_THROWS_AS(analysis::read_trace_image({}, "empty (in memory)"), Error);
  try {
    analysis::read_trace_image(junk, "junk (in memory)");
  } catch (const Error& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("junk (in memory)"));
  }
}
