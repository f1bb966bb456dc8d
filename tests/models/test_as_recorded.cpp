// The as-recorded replay (docs/traces.md, "Modes"): recorded starts from each importer,
// the mode's keys, the `recorded` policy on hand-made fixtures whose occupancy is worked
// out by hand (a recorded wait, overlap, a job over capacity, a job without a recorded
// start skipped, recorded machines and GPU shares), the allocator's runs over capacity,
// and the issue's check: on the bundled Alibaba 2023 trace, the time-weighted mean and the
// peak of allocated GPUs equal a direct computation from the CSV.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "analysis/metrics.hpp"
#include "models/cluster/cluster.hpp"
#include "models/cluster/node_allocator.hpp"
#include "models/importers/trace_import.hpp"
#include "models/scheduler/recorded.hpp"
#include "sim/config/config_node.hpp"
#include "support/cluster_run.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using namespace gcsim::test;
using models::TraceImport;
using models::TraceJob;

namespace {

const std::string FIXTURES = GCSIM_SOURCE_DIR "/tests/fixtures/traces/";
constexpr std::int64_t S = 1'000'000'000;

struct Imported {
  std::vector<TraceJob> jobs;
  models::TraceImportReport report;
};
Imported import_trace(const std::string& trace_yaml) {
  const config::ConfigDocument doc = config::load_yaml_string("trace: " + trace_yaml + "\n", FIXTURES + "test.yaml");
  config::SourceResolver sources;
  TraceImport trace(*doc.root.find("trace"), sources);
  Imported out;
  TraceJob j;
  while (trace.next(j)) out.jobs.push_back(j);
  out.report = trace.report();
  return out;
}

// The integral (GPU-seconds) and the peak of a trace's allocated GPUs over [0, end_s].
struct Occupancy {
  double gpu_s = 0;
  double peak = 0;
};
Occupancy occupancy(const analysis::TraceData& t, double end_s) {
  Occupancy o;
  const auto& u = t.utilization;
  for (std::size_t i = 0; i < u.size(); ++i) {
    const double to = i + 1 < u.size() ? u[i + 1].time_s : end_s;
    o.gpu_s += (to - u[i].time_s) * u[i].allocated_gpus;
    o.peak = std::max(o.peak, u[i].allocated_gpus);
  }
  return o;
}

// The allocated GPUs at time `at` (the step function's value there).
double allocated_at(const analysis::TraceData& t, double at) {
  double v = 0;
  for (const auto& s : t.utilization)
    if (s.time_s <= at) v = s.allocated_gpus;
  return v;
}

}  // namespace

TEST_CASE("as-recorded: each importer gives the recorded start", "[unit]") {
  SECTION("swf: submit + wait (field 3)") {
    const Imported t = import_trace("{format: swf, file: sample.swf}");
    REQUIRE(t.jobs.size() == 4);
    CHECK(t.jobs[0].start_ns == 10 * S);   // job 1: submit 0, wait 10
    CHECK(t.jobs[1].start_ns == 60 * S);   // job 2: submit 60, wait 0
    CHECK(t.jobs[2].start_ns == 120 * S);  // job 5
    CHECK(t.jobs[3].start_ns == 100 * S);  // job 7
    CHECK(t.jobs[0].machine.empty());
  }
  SECTION("swf: a wait of -1 is no recorded start; as recorded, the job is skipped and counted") {
    const Imported resubmit = import_trace("{format: swf, file: as_recorded.swf}");
    REQUIRE(resubmit.jobs.size() == 5);
    CHECK(resubmit.jobs[3].start_ns == -1);
    const Imported t = import_trace("{format: swf, file: as_recorded.swf, mode: as-recorded}");
    REQUIRE(t.jobs.size() == 4);
    CHECK(t.report.skipped.at("no recorded start (mode: as-recorded needs one)") == 1);
    CHECK(t.jobs[2].name == "swf-3");
    CHECK(t.jobs[2].submit_ns == 200 * S);
    CHECK(t.jobs[2].start_ns == 300 * S);
    // As recorded, the last end is the last start plus its run: job 5, 1200 + 300.
    CHECK(t.report.last_end_ns == 1500 * S);
  }
  SECTION("helios: start_time from the first day's midnight") {
    const Imported t = import_trace("{format: helios, jobs: helios_cluster_log.csv}");
    REQUIRE(t.jobs.size() == 3);
    CHECK(t.jobs[0].start_ns == 67261 * S);  // 18:41:01
    CHECK(t.jobs[1].start_ns == 67290 * S);  // 18:41:30: 3 s after its submit
    CHECK(t.jobs[2].start_ns == 72000 * S);  // 20:00:00
  }
  SECTION("alibaba-pai-2023: scheduled_time") {
    const Imported t = import_trace("{format: alibaba-pai-2023, pods: pai2023_pods.csv}");
    REQUIRE(t.jobs.size() == 4);
    CHECK(t.jobs[0].start_ns == 0);
    CHECK(t.jobs[1].start_ns == 120 * S);
    CHECK(t.jobs[2].start_ns == 300 * S);
    CHECK(t.jobs[3].start_ns == 50 * S);
  }
  SECTION("a time window shifts the recorded starts with the submits") {
    const Imported t = import_trace("{format: swf, file: as_recorded.swf, mode: as-recorded, time_window: [100s, 2000s]}");
    REQUIRE(t.jobs.size() == 2);  // jobs 3 and 5 (jobs 1 and 2 before the window; 4 has no start)
    CHECK(t.jobs[0].submit_ns == 100 * S);
    CHECK(t.jobs[0].start_ns == 200 * S);
    CHECK(t.jobs[1].start_ns == 1100 * S);
  }
}

