// Reads a gcsim trace into TraceData through the generic TraceReader. Each table is read
// in one pass and its columns moved into the records, so the peak memory is the records
// plus one table's columns (about 300 MB for a million-job trace).
#include "analysis/trace_data.hpp"

#include <utility>

#include "sim/errors.hpp"
#include "sim/trace/trace_reader.hpp"

namespace gcsim::analysis {

namespace {

using trace::TraceReader;

// One table's columns, read in a single pass (the trace is compressed by chunks of rows,
// and decompression, not conversion, is what reading costs), then moved field by field
// into the records.
class TableColumns {
 public:
  TableColumns(const TraceReader& r, std::string path, std::string table, const std::vector<std::string>& names)
      : path_(std::move(path)), table_(std::move(table)), cols_(r.read_columns(table_, names)) {}

  // Each column is moved into the records once and then freed, so the peak is the records
  // plus the columns not yet consumed.
  template <typename Record>
  void f64(const std::string& column, std::vector<Record>& records, double Record::*field) {
    if (auto it = cols_.f64.find(column); it != cols_.f64.end()) {
      for (std::size_t i = 0; i < records.size(); ++i) records[i].*field = it->second[i];
      cols_.f64.erase(it);
    } else {
      const std::vector<std::int64_t>& v = ints(column, "a number");
      for (std::size_t i = 0; i < records.size(); ++i) records[i].*field = static_cast<double>(v[i]);
      cols_.ints.erase(column);
    }
  }

  template <typename Record, typename Int>
  void integer(const std::string& column, std::vector<Record>& records, Int Record::*field) {
    const std::vector<std::int64_t>& v = ints(column, "an integer");
    for (std::size_t i = 0; i < records.size(); ++i) records[i].*field = static_cast<Int>(v[i]);
    cols_.ints.erase(column);
  }

  template <typename Record>
  void str(const std::string& column, std::vector<Record>& records, std::string Record::*field) {
    auto it = cols_.str.find(column);
    if (it == cols_.str.end()) wrong_type(column, "a string");
    for (std::size_t i = 0; i < records.size(); ++i) records[i].*field = std::move(it->second[i]);
    cols_.str.erase(it);  // free the emptied strings early
  }

  const std::vector<std::int64_t>& ints(const std::string& column, const char* wanted) const {
    auto it = cols_.ints.find(column);
    if (it == cols_.ints.end()) wrong_type(column, wanted);
    return it->second;
  }

 private:
  [[noreturn]] void wrong_type(const std::string& column, const char* wanted) const {
    throw Error("trace '" + path_ + "': column '" + column + "' of table '/" + table_ + "' is not " + wanted);
  }

