// The inter-node latency of the simulated metrics (docs/metrics.md,
// `gcsim_node_network_latency_seconds`; models/controllers/network_latency.hpp): the M/M/1
// wait, a hand-computed loaded link, an idle network, no network, determinism, and the
// export that promtool loads.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "analysis/metrics_series.hpp"
#include "models/config/resource_estimate.hpp"
#include "models/controllers/network_latency.hpp"
#include "sim/trace/trace_reader.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

constexpr const char* FAMILY = "gcsim_node_network_latency_seconds";

// Two nodes of one A100 each, PCIe gen4 x16, one 100 Gb/s NIC on the GPU's PCIe switch
// (GPUDirect RDMA), both on one switch by 100 Gb/s links of 1 us; `jobs` and `tail` follow.
std::string two_nodes(const std::string& jobs, const std::string& tail) {
  return "name: lat\nhorizon: 2m\nrun_until: horizon\n"
         "cluster:\n  node_types:\n"
         "    - {name: n, gpu: A100-40GB-SXM, gpus: 1, pcie: gen4, nics: {count: 1, speed: 100Gbps, rdma: true}, "
         "count: 2, price: {on_demand_per_hour: 4}}\n" +
         tail + "workload:\n  jobs:\n" + jobs + "output: {metrics: {every: 10s}}\n";
}
const std::string NETWORK = "network:\n  fabric: single-switch\n  link: {speed: 100Gbps, latency: 1us, kind: infiniband}\n";

// The exported latency series of a trace, by node label.
std::map<std::string, std::vector<analysis::Sample>> latency_series(const std::string& trace) {
  const auto r = trace::TraceReader::open(trace);
  const analysis::MetricsData d = analysis::read_metrics(*r);
  std::map<std::string, std::vector<analysis::Sample>> out;
  analysis::for_each_series(d, [&](const analysis::Series& s) {
    if (s.family->name != FAMILY) return;
    out[s.labels.at(0).second] = s.samples;
  });
  return out;
}

// The path of a probe between the two nodes, node 0's GPU to node 1's:
//   gpu0 -> pcie0 -> nic0 -> switch -> nic0' -> pcie0' -> gpu0'
// PCIe hops 200 ns each at gen4 x16 = 16 GT/s x 16 x 128/130 / 8 = 31.5077 GB/s; the two
// NIC links 1 us each at 100 Gb/s = 12.5 GB/s.
constexpr double PCIE_BYTES_PER_S = 16e9 * 16.0 * 128.0 / 130.0 / 8.0;
constexpr double NIC_BYTES_PER_S = 12.5e9;
constexpr double PATH_LATENCY_S = 4 * 200e-9 + 2 * 1e-6;  // 2.8 us

}  // namespace

TEST_CASE("The M/M/1 wait of one packet: 0 idle, one packet time at half load, capped at 0.99", "[unit][metrics]") {
  // W = (P / C) rho / (1 - rho): P = 4096 B, C = 12.5 GB/s: P / C = 327.68 ns.
  const double p_over_c = 4096.0 / 12.5e9;
  CHECK(models::queueing_wait_s(4096, 12.5e9, 0.0) == 0.0);
  CHECK(models::queueing_wait_s(4096, 12.5e9, 0.5) == Approx(p_over_c).epsilon(1e-15));
  CHECK(models::queueing_wait_s(4096, 12.5e9, 0.2) == Approx(p_over_c * 0.25).epsilon(1e-15));
  CHECK(models::queueing_wait_s(4096, 12.5e9, 0.99) == Approx(99 * p_over_c).epsilon(1e-12));
  CHECK(models::queueing_wait_s(4096, 12.5e9, 1.0) == Approx(99 * p_over_c).epsilon(1e-12));
  CHECK(models::queueing_wait_s(4096, 12.5e9, 3.0) == Approx(99 * p_over_c).epsilon(1e-12));
  CHECK(models::queueing_wait_s(4096, 12.5e9, -0.1) == 0.0);
  CHECK(models::PROBE_PACKET_BYTES == 4096);
}

