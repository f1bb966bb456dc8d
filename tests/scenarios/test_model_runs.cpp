// Runs that use the deeper models: jobs whose steps wait for collectives on a shared
// network, and jobs described by their model, which run at the step-time model's speed.
#include <catch2/catch.hpp>

#include <cstdio>
#include <sys/wait.h>

#include "analysis/metrics.hpp"
#include "analysis/trace_data.hpp"
#include "models/simulation.hpp"
#include "models/topology/topology.hpp"
#include "models/coupling/job_speed.hpp"
#include "sim/trace/table_writer.hpp"
#include "sim/trace/trace_reader.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using test::run_to_trace;
using test::run_yaml;

namespace {

// Four 1-GPU nodes on two switches joined by one core link (test::two_switch_network), so
// a job on n-0,n-1 and a job on n-2,n-3 share it. Every link and NIC runs at 1 GB/s per
// direction with no fabric latency.
const std::string FABRIC = R"(horizon: 10h
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 1, count: 4, price: {on_demand_per_hour: 1},
       nics: {count: 1, speed: 8Gbps, rdma: true}}
)" + test::two_switch_network("1GB/s", "1GB/s");

double end_of(const analysis::TraceData& t, const std::string& name) {
  for (const auto& j : t.jobs)
    if (j.name == name) return j.end_s;
  FAIL("no job " << name);
  return 0;
}

}  // namespace

TEST_CASE("jobs' collectives share the network and slow each other down", "[scenario][network]") {
  test::TempDir dir("net-jobs");
  // A: 100 s of compute in 10 steps; after each, a 1 GB ring all-reduce over its 2 GPUs
  // moves 2(n-1)/n x 1 GB = 1 GB each way over the core: 1 s at 1 GB/s. Alone: 110 s (plus
  // the few hundred ns of PCIe/NIC hop latency per step).
  const auto alone = run_yaml("name: alone\n" + FABRIC + R"(workload:
  jobs:
    - {name: A, gpus: 2, duration: 100s, comm: {bytes: 1GB, every: 10s}}
)", dir);
  CHECK(end_of(alone, "A") == Approx(110.0).epsilon(1e-6));
  // With B doing the same on n-2,n-3 in lockstep, each all-reduce gets half the core: 2 s.
  const auto shared = run_yaml("name: shared\n" + FABRIC + R"(workload:
  jobs:
    - {name: A, gpus: 2, duration: 100s, comm: {bytes: 1GB, every: 10s}}
    - {name: B, gpus: 2, duration: 100s, comm: {bytes: 1GB, every: 10s}}
)", dir);
  CHECK(end_of(shared, "A") == Approx(120.0).epsilon(1e-6));
  CHECK(end_of(shared, "B") == Approx(120.0).epsilon(1e-6));
}

TEST_CASE("a comm job's latency and bandwidth count for every real step, however many are simulated",
          "[scenario][network]") {
  test::TempDir dir("net-steps");
  // Two 1-GPU nodes behind one switch, each link 1 GB/s with 1 ms of latency. A: 1000 s of
  // compute in N = 1000 steps of 1 s, each followed by a 100 MB ring all-reduce over its 2
  // GPUs: a reduce-scatter and an all-gather phase, each one 50 MB flow per direction that
  // waits the path latency a, then moves at 1 GB/s (0.05 s). By hand:
  //   run time = N x (1 s + 2 x (a + 0.05 s)),  a = 2 ms + the node's PCIe/NIC hops.
  const auto yaml = [](const std::string& simulated) {
    return "name: steps-" + simulated + R"(
horizon: 10h
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 1, count: 2, price: {on_demand_per_hour: 1},
       nics: {count: 1, speed: 8Gbps, rdma: true}}
network:
  fabric: explicit
  hosts: [n-0, n-1]
  links:
    - {name: a, between: [n-0, S], bandwidth: 1GB/s, latency: 1ms}
    - {name: b, between: [n-1, S], bandwidth: 1GB/s, latency: 1ms}
workload:
  jobs:
    - {name: A, gpus: 2, duration: 1000s, comm: {bytes: 100MB, every: 1s, simulated_steps: )" + simulated + "}}\n";
  };
  const auto s = test::scenario_from_yaml(yaml("1000"));
  std::vector<topology::NodeGroup> groups;
  for (const auto& t : s.cluster.node_types) groups.push_back({t.name, t.count, t.gpus, t.internals, &t.gpu});
  const topology::Topology topo = topology::build_topology(*s.network, groups);
  const double a = topo.path_latency(topo.route(topo.gpu(0, 0), topo.gpu(1, 0), 0)).seconds();
  REQUIRE(a >= 2e-3);
  REQUIRE(a < 2.01e-3);  // the hops inside the nodes are ns
  const double by_hand = 1000 * (1.0 + 2 * (a + 0.05));
  // Every flow's finish is rounded up to the next ns (docs/network.md, "Sharing model"):
  // at most 1 ns per phase of each simulated step, 2,000 ns in all.
  const double rounding_s = 1000 * 2 * 1e-9;
  for (const std::string simulated : {"1000", "200", "300", "7"}) {
    INFO("simulated_steps: " << simulated);
    const auto t = run_yaml(yaml(simulated), dir);
    CHECK(std::abs(end_of(t, "A") - by_hand) <= rounding_s);
  }
}