  std::string path_;
  std::string table_;
  trace::Columns cols_;
};

std::string optional_string(const TraceReader& r, const std::string& name) {
  return r.has_attribute(name) ? r.attribute_string(name) : std::string();
}

TraceAttributes read_attributes(const TraceReader& r, const std::string& path) {
  TraceAttributes a;
  if (!r.has_attribute("trace_schema")) {
    throw Error("trace '" + path + "': not a gcsim trace (no root attribute 'trace_schema')");
  }
  a.trace_schema = r.attribute_int("trace_schema");
  if (a.trace_schema < 1 || a.trace_schema > TRACE_SCHEMA) {
    throw Error("trace '" + path + "': trace schema " + std::to_string(a.trace_schema) +
                " is not supported (this gcsim reads schema " + std::to_string(TRACE_SCHEMA) + ")");
  }
  a.gcsim_version = optional_string(r, "gcsim_version");
  a.scenario_name = optional_string(r, "scenario_name");
  a.scenario_file = optional_string(r, "scenario_file");
  a.scenario_yaml = optional_string(r, "scenario_yaml");
  a.gpu_catalog_yaml = optional_string(r, "gpu_catalog_yaml");
  a.seed = r.attribute_int("seed");
  a.replication = r.attribute_int("replication");
  a.horizon_s = r.attribute_double("horizon_s");
  a.end_s = r.attribute_double("end_s");
  a.wall_clock_s = r.has_attribute("wall_clock_s") ? r.attribute_double("wall_clock_s") : 0.0;
  return a;
}

std::vector<NodeRecord> read_nodes(const TraceReader& r, const std::string& path) {
  std::vector<NodeRecord> nodes(r.rows("nodes"));
  TableColumns c(r, path, "nodes",
                 {"node_id", "node_type", "gpu", "gpus", "price_usd_per_hour", "up_s", "down_s", "cost_usd"});
  c.integer("node_id", nodes, &NodeRecord::node_id);
  c.str("node_type", nodes, &NodeRecord::node_type);
  c.str("gpu", nodes, &NodeRecord::gpu);
  c.integer("gpus", nodes, &NodeRecord::gpus);
  c.f64("price_usd_per_hour", nodes, &NodeRecord::price_usd_per_hour);
  c.f64("up_s", nodes, &NodeRecord::up_s);
  c.f64("down_s", nodes, &NodeRecord::down_s);
  c.f64("cost_usd", nodes, &NodeRecord::cost_usd);
  if (r.has_column("nodes", "market")) {
    TableColumns m(r, path, "nodes", {"market", "up_time_s", "interruptions", "busy_gpu_s"});
    const std::vector<std::string> labels = r.enum_labels("nodes", "market");
    const std::vector<std::int64_t>& v = m.ints("market", "an enum");
    for (std::size_t i = 0; i < nodes.size(); ++i)
      nodes[i].market = v[i] >= 0 && static_cast<std::size_t>(v[i]) < labels.size() ? labels[static_cast<std::size_t>(v[i])] : "";
    m.f64("up_time_s", nodes, &NodeRecord::up_time_s);
    m.integer("interruptions", nodes, &NodeRecord::interruptions);
    m.f64("busy_gpu_s", nodes, &NodeRecord::busy_gpu_s);
  } else {
    for (auto& n : nodes) n.up_time_s = n.down_s - n.up_s;
  }
  return nodes;
}

// An enum column as its labels.
std::vector<std::string> enum_strings(const TraceReader& r, TableColumns& c, const std::string& table,
                                      const std::string& column) {
  const std::vector<std::string> labels = r.enum_labels(table, column);
  const std::vector<std::int64_t>& v = c.ints(column, "an enum");
  std::vector<std::string> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    out[i] = v[i] >= 0 && static_cast<std::size_t>(v[i]) < labels.size() ? labels[static_cast<std::size_t>(v[i])] : "";
  return out;
}

std::vector<ChargeRecord> read_ledger(const TraceReader& r, const std::string& path) {
  if (!r.has_table("ledger")) return {};
  std::vector<ChargeRecord> rows(r.rows("ledger"));
  TableColumns c(r, path, "ledger", {"time_s", "pool", "node", "job", "category", "usd", "busy"});
  c.f64("time_s", rows, &ChargeRecord::time_s);
  c.integer("pool", rows, &ChargeRecord::pool);
  c.integer("node", rows, &ChargeRecord::node);
  c.integer("job", rows, &ChargeRecord::job);
  c.f64("usd", rows, &ChargeRecord::usd);
  const std::vector<std::string> cat = enum_strings(r, c, "ledger", "category");
  const std::vector<std::string> busy = enum_strings(r, c, "ledger", "busy");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].category = cat[i];
    rows[i].busy = busy[i] == "busy";
  }
  return rows;
}

std::vector<PoolRecord> read_pools(const TraceReader& r, const std::string& path) {
  if (!r.has_table("pools")) return {};
  std::vector<PoolRecord> rows(r.rows("pools"));
  TableColumns c(r, path, "pools",
                 {"name", "market", "gpu", "gpus_per_node", "count", "on_demand_usd_per_hour", "fixed_usd_per_hour",
                  "energy_idle_usd_per_hour", "energy_busy_usd_per_hour", "compare_to", "compare_usd_per_gpu_hour"});
  c.str("name", rows, &PoolRecord::name);
  c.str("gpu", rows, &PoolRecord::gpu);
  c.integer("gpus_per_node", rows, &PoolRecord::gpus_per_node);
  c.integer("count", rows, &PoolRecord::count);
  c.f64("on_demand_usd_per_hour", rows, &PoolRecord::on_demand_usd_per_hour);
  c.f64("fixed_usd_per_hour", rows, &PoolRecord::fixed_usd_per_hour);
  c.f64("energy_idle_usd_per_hour", rows, &PoolRecord::energy_idle_usd_per_hour);
  c.f64("energy_busy_usd_per_hour", rows, &PoolRecord::energy_busy_usd_per_hour);
  c.str("compare_to", rows, &PoolRecord::compare_to);
  c.f64("compare_usd_per_gpu_hour", rows, &PoolRecord::compare_usd_per_gpu_hour);
  const std::vector<std::string> market = enum_strings(r, c, "pools", "market");
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].market = market[i];
  return rows;
}