TEST_CASE("The resource estimate counts the latency sampler's events with a network", "[unit][metrics][network]") {
  // 2 min every 10 s: 12 intervals for the GPU sampler and 12 for the latency sampler, and
  // a look per event of the jobs.
  const std::string with = two_nodes("    - {name: J, gpus: 2, duration: 60s}\n", NETWORK);
  std::string without = with;
  without.erase(without.find("output:"));
  const auto base = models::estimate_resources(test::scenario_from_yaml(without));
  const auto est = models::estimate_resources(test::scenario_from_yaml(with));
  double job_events = 0;
  for (const auto& p : base.parts)
    if (p.what == "jobs") job_events += p.events;
  REQUIRE(job_events > 0);
  CHECK(est.events - base.events == Approx(24 + job_events));
}

TEST_CASE("A two-node job loading its path: link latencies plus each link's M/M/1 wait, by hand",
          "[scenario][metrics][network]") {
  // Job J: 2 GPUs, one per node, 60 steps, each E = 0.8 s - 5.6 us of compute then an
  // all-reduce of S = 2.5 GB. Across 2 nodes of 1 GPU it is a hierarchical ring whose only
  // phases are the inter-node ring's 2(N-1) = 2 steps of S/2 = 1.25 GB each way: each waits
  // the path latency 2.8 us, then moves 1.25 GB at the NIC's 12.5 GB/s in 0.1 s (the two
  // directions are separate link resources). A step is E + 2 x 2.8 us + 0.2 s = 1 s
  // exactly, so the job runs over [0, 60 s], and every link of the path carries
  // 2 x 1.25 GB = 2.5 GB in each 1-s period: in any 10-s window inside the run, 25 GB.
  //   NIC links:  rho = 25e9 / (12.5e9 x 10) = 0.2,
  //               W = 4096 / 12.5e9 x 0.2 / 0.8 = 81.92 ns, two of them: 163.84 ns;
  //   PCIe links: rho = 2.5e9 / 31.5077e9 = 2600 / 32768 = 0.0793457,
  //               W = 4096 / 31.5077e9 x rho / (1 - rho) = 130 ns x 2600 / 30168 = 11.2039 ns, four: 44.8157 ns.
  // Latency = 2.8 us + 163.84 ns + 44.8157 ns = 3.0086557 us, node 1 the same (symmetric).
  // Sampled every 10 s: the links are first read at 10 s, so the first sample is at 20 s
  // (the window (10, 20]); 20, 30, 40, 50 s; at 60 s the job has ended: no sample. Rows: an
  // "on" row per node at 20 s (the value never changes), an "off" row per node at 60 s.
  test::TempDir dir("latency-loaded");
  const auto t = test::run_yaml(
      two_nodes("    - {name: J, gpus: 2, duration: 47999664us, comm: {bytes: 2.5GB, every: 799994400ns}}\n", NETWORK),
      dir);
  REQUIRE(test::job_named(t, "J").end_s == Approx(60.0).epsilon(1e-12));
  const double rho_pcie = 2.5e9 / PCIE_BYTES_PER_S;
  const double expected = PATH_LATENCY_S + 2 * (4096.0 / NIC_BYTES_PER_S) * (0.2 / 0.8) +
                          4 * (4096.0 / PCIE_BYTES_PER_S) * (rho_pcie / (1 - rho_pcie));
  CHECK(expected == Approx(3.0086557e-6).epsilon(1e-7));
  const auto r = trace::TraceReader::open(dir.file("lat.h5"));
  REQUIRE(r->has_table("node_latency"));
  const auto c = r->read_columns("node_latency", {"time_s", "node", "state", "latency_s"});
  REQUIRE(c.f64.at("time_s").size() == 4);
  CHECK(c.f64.at("time_s") == std::vector<double>{20, 20, 60, 60});
  CHECK(c.ints.at("node") == std::vector<std::int64_t>{0, 1, 0, 1});
  CHECK(c.ints.at("state") == std::vector<std::int64_t>{1, 1, 0, 0});
  CHECK(c.f64.at("latency_s")[0] == Approx(expected).epsilon(1e-9));
  CHECK(c.f64.at("latency_s")[1] == Approx(expected).epsilon(1e-9));
  CHECK(std::isnan(c.f64.at("latency_s")[2]));
  const auto m = latency_series(dir.file("lat.h5"));
  REQUIRE(m.size() == 2);
  for (const auto& [node, samples] : m) {
    INFO(node);
    REQUIRE(samples.size() == 4);
    for (std::size_t k = 0; k < 4; ++k) {
      CHECK(samples[k].time_s == 20.0 + 10.0 * static_cast<double>(k));
      CHECK(samples[k].value == Approx(expected).epsilon(1e-9));
    }
  }
}

