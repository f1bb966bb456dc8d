// gcsim's trace tables (see trace_recorder.hpp and docs/trace-format.md).
#include "models/trace/trace_recorder.hpp"

#include <algorithm>
#include <bit>
#include <string>
#include <cmath>
#include <limits>

#include "models/core/event_priorities.hpp"
#include "gcsim/version.hpp"
#include "models/workload/step_time.hpp"
#include "sim/config/names.hpp"
#include "sim/check.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {

// Every name a scenario may hold fits the trace's name cells.
static_assert(config::MAX_NAME_BYTES < trace::schema::NAME_BYTES);

namespace {
namespace schema = trace::schema;
using schema::EventKind;

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

// The model's enums are written by value, so each value must be its label's index in the
// schema (the labels themselves are compared in tests/models/test_trace_schema.cpp).
static_assert(schema::LEDGER_CATEGORIES.size() == CHARGE_CATEGORIES);
static_assert(static_cast<std::size_t>(JobStatus::Interrupted) + 1 == schema::JOB_STATUSES.size());
static_assert(static_cast<std::size_t>(Market::Owned) + 1 == schema::MARKETS.size());
static_assert(static_cast<std::size_t>(BudgetEventKind::PeriodStart) + 1 == schema::BUDGET_EVENT_KINDS.size());
static_assert(static_cast<std::size_t>(BudgetAction::StopInstances) + 1 == schema::BUDGET_ACTIONS.size());
static_assert(static_cast<std::size_t>(EventKind::Restore) + 1 == schema::EVENT_KINDS.size());
static_assert(static_cast<std::size_t>(PreemptReason::QuotaCap) + 1 == schema::PREEMPT_REASONS.size());
static_assert(static_cast<std::size_t>(NodePhase::Released) + 1 == schema::NODE_STATES.size());
static_assert(static_cast<std::size_t>(NodeReason::Released) + 1 == schema::NODE_REASONS.size());
}  // namespace

