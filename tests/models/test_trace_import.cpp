// The trace importers (models/importers/, docs/traces.md): each format on a fixture written
// in its published layout (tests/fixtures/traces/), every figure worked out by hand in the
// comments; the resubmit transforms; the import report; bad rows and skip_bad_rows; a
// cluster made from a trace's machine list; a trace beside written jobs, run end to end.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "models/config/workload_reader.hpp"
#include "models/importers/trace_import.hpp"
#include "sim/config/config_node.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using namespace gcsim::test;
using models::TraceImport;
using models::TraceJob;

namespace {

const std::string FIXTURES = GCSIM_SOURCE_DIR "/tests/fixtures/traces/";
constexpr std::int64_t S = 1'000'000'000;

// Imports `trace_yaml` (the map under workload.trace) as written in a file of the fixtures'
// folder, so its file names resolve there.
struct Imported {
  std::vector<TraceJob> jobs;
  models::TraceImportReport report;
  std::vector<models::TraceMachineGroup> machines;
};
Imported import_trace(const std::string& trace_yaml) {
  const config::ConfigDocument doc = config::load_yaml_string("trace: " + trace_yaml + "\n", FIXTURES + "test.yaml");
  config::SourceResolver sources;
  TraceImport trace(*doc.root.find("trace"), sources);
  Imported out;
  TraceJob j;
  while (trace.next(j)) out.jobs.push_back(j);
  out.report = trace.report();
  out.machines = trace.machines();
  return out;
}

models::Scenario load(const std::string& yaml) { return scenario_from_yaml(yaml, FIXTURES + "test.yaml"); }

const std::string SIXTEEN_GPUS = R"(
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 2, price: {on_demand_per_hour: 8}}
)";

}  // namespace

TEST_CASE("swf: fields, -1 values, zero run times and unsorted submits, each counted", "[unit]") {
  const Imported t = import_trace("{format: swf, file: sample.swf}");
  // Rows 1, 2, 5, 7 make jobs; 3 (run time 0), 4 (run time -1), 6 (no processor count) are skipped.
  REQUIRE(t.jobs.size() == 4);
  CHECK(t.report.rows == 7);
  CHECK(t.report.jobs == 4);
  CHECK(t.report.skipped.at("run time 0") == 1);
  CHECK(t.report.skipped.at("run time unknown (-1)") == 1);
  CHECK(t.report.skipped.at("processor count unknown (fields 5 and 8 are -1)") == 1);
  CHECK(t.report.skipped_total() == 3);
  // Job 1: 4 allocated processors = 4 GPUs, 3600 s, requested time 7200 s = its estimate, user 3.
  CHECK(t.jobs[0].name == "swf-1");
  CHECK(t.jobs[0].submit_ns == 0);
  CHECK(t.jobs[0].gpus == 4);
  CHECK(t.jobs[0].duration_ns == 3600 * S);
  CHECK(t.jobs[0].estimate_ns == 7200 * S);
  CHECK(t.jobs[0].team == "user-3");
  CHECK(t.jobs[0].status == "completed");
  // Job 2: allocated -1, so the 2 requested; requested time -1: no estimate; status 0 failed.
  CHECK(t.jobs[1].gpus == 2);
  CHECK(t.jobs[1].estimate_ns == 0);
  CHECK(t.jobs[1].status == "failed");
  CHECK(t.report.notes.at("processors from requested (field 8): allocated is -1") == 1);
  CHECK(t.jobs[2].status == "cancelled");
  // Job 7 (submit 100) follows job 5 (submit 120): one unsorted submit, kept.
  CHECK(t.jobs[3].submit_ns == 100 * S);
  CHECK(t.report.notes.size() == 2);
  // GPU-hours: 4 x 1 h + 2 x 0.5 h + 1 x 0.25 h + 2 x 300 s = 4 + 1 + 0.25 + 1/6.
  CHECK(t.report.gpu_hours == Approx(4 + 1 + 0.25 + 1.0 / 6).epsilon(1e-12));
  CHECK(t.report.first_submit_ns == 0);
  CHECK(t.report.last_submit_ns == 120 * S);
  CHECK(t.report.last_end_ns == 3600 * S);  // job 1 ends last
  CHECK(t.report.statuses.at("completed") == 2);
  CHECK(t.report.statuses.at("failed") == 1);
  CHECK(t.report.statuses.at("cancelled") == 1);
  REQUIRE(t.report.header_notes.size() == 2);
  CHECK(t.report.header_notes[0] == "MaxProcs: 64");
  CHECK(t.report.header_notes[1] == "MaxNodes: 8");
}