std::vector<BudgetEventRecord> read_budget_events(const TraceReader& r, const std::string& path) {
  if (!r.has_table("budget_events")) return {};
  std::vector<BudgetEventRecord> rows(r.rows("budget_events"));
  TableColumns c(r, path, "budget_events", {"time_s", "team", "kind", "spent_usd", "limit_usd", "action"});
  c.f64("time_s", rows, &BudgetEventRecord::time_s);
  c.str("team", rows, &BudgetEventRecord::team);
  c.f64("spent_usd", rows, &BudgetEventRecord::spent_usd);
  c.f64("limit_usd", rows, &BudgetEventRecord::limit_usd);
  const std::vector<std::string> kind = enum_strings(r, c, "budget_events", "kind");
  const std::vector<std::string> action = enum_strings(r, c, "budget_events", "action");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].kind = kind[i];
    rows[i].action = action[i];
  }
  return rows;
}

std::vector<JobRecord> read_jobs(const TraceReader& r, const std::string& path) {
  std::vector<JobRecord> jobs(r.rows("jobs"));
  // One pass over the table for every column this trace has: reading a column decompresses
  // every chunk of the table, so separate passes would each pay for all of it.
  const bool has_model = r.has_column("jobs", "samples");
  const bool has_breakdown = has_model && r.has_column("jobs", "compute_s");  // added later in schema 1
  const bool has_resilience = r.has_column("jobs", "interruptions");        // schema 2
  std::vector<std::string> names{"job_id", "name", "submit_s", "start_s", "end_s", "gpus", "gpus_held", "node_type",
                                 "first_node", "nodes", "cost_usd", "status"};
  if (has_model) names.insert(names.end(), {"samples", "samples_per_s", "step_time_s", "bottleneck"});
  if (has_breakdown) names.insert(names.end(), {"compute_s", "input_s", "comm_s", "comm_exposed_s", "memory_per_gpu_bytes"});
  if (has_resilience)
    names.insert(names.end(), {"team", "interruptions", "checkpoints", "gpu_s_held", "gpu_s_lost", "gpu_s_checkpoint",
                               "gpu_s_restart"});
  TableColumns c(r, path, "jobs", names);
  c.integer("job_id", jobs, &JobRecord::job_id);
  c.str("name", jobs, &JobRecord::name);
  c.f64("submit_s", jobs, &JobRecord::submit_s);
  c.f64("start_s", jobs, &JobRecord::start_s);
  c.f64("end_s", jobs, &JobRecord::end_s);
  c.integer("gpus", jobs, &JobRecord::gpus);
  c.integer("gpus_held", jobs, &JobRecord::gpus_held);
  c.str("node_type", jobs, &JobRecord::node_type);
  c.integer("first_node", jobs, &JobRecord::first_node);
  c.integer("nodes", jobs, &JobRecord::nodes);
  c.f64("cost_usd", jobs, &JobRecord::cost_usd);
  if (has_model) {
    std::vector<ModelRecord> models(jobs.size());
    c.f64("samples", models, &ModelRecord::samples);
    c.f64("samples_per_s", models, &ModelRecord::samples_per_s);
    c.f64("step_time_s", models, &ModelRecord::step_time_s);
    c.str("bottleneck", models, &ModelRecord::bottleneck);
    if (has_breakdown) {
      c.f64("compute_s", models, &ModelRecord::compute_s);
      c.f64("input_s", models, &ModelRecord::input_s);
      c.f64("comm_s", models, &ModelRecord::comm_s);
      c.f64("comm_exposed_s", models, &ModelRecord::comm_exposed_s);
      c.f64("memory_per_gpu_bytes", models, &ModelRecord::memory_per_gpu_bytes);
    }
    for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].model = std::move(models[i]);
  }
  if (has_resilience) {
    std::vector<ResilienceRecord> res(jobs.size());
    c.str("team", res, &ResilienceRecord::team);
    c.integer("interruptions", res, &ResilienceRecord::interruptions);
    c.integer("checkpoints", res, &ResilienceRecord::checkpoints);
    c.f64("gpu_s_held", res, &ResilienceRecord::gpu_s_held);
    c.f64("gpu_s_lost", res, &ResilienceRecord::gpu_s_lost);
    c.f64("gpu_s_checkpoint", res, &ResilienceRecord::gpu_s_checkpoint);
    c.f64("gpu_s_restart", res, &ResilienceRecord::gpu_s_restart);
    for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].resilience = std::move(res[i]);
  }

  // Statuses are matched by label, not by value, so a reordered enum still reads right.
  const std::vector<std::string> labels = r.enum_labels("jobs", "status");
  std::vector<int> status_of_value(labels.size(), -1);
  for (std::size_t v = 0; v < labels.size(); ++v) {
    if (labels[v] == "completed") status_of_value[v] = static_cast<int>(JobStatus::Completed);
    if (labels[v] == "running") status_of_value[v] = static_cast<int>(JobStatus::Running);
    if (labels[v] == "never_started") status_of_value[v] = static_cast<int>(JobStatus::NeverStarted);
    if (labels[v] == "interrupted") status_of_value[v] = static_cast<int>(JobStatus::Interrupted);
  }
  const std::vector<std::int64_t>& values = c.ints("status", "an enum");
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::int64_t v = values[i];
    if (v < 0 || static_cast<std::size_t>(v) >= labels.size() || status_of_value[v] < 0) {
      const std::string label = v >= 0 && static_cast<std::size_t>(v) < labels.size() ? labels[v] : "";
      throw Error("trace '" + path + "': job " + std::to_string(jobs[i].job_id) + " has unknown status " +
                  std::to_string(v) + (label.empty() ? "" : " ('" + label + "')"));
    }
    jobs[i].status = static_cast<JobStatus>(status_of_value[v]);
  }
  if (!has_resilience) {
    // Schema 1: one run per job, held from start to end (or to the end of the run).
    const double end_s = r.attribute_double("end_s");
    for (auto& j : jobs)
      if (j.status == JobStatus::Completed || j.status == JobStatus::Running)
        j.resilience.gpu_s_held = ((j.status == JobStatus::Completed ? j.end_s : end_s) - j.start_s) * j.gpus_held;
  }
  return jobs;
}

