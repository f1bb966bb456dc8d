// Simulated GPU metrics (docs/metrics.md): the output.metrics key, the sampler's /metrics
// rows (stored by change), their expansion to samples every `every`, and the OpenMetrics
// export loaded by Prometheus' own promtool.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <regex>
#include <string>

#include "analysis/metrics_series.hpp"
#include "models/config/resource_estimate.hpp"
#include "models/trace/schema.hpp"
#include "sim/trace/trace_reader.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

std::string with_output(const std::string& output) {
  return "name: m\nhorizon: 120s\nrun_until: horizon\n"
         "cluster:\n  node_types:\n    - {name: a, gpu: A100-40GB-SXM, gpus: 2, count: 1, price: {on_demand_per_hour: 2}}\n"
         "workload:\n  jobs:\n    - {name: A, gpus: 1, duration: 100s}\n" +
         output;
}

// Every exported series of a trace, by family name, then by its labels written "k=v,...".
std::map<std::string, std::map<std::string, std::vector<analysis::Sample>>> exported(const std::string& trace) {
  const auto r = trace::TraceReader::open(trace);
  const analysis::MetricsData d = analysis::read_metrics(*r);
  std::map<std::string, std::map<std::string, std::vector<analysis::Sample>>> out;
  analysis::for_each_series(d, [&](const analysis::Series& s) {
    std::string key;
    for (const auto& [k, v] : s.labels) key += (key.empty() ? "" : ",") + k + "=" + v;
    out[std::string(s.family->name)][key] = s.samples;
  });
  return out;
}

std::size_t count_samples(const std::map<std::string, std::vector<analysis::Sample>>& family) {
  std::size_t n = 0;
  for (const auto& [k, v] : family) n += v.size();
  return n;
}

}  // namespace

TEST_CASE("output.metrics: every is a required duration > 0", "[unit][metrics]") {
  CHECK(test::scenario_from_yaml(with_output("")).output.metrics_every == sim::SimTime::zero());
  CHECK(test::scenario_from_yaml(with_output("output: {metrics: {every: 15s}}")).output.metrics_every == sim::seconds(15));
  CHECK(test::scenario_from_yaml(with_output("output: {metrics: {every: 1m30s}}")).output.metrics_every == sim::seconds(90));
  const auto error = [](const std::string& output) {
    return test::config_error([&] { test::scenario_from_yaml(with_output(output)); });
  };
  SECTION("zero") { CHECK(error("output: {metrics: {every: 0s}}").code() == ErrorCode::OutOfRange); }
  SECTION("negative") { CHECK(error("output: {metrics: {every: -15s}}").code() == ErrorCode::OutOfRange); }
  SECTION("no unit") { CHECK(error("output: {metrics: {every: 15}}").code() == ErrorCode::BadUnit); }
  SECTION("missing") { CHECK(error("output: {metrics: {}}").code() == ErrorCode::MissingKey); }
  SECTION("not a map") { CHECK(error("output: {metrics: 15s}").code() == ErrorCode::WrongType); }
  SECTION("misspelt") {
    const ConfigError e = error("output: {metrics: {evry: 15s}}");
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(test::has(e.what(), "every"));
    CHECK(test::has(e.what(), "output.metrics"));
  }
}

TEST_CASE("The resource estimate counts the sampler's events", "[unit][metrics]") {
  // 120 s every 15 s: 8 interval events, and a look per event of the jobs (their part).
  const auto base = models::estimate_resources(test::scenario_from_yaml(with_output("")));
  const auto with = models::estimate_resources(test::scenario_from_yaml(with_output("output: {metrics: {every: 15s}}")));
  double job_events = 0;
  for (const auto& p : base.parts)
    if (p.what == "jobs") job_events += p.events;
  REQUIRE(job_events > 0);
  CHECK(with.events - base.events == Approx(8 + job_events));
  CHECK(with.parts.back().path == "output.metrics.every");
}

TEST_CASE("Without output.metrics a trace has no /metrics table", "[scenario][metrics]") {
  test::TempDir dir("metrics-off");
  test::run_yaml(with_output(""), dir);
  const auto r = trace::TraceReader::open(dir.file("m.h5"));
  CHECK_FALSE(analysis::has_metrics(*r));
  CHECK_THROWS_AS(analysis::read_metrics(*r), Error);
}