TEST_CASE("as-recorded: a start recorded before its submit is submitted at its start, noted", "[unit]") {
  TempDir dir("as_recorded_helios");
  write_file(dir.file("log.csv"),
             "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
             "2001,u,v,1,1,1,COMPLETED,2020-06-09 10:00:10,2020-06-09 10:00:00,2020-06-09 10:10:00,600,0\n"
             "2002,u,v,2,1,1,COMPLETED,2020-06-09 10:01:00,2020-06-09 10:02:00,2020-06-09 10:03:00,60,60\n");
  const config::ConfigDocument doc =
      config::load_yaml_string("trace: {format: helios, jobs: log.csv, mode: as-recorded}\n", dir.file("test.yaml"));
  config::SourceResolver sources;
  TraceImport trace(*doc.root.find("trace"), sources);
  std::vector<TraceJob> jobs;
  for (TraceJob j; trace.next(j);) jobs.push_back(j);
  REQUIRE(jobs.size() == 2);
  // 10:00:00 is 36000 s after midnight: 2001 is submitted there (not at 36010), a wait of 0.
  CHECK(jobs[0].submit_ns == 36000 * S);
  CHECK(jobs[0].start_ns == 36000 * S);
  CHECK(jobs[1].submit_ns == 36060 * S);
  CHECK(jobs[1].start_ns == 36120 * S);
  CHECK(trace.report().notes.at("recorded start before its submit (as-recorded: submitted at its start, a wait of 0)") == 1);
}

TEST_CASE("as-recorded: a recorded machine names the node it is in the cluster the machine list makes", "[unit]") {
  const config::ConfigDocument doc = config::load_yaml_string(
      "trace: {format: alibaba-pai-2023, pods: pai2023_pods.csv, nodes: pai2023_nodes.csv, gpu_map: {G2: A100-40GB-SXM}}\n",
      FIXTURES + "test.yaml");
  config::SourceResolver sources;
  TraceImport trace(*doc.root.find("trace"), sources);
  const auto at = models::machine_nodes(trace.machines());
  // node-0 has no GPU (left out); V100M32 node-1 and node-2 make the first type, then T4
  // node-3, V100M16 node-4, G2 node-5.
  CHECK(at.size() == 5);
  CHECK(at.count("node-0") == 0);
  CHECK(at.at("node-1") == 0);
  CHECK(at.at("node-2") == 1);
  CHECK(at.at("node-3") == 2);
  CHECK(at.at("node-4") == 3);
  CHECK(at.at("node-5") == 4);
  // The same numbering as the cluster derived from that list: node i is of the type of its machine.
  const models::Scenario s = scenario_from_yaml(R"(
name: t
horizon: 1d
workload:
  trace: {format: alibaba-pai-2023, pods: pai2023_pods.csv, nodes: pai2023_nodes.csv, gpu_map: {G2: A100-40GB-SXM}}
)", FIXTURES + "test.yaml");
  const std::vector<models::NodeTypeView> types = models::node_type_views(s.cluster);
  auto type_of = [&](std::uint32_t node) {
    for (const auto& t : types)
      if (node >= t.first_node && node < t.first_node + static_cast<std::uint32_t>(t.count)) return t.gpus_per_node;
    return -1;
  };
  CHECK(type_of(0) == 8);
  CHECK(type_of(1) == 8);
  CHECK(type_of(2) == 2);  // T4
  CHECK(s.cluster.node_types[1].gpu.name == "T4");
  CHECK(s.cluster.node_types[3].gpu.name == "A100-40GB-SXM");
  CHECK(type_of(4) == 8);
}

TEST_CASE("as-recorded: the transforms that change times or sizes are refused", "[unit]") {
  auto code = [](const std::string& trace) { return config_error([&] { import_trace(trace); }).code(); };
  CHECK(code("{format: swf, file: as_recorded.swf, mode: as-recorded, speedup: 2}") == ErrorCode::Conflict);
  CHECK(code("{format: swf, file: as_recorded.swf, mode: as-recorded, scale_gpus: 2}") == ErrorCode::Conflict);
  CHECK(code("{format: swf, file: as_recorded.swf, mode: as-recorded-ish}") == ErrorCode::UnknownName);
  // speedup 1 and scale_gpus 1 change nothing: accepted.
  CHECK(import_trace("{format: swf, file: as_recorded.swf, mode: as-recorded, speedup: 1, scale_gpus: 1}").jobs.size() == 4);
}