TraceRecorder::TraceRecorder(trace::TraceFile& file, const Scenario& scenario, std::uint64_t seed,
                             std::uint64_t replication, Cluster& cluster, const CostMeter& costs, const ModelSpeeds& speeds, Ledger& ledger,
                             BudgetWatcher* budgets)
    : file_(file), scenario_(scenario), seed_(seed), replication_(replication), cluster_(cluster), costs_(costs), speeds_(speeds),
      events_(scenario.output.events ? std::optional<trace::BlockedRows>(add_blocked_table(file, schema::EVENTS, 16384))
                                     : std::nullopt),
      utilization_(add_blocked_table(file, schema::UTILIZATION, 16384)),
      ledger_(add_blocked_table(file, schema::LEDGER, 16384)),
      node_events_(add_table(file, schema::NODE_EVENTS, 1024)),
      node_downs_(cluster.nodes().size(), 0), last_down_s_(cluster.nodes().size(), 0.0),
      first_up_s_(cluster.nodes().size(), 0.0), open_preemption_(cluster.jobs().size(), -1) {
  ledger.charged.connect(ORDER_TRACE, [this](const Charge& c) {
    GCSIM_CHECK(!finished_, "a charge recorded after the trace was finished");
    ledger_.cells()
        .f64(0, c.time.seconds())
        .ints(1, c.pool)
        .ints(2, c.node)
        .ints(3, c.job)
        .ints(4, static_cast<std::uint8_t>(c.category))
        .f64(5, c.usd)
        .ints(6, c.busy ? 1 : 0);
    ledger_.end_row();
  });
  if (budgets) {
    budget_events_ = &add_table(file, schema::BUDGET_EVENTS, 1024);
    budgets->event.connect(ORDER_TRACE, [this](const BudgetEvent& e) {
      budget_events_->begin_row()
          .f64(0, e.time.seconds())
          .str(1, scenario_.workload.teams[static_cast<std::size_t>(e.team)])
          .enum8(2, static_cast<std::uint8_t>(e.kind))
          .f64(3, e.spent_usd)
          .f64(4, e.limit_usd)
          .enum8(5, static_cast<std::uint8_t>(scenario_.budgets[static_cast<std::size_t>(e.budget)].action));
    });
  }
  utilization(sim::SimTime::zero());
  // Every slot's state at the start: the scenario's nodes up, the slots beyond them released.
  for (std::uint32_t n = 0; n < cluster.nodes().size(); ++n) {
    const NodeState& node = cluster.nodes()[n];
    node_event(NodeTransition{sim::SimTime::zero(), n, node.phase, node.phase, NodeReason::Initial, node.billed});
    if (!node.up) first_up_s_[n] = NaN;
  }
  cluster.node_changed.connect(ORDER_TRACE, [this](const NodeTransition& t) {
    node_event(t);
    // Only the market's reclaims are interruptions: a scale-in or a release is not.
    if (t.to == NodePhase::Down && t.reason == NodeReason::SpotInterruption) ++node_downs_[t.node];
  });
  cluster.job_submitted.connect(ORDER_TRACE, [this](const Job& j) {
    if (j.id >= open_preemption_.size()) open_preemption_.resize(std::size_t{j.id} + 1, -1);  // Cluster::submit
    event(EventKind::Submit, j.submit, j.id, -1);
  });
  cluster.job_started.connect(ORDER_TRACE, [this](const Job& j) {
    for (std::uint32_t n : cluster_.nodes_of(j)) event(EventKind::Start, j.run_start, j.id, static_cast<std::int32_t>(n));
    utilization(j.run_start);
    restart_began(j);
  });
  cluster.job_stopped.connect(ORDER_TRACE, [this](const Job& j) {
    preemption_stopped(j);
    const sim::SimTime now = cluster_.now();
    for (std::uint32_t n : cluster_.nodes_of(j)) event(EventKind::Stop, now, j.id, static_cast<std::int32_t>(n));
    utilization(now);
  });
  cluster.checkpoint_written.connect(ORDER_TRACE, [this](const Job& j) { event(EventKind::Checkpoint, cluster_.now(), j.id, -1); });
  cluster.restore_started.connect(ORDER_TRACE, [this](const Job& j) { event(EventKind::Restore, cluster_.now(), j.id, -1); });
  cluster.node_noticed.connect(ORDER_TRACE, [this](std::uint32_t n, sim::SimTime) { event(EventKind::Notice, cluster_.now(), -1, static_cast<std::int32_t>(n)); });
  cluster.node_down.connect(ORDER_TRACE, [this](std::uint32_t n) {
    event(EventKind::NodeDown, cluster_.now(), -1, static_cast<std::int32_t>(n));
    utilization(cluster_.now());
    // A node the market cannot supply at the start is down from t = 0: it was never up.
    if (cluster_.now() == sim::SimTime::zero()) first_up_s_[n] = NaN;
    last_down_s_[n] = cluster_.now().seconds();
  });
  cluster.node_up.connect(ORDER_TRACE, [this](std::uint32_t n) {
    event(EventKind::NodeUp, cluster_.now(), -1, static_cast<std::int32_t>(n));
    utilization(cluster_.now());
    if (std::isnan(first_up_s_[n])) first_up_s_[n] = cluster_.now().seconds();
  });
  cluster.job_finished.connect(ORDER_TRACE, [this](const Job& j) {
    for (std::uint32_t n : cluster_.nodes_of(j)) event(EventKind::Finish, j.end, j.id, static_cast<std::int32_t>(n));
    utilization(j.end);
  });
  cluster.run_ended.connect(ORDER_TRACE, [this](sim::SimTime end) {
    event(EventKind::EndOfRun, end, -1, -1);
    flush_utilization();
  });
}