TEST_CASE("resubmit transforms: time_window cuts and shifts, speedup compresses, scale_gpus scales", "[unit]") {
  // Window [60 s, 1 h): jobs 2 (60), 5 (120), 7 (100) are in, job 1 (0) is before it.
  // Submits shifted by -60 and halved: 0, 30, 20. GPUs doubled: 4, 2, 4.
  const Imported t = import_trace("{format: swf, file: sample.swf, time_window: [60s, 1h], speedup: 2, scale_gpus: 2}");
  REQUIRE(t.jobs.size() == 3);
  CHECK(t.report.skipped.at("submitted before time_window's start") == 1);
  CHECK(t.jobs[0].submit_ns == 0);
  CHECK(t.jobs[1].submit_ns == 30 * S);
  CHECK(t.jobs[2].submit_ns == 20 * S);
  CHECK(t.jobs[0].gpus == 4);
  CHECK(t.jobs[1].gpus == 2);
  CHECK(t.jobs[2].gpus == 4);
  CHECK(t.jobs[0].duration_ns == 1800 * S);  // durations are not compressed
  // GPU-hours of what is made: 4 x 0.5 h + 2 x 0.25 h + 4 x 300 s = 2 + 0.5 + 1/3.
  CHECK(t.report.gpu_hours == Approx(2 + 0.5 + 1.0 / 3).epsilon(1e-12));

  SECTION("the window's end is exclusive") {
    const Imported u = import_trace("{format: swf, file: sample.swf, time_window: [0s, 100s]}");
    CHECK(u.jobs.size() == 2);  // jobs 1 (0) and 2 (60); 5 (120) and 7 (100) are at or after the end
    CHECK(u.report.skipped.at("submitted at or after time_window's end") == 2);
  }
  SECTION("scale_gpus below 1 keeps at least one GPU") {
    const Imported u = import_trace("{format: swf, file: sample.swf, scale_gpus: 0.25}");
    CHECK(u.jobs[0].gpus == 1);  // 4 x 0.25
    CHECK(u.jobs[2].gpus == 1);  // 1 x 0.25 = 0.25, at least 1
  }
}

TEST_CASE("helios: datetimes from the first day's midnight, vc as team, failed and cancelled kept", "[unit]") {
  const Imported t = import_trace("{format: helios, jobs: helios_cluster_log.csv}");
  REQUIRE(t.jobs.size() == 3);
  CHECK(t.report.rows == 5);
  CHECK(t.report.skipped.at("CPU-only (gpu_num 0)") == 1);
  CHECK(t.report.skipped.at("run time 0 (start_time = end_time)") == 1);
  // 1001: submitted 18:41:01 = 67261 s after midnight; 18:41:01 to 04:55:09 next day = 36848 s.
  CHECK(t.jobs[0].name == "1001");
  CHECK(t.jobs[0].submit_ns == 67261 * S);
  CHECK(t.jobs[0].duration_ns == 36848 * S);
  CHECK(t.jobs[0].team == "vcX");
  CHECK(t.jobs[0].status == "COMPLETED");
  // 1002: start 18:41:30, end 18:45:36: 246 s (its queue of 3 s is the old scheduler's).
  CHECK(t.jobs[1].submit_ns == 67287 * S);
  CHECK(t.jobs[1].duration_ns == 246 * S);
  CHECK(t.jobs[1].gpus == 4);
  CHECK(t.jobs[1].status == "FAILED");
  // 1004: 16 GPUs, 20:00 to 22:30 = 9000 s, cancelled.
  CHECK(t.jobs[2].gpus == 16);
  CHECK(t.jobs[2].duration_ns == 9000 * S);
  CHECK(t.jobs[2].status == "CANCELLED");
  // (36848 x 1 + 246 x 4 + 9000 x 16) / 3600 = 181832 / 3600 GPU-hours.
  CHECK(t.report.gpu_hours == Approx(181832.0 / 3600).epsilon(1e-12));
  CHECK(t.report.last_end_ns == (67261 + 36848) * S);
  CHECK(t.report.notes.empty());
}

