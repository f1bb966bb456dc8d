// Whole runs: scenario file -> engine -> HDF5 trace -> analysis, against numbers computed
// by hand, against approved golden summaries, and for bit-for-bit reproducibility.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/metrics.hpp"
#include "analysis/report.hpp"
#include "analysis/trace_data.hpp"
#include "models/config/scenario_loader.hpp"
#include "models/simulation.hpp"
#include "sim/trace/table_writer.hpp"
#include "sim/trace/trace_reader.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using test::run_to_trace;
using test::run_yaml;

namespace {

const char* HAND = R"(name: hand
seed: 1
horizon: 10h
run_until: done
cluster:
  node_types:
    - {name: n4, gpu: A100-40GB-SXM, gpus: 4, count: 2, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: A, submit: 0h, gpus: 4, duration: 2h}
    - {name: B, submit: 0h, gpus: 2, duration: 1h}
    - {name: C, submit: 30m, gpus: 8, duration: 1h}
    - {name: D, submit: 1h, gpus: 1, duration: 30m}
)";

}  // namespace

TEST_CASE("report numbers on a scenario computed by hand", "[scenario]") {
  // Same cluster as the FIFO model test: A 0-2h on node 0, B 0-1h on node 1, C (8 GPUs,
  // whole nodes) 2h-3h, D 3h-3h30. The run ends at 3.5h.
  test::TempDir dir("hand");
  const auto t = run_to_trace(test::scenario_from_yaml(HAND), dir.file("hand.h5"));
  const auto m = analysis::compute_metrics(t);
  // Nodes 2 x $8/h x 3.5h = $56; jobs $16 + $4 + $16 + $1 = $37 busy; $19 idle.
  CHECK(m.total_cost_usd == Approx(56.0).epsilon(1e-12));
  CHECK(m.busy_cost_usd == Approx(37.0).epsilon(1e-12));
  CHECK(m.idle_cost_usd == Approx(19.0).epsilon(1e-12));
  CHECK(m.cost_per_completed_job_usd == Approx(14.0).epsilon(1e-12));
  // Allocated GPUs: 6 on [0,1h), 4 on [1h,2h), 8 on [2h,3h), 1 on [3h,3.5h) -> 18.5 GPU-h of 28.
  CHECK(m.gpu_hours_delivered == Approx(18.5).epsilon(1e-12));
  CHECK(m.gpu_utilization == Approx(18.5 / 28.0).epsilon(1e-12));
  CHECK(m.cost_per_gpu_hour_usd == Approx(56.0 / 18.5).epsilon(1e-12));
  // Waits 0, 0, 1.5h, 2h: mean 0.875h; p95 by linear interpolation: rank 2.85 -> 5400 + 0.85 x 1800.
  CHECK(m.wait_s.mean == Approx(0.875 * 3600).epsilon(1e-12));
  CHECK(m.wait_s.p50 == Approx(0.75 * 3600).epsilon(1e-12));
  CHECK(m.wait_s.p95 == Approx(6930.0).epsilon(1e-12));
  // JCT 2h, 1h, 2.5h, 2.5h: mean 2h.
  CHECK(m.jct_s.mean == Approx(2.0 * 3600).epsilon(1e-12));
  CHECK(m.makespan_s == Approx(3.5 * 3600).epsilon(1e-12));
  CHECK(m.jobs_completed == 4);
  CHECK(m.jobs_total == 4);

  // The trace itself: one row per job, utilization as a step function, the scenario embedded.
  REQUIRE(t.jobs.size() == 4);
  CHECK(t.jobs[2].name == "C");
  CHECK(t.jobs[2].nodes == 2);
  CHECK(t.jobs[2].gpus_held == 8);
  CHECK(t.jobs[2].start_s == 7200.0);
  CHECK(t.attrs.scenario_yaml == HAND);
  CHECK(t.attrs.seed == 1);
  CHECK(t.attrs.end_s == 3.5 * 3600);
  std::vector<std::pair<double, int>> steps;
  for (const auto& u : t.utilization) steps.emplace_back(u.time_s, u.allocated_gpus);
  // Changes at one instant (A's end and C's start at 2h) give one row.
  CHECK(steps == std::vector<std::pair<double, int>>{{0, 6}, {3600, 4}, {7200, 8}, {10800, 1}, {12600, 0}});
}