TEST_CASE("A plain job's metrics: rows by change, samples every interval", "[scenario][metrics]") {
  // One node of 2 A100s (NVLink), job A (1 GPU, 100 s) from 0, horizon 120 s, every 15 s.
  // Rows: at 0, A on GPU 0 and GPU 1 idle; at 100, A off and GPU 0 idle; at 120 both idle
  // series end: 6 rows.
  test::TempDir dir("metrics-plain");
  test::run_yaml(with_output("output: {metrics: {every: 15s}}"), dir);
  const auto r = trace::TraceReader::open(dir.file("m.h5"));
  REQUIRE(analysis::has_metrics(*r));
  CHECK(r->rows("metrics") == 6);
  CHECK(r->attribute_double("metrics_every_s") == 15.0);
  const auto m = exported(dir.file("m.h5"));
  // Utilization: A's series lives over (0, 100]: samples at 15..90 (6), all 100%; GPU 0
  // idle over (100, 120]: 105, 120; GPU 1 idle over (0, 120]: 8 samples of 0.
  const auto& util = m.at("DCGM_FI_DEV_GPU_UTIL");
  const auto& a = util.at("node=a-0,gpu=0,pool=a,job=A");
  REQUIRE(a.size() == 6);
  for (std::size_t k = 0; k < 6; ++k) {
    CHECK(a[k].time_s == 15.0 * static_cast<double>(k + 1));
    CHECK(a[k].value == 100.0);
  }
  const auto& idle0 = util.at("node=a-0,gpu=0,pool=a");
  REQUIRE(idle0.size() == 2);
  CHECK(idle0[0].time_s == 105.0);
  CHECK(idle0[1].time_s == 120.0);
  CHECK(util.at("node=a-0,gpu=1,pool=a").size() == 8);
  CHECK(count_samples(util) == 16);
  // A plain job's memory, PCIe, NVLink and network are not modelled: no samples for A,
  // only the idle series' zeros (2 + 8 each).
  for (const char* f : {"DCGM_FI_DEV_FB_USED", "DCGM_FI_PROF_PCIE_TX_BYTES", "DCGM_FI_PROF_PCIE_RX_BYTES",
                        "DCGM_FI_PROF_NVLINK_TX_BYTES", "DCGM_FI_PROF_NVLINK_RX_BYTES"}) {
    INFO(f);
    CHECK(m.at(f).count("node=a-0,gpu=0,pool=a,job=A") == 0);
    CHECK(count_samples(m.at(f)) == 10);
    for (const auto& [k, v] : m.at(f))
      for (const auto& s : v) CHECK(s.value == 0.0);
  }
  // The node's network counter: unknown while A (not modelled) runs, so only 105 and 120.
  const auto& tx = m.at("gcsim_node_network_transmit_bytes").at("node=a-0,pool=a");
  REQUIRE(tx.size() == 2);
  CHECK(tx[0].time_s == 105.0);
  CHECK(tx[1].value == 0.0);
}

TEST_CASE("Same scenario, same seed: the same /metrics bit for bit", "[scenario][metrics]") {
  test::TempDir a("metrics-det-a"), b("metrics-det-b");
  const std::string yaml =
      test::read_bytes(GCSIM_SOURCE_DIR "/scenarios/examples/fleet-month/spot-p4d.yaml") + "output: {metrics: {every: 1h}}\n";
  test::run_yaml(yaml, a);
  test::run_yaml(yaml, b);
  const std::string name = "fleet-month-spot-p4d.h5";
  const auto ra = trace::TraceReader::open(a.file(name));
  REQUIRE(ra->rows("metrics") > 1000);
  CHECK(test::read_bytes(a.file(name)) == test::read_bytes(b.file(name)));
}

