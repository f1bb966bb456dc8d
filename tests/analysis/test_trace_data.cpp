// read_trace() on a schema-1 trace written through TraceFile exactly as
// docs/trace-format.md describes it, plus the same file read by h5py (when available).

#include <catch2/catch.hpp>

#include "support/python.hpp"
#include "support/scenario_support.hpp"
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "analysis/trace_data.hpp"
#include "models/trace/schema_tables.hpp"
#include "sim/errors.hpp"
#include "sim/trace/table_writer.hpp"

namespace fs = std::filesystem;
using namespace gcsim::analysis;
namespace schema = gcsim::trace::schema;
using gcsim::trace::Column;
using gcsim::trace::TraceFile;

namespace {

constexpr double NAN_S = std::numeric_limits<double>::quiet_NaN();


struct WriteOptions {
  std::int64_t schema = 1;
  std::vector<std::string> status_labels = {"completed", "running", "never_started"};
  bool with_events = true;
};

// A schema-1 table: the first `n` columns of today's (schema 1 had no more), with its
// enum labels as they were then, so a stand-in trace shares the writer's schema.
std::vector<Column> schema1_columns(const schema::Table& table, std::size_t n) {
  std::vector<Column> columns = gcsim::models::trace_columns(table);
  REQUIRE(columns.size() >= n);
  columns.resize(n);
  return columns;
}

// A stand-in for an old models/trace/trace_recorder: a schema-1 trace, column for column.
void write_schema1(const std::string& path, const TraceData& d, const WriteOptions& o = {}) {
  namespace at = schema::attribute;
  auto f = TraceFile::create(path);
  const TraceAttributes& a = d.attrs;
  f->set_attribute(at::GCSIM_VERSION, std::string_view(a.gcsim_version));
  f->set_attribute(at::SCENARIO_NAME, std::string_view(a.scenario_name));
  f->set_attribute(at::SCENARIO_FILE, std::string_view(a.scenario_file));
  f->set_attribute(at::SCENARIO_YAML, std::string_view(a.scenario_yaml));
  f->set_attribute(at::GPU_CATALOG_YAML, std::string_view(a.gpu_catalog_yaml));
  f->set_attribute(at::SEED, a.seed);
  f->set_attribute(at::REPLICATION, a.replication);
  f->set_attribute(at::HORIZON_S, a.horizon_s);
  f->set_attribute(at::END_S, a.end_s);
  f->set_attribute(at::WALL_CLOCK_S, a.wall_clock_s);
  f->set_attribute(at::TRACE_SCHEMA, o.schema);

  auto& nodes = f->add_table("nodes", schema1_columns(schema::NODES, 8));
  for (const NodeRecord& n : d.nodes) {
    nodes.begin_row().i32(0, n.node_id).str(1, n.node_type).str(2, n.gpu).i32(3, n.gpus);
    nodes.f64(4, n.price_usd_per_hour).f64(5, n.up_s).f64(6, n.down_s).f64(7, n.cost_usd);
  }
  std::vector<Column> job_columns = schema1_columns(schema::JOBS, 12);
  REQUIRE(job_columns[11].name == "status");
  // Before schema 5 the node type was a string cell, as old traces hold it.
  REQUIRE(job_columns[7].name == "node_type");
  job_columns[7] = Column{"node_type", gcsim::trace::ColumnType::Str, {}, schema::NAME_BYTES};
  job_columns[11].enum_labels = o.status_labels;
  auto& jobs = f->add_table("jobs", job_columns);
  for (const JobRecord& j : d.jobs) {
    jobs.begin_row().i64(0, j.job_id).str(1, j.name).f64(2, j.submit_s).f64(3, j.start_s).f64(4, j.end_s);
    jobs.i32(5, j.gpus).i32(6, j.gpus_held).str(7, j.node_type).i32(8, j.first_node).i32(9, j.nodes);
    jobs.f64(10, j.cost_usd).enum8(11, static_cast<std::uint8_t>(j.status));
  }
  if (o.with_events) {
    std::vector<Column> event_columns = schema1_columns(schema::EVENTS, 4);
    event_columns[1].enum_labels.resize(4);  // submit, start, finish, end_of_run
    auto& events = f->add_table("events", event_columns);
    for (const EventRecord& e : d.events) events.begin_row().f64(0, e.time_s).enum8(1, e.kind).i64(2, e.job).i32(3, e.node);
  }
  std::vector<Column> util_columns = schema1_columns(schema::UTILIZATION, 3);
  util_columns[1].type = gcsim::trace::ColumnType::I32;  // allocated_gpus: an integer before schema 4
  auto& util = f->add_table("utilization", util_columns);
  for (const UtilizationSample& u : d.utilization)
    util.begin_row().f64(0, u.time_s).i32(1, static_cast<std::int32_t>(u.allocated_gpus)).i32(2, u.total_gpus);
  f->commit();
}

TraceData sample() {
  TraceData d;
  d.attrs.gcsim_version = "0.1.0";
  d.attrs.scenario_name = "tiny";
  d.attrs.scenario_file = "scenarios/examples/tiny.yaml";
  d.attrs.scenario_yaml = "name: tiny\nseed: 3\n";
  d.attrs.gpu_catalog_yaml = "H100: {memory: 80GiB}\n";
  d.attrs.seed = 3;
  d.attrs.replication = 2;
  d.attrs.horizon_s = 7200;
  d.attrs.end_s = 5400;
  d.attrs.wall_clock_s = 0.25;
  d.nodes = {{0, "p5", "H100", 8, 98.32, 0, 5400, 147.48}, {1, "p5", "H100", 8, 98.32, 0, 5400, 147.48}};
  d.jobs = {
      {10, "train-a", 0, 0, 3600, 16, 16, "p5", 0, 2, 196.64, JobStatus::Completed, {}, {}},
      {11, "eval", 60, 3600, 5400, 4, 4, "p5", 1, 1, 24.58, JobStatus::Completed, {}, {}},
      {12, "", 100, NAN_S, NAN_S, 64, 0, "", -1, 0, 0, JobStatus::NeverStarted, {}, {}},
  };
  d.events = {{0, 10, -1, 0}, {0, 10, 0, 1}, {0, 10, 1, 1}, {60, 11, -1, 0}, {5400, -1, -1, 3}};
  d.event_kind_labels = {"submit", "start", "finish", "end_of_run"};
  d.utilization = {{0, 16, 16}, {3600, 4, 16}, {5400, 0, 16}};
  return d;
}

}  // namespace