TEST_CASE("same scenario and seed give the same trace, bit for bit", "[scenario]") {
  test::TempDir dir("determinism");
  const auto s = models::load_scenario_file(GCSIM_SOURCE_DIR "/scenarios/examples/quickstart.yaml", test::load_options());
  run_to_trace(s, dir.file("a.h5"));
  run_to_trace(s, dir.file("b.h5"));
  const std::string a = test::read_bytes(dir.file("a.h5"));
  CHECK(a.size() > 1000);
  CHECK(a == test::read_bytes(dir.file("b.h5")));
  // Another replication draws another workload.
  run_to_trace(s, dir.file("c.h5"), 1);
  CHECK(a != test::read_bytes(dir.file("c.h5")));
}

namespace {

// The run of `scenario_path` against its approved summary at `golden_path` (both under the
// source tree). To approve a deliberate change: GCSIM_UPDATE_GOLDEN=1 ./test_scenarios,
// then review the diff and say in the commit why the numbers moved.
void check_golden(const std::string& scenario_path, const std::string& golden_path) {
  test::TempDir dir("golden");
  const auto s = models::load_scenario_file(scenario_path, test::load_options());
  const auto t = run_to_trace(s, dir.file("q.h5"));
  const std::string json = analysis::format_json(analysis::compute_metrics(t), t.attrs);
  if (std::getenv("GCSIM_UPDATE_GOLDEN")) {
    std::ofstream(golden_path) << json;
    WARN("golden summary rewritten: " << golden_path);
  }
  const std::string golden = test::read_bytes(golden_path);
  REQUIRE(!golden.empty());
  // Compare every number within 1e-9 relative (libm may differ in the last bit between
  // platforms), and everything else exactly.
  auto numbers = [](const std::string& text) {
    std::vector<std::pair<std::string, std::string>> out;
    std::size_t i = 0;
    while ((i = text.find('"', i)) != std::string::npos) {
      const auto k_end = text.find('"', i + 1);
      const std::string key = text.substr(i + 1, k_end - i - 1);
      const auto colon = text.find_first_not_of(" ", k_end + 1);
      if (colon == std::string::npos || text[colon] != ':') {
        i = k_end + 1;
        continue;
      }
      const auto v_begin = text.find_first_not_of(" ", colon + 1);
      const auto v_end = text.find_first_of(",}\n", v_begin);
      if (text[v_begin] == '"') {
        const auto s_end = text.find('"', v_begin + 1);
        out.emplace_back(key, text.substr(v_begin, s_end - v_begin + 1));
        i = s_end + 1;
      } else {
        out.emplace_back(key, text.substr(v_begin, v_end - v_begin));
        i = v_end;
      }
    }
    return out;
  };
  const auto got = numbers(json);
  const auto want = numbers(golden);
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO(got[i].first << ": got " << got[i].second << ", golden " << want[i].second);
    CHECK(got[i].first == want[i].first);
    // Where the clone lives and how fast the machine is are not part of the result.
    if (got[i].first == "gcsim_version" || got[i].first == "scenario_file" || got[i].first == "wall_clock_s") continue;
    char* end = nullptr;
    const double g = std::strtod(got[i].second.c_str(), &end);
    if (end != got[i].second.c_str() && *end == '\0') {
      const double w = std::strtod(want[i].second.c_str(), nullptr);
      CHECK(std::abs(g - w) <= 1e-9 * std::max(1.0, std::abs(w)));
    } else {
      CHECK(got[i].second == want[i].second);
    }
  }
}

}  // namespace

TEST_CASE("the quickstart matches its approved golden summary", "[scenario]") {
  check_golden(GCSIM_SOURCE_DIR "/scenarios/examples/quickstart.yaml", GCSIM_SOURCE_DIR "/tests/golden/quickstart.json");
}

// Spot interruptions with notices and replacements, checkpoints, a shared file system and
// staging, collectives over a leaf-spine fabric, generated arrivals, backfill: what the
// quickstart golden does not reach (tests/golden/spot_storage_network.yaml).
TEST_CASE("a run with spot, storage and network matches its approved golden summary", "[scenario]") {
  check_golden(GCSIM_SOURCE_DIR "/tests/golden/spot_storage_network.yaml",
               GCSIM_SOURCE_DIR "/tests/golden/spot_storage_network.json");
}
