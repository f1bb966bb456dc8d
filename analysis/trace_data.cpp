// Reads a gcsim trace into TraceData through the generic TraceReader. Each table is read
// in one pass and its columns moved into the records, so the peak memory is the records
// plus one table's columns (about 300 MB for a million-job trace).
#include "analysis/trace_data.hpp"

#include <initializer_list>
#include <memory>
#include <span>
#include <string_view>
#include <utility>

#include "sim/errors.hpp"
#include "sim/trace/trace_reader.hpp"

namespace gcsim::analysis {

namespace {

namespace schema = trace::schema;
using trace::TraceReader;

// A column name of table T, checked against the trace schema when compiled: a reader can
// ask only for columns the writer has.
template <const schema::Table& T>
struct Name {
  consteval Name(const char* name) : text(schema::column(T, name)) {}  // NOLINT: implicit on purpose
  std::string_view text;
};

// One table's columns, read in a single pass (the trace is compressed by chunks of rows,
// and decompression, not conversion, is what reading costs), then moved field by field
// into the records.
template <const schema::Table& T>
class TableColumns {
 public:
  TableColumns(const TraceReader& r, std::string path, std::span<const Name<T>> names)
      : reader_(r), path_(std::move(path)), cols_(r.read_columns(std::string(T.name), strings(names))) {}
  TableColumns(const TraceReader& r, std::string path, std::initializer_list<Name<T>> names)
      : TableColumns(r, std::move(path), std::span<const Name<T>>(names.begin(), names.size())) {}

  // Each column is moved into the records once and then freed, so the peak is the records
  // plus the columns not yet consumed.
  template <typename Record>
  void f64(Name<T> column, std::vector<Record>& records, double Record::*field) {
    const std::string name(column.text);
    if (auto it = cols_.f64.find(name); it != cols_.f64.end()) {
      for (std::size_t i = 0; i < records.size(); ++i) records[i].*field = it->second[i];
      cols_.f64.erase(it);
    } else {
      const std::vector<std::int64_t>& v = ints(column, "a number");
      for (std::size_t i = 0; i < records.size(); ++i) records[i].*field = static_cast<double>(v[i]);
      cols_.ints.erase(name);
    }
  }

  template <typename Record, typename Int>
  void integer(Name<T> column, std::vector<Record>& records, Int Record::*field) {
    const std::vector<std::int64_t>& v = ints(column, "an integer");
    for (std::size_t i = 0; i < records.size(); ++i) records[i].*field = static_cast<Int>(v[i]);
    cols_.ints.erase(std::string(column.text));
  }

  // A string column, or a coded one (schema::Type::Code, from schema 5: an enum of names
  // whose value 0 is none, read as "").
  template <typename Record>
  void str(Name<T> column, std::vector<Record>& records, std::string Record::*field) {
    auto it = cols_.str.find(std::string(column.text));
    if (it == cols_.str.end()) {
      const std::vector<std::int64_t>& v = ints(column, "a string or coded names");
      std::vector<std::string> labels = reader_.enum_labels(std::string(T.name), std::string(column.text));
      if (!labels.empty()) labels[0].clear();
      for (std::size_t i = 0; i < records.size(); ++i) {
        if (v[i] < 0 || static_cast<std::size_t>(v[i]) >= labels.size())
          throw Error("trace '" + path_ + "': /" + std::string(T.name) + " row " + std::to_string(i) + " has code " +
                      std::to_string(v[i]) + " in column '" + std::string(column.text) + "', which names nothing");
        records[i].*field = labels[static_cast<std::size_t>(v[i])];
      }
      cols_.ints.erase(std::string(column.text));
      return;
    }
    for (std::size_t i = 0; i < records.size(); ++i) records[i].*field = std::move(it->second[i]);
    cols_.str.erase(it);  // free the emptied strings early
  }

  const std::vector<std::int64_t>& ints(Name<T> column, const char* wanted) const {
    auto it = cols_.ints.find(std::string(column.text));
    if (it == cols_.ints.end()) wrong_type(column, wanted);
    return it->second;
  }

  // An enum column as its labels ("" for a value without one).
  std::vector<std::string> labels(const TraceReader& r, Name<T> column) const {
    const std::vector<std::string> labels = r.enum_labels(std::string(T.name), std::string(column.text));
    const std::vector<std::int64_t>& v = ints(column, "an enum");
    std::vector<std::string> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      out[i] = v[i] >= 0 && static_cast<std::size_t>(v[i]) < labels.size() ? labels[static_cast<std::size_t>(v[i])] : "";
    return out;
  }