TEST_CASE("as-recorded on a hand-made log: recorded waits, overlap, a job over capacity, the occupancy by hand", "[model]") {
  const std::string yaml = R"(
name: asrec
horizon: 1d
run_until: done
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 4, count: 1, price: {on_demand_per_hour: 4}}
scheduler: {policy: fifo, blocking: strict}
workload:
  trace: {format: swf, file: as_recorded.swf, mode: as-recorded}
)";
  const models::Scenario s = scenario_from_yaml(yaml, FIXTURES + "test.yaml");
  // The scenario's fifo is replaced by the replay's policy, and the report says so.
  CHECK(s.scheduler.policy == "recorded");
  bool noted = false;
  for (const std::string& line : s.import_report) noted |= has(line, "(policy fifo) is not used");
  CHECK(noted);
  REQUIRE(s.workload.jobs.size() == 4);
  REQUIRE(s.workload.recorded.size() == 4);
  CHECK(s.workload.recorded[0].wait_s == 100);
  CHECK(s.workload.recorded[2].wait_s == 100);  // job 3: submitted 200, started 300
  CHECK(s.workload.recorded[3].wait_s == 200);

  TempDir dir("as_recorded");
  const analysis::TraceData t = run_to_trace(s, dir.file("asrec.h5"));
  // Each job starts at its recorded start, so its wait is the recorded one.
  const std::map<std::string, std::pair<double, double>> expect{
      {"swf-1", {100, 1100}}, {"swf-2", {50, 550}}, {"swf-3", {300, 900}}, {"swf-5", {1200, 1500}}};
  for (const auto& [name, times] : expect) {
    const analysis::JobRecord& j = job_named(t, name);
    INFO(name);
    CHECK(j.start_s == times.first);
    CHECK(j.end_s == times.second);
    CHECK(j.status == analysis::JobStatus::Completed);
  }
  CHECK(job_named(t, "swf-1").start_s - job_named(t, "swf-1").submit_s == 100);
  CHECK(job_named(t, "swf-5").start_s - job_named(t, "swf-5").submit_s == 200);
  // At 300 s jobs 1 and 2 hold the node's 4 GPUs: job 3 goes over capacity, on node 0, and
  // the node carries 6 GPUs of load until job 2 ends at 550.
  CHECK(job_named(t, "swf-3").first_node == 0);
  CHECK(job_named(t, "swf-3").gpus_held == 2);
  CHECK(allocated_at(t, 299) == 4);
  CHECK(allocated_at(t, 300) == 6);
  CHECK(allocated_at(t, 550) == 4);
  CHECK(allocated_at(t, 900) == 2);
  CHECK(allocated_at(t, 1100) == 0);
  CHECK(allocated_at(t, 1200) == 1);
  CHECK(t.utilization.back().allocated_gpus == 0);
  // 50 x 2 + 200 x 4 + 250 x 6 + 350 x 4 + 200 x 2 + 300 x 1 = 4500 GPU-s over [0, 1500]:
  // a mean of 3 GPUs, a peak of 6.
  REQUIRE(t.attrs.end_s == 1500);
  const Occupancy o = occupancy(t, 1500);
  CHECK(o.gpu_s == 4500);
  CHECK(o.gpu_s / 1500 == 3);
  CHECK(o.peak == 6);
  // Job 3: 2 GPUs x 600 s over capacity = 1/3 GPU-hour.
  CHECK(has(t.attrs.scheduler_settings, "4 starts, 0 on their recorded machines, 1 placed over capacity (0.33 GPU-hours)"));
  CHECK(has(t.attrs.scheduler_settings, "0 after their recorded start"));

  SECTION("a node released with a run over capacity on it stops that run too, and the load goes to 0") {
    sim::Engine engine;
    models::Cluster cluster(engine, s, models::expand_workload(s, 0), std::make_unique<models::RecordedScheduler>());
    cluster.start();
    engine.run(sim::seconds(400));  // jobs 1, 2 on the node's GPUs, job 3 over capacity
    REQUIRE(cluster.allocated_gpus() == 6);
    REQUIRE(cluster.jobs()[2].over_capacity);
    REQUIRE(cluster.release_node(0));
    CHECK(cluster.allocated_gpus() == 0);
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(cluster.jobs()[i].status == models::JobStatus::Queued);
      CHECK(cluster.jobs()[i].stop_reason == models::StopReason::NodeReleased);
    }
    engine.run();
    // No node is left: the jobs wait (none is placed on a released node), job 5 among them.
    const auto& policy = dynamic_cast<const models::RecordedScheduler&>(cluster.policy());
    CHECK(policy.counts().starts == 3);
    CHECK(cluster.jobs()[3].status != models::JobStatus::Running);
  }
  SECTION("a run under another policy (a compare's, a sweep's) is refused, not replayed as resubmit") {
    models::RunOptions o;
    auto fifo = std::make_shared<models::SchedulerChoice>();
    fifo->spec.policy = "fifo";
    o.scheduler = fifo;
    CHECK_THROWS_WITH(models::run_simulation(s, models::builtins().schedulers, nullptr, o),
                      Catch::Contains("to compare policies on the trace, use mode: resubmit"));
  }
}

