// gcsim's trace tables (see trace_recorder.hpp and docs/trace-format.md).
#include "models/trace_recorder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gcsim/version.hpp"
#include "models/workload/step_time.hpp"

namespace gcsim::models {

namespace {
using trace::Column;
using trace::ColumnType;

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

std::vector<Column> event_columns() {
  return {{"time_s", ColumnType::F64},
          {"kind", ColumnType::Enum8, {"submit", "start", "finish", "end_of_run"}},
          {"job", ColumnType::I64},
          {"node", ColumnType::I32}};
}
std::vector<Column> utilization_columns() {
  return {{"time_s", ColumnType::F64}, {"allocated_gpus", ColumnType::I32}, {"total_gpus", ColumnType::I32}};
}
}  // namespace

TraceRecorder::TraceRecorder(trace::TraceFile& file, const Scenario& scenario, std::uint64_t replication,
                             Cluster& cluster, const CostMeter& costs, const ModelSpeeds& speeds)
    : file_(file), scenario_(scenario), replication_(replication), cluster_(cluster), costs_(costs), speeds_(speeds),
      events_(file.add_table("events", event_columns(), 16384)),
      utilization_(file.add_table("utilization", utilization_columns(), 16384)) {
  utilization(sim::SimTime::zero());
  cluster.job_submitted.connect([this](const Job& j) { event(EventKind::Submit, j.submit, j.id, -1); });
  cluster.job_started.connect([this](const Job& j) {
    for (std::uint32_t n : cluster_.nodes_of(j)) event(EventKind::Start, j.start, j.id, static_cast<std::int32_t>(n));
    utilization(j.start);
  });
  cluster.job_finished.connect([this](const Job& j) {
    for (std::uint32_t n : cluster_.nodes_of(j)) event(EventKind::Finish, j.end, j.id, static_cast<std::int32_t>(n));
    utilization(j.end);
  });
  cluster.run_ended.connect([this](sim::SimTime end) {
    event(EventKind::EndOfRun, end, -1, -1);
    flush_utilization();
  });
}

void TraceRecorder::event(EventKind kind, sim::SimTime t, std::int64_t job, std::int32_t node) {
  events_.begin_row().f64(0, t.seconds()).enum8(1, static_cast<std::uint8_t>(kind)).i64(2, job).i32(3, node);
}

void TraceRecorder::utilization(sim::SimTime t) {
  if (util_pending_ && t != util_time_) flush_utilization();
  util_pending_ = true;
  util_time_ = t;
  util_value_ = cluster_.allocated_gpus();
}

void TraceRecorder::flush_utilization() {
  if (!util_pending_) return;
  util_pending_ = false;
  if (util_value_ == util_written_) return;
  utilization_.begin_row().f64(0, util_time_.seconds()).i32(1, util_value_).i32(2, cluster_.total_gpus());
  util_written_ = util_value_;
}

void TraceRecorder::write_jobs() {
  trace::Table& t = file_.add_table(
      "jobs", {{"job_id", ColumnType::I64},
               {"name", ColumnType::Str},
               {"submit_s", ColumnType::F64},
               {"start_s", ColumnType::F64},
               {"end_s", ColumnType::F64},
               {"gpus", ColumnType::I32},
               {"gpus_held", ColumnType::I32},
               {"node_type", ColumnType::Str},
               {"first_node", ColumnType::I32},
               {"nodes", ColumnType::I32},
               {"cost_usd", ColumnType::F64},
               {"status", ColumnType::Enum8, {"completed", "running", "never_started"}},
               {"samples", ColumnType::F64},
               {"samples_per_s", ColumnType::F64},
               {"step_time_s", ColumnType::F64},
               {"bottleneck", ColumnType::Str},
               {"compute_s", ColumnType::F64},
               {"input_s", ColumnType::F64},
               {"comm_s", ColumnType::F64},
               {"comm_exposed_s", ColumnType::F64},
               {"memory_per_gpu_bytes", ColumnType::F64}},
      16384);
  for (const Job& j : cluster_.jobs()) {
    const bool started = j.status == JobStatus::Completed || j.status == JobStatus::Running;
    t.begin_row()
        .i64(0, j.id)
        .str(1, j.name)
        .f64(2, j.submit.seconds())
        .f64(3, started ? j.start.seconds() : NaN)
        .f64(4, j.status == JobStatus::Completed ? j.end.seconds() : NaN)
        .i32(5, j.gpus)
        .i32(6, started ? j.gpus_held() : 0)
        .str(7, started ? scenario_.cluster.node_types[static_cast<std::size_t>(j.node_type)].name : std::string())
        .i32(8, started ? static_cast<std::int32_t>(cluster_.nodes_of(j)[0]) : -1)
        .i32(9, started ? static_cast<std::int32_t>(j.nodes_count) : 0)
        .f64(10, started ? costs_.job_cost_usd(j.id) : 0.0)
        .enum8(11, static_cast<std::uint8_t>(j.status));
    // Model-described jobs: work is samples, at the step-time model's speed.
    const bool modelled = j.training != nullptr && started;
    double samples = NaN;
    if (j.training) {
      samples = j.status == JobStatus::Completed ? j.work_total
                : j.status == JobStatus::Running ? std::min(j.work_total, j.work_done + j.rate * std::max(0.0, (cluster_.end_time() - j.progress_at).seconds()))
                                                 : 0.0;
    }
    t.f64(12, samples)
        .f64(13, modelled ? j.samples_per_s : NaN)
        .f64(14, modelled ? j.step_s : NaN)
        .str(15, modelled && j.bottleneck >= 0 ? bottleneck_name(static_cast<Bottleneck>(j.bottleneck)) : std::string_view());
    // The breakdown behind the last speed (per micro-step, like step_time_s).
    const StepEstimate* e = modelled ? speeds_.estimate(j.id) : nullptr;
    t.f64(16, e ? e->compute_s : NaN)
        .f64(17, e ? e->input_s : NaN)
        .f64(18, e ? e->comm_s : NaN)
        .f64(19, e ? e->comm_exposed_s : NaN)
        .f64(20, e ? speeds_.memory_per_gpu_bytes(j.id) : NaN);
  }
}

void TraceRecorder::write_nodes() {
  trace::Table& t = file_.add_table("nodes", {{"node_id", ColumnType::I32},
                                              {"node_type", ColumnType::Str},
                                              {"gpu", ColumnType::Str},
                                              {"gpus", ColumnType::I32},
                                              {"price_usd_per_hour", ColumnType::F64},
                                              {"up_s", ColumnType::F64},
                                              {"down_s", ColumnType::F64},
                                              {"cost_usd", ColumnType::F64}});
  const auto& nodes = cluster_.nodes();
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const auto& type = scenario_.cluster.node_types[nodes[n].type];
    t.begin_row()
        .i32(0, static_cast<std::int32_t>(n))
        .str(1, type.name)
        .str(2, type.gpu.name)
        .i32(3, type.gpus)
        .f64(4, type.price.on_demand_usd_per_hour)
        .f64(5, 0.0)
        .f64(6, cluster_.end_time().seconds())
        .f64(7, costs_.node_cost_usd(static_cast<std::uint32_t>(n)));
  }
}

void TraceRecorder::finish(double wall_clock_s) {
  write_jobs();
  write_nodes();
  file_.set_attribute("trace_schema", TRACE_SCHEMA);
  file_.set_attribute("gcsim_version", std::string_view(VERSION));
  file_.set_attribute("scenario_name", std::string_view(scenario_.name));
  file_.set_attribute("scenario_file", std::string_view(scenario_.source_file));
  file_.set_attribute("scenario_yaml", std::string_view(scenario_.source_text));
  file_.set_attribute("gpu_catalog_yaml", std::string_view(scenario_.gpu_catalog_yaml));
  file_.set_attribute("seed", static_cast<std::int64_t>(scenario_.seed));
  file_.set_attribute("replication", static_cast<std::int64_t>(replication_));
  file_.set_attribute("horizon_s", scenario_.horizon.seconds());
  file_.set_attribute("end_s", cluster_.end_time().seconds());
  file_.set_attribute("run_until", std::string_view(scenario_.run_until == RunUntil::Done ? "done" : "horizon"));
  file_.set_attribute("scheduler", std::string_view(scenario_.scheduler.policy));
  file_.set_attribute("wall_clock_s", wall_clock_s);
}

}  // namespace gcsim::models