TEST_CASE("The export window keeps the samples at simulated times in [from, to]", "[scenario][metrics]") {
  // The plain run above: in [30 s, 60 s] A's series has 30, 45, 60, GPU 1's idle series
  // the same three, GPU 0's idle series (from 100 s) none.
  test::TempDir dir("metrics-window");
  test::run_yaml(with_output("output: {metrics: {every: 15s}}"), dir);
  const auto r = trace::TraceReader::open(dir.file("m.h5"));
  const analysis::MetricsData d = analysis::read_metrics(*r);
  std::size_t util = 0;
  analysis::for_each_series(
      d,
      [&](const analysis::Series& s) {
        if (s.family->name != "DCGM_FI_DEV_GPU_UTIL") return;
        for (const auto& p : s.samples) {
          CHECK(p.time_s >= 30.0);
          CHECK(p.time_s <= 60.0);
          ++util;
        }
      },
      {30.0, 60.0});
  CHECK(util == 6);
  const auto bad = test::run_gcsim("metrics " + dir.file("m.h5") + " --openmetrics --from 2m --to 1m");
  CHECK(bad.code == 2);
  CHECK(test::run_gcsim("metrics " + dir.file("m.h5") + " --openmetrics --from 2x").code == 2);
}

TEST_CASE("A node that goes away takes its series with it, and they come back with it", "[scenario][metrics]") {
  // One spot node of 2 GPUs, taken at 1h (its price passes the bid) and back at 2h; job A
  // (1 GPU, 10 h, no checkpoints) runs on GPU 0 over (0, 1h], is stopped, and starts again
  // at 2h. Every 15 min: A's series at 15, 30, 45, 60 min and 135, 150, 165, 180 min; GPU 1
  // idle at the same instants; nothing in between (a node that is not there has no
  // exporter).
  test::TempDir dir("metrics-spot");
  test::run_yaml(R"(name: m
horizon: 3h
run_until: horizon
cluster:
  node_types:
    - name: s
      gpu: A100-40GB-SXM
      gpus: 2
      count: 1
      market: spot
      price: {on_demand_per_hour: 10, max_per_hour: 2, spot_profile: {points: [{at: 0h, price: 1}, {at: 1h, price: 5}, {at: 2h, price: 1}]}}
      interruptions: {process: price}
workload:
  jobs:
    - {name: A, gpus: 1, duration: 10h}
output: {metrics: {every: 15m}}
)",
                 dir);
  const auto m = exported(dir.file("m.h5"));
  const std::vector<double> expected = {900, 1800, 2700, 3600, 8100, 9000, 9900, 10800};
  for (const char* key : {"node=s-0,gpu=0,pool=s,job=A", "node=s-0,gpu=1,pool=s"}) {
    INFO(key);
    std::vector<double> times;
    for (const auto& p : m.at("DCGM_FI_DEV_GPU_UTIL").at(key)) times.push_back(p.time_s);
    CHECK(times == expected);
  }
  CHECK(m.at("DCGM_FI_DEV_GPU_UTIL").size() == 2);  // GPU 0 was never idle while up
}

TEST_CASE("A pause (image pull) reads as 0% until it ends, exactly where it ends", "[scenario][metrics]") {
  // A pulls its image for 20 s, then computes 60 s: util 0 over (0, 20], 100% over
  // (20, 80]. Every 15 s: t = 15 -> 0; t = 30 -> (5 s at 0 + 10 s at 100) / 15 = 66.67%;
  // 45, 60, 75 -> 100; at 80 it ends, so no sample at 90.
  test::TempDir dir("metrics-pause");
  const std::string yaml = "name: m\nhorizon: 120s\nrun_until: horizon\n"
                           "cluster:\n  node_types:\n    - {name: a, gpu: A100-40GB-SXM, gpus: 1, count: 1, price: "
                           "{on_demand_per_hour: 2}}\n"
                           "workload:\n  jobs:\n    - {name: A, gpus: 1, duration: 60s, image_pull: 20s}\n"
                           "output: {metrics: {every: 15s}}\n";
  test::run_yaml(yaml, dir);
  const auto m = exported(dir.file("m.h5"));
  const auto& a = m.at("DCGM_FI_DEV_GPU_UTIL").at("node=a-0,gpu=0,pool=a,job=A");
  REQUIRE(a.size() == 5);
  CHECK(a[0].value == 0.0);
  CHECK(a[1].value == Approx(200.0 / 3.0).epsilon(1e-12));
  for (std::size_t k = 2; k < 5; ++k) CHECK(a[k].value == 100.0);
  CHECK(a[4].time_s == 75.0);
}

