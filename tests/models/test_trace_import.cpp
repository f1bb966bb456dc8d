// The trace importers (models/importers/, docs/traces.md): each format on a fixture written
// in its published layout (tests/fixtures/traces/), every figure worked out by hand in the
// comments; the resubmit transforms; the import report; bad rows and skip_bad_rows; a
// cluster made from a trace's machine list; a trace beside written jobs, run end to end.
#include <catch2/catch.hpp>

#include <tuple>

#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "models/config/workload_reader.hpp"
#include "models/importers/trace_import.hpp"
#include "models/trace/schema.hpp"
#include "sim/trace/trace_reader.hpp"
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
Imported import_trace(const std::string& trace_yaml, const std::string& scenario_path = FIXTURES + "test.yaml") {
  const config::ConfigDocument doc = config::load_yaml_string("trace: " + trace_yaml + "\n", scenario_path);
  config::SourceResolver sources;
  TraceImport trace(*doc.root.find("trace"), sources);
  Imported out;
  TraceJob j;
  while (trace.next(j)) out.jobs.push_back(j);
  out.report = trace.report();
  out.machines = trace.machines();
  return out;
}

// How many jobs the trace gave, and its report, as written in the scenario at `at`.
std::pair<std::size_t, models::TraceImportReport> jobs_and_report(const std::string& trace_yaml, const std::string& at) {
  const Imported t = import_trace(trace_yaml, at);
  return {t.jobs.size(), t.report};
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
  auto import_at = [&](const std::string& yaml) { return jobs_and_report(yaml, at); };
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

TEST_CASE("a time past 292 years from the trace's start is refused at its column, not overflowed", "[unit]") {
  // 9,223,372,036 s is the most whose nanoseconds fit an int64; one more overflowed the
  // product into a wrong time (signed overflow: undefined behaviour).
  TempDir dir;
  const std::string at = dir.file("t.yaml");
  auto import_at = [&](const std::string& yaml) { return import_trace(yaml, at).jobs; };
  SECTION("swf: each time field, and the submit plus the wait") {
    const std::string rest = " 8 -1 -1 8 200 -1 1 1 1 -1 1 -1 -1 -1\n";
    write_file(dir.file("max.swf"), "1 0 0 9223372036" + rest);
    const std::vector<TraceJob> ok = import_at("{format: swf, file: max.swf}");
    REQUIRE(ok.size() == 1);
    CHECK(ok[0].duration_ns == 9223372036 * S);
    for (const auto& [line, column, key] : {std::tuple{"1 9223372037 0 100", 3, "submit_time (field 2)"},
                                            std::tuple{"1 0 0 99999999999", 7, "run_time (field 4)"},
                                            std::tuple{"1 9223372000 40 100", 14, "wait_time (field 3)"}}) {
      write_file(dir.file("big.swf"), std::string(line) + rest);
      const ConfigError e = config_error([&] { import_at("{format: swf, file: big.swf}"); });
      CHECK(e.key_path() == key);
      CHECK(e.mark().line == 1);
      CHECK(e.mark().column == column);
      CHECK_THAT(e.what(), Catch::Contains("past the largest gcsim takes"));
    }
    write_file(dir.file("req.swf"), "1 0 0 100 8 -1 -1 8 99999999999 -1 1 1 1 -1 1 -1 -1 -1\n");
    CHECK(config_error([&] { import_at("{format: swf, file: req.swf}"); }).key_path() == "requested_time (field 9)");
  }
  SECTION("alibaba-pai-2023: the deletion time; helios: an end in the year 9999") {
    const std::string pai_header =
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";
    const std::string helios_header = "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time\n";
    for (const auto& [file, rows, yaml, key] :
         {std::tuple{"pods.csv", pai_header + "p1,1,1,1,1000,,LS,Succeeded,0,99999999999,0\n",
                     "{format: alibaba-pai-2023, pods: pods.csv}", "deletion_time"},
          std::tuple{"log.csv", helios_header + "1,u,v,1,1,1,COMPLETED,2020-06-01 00:00:00,2020-06-01 00:00:00,9999-06-01 01:00:00\n",
                     "{format: helios, jobs: log.csv}", "end_time"}}) {
      write_file(dir.file(file), rows);
      const ConfigError e = config_error([&] { import_at(yaml); });
      CHECK(e.key_path() == key);
      CHECK(e.mark().line == 2);
    }
  }
  SECTION("philly: an attempt ending in the year 9999") {
    write_file(dir.file("log.json"),
               R"([{"status": "Pass", "vc": "v", "jobid": "a", "submitted_time": "2017-10-01 00:00:00", "user": "u",
  "attempts": [{"start_time": "2017-10-01 00:00:10", "end_time": "9999-10-01 00:00:00",
                "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}]}]
)");
    const ConfigError e = config_error([&] { import_at("{format: philly, jobs: log.json}"); });
    CHECK(e.code() == ErrorCode::OutOfRange);
    CHECK_THAT(e.what(), Catch::Contains("past the largest gcsim takes"));
  }
}

TEST_CASE("workload.trace keys: each refusal", "[unit]") {
  auto code = [](const std::string& trace) {
    return config_error([&] { import_trace(trace); }).code();
  };
  CHECK(code("{format: swf, file: sample.swf, mode: as-recorded, speedup: 2}") == ErrorCode::Conflict);
  CHECK(code("{format: philly, jobs: x.json}") == ErrorCode::FileNotFound);
  CHECK(code("{format: alibaba-pai-2020, jobs: pai2020_job_table.csv}") == ErrorCode::MissingKey);  // no tasks
  CHECK(code("{format: alibaba-pai-2020, tasks: pai2020_task_table.csv}") == ErrorCode::MissingKey);  // no jobs
  CHECK(code("{format: swf, file: sample.swf, tasks: pai2020_task_table.csv}") == ErrorCode::Conflict);
  CHECK(code("{format: helios, jobs: helios_cluster_log.csv, machines: philly_cluster_machine_list}") == ErrorCode::Conflict);
  CHECK(code("{format: philly, jobs: philly_cluster_job_log, instances: pai2020_instance_table.csv}") == ErrorCode::Conflict);
  CHECK(code("{format: philly, jobs: philly_cluster_job_log, pods: pai2023_pods.csv}") == ErrorCode::Conflict);
  CHECK(code("{format: philly, jobs: helios_cluster_log.csv}") == ErrorCode::WrongType);  // not a JSON list
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

// ---- Alibaba PAI 2020 (tests/fixtures/traces/pai2020_*.csv: headerless, as published).
// The fixture's times are O + t with O = 1,699,200 s (20 days less 8 h: a midnight in
// UTC+8); its earliest submission is j8's at O + 3000, so the trace's start is O.

namespace {
const std::string PAI2020 =
    "{format: alibaba-pai-2020, jobs: pai2020_job_table.csv, tasks: pai2020_task_table.csv, gpu_map: {MISC: K80}";
}  // namespace

TEST_CASE("alibaba-pai-2020: a job is its GPU tasks, with shares, cuts and skips by reason", "[unit]") {
  const Imported t = import_trace(PAI2020 + "}");
  // 10 job rows: j5 Waiting, j6 CPU-only (its one task has no plan_gpu), j7 without tasks and
  // j9 of run time 0 are skipped; j1, j2, j3, j4, j8, j10 are made.
  REQUIRE(t.jobs.size() == 6);
  CHECK(t.report.rows == 10);
  CHECK(t.report.skipped.at("never scheduled (status Waiting)") == 1);
  CHECK(t.report.skipped.at("CPU-only (no task with plan_gpu > 0)") == 1);
  CHECK(t.report.skipped.at("no task in the task table") == 1);
  CHECK(t.report.skipped.at("run time 0 (its GPU tasks end when they start)") == 1);
  CHECK(t.report.skipped_total() == 4);
  // j1: submitted at O + 3600; its task runs 3660 to 7260 (3600 s) on one V100 (the 16 GB
  // part: V100M16); user u1 is its team; the recorded start is the task's.
  const TraceJob& j1 = t.jobs[0];
  CHECK(j1.name == "j1");
  CHECK(j1.submit_ns == 3600 * S);
  CHECK(j1.duration_ns == 3600 * S);
  CHECK(j1.start_ns == 3660 * S);
  CHECK(j1.gpus == 1);
  CHECK(j1.gpu_milli == 1000);
  CHECK(j1.gpu_types == std::vector<std::string>{"V100M16"});
  CHECK(j1.team == "u1");
  CHECK(j1.status == "Terminated");
  CHECK(j1.machine.empty());  // no instance table given
  // j2: plan_gpu 50.0 is half a T4 for 1800 s.
  CHECK(t.jobs[1].gpus == 1);
  CHECK(t.jobs[1].gpu_milli == 500);
  CHECK(t.jobs[1].duration_ns == 1800 * S);
  // j3: a CPU ps, 2 workers of a whole GPU, an evaluator of half a GPU: 2 x 1 + 1 x 1 = 3
  // whole GPUs (a shared instance in a job of several takes a whole GPU, noted); from the
  // first GPU task's start (4010) to the last one's end (8020): 4010 s. Failed, replayed.
  CHECK(t.jobs[2].gpus == 3);
  CHECK(t.jobs[2].gpu_milli == 1000);
  CHECK(t.jobs[2].duration_ns == 4010 * S);
  CHECK(t.jobs[2].gpu_types == std::vector<std::string>{"V100M32"});
  CHECK(t.jobs[2].status == "Failed");
  CHECK(t.report.notes.at("instances of less than a GPU in a job of several GPU instances (whole GPUs taken)") == 1);
  // j4: Running, its task without an end: cut at the trace's last recorded time (j6's end,
  // O + 20000): 20000 - 5000 = 15000 s on 2 P100s (plan_gpu 200.0).
  CHECK(t.jobs[3].gpus == 2);
  CHECK(t.jobs[3].duration_ns == 15000 * S);
  CHECK(t.jobs[3].status == "Running");
  CHECK(t.report.notes.at("still running at the trace's end (status Running): run cut at the trace's last recorded time") == 1);
  // j8: a quarter of a MISC GPU (mapped to K80), submitted at O + 3000 (before the rows
  // above it: one unsorted submission noted), 3100 to 3400.
  CHECK(t.jobs[4].submit_ns == 3000 * S);
  CHECK(t.jobs[4].gpu_milli == 250);
  CHECK(t.jobs[4].gpu_types == std::vector<std::string>{"K80"});
  CHECK(t.jobs[4].duration_ns == 300 * S);
  CHECK(t.report.notes.at("submitted before the row above (unsorted submit times; kept, the simulator orders arrivals)") == 1);
  // j10: plan_gpu 150.0 rounds up to 2 whole GPUs (noted), 600 s.
  CHECK(t.jobs[5].gpus == 2);
  CHECK(t.jobs[5].duration_ns == 600 * S);
  CHECK(t.report.notes.at("plan_gpu above 100 and not whole (rounded up to whole GPUs)") == 1);
  // GPU-seconds: 3600 + 0.5 x 1800 + 3 x 4010 + 2 x 15000 + 0.25 x 300 + 2 x 600 = 47805.
  CHECK(t.report.gpu_hours == Approx(47805.0 / 3600).epsilon(1e-12));
  CHECK(t.report.first_submit_ns == 3000 * S);
  CHECK(t.report.last_submit_ns == 10000 * S);
  CHECK(t.report.last_end_ns == 20000 * S);  // j4: 5000 + 15000
  CHECK(t.report.statuses.at("Terminated") == 4);
  CHECK(t.report.statuses.at("Failed") == 1);
  CHECK(t.report.statuses.at("Running") == 1);
  CHECK(t.machines.empty());
}

TEST_CASE("alibaba-pai-2020: MISC is refused until mapped, and headers are optional", "[unit]") {
  SECTION("MISC without gpu_map: refused at the task's row and column, saying how to map it") {
    const ConfigError e = config_error([] {
      import_trace("{format: alibaba-pai-2020, jobs: pai2020_job_table.csv, tasks: pai2020_task_table.csv}");
    });
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(has(e.mark().file, "pai2020_task_table.csv"));
    CHECK(e.mark().line == 9);  // j8's task
    CHECK(e.mark().column == 61);  // "j8,worker,1.0,Terminated,1702300.0,1702600.0,200.0,8.0,25.0,MISC"
    CHECK(e.key_path() == "gpu_type");
    CHECK(has(e.detail(), "gpu_map: {MISC: K80}"));
  }
  SECTION("a file that starts with the published header is read by its column names") {
    TempDir dir;
    write_file(dir.file("jobs.csv"), "job_name,inst_id,user,status,start_time,end_time\n" +
                                         read_bytes(FIXTURES + "pai2020_job_table.csv"));
    // The task table's columns in another order, by name.
    write_file(dir.file("tasks.csv"),
               "plan_gpu,gpu_type,job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem\n"
               "50.0,T4,j1,worker,1.0,Terminated,1702860.0,1703460.0,600.0,20.0\n");
    write_file(dir.file("t.yaml"), "");
    const config::ConfigDocument doc = config::load_yaml_string(
        "trace: {format: alibaba-pai-2020, jobs: jobs.csv, tasks: tasks.csv}\n", dir.file("t.yaml"));
    config::SourceResolver sources;
    TraceImport trace(*doc.root.find("trace"), sources);
    TraceJob j;
    REQUIRE(trace.next(j));
    CHECK(j.name == "j1");
    CHECK(j.gpu_milli == 500);
    CHECK(j.duration_ns == 600 * S);
    CHECK(j.line == 2);
    CHECK_FALSE(trace.next(j));  // every other job has no task here
    CHECK(trace.report().rows == 10);
    CHECK(trace.report().skipped.at("no task in the task table") == 8);
    CHECK(trace.report().skipped.at("never scheduled (status Waiting)") == 1);  // j5: the status is read first
  }
}

TEST_CASE("alibaba-pai-2020: the instance table gives each job's machine, the machine spec the cluster", "[unit]") {
  const Imported t = import_trace(PAI2020 + ", instances: pai2020_instance_table.csv, machines: pai2020_machine_spec.csv}");
  REQUIRE(t.jobs.size() == 6);
  CHECK(t.jobs[0].machine == "m1");
  CHECK(t.jobs[2].machine == "m2");  // j3's first GPU instance (its ps ran on m9: not a GPU task)
  CHECK(t.jobs[3].machine == "m4");
  CHECK(t.jobs[1].machine.empty());  // j2: no instance row
  // Machines grouped by (gpu_type, cap_gpu, cap_cpu, cap_mem): V100 x1, V100M32 x2, P100 x1,
  // T4 x2, MISC x1; m7 (no GPU) left out.
  REQUIRE(t.machines.size() == 5);
  CHECK(t.machines[0].trace_gpu == "V100");
  CHECK(t.machines[0].gpu == "V100M16");
  CHECK(t.machines[0].gpus == 8);
  CHECK(t.machines[0].cpu_cores == 96);
  CHECK(t.machines[0].memory_bytes == 512.0 * 1024 * 1024 * 1024);
  CHECK(t.machines[1].count == 2);
  CHECK(t.machines[3].trace_gpu == "T4");
  CHECK(t.machines[3].count == 2);
  CHECK(t.machines[4].gpu == "K80");  // MISC, mapped
  CHECK(t.report.machines == 7);
  CHECK(t.report.machine_gpus == 34);  // 8 + 16 + 2 + 4 + 4
  REQUIRE(t.report.header_notes.size() == 2);
  CHECK(t.report.header_notes[0] == "instance table: 7 rows, a recorded machine for 3 jobs");
  CHECK(t.report.header_notes[1] == "1 CPU-only machines of the machine spec left out");
  // j3's GPU instances: a worker (1 GPU) on m2, one on m3, and its evaluator (half a GPU)
  // on m2: the instances differ, so m2 alone (the job goes by best-fit when replayed).
  CHECK(t.jobs[2].more_machines.empty());
}

TEST_CASE("alibaba-pai-2020: a job's GPU instances over several machines, as many on each, keep them all", "[unit]") {
  TempDir dir;
  // a: 2 workers of 4 GPUs on m1, 2 on m2 (kept: m1, m2); b: 3 workers of 2 GPUs, 2 on m1
  // and 1 on m3 (uneven: m1 alone); c: a worker of 2 GPUs and one of 1 GPU (the instances
  // differ: m1 alone); d: 2 workers of half a GPU (shares: m2 alone).
  write_file(dir.file("jobs.csv"),
             "a,i1,u,Terminated,1000.0,2000.0\nb,i2,u,Terminated,1000.0,2000.0\n"
             "c,i3,u,Terminated,1000.0,2000.0\nd,i4,u,Terminated,1000.0,2000.0\n");
  write_file(dir.file("tasks.csv"),
             "a,worker,4.0,Terminated,1000.0,1600.0,100.0,1.0,400.0,V100\n"
             "b,worker,3.0,Terminated,1000.0,1600.0,100.0,1.0,200.0,V100\n"
             "c,worker,1.0,Terminated,1000.0,1600.0,100.0,1.0,200.0,V100\n"
             "c,chief,1.0,Terminated,1000.0,1600.0,100.0,1.0,100.0,V100\n"
             "d,worker,2.0,Terminated,1000.0,1600.0,100.0,1.0,50.0,V100\n");
  write_file(dir.file("instances.csv"),
             "a,worker,n1,w1,i1,Terminated,1000.0,1600.0,m1\na,worker,n2,w2,i1,Terminated,1000.0,1600.0,m2\n"
             "a,worker,n3,w3,i1,Terminated,1000.0,1600.0,m1\na,worker,n4,w4,i1,Terminated,1000.0,1600.0,m2\n"
             "b,worker,n5,w5,i2,Terminated,1000.0,1600.0,m1\nb,worker,n6,w6,i2,Terminated,1000.0,1600.0,m1\n"
             "b,worker,n7,w7,i2,Terminated,1000.0,1600.0,m3\n"
             "c,worker,n8,w8,i3,Terminated,1000.0,1600.0,m1\nc,chief,n9,w9,i3,Terminated,1000.0,1600.0,m2\n"
             "d,worker,n10,w10,i4,Terminated,1000.0,1600.0,m2\nd,worker,n11,w11,i4,Terminated,1000.0,1600.0,m3\n");
  write_file(dir.file("t.yaml"), "");
  const config::ConfigDocument doc = config::load_yaml_string(
      "trace: {format: alibaba-pai-2020, jobs: jobs.csv, tasks: tasks.csv, instances: instances.csv, mode: as-recorded}\n",
      dir.file("t.yaml"));
  config::SourceResolver sources;
  TraceImport trace(*doc.root.find("trace"), sources);
  std::vector<TraceJob> jobs;
  TraceJob j;
  while (trace.next(j)) jobs.push_back(j);
  REQUIRE(jobs.size() == 4);
  CHECK(jobs[0].gpus == 16);
  CHECK(jobs[0].machine == "m1");
  CHECK(jobs[0].more_machines == std::vector<std::string>{"m2"});
  CHECK(jobs[1].gpus == 6);
  CHECK(jobs[1].machine == "m1");
  CHECK(jobs[1].more_machines.empty());
  CHECK(jobs[2].gpus == 3);
  CHECK(jobs[2].machine == "m1");
  CHECK(jobs[2].more_machines.empty());
  CHECK(jobs[3].machine == "m2");
  CHECK(jobs[3].more_machines.empty());
  CHECK(trace.report().header_notes[0] == "instance table: 11 rows, a recorded machine for 4 jobs");
}

TEST_CASE("alibaba-pai-2020: a bad row is an error at file:line naming the column, and skip_bad_rows counts it", "[unit]") {
  TempDir dir;
  write_file(dir.file("jobs.csv"),
             "a,i1,u,Terminated,1000.0,2000.0\nb,i2,u,Terminated,soon,2000.0\nc,i3,u,Terminated,1000.0,2000.0\n");
  write_file(dir.file("tasks.csv"),
             "a,w,1.0,Terminated,1000.0,1600.0,100.0,1.0,100.0,T4\n"
             "b,w,1.0,Terminated,1000.0,1600.0,100.0,1.0,100.0,T4\n"
             "c,w,1.0,Terminated,1000.0,1600.0,100.0,1.0,fifty,T4\n"
             "c,w2,1.5,Terminated,1000.0,1600.0,100.0,1.0,100.0,T4\n");
  const std::string at = dir.file("t.yaml");
  auto import_at = [&](const std::string& yaml) { return jobs_and_report(yaml, at); };
  SECTION("a task row: plan_gpu not a number") {
    const ConfigError e = config_error([&] { import_at("{format: alibaba-pai-2020, jobs: jobs.csv, tasks: tasks.csv}"); });
    CHECK(e.code() == ErrorCode::WrongType);
    CHECK(e.mark().file == dir.file("tasks.csv"));
    CHECK(e.mark().line == 3);
    CHECK(e.mark().column == 44);  // "c,w,1.0,Terminated,1000.0,1600.0,100.0,1.0,fifty": the 'f'
    CHECK(e.key_path() == "plan_gpu");
  }
  SECTION("skip_bad_rows: the task rows are skipped with their job, the job row too") {
    const auto [jobs, report] = import_at("{format: alibaba-pai-2020, jobs: jobs.csv, tasks: tasks.csv, skip_bad_rows: true}");
    CHECK(jobs == 1);  // a
    CHECK(report.rows == 3);
    CHECK(report.skipped.at("malformed row (skip_bad_rows)") == 1);  // b's start_time
    CHECK(report.skipped.at("a task row malformed (skip_bad_rows)") == 1);  // c
    CHECK(report.notes.at("malformed task row skipped (skip_bad_rows); its job is skipped") == 2);  // fifty, 1.5 instances
  }
  SECTION("a job row: start_time not a number") {
    write_file(dir.file("tasks2.csv"), "b,w,1.0,Terminated,1000.0,1600.0,100.0,1.0,100.0,T4\n");
    const ConfigError e = config_error([&] { import_at("{format: alibaba-pai-2020, jobs: jobs.csv, tasks: tasks2.csv}"); });
    CHECK(e.mark().file == dir.file("jobs.csv"));
    CHECK(e.mark().line == 2);
    CHECK(e.mark().column == 19);
    CHECK(e.key_path() == "start_time");
  }
  SECTION("a row of another width, saying how many columns the table has") {
    write_file(dir.file("short.csv"), "a,i1,u,Terminated,1000.0\n");
    write_file(dir.file("tasks3.csv"), "a,w,1.0,Terminated,1000.0,1600.0,100.0,1.0,100.0,T4\n");
    const ConfigError e = config_error([&] { import_at("{format: alibaba-pai-2020, jobs: short.csv, tasks: tasks3.csv}"); });
    CHECK(e.code() == ErrorCode::WrongType);
    CHECK(e.mark().line == 1);
    CHECK(e.key_path() == "job_name");
    CHECK(has(e.detail(), "the row has 5 columns; the PAI 2020 job table (pai_job_table) has 6"));
  }
}

TEST_CASE("no cluster: the pai 2020 machine spec is the cluster and the jobs run on it", "[scenario]") {
  const models::Scenario s = load(R"(
name: t
horizon: 2d
workload:
  trace:
    format: alibaba-pai-2020
    jobs: pai2020_job_table.csv
    tasks: pai2020_task_table.csv
    machines: pai2020_machine_spec.csv
    gpu_map: {MISC: K80}
    gpu_prices: {V100: $2/h}
)");
  REQUIRE(s.cluster.node_types.size() == 5);
  CHECK(s.cluster.total_gpus() == 34);
  CHECK(s.cluster.node_types[0].name == "V100-8gpu-96cpu-512GiB");
  CHECK(s.cluster.node_types[0].gpu.name == "V100-SXM2-16GB");
  CHECK(s.cluster.node_types[0].price.on_demand_usd_per_hour == Approx(16));  // 8 x $2
  CHECK(s.cluster.node_types[4].gpu.name == "K80");
  REQUIRE(s.workload.jobs.size() == 6);
  CHECK(s.workload.jobs[1].gpu_milli == 500);
  const std::vector<models::Job> jobs = run_jobs(s);
  CHECK(jobs.size() == 6);
  // Each runs its recorded run time once (the cluster holds every job at once), and the
  // GPU-seconds they hold are the import report's 47805 (13.28 GPU-hours).
  double gpu_s = 0;
  for (const models::Job& j : jobs) {
    CHECK(j.status == models::JobStatus::Completed);
    CHECK(j.end - j.start == j.duration);
    CHECK(j.start == j.submit);
    gpu_s += j.gpus * (j.gpu_milli / 1000.0) * (j.end - j.start).seconds();
  }
  CHECK(gpu_s == Approx(47805).epsilon(1e-12));
}

// ---- Microsoft Philly (tests/fixtures/traces/philly_cluster_job_log: JSON as published,
// philly_cluster_machine_list). The origin is the earliest submission, 2017-10-07 01:11:39.

TEST_CASE("philly: jobs from the JSON log, multi-attempt runs summed, None ends cut, gaps left out", "[unit]") {
  const Imported t = import_trace("{format: philly, jobs: philly_cluster_job_log}");
  // 7 jobs: _0003 (no attempts), _0006 (no GPUs in its attempt), _0007 (run time 0) skipped.
  REQUIRE(t.jobs.size() == 4);
  CHECK(t.report.rows == 7);
  CHECK(t.report.skipped.at("no attempts (never scheduled)") == 1);
  CHECK(t.report.skipped.at("no GPUs in its first attempt") == 1);
  CHECK(t.report.skipped.at("run time 0") == 1);
  // _0001: 8 GPUs (the first attempt's detail), two attempts: 01:12:09-01:13:23 (74 s) and
  // 01:13:30-03:13:30 (7200 s): one job of 7274 s submitted at 0; its recorded start is the
  // first attempt's (30 s), on m47.
  const TraceJob& a = t.jobs[0];
  CHECK(a.name == "application_1506638472019_0001");
  CHECK(a.submit_ns == 0);
  CHECK(a.gpus == 8);
  CHECK(a.duration_ns == 7274 * S);
  CHECK(a.start_ns == 30 * S);
  CHECK(a.machine == "m47");
  CHECK(a.team == "vc1");
  CHECK(a.status == "Pass");
  CHECK(a.line == 2);
  CHECK(t.report.notes.at("several attempts: their run times summed into one job") == 1);
  // _0002: 2 + 2 GPUs on two machines, 3600 s, submitted 01:20:00 = 501 s; Killed.
  CHECK(t.jobs[1].gpus == 4);
  CHECK(t.jobs[1].submit_ns == 501 * S);
  CHECK(t.jobs[1].duration_ns == 3600 * S);
  CHECK(t.jobs[1].machine == "m1");
  CHECK(t.jobs[1].status == "Killed");
  // _0004: end_time None: cut at the last time the log records (_0005's end, 05:00:00):
  // 01:41:00 to 05:00:00 = 11940 s.
  CHECK(t.jobs[2].duration_ns == 11940 * S);
  CHECK(t.report.notes.at("still running at the trace's end (end_time None): run cut at the trace's last recorded time") == 1);
  // _0005: its first attempt has no start (null): left out, noted; the second runs 3 h on
  // the first attempt's 2 GPUs. Submitted 01:15:00 = 201 s, after _0004's 1701 s: unsorted.
  CHECK(t.jobs[3].gpus == 2);
  CHECK(t.jobs[3].duration_ns == 10800 * S);
  CHECK(t.jobs[3].submit_ns == 201 * S);
  CHECK(t.jobs[3].start_ns == 2901 * S);
  CHECK(t.jobs[3].machine == "m3");
  CHECK(t.report.notes.at("an attempt without a start_time or end_time (a logging gap): its run left out") == 1);
  CHECK(t.report.notes.count("submitted before the row above (unsorted submit times; kept, the simulator orders arrivals)") == 1);
  // GPU-seconds: 8 x 7274 + 4 x 3600 + 1 x 11940 + 2 x 10800 = 106132.
  CHECK(t.report.gpu_hours == Approx(106132.0 / 3600).epsilon(1e-12));
  CHECK(t.report.statuses.at("Pass") == 3);
  CHECK(t.report.statuses.at("Killed") == 1);
  CHECK(t.report.last_end_ns == (1701 + 11940) * S);
}

namespace {
// Every job of a Philly log read as recorded (one per attempt).
std::vector<TraceJob> philly_as_recorded(const std::string& bytes) {
  models::TraceOptions options;
  options.format = "philly";
  options.mode = models::TraceMode::AsRecorded;
  auto source = models::open_philly(bytes, "log.json", nullptr, "", options);
  std::vector<TraceJob> jobs;
  TraceJob j;
  while (source->next(j)) jobs.push_back(j);
  return jobs;
}
}  // namespace

TEST_CASE("philly: as recorded, one job per attempt named <jobid>#<k>", "[unit]") {
  const std::string bytes = read_bytes(FIXTURES + "philly_cluster_job_log");
  const std::vector<TraceJob> jobs = philly_as_recorded(bytes);
  // _0001's two attempts, _0002, _0004, and _0005's second attempt.
  REQUIRE(jobs.size() == 5);
  CHECK(jobs[0].name == "application_1506638472019_0001#1");
  CHECK(jobs[0].submit_ns == 0);
  CHECK(jobs[0].start_ns == 30 * S);
  CHECK(jobs[0].duration_ns == 74 * S);
  CHECK(jobs[0].machine == "m47");
  // The second attempt waits from the first one's end (01:13:23 = 104 s) to 01:13:30 (111 s).
  CHECK(jobs[1].name == "application_1506638472019_0001#2");
  CHECK(jobs[1].submit_ns == 104 * S);
  CHECK(jobs[1].start_ns == 111 * S);
  CHECK(jobs[1].duration_ns == 7200 * S);
  CHECK(jobs[1].machine == "m412");
  CHECK(jobs[4].name == "application_1506638472019_0005#2");
  CHECK(jobs[4].submit_ns == 201 * S);
  CHECK(jobs[4].start_ns == 2901 * S);
  // _0002's attempt: 2 GPUs on m1 and 2 on m2, recorded over both.
  CHECK(jobs[2].name == "application_1506638472019_0002#1");
  CHECK(jobs[2].machine == "m1");
  CHECK(jobs[2].more_machines == std::vector<std::string>{"m2"});
  CHECK(jobs[0].more_machines.empty());
}

TEST_CASE("philly: an attempt over several machines keeps them all only with the same GPUs on each", "[unit]") {
  // One job per attempt: m1 2 + m2 2 + m3 2 (kept), m1 2 + m2 1 (uneven: m1 alone), m1 2 +
  // m1 2 (a machine named twice: m1 alone), m1 2 + an entry without its ip (m1 alone).
  const auto attempt = [](const std::string& detail, int hour) {
    return "{\"start_time\": \"2017-10-07 0" + std::to_string(hour) + ":00:00\", \"end_time\": \"2017-10-07 0" +
           std::to_string(hour) + ":30:00\", \"detail\": [" + detail + "]}";
  };
  const std::string two = "[\"gpu0\", \"gpu1\"]";
  const std::string bytes = "[{\"status\": \"Pass\", \"vc\": \"v\", \"jobid\": \"j\", \"submitted_time\": "
                            "\"2017-10-07 00:00:00\", \"user\": \"u\", \"attempts\": [" +
                            attempt("{\"ip\": \"m1\", \"gpus\": " + two + "}, {\"ip\": \"m2\", \"gpus\": " + two +
                                        "}, {\"ip\": \"m3\", \"gpus\": " + two + "}", 1) + ", " +
                            attempt("{\"ip\": \"m1\", \"gpus\": " + two + "}, {\"ip\": \"m2\", \"gpus\": [\"gpu0\"]}", 2) +
                            ", " + attempt("{\"ip\": \"m1\", \"gpus\": " + two + "}, {\"ip\": \"m1\", \"gpus\": " + two + "}", 3) +
                            ", " + attempt("{\"ip\": \"m1\", \"gpus\": " + two + "}, {\"gpus\": " + two + "}", 4) + "]}]";
  const std::vector<TraceJob> jobs = philly_as_recorded(bytes);
  REQUIRE(jobs.size() == 4);
  CHECK(jobs[0].gpus == 6);
  CHECK(jobs[0].machine == "m1");
  CHECK(jobs[0].more_machines == std::vector<std::string>{"m2", "m3"});
  CHECK(jobs[1].gpus == 3);
  CHECK(jobs[1].machine == "m1");
  CHECK(jobs[1].more_machines.empty());
  CHECK(jobs[2].machine == "m1");
  CHECK(jobs[2].more_machines.empty());
  CHECK(jobs[3].machine == "m1");
  CHECK(jobs[3].more_machines.empty());
}

TEST_CASE("philly: the machine list's GPU memory names the GPU, and a bad value is an error at its line", "[unit]") {
  const Imported t = import_trace("{format: philly, jobs: philly_cluster_job_log, machines: philly_cluster_machine_list}");
  REQUIRE(t.machines.size() == 2);
  CHECK(t.machines[0].trace_gpu == "12GB");
  CHECK(t.machines[0].gpu == "P100-PCIe-12GB");
  CHECK(t.machines[0].gpus == 2);
  CHECK(t.machines[0].count == 3);
  CHECK(t.machines[0].line == 2);
  CHECK(t.machines[1].gpu == "P40");
  CHECK(t.machines[1].count == 2);
  CHECK(t.machines[0].cpu_cores == 0);  // the list gives no CPUs or host memory
  CHECK(t.report.machines == 5);
  CHECK(t.report.machine_gpus == 22);

  TempDir dir;
  const std::string at = dir.file("t.yaml");
  auto import_at = [&](const std::string& yaml) { return jobs_and_report(yaml, at); };
  SECTION("gpu_map renames a memory size; an unknown one is refused saying how to map it") {
    write_file(dir.file("log"), read_bytes(FIXTURES + "philly_cluster_job_log"));
    write_file(dir.file("machines"), "m1,4, 16GB\n");
    const ConfigError e = config_error([&] { import_at("{format: philly, jobs: log, machines: machines}"); });
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(e.mark().line == 1);
    CHECK(e.key_path() == "single GPU mem");
    CHECK(has(e.detail(), "gpu_map: {16GB:"));
    const auto [jobs, report] = import_at("{format: philly, jobs: log, machines: machines, gpu_map: {16GB: P100-PCIe-16GB}}");
    CHECK(jobs == 4);
    CHECK(report.machine_gpus == 4);
  }
  SECTION("compact JSON (no blanks, a tab between members) reads the same") {
    write_file(dir.file("log"),
               "[{\"status\":\"Pass\",\t\"vc\":\"v\",\"jobid\":\"a\",\"attempts\":[{\"start_time\":\"2017-10-07 01:00:00\","
               "\"end_time\":\"2017-10-07 01:30:00\",\"detail\":[{\"ip\":\"m1\",\"gpus\":[\"gpu0\",\"gpu1\"]}]}],"
               "\"submitted_time\":\"2017-10-07 00:59:00\",\"user\":\"u\"}]");
    const config::ConfigDocument doc = config::load_yaml_string("trace: {format: philly, jobs: log}\n", at);
    config::SourceResolver sources;
    TraceImport trace(*doc.root.find("trace"), sources);
    TraceJob j;
    REQUIRE(trace.next(j));
    CHECK(j.gpus == 2);
    CHECK(j.duration_ns == 1800 * S);
    CHECK(j.start_ns == 60 * S);
    CHECK(j.line == 1);
  }
  SECTION("a malformed end_time: file:line:column and its path; skip_bad_rows counts the job") {
    write_file(dir.file("log"), R"([
  {"status": "Pass", "vc": "v", "jobid": "a", "submitted_time": "2017-10-07 01:00:00", "user": "u",
   "attempts": [{"start_time": "2017-10-07 01:00:00", "end_time": "2017-10-07 02:00:00",
                 "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}]},
  {"status": "Pass", "vc": "v", "jobid": "b", "submitted_time": "2017-10-07 01:00:00", "user": "u",
   "attempts": [{"start_time": "2017-10-07 01:00:00", "end_time": "yesterday",
                 "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}]}
]
)");
    const ConfigError e = config_error([&] { import_at("{format: philly, jobs: log}"); });
    CHECK(e.code() == ErrorCode::WrongType);
    CHECK(e.mark().file == dir.file("log"));
    CHECK(e.mark().line == 6);
    CHECK(e.mark().column == 67);  // the value's opening quote
    CHECK(e.key_path() == "[1].attempts[0].end_time");
    const auto [jobs, report] = import_at("{format: philly, jobs: log, skip_bad_rows: true}");
    CHECK(jobs == 1);
    CHECK(report.skipped.at("malformed row (skip_bad_rows)") == 1);
  }
}

// Philly's fixture log on its machine list, which is the cluster (24 GB machines priced).
const std::string PHILLY_ON_ITS_MACHINES = R"(
name: t
horizon: 2d
workload:
  trace: {format: philly, jobs: philly_cluster_job_log, machines: philly_cluster_machine_list, gpu_prices: {24GB: $1/h}}
)";

TEST_CASE("no cluster: the philly machine list is the cluster and the jobs run on it", "[scenario]") {
  const models::Scenario s = load(PHILLY_ON_ITS_MACHINES);
  REQUIRE(s.cluster.node_types.size() == 2);
  CHECK(s.cluster.node_types[0].name == "12GB-2gpu");
  CHECK(s.cluster.node_types[0].gpu.name == "P100-PCIe-12GB");
  CHECK(s.cluster.node_types[0].cpu_cores == 0);
  CHECK(s.cluster.node_types[1].gpu.name == "P40");
  CHECK(s.cluster.node_types[1].price.on_demand_usd_per_hour == Approx(8));
  CHECK(s.cluster.total_gpus() == 22);
  CHECK(s.workload.teams == std::vector<std::string>{"vc1", "vc2", "vc3"});
  const std::vector<models::Job> jobs = run_jobs(s);
  CHECK(jobs.size() == 4);
  // 8 + 4 + 1 + 2 GPUs at most 15 at once of 22: no job waits; 106132 GPU-seconds.
  double gpu_s = 0;
  for (const models::Job& j : jobs) {
    CHECK(j.status == models::JobStatus::Completed);
    CHECK(j.end - j.start == j.duration);
    CHECK(j.start == j.submit);
    gpu_s += j.gpus * (j.end - j.start).seconds();
  }
  CHECK(gpu_s == Approx(106132).epsilon(1e-12));
}

TEST_CASE("the trace keeps each job's recorded status in /jobs and the import report at its root", "[scenario]") {
  // Philly's fixture: _0001 Pass, _0002 Killed, _0004 Pass, _0005 Pass, _0005 submitted
  // before _0004 (unsorted): the run's job ids follow submit order, so the statuses must
  // follow their jobs through that reordering. A job written beside the trace has none.
  const models::Scenario s = load(PHILLY_ON_ITS_MACHINES + "  jobs:\n    - {name: mine, submit: 0s, gpus: 1, duration: 1h}\n");
  CHECK(s.workload.recorded_statuses == std::vector<std::string>{"Pass", "Killed"});
  TempDir dir("trace-status");
  const std::string path = dir.file("p.h5");
  run_to_trace(s, path);
  const auto reader = trace::TraceReader::open(path);
  const std::vector<std::string> labels = reader->enum_labels("jobs", "recorded_status");
  CHECK(labels == std::vector<std::string>{std::string(trace::schema::NONE_LABEL), "Pass", "Killed"});
  const std::vector<std::string> names = reader->column_str("jobs", "name");
  const std::vector<std::int64_t> codes = reader->column_int("jobs", "recorded_status");
  REQUIRE(names.size() == 5);
  REQUIRE(codes.size() == 5);
  std::map<std::string, std::string> status;
  for (std::size_t i = 0; i < names.size(); ++i) status[names[i]] = labels.at(static_cast<std::size_t>(codes[i]));
  CHECK(status == std::map<std::string, std::string>{{"mine", std::string(trace::schema::NONE_LABEL)},
                                                     {"application_1506638472019_0001", "Pass"},
                                                     {"application_1506638472019_0002", "Killed"},
                                                     {"application_1506638472019_0004", "Pass"},
                                                     {"application_1506638472019_0005", "Pass"}});
  // The report, as validate prints it: one line each, in order.
  REQUIRE(reader->has_attribute(trace::schema::attribute::IMPORT_REPORT));
  std::string expected;
  for (const std::string& line : s.import_report) expected += line + "\n";
  CHECK(reader->attribute_string(trace::schema::attribute::IMPORT_REPORT) == expected);
  CHECK(expected.find("skipped") != std::string::npos);

  // A run without a trace: the column is all "n/a" and there is no report.
  const models::Scenario plain = load(R"(
name: t
horizon: 1d
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 8}}
workload: {jobs: [{name: a, submit: 0s, gpus: 1, duration: 1h}]}
)");
  run_to_trace(plain, dir.file("q.h5"));
  const auto q = trace::TraceReader::open(dir.file("q.h5"));
  CHECK(q->enum_labels("jobs", "recorded_status") == std::vector<std::string>{std::string(trace::schema::NONE_LABEL)});
  CHECK(q->column_int("jobs", "recorded_status") == std::vector<std::int64_t>{0});
  CHECK_FALSE(q->has_attribute(trace::schema::attribute::IMPORT_REPORT));
}

TEST_CASE("past 254 distinct recorded statuses, the rest are one code, (other), and the report says so", "[unit]") {
  // An SWF log of 300 jobs, each with its own status number (field 11): the importer names
  // an unknown one "status N", so 300 distinct statuses.
  TempDir dir("many-statuses");
  std::string swf;
  for (int i = 1; i <= 300; ++i)
    swf += std::to_string(i) + " " + std::to_string(i) + " 0 60 1 -1 -1 1 -1 -1 " + std::to_string(99 + i) +
           " 1 -1 -1 -1 -1 -1 -1\n";
  write_file(dir.file("s.swf"), swf);
  const models::Scenario s = scenario_from_yaml(R"(
name: t
horizon: 1d
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 8}}
workload:
  trace: {format: swf, file: s.swf}
)", dir.file("s.yaml"));
  const auto& names = s.workload.recorded_statuses;
  REQUIRE(names.size() == 255);
  CHECK(names.front() == "status 100");
  CHECK(names[253] == "status 353");
  CHECK(names.back() == "(other)");
  REQUIRE(s.workload.jobs.size() == 300);
  CHECK(s.workload.jobs[0].recorded_status == 1);
  CHECK(s.workload.jobs[253].recorded_status == 254);
  for (std::size_t i = 254; i < 300; ++i) CHECK(s.workload.jobs[i].recorded_status == 255);
  bool noted = false;
  for (const std::string& line : s.import_report) noted = noted || line.find("more than 254 distinct statuses") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("gcsim validate prints the import reports of the PAI 2020 and Philly examples", "[scenario][cli]") {
  SECTION("pai 2020") {
    const auto r = run_gcsim("validate " GCSIM_SOURCE_DIR "/scenarios/examples/traces/alibaba-2020-resubmit.yaml");
    INFO(r.output);
    REQUIRE(r.code == 0);
    CHECK(has(r.output, "10 rows read, 6 jobs made, 4 skipped"));
    CHECK(has(r.output, "trace header: instance table: 7 rows, a recorded machine for 3 jobs"));
    CHECK(has(r.output, "trace statuses (replayed with their recorded run times): Failed 1 Running 1 Terminated 4"));
    // 47805 GPU-seconds (the fixture's test) = 13.28 GPU-hours; submits from j8's 3000 s (50 m)
    // to j10's 10000 s; j4 ends last, at 20000 s.
    CHECK(has(r.output, "submits from 50m to 2h 46m 40s, last recorded end 5h 33m 20s; 13.28 GPU-hours"));
    CHECK(has(r.output, "trace machines: 7 GPU machines, 34 GPUs"));
  }
  SECTION("philly") {
    const auto r = run_gcsim("validate " GCSIM_SOURCE_DIR "/scenarios/examples/traces/philly-resubmit.yaml");
    INFO(r.output);
    REQUIRE(r.code == 0);
    CHECK(has(r.output, "7 rows read, 4 jobs made, 3 skipped"));
    CHECK(has(r.output, "trace statuses (replayed with their recorded run times): Killed 1 Pass 3"));
    // 106132 GPU-seconds = 29.48 GPU-hours; _0004 (1701 s + 11940 s) ends last.
    CHECK(has(r.output, "submits from 0s to 28m 21s, last recorded end 3h 47m 21s; 29.48 GPU-hours"));
    CHECK(has(r.output, "no price for 12GB, 24GB in gpu_prices"));
  }
}
