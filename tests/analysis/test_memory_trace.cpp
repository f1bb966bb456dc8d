// A trace in memory (sim/trace/memory_trace.hpp) reads back as the same trace written to a
// file: every table the analysis reads, value for value, and so every figure.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "analysis/metrics.hpp"
#include "analysis/strategy_comparison.hpp"
#include "analysis/trace_data.hpp"
#include "models/register_builtins.hpp"
#include "models/simulation.hpp"
#include "sim/errors.hpp"
#include "sim/trace/memory_trace.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

// Spot nodes with checkpoints and a budget-free mix of sizes: every table has rows.
const char* SCENARIO = R"(name: mem
seed: 5
horizon: 4d
cluster:
  node_types:
    - {name: od, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 96, memory: 1152GiB, count: 1,
       price: {on_demand_per_hour: 32.77}}
    - {name: spot, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 96, memory: 1152GiB, count: 2, market: spot,
       price: {on_demand_per_hour: 32.77, spot_per_hour: 12.0}, interruptions: {process: poisson, rate: 0.08/h}}
workload:
  generators:
    - name: g
      count: 80
      arrival: {dist: exponential, mean: 30m}
      gpus: {choice: [1, 2, 4, 8]}
      duration: {dist: lognormal, median: 2h, sigma: 1}
      team: research
      checkpoint: {every: 30m, write_time: 1m, restore_time: 2m}
)";

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

TEST_CASE("a trace in memory reads back as the same trace written to a file", "[unit][trace]") {
  test::TempDir dir("memory_trace");
  const models::Scenario s = test::scenario_from_yaml(SCENARIO);
  models::RunOptions o;
  o.fixed_wall_clock_s = 0.0;
  models::run_simulation_to(s, models::builtins().schedulers, dir.file("mem.h5"), o);
  const analysis::TraceData file = analysis::read_trace(dir.file("mem.h5"));

  trace::MemoryTrace memory("mem (in memory)");
  models::run_simulation(s, models::builtins().schedulers, &memory, o);
  memory.commit();
  const analysis::TraceData mem = analysis::read_trace(memory, "mem (in memory)");

  CHECK(mem.attrs.scenario_name == file.attrs.scenario_name);
  CHECK(mem.attrs.seed == file.attrs.seed);
  CHECK(mem.attrs.end_s == file.attrs.end_s);
  REQUIRE(mem.jobs.size() == file.jobs.size());
  REQUIRE(file.jobs.size() == 80);
  for (std::size_t i = 0; i < mem.jobs.size(); ++i) {
    INFO("job " << i);
    CHECK(mem.jobs[i].name == file.jobs[i].name);
    CHECK(same(mem.jobs[i].start_s, file.jobs[i].start_s));
    CHECK(same(mem.jobs[i].end_s, file.jobs[i].end_s));
    CHECK(mem.jobs[i].cost_usd == file.jobs[i].cost_usd);
    CHECK(mem.jobs[i].status == file.jobs[i].status);
    CHECK(mem.jobs[i].resilience.interruptions == file.jobs[i].resilience.interruptions);
  }
  CHECK(mem.events.size() == file.events.size());
  CHECK(mem.utilization.size() == file.utilization.size());
  CHECK(mem.ledger.size() == file.ledger.size());
  CHECK(mem.nodes.size() == file.nodes.size());
  CHECK(mem.node_events.size() == file.node_events.size());
  CHECK(mem.event_kind_labels == file.event_kind_labels);
  std::size_t interrupted = 0;
  for (const auto& j : file.jobs) interrupted += j.resilience.interruptions > 0 ? 1 : 0;
  CHECK(interrupted > 0);  // the spot market took nodes: the tables are not trivial

  // Every figure the same, bit for bit.
  const auto fm = analysis::strategy_figures(file, analysis::compute_metrics(file));
  const auto mm = analysis::strategy_figures(mem, analysis::compute_metrics(mem));
  for (std::size_t f = 0; f < fm.size(); ++f) {
    INFO(analysis::STRATEGY_FIGURES[f].key);
    CHECK(same(mm[f], fm[f]));
  }

  // Reads as the file reader does: missing things and other kinds are errors.
  CHECK_THROWS_AS(memory.column_f64("jobs", "no_such_column"), Error);
  CHECK_THROWS_AS(memory.column_str("jobs", "start_s"), Error);
  CHECK_THROWS_AS(memory.rows("no_such_table"), Error);
  CHECK_THROWS_AS(memory.attribute_double("scenario_name"), Error);
  CHECK_THROWS_AS(memory.bytes("input_bytes", 0, 1u << 30), Error);
}
