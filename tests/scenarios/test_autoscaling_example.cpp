// The bundled autoscaling example (scenarios/examples/autoscaling/elastic-p4d.yaml) and the
// command line's handling of an elastic pool: its figures as approved (docs/autoscaling.md
// and the example's README quote them; a change is on purpose), the same run twice giving
// the same decisions, `gcsim analyze` with its section and plots, and a bad `when:` as a
// located error with exit code 2.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/pools.hpp"
#include "analysis/trace_data.hpp"
#include "support/scenario_support.hpp"

using gcsim::test::run_gcsim;

namespace {
const std::string EXAMPLE = GCSIM_SOURCE_DIR "/scenarios/examples/autoscaling/elastic-p4d.yaml";
}

TEST_CASE("autoscaling example: a week on an elastic p4d pool", "[scenario][autoscale]") {
  gcsim::test::TempDir dir("autoscaling-example");
  const auto r = run_gcsim("run " + EXAMPLE + " -o " + dir.path().string() + " --no-plots");
  INFO(r.output);
  REQUIRE(r.code == 0);
  const std::string trace = dir.file("elastic-p4d.h5");
  const auto data = gcsim::analysis::read_trace(trace);
  const auto tables = gcsim::analysis::read_elastic_pools(trace);
  const auto pools = gcsim::analysis::summarize_elastic_pools(data, tables);
  REQUIRE(pools.size() == 2);
  // Approved figures of this seed (the example's README).
  CHECK(pools[0].name == "p4d");
  CHECK(pools[0].most == 6);
  CHECK(pools[0].fewest == 0);
  CHECK(pools[0].scale_outs == 17);
  CHECK(pools[0].scale_ins == 14);
  CHECK(pools[0].cost_usd == Approx(9210.57).margin(0.01));
  CHECK(pools[1].name == "dev");
  CHECK(pools[1].scale_outs == 5);
  CHECK(pools[1].scale_ins == 5);
  CHECK(pools[1].most == 2);
  // Never above max, whatever the demand.
  for (const auto& row : tables.sizes) CHECK(row.provisioning + row.up + row.draining <= row.slots);

  SECTION("the same scenario, the same decisions") {
    const auto again = run_gcsim("run " + EXAMPLE + " -o " + dir.file("again") + " --no-plots");
    REQUIRE(again.code == 0);
    const auto t2 = gcsim::analysis::read_elastic_pools(dir.file("again") + "/elastic-p4d.h5");
    REQUIRE(t2.decisions.size() == tables.decisions.size());
    for (std::size_t i = 0; i < t2.decisions.size(); ++i) {
      CHECK(t2.decisions[i].time_s == tables.decisions[i].time_s);
      CHECK(t2.decisions[i].nodes == tables.decisions[i].nodes);
    }
  }
  SECTION("gcsim analyze reports the pools and plots them") {
    const auto a = run_gcsim("analyze " + trace + " --plot " + dir.file("plots"));
    INFO(a.output);
    REQUIRE(a.code == 0);
    CHECK(a.output.find("Elastic pools") != std::string::npos);
    CHECK(a.output.find("p4d: 0..6 nodes (max 6); 17 scale-outs, 14 scale-ins") != std::string::npos);
    CHECK(std::filesystem::file_size(dir.file("plots") + "/pool_p4d.png") > 1000);
    CHECK(std::filesystem::file_size(dir.file("plots") + "/pool_dev.png") > 1000);
    const auto j = run_gcsim("analyze " + trace + " --json");
    REQUIRE(j.code == 0);
    CHECK(j.output.find("\"elastic_pools\": [") != std::string::npos);
    CHECK(j.output.find("\"scale_outs\": 17") != std::string::npos);
    CHECK(j.output.find("\"total_cost_usd\"") != std::string::npos);
  }
}

TEST_CASE("autoscaling: a bad when-expression exits 2 with its line and column", "[scenario][autoscale][cli]") {
  gcsim::test::TempDir dir("autoscaling-bad");
  const std::string bad = dir.file("bad.yaml");
  std::ofstream(bad) << "name: bad\nhorizon: 1d\ncluster:\n  node_types:\n"
                        "    - name: n\n      gpu: T4\n      gpus: 1\n      count: 0\n      price: {on_demand_per_hour: 1}\n"
                        "      autoscale:\n        max: 2\n        scale_out: {when: gpu_utilisation > 80%}\n"
                        "workload:\n  jobs:\n    - {name: j, gpus: 1, duration: 1h}\n";
  const auto v = run_gcsim("validate " + bad);
  INFO(v.output);
  CHECK(v.code == 2);
  // `        scale_out: {when: gpu_utilisation > 80%}`: the measure starts at column 27.
  CHECK(v.output.find("bad.yaml:12:27:") != std::string::npos);
  CHECK(v.output.find("unknown-name") != std::string::npos);
  CHECK(v.output.find("did you mean 'gpu_utilization'") != std::string::npos);
  CHECK(v.output.find("cluster.node_types[0].autoscale.scale_out.when") != std::string::npos);
}

TEST_CASE("autoscaling with a network: the scaled-out nodes have their NICs", "[scenario][autoscale][network]") {
  // Four 1-GPU slots n-0..n-3 on two switches joined by one core link (the explicit fabric
  // lists every slot as a host), all empty at the start; every link and NIC at 1 GB/s.
  // A (2 GPUs, 100 s of compute in 10 steps, each followed by a 1 GB ring all-reduce) waits
  // at 0: the pool requests 2 nodes at once (for 0s, by 2, no provisioning): n-0 and n-1,
  // on either side of the core. Each all-reduce then moves 1 GB each way over the core: 1 s
  // at 1 GB/s, so A ends at 110 s, as on a fixed pool (tests/scenarios/test_model_runs.cpp).
  const auto s = gcsim::test::scenario_from_yaml(
      "name: elastic-net\nhorizon: 10h\ncluster:\n  node_types:\n"
      "    - {name: n, gpu: A100-40GB-SXM, gpus: 1, count: 0, price: {on_demand_per_hour: 1},\n"
      "       nics: {count: 1, speed: 8Gbps, rdma: true},\n"
      "       autoscale: {max: 4, scale_out: {when: waiting_gpus >= 1, by: 2}, scale_in: {when: idle, for: 1h, by: 2}}}\n" +
      gcsim::test::two_switch_network("1GB/s", "1GB/s") +
      "workload:\n  jobs:\n    - {name: A, gpus: 2, duration: 100s, comm: {bytes: 1GB, every: 10s}}\n");
  gcsim::test::TempDir dir("autoscaling-net");
  const auto data = gcsim::test::run_to_trace(s, dir.file("net.h5"));
  REQUIRE(data.jobs.size() == 1);
  CHECK(data.jobs[0].start_s == 0);
  CHECK(data.jobs[0].end_s == Approx(110.0).epsilon(1e-6));
  const auto tables = gcsim::analysis::read_elastic_pools(dir.file("net.h5"));
  REQUIRE(tables.decisions.size() == 2);
  CHECK(tables.decisions[0].nodes == 2);
  // Idle from A's end (110 s and the hops' microseconds of latency), both go 1 h later.
  CHECK(tables.decisions[1].time_s == Approx(data.jobs[0].end_s + 3600).epsilon(1e-12));
  CHECK(tables.decisions[1].nodes == 2);
}