void TraceRecorder::event(EventKind kind, sim::SimTime t, std::int64_t job, std::int32_t node) {
  if (!events_) return;  // output.events: false
  GCSIM_CHECK(!finished_, "an event recorded after the trace was finished");
  events_->cells().f64(0, t.seconds()).ints(1, static_cast<std::uint8_t>(kind)).ints(2, job).ints(3, node);
  events_->end_row();
}

void TraceRecorder::node_event(const NodeTransition& t) {
  node_events_.begin_row()
      .f64(0, t.time.seconds())
      .i32(1, static_cast<std::int32_t>(t.node))
      .enum8(2, static_cast<std::uint8_t>(t.to))
      .enum8(3, static_cast<std::uint8_t>(t.reason))
      .enum8(4, t.billed ? 1 : 0);
}

void TraceRecorder::utilization(sim::SimTime t) {
  if (util_pending_ && t != util_time_) flush_utilization();
  util_pending_ = true;
  util_time_ = t;
  util_value_ = cluster_.allocated_gpus();
  util_total_ = cluster_.up_gpus();
}

void TraceRecorder::flush_utilization() {
  if (!util_pending_) return;
  util_pending_ = false;
  if (util_value_ == util_written_ && util_total_ == util_total_written_) return;
  GCSIM_CHECK(!finished_, "a utilization row recorded after the trace was finished");
  utilization_.cells().f64(0, util_time_.seconds()).f64(1, util_value_).ints(2, util_total_);
  utilization_.end_row();
  util_written_ = util_value_;
  util_total_written_ = util_total_;
}

void TraceRecorder::set_restore(std::size_t row, Restore r) {
  if (restores_.empty()) {
    // Zero as the rows' restores are while none is kept (+0.0, bit for bit).
    if (std::bit_cast<std::uint64_t>(r.s) == 0 && std::bit_cast<std::uint64_t>(r.gpu_s) == 0) return;
    restores_.grow_to(preemptions_.size());
  }
  restores_[row] = r;
}

void TraceRecorder::preemption_stopped(const Job& j) {
  const sim::SimTime now = cluster_.now();
  if (const std::int64_t open = open_preemption_[j.id]; open >= 0) {
    // A run that ends during its restore spent only part of it (the image is pulled first).
    const auto row = static_cast<std::size_t>(open);
    Restore r = restore_of(row);
    const double spent_s = std::clamp((now - j.run_start - j.image_pull()).seconds(), 0.0, r.s);
    r.gpu_s *= r.s > 0 ? spent_s / r.s : 0.0;
    r.s = spent_s;
    set_restore(row, r);
    open_preemption_[j.id] = -1;
  }
  if (!j.preempted) return;
  const double gpus = j.gpu_share_held();
  PreemptionRow row;
  row.time_s = j.preempted_at().seconds();
  row.job = j.id;
  row.reason = static_cast<std::uint8_t>(j.preempt_reason);
  row.mode = j.preempt_saves ? 0 : 1;
  row.gpus = j.gpus_held();
  row.save_s = (now - j.preempted_at()).seconds();
  row.save_gpu_s = row.save_s * gpus;
  // The run's progress the stop kept, at the run's speed.
  if (j.progress.rate > 0) row.saved_gpu_s = std::max(0.0, j.ckpt().ckpt_work - j.ckpt().run_start_work) / j.progress.rate * gpus;
  row.lost_gpu_s = j.stop_lost_gpu_s();
  open_preemption_[j.id] = static_cast<std::int64_t>(preemptions_.size());
  preemptions_.push_back(row);
  if (!restores_.empty()) restores_.push_back(Restore{});
}

void TraceRecorder::restart_began(const Job& j) {
  const std::int64_t open = open_preemption_[j.id];
  if (open < 0) return;
  Restore r;
  r.s = j.ckpt().run_restore.seconds();
  r.gpu_s = r.s * j.gpu_share_held();
  set_restore(static_cast<std::size_t>(open), r);
  if (j.ckpt().run_restore == sim::SimTime::zero()) open_preemption_[j.id] = -1;
}