TEST_CASE("read_trace reads every field of a schema-1 trace", "[unit]") {
  gcsim::test::TempDir dir;
  const std::string path = dir.file("tiny.h5");
  const TraceData in = sample();
  write_schema1(path, in);
  const TraceData out = read_trace(path);

  CHECK(out.attrs.gcsim_version == "0.1.0");
  CHECK(out.attrs.scenario_name == "tiny");
  CHECK(out.attrs.scenario_file == in.attrs.scenario_file);
  CHECK(out.attrs.scenario_yaml == in.attrs.scenario_yaml);
  CHECK(out.attrs.gpu_catalog_yaml == in.attrs.gpu_catalog_yaml);
  CHECK(out.attrs.seed == 3);
  CHECK(out.attrs.replication == 2);
  CHECK(out.attrs.horizon_s == 7200);
  CHECK(out.attrs.end_s == 5400);
  CHECK(out.attrs.wall_clock_s == 0.25);
  CHECK(out.attrs.trace_schema == 1);

  REQUIRE(out.nodes.size() == 2);
  CHECK(out.nodes[1].node_id == 1);
  CHECK(out.nodes[1].node_type == "p5");
  CHECK(out.nodes[1].gpu == "H100");
  CHECK(out.nodes[1].gpus == 8);
  CHECK(out.nodes[1].price_usd_per_hour == 98.32);
  CHECK(out.nodes[1].down_s == 5400);
  CHECK(out.nodes[1].cost_usd == 147.48);

  REQUIRE(out.jobs.size() == 3);
  CHECK(out.jobs[0].job_id == 10);
  CHECK(out.jobs[0].name == "train-a");
  CHECK(out.jobs[0].gpus_held == 16);
  CHECK(out.jobs[0].nodes == 2);
  CHECK(out.jobs[1].submit_s == 60);
  CHECK(out.jobs[1].start_s == 3600);
  CHECK(out.jobs[1].first_node == 1);
  CHECK(out.jobs[1].cost_usd == 24.58);
  CHECK(out.jobs[1].status == JobStatus::Completed);
  CHECK(std::isnan(out.jobs[2].start_s));
  CHECK(std::isnan(out.jobs[2].end_s));
  CHECK(out.jobs[2].node_type.empty());
  CHECK(out.jobs[2].first_node == -1);
  CHECK(out.jobs[2].status == JobStatus::NeverStarted);

  REQUIRE(out.events.size() == 5);
  CHECK(event_kind_label(out, out.events[1]) == "start");
  CHECK(out.events[2].node == 1);
  CHECK(out.events[4].job == -1);
  CHECK(event_kind_label(out, out.events[4]) == "end_of_run");

  REQUIRE(out.utilization.size() == 3);
  CHECK(out.utilization[1].time_s == 3600);
  CHECK(out.utilization[1].allocated_gpus == 4);
  CHECK(out.utilization[1].total_gpus == 16);
}

