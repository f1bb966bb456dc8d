// Model-described jobs whose gradient all-reduce runs on the network (docs/network.md,
// "Model jobs on the network"): two 16-GPU jobs sharing an oversubscribed core link, and
// one job on a non-blocking fabric against the step-time model's alpha-beta estimate.
// Collective times are computed by hand from the max-min shares of the links.
#include <catch2/catch.hpp>

#include "analysis/trace_data.hpp"
#include "models/network/collectives.hpp"
#include "models/coupling/job_speed.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using test::run_yaml;

namespace {

// Four DGX-A100-like nodes (8 GPUs on an NVSwitch, 300 GB/s per GPU; one 400 Gb/s NIC) on
// two switches joined by one core link (test::two_switch_network): a job on n-0,n-1 and a
// job on n-2,n-3 meet only on the core.
std::string fabric(const std::string& name, const std::string& core, const std::string& nics) {
  return "name: " + name + R"(
horizon: 10d
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 128, count: 4, price: {on_demand_per_hour: 32},
       nvlink: nvswitch, nics: )" + nics + R"(}
)" + test::two_switch_network("1TB/s", core) + R"(workload:
  jobs:
)";
}

// BERT-large, AMP, 32 sequences of 128 per GPU on 16 GPUs: 512 per step, 100 steps.
std::string bert(const std::string& name) {
  return "    - {name: " + name + ", model: bert-large, seq_len: 128, precision: amp, batch_per_gpu: 32, gpus: 16, "
         "samples: 51200}\n";
}

const analysis::JobRecord& job(const analysis::TraceData& t, const std::string& name) {
  for (const auto& j : t.jobs)
    if (j.name == name) return j;
  FAIL("no job " << name);
  return t.jobs.front();
}

// The step-time model's speed with the all-reduce taking `all_reduce_s`.
double speed(const models::Scenario& s, double all_reduce_s) {
  const auto& spec = *s.workload.jobs[0].training;
  auto hw = models::hardware_context(s.cluster.node_types[0], spec.gpus, spec, s.storage);
  hw.all_reduce = [=](double, int, const models::HardwareContext&) { return all_reduce_s; };
  return models::estimate_step(spec, hw).samples_per_s;
}

}  // namespace

TEST_CASE("model jobs sharing an oversubscribed core slow each other by the max-min shares", "[scenario][network]") {
  test::TempDir dir("model-net-share");
  const std::string nic = "{count: 1, speed: 400Gbps, rdma: true}";
  const std::string alone_yaml = fabric("alone", "1GB/s", nic) + bert("A");
  const std::string two_yaml = fabric("two", "1GB/s", nic) + bert("A") + bert("B");
  const auto s = test::scenario_from_yaml(alone_yaml);
  const auto& spec = *s.workload.jobs[0].training;

  // Hierarchical ring all-reduce of S bytes, sent as S / busbw_efficiency(S) (NCCL fit):
  //   7 reduce-scatter + 7 all-gather steps inside each node, S_eff/8 per GPU over its own
  //   300 GB/s NVSwitch link;
  //   2 steps between the two nodes, S_eff/16 per GPU; the 8 GPUs' flows cross the 1 GB/s
  //   core in each direction: 1/8 of it each alone, 1/16 with the other job's 8 flows.
  const double bytes = models::gradient_sync_bytes(spec);  // 336M params x 2 B
  const double sent = bytes / network::busbw_efficiency(bytes);
  const double intra_s = 14 * (sent / 8) / 300e9;
  const double alone_s = intra_s + 2 * (sent / 16) / (1e9 / 8);
  const double shared_s = intra_s + 2 * (sent / 16) / (1e9 / 16);
  REQUIRE(shared_s - alone_s == Approx(sent / 1e9));

  const auto alone = run_yaml(alone_yaml, dir);
  const auto two = run_yaml(two_yaml, dir);
  // The trace's comm_s is the all-reduce per step as measured (path latencies add ~µs).
  CHECK(job(alone, "A").model.comm_s == Approx(alone_s).epsilon(1e-5));
  CHECK(job(two, "A").model.comm_s == Approx(shared_s).epsilon(1e-5));
  CHECK(job(two, "B").model.comm_s == Approx(shared_s).epsilon(1e-5));
  CHECK(job(two, "A").model.bottleneck == "communication");

  // Alone the job runs at the uncontended time from the start. Together, both run their
  // first step at that speed until the first all-reduce, which takes shared_s, reports the
  // contention (100 steps, so one probe per step), then at the shared speed.
  const double r_alone = speed(s, alone_s);
  const double r_shared = speed(s, shared_s);
  CHECK(job(alone, "A").end_s == Approx(51200 / r_alone).epsilon(1e-5));
  const double two_end = shared_s + (51200 - r_alone * shared_s) / r_shared;
  CHECK(job(two, "A").end_s == Approx(two_end).epsilon(1e-5));
  CHECK(job(two, "B").end_s == Approx(two_end).epsilon(1e-5));
  INFO("alone " << job(alone, "A").end_s << " s, two " << job(two, "A").end_s << " s");
  CHECK(job(two, "A").end_s > 1.5 * job(alone, "A").end_s);
}