TEST_CASE("alibaba-pai-2023: pods to jobs, shares, GPU lists, running and pending pods", "[unit]") {
  const Imported t = import_trace("{format: alibaba-pai-2023, pods: pai2023_pods.csv}");
  REQUIRE(t.jobs.size() == 4);
  CHECK(t.report.rows == 6);
  CHECK(t.report.skipped.at("CPU-only (num_gpu 0)") == 1);
  CHECK(t.report.skipped.at("never scheduled (no scheduled_time; pod_phase Pending): no recorded run") == 1);
  // pod-a: created 0, scheduled 0, deleted 3600: one whole GPU for 1 h.
  CHECK(t.jobs[0].name == "pod-a");
  CHECK(t.jobs[0].duration_ns == 3600 * S);
  CHECK(t.jobs[0].gpu_milli == 1000);
  // pod-b: half a GPU, scheduled 120 to deleted 1860 = 1740 s; submitted at its creation (60).
  CHECK(t.jobs[1].submit_ns == 60 * S);
  CHECK(t.jobs[1].gpu_milli == 500);
  CHECK(t.jobs[1].duration_ns == 1740 * S);
  CHECK(t.jobs[1].status == "Failed");
  // pod-c: 8 GPUs of V100M16 or V100M32 (listed twice: once), 300 to 7300 = 7000 s, Running.
  CHECK(t.jobs[2].gpus == 8);
  CHECK(t.jobs[2].gpu_types == std::vector<std::string>{"V100M16", "V100M32"});
  CHECK(t.jobs[2].duration_ns == 7000 * S);
  CHECK(t.report.notes.at("still running at the trace's end (pod_phase Running): run cut at deletion_time") == 1);
  // pod-f (created 50) after pod-c (created 100): unsorted.
  CHECK(t.report.notes.count("submitted before the row above (unsorted submit times; kept, the simulator orders arrivals)") == 1);
  // (3600 x 1 + 1740 x 0.5 + 7000 x 8 + 600 x 2) / 3600 = 61670 / 3600 GPU-hours.
  CHECK(t.report.gpu_hours == Approx(61670.0 / 3600).epsilon(1e-12));
  CHECK(t.report.first_submit_ns == 0);
  CHECK(t.report.last_submit_ns == 100 * S);
  CHECK(t.report.last_end_ns == 7100 * S);
  CHECK(t.machines.empty());
}

