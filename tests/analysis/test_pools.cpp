// Elastic pools in `gcsim analyze` (analysis/pools.hpp): node-hours, cost, decisions and the
// waiting scaling did not prevent, from hand-built tables; and the tables as a real run
// writes them.
#include <catch2/catch.hpp>

#include <string>

#include "analysis/pools.hpp"
#include "analysis/trace_data.hpp"
#include "models/simulation.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using analysis::PoolSizeRow;

TEST_CASE("elastic pools: node-hours, cost and unprevented waiting by hand", "[unit][analysis][autoscale]") {
  analysis::TraceData t;
  t.attrs.end_s = 10 * 3600.0;
  // Value-initialized, names given at construction: GCC 12 at -O2 warns (maybe-uninitialized,
  // a false positive that comes and goes with the inlining of unrelated headers) on a short
  // name assigned into a default-initialized record.
  analysis::PoolRecord fixed{}, elastic{};
  fixed.name = std::string("fixed");
  elastic.name = std::string("el");
  elastic.gpus_per_node = 8;
  t.pools = {fixed, elastic};
  analysis::NodeRecord a, b, c;
  a.node_type = "fixed";
  a.up_time_s = 36000;
  a.cost_usd = 100;
  b.node_type = "el";
  b.up_time_s = 2 * 3600;
  b.cost_usd = 20;
  c.node_type = "el";
  c.up_time_s = 3600;
  c.cost_usd = 10;
  t.nodes = {a, b, c};
  analysis::ElasticPoolTables tables;
  // Pool 1 (max 2): from 0 nothing; at 1h 16 GPUs wait, one node provisioning; at 2h it is
  // up (8 held, 8 wait); at 3h two up (at max), 8 more wait; at 5h nothing waits, 16 held;
  // at 6h empty.
  tables.sizes = {
      PoolSizeRow{0, 1, 2, 0, 0, 0, 0, 0, 0, 0},        PoolSizeRow{3600, 1, 2, 1, 0, 0, 0, 0, 16, 0},
      PoolSizeRow{7200, 1, 2, 0, 1, 0, 8, 8, 8, 0},     PoolSizeRow{10800, 1, 2, 0, 2, 0, 16, 16, 8, 0},
      PoolSizeRow{18000, 1, 2, 0, 2, 0, 16, 16, 0, 0},  PoolSizeRow{21600, 1, 2, 0, 0, 0, 0, 0, 0, 0},
  };
  tables.decisions = {analysis::ScaleDecisionRow{3600, 1, true, "waiting_gpus", 16, 1, 0, 1},
                      analysis::ScaleDecisionRow{7200, 1, true, "waiting_gpus", 8, 1, 1, 2},
                      analysis::ScaleDecisionRow{21600, 1, false, "idle", 2, 2, 2, 0}};
  const auto pools = analysis::summarize_elastic_pools(t, tables);
  REQUIRE(pools.size() == 1);
  const auto& p = pools[0];
  CHECK(p.name == "el");
  CHECK(p.slots == 2);
  CHECK(p.fewest == 0);
  CHECK(p.most == 2);
  CHECK(p.scale_outs == 2);
  CHECK(p.scale_ins == 1);
  CHECK(p.node_hours == Approx(3.0));
  CHECK(p.cost_usd == Approx(30.0));
  // Waiting: 16 GPUs x 1 h + 8 x 1 h + 8 x 2 h = 40 GPU-hours; at max (3h-5h): 16.
  CHECK(p.waiting_gpu_hours == Approx(40.0));
  CHECK(p.waiting_at_max_gpu_hours == Approx(16.0));
  // Held: 8 x 1 h + 16 x 3 h = 56 GPU-hours.
  CHECK(p.gpu_hours_held == Approx(56.0));
  const std::string text = analysis::format_elastic_pools(pools);
  CHECK(text.find("el: 0..2 nodes (max 2); 2 scale-outs, 1 scale-in") != std::string::npos);
  CHECK(text.find("40.0 GPU-hours (16.0 at max, 24.0 below it") != std::string::npos);
  CHECK(analysis::format_elastic_pools({}).empty());
}

TEST_CASE("elastic pools: a run writes /pool_sizes and /scale_decisions", "[scenario][autoscale]") {
  // The 0 -> 1 -> 0 run of tests/models/test_autoscaler.cpp: requested at 1h05, released at
  // 2h39 (94 min billed at $3.60/h = $5.64); the job waits from 1h00 to 1h09: 9 min x 8 GPUs
  // = 1.2 GPU-hours, none at max (max 2); it holds 8 GPUs for 1 h.
  const auto s = test::scenario_from_yaml(
      "name: el\nhorizon: 10h\ncluster:\n  node_types:\n    - name: n\n      gpu: V100-SXM2-16GB\n      gpus: 8\n"
      "      count: 0\n      price: {on_demand_per_hour: 3.6}\n      autoscale: {max: 2, scale_out: {when: waiting_gpus >= 8, "
      "for: 5m}, scale_in: {when: idle, for: 30m}, provisioning: 4m}\nworkload:\n  jobs:\n"
      "    - {name: A, gpus: 8, duration: 1h, submit: 1h}\n");
  test::TempDir dir("pools");
  const std::string path = dir.file("el.h5");
  const analysis::TraceData data = test::run_to_trace(s, path);
  const analysis::ElasticPoolTables tables = analysis::read_elastic_pools(path);
  REQUIRE(tables.decisions.size() == 2);
  CHECK(tables.decisions[0].time_s == Approx(3900));
  CHECK(tables.decisions[0].out);
  CHECK(tables.decisions[0].trigger == "waiting_gpus");
  CHECK(tables.decisions[1].time_s == Approx(2 * 3600 + 39 * 60));
  CHECK(tables.decisions[1].trigger == "idle");
  CHECK_FALSE(tables.decisions[1].out);
  const auto pools = analysis::summarize_elastic_pools(data, tables);
  REQUIRE(pools.size() == 1);
  CHECK(pools[0].cost_usd == Approx(94.0 / 60 * 3.6));
  CHECK(pools[0].node_hours == Approx(94.0 / 60));
  CHECK(pools[0].waiting_gpu_hours == Approx(8 * 9.0 / 60));
  CHECK(pools[0].waiting_at_max_gpu_hours == 0);
  CHECK(pools[0].gpu_hours_held == Approx(8.0));
}

TEST_CASE("elastic pools: a trace without them has none", "[scenario][autoscale]") {
  const auto s = test::scenario_from_yaml(
      "name: fixed\nhorizon: 1h\ncluster:\n  node_types:\n    - {name: n, gpu: V100-SXM2-16GB, gpus: 1, count: 1, "
      "price: {on_demand_per_hour: 1}}\nworkload:\n  jobs:\n    - {name: A, gpus: 1, duration: 1m}\n");
  test::TempDir dir("pools-none");
  const std::string path = dir.file("f.h5");
  const analysis::TraceData data = test::run_to_trace(s, path);
  const analysis::ElasticPoolTables tables = analysis::read_elastic_pools(path);
  CHECK(tables.empty());
  CHECK(analysis::summarize_elastic_pools(data, tables).empty());
}