void TraceRecorder::write_preemptions() {
  trace::Table& t = add_table(file_, schema::PREEMPTIONS, 1024);
  for (std::size_t i = 0; i < preemptions_.size(); ++i) {
    const PreemptionRow& r = preemptions_[i];
    const Restore restore = restore_of(i);
    t.begin_row()
        .f64(0, r.time_s)
        .i64(1, r.job)
        .enum8(2, r.reason)
        .enum8(3, r.mode)
        .i32(4, r.gpus)
        .f64(5, r.save_s)
        .f64(6, r.save_gpu_s)
        .f64(7, restore.s)
        .f64(8, restore.gpu_s)
        .f64(9, r.saved_gpu_s)
        .f64(10, r.lost_gpu_s);
  }
}

namespace {
// The position of `name` in `columns` (a schema column, so it is there).
std::size_t column_index(const std::vector<trace::Column>& columns, std::string_view name) {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name == name) return i;
  throw InternalError("trace schema: no column " + std::string(name));
}
}  // namespace

void TraceRecorder::write_jobs() {
  // The coded columns' labels (value 0 is schema::NONE_LABEL, set by trace_columns): the
  // run's node types, the step-time model's bottlenecks, the scenario's teams, each name
  // i at value i + 1; and the name cells as wide as the longest job name.
  std::vector<trace::Column> columns = trace_columns(schema::JOBS);
  std::size_t longest = 1;
  for (const Job& j : cluster_.jobs()) longest = std::max(longest, j.name.size());
  columns[column_index(columns, schema::column(schema::JOBS, "name"))].str_bytes = longest;
  auto& node_types = columns[column_index(columns, schema::column(schema::JOBS, "node_type"))].enum_labels;
  for (const NodeTypeSpec& t : scenario_.cluster.node_types) node_types.push_back(t.name);
  auto& bottlenecks = columns[column_index(columns, schema::column(schema::JOBS, "bottleneck"))].enum_labels;
  for (int b = 0; b <= static_cast<int>(Bottleneck::InputPcie); ++b)
    bottlenecks.emplace_back(bottleneck_name(static_cast<Bottleneck>(b)));
  auto& teams = columns[column_index(columns, schema::column(schema::JOBS, "team"))].enum_labels;
  for (const std::string& t : scenario_.workload.teams) teams.push_back(t);
  auto& statuses = columns[column_index(columns, schema::column(schema::JOBS, "recorded_status"))].enum_labels;
  for (const std::string& s : scenario_.workload.recorded_statuses) statuses.push_back(s);
  trace::Table& t = file_.add_table(std::string(schema::JOBS.name), columns, 16384);
  t.reserve(cluster_.jobs().size());
  // Rows in blocks (trace::Table::write_block): a million rows are 30 million cells.
  trace::BlockedRows rows(t, columns);
  trace::BlockBuffer& b = rows.cells();
  for (const Job& j : cluster_.jobs()) {
    const bool started = j.started_once;
    b.ints(0, j.id)
        .str(1, j.name)
        .f64(2, j.submit.seconds())
        .f64(3, started ? j.start.seconds() : NaN)
        .f64(4, j.status == JobStatus::Completed ? j.end.seconds() : NaN)
        .ints(5, j.gpus)
        .ints(6, started ? j.gpus_held() : 0)
        .ints(7, started ? static_cast<std::uint32_t>(j.node_type) + 1 : 0)
        .ints(8, started ? static_cast<std::int32_t>(cluster_.nodes_of(j)[0]) : -1)
        .ints(9, started ? static_cast<std::int32_t>(j.nodes_count) : 0)
        .f64(10, started ? costs_.job_cost_usd(j.id) : 0.0)
        .ints(11, static_cast<std::uint8_t>(j.status));
    // Model-described jobs: work is samples, at the step-time model's speed.
    const bool modelled = j.training() != nullptr && started;
    double samples = NaN;
    if (j.training()) {
      samples = j.status == JobStatus::Completed ? j.work_total()
                : j.status == JobStatus::Running ? j.work_done_at(cluster_.end_time())
                                                 : 0.0;
    }
    b.f64(12, samples)
        .f64(13, modelled ? j.samples_per_s() : NaN)
        .f64(14, modelled ? j.step_s() : NaN)
        .ints(15, modelled && j.bottleneck() >= 0 ? static_cast<std::uint32_t>(j.bottleneck()) + 1 : 0);
    // The breakdown behind the last speed (per micro-step, like step_time_s).
    const StepEstimate* e = modelled ? speeds_.estimate(j.id) : nullptr;
    b.f64(16, e ? e->compute_s : NaN)
        .f64(17, e ? e->input_s : NaN)
        .f64(18, e ? e->comm_s : NaN)
        .f64(19, e ? e->comm_exposed_s : NaN)
        .f64(20, e ? speeds_.memory_per_gpu_bytes(j.id) : NaN);
    // GPU-seconds held, over every run; a run still going at the end counts to the end.
    double held = j.held_gpu_s;
    if (j.status == JobStatus::Running) held += (cluster_.end_time() - j.run_start).seconds() * j.gpu_share_held();
    b.ints(21, j.team >= 0 ? static_cast<std::uint32_t>(j.team) + 1 : 0)
        .ints(22, j.interruptions())
        .ints(23, j.checkpoints())
        .f64(24, held)
        .f64(25, j.lost_gpu_s())
        .f64(26, j.checkpoint_gpu_s())
        .f64(27, j.restart_gpu_s())
        .ints(28, j.gpu_milli)
        .ints(29, j.recorded_status);
    rows.end_row();
  }
  rows.flush();
}