TEST_CASE("alibaba-pai-2023: the node list grouped into node types, anonymized GPUs mapped", "[unit]") {
  const Imported t = import_trace(
      "{format: alibaba-pai-2023, pods: pai2023_pods.csv, nodes: pai2023_nodes.csv, gpu_map: {G2: A100-40GB-SXM},"
      " gpu_prices: {V100M32: $2/h, T4: 0.5, A100-40GB-SXM: $3/h}}");
  // node-1 and node-2 alike; node-0 has no GPU.
  REQUIRE(t.machines.size() == 4);
  CHECK(t.machines[0].trace_gpu == "V100M32");
  CHECK(t.machines[0].count == 2);
  CHECK(t.machines[0].gpus == 8);
  CHECK(t.machines[0].cpu_cores == 96);
  CHECK(t.machines[0].memory_bytes == 786432.0 * 1024 * 1024);
  CHECK(t.machines[0].usd_per_gpu_hour == 2);
  CHECK(t.machines[1].usd_per_gpu_hour == 0.5);
  CHECK_FALSE(t.machines[2].priced);  // V100M16: no price
  CHECK(t.machines[3].gpu == "A100-40GB-SXM");
  CHECK(t.machines[3].usd_per_gpu_hour == 3);  // priced by the name it maps to
  CHECK(t.report.machines == 5);
  CHECK(t.report.machine_gpus == 34);  // 8 + 8 + 2 + 8 + 8

  SECTION("an anonymized GPU without gpu_map is refused at its line, saying how to map it") {
    const ConfigError e = config_error([] { import_trace("{format: alibaba-pai-2023, pods: pai2023_pods.csv, nodes: pai2023_nodes.csv}"); });
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(e.mark().line == 7);
    CHECK(e.key_path() == "model");
    CHECK(has(e.detail(), "gpu_map: {G2:"));
  }
  SECTION("a price for a GPU no machine has is refused") {
    const ConfigError e = config_error([] {
      import_trace("{format: alibaba-pai-2023, pods: pai2023_pods.csv, nodes: pai2023_nodes.csv, gpu_map: {G2: L40},"
                   " gpu_prices: {V100M33: 1}}");
    });
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(has(e.detail(), "did you mean 'V100M32'"));
  }
}

TEST_CASE("a malformed row is an error at file:line naming the column, and skip_bad_rows counts it", "[unit]") {
  TempDir dir;
  write_file(dir.file("pods.csv"),
             "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
             "p1,1,1,1,1000,,LS,Succeeded,0,60,0\n"
             "p2,1,1,two,1000,,LS,Succeeded,0,60,0\n"
             "p3,1,1,1,1000,,LS,Succeeded,10,70,10\n");
  write_file(dir.file("bad.swf"), "1 0 0 60 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n2 5 0 6x 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n"
                                               "3 9 0 60 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1\n");
  write_file(dir.file("log.csv"),
             "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time\n"
             "1,u,v,1,1,1,COMPLETED,2020-13-01 00:00:00,2020-06-01 00:00:00,2020-06-01 01:00:00\n");
  const std::string at = dir.file("t.yaml");
  auto import_at = [&](const std::string& yaml) {
    const config::ConfigDocument doc = config::load_yaml_string("trace: " + yaml + "\n", at);
    config::SourceResolver sources;
    TraceImport trace(*doc.root.find("trace"), sources);
    TraceJob j;
    std::size_t n = 0;
    while (trace.next(j)) ++n;
    return std::make_pair(n, trace.report());
  };
  SECTION("pai") {
    const ConfigError e = config_error([&] { import_at("{format: alibaba-pai-2023, pods: pods.csv}"); });
    CHECK(e.code() == ErrorCode::WrongType);
    CHECK(e.mark().file == dir.file("pods.csv"));
    CHECK(e.mark().line == 3);
    CHECK(e.mark().column == 8);  // "p2,1,1,two": the 't'
    CHECK(e.key_path() == "num_gpu");
    const auto [jobs, report] = import_at("{format: alibaba-pai-2023, pods: pods.csv, skip_bad_rows: true}");
    CHECK(jobs == 2);
    CHECK(report.skipped.at("malformed row (skip_bad_rows)") == 1);
  }
  SECTION("swf: a bad field, then a short line") {
    const ConfigError e = config_error([&] { import_at("{format: swf, file: bad.swf}"); });
    CHECK(e.code() == ErrorCode::WrongType);
    CHECK(e.mark().line == 2);
    CHECK(e.mark().column == 7);  // "2 5 0 6x": the '6'
    CHECK(e.key_path() == "run_time (field 4)");
    const auto [jobs, report] = import_at("{format: swf, file: bad.swf, skip_bad_rows: true}");
    CHECK(jobs == 1);
    CHECK(report.skipped.at("malformed row (skip_bad_rows)") == 2);
  }
  SECTION("helios") {
    const ConfigError e = config_error([&] { import_at("{format: helios, jobs: log.csv}"); });
    CHECK(e.code() == ErrorCode::WrongType);
    CHECK(e.mark().line == 2);
    CHECK(e.key_path() == "submit_time");
  }
}