std::vector<EventRecord> read_events(const TraceReader& r, const std::string& path,
                                     std::vector<std::string>& kind_labels) {
  std::vector<EventRecord> events(r.rows("events"));
  TableColumns c(r, path, "events", {"time_s", "kind", "job", "node"});
  c.f64("time_s", events, &EventRecord::time_s);
  c.integer("job", events, &EventRecord::job);
  c.integer("node", events, &EventRecord::node);
  c.integer("kind", events, &EventRecord::kind);
  kind_labels = r.enum_labels("events", "kind");
  return events;
}

std::vector<UtilizationSample> read_utilization(const TraceReader& r, const std::string& path) {
  std::vector<UtilizationSample> samples(r.rows("utilization"));
  TableColumns c(r, path, "utilization", {"time_s", "allocated_gpus", "total_gpus"});
  c.f64("time_s", samples, &UtilizationSample::time_s);
  c.integer("allocated_gpus", samples, &UtilizationSample::allocated_gpus);
  c.integer("total_gpus", samples, &UtilizationSample::total_gpus);
  return samples;
}

}  // namespace

TraceData read_trace(const std::string& path) {
  const std::unique_ptr<TraceReader> reader = TraceReader::open(path);
  TraceData data;
  data.attrs = read_attributes(*reader, path);
  data.nodes = read_nodes(*reader, path);
  data.jobs = read_jobs(*reader, path);
  data.events = read_events(*reader, path, data.event_kind_labels);
  data.utilization = read_utilization(*reader, path);
  data.ledger = read_ledger(*reader, path);
  data.pools = read_pools(*reader, path);
  data.budget_events = read_budget_events(*reader, path);
  return data;
}

const std::string& event_kind_label(const TraceData& trace, const EventRecord& event) {
  static const std::string unknown;
  return event.kind < trace.event_kind_labels.size() ? trace.event_kind_labels[event.kind] : unknown;
}

const char* job_status_name(JobStatus status) {
  switch (status) {
    case JobStatus::Completed: return "completed";
    case JobStatus::Running: return "running";
    case JobStatus::NeverStarted: return "never_started";
    case JobStatus::Interrupted: return "interrupted";
  }
  return "?";
}

}  // namespace gcsim::analysis