TEST_CASE("An idle network: the path latency alone, and no series for a node without a multi-node job", "[scenario][metrics][network]") {
  // J spans both nodes and sends nothing (a plain job): every link's rho is 0, so each node
  // sees the path latency 2.8 us, from 20 s (first whole window) to 50 s; it ends at 60 s.
  // K and L (one GPU each, one node each) have no peers: no series while they run.
  test::TempDir dir("latency-idle");
  test::run_yaml(two_nodes("    - {name: J, gpus: 2, duration: 60s}\n"
                           "    - {name: K, gpus: 1, duration: 30s, submit: 60s}\n"
                           "    - {name: L, gpus: 1, duration: 30s, submit: 60s}\n",
                           NETWORK),
                 dir);
  const auto m = latency_series(dir.file("lat.h5"));
  REQUIRE(m.size() == 2);
  for (const auto& [node, samples] : m) {
    INFO(node);
    REQUIRE(samples.size() == 4);
    CHECK(samples.front().time_s == 20.0);
    CHECK(samples.back().time_s == 50.0);
    // Exactly: the links' latencies are summed in whole ns (2,800) before the conversion.
    for (const auto& s : samples) CHECK(s.value == 2.8e-6);
  }
  const auto r = trace::TraceReader::open(dir.file("lat.h5"));
  CHECK(r->rows("node_latency") == 4);
}

TEST_CASE("Without a network: section there is no latency table and no latency series", "[scenario][metrics][network]") {
  test::TempDir dir("latency-none");
  test::run_yaml(two_nodes("    - {name: J, gpus: 2, duration: 60s}\n", ""), dir);
  const auto r = trace::TraceReader::open(dir.file("lat.h5"));
  REQUIRE(analysis::has_metrics(*r));
  CHECK_FALSE(r->has_table("node_latency"));
  CHECK(latency_series(dir.file("lat.h5")).empty());
  // The family is still declared in the export (every family has its header).
  const auto exp = test::run_gcsim("metrics " + dir.file("lat.h5") + " --openmetrics");
  REQUIRE(exp.code == 0);
  CHECK(test::has(exp.output, "# TYPE gcsim_node_network_latency_seconds gauge\n"));
  CHECK_FALSE(test::has(exp.output, "gcsim_node_network_latency_seconds{"));
}

TEST_CASE("An explicit fabric that leaves a job's nodes unconnected: no probe between them, and no error",
          "[scenario][metrics][network]") {
  // n-1 has no link: plain job J over n-0 and n-1 sends nothing, and no probe can go.
  test::TempDir dir("latency-unconnected");
  test::run_yaml(two_nodes("    - {name: J, gpus: 2, duration: 60s}\n",
                           "network:\n  fabric: explicit\n  hosts: [n-0, n-1, x]\n  links:\n"
                           "    - {name: a, between: [n-0, x], bandwidth: 100Gbps, latency: 1us}\n"),
                 dir);
  const auto r = trace::TraceReader::open(dir.file("lat.h5"));
  REQUIRE(r->has_table("node_latency"));
  CHECK(r->rows("node_latency") == 0);
  CHECK(latency_series(dir.file("lat.h5")).empty());
}