TEST_CASE("workload.trace keys: each refusal", "[unit]") {
  auto code = [](const std::string& trace) {
    return config_error([&] { import_trace(trace); }).code();
  };
  CHECK(code("{format: swf, file: sample.swf, mode: as-recorded, speedup: 2}") == ErrorCode::Conflict);
  CHECK(code("{format: philly, jobs: x.json}") == ErrorCode::Infeasible);
  CHECK(code("{format: alibaba-pai-2020, jobs: x.csv}") == ErrorCode::Infeasible);
  CHECK(code("{format: sfw, file: sample.swf}") == ErrorCode::UnknownName);
  CHECK(code("{format: swf}") == ErrorCode::MissingKey);
  CHECK(code("{format: swf, file: sample.swf, pods: pai2023_pods.csv}") == ErrorCode::Conflict);
  CHECK(code("{format: swf, file: missing.swf}") == ErrorCode::FileNotFound);
  CHECK(code("{format: swf, file: sample.swf, speedup: 0}") == ErrorCode::OutOfRange);
  CHECK(code("{format: swf, file: sample.swf, scale_gpus: -1}") == ErrorCode::OutOfRange);
  CHECK(code("{format: swf, file: sample.swf, time_window: [1h, 1h]}") == ErrorCode::OutOfRange);
  CHECK(code("{format: swf, file: sample.swf, time_window: [1h]}") == ErrorCode::WrongType);
  CHECK(code("{format: swf, file: sample.swf, time_window: [0, 6]}") == ErrorCode::BadUnit);
  CHECK(code("{format: swf, file: sample.swf, skip_bad_rows: maybe}") == ErrorCode::WrongType);
  CHECK(code("{format: swf, file: sample.swf, gpu_map: G2}") == ErrorCode::WrongType);
  CHECK(code("{format: swf, file: sample.swf, gpu_prices: {T4: 5 parsecs}}") == ErrorCode::BadUnit);
  CHECK(code("{format: swf, file: sample.swf, fromat: swf}") == ErrorCode::UnknownKey);
  CHECK(code("{format: alibaba-pai-2023, pods: helios_cluster_log.csv}") == ErrorCode::MissingKey);  // no num_gpu column
}

TEST_CASE("a scenario replays a trace beside written jobs, with the report lines validate prints", "[scenario]") {
  const models::Scenario s = load("name: t\nhorizon: 2d\n" + SIXTEEN_GPUS + R"(
workload:
  jobs:
    - {name: mine, gpus: 1, duration: 1h}
  trace: {format: helios, jobs: helios_cluster_log.csv}
)");
  REQUIRE(s.workload.jobs.size() == 4);
  CHECK(s.workload.jobs[0].name == "mine");
  CHECK(s.workload.jobs[1].name == "1001");
  CHECK(s.workload.jobs[3].gpus == 16);
  CHECK(*s.workload.jobs[3].duration == sim::seconds(9000));
  CHECK(s.workload.teams == std::vector<std::string>{"vcX", "vcY"});
  CHECK(s.workload.team_name(s.workload.jobs[1].team) == "vcX");
  REQUIRE(s.import_report.size() >= 4);
  CHECK(has(s.import_report[0], "5 rows read, 3 jobs made, 2 skipped"));
  CHECK(has(s.import_report.back(), "50.51 GPU-hours"));  // 181832 / 3600 = 50.5089

  SECTION("all the jobs run to the end under fifo") {
    const std::vector<models::Job> jobs = run_jobs(s);
    CHECK(jobs.size() == 4);
    for (const models::Job& j : jobs) CHECK(j.status == models::JobStatus::Completed);
  }
  SECTION("a trace job no node type can hold is infeasible at its row") {
    const ConfigError e = config_error([] {
      load(R"(
name: t
horizon: 2d
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 8}}
workload:
  trace: {format: helios, jobs: helios_cluster_log.csv}
)");
    });
    CHECK(e.code() == ErrorCode::Infeasible);
    CHECK(e.mark().line == 5);  // job 1004's 16 GPUs
    CHECK(has(e.mark().file, "helios_cluster_log.csv"));
  }
  SECTION("a trace that gives no job is infeasible, saying what was skipped") {
    const ConfigError e = config_error([] {
      load("name: t\nhorizon: 2d\n" + SIXTEEN_GPUS +
           "workload:\n  trace: {format: swf, file: sample.swf, time_window: [10d, 11d]}\n");
    });
    CHECK(e.code() == ErrorCode::Infeasible);
    // 4 jobs before the window, and the 3 rows the importer skips itself.
    CHECK(has(e.detail(), "7 rows read; 1 skipped: processor count unknown"));
    CHECK(has(e.detail(), "4 skipped: submitted before time_window's start"));
  }
  SECTION("a trace job name a written job has is a duplicate") {
    const ConfigError e = config_error([] {
      load("name: t\nhorizon: 2d\n" + SIXTEEN_GPUS +
           "workload:\n  jobs: [{name: '1002', gpus: 1, duration: 1h}]\n  trace: {format: helios, jobs: helios_cluster_log.csv}\n");
    });
    CHECK(e.code() == ErrorCode::Duplicate);
    CHECK(e.mark().line == 3);
  }
}