TEST_CASE("A checkpoint write that pauses the job reads as 0% over exactly its write", "[scenario][metrics]") {
  // A computes 60 s of work with a checkpoint every 30 s of progress taking 10 s (paused):
  // 100% over (0, 30], 0 over (30, 40], 100% over (40, 70], when it finishes. Every 15 s:
  // 15, 30 -> 100; 45 -> (10 s at 0 + 5 s at 100) / 15 = 33.33%; 60 -> 100.
  test::TempDir dir("metrics-ckpt");
  const std::string yaml = "name: m\nhorizon: 120s\nrun_until: horizon\n"
                           "cluster:\n  node_types:\n    - {name: a, gpu: A100-40GB-SXM, gpus: 1, count: 1, price: "
                           "{on_demand_per_hour: 2}}\n"
                           "workload:\n  jobs:\n    - {name: A, gpus: 1, duration: 60s, checkpoint: {every: 30s, "
                           "write_time: 10s, restore_time: 0s}}\n"
                           "output: {metrics: {every: 15s}}\n";
  const auto t = test::run_yaml(yaml, dir);
  REQUIRE(test::job_named(t, "A").end_s == 70.0);
  const auto m = exported(dir.file("m.h5"));
  const auto& a = m.at("DCGM_FI_DEV_GPU_UTIL").at("node=a-0,gpu=0,pool=a,job=A");
  REQUIRE(a.size() == 4);
  CHECK(a[0].value == 100.0);
  CHECK(a[1].value == 100.0);
  CHECK(a[2].value == Approx(100.0 / 3.0).epsilon(1e-12));
  CHECK(a[3].value == 100.0);
  // Rows of A: on at 0, paused at 30, running at 40, off at 70.
  const auto r = trace::TraceReader::open(dir.file("m.h5"));
  const auto c = r->read_columns("metrics", {"time_s", "job", "util"});
  std::vector<double> times;
  for (std::size_t i = 0; i < c.f64.at("time_s").size(); ++i)
    if (c.ints.at("job")[i] == 0) times.push_back(c.f64.at("time_s")[i]);
  CHECK(times == std::vector<double>{0.0, 30.0, 40.0, 70.0});
}

TEST_CASE("A model-described job's metrics follow its step: compute share, memory, input and gradient bytes",
          "[scenario][metrics]") {
  // ResNet-50, amp, batch 256 per GPU, 2 GPUs data-parallel on one node of A100-SXM
  // (NVLink). Per micro-step of one GPU: input 256 x 150,528 B (one 224x224x3 uint8 crop,
  // the catalog's device_input) host -> GPU; a ring all-reduce over 2 ranks sends and
  // receives 2(2-1)/2 = 1 x the gradients, 25,557,032 params x 2 B, over NVLink. Nothing
  // leaves the node.
  test::TempDir dir("metrics-model");
  const std::string yaml = R"(name: m
horizon: 2h
run_until: horizon
cluster:
  node_types:
    - {name: p, gpu: A100-40GB-SXM, gpus: 2, cpu_cores: 48, count: 1, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: rn, model: resnet50, precision: amp, batch_per_gpu: 256, gpus: 2, samples: 1M}
output: {metrics: {every: 1m}}
)";
  const auto t = test::run_yaml(yaml, dir);
  const auto& job = test::job_named(t, "rn");
  const double step = job.model.step_time_s;
  REQUIRE(step > 0);
  const auto r = trace::TraceReader::open(dir.file("m.h5"));
  const auto c = r->read_columns("metrics", {"job", "state", "util", "fb_used_bytes", "pcie_tx_bytes_per_s",
                                             "pcie_rx_bytes_per_s", "nvlink_tx_bytes_per_s", "net_tx_bytes_per_s"});
  int on_rows = 0;
  for (std::size_t i = 0; i < c.ints.at("job").size(); ++i) {
    if (c.ints.at("job")[i] != 0 || c.ints.at("state")[i] != 1) continue;
    ++on_rows;
    CHECK(c.f64.at("util")[i] == Approx(job.model.compute_s / step).epsilon(1e-12));
    CHECK(c.f64.at("fb_used_bytes")[i] == Approx(job.model.memory_per_gpu_bytes).epsilon(1e-12));
    CHECK(c.f64.at("pcie_rx_bytes_per_s")[i] == Approx(256.0 * 150528.0 / step).epsilon(1e-12));
    CHECK(c.f64.at("pcie_tx_bytes_per_s")[i] == 0.0);
    CHECK(c.f64.at("nvlink_tx_bytes_per_s")[i] == Approx(25557032.0 * 2.0 / step).epsilon(1e-9));
    CHECK(c.f64.at("net_tx_bytes_per_s")[i] == 0.0);
  }
  // No network, no storage: its step never changes, so one row per GPU at its start.
  CHECK(on_rows == 2);
  // The export: the utilization in percent, the memory in MiB.
  const auto m = exported(dir.file("m.h5"));
  const auto& util = m.at("DCGM_FI_DEV_GPU_UTIL").at("node=p-0,gpu=1,pool=p,job=rn");
  REQUIRE(!util.empty());
  CHECK(util[0].value == Approx(100.0 * job.model.compute_s / step).epsilon(1e-12));
  CHECK(m.at("DCGM_FI_DEV_FB_USED").at("node=p-0,gpu=0,pool=p,job=rn")[0].value ==
        Approx(job.model.memory_per_gpu_bytes / 1048576.0).epsilon(1e-12));
}