void TraceRecorder::write_nodes() {
  trace::Table& t = add_table(file_, schema::NODES);
  const auto& nodes = cluster_.nodes();
  // GPU-seconds held on each node; runs still going at the end count to the end.
  std::vector<double> busy_gpu_s(nodes.size());
  for (std::size_t n = 0; n < nodes.size(); ++n) busy_gpu_s[n] = nodes[n].busy_gpu_s;
  for (const Job& j : cluster_.jobs())
    if (j.status == JobStatus::Running)
      for (std::uint32_t n : cluster_.nodes_of(j)) busy_gpu_s[n] += (cluster_.end_time() - j.run_start).seconds() * j.gpus_per_node_held * (j.gpu_milli / 1000.0);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const auto& type = scenario_.cluster.node_types[nodes[n].type];
    t.begin_row()
        .i32(0, static_cast<std::int32_t>(n))
        .str(1, type.name)
        .str(2, type.gpu.name)
        .i32(3, type.gpus)
        .f64(4, type.price.on_demand_usd_per_hour)
        .f64(5, first_up_s_[n])
        .f64(6, nodes[n].up ? cluster_.end_time().seconds() : last_down_s_[n])
        .f64(7, costs_.node_cost_usd(static_cast<std::uint32_t>(n)))
        .enum8(8, static_cast<std::uint8_t>(type.price.market))
        .f64(9, costs_.node_up_s(static_cast<std::uint32_t>(n)))
        .i32(10, node_downs_[n])
        .f64(11, busy_gpu_s[n]);
  }
}