TEST_CASE("a network scenario writes the /links table", "[scenario][network]") {
  test::TempDir dir("net-links");
  const auto s = test::scenario_from_yaml("name: links\n" + FABRIC + R"(workload:
  jobs:
    - {name: A, gpus: 2, duration: 100s, comm: {bytes: 1GB, every: 10s}}
)");
  auto file = trace::TraceFile::create(dir.file("l.h5"));
  models::run_simulation(s, models::builtins().schedulers, file.get());
  file->commit();
  auto r = trace::TraceReader::open(dir.file("l.h5"));
  const auto names = r->column_str("links", "name");
  const auto bytes = r->column_f64("links", "bytes");
  double core = -1;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == "core:S1->S2") core = bytes[i];
  CHECK(core == Approx(10e9).epsilon(1e-9));  // 10 steps x 1 GB
  CHECK(!r->has_table("flows"));  // only when asked for
}

TEST_CASE("output.flows writes one row per flow, attributed to its job", "[scenario][network]") {
  test::TempDir dir("net-flows");
  const auto t = run_yaml("name: flows\noutput: {flows: true}\n" + FABRIC + R"(workload:
  jobs:
    - {name: A, gpus: 2, duration: 100s, comm: {bytes: 1GB, every: 10s}}
)", dir);
  auto r = trace::TraceReader::open(dir.file("flows.h5"));
  // A 2-rank ring all-reduce is a reduce-scatter step and an all-gather step of 2 flows
  // each (0.5 GB): 4 flows per collective, 10 collectives.
  REQUIRE(r->rows("flows") == 40);
  for (auto job : r->column_int("flows", "job")) CHECK(job == 0);
  double bytes = 0;
  for (double b : r->column_f64("flows", "bytes")) bytes += b;
  CHECK(bytes == Approx(20e9).epsilon(1e-12));
}

TEST_CASE("comm without a network section is refused", "[scenario][network]") {
  try {
    test::scenario_from_yaml(R"(name: x
horizon: 1h
cluster:
  node_types: [{name: n, gpu: T4, gpus: 1, count: 2, price: {on_demand_per_hour: 1}}]
workload:
  jobs: [{name: A, gpus: 2, duration: 1h, comm: {bytes: 1GB, every: 1s}}]
)");
    FAIL("accepted");
  } catch (const ConfigError& e) {
    CHECK(e.code() == ErrorCode::Conflict);
    CHECK(e.key_path() == "workload.jobs[0].comm");
  }
}

TEST_CASE("a model-described job runs at the step-time model's speed", "[scenario][workload]") {
  test::TempDir dir("model-job");
  const std::string yaml = R"(name: rn
horizon: 30d
cluster:
  node_types:
    - {name: p4d, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 48, count: 1, price: {on_demand_per_hour: 32.7726}}
workload:
  jobs:
    - {name: rn50, model: resnet50, precision: amp, batch_per_gpu: 256, gpus: 8, samples: 12.8M, decode: gpu}
)";
  const auto s = test::scenario_from_yaml(yaml);
  const auto& spec = *s.workload.jobs[0].training;
  const double rate = models::estimate_step(spec, models::hardware_context(s.cluster.node_types[0], 8, spec, s.storage)).samples_per_s;
  REQUIRE(rate > 0);
  const auto t = run_yaml(yaml, dir);
  CHECK(t.jobs[0].end_s == Approx(12.8e6 / rate).epsilon(1e-9));
  CHECK(t.jobs[0].model.samples == 12.8e6);
  CHECK(t.jobs[0].model.samples_per_s == Approx(rate).epsilon(1e-12));
  CHECK(!t.jobs[0].model.bottleneck.empty());
  const auto m = analysis::compute_metrics(t);
  // One job on all 8 GPUs: goodput = samples / (8 x hours) = rate x 3600 / 8.
  CHECK(m.goodput_samples_per_gpu_hour == Approx(rate * 3600 / 8).epsilon(1e-9));
  REQUIRE(m.bottleneck_gpu_hours.size() == 1);
}

TEST_CASE("a model job that fits no GPU's memory is refused with what it needs", "[scenario][workload]") {
  try {
    test::scenario_from_yaml(R"(name: big
horizon: 1d
cluster:
  node_types: [{name: t4, gpu: T4, gpus: 1, count: 1, price: {on_demand_per_hour: 1}}]
workload:
  jobs: [{name: gpt, model: bert-large, seq_len: 512, precision: amp, batch_per_gpu: 256, gpus: 1, samples: 1M}]
)");
    FAIL("accepted");
  } catch (const ConfigError& e) {
    CHECK(e.code() == ErrorCode::Infeasible);
    CHECK(std::string(e.what()).find("GiB") != std::string::npos);
  }
}