TEST_CASE("the recorded policy: recorded machines, shares, over capacity on the machine, best-fit elsewhere", "[model]") {
  // Two nodes of 2 GPUs. Recorded: e none (starts when it arrives, at 0), a at 10 s on node
  // 1, b (2 GPUs) at 20 s on node 1, c (half a GPU) at 30 s on node 0, d (0.6 of one) at
  // 40 s on node 0, f at 50 s with no machine; each runs 100 s.
  models::Scenario s = scenario_from_yaml(R"(
name: machines
horizon: 1d
run_until: done
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 2, count: 2, price: {on_demand_per_hour: 2}}
scheduler: {policy: recorded}
workload:
  jobs:
    - {name: e, gpus: 1, duration: 100s}
    - {name: a, gpus: 1, duration: 100s}
    - {name: b, gpus: 2, duration: 100s}
    - {name: c, gpus: 1, gpu_milli: 500, duration: 100s}
    - {name: d, gpus: 1, gpu_milli: 600, duration: 100s}
    - {name: f, gpus: 1, duration: 100s}
)");
  // Every job is submitted at 0: its recorded wait is its recorded start.
  s.workload.recorded.resize(s.workload.jobs.size());
  auto set = [&](std::size_t i, int start_s, int node) { s.workload.recorded[i] = models::RecordedRun{start_s, node}; };
  set(1, 10, 1);
  set(2, 20, 1);
  set(3, 30, 0);
  set(4, 40, 0);
  set(5, 50, -1);
  TempDir dir("recorded_machines");
  const analysis::TraceData t = run_to_trace(s, dir.file("m.h5"));
  auto job = [&](const char* name) { return job_named(t, name); };
  CHECK(job("e").start_s == 0);
  CHECK(job("e").first_node == 0);  // best-fit: both nodes free, the lowest
  CHECK(job("a").start_s == 10);
  CHECK(job("a").first_node == 1);  // its machine, although best-fit would take node 0's free GPU
  CHECK(job("b").start_s == 20);
  CHECK(job("b").first_node == 1);  // its machine has 1 GPU free: over capacity there
  CHECK(job("c").start_s == 30);
  CHECK(job("c").first_node == 0);  // node 0's free GPU 1, half of it
  CHECK(job("d").start_s == 40);
  CHECK(job("d").first_node == 0);  // GPU 1 has 500 thousandths left, not 600: over capacity
  CHECK(job("d").gpu_milli == 600);
  CHECK(job("f").start_s == 50);
  CHECK(job("f").first_node == 1);  // b holds none of node 1's GPUs: its GPU 1 is free
  // Allocated: 1, 2, 4, 4.5, 5.1, then 6.1 from 50 s to 100 s, and down as they end.
  CHECK(allocated_at(t, 40) == Approx(5.1).margin(1e-12));
  CHECK(allocated_at(t, 50) == Approx(6.1).margin(1e-12));
  CHECK(allocated_at(t, 140) == Approx(1).margin(1e-12));
  CHECK(t.utilization.back().allocated_gpus == 0);
  // The jobs' GPU-seconds: 100 + 100 + 200 + 50 + 60 + 100 = 610.
  const Occupancy o = occupancy(t, t.attrs.end_s);
  CHECK(o.gpu_s == Approx(610).epsilon(1e-12));
  CHECK(o.peak == Approx(6.1).margin(1e-12));
  CHECK(has(t.attrs.scheduler_settings, "6 starts, 2 on their recorded machines, 2 placed over capacity (0.07 GPU-hours)"));

  SECTION("a recorded machine that is not a node of the cluster: best-fit, counted") {
    s.workload.recorded[1].node = 7;
    ClusterRun run(s, std::make_unique<models::RecordedScheduler>());
    const auto& policy = dynamic_cast<const models::RecordedScheduler&>(run.cluster->policy());
    CHECK(policy.counts().machine_unusable == 1);
    CHECK(policy.counts().starts == 6);
    CHECK(run.cluster->allocated_gpus() == 0);
  }
}