void TraceRecorder::write_pools() {
  trace::Table& t = add_table(file_, schema::POOLS);
  for (const NodeTypeSpec& p : scenario_.cluster.node_types) {
    double fixed = 0, e_idle = 0, e_busy = 0;
    if (p.price.market == Market::Reserved) fixed = p.price.reserved_effective_usd_per_hour();
    if (p.ownership) {
      fixed = fixed_usd_per_hour(*p.ownership);
      e_idle = energy_usd_per_hour(*p.ownership, 0.0);
      e_busy = energy_usd_per_hour(*p.ownership, 1.0);
    }
    t.begin_row()
        .str(0, p.name)
        .enum8(1, static_cast<std::uint8_t>(p.price.market))
        .str(2, p.gpu.name)
        .i32(3, p.gpus)
        .i32(4, p.count)
        .str(5, p.instance)
        .f64(6, p.price.on_demand_usd_per_hour)
        .f64(7, fixed)
        .f64(8, e_idle)
        .f64(9, e_busy)
        .str(10, p.compare_to)
        .f64(11, p.compare_usd_per_gpu_hour > 0 ? p.compare_usd_per_gpu_hour : NaN)
        .f64(12, p.price.reserved ? p.price.reserved->term.seconds() : NaN)
        .f64(13, p.price.reserved ? p.count * p.price.reserved->commitment_usd(scenario_.horizon) : NaN);
  }
}

// The resolver bounds every record to the /inputs columns' widths at load.
static_assert(schema::KEY_BYTES == config::MAX_SOURCE_KEY_BYTES && schema::PATH_BYTES == config::MAX_SOURCE_PATH_BYTES);

void TraceRecorder::write_inputs() {
  trace::Table& t = add_table(file_, schema::INPUTS, 64);
  std::string bytes;
  for (const config::SourceRecord& in : config::paths_for_trace(scenario_.source_file, scenario_.inputs, absolute_paths_).records) {
    t.begin_row()
        .str(0, in.key)
        .str(1, in.written)
        .str(2, in.resolved)
        .i64(3, static_cast<std::int64_t>(in.bytes->size()))
        .str(4, in.digest)
        .i64(5, static_cast<std::int64_t>(bytes.size()));
    bytes += *in.bytes;
  }
  file_.add_bytes(schema::INPUT_BYTES, bytes);
}

void TraceRecorder::finish(double wall_clock_s) {
  if (events_) events_->flush();
  utilization_.flush();
  ledger_.flush();
  finished_ = true;
  write_jobs();
  write_nodes();
  write_pools();
  write_preemptions();
  write_inputs();
  namespace at = schema::attribute;
  file_.set_attribute(at::TRACE_SCHEMA, schema::VERSION);
  file_.set_attribute(at::GCSIM_VERSION, std::string_view(VERSION));
  file_.set_attribute(at::SCENARIO_NAME, std::string_view(scenario_.name));
  file_.set_attribute(at::SCENARIO_FILE,
                      config::paths_for_trace(scenario_.source_file, {}, absolute_paths_).scenario_file);
  file_.set_attribute(at::SCENARIO_YAML, scenario_text_.empty() ? std::string_view(scenario_.source_text) : scenario_text_);
  file_.set_attribute(at::GPU_CATALOG_YAML, std::string_view(scenario_.gpu_catalog_yaml));
  file_.set_attribute(at::SEED, static_cast<std::uint64_t>(seed_));
  file_.set_attribute(at::REPLICATION, static_cast<std::uint64_t>(replication_));
  file_.set_attribute(at::HORIZON_S, scenario_.horizon.seconds());
  file_.set_attribute(at::END_S, cluster_.end_time().seconds());
  file_.set_attribute(at::JOBS_AFTER_HORIZON, static_cast<std::int64_t>(cluster_.jobs_not_made()));
  file_.set_attribute(at::RUN_UNTIL, std::string_view(scenario_.run_until == RunUntil::Done ? "done" : "horizon"));
  file_.set_attribute(at::SCHEDULER, std::string_view(cluster_.scheduler_spec().policy));
  file_.set_attribute(at::SCHEDULER_SETTINGS, std::string_view(cluster_.policy().settings()));
  if (!scenario_.import_report.empty()) {
    std::string report;
    for (const std::string& line : scenario_.import_report) report.append(line).push_back('\n');
    file_.set_attribute(at::IMPORT_REPORT, std::string_view(report));
  }
  file_.set_attribute(at::WALL_CLOCK_S, wall_clock_s);
}

}  // namespace gcsim::models