TEST_CASE("no cluster: the pai node list is the cluster, priced from gpu_prices or at zero with a note", "[scenario]") {
  const models::Scenario s = load(R"(
name: t
horizon: 1d
workload:
  trace:
    format: alibaba-pai-2023
    pods: pai2023_pods.csv
    nodes: pai2023_nodes.csv
    gpu_map: {G2: A100-40GB-SXM}
    gpu_prices: {V100M32: $2/h, T4: $0.5/h}
)");
  REQUIRE(s.cluster.node_types.size() == 4);
  CHECK(s.cluster.total_gpus() == 34);
  const models::NodeTypeSpec& v32 = s.cluster.node_types[0];
  CHECK(v32.gpu.name == "V100-SXM2-32GB");
  CHECK(v32.count == 2);
  CHECK(v32.gpus == 8);
  CHECK(v32.price.on_demand_usd_per_hour == Approx(16));  // 8 GPUs x $2
  CHECK(s.cluster.node_types[1].price.on_demand_usd_per_hour == Approx(1));  // 2 T4 x $0.5
  CHECK(s.cluster.node_types[2].price.on_demand_usd_per_hour == 0);          // V100M16: no price
  CHECK(s.cluster.node_types[3].gpu.name == "A100-40GB-SXM");
  // pod-c's V100M16|V100M32 is the canonical names, on node types 0 and 2.
  CHECK(s.workload.jobs[2].gpu_types == std::vector<std::string>{"V100-SXM2-16GB", "V100-SXM2-32GB"});
  CHECK(s.workload.jobs[2].node_type_mask == 0b0101);
  bool noted = false;
  for (const std::string& line : s.import_report) noted |= has(line, "no price for V100M16, G2");
  CHECK(noted);

  SECTION("the jobs run on it") {
    const std::vector<models::Job> jobs = run_jobs(s);
    CHECK(jobs.size() == 4);
  }
  SECTION("without a machine list, a cluster is still needed") {
    const ConfigError e = config_error([] {
      load("name: t\nhorizon: 1d\nworkload:\n  trace: {format: swf, file: sample.swf}\n");
    });
    CHECK(e.code() == ErrorCode::MissingKey);
  }
  SECTION("without a trace, a missing cluster is missing") {
    const ConfigError e = config_error([] { load("name: t\nhorizon: 1d\nworkload:\n  jobs: [{gpus: 1, duration: 1h}]\n"); });
    CHECK(e.code() == ErrorCode::MissingKey);
    CHECK(has(e.detail(), "cluster"));
  }
}