TEST_CASE("recorded: a run recorded over several machines starts on all of them, over capacity if need be",
          "[unit]") {
  // Nodes 0..2 of type a (2 GPUs), node 3 of type b. x (2 GPUs) on node 0 from 0 s; g (4
  // GPUs) at 10 s recorded over nodes 1 and 2: there; h (4 GPUs) at 20 s over 0 and 1,
  // which x and g fill: over capacity there; u (4 GPUs) at 30 s over nodes 2 and 3, of two
  // types: unusable, best-fit (nothing free: over capacity on the roomiest node); v (3 GPUs)
  // at 40 s over two nodes: 3 does not split in two, unusable. Each runs 100 s.
  models::Scenario s = scenario_from_yaml(R"(
name: sets
horizon: 1d
run_until: done
cluster:
  node_types:
    - {name: a, gpu: A100-40GB-SXM, gpus: 2, count: 3, price: {on_demand_per_hour: 2}}
    - {name: b, gpu: A100-40GB-SXM, gpus: 4, count: 1, price: {on_demand_per_hour: 4}}
scheduler: {policy: recorded}
workload:
  jobs:
    - {name: x, gpus: 2, duration: 100s}
    - {name: g, gpus: 4, duration: 100s}
    - {name: h, gpus: 4, duration: 100s}
    - {name: u, gpus: 4, duration: 100s}
    - {name: v, gpus: 3, duration: 100s}
)");
  s.workload.recorded.resize(s.workload.jobs.size());
  const auto set = [&](std::size_t i, int start_s, std::vector<std::int32_t> nodes) {
    const std::size_t offset = s.workload.recorded_node_sets.size();
    s.workload.recorded_node_sets.push_back(static_cast<std::int32_t>(nodes.size()));
    s.workload.recorded_node_sets.insert(s.workload.recorded_node_sets.end(), nodes.begin(), nodes.end());
    s.workload.recorded[i] = models::RecordedRun{start_s, models::recorded_node_set(offset)};
  };
  s.workload.recorded[0] = models::RecordedRun{0, 0};
  set(1, 10, {2, 1});
  set(2, 20, {0, 1});
  set(3, 30, {2, 3});
  set(4, 40, {1, 2});
  TempDir dir("recorded_sets");
  const analysis::TraceData t = run_to_trace(s, dir.file("s.h5"));
  const auto check = [&](const char* name, double start_s, int first_node, int nodes) {
    const analysis::JobRecord& j = job_named(t, name);
    INFO(name);
    CHECK(j.start_s == start_s);
    CHECK(j.first_node == first_node);
    CHECK(j.nodes == nodes);
  };
  check("x", 0, 0, 1);
  check("g", 10, 1, 2);  // nodes 1 and 2 (sorted), 2 GPUs each
  check("h", 20, 0, 2);  // over capacity on nodes 0 and 1
  check("u", 30, 3, 1);  // best-fit: type b's node, the only one with room
  // v: 3 GPUs, one node of type b holds it, but u has it: over capacity, on the roomiest up node.
  CHECK(job_named(t, "v").start_s == 40);
  INFO(t.attrs.scheduler_settings);
  CHECK(has(t.attrs.scheduler_settings, "5 starts, 2 on their recorded machines"));
  CHECK(has(t.attrs.scheduler_settings, "2 recorded machines unusable"));
  // Allocated GPUs: 2, 6, 10, 14, 17 from 40 s to 100 s: the occupancy recorded.
  CHECK(allocated_at(t, 45) == Approx(17).margin(1e-12));

  SECTION("a set that names one node twice is not used: best-fit, counted") {
    const std::size_t g_set = models::recorded_node_set_offset(s.workload.recorded[1].node);
    s.workload.recorded_node_sets[g_set + 2] = s.workload.recorded_node_sets[g_set + 1];  // {2, 2}
    ClusterRun run(s, std::make_unique<models::RecordedScheduler>());
    const auto& policy = dynamic_cast<const models::RecordedScheduler&>(run.cluster->policy());
    CHECK(policy.counts().starts == 5);
    CHECK(policy.counts().machine_unusable == 3);
    CHECK(policy.counts().on_machine == 1);
  }
}

TEST_CASE("policy: recorded refuses quotas, and as-recorded sets quotas aside with the scheduler", "[unit]") {
  const std::string base = R"(
name: q
horizon: 1d
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 4, count: 1, price: {on_demand_per_hour: 4}}
)";
  const ConfigError e = config_error([&] {
    scenario_from_yaml(base + "scheduler: {policy: recorded, quotas: {windows: [{teams: {t: 50%}}]}}\n"
                              "workload:\n  jobs: [{gpus: 1, duration: 1h, team: t}]\n");
  });
  CHECK(e.code() == ErrorCode::Conflict);
  CHECK(e.key_path() == "scheduler.quotas");
  const models::Scenario s = scenario_from_yaml(
      base + "scheduler: {policy: fifo, quotas: {windows: [{teams: {user-1: 50%}}]}}\n"
             "workload:\n  trace: {format: swf, file: as_recorded.swf, mode: as-recorded}\n",
      FIXTURES + "test.yaml");
  CHECK(s.scheduler.policy == "recorded");
  CHECK(!s.scheduler.quotas);
}

TEST_CASE("node allocator: a run over capacity holds no GPU, counts in the load, keeps the node in service", "[unit]") {
  const models::Scenario s = scenario_from_yaml(R"(
name: alloc
horizon: 1d
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 2, count: 1, price: {on_demand_per_hour: 2}}
workload:
  jobs: [{gpus: 1, duration: 1h}]
)");
  models::NodeAllocator alloc(s.cluster);
  models::Job j;
  j.id = 0;
  j.name = "big";
  j.gpus = 4;
  models::Decisions d;
  d.nodes = {0};
  models::Placement p{0, 0, 1, 4, 0, -1, 1000, 0};
  // Without the flag, 4 GPUs on a node of 2 is refused.
  CHECK_THROWS_AS(alloc.allocate(j, p, d, "test"), InternalError);
  p.over_capacity = true;
  alloc.allocate(j, p, d, "test");
  CHECK(j.over_capacity);
  CHECK(j.gpu_mask == 0);
  CHECK(alloc.allocated_gpus() == 4);
  CHECK(alloc.view()[0].gpus_free == 2);  // its GPUs stay free for others
  CHECK(!alloc.idle(0));
  std::vector<std::uint32_t> on;
  alloc.jobs_on(0, on);
  CHECK(on == std::vector<std::uint32_t>{0});
  // A node with a job on it does not leave service.
  CHECK_THROWS_AS(alloc.transition(0, models::NodePhase::Down, models::NodeReason::SpotInterruption, sim::seconds(1)),
                  InternalError);
  alloc.release(j, 10);
  CHECK(alloc.allocated_gpus() == 0);
  CHECK(alloc.idle(0));
  CHECK(alloc.nodes()[0].busy_gpu_s == 40);
  CHECK_THROWS_AS(alloc.release(j, 10), InternalError);  // released twice
  // Over capacity on a node that is not up is refused.
  REQUIRE(alloc.transition(0, models::NodePhase::Down, models::NodeReason::SpotInterruption, sim::seconds(2)));
  CHECK_THROWS_AS(alloc.allocate(j, p, d, "test"), InternalError);
}