 private:
  static std::vector<std::string> strings(std::span<const Name<T>> names) {
    std::vector<std::string> out;
    for (const Name<T>& n : names) out.emplace_back(n.text);
    return out;
  }

  [[noreturn]] void wrong_type(Name<T> column, const char* wanted) const {
    throw Error("trace '" + path_ + "': column '" + std::string(column.text) + "' of table '/" + std::string(T.name) +
                "' is not " + wanted);
  }

  const TraceReader& reader_;
  std::string path_;
  trace::Columns cols_;
};

template <const schema::Table& T>
bool has_column(const TraceReader& r, Name<T> column) {
  return r.has_column(std::string(T.name), std::string(column.text));
}
bool has_table(const TraceReader& r, const schema::Table& table) { return r.has_table(std::string(table.name)); }
std::size_t rows(const TraceReader& r, const schema::Table& table) { return r.rows(std::string(table.name)); }

std::string optional_string(const TraceReader& r, const std::string& name) {
  return r.has_attribute(name) ? r.attribute_string(name) : std::string();
}

TraceAttributes read_attributes(const TraceReader& r, const std::string& path) {
  namespace at = schema::attribute;
  TraceAttributes a;
  if (!r.has_attribute(at::TRACE_SCHEMA)) {
    throw Error("trace '" + path + "': not a gcsim trace (no root attribute '" + at::TRACE_SCHEMA + "')");
  }
  a.trace_schema = r.attribute_int(at::TRACE_SCHEMA);
  if (a.trace_schema < 1 || a.trace_schema > TRACE_SCHEMA) {
    throw Error("trace '" + path + "': trace schema " + std::to_string(a.trace_schema) +
                " is not supported (this gcsim reads schema " + std::to_string(TRACE_SCHEMA) + ")");
  }
  a.gcsim_version = optional_string(r, at::GCSIM_VERSION);
  a.scenario_name = optional_string(r, at::SCENARIO_NAME);
  a.scenario_file = optional_string(r, at::SCENARIO_FILE);
  a.scenario_yaml = optional_string(r, at::SCENARIO_YAML);
  a.gpu_catalog_yaml = optional_string(r, at::GPU_CATALOG_YAML);
  a.seed = r.attribute_uint(at::SEED);
  a.replication = r.attribute_uint(at::REPLICATION);
  a.horizon_s = r.attribute_double(at::HORIZON_S);
  a.end_s = r.attribute_double(at::END_S);
  a.run_until = optional_string(r, at::RUN_UNTIL);
  a.scheduler = optional_string(r, at::SCHEDULER);
  a.scheduler_settings = optional_string(r, at::SCHEDULER_SETTINGS);
  a.wall_clock_s = r.has_attribute(at::WALL_CLOCK_S) ? r.attribute_double(at::WALL_CLOCK_S) : 0.0;
  return a;
}

std::vector<NodeRecord> read_nodes(const TraceReader& r, const std::string& path) {
  std::vector<NodeRecord> nodes(rows(r, schema::NODES));
  TableColumns<schema::NODES> c(r, path,
                                {"node_id", "node_type", "gpu", "gpus", "price_usd_per_hour", "up_s", "down_s", "cost_usd"});
  c.integer("node_id", nodes, &NodeRecord::node_id);
  c.str("node_type", nodes, &NodeRecord::node_type);
  c.str("gpu", nodes, &NodeRecord::gpu);
  c.integer("gpus", nodes, &NodeRecord::gpus);
  c.f64("price_usd_per_hour", nodes, &NodeRecord::price_usd_per_hour);
  c.f64("up_s", nodes, &NodeRecord::up_s);
  c.f64("down_s", nodes, &NodeRecord::down_s);
  c.f64("cost_usd", nodes, &NodeRecord::cost_usd);
  if (has_column<schema::NODES>(r, "market")) {
    TableColumns<schema::NODES> m(r, path, {"market", "up_time_s", "interruptions", "busy_gpu_s"});
    std::vector<std::string> market = m.labels(r, "market");
    for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i].market = std::move(market[i]);
    m.f64("up_time_s", nodes, &NodeRecord::up_time_s);
    m.integer("interruptions", nodes, &NodeRecord::interruptions);
    m.f64("busy_gpu_s", nodes, &NodeRecord::busy_gpu_s);
  } else {
    for (auto& n : nodes) n.up_time_s = n.down_s - n.up_s;
  }
  return nodes;
}

std::vector<ChargeRecord> read_ledger(const TraceReader& r, const std::string& path) {
  if (!has_table(r, schema::LEDGER)) return {};
  std::vector<ChargeRecord> charges(rows(r, schema::LEDGER));
  TableColumns<schema::LEDGER> c(r, path, {"time_s", "pool", "node", "job", "category", "usd", "busy"});
  c.f64("time_s", charges, &ChargeRecord::time_s);
  c.integer("pool", charges, &ChargeRecord::pool);
  c.integer("node", charges, &ChargeRecord::node);
  c.integer("job", charges, &ChargeRecord::job);
  c.f64("usd", charges, &ChargeRecord::usd);
  std::vector<std::string> cat = c.labels(r, "category");
  const std::vector<std::string> busy = c.labels(r, "busy");
  for (std::size_t i = 0; i < charges.size(); ++i) {
    charges[i].category = std::move(cat[i]);
    charges[i].busy = busy[i] == schema::LEDGER_BUSY[1];
  }
  return charges;
}

std::vector<PoolRecord> read_pools(const TraceReader& r, const std::string& path) {
  if (!has_table(r, schema::POOLS)) return {};
  std::vector<PoolRecord> pools(rows(r, schema::POOLS));
  TableColumns<schema::POOLS> c(r, path,
                                {"name", "market", "gpu", "gpus_per_node", "count", "on_demand_usd_per_hour",
                                 "fixed_usd_per_hour", "energy_idle_usd_per_hour", "energy_busy_usd_per_hour",
                                 "compare_to", "compare_usd_per_gpu_hour"});
  c.str("name", pools, &PoolRecord::name);
  c.str("gpu", pools, &PoolRecord::gpu);
  c.integer("gpus_per_node", pools, &PoolRecord::gpus_per_node);
  c.integer("count", pools, &PoolRecord::count);
  c.f64("on_demand_usd_per_hour", pools, &PoolRecord::on_demand_usd_per_hour);
  c.f64("fixed_usd_per_hour", pools, &PoolRecord::fixed_usd_per_hour);
  c.f64("energy_idle_usd_per_hour", pools, &PoolRecord::energy_idle_usd_per_hour);
  c.f64("energy_busy_usd_per_hour", pools, &PoolRecord::energy_busy_usd_per_hour);
  c.str("compare_to", pools, &PoolRecord::compare_to);
  c.f64("compare_usd_per_gpu_hour", pools, &PoolRecord::compare_usd_per_gpu_hour);
  std::vector<std::string> market = c.labels(r, "market");
  for (std::size_t i = 0; i < pools.size(); ++i) pools[i].market = std::move(market[i]);
  if (has_column<schema::POOLS>(r, "commitment_usd")) {  // added within schema 3; older traces: NaN
    TableColumns<schema::POOLS> terms(r, path, {"term_s", "commitment_usd"});
    terms.f64("term_s", pools, &PoolRecord::term_s);
    terms.f64("commitment_usd", pools, &PoolRecord::commitment_usd);
  }
  return pools;
}

std::vector<BudgetEventRecord> read_budget_events(const TraceReader& r, const std::string& path) {
  if (!has_table(r, schema::BUDGET_EVENTS)) return {};
  std::vector<BudgetEventRecord> events(rows(r, schema::BUDGET_EVENTS));
  TableColumns<schema::BUDGET_EVENTS> c(r, path, {"time_s", "team", "kind", "spent_usd", "limit_usd", "action"});
  c.f64("time_s", events, &BudgetEventRecord::time_s);
  c.str("team", events, &BudgetEventRecord::team);
  c.f64("spent_usd", events, &BudgetEventRecord::spent_usd);
  c.f64("limit_usd", events, &BudgetEventRecord::limit_usd);
  std::vector<std::string> kind = c.labels(r, "kind");
  std::vector<std::string> action = c.labels(r, "action");
  for (std::size_t i = 0; i < events.size(); ++i) {
    events[i].kind = std::move(kind[i]);
    events[i].action = std::move(action[i]);
  }
  return events;
}

std::vector<PreemptionRecord> read_preemptions(const TraceReader& r, const std::string& path) {
  if (!has_table(r, schema::PREEMPTIONS)) return {};
  std::vector<PreemptionRecord> out(rows(r, schema::PREEMPTIONS));
  TableColumns<schema::PREEMPTIONS> c(r, path, {"time_s", "job", "reason", "mode", "gpus", "save_s", "save_gpu_s",
                                                "restore_s", "restore_gpu_s", "saved_gpu_s", "lost_gpu_s"});
  c.f64("time_s", out, &PreemptionRecord::time_s);
  c.integer("job", out, &PreemptionRecord::job);
  c.integer("gpus", out, &PreemptionRecord::gpus);
  c.f64("save_s", out, &PreemptionRecord::save_s);
  c.f64("save_gpu_s", out, &PreemptionRecord::save_gpu_s);
  c.f64("restore_s", out, &PreemptionRecord::restore_s);
  c.f64("restore_gpu_s", out, &PreemptionRecord::restore_gpu_s);
  c.f64("saved_gpu_s", out, &PreemptionRecord::saved_gpu_s);
  c.f64("lost_gpu_s", out, &PreemptionRecord::lost_gpu_s);
  std::vector<std::string> reason = c.labels(r, "reason");
  std::vector<std::string> mode = c.labels(r, "mode");
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].reason = std::move(reason[i]);
    out[i].mode = std::move(mode[i]);
  }
  return out;
}