TEST_CASE("A job across two nodes: its ring's node-crossing share goes over PCIe and the network", "[scenario][metrics]") {
  // ResNet-50 amp on 16 GPUs, 2 nodes of 8 (NVLink): one data-parallel ring of n = 16
  // ranks, each sending 2(n-1)/n G per step, G = 25,557,032 x 2 B. Of the ring's 16 hops, 2
  // leave a node: per GPU 2/16 of its bytes go to the other node (through the NIC, so
  // over PCIe too), 14/16 over NVLink. A node's 8 GPUs then send 8 x 2/16 x 2(n-1)/n G =
  // 2(n-1)/n G per step: one ring edge out of the node. Its counter at the first sample
  // (60 s, the job running since 0 without pauses) is that times 60 / step.
  test::TempDir dir("metrics-two-nodes");
  const auto t = test::run_yaml(R"(name: m
horizon: 1h
run_until: horizon
cluster:
  node_types:
    - {name: p, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 96, count: 2, price: {on_demand_per_hour: 32}}
workload:
  jobs:
    - {name: rn, model: resnet50, precision: amp, batch_per_gpu: 256, gpus: 16, samples: 100M}
output: {metrics: {every: 1m}}
)",
                                dir);
  const double step = test::job_named(t, "rn").model.step_time_s;
  REQUIRE(step > 0);
  const double g = 25557032.0 * 2.0;
  const double sent = 2.0 * 15.0 / 16.0 * g;
  const auto r = trace::TraceReader::open(dir.file("m.h5"));
  const auto c = r->read_columns("metrics", {"job", "state", "pcie_tx_bytes_per_s", "nvlink_tx_bytes_per_s",
                                             "net_tx_bytes_per_s", "pcie_rx_bytes_per_s"});
  int rows = 0;
  for (std::size_t i = 0; i < c.ints.at("job").size(); ++i) {
    if (c.ints.at("job")[i] != 0 || c.ints.at("state")[i] != 1) continue;
    ++rows;
    CHECK(c.f64.at("net_tx_bytes_per_s")[i] == Approx(sent * 2.0 / 16.0 / step).epsilon(1e-12));
    CHECK(c.f64.at("pcie_tx_bytes_per_s")[i] == Approx(sent * 2.0 / 16.0 / step).epsilon(1e-12));
    CHECK(c.f64.at("nvlink_tx_bytes_per_s")[i] == Approx(sent * 14.0 / 16.0 / step).epsilon(1e-12));
    CHECK(c.f64.at("pcie_rx_bytes_per_s")[i] ==
          Approx((256.0 * 150528.0 + sent * 2.0 / 16.0) / step).epsilon(1e-12));
  }
  CHECK(rows == 16);
  const auto m = exported(dir.file("m.h5"));
  for (const char* node : {"node=p-0,pool=p", "node=p-1,pool=p"}) {
    INFO(node);
    const auto& tx = m.at("gcsim_node_network_transmit_bytes").at(node);
    REQUIRE(!tx.empty());
    CHECK(tx[0].time_s == 60.0);
    CHECK(tx[0].value == Approx(sent * 60.0 / step).epsilon(1e-9));
    CHECK(m.at("gcsim_node_network_receive_bytes").at(node)[0].value == Approx(sent * 60.0 / step).epsilon(1e-9));
  }
}