TEST_CASE("as-recorded: the bundled Alibaba 2023 trace's occupancy equals a direct computation from the CSV",
          "[scenario]") {
  const std::string dir = GCSIM_SOURCE_DIR "/scenarios/examples/traces/";
  // The pod list read with a plain split (no quoted fields). A pod with GPUs, a
  // scheduled_time and a later deletion_time holds num_gpu GPUs (a one-GPU pod gpu_milli
  // thousandths of one) from scheduled_time to deletion_time. Allocated GPUs in thousandths
  // (integers, exact): +a at the start, -a at the end, swept in time order; the value at an
  // instant is the one after every event there (a pod that ends when another starts frees
  // its GPUs first, as the run does).
  std::ifstream in(dir + "openb_pod_list_gpuspec33.csv");
  std::string line;
  std::getline(in, line);
  std::map<std::int64_t, std::int64_t> change;  // time -> change in thousandths
  double wait_s = 0;
  std::size_t pods = 0;
  std::int64_t last_end = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::size_t from = 0;
    for (std::size_t comma; (comma = line.find(',', from)) != std::string::npos; from = comma + 1) f.push_back(line.substr(from, comma - from));
    f.push_back(line.substr(from));
    REQUIRE(f.size() == 11);
    const long gpus = std::stol(f[3]);
    if (gpus == 0 || f[10].empty() || f[9].empty()) continue;
    const std::int64_t start = std::stol(f[10]), end = std::stol(f[9]);
    if (end <= start) continue;
    const std::int64_t milli = gpus == 1 ? std::stol(f[4]) : 1000 * gpus;
    change[start] += milli;
    change[end] -= milli;
    wait_s += static_cast<double>(start - std::stol(f[8]));
    last_end = std::max(last_end, end);
    ++pods;
  }
  std::int64_t now = 0, milli_s = 0, peak = 0;
  std::int64_t at = 0;
  for (const auto& [t, c] : change) {
    milli_s += now * (t - at);
    now += c;
    at = t;
    peak = std::max(peak, now);
  }
  REQUIRE(now == 0);
  const double direct_mean = static_cast<double>(milli_s) / 1000.0 / static_cast<double>(last_end);
  const double direct_peak = static_cast<double>(peak) / 1000.0;

  const models::Scenario s =
      scenario_from_yaml(read_bytes(dir + "alibaba-2023-as-recorded.yaml"), dir + "alibaba-2023-as-recorded.yaml");
  REQUIRE(s.workload.jobs.size() == pods);
  TempDir tmp("as_recorded_alibaba");
  const analysis::TraceData t = run_to_trace(s, tmp.file("a.h5"));
  REQUIRE(t.attrs.end_s == static_cast<double>(last_end));
  const Occupancy o = occupancy(t, t.attrs.end_s);
  // The run's allocated GPUs are thousandths / 1000 in a double, summed over some 12,000
  // steps of whole seconds: exact up to rounding, 1e-12 relative; the peak is one of those
  // values, exact.
  CHECK(o.gpu_s / t.attrs.end_s == Approx(direct_mean).epsilon(1e-12));
  CHECK(o.peak == direct_peak);
  // What `gcsim analyze` reports of the same trace: the same mean and peak.
  const analysis::Metrics m = analysis::compute_metrics(t);
  CHECK(m.mean_allocated_gpus == Approx(direct_mean).epsilon(1e-12));
  CHECK(m.peak_allocated_gpus == direct_peak);
  // The waits are the recorded ones (scheduled - created), as the pods' are.
  double run_wait_s = 0;
  for (const analysis::JobRecord& j : t.jobs) run_wait_s += j.start_s - j.submit_s;
  CHECK(run_wait_s == Approx(wait_s).epsilon(1e-12));
  // No pod needed more room than best-fit found: none over capacity, none late.
  INFO(t.attrs.scheduler_settings);
  CHECK(has(t.attrs.scheduler_settings, "0 placed over capacity"));
  CHECK(has(t.attrs.scheduler_settings, "0 after their recorded start"));
  // The figures the docs quote (docs/traces.md, "Modes").
  CHECK(direct_peak == Approx(65.59).margin(1e-9));
  CHECK(direct_mean == Approx(14.3606).margin(1e-4));

  SECTION("on a cluster of 34 GPUs, far below the trace's peak of 65.59: over capacity, never late") {
    // One node (two of T4) of each GPU the pods ask for: the replay must overcommit, and
    // the occupancy is still the trace's.
    std::string yaml = read_bytes(dir + "alibaba-2023-as-recorded.yaml");
    const std::string nodes_line = "    nodes: openb_node_list_gpu_node.csv\n";
    REQUIRE(yaml.find(nodes_line) != std::string::npos);
    yaml.replace(yaml.find(nodes_line), nodes_line.size(), "");
    yaml.replace(yaml.find("    gpu_prices:"), std::string::npos, "");
    yaml += R"(cluster:
  node_types:
    - {name: a10, gpu: A10, gpus: 8, count: 1, price: {on_demand_per_hour: 8}}
    - {name: a100, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 8}}
    - {name: t4, gpu: T4, gpus: 2, count: 2, price: {on_demand_per_hour: 8}}
    - {name: p100, gpu: P100-PCIe-16GB, gpus: 2, count: 1, price: {on_demand_per_hour: 8}}
    - {name: v16, gpu: V100-SXM2-16GB, gpus: 4, count: 1, price: {on_demand_per_hour: 8}}
    - {name: v32, gpu: V100-SXM2-32GB, gpus: 8, count: 1, price: {on_demand_per_hour: 8}}
)";
    const models::Scenario small = scenario_from_yaml(yaml, dir + "small.yaml");
    REQUIRE(small.cluster.total_gpus() == 34);
    const analysis::TraceData u = run_to_trace(small, tmp.file("small.h5"));
    REQUIRE(u.attrs.end_s == static_cast<double>(last_end));
    const Occupancy v = occupancy(u, u.attrs.end_s);
    CHECK(v.gpu_s / u.attrs.end_s == Approx(direct_mean).epsilon(1e-12));
    CHECK(v.peak == direct_peak);
    INFO(u.attrs.scheduler_settings);
    CHECK(!has(u.attrs.scheduler_settings, " 0 placed over capacity"));
    CHECK(has(u.attrs.scheduler_settings, "0 after their recorded start"));
    // Runs over capacity pay nothing: the bill is the 7 nodes' at $8/h for the run.
    double usd = 0;
    for (const auto& c : u.ledger) usd += c.usd;
    CHECK(usd == Approx(7 * 8 * u.attrs.end_s / 3600).epsilon(1e-9));
  }
}