std::vector<NodeEventRecord> read_node_events(const TraceReader& r, const std::string& path) {
  std::vector<NodeEventRecord> out(rows(r, schema::NODE_EVENTS));
  TableColumns<schema::NODE_EVENTS> c(r, path, {"time_s", "node", "state", "reason", "billed"});
  c.f64("time_s", out, &NodeEventRecord::time_s);
  c.integer("node", out, &NodeEventRecord::node);
  std::vector<std::string> state = c.labels(r, "state");
  std::vector<std::string> reason = c.labels(r, "reason");
  const std::vector<std::string> billed = c.labels(r, "billed");
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].state = std::move(state[i]);
    out[i].reason = std::move(reason[i]);
    out[i].billed = billed[i] == schema::NO_YES[1];
  }
  return out;
}

std::vector<JobRecord> read_jobs(const TraceReader& r, const std::string& path) {
  using Jobs = TableColumns<schema::JOBS>;
  std::vector<JobRecord> jobs(rows(r, schema::JOBS));
  // One pass over the table for every column this trace has: reading a column decompresses
  // every chunk of the table, so separate passes would each pay for all of it.
  const bool has_model = has_column<schema::JOBS>(r, "samples");
  const bool has_breakdown = has_model && has_column<schema::JOBS>(r, "compute_s");  // added later in schema 1
  const bool has_resilience = has_column<schema::JOBS>(r, "interruptions");        // schema 2
  const bool has_shares = has_column<schema::JOBS>(r, "gpu_milli");                // schema 4
  std::vector<Name<schema::JOBS>> names{"job_id",     "name",  "submit_s", "start_s",  "end_s",  "gpus",
                                        "gpus_held",  "node_type", "first_node", "nodes", "cost_usd", "status"};
  if (has_model) names.insert(names.end(), {"samples", "samples_per_s", "step_time_s", "bottleneck"});
  if (has_breakdown) names.insert(names.end(), {"compute_s", "input_s", "comm_s", "comm_exposed_s", "memory_per_gpu_bytes"});
  if (has_resilience)
    names.insert(names.end(), {"team", "interruptions", "checkpoints", "gpu_s_held", "gpu_s_lost", "gpu_s_checkpoint",
                               "gpu_s_restart"});
  if (has_shares) names.push_back("gpu_milli");
  Jobs c(r, path, names);
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
  if (has_shares) c.integer("gpu_milli", jobs, &JobRecord::gpu_milli);
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
  const std::vector<std::string> labels = r.enum_labels(std::string(schema::JOBS.name), std::string(schema::column(schema::JOBS, "status")));
  std::vector<int> status_of_value(labels.size(), -1);
  for (std::size_t v = 0; v < labels.size(); ++v)
    for (std::size_t s = 0; s < schema::JOB_STATUSES.size(); ++s)
      if (labels[v] == schema::JOB_STATUSES[s]) status_of_value[v] = static_cast<int>(s);
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
    const double end_s = r.attribute_double(schema::attribute::END_S);
    for (auto& j : jobs)
      if (j.status == JobStatus::Completed || j.status == JobStatus::Running)
        j.resilience.gpu_s_held = ((j.status == JobStatus::Completed ? j.end_s : end_s) - j.start_s) * j.gpu_share_held();
  }
  return jobs;
}