TEST_CASE("gcsim metrics --openmetrics writes text that promtool loads, every sample", "[scenario][metrics][promtool]") {
  if (std::system("command -v promtool > /dev/null 2>&1") != 0) {
    WARN("promtool (Debian's prometheus package) not found: the export is not checked by Prometheus");
    return;
  }
  test::TempDir dir("metrics-promtool");
  test::write_file(dir.file("m.yaml"), with_output("output: {metrics: {every: 15s}}"));
  const auto run = test::run_gcsim("run " + dir.file("m.yaml") + " -o " + dir.path().string() + " --no-plots -q");
  REQUIRE(run.code == 0);
  const auto exp = test::run_gcsim("metrics " + dir.file("m.h5") + " --openmetrics -o " + dir.file("run.om"));
  INFO(exp.output);
  REQUIRE(exp.code == 0);
  const std::string text = test::read_bytes(dir.file("run.om"));
  CHECK(text.size() > 6);
  CHECK(text.substr(text.size() - 6) == "# EOF\n");
  CHECK(test::has(text, "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"));
  CHECK(test::has(text, "# TYPE gcsim_node_network_transmit_bytes counter\n# UNIT gcsim_node_network_transmit_bytes bytes\n"));
  // The latency family is declared without samples here (no network: section); promtool
  // takes a family with none.
  CHECK(test::has(text, "# TYPE gcsim_node_network_latency_seconds gauge\n"
                        "# UNIT gcsim_node_network_latency_seconds seconds\n"));
  CHECK_FALSE(test::has(text, "gcsim_node_network_latency_seconds{"));
  // Simulated t = 15 s is 2026-01-05T00:00:15Z.
  CHECK(test::has(text, "DCGM_FI_DEV_GPU_UTIL{node=\"a-0\",gpu=\"0\",pool=\"a\",job=\"A\"} 100 1767571215.000\n"));
  CHECK(test::has(text, "gcsim_node_network_transmit_bytes_total{node=\"a-0\",pool=\"a\"} 0 1767571320.000\n"));
  // The samples the run implies (see "A plain job's metrics"): utilization 6 + 2 + 8 = 16;
  // memory, PCIe each way and NVLink each way 10 each (the idle series); the node's two
  // counters 2 each: 16 + 5 x 10 + 2 x 2 = 70.
  const auto load = test::run_command("promtool tsdb create-blocks-from openmetrics " + dir.file("run.om") + " " +
                                      dir.file("tsdb") + " 2>&1");
  INFO(load.output);
  REQUIRE(load.code == 0);
  std::smatch match;
  // promtool prints each block: ULID, min and max time, duration, samples, chunks, series, size.
  const std::regex block(R"(\n[0-9A-Z]{26}\s+\d+\s+\d+\s+\S+\s+(\d+)\s+(\d+)\s+(\d+))");
  std::size_t samples = 0, series = 0;
  for (auto it = std::sregex_iterator(load.output.begin(), load.output.end(), block); it != std::sregex_iterator(); ++it) {
    samples += std::stoul((*it)[1]);
    series += std::stoul((*it)[3]);
  }
  CHECK(samples == 70);
  // Utilization: A on GPU 0, GPU 0 idle, GPU 1 idle (3); five families of the idle
  // series (2 x 5); the two counters (2).
  CHECK(series == 15);
}