TEST_CASE("gcsim validate and run of the as-recorded example say the policy is set aside and what the replay did",
          "[scenario][cli]") {
  const std::string file = GCSIM_SOURCE_DIR "/scenarios/examples/traces/alibaba-2023-as-recorded.yaml";
  const auto v = run_gcsim("validate " + file);
  INFO(v.output);
  REQUIRE(v.code == 0);
  CHECK(has(v.output, "policy recorded"));
  CHECK(has(v.output, "trace note: mode as-recorded: every job starts at its recorded start under the policy `recorded`"));
  TempDir dir("as_recorded_cli");
  const auto r = run_gcsim("run " + file + " -o " + dir.path().string() + " --no-plots");
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(has(r.output, "6203 completed"));
  CHECK(has(r.output, "note: replayed as recorded (policy recorded, whatever scheduler: says): as recorded: 6203 starts"));
  CHECK(has(r.output, "0 placed over capacity"));
  CHECK(has(r.output, "wait: mean 1m 10s"));  // the recorded waits: 69.95 s on average
}

TEST_CASE("as-recorded on Philly's log and machine list: recorded machines end to end, the occupancy the import's",
          "[scenario]") {
  // The fixture's attempts name machines m47, m412 (8 GPUs each) and m1..m3 (2 each): each
  // attempt starts at its recorded start on its recorded machine where it fits there.
  const models::Scenario s = scenario_from_yaml(R"(
name: philly-asrec
horizon: 2d
run_until: done
workload:
  trace: {format: philly, jobs: philly_cluster_job_log, machines: philly_cluster_machine_list, mode: as-recorded}
)", FIXTURES + "test.yaml");
  REQUIRE(s.scheduler.policy == "recorded");
  REQUIRE(s.workload.recorded.size() == s.workload.jobs.size());
  std::size_t with_machine = 0;
  for (const models::RecordedRun& r : s.workload.recorded) with_machine += r.node != -1;
  CHECK(with_machine == s.workload.jobs.size());  // every attempt's machines are in the list
  CHECK(s.workload.recorded[0].node == 3);        // the first attempt's m47: the 24 GB type's first node
  // _0002's attempt: 2 GPUs on each of m1 and m2 (nodes 0 and 1), a set of two nodes.
  const auto at = std::find_if(s.workload.jobs.begin(), s.workload.jobs.end(),
                               [](const models::JobSpec& j) { return j.name == "application_1506638472019_0002#1"; });
  REQUIRE(at != s.workload.jobs.end());
  const std::int32_t set = s.workload.recorded[static_cast<std::size_t>(at - s.workload.jobs.begin())].node;
  REQUIRE(models::is_recorded_node_set(set));
  const std::size_t offset = models::recorded_node_set_offset(set);
  CHECK(std::vector<std::int32_t>(s.workload.recorded_node_sets.begin() + static_cast<std::ptrdiff_t>(offset),
                                  s.workload.recorded_node_sets.begin() + static_cast<std::ptrdiff_t>(offset) + 3) ==
        std::vector<std::int32_t>{2, 0, 1});
  // The import's GPU-hours, from the report, against the run's allocated GPUs over time.
  double report_gpu_h = 0;
  for (const std::string& line : s.import_report)
    if (const auto at = line.find(" GPU-hours"); at != std::string::npos && has(line, "trace time span"))
      report_gpu_h = std::stod(line.substr(line.rfind("; ", at) + 2));
  REQUIRE(report_gpu_h > 0);
  TempDir dir("as_recorded_philly");
  const analysis::TraceData t = run_to_trace(s, dir.file("p.h5"));
  const Occupancy o = occupancy(t, t.attrs.end_s);
  CHECK(o.gpu_s / 3600 == Approx(report_gpu_h).margin(0.005));  // the report rounds to 0.01
  for (std::size_t i = 0; i < s.workload.jobs.size(); ++i) {
    const analysis::JobRecord& j = job_named(t, s.workload.jobs[i].name);
    INFO(j.name);
    CHECK(j.start_s - j.submit_s == s.workload.recorded[i].wait_s);
  }
  INFO(t.attrs.scheduler_settings);
  CHECK(has(t.attrs.scheduler_settings, "5 starts, 4 on their recorded machines"));
  CHECK(has(t.attrs.scheduler_settings, "0 after their recorded start"));
  CHECK(job_named(t, "application_1506638472019_0001#1").first_node == 3);  // m47
  CHECK(job_named(t, "application_1506638472019_0001#2").first_node == 4);  // m412
  // _0005's second attempt: 2 GPUs on m3 (node 2) from 02:00, while _0004 holds 1 of its 2
  // GPUs there (the trace itself puts 3 GPUs on that machine): over capacity, on m3.
  CHECK(job_named(t, "application_1506638472019_0005#2").first_node == 2);
  CHECK(has(t.attrs.scheduler_settings, "1 placed over capacity (6.00 GPU-hours)"));  // 2 GPUs x 3 h
  // _0002's 4 GPUs were on m1 and m2, 2 on each: on both (free then), 2 GPUs a node.
  const analysis::JobRecord& two = job_named(t, "application_1506638472019_0002#1");
  CHECK(two.first_node == 0);
  CHECK(two.nodes == 2);
  CHECK(two.gpus_held == 4);
  CHECK(has(t.attrs.scheduler_settings, "0 recorded machines unusable"));
}