TEST_CASE("read_trace matches job statuses by label, not by value", "[unit]") {
  gcsim::test::TempDir dir;
  const std::string path = dir.file("reordered.h5");
  TraceData d = sample();
  // Written with labels in another order: value 0 now means "never_started".
  for (JobRecord& j : d.jobs) {
    j.status = j.status == JobStatus::NeverStarted ? JobStatus{0} : JobStatus{2};
  }
  write_schema1(path, d, {.status_labels = {"never_started", "running", "completed"}});
  const TraceData out = read_trace(path);
  CHECK(out.jobs[0].status == JobStatus::Completed);
  CHECK(out.jobs[2].status == JobStatus::NeverStarted);
}

TEST_CASE("read_trace rejects traces it cannot read", "[unit]") {
  gcsim::test::TempDir dir;
  const std::string path = dir.file("bad.h5");
  SECTION("newer schema") {
    write_schema1(path, sample(), {.schema = TRACE_SCHEMA + 1});
    CHECK_THROWS_WITH(read_trace(path), Catch::Contains("schema " + std::to_string(TRACE_SCHEMA + 1)));
  }
  SECTION("no /events: a trace written with output.events false reads, without events") {
    write_schema1(path, sample(), {.with_events = false});
    const TraceData t = read_trace(path);
    CHECK_FALSE(t.has_events);
    CHECK(t.events.empty());
    CHECK(t.jobs.size() == 3);
  }
  SECTION("unknown status label") {
    write_schema1(path, sample(), {.status_labels = {"completed", "running", "preempted"}});
    CHECK_THROWS_AS(read_trace(path), gcsim::Error);
  }
  SECTION("no file") { CHECK_THROWS_AS(read_trace(dir.file("none.h5")), gcsim::Error); }
}

TEST_CASE("h5py reads a gcsim trace as documented", "[unit][.slow]") {
  if (!gcsim::test::python_with("h5py")) return;
  gcsim::test::TempDir dir;
  const std::string path = dir.file("py.h5");
  write_schema1(path, sample());
  const std::string script = dir.file("check.py");
  {
    std::ofstream py(script);
    py << R"(import sys, math, h5py
f = h5py.File(sys.argv[1], "r")
a = f.attrs
# Fixed-length strings (trace format 2): h5py gives bytes, padding stripped.
assert isinstance(a["scenario_name"], bytes) and a["scenario_name"].decode() == "tiny", a["scenario_name"]
assert a["scenario_yaml"].decode() == "name: tiny\nseed: 3\n"
assert int(a["trace_format"]) == 2
assert int(a["seed"]) == 3 and int(a["trace_schema"]) == 1 and float(a["end_s"]) == 5400.0
jobs = f["jobs"][:]
assert list(jobs["job_id"]) == [10, 11, 12]
assert [s.decode() for s in jobs["name"]] == ["train-a", "eval", ""]
assert math.isnan(jobs["start_s"][2])
mapping = h5py.check_enum_dtype(f["jobs"].dtype["status"])
assert mapping == {"completed": 0, "running": 1, "never_started": 2}, mapping
kinds = h5py.check_enum_dtype(f["events"].dtype["kind"])
assert kinds["end_of_run"] == 3
assert list(f["utilization"]["allocated_gpus"]) == [16, 4, 0]
assert f["jobs"].compression == "gzip" and f["jobs"].shuffle and f["jobs"].fletcher32 and f["jobs"].maxshape == (None,)
assert f["jobs"].dtype["name"].kind == "S" and h5py.check_string_dtype(f["jobs"].dtype["name"]).length == 288
print("ok")
)";
  }
  const std::string cmd = "/usr/bin/python3 " + script + " " + path;
  CHECK(std::system(cmd.c_str()) == 0);
}