TEST_CASE("Same network run twice: the same /node_latency rows, bit for bit", "[scenario][metrics][network]") {
  test::TempDir a("latency-det-a"), b("latency-det-b");
  const std::string yaml = test::read_bytes(GCSIM_SOURCE_DIR "/scenarios/examples/network_dgx.yaml") +
                           "output: {metrics: {every: 15s}}\n";
  test::run_yaml(yaml, a);
  test::run_yaml(yaml, b);
  const auto ra = trace::TraceReader::open(a.file("dgx.h5"));
  const auto rb = trace::TraceReader::open(b.file("dgx.h5"));
  REQUIRE(ra->rows("node_latency") > 100);
  const std::vector<std::string> cols = {"time_s", "node", "state", "latency_s"};
  const auto ca = ra->read_columns("node_latency", cols);
  const auto cb = rb->read_columns("node_latency", cols);
  CHECK(ca.ints == cb.ints);
  REQUIRE(ca.f64.at("latency_s").size() == cb.f64.at("latency_s").size());
  for (std::size_t i = 0; i < ca.f64.at("latency_s").size(); ++i) {
    const double x = ca.f64.at("latency_s")[i], y = cb.f64.at("latency_s")[i];
    CHECK((x == y || (std::isnan(x) && std::isnan(y))));
  }
  CHECK(ca.f64.at("time_s") == cb.f64.at("time_s"));
  CHECK(test::read_bytes(a.file("dgx.h5")) == test::read_bytes(b.file("dgx.h5")));
}

TEST_CASE("The latency family exported as an OpenMetrics gauge in seconds, loaded by promtool",
          "[scenario][metrics][network][promtool]") {
  test::TempDir dir("latency-promtool");
  test::write_file(dir.file("lat.yaml"),
                   two_nodes("    - {name: J, gpus: 2, duration: 60s}\n", NETWORK));
  REQUIRE(test::run_gcsim("run " + dir.file("lat.yaml") + " -o " + dir.path().string() + " --no-plots -q").code == 0);
  const auto exp = test::run_gcsim("metrics " + dir.file("lat.h5") + " --openmetrics -o " + dir.file("run.om"));
  INFO(exp.output);
  REQUIRE(exp.code == 0);
  const std::string text = test::read_bytes(dir.file("run.om"));
  CHECK(test::has(text, "# TYPE gcsim_node_network_latency_seconds gauge\n"
                        "# UNIT gcsim_node_network_latency_seconds seconds\n"
                        "# HELP gcsim_node_network_latency_seconds "));
  // 2.8 us (%.17g of the double nearest 2.8e-6) at simulated 20, 30, 40 and 50 s: the first
  // is 2026-01-05T00:00:20Z; per node, 4 samples.
  char line[160];
  std::snprintf(line, sizeof line, "gcsim_node_network_latency_seconds{node=\"n-1\",pool=\"n\"} %.17g 1767571220.000\n", 2.8e-6);
  CHECK(test::has(text, line));
  std::size_t samples = 0;
  for (std::size_t at = text.find("gcsim_node_network_latency_seconds{"); at != std::string::npos;
       at = text.find("gcsim_node_network_latency_seconds{", at + 1))
    ++samples;
  CHECK(samples == 8);
  if (std::system("command -v promtool > /dev/null 2>&1") != 0) {
    WARN("promtool (Debian's prometheus package) not found: the export is not checked by Prometheus");
    return;
  }
  const auto load = test::run_command("promtool tsdb create-blocks-from openmetrics " + dir.file("run.om") + " " +
                                      dir.file("tsdb") + " 2>&1");
  INFO(load.output);
  CHECK(load.code == 0);
}