TEST_CASE("a model job on a non-blocking fabric: the network's hierarchical ring and the alpha-beta estimate",
          "[scenario][network]") {
  test::TempDir dir("model-net-free");
  // One 200 Gb/s NIC per node and a 1 TB/s core: nothing but the NIC and NVSwitch limit
  // the collective. (With several NICs, least-cost routing spreads a node's GPUs over them
  // by ECMP hash, so two GPUs can share one: docs/network.md.)
  const std::string yaml = fabric("free", "1TB/s", "{count: 1, speed: 200Gbps, rdma: true}") + bert("A");
  const auto s = test::scenario_from_yaml(yaml);
  const auto& spec = *s.workload.jobs[0].training;
  const auto hw = models::hardware_context(s.cluster.node_types[0], spec.gpus, spec, s.storage);
  const models::StepEstimate analytic = models::estimate_step(spec, hw);
  const auto t = run_yaml(yaml, dir);
  const auto& a = job(t, "A");
  // 16 GPUs on 2 nodes. The two run different algorithms (docs/network.md, docs/step-time.md,
  // "Gradient synchronisation"). The flow network runs the hierarchical ring, phase after
  // phase, every flow carrying S / busbw_efficiency(S) (0.734 at 672 MB): a reduce-scatter
  // and an all-gather inside the node (2·7/8·S over NVSwitch at 300 GB/s), then a ring
  // between the 2 nodes in which the 8 local ranks share the one 25 GB/s NIC (S per node).
  const double bytes = models::gradient_sync_bytes(spec);
  const double e = network::busbw_efficiency(bytes);
  CHECK(e == Approx(0.734).epsilon(0.01));
  const double network_s = 2.0 * 7 / 8 * bytes / e / 300e9 + bytes / e / 25e9;
  CHECK(a.model.comm_s == Approx(network_s).epsilon(1e-3));  // path latencies add µs
  // The alpha-beta estimate is NCCL's cost model: on two nodes its double binary tree, S
  // through each NIC at η_net = 0.96, pipelined with NVSwitch (2S at 0.705 · 300 GB/s), at
  // 0.92 of that bound, plus 2·(7·4 + 1·5) µs of latency: 30.5 ms against the network's 42.0.
  const double tree_s = std::max(bytes / (0.96 * 25e9), 2 * bytes / (0.705 * 300e9)) / 0.92 + 66e-6;
  CHECK(analytic.comm_s == Approx(tree_s).epsilon(1e-9));
  CHECK(a.model.comm_s > 1.3 * analytic.comm_s);
  // Each speed is the step-time model's with its own all-reduce time.
  CHECK(a.model.samples_per_s == Approx(speed(s, a.model.comm_s)).epsilon(0.001));
  CHECK(analytic.samples_per_s == Approx(speed(s, analytic.comm_s)).epsilon(1e-9));
  CHECK(a.model.samples_per_s < analytic.samples_per_s);
  CHECK(a.model.compute_s == Approx(analytic.compute_s).epsilon(1e-12));
}

namespace {

// Two DGX-A100-like nodes, one 100 Gb/s NIC each, on one switch whose links have `latency`.
std::string one_switch(const std::string& latency) {
  return R"(name: est-net
horizon: 10d
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 128, count: 2, price: {on_demand_per_hour: 32},
       nvlink: nvswitch, nics: {count: 1, speed: 100Gbps, rdma: true}}
network:
  fabric: single-switch
  link: {speed: 100Gbps, latency: )" + latency + R"(}
workload:
  jobs:
)" + bert("A");
}

// The number after "key": on the first line of `json` that has it.
double json_value(const std::string& json, const std::string& key) {
  const std::size_t at = json.find("\"" + key + "\": ");
  REQUIRE(at != std::string::npos);
  return std::stod(json.substr(at + key.size() + 4));
}

}  // namespace

TEST_CASE("gcsim estimate times the all-reduce on the scenario's network, as the run does", "[scenario][network][cli]") {
  test::TempDir dir("est-net");
  test::write_file(dir.file("fast.yaml"), one_switch("1us"));
  test::write_file(dir.file("slow.yaml"), one_switch("501us"));
  const auto fast = test::run_gcsim("estimate " + dir.file("fast.yaml") + " --json");
  const auto slow = test::run_gcsim("estimate " + dir.file("slow.yaml") + " --json");
  INFO(fast.output << slow.output);
  REQUIRE(fast.code == 0);
  REQUIRE(slow.code == 0);
  // The inter-node ring of the hierarchical all-reduce has 2 phases, each path crossing two
  // links: 2 ms more per all-reduce at 501 us a link, on about 80 ms. The estimate sees it.
  const double fast_comm_s = json_value(fast.output, "comm_s");
  const double slow_comm_s = json_value(slow.output, "comm_s");
  CHECK(slow_comm_s - fast_comm_s == Approx(2 * 2 * 500e-6).epsilon(1e-3));
  CHECK(json_value(slow.output, "samples_per_s") < json_value(fast.output, "samples_per_s"));
  CHECK(fast.output.find("timed on the scenario's network") != std::string::npos);

  // The run of the same scenario: its one job measures the same all-reduce on the same
  // flows. Within 1e-4 relative, not exactly: the estimate starts every flow of a phase
  // after the phase's longest path latency, while in the run the GPUs nearer the NIC (fewer
  // PCIe hops) start a few hundred ns earlier and share the NIC with fewer flows meanwhile
  // (measured: 1.6 us of 78.6 ms, 2e-5).
  for (const std::string name : {"fast", "slow"}) {
    INFO(name);
    const auto t = run_yaml(test::read_bytes(dir.file(name + ".yaml")), dir);
    const auto& out = name == "fast" ? fast.output : slow.output;
    CHECK(job(t, "A").model.comm_s == Approx(json_value(out, "comm_s")).epsilon(1e-4));
    CHECK(job(t, "A").model.samples_per_s == Approx(json_value(out, "samples_per_s")).epsilon(1e-4));
    CHECK(job(t, "A").end_s == Approx(json_value(out, "total_time_s")).epsilon(1e-4));
  }
}
