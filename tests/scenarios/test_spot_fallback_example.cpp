// The bundled elastic spot example (scenarios/examples/autoscaling/spot-with-fallback.yaml):
// its figures as approved (the example's README quotes them; a change is on purpose), the
// on-demand pool growing for spilled demand only while the spot market has no capacity
// (12:00 to 18:00) or the spot pool is at its max, the same run twice giving the same
// decisions, `gcsim analyze`'s section, and a second provisioning delay refused with exit
// code 2 and its line and column.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include "analysis/pools.hpp"
#include "analysis/trace_data.hpp"
#include "support/scenario_support.hpp"

using gcsim::test::run_gcsim;

namespace {
const std::string EXAMPLE = GCSIM_SOURCE_DIR "/scenarios/examples/autoscaling/spot-with-fallback.yaml";
}

TEST_CASE("elastic spot example: a week on a spot pool falling back to on demand", "[scenario][autoscale][spot]") {
  gcsim::test::TempDir dir("spot-fallback-example");
  const auto r = run_gcsim("run " + EXAMPLE + " -o " + dir.path().string() + " --no-plots");
  INFO(r.output);
  REQUIRE(r.code == 0);
  const std::string trace = dir.file("spot-with-fallback.h5");
  const auto data = gcsim::analysis::read_trace(trace);
  const auto tables = gcsim::analysis::read_elastic_pools(trace);
  const auto pools = gcsim::analysis::summarize_elastic_pools(data, tables);
  REQUIRE(pools.size() == 2);
  CHECK(pools[0].name == "spot");
  CHECK(pools[1].name == "od");
  // Never above max, whatever the demand.
  for (const auto& row : tables.sizes) CHECK(row.provisioning + row.up + row.draining <= row.slots);
  // The on-demand pool grows only for spilled demand (every job could run on either pool):
  // each of its scale-outs has the trigger `fallback`, and comes while the spot market has
  // no capacity (12:00 to 18:00 each day) or while the spot pool is at its max (4 nodes).
  int od_out = 0, in_window = 0;
  for (const auto& d : tables.decisions) {
    if (d.pool != 1 || !d.out) continue;
    ++od_out;
    CHECK(d.trigger == "fallback");
    const double hour = std::fmod(d.time_s, 86400.0) / 3600.0;
    if (hour >= 12 && hour < 18) {
      ++in_window;
      continue;
    }
    // Outside the window: the spot pool was at its max then (its last size row at or before).
    int spot_size = -1;
    for (const auto& row : tables.sizes)
      if (row.pool == 0 && row.time_s <= d.time_s) spot_size = row.provisioning + row.up + row.draining;
    CHECK(spot_size == 4);
  }
  CHECK(od_out > 0);
  CHECK(in_window > 0);
  // No spot scale-out inside the window: its market has no capacity then.
  for (const auto& d : tables.decisions) {
    if (d.pool != 0 || !d.out) continue;
    const double hour = std::fmod(d.time_s, 86400.0) / 3600.0;
    CHECK((hour < 12 || hour >= 18));
  }
  // Approved figures of this seed (the example's README).
  CHECK(pools[0].scale_outs == 22);
  CHECK(pools[0].scale_ins == 21);
  CHECK(pools[0].cost_usd == Approx(1096.62).margin(0.01));
  CHECK(pools[1].scale_outs == 8);
  CHECK(pools[1].scale_ins == 8);
  CHECK(pools[1].cost_usd == Approx(3459.46).margin(0.01));

  SECTION("the same scenario, the same decisions") {
    const auto again = run_gcsim("run " + EXAMPLE + " -o " + dir.file("again") + " --no-plots");
    REQUIRE(again.code == 0);
    const auto t2 = gcsim::analysis::read_elastic_pools(dir.file("again") + "/spot-with-fallback.h5");
    REQUIRE(t2.decisions.size() == tables.decisions.size());
    for (std::size_t i = 0; i < t2.decisions.size(); ++i) {
      CHECK(t2.decisions[i].time_s == tables.decisions[i].time_s);
      CHECK(t2.decisions[i].pool == tables.decisions[i].pool);
      CHECK(t2.decisions[i].nodes == tables.decisions[i].nodes);
      CHECK(t2.decisions[i].trigger == tables.decisions[i].trigger);
    }
  }
  SECTION("gcsim analyze reports both pools") {
    const auto a = run_gcsim("analyze " + trace);
    INFO(a.output);
    REQUIRE(a.code == 0);
    CHECK(a.output.find("spot: 0..4 nodes (max 4); 22 scale-outs, 21 scale-ins") != std::string::npos);
    CHECK(a.output.find("od: 0..4 nodes (max 4); 8 scale-outs, 8 scale-ins") != std::string::npos);
  }
}

TEST_CASE("elastic spot: two provisioning delays exit 2 with the line and column", "[scenario][autoscale][spot][cli]") {
  gcsim::test::TempDir dir("spot-provisioning");
  const std::string bad = dir.file("bad.yaml");
  std::ofstream(bad) << "name: bad\nhorizon: 1d\ncluster:\n  node_types:\n"
                        "    - name: s\n      gpu: T4\n      gpus: 1\n      count: 0\n      market: spot\n"
                        "      price: {spot_per_hour: 0.2}\n      provisioning: 3m\n"
                        "      autoscale: {max: 2, scale_in: {when: idle}, provisioning: 5m}\n"
                        "workload:\n  jobs:\n    - {name: j, gpus: 1, duration: 1h}\n";
  const auto v = run_gcsim("validate " + bad);
  INFO(v.output);
  CHECK(v.code == 2);
  CHECK(v.output.find("bad.yaml:12:65:") != std::string::npos);
  CHECK(v.output.find("cluster.node_types[0].autoscale.provisioning") != std::string::npos);
  CHECK(v.output.find("conflict") != std::string::npos);
}