std::vector<EventRecord> read_events(const TraceReader& r, const std::string& path,
                                     std::vector<std::string>& kind_labels) {
  std::vector<EventRecord> events(rows(r, schema::EVENTS));
  TableColumns<schema::EVENTS> c(r, path, {"time_s", "kind", "job", "node"});
  c.f64("time_s", events, &EventRecord::time_s);
  c.integer("job", events, &EventRecord::job);
  c.integer("node", events, &EventRecord::node);
  c.integer("kind", events, &EventRecord::kind);
  kind_labels = r.enum_labels(std::string(schema::EVENTS.name), std::string(schema::column(schema::EVENTS, "kind")));
  return events;
}

std::vector<UtilizationSample> read_utilization(const TraceReader& r, const std::string& path) {
  std::vector<UtilizationSample> samples(rows(r, schema::UTILIZATION));
  TableColumns<schema::UTILIZATION> c(r, path, {"time_s", "allocated_gpus", "total_gpus"});
  c.f64("time_s", samples, &UtilizationSample::time_s);
  c.f64("allocated_gpus", samples, &UtilizationSample::allocated_gpus);
  c.integer("total_gpus", samples, &UtilizationSample::total_gpus);
  return samples;
}

}  // namespace

namespace {

TraceData read_trace_from(const TraceReader* reader, const std::string& path, TraceParts parts = {}) {
  TraceData data;
  data.attrs = read_attributes(*reader, path);
  data.nodes = read_nodes(*reader, path);
  data.jobs = read_jobs(*reader, path);
  // A trace written with output.events: false has no /events (TraceData::has_events).
  data.has_events = has_table(*reader, schema::EVENTS);
  if (parts.events && data.has_events) data.events = read_events(*reader, path, data.event_kind_labels);
  data.utilization = read_utilization(*reader, path);
  data.ledger = read_ledger(*reader, path);
  data.pools = read_pools(*reader, path);
  data.budget_events = read_budget_events(*reader, path);
  data.preemptions = read_preemptions(*reader, path);
  data.has_node_events = has_table(*reader, schema::NODE_EVENTS);
  if (data.has_node_events) data.node_events = read_node_events(*reader, path);
  return data;
}

}  // namespace