TEST_CASE("as-recorded on a cluster written out: recorded machines by their kind's node type name and place",
          "[scenario]") {
  // The same log and machine list, with the cluster the list makes written as a section
  // (as `gcsim trace fit` writes it: types 12GB-2gpu with m1..m3, 24GB-8gpu with m47,
  // m412), here in the other order: m47 and m412 are nodes 0 and 1, m1..m3 nodes 2..4.
  const auto philly = [](const std::string& types) {
    return scenario_from_yaml(R"(
name: philly-written
horizon: 2d
run_until: done
cluster:
  node_types:
)" + types + R"(
workload:
  trace: {format: philly, jobs: philly_cluster_job_log, machines: philly_cluster_machine_list, mode: as-recorded}
)",
                              FIXTURES + "test.yaml");
  };
  const std::string big = "    - {name: 24GB-8gpu, gpu: P40, gpus: 8, count: 2, price: {on_demand_per_hour: 0}}\n";
  const std::string small = "    - {name: 12GB-2gpu, gpu: P100-PCIe-12GB, gpus: 2, count: 3, price: {on_demand_per_hour: 0}}\n";
  const auto report_has = [](const models::Scenario& s, const std::string& text) {
    return std::any_of(s.import_report.begin(), s.import_report.end(), [&](const std::string& l) { return has(l, text); });
  };

  SECTION("every machine kept, at its place in the scenario's order") {
    const models::Scenario s = philly(big + small);
    REQUIRE(s.workload.recorded.size() == s.workload.jobs.size());
    CHECK(s.workload.recorded[0].node == 0);  // m47: was node 3 in the list's own cluster
    CHECK(report_has(s, "trace note 5: recorded machine kept on the scenario's cluster"));
    TempDir dir("as_recorded_written");
    const analysis::TraceData t = run_to_trace(s, dir.file("p.h5"));
    INFO(t.attrs.scheduler_settings);
    // The same replay as on the list's own cluster (the test above), node for node.
    CHECK(has(t.attrs.scheduler_settings, "5 starts, 4 on their recorded machines"));
    CHECK(job_named(t, "application_1506638472019_0002#1").first_node == 2);  // m1, m2
    CHECK(has(t.attrs.scheduler_settings, "1 placed over capacity (6.00 GPU-hours)"));
    CHECK(job_named(t, "application_1506638472019_0001#1").first_node == 0);  // m47
    CHECK(job_named(t, "application_1506638472019_0001#2").first_node == 1);  // m412
    CHECK(job_named(t, "application_1506638472019_0005#2").first_node == 4);  // m3
  }
  SECTION("a machine past its type's count, or of a kind the scenario has no type for, goes by best-fit, counted") {
    const models::Scenario fewer = philly(
        "    - {name: 24GB-8gpu, gpu: P40, gpus: 8, count: 1, price: {on_demand_per_hour: 0}}\n" + small);
    CHECK(fewer.workload.recorded[0].node == 0);  // m47 is the type's first node: kept
    CHECK(report_has(fewer, "trace note 1: recorded machine not used (past its node type's count"));
    CHECK(report_has(fewer, "trace note 4: recorded machine kept"));
    const models::Scenario renamed = philly(
        "    - {name: p40, gpu: P40, gpus: 8, count: 2, price: {on_demand_per_hour: 0}}\n" + small);
    CHECK(renamed.workload.recorded[0].node == -1);
    CHECK(report_has(renamed, "trace note 2: recorded machine not used (the scenario's cluster has no node type named"));
    CHECK(report_has(renamed, "trace note 3: recorded machine kept"));
  }
}