TEST_CASE("the bundled Alibaba 2023 example: jobs and GPU-hours equal a direct computation from the CSV", "[scenario]") {
  const std::string dir = GCSIM_SOURCE_DIR "/scenarios/examples/traces/";
  // The pod list read here with a plain split (it has no quoted fields): a pod with GPUs and
  // a scheduled_time before its deletion_time makes a job of num_gpu GPUs (or gpu_milli/1000
  // of one) for deletion - scheduled seconds.
  std::ifstream in(dir + "openb_pod_list_gpuspec33.csv");
  std::string line;
  std::getline(in, line);
  std::size_t rows = 0, jobs = 0, cpu_only = 0;
  double gpu_seconds = 0;
  while (std::getline(in, line)) {
    ++rows;
    std::vector<std::string> f;
    std::size_t from = 0;
    for (std::size_t comma; (comma = line.find(',', from)) != std::string::npos; from = comma + 1) f.push_back(line.substr(from, comma - from));
    f.push_back(line.substr(from));
    REQUIRE(f.size() == 11);
    const long gpus = std::stol(f[3]);
    if (gpus == 0) {
      ++cpu_only;
      continue;
    }
    if (f[10].empty()) continue;
    const long run = std::stol(f[9]) - std::stol(f[10]);
    if (run <= 0) continue;
    ++jobs;
    gpu_seconds += (gpus == 1 ? std::stol(f[4]) / 1000.0 : static_cast<double>(gpus)) * static_cast<double>(run);
  }
  const models::Scenario s = scenario_from_yaml(read_bytes(dir + "alibaba-2023-resubmit.yaml"), dir + "alibaba-2023-resubmit.yaml");
  CHECK(rows == 8152);
  CHECK(s.workload.jobs.size() == jobs);
  double from_specs = 0;
  for (const models::JobSpec& j : s.workload.jobs) from_specs += j.gpus * j.gpu_milli / 1000.0 * j.duration->seconds();
  CHECK(from_specs == Approx(gpu_seconds).epsilon(1e-12));
  CHECK(has(s.import_report[0], "8152 rows read, " + std::to_string(jobs) + " jobs made"));
  CHECK(has(s.import_report[1], "skipped " + std::to_string(cpu_only) + ": CPU-only"));
  // The node list: 1,213 GPU nodes, 6,212 GPUs (the trace's README and catalog).
  CHECK(s.cluster.total_nodes() == 1213);
  CHECK(s.cluster.total_gpus() == 6212);
}

TEST_CASE("gcsim validate prints the import report of the SWF example", "[scenario][cli]") {
  const auto r = run_gcsim("validate " GCSIM_SOURCE_DIR "/scenarios/examples/traces/swf-resubmit.yaml");
  INFO(r.output);
  REQUIRE(r.code == 0);
  // 10 rows; job 4 (run time -1) and job 9 (0 s) skipped; job 6 takes its 24 requested processors.
  CHECK(has(r.output, "10 rows read, 8 jobs made, 2 skipped"));
  CHECK(has(r.output, "trace header: MaxProcs: 64"));
  CHECK(has(r.output, "trace skipped 1: run time 0"));
  CHECK(has(r.output, "trace skipped 1: run time unknown (-1)"));
  CHECK(has(r.output, "trace note 1: processors from requested (field 8): allocated is -1"));
  CHECK(has(r.output, "completed 7 failed 1"));
  // Submits from 0 to job 10's 3000 s (50 m); job 8 (2400 s + 4 h) ends last, at 4 h 40 m.
  // GPU-hours: (32 x 7200 + 16 x 3600 + 64 x 1800 + 8 x 600 + 24 x 5400 + 4 x 300 + 48 x 14400
  // + 2 x 900) / 3600 = 1,231,800 / 3600 = 342.1667.
  CHECK(has(r.output, "submits from 0s to 50m, last recorded end 4h 40m; 342.17 GPU-hours"));
}