TraceData read_trace(const std::string& path, TraceParts parts) {
  return read_trace_from(TraceReader::open(path).get(), path, parts);
}

TraceData read_trace(const TraceReader& reader, const std::string& label, TraceParts parts) {
  return read_trace_from(&reader, label, parts);
}

bool read_by_read_trace(std::string_view table, TraceParts parts) {
  for (const schema::Table* t : {&schema::NODES, &schema::JOBS, &schema::UTILIZATION, &schema::LEDGER, &schema::POOLS,
                                 &schema::BUDGET_EVENTS, &schema::PREEMPTIONS, &schema::NODE_EVENTS})
    if (table == t->name) return true;
  return parts.events && table == schema::EVENTS.name;
}

std::vector<config::SourceRecord> read_inputs(const TraceReader& r, const std::string& path) {
  if (!has_table(r, schema::INPUTS))
    throw Error("'" + path +
                "' has no /inputs table (it was written before traces embedded their inputs), so it cannot be "
                "rerun; run its scenario again with gcsim run");
  std::vector<config::SourceRecord> records(rows(r, schema::INPUTS));
  TableColumns<schema::INPUTS> c(r, path, {"key", "written", "resolved", "digest", "size_bytes", "offset"});
  c.str("key", records, &config::SourceRecord::key);
  c.str("written", records, &config::SourceRecord::written);
  c.str("resolved", records, &config::SourceRecord::resolved);
  c.str("digest", records, &config::SourceRecord::digest);
  const std::vector<std::int64_t>& sizes = c.ints("size_bytes", "an integer");
  const std::vector<std::int64_t>& offsets = c.ints("offset", "an integer");
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (sizes[i] < 0 || offsets[i] < 0) {
      throw Error("trace '" + path + "': /inputs row " + std::to_string(i) + " has a negative offset or size (a damaged file)");
    }
    records[i].bytes = std::make_shared<const std::string>(r.bytes(
        schema::INPUT_BYTES, static_cast<std::uint64_t>(offsets[i]), static_cast<std::uint64_t>(sizes[i])));
  }
  return records;
}

const std::string& event_kind_label(const TraceData& trace, const EventRecord& event) {
  static const std::string unknown;
  return event.kind < trace.event_kind_labels.size() ? trace.event_kind_labels[event.kind] : unknown;
}

const char* job_status_name(JobStatus status) {
  const auto i = static_cast<std::size_t>(status);
  return i < schema::JOB_STATUSES.size() ? schema::JOB_STATUSES[i].data() : "?";  // labels are literals
}

}  // namespace gcsim::analysis
