// Reads a gcsim trace into TraceData through the generic TraceReader. Each table is read
// in one pass, a block of rows at a time moved into the records, so the peak memory is
// the records plus a block.
#include "analysis/trace_data.hpp"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include "sim/allocator.hpp"
#include "sim/errors.hpp"
#include "sim/parallel.hpp"
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

// A field of a record, one member inside another: nested<&JobRecord::model, &ModelRecord::samples>.
template <auto Outer, auto Inner>
constexpr auto nested = [](auto& record) -> auto& { return (record.*Outer).*Inner; };

// One table's columns bound to the fields of its records (a member pointer, or a
// projection Record& -> field&), then read in a single pass (the trace is compressed by
// chunks of rows, and decompression is what reading costs) a block of rows at a time
// (TraceReader::read_blocks): each block goes into its records while it is in the cache,
// and no whole column is held beside the records.
template <const schema::Table& T, typename Record>
class TableRows {
 public:
  TableRows(const TraceReader& r, std::string path, std::vector<Record>& records)
      : reader_(r), path_(std::move(path)), records_(records) {}
  // Rows a block at a time, folded and dropped (read_folded): `block` holds one block's
  // records, reused from block to block; `rows` is the table's.
  struct Window {};
  TableRows(const TraceReader& r, std::string path, std::vector<Record>& block, std::size_t rows, Window)
      : reader_(r), path_(std::move(path)), records_(block), window_(true), table_rows_(rows) {}

  // A number column (an integer one is widened).
  template <typename Field>
  void f64(Name<T> column, Field field) {
    bind(column, [this, column, field](std::size_t first, trace::Columns& block) {
      if (auto it = block.f64.find(std::string(column.text)); it != block.f64.end()) {
        const std::vector<double>& v = it->second;
        Record* rec = at(first, v.size());
        for (std::size_t i = 0; i < v.size(); ++i) std::invoke(field, rec[i]) = v[i];
      } else {
        const std::vector<std::int64_t>& v = ints(block, column, "a number");
        Record* rec = at(first, v.size());
        for (std::size_t i = 0; i < v.size(); ++i) std::invoke(field, rec[i]) = static_cast<double>(v[i]);
      }
    });
  }

  template <typename Field>
  void integer(Name<T> column, Field field) {
    using Int = std::remove_reference_t<std::invoke_result_t<Field, Record&>>;
    each_int(column, "an integer", [field](Record& r, std::int64_t v, std::size_t) { std::invoke(field, r) = static_cast<Int>(v); });
  }

  // An integer or enum column, cell by cell: fn(record, value, row).
  template <typename Fn>
  void each_int(Name<T> column, const char* wanted, Fn fn) {
    bind(column, [this, column, wanted, fn](std::size_t first, trace::Columns& block) {
      const std::vector<std::int64_t>& v = ints(block, column, wanted);
      Record* rec = at(first, v.size());
      for (std::size_t i = 0; i < v.size(); ++i) fn(rec[i], v[i], first + i);
    });
  }

  // A string column, or a coded one (schema::Type::Code, from schema 5: an enum of names
  // whose value 0 is none, read as "").
  template <typename Field>
  void str(Name<T> column, Field field) {
    bind(column, [this, column, field, labels = std::optional<std::vector<std::string>>()](
                     std::size_t first, trace::Columns& block) mutable {
      if (auto it = block.str.find(std::string(column.text)); it != block.str.end()) {
        std::vector<std::string>& v = it->second;
        Record* rec = at(first, v.size());
        for (std::size_t i = 0; i < v.size(); ++i) std::invoke(field, rec[i]) = std::move(v[i]);
        return;
      }
      const std::vector<std::int64_t>& v = ints(block, column, "a string or coded names");
      if (!labels) {
        labels = reader_.enum_labels(std::string(T.name), std::string(column.text));
        if (!labels->empty()) (*labels)[0].clear();
      }
      Record* rec = at(first, v.size());
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] < 0 || static_cast<std::size_t>(v[i]) >= labels->size())
          throw Error("trace '" + path_ + "': /" + std::string(T.name) + " row " + std::to_string(first + i) +
                      " has code " + std::to_string(v[i]) + " in column '" + std::string(column.text) +
                      "', which names nothing");
        std::invoke(field, rec[i]) = (*labels)[static_cast<std::size_t>(v[i])];
      }
    });
  }

  // An enum column as its labels ("" for a value without one): fn(record, label).
  template <typename Fn>
  void each_label(Name<T> column, Fn fn) {
    std::vector<std::string> labels = reader_.enum_labels(std::string(T.name), std::string(column.text));
    labels.emplace_back();  // the label of every value without one
    each_int(column, "an enum", [fn, labels = std::move(labels)](Record& r, std::int64_t v, std::size_t) {
      const std::size_t none = labels.size() - 1;
      fn(r, labels[v >= 0 && static_cast<std::size_t>(v) < none ? static_cast<std::size_t>(v) : none]);
    });
  }
  template <typename Field>
  void label(Name<T> column, Field field) {
    each_label(column, [field](Record& r, const std::string& label) { std::invoke(field, r) = label; });
  }

  // Reads every bound column in one pass over the table, a block at a time: fold(records)
  // with each block's records, in row order, then the next block into the same records.
  template <typename Fold>
  void read_folded(Fold fold) {
    std::vector<std::string> names;
    for (const Binding& b : bindings_) names.push_back(b.column);
    if (table_rows_ == 0) {
      trace::Columns none = reader_.read_columns(std::string(T.name), names);
      for (Binding& b : bindings_) b.fill(0, none);
      return;
    }
    std::size_t seen = 0;
    reader_.read_blocks(std::string(T.name), names, [&](std::size_t first, trace::Columns& block) {
      block_first_ = NO_BLOCK;
      for (Binding& b : bindings_) b.fill(first, block);
      if (block_first_ == NO_BLOCK) return;  // no column bound
      fold(std::span<const Record>(records_.data(), block_rows_));
      seen += block_rows_;
    });
    if (seen != table_rows_)
      throw Error("trace '" + path_ + "': table '/" + std::string(T.name) + "' has " + std::to_string(seen) +
                  " rows in its blocks, not the " + std::to_string(table_rows_) + " it declares");
  }

  // Reads every bound column in one pass over the table.
  void read() {
    std::vector<std::string> names;
    for (const Binding& b : bindings_) names.push_back(b.column);
    if (records_.empty()) {
      // Still looked up: a missing column, or one of another kind, is an error here too.
      trace::Columns none = reader_.read_columns(std::string(T.name), names);
      for (Binding& b : bindings_) b.fill(0, none);
      return;
    }
    reader_.read_blocks(std::string(T.name), names, [this](std::size_t first, trace::Columns& block) {
      for (Binding& b : bindings_) b.fill(first, block);
    });
  }

 private:
  struct Binding {
    std::string column;
    std::function<void(std::size_t first, trace::Columns& block)> fill;
  };

  template <typename Fill>
  void bind(Name<T> column, Fill fill) {
    bindings_.push_back({std::string(column.text), std::move(fill)});
  }

  // The records of rows [first, first + n): a block past the table's rows is a damaged file.
  Record* at(std::size_t first, std::size_t n) {
    if (window_) {
      // Every column of a block gives the same rows, inside the table.
      if (block_first_ == NO_BLOCK) {
        if (first > table_rows_ || n > table_rows_ - first)
          throw Error("trace '" + path_ + "': table '/" + std::string(T.name) + "' has more rows than it declares");
        block_first_ = first;
        block_rows_ = n;
        if (records_.size() < n) records_.resize(n);
      } else if (first != block_first_ || n != block_rows_) {
        throw Error("trace '" + path_ + "': table '/" + std::string(T.name) + "' has columns of different lengths");
      }
      return records_.data();
    }
    if (first > records_.size() || n > records_.size() - first)
      throw Error("trace '" + path_ + "': table '/" + std::string(T.name) + "' has more rows than it declares");
    return records_.data() + first;
  }

  const std::vector<std::int64_t>& ints(const trace::Columns& block, Name<T> column, const char* wanted) const {
    auto it = block.ints.find(std::string(column.text));
    if (it == block.ints.end())
      throw Error("trace '" + path_ + "': column '" + std::string(column.text) + "' of table '/" + std::string(T.name) +
                  "' is not " + wanted);
    return it->second;
  }

  static constexpr std::size_t NO_BLOCK = static_cast<std::size_t>(-1);
  const TraceReader& reader_;
  std::string path_;
  std::vector<Record>& records_;
  std::vector<Binding> bindings_;
  bool window_ = false;
  std::size_t table_rows_ = 0;
  std::size_t block_first_ = NO_BLOCK;  // the block being read (window)
  std::size_t block_rows_ = 0;
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
  a.alert_rules_yaml = optional_string(r, at::ALERT_RULES);
  a.gpu_catalog_yaml = optional_string(r, at::GPU_CATALOG_YAML);
  a.seed = r.attribute_uint(at::SEED);
  a.replication = r.attribute_uint(at::REPLICATION);
  a.horizon_s = r.attribute_double(at::HORIZON_S);
  a.end_s = r.attribute_double(at::END_S);
  a.jobs_after_horizon = r.has_attribute(at::JOBS_AFTER_HORIZON) ? r.attribute_int(at::JOBS_AFTER_HORIZON) : 0;
  if (a.jobs_after_horizon < 0)
    throw Error("trace '" + path + "': root attribute " + at::JOBS_AFTER_HORIZON + " is negative");
  a.run_until = optional_string(r, at::RUN_UNTIL);
  a.scheduler = optional_string(r, at::SCHEDULER);
  a.scheduler_settings = optional_string(r, at::SCHEDULER_SETTINGS);
  a.wall_clock_s = r.has_attribute(at::WALL_CLOCK_S) ? r.attribute_double(at::WALL_CLOCK_S) : 0.0;
  return a;
}

std::vector<NodeRecord> read_nodes(const TraceReader& r, const std::string& path) {
  std::vector<NodeRecord> nodes(rows(r, schema::NODES));
  TableRows<schema::NODES, NodeRecord> c(r, path, nodes);
  c.integer("node_id", &NodeRecord::node_id);
  c.str("node_type", &NodeRecord::node_type);
  c.str("gpu", &NodeRecord::gpu);
  c.integer("gpus", &NodeRecord::gpus);
  c.f64("price_usd_per_hour", &NodeRecord::price_usd_per_hour);
  c.f64("up_s", &NodeRecord::up_s);
  c.f64("down_s", &NodeRecord::down_s);
  c.f64("cost_usd", &NodeRecord::cost_usd);
  const bool has_market = has_column<schema::NODES>(r, "market");
  if (has_market) {
    c.label("market", &NodeRecord::market);
    c.f64("up_time_s", &NodeRecord::up_time_s);
    c.integer("interruptions", &NodeRecord::interruptions);
    c.f64("busy_gpu_s", &NodeRecord::busy_gpu_s);
  }
  c.read();
  if (!has_market)
    for (auto& n : nodes) n.up_time_s = n.down_s - n.up_s;
  return nodes;
}

// /ledger's busy column read into `field` of its records: by value, matched by label once
// (not once a row: the ledger has millions).
template <typename Record>
void bind_ledger_busy(TableRows<schema::LEDGER, Record>& c, const TraceReader& r, bool Record::*field) {
  std::vector<bool> busy_of_value;
  for (const std::string& label : r.enum_labels(std::string(schema::LEDGER.name), std::string(schema::column(schema::LEDGER, "busy"))))
    busy_of_value.push_back(label == schema::LEDGER_BUSY[1]);
  c.each_int("busy", "an enum", [busy_of_value, field](Record& record, std::int64_t v, std::size_t) {
    record.*field = v >= 0 && static_cast<std::size_t>(v) < busy_of_value.size() && busy_of_value[static_cast<std::size_t>(v)];
  });
}

// The columns of /ledger its sums need (LedgerTotals::add): usd, category and busy.
void bind_ledger_sums(TableRows<schema::LEDGER, ChargeRecord>& c, const TraceReader& r) {
  c.f64("usd", &ChargeRecord::usd);
  c.label("category", &ChargeRecord::category);
  bind_ledger_busy(c, r, &ChargeRecord::busy);
}

std::vector<ChargeRecord> read_ledger(const TraceReader& r, const std::string& path, TraceParts parts) {
  if (!has_table(r, schema::LEDGER)) return {};
  std::vector<ChargeRecord> charges(rows(r, schema::LEDGER));
  TableRows<schema::LEDGER, ChargeRecord> c(r, path, charges);
  if (parts.details) {
    c.f64("time_s", &ChargeRecord::time_s);
    c.integer("pool", &ChargeRecord::pool);
    c.integer("node", &ChargeRecord::node);
    c.integer("job", &ChargeRecord::job);
  }
  bind_ledger_sums(c, r);
  c.read();
  return charges;
}

// /ledger folded into its sums, a block of rows at a time (no row kept): the columns
// read_ledger reads without details, added in row order as ledger_totals adds the rows.
LedgerTotals fold_ledger(const TraceReader& r, const std::string& path) {
  // A charge as its sums need it: the category by its enum value, found among the totals'
  // categories once per value (at its first row, so in the order of first appearance, as
  // add() finds it by name), not compared and copied by name for each of millions of rows.
  struct Charge {
    double usd = 0;
    std::int64_t category = 0;
    bool busy = false;
  };
  LedgerTotals totals;
  std::vector<Charge> block;
  TableRows<schema::LEDGER, Charge> c(r, path, block, rows(r, schema::LEDGER), {});
  c.f64("usd", &Charge::usd);
  c.each_int("category", "an enum", [](Charge& x, std::int64_t v, std::size_t) { x.category = v; });
  bind_ledger_busy(c, r, &Charge::busy);
  // The label of each value as TableRows::label gives it: "" for a value without one.
  const std::vector<std::string> labels =
      r.enum_labels(std::string(schema::LEDGER.name), std::string(schema::column(schema::LEDGER, "category")));
  std::vector<std::ptrdiff_t> index_of_value(labels.size() + 1, -1);  // the last: every value without a label
  c.read_folded([&](std::span<const Charge> charges) {
    for (const Charge& x : charges) {
      const std::size_t v = x.category >= 0 && static_cast<std::size_t>(x.category) < labels.size()
                                ? static_cast<std::size_t>(x.category)
                                : labels.size();
      std::ptrdiff_t& k = index_of_value[v];
      if (k < 0) k = static_cast<std::ptrdiff_t>(totals.category_index(v < labels.size() ? labels[v] : std::string_view()));
      totals.add_at(static_cast<std::size_t>(k), x.usd, x.busy);
    }
  });
  return totals;
}

std::vector<PoolRecord> read_pools(const TraceReader& r, const std::string& path) {
  if (!has_table(r, schema::POOLS)) return {};
  std::vector<PoolRecord> pools(rows(r, schema::POOLS));
  TableRows<schema::POOLS, PoolRecord> c(r, path, pools);
  c.str("name", &PoolRecord::name);
  c.str("gpu", &PoolRecord::gpu);
  c.integer("gpus_per_node", &PoolRecord::gpus_per_node);
  c.integer("count", &PoolRecord::count);
  c.f64("on_demand_usd_per_hour", &PoolRecord::on_demand_usd_per_hour);
  c.f64("fixed_usd_per_hour", &PoolRecord::fixed_usd_per_hour);
  c.f64("energy_idle_usd_per_hour", &PoolRecord::energy_idle_usd_per_hour);
  c.f64("energy_busy_usd_per_hour", &PoolRecord::energy_busy_usd_per_hour);
  c.str("compare_to", &PoolRecord::compare_to);
  c.f64("compare_usd_per_gpu_hour", &PoolRecord::compare_usd_per_gpu_hour);
  c.label("market", &PoolRecord::market);
  if (has_column<schema::POOLS>(r, "commitment_usd")) {  // added within schema 3; older traces: NaN
    c.f64("term_s", &PoolRecord::term_s);
    c.f64("commitment_usd", &PoolRecord::commitment_usd);
  }
  c.read();
  return pools;
}

std::vector<BudgetEventRecord> read_budget_events(const TraceReader& r, const std::string& path) {
  if (!has_table(r, schema::BUDGET_EVENTS)) return {};
  std::vector<BudgetEventRecord> events(rows(r, schema::BUDGET_EVENTS));
  TableRows<schema::BUDGET_EVENTS, BudgetEventRecord> c(r, path, events);
  c.f64("time_s", &BudgetEventRecord::time_s);
  c.str("team", &BudgetEventRecord::team);
  c.f64("spent_usd", &BudgetEventRecord::spent_usd);
  c.f64("limit_usd", &BudgetEventRecord::limit_usd);
  c.label("kind", &BudgetEventRecord::kind);
  c.label("action", &BudgetEventRecord::action);
  c.read();
  return events;
}

// The columns of /preemptions its sums need (PreemptionTotals::add).
void bind_preemption_sums(TableRows<schema::PREEMPTIONS, PreemptionRecord>& c) {
  c.integer("job", &PreemptionRecord::job);
  c.f64("save_gpu_s", &PreemptionRecord::save_gpu_s);
  c.f64("restore_gpu_s", &PreemptionRecord::restore_gpu_s);
  c.f64("lost_gpu_s", &PreemptionRecord::lost_gpu_s);
}

std::vector<PreemptionRecord> read_preemptions(const TraceReader& r, const std::string& path, TraceParts parts) {
  if (!has_table(r, schema::PREEMPTIONS)) return {};
  std::vector<PreemptionRecord> out(rows(r, schema::PREEMPTIONS));
  TableRows<schema::PREEMPTIONS, PreemptionRecord> c(r, path, out);
  bind_preemption_sums(c);
  if (parts.details) {
    c.f64("time_s", &PreemptionRecord::time_s);
    c.integer("gpus", &PreemptionRecord::gpus);
    c.f64("save_s", &PreemptionRecord::save_s);
    c.f64("restore_s", &PreemptionRecord::restore_s);
    c.f64("saved_gpu_s", &PreemptionRecord::saved_gpu_s);
    c.label("reason", &PreemptionRecord::reason);
    c.label("mode", &PreemptionRecord::mode);
  }
  c.read();
  return out;
}

// /preemptions folded into its sums (as fold_ledger).
PreemptionTotals fold_preemptions(const TraceReader& r, const std::string& path) {
  PreemptionTotals totals;
  std::vector<PreemptionRecord> block;
  TableRows<schema::PREEMPTIONS, PreemptionRecord> c(r, path, block, rows(r, schema::PREEMPTIONS), {});
  bind_preemption_sums(c);
  c.read_folded([&totals](std::span<const PreemptionRecord> rows) {
    for (const PreemptionRecord& p : rows) totals.add(p.job, p.save_gpu_s, p.restore_gpu_s, p.lost_gpu_s);
  });
  return totals;
}

std::vector<NodeEventRecord> read_node_events(const TraceReader& r, const std::string& path) {
  std::vector<NodeEventRecord> out(rows(r, schema::NODE_EVENTS));
  TableRows<schema::NODE_EVENTS, NodeEventRecord> c(r, path, out);
  c.f64("time_s", &NodeEventRecord::time_s);
  c.integer("node", &NodeEventRecord::node);
  c.label("state", &NodeEventRecord::state);
  c.label("reason", &NodeEventRecord::reason);
  c.each_label("billed", [](NodeEventRecord& e, const std::string& label) { e.billed = label == schema::NO_YES[1]; });
  c.read();
  return out;
}

// prefault: the records' pages (a million records are about 300 MB) are faulted in on
// another core (sim::PrefaultPages) while this thread constructs them from the front, not
// one by one here (docs/engine.md, "Pages faulted in ahead of a run").
std::vector<JobRecord> read_jobs(const TraceReader& r, const std::string& path, TraceParts parts, bool prefault) {
  const std::size_t n = rows(r, schema::JOBS);
  std::vector<JobRecord> jobs;
  jobs.reserve(n);
  {
    const sim::PrefaultPages pages(jobs.data(), prefault ? n * sizeof(JobRecord) : 0);  // 0 bytes: nothing done
    jobs.resize(n);
  }
  // One pass over the table for every column this trace has: reading a column decompresses
  // every chunk of the table, so separate passes would each pay for all of it.
  const bool has_model = has_column<schema::JOBS>(r, "samples");
  const bool has_breakdown = has_model && has_column<schema::JOBS>(r, "compute_s");  // added later in schema 1
  const bool has_resilience = has_column<schema::JOBS>(r, "interruptions");        // schema 2
  const bool has_shares = has_column<schema::JOBS>(r, "gpu_milli");                // schema 4
  TableRows<schema::JOBS, JobRecord> c(r, path, jobs);
  c.integer("job_id", &JobRecord::job_id);
  c.f64("submit_s", &JobRecord::submit_s);
  c.f64("start_s", &JobRecord::start_s);
  c.f64("end_s", &JobRecord::end_s);
  c.integer("gpus_held", &JobRecord::gpus_held);
  c.f64("cost_usd", &JobRecord::cost_usd);
  if (parts.details) {
    c.str("name", &JobRecord::name);
    c.integer("gpus", &JobRecord::gpus);
    c.str("node_type", &JobRecord::node_type);
    c.integer("first_node", &JobRecord::first_node);
    c.integer("nodes", &JobRecord::nodes);
  }
  if (has_shares) c.integer("gpu_milli", &JobRecord::gpu_milli);
  if (has_model) {
    c.f64("samples", nested<&JobRecord::model, &ModelRecord::samples>);
    c.f64("samples_per_s", nested<&JobRecord::model, &ModelRecord::samples_per_s>);
    c.f64("step_time_s", nested<&JobRecord::model, &ModelRecord::step_time_s>);
    c.str("bottleneck", nested<&JobRecord::model, &ModelRecord::bottleneck>);
    if (has_breakdown) {
      c.f64("compute_s", nested<&JobRecord::model, &ModelRecord::compute_s>);
      c.f64("input_s", nested<&JobRecord::model, &ModelRecord::input_s>);
      c.f64("comm_s", nested<&JobRecord::model, &ModelRecord::comm_s>);
      c.f64("comm_exposed_s", nested<&JobRecord::model, &ModelRecord::comm_exposed_s>);
      c.f64("memory_per_gpu_bytes", nested<&JobRecord::model, &ModelRecord::memory_per_gpu_bytes>);
    }
  }
  if (has_resilience) {
    c.str("team", nested<&JobRecord::resilience, &ResilienceRecord::team>);
    c.integer("interruptions", nested<&JobRecord::resilience, &ResilienceRecord::interruptions>);
    c.integer("checkpoints", nested<&JobRecord::resilience, &ResilienceRecord::checkpoints>);
    c.f64("gpu_s_held", nested<&JobRecord::resilience, &ResilienceRecord::gpu_s_held>);
    c.f64("gpu_s_lost", nested<&JobRecord::resilience, &ResilienceRecord::gpu_s_lost>);
    c.f64("gpu_s_checkpoint", nested<&JobRecord::resilience, &ResilienceRecord::gpu_s_checkpoint>);
    c.f64("gpu_s_restart", nested<&JobRecord::resilience, &ResilienceRecord::gpu_s_restart>);
  }

  // Statuses are matched by label, not by value, so a reordered enum still reads right.
  const std::vector<std::string> labels = r.enum_labels(std::string(schema::JOBS.name), std::string(schema::column(schema::JOBS, "status")));
  std::vector<int> status_of_value(labels.size(), -1);
  for (std::size_t v = 0; v < labels.size(); ++v)
    for (std::size_t s = 0; s < schema::JOB_STATUSES.size(); ++s)
      if (labels[v] == schema::JOB_STATUSES[s]) status_of_value[v] = static_cast<int>(s);
  // After job_id: a bad status names its job.
  c.each_int("status", "an enum", [&](JobRecord& job, std::int64_t v, std::size_t) {
    if (v < 0 || static_cast<std::size_t>(v) >= labels.size() || status_of_value[static_cast<std::size_t>(v)] < 0) {
      const std::string label = v >= 0 && static_cast<std::size_t>(v) < labels.size() ? labels[static_cast<std::size_t>(v)] : "";
      throw Error("trace '" + path + "': job " + std::to_string(job.job_id) + " has unknown status " +
                  std::to_string(v) + (label.empty() ? "" : " ('" + label + "')"));
    }
    job.status = static_cast<JobStatus>(status_of_value[static_cast<std::size_t>(v)]);
  });
  c.read();
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
  TableRows<schema::EVENTS, EventRecord> c(r, path, events);
  c.f64("time_s", &EventRecord::time_s);
  c.integer("job", &EventRecord::job);
  c.integer("node", &EventRecord::node);
  c.integer("kind", &EventRecord::kind);
  c.read();
  kind_labels = r.enum_labels(std::string(schema::EVENTS.name), std::string(schema::column(schema::EVENTS, "kind")));
  return events;
}

std::vector<UtilizationSample> read_utilization(const TraceReader& r, const std::string& path) {
  std::vector<UtilizationSample> samples(rows(r, schema::UTILIZATION));
  TableRows<schema::UTILIZATION, UtilizationSample> c(r, path, samples);
  c.f64("time_s", &UtilizationSample::time_s);
  c.f64("allocated_gpus", &UtilizationSample::allocated_gpus);
  c.integer("total_gpus", &UtilizationSample::total_gpus);
  c.read();
  return samples;
}

// /utilization folded into its integrals a block of rows at a time (no row kept), each
// step clipped at the trace's end as integrate_utilization clips it.
UtilizationFold fold_utilization(const TraceReader& r, const std::string& path, double end_s) {
  UtilizationFold fold(end_s);
  std::vector<UtilizationSample> block;
  TableRows<schema::UTILIZATION, UtilizationSample> c(r, path, block, rows(r, schema::UTILIZATION), {});
  c.f64("time_s", &UtilizationSample::time_s);
  c.f64("allocated_gpus", &UtilizationSample::allocated_gpus);
  c.integer("total_gpus", &UtilizationSample::total_gpus);
  c.read_folded([&fold](std::span<const UtilizationSample> samples) {
    for (const UtilizationSample& x : samples) fold.add(x.time_s, x.allocated_gpus, x.total_gpus);
  });
  return fold;
}

std::vector<ServiceRecord> read_services(const TraceReader& r, const std::string& path) {
  std::vector<ServiceRecord> out(rows(r, schema::SERVICES));
  TableRows<schema::SERVICES, ServiceRecord> c(r, path, out);
  c.integer("service", &ServiceRecord::service);
  c.str("name", &ServiceRecord::name);
  c.str("team", &ServiceRecord::team);
  c.str("model", &ServiceRecord::model);
  c.integer("arrived", &ServiceRecord::arrived);
  c.integer("completed", &ServiceRecord::completed);
  c.integer("unfinished", &ServiceRecord::unfinished);
  c.f64("e2e_mean_s", &ServiceRecord::e2e_mean_s);
  c.f64("e2e_p50_s", &ServiceRecord::e2e_p50_s);
  c.f64("e2e_p95_s", &ServiceRecord::e2e_p95_s);
  c.f64("e2e_p99_s", &ServiceRecord::e2e_p99_s);
  c.f64("wait_mean_s", &ServiceRecord::wait_mean_s);
  c.f64("ttft_p50_s", &ServiceRecord::ttft_p50_s);
  c.f64("ttft_p95_s", &ServiceRecord::ttft_p95_s);
  c.f64("ttft_p99_s", &ServiceRecord::ttft_p99_s);
  c.f64("tpot_p50_s", &ServiceRecord::tpot_p50_s);
  c.f64("tpot_p95_s", &ServiceRecord::tpot_p95_s);
  c.f64("tpot_p99_s", &ServiceRecord::tpot_p99_s);
  c.f64("slo_p99_s", &ServiceRecord::slo_p99_s);
  c.f64("slo_ttft_p99_s", &ServiceRecord::slo_ttft_p99_s);
  c.f64("slo_tpot_p99_s", &ServiceRecord::slo_tpot_p99_s);
  c.f64("slo_attained", &ServiceRecord::slo_attained);
  c.integer("prompt_tokens", &ServiceRecord::prompt_tokens);
  c.integer("output_tokens", &ServiceRecord::output_tokens);
  c.f64("replica_gpu_s", &ServiceRecord::replica_gpu_s);
  c.f64("cost_usd", &ServiceRecord::cost_usd);
  c.integer("replicas_max", &ServiceRecord::replicas_max);
  c.integer("sample_every", &ServiceRecord::sample_every);
  c.integer("request_rows", &ServiceRecord::request_rows);
  c.integer("refused", &ServiceRecord::refused);
  c.integer("cold_starts", &ServiceRecord::cold_starts);
  c.f64("cold_start_s", &ServiceRecord::cold_start_s);
  c.read();
  return out;
}

std::vector<ServiceSampleRecord> read_service_series(const TraceReader& r, const std::string& path) {
  std::vector<ServiceSampleRecord> out(rows(r, schema::SERVICE_SERIES));
  TableRows<schema::SERVICE_SERIES, ServiceSampleRecord> c(r, path, out);
  c.integer("service", &ServiceSampleRecord::service);
  c.f64("t_s", &ServiceSampleRecord::t_s);
  c.f64("interval_s", &ServiceSampleRecord::interval_s);
  c.integer("arrived", &ServiceSampleRecord::arrived);
  c.integer("completed", &ServiceSampleRecord::completed);
  c.f64("e2e_p50_s", &ServiceSampleRecord::e2e_p50_s);
  c.f64("e2e_p99_s", &ServiceSampleRecord::e2e_p99_s);
  c.f64("ttft_p99_s", &ServiceSampleRecord::ttft_p99_s);
  c.f64("tpot_p99_s", &ServiceSampleRecord::tpot_p99_s);
  c.f64("slo_attained", &ServiceSampleRecord::slo_attained);
  c.integer("queue_length", &ServiceSampleRecord::queue_length);
  c.integer("replicas_up", &ServiceSampleRecord::replicas_up);
  c.integer("replicas_wanted", &ServiceSampleRecord::replicas_wanted);
  c.f64("busy_fraction", &ServiceSampleRecord::busy_fraction);
  c.read();
  return out;
}

std::vector<ServiceRequestRecord> read_service_requests(const TraceReader& r, const std::string& path) {
  std::vector<ServiceRequestRecord> out(rows(r, schema::SERVICE_REQUESTS));
  TableRows<schema::SERVICE_REQUESTS, ServiceRequestRecord> c(r, path, out);
  c.integer("service", &ServiceRequestRecord::service);
  c.integer("replica", &ServiceRequestRecord::replica);
  c.integer("request", &ServiceRequestRecord::request);
  c.f64("arrival_s", &ServiceRequestRecord::arrival_s);
  c.f64("start_s", &ServiceRequestRecord::start_s);
  c.f64("first_token_s", &ServiceRequestRecord::first_token_s);
  c.f64("end_s", &ServiceRequestRecord::end_s);
  c.integer("prompt_tokens", &ServiceRequestRecord::prompt_tokens);
  c.integer("output_tokens", &ServiceRequestRecord::output_tokens);
  c.read();
  return out;
}

}  // namespace

TraceAttributes read_trace_attributes(const TraceReader& reader, const std::string& path) {
  return read_attributes(reader, path);
}

namespace {

TraceData read_trace_from(const TraceReader* reader, const std::string& path, TraceParts parts = {}) {
  TraceData data;
  data.attrs = read_attributes(*reader, path);
  // The tables of costs and allocation: millions of rows under a preempting policy (a
  // million-job las trace: 6.1 M charges, 3.2 M preemptions), read beside /jobs and the
  // rest, on two threads where the reader allows. Each part writes its own members of
  // `data`.
  const auto read_costs = [&] {
    if (parts.utilization) data.utilization = read_utilization(*reader, path);
    else if (has_table(*reader, schema::UTILIZATION))
      data.utilization_fold = fold_utilization(*reader, path, data.attrs.end_s);
    // Without details no figure needs a charge's or a preemption's row, only their sums
    // (TraceParts::details): folded as the blocks are read, as a run's summary folds them.
    if (parts.details) data.ledger = read_ledger(*reader, path, parts);
    else if (has_table(*reader, schema::LEDGER)) data.ledger_totals = fold_ledger(*reader, path);
    if (parts.details) data.preemptions = read_preemptions(*reader, path, parts);
    else if (has_table(*reader, schema::PREEMPTIONS)) data.preemption_totals = fold_preemptions(*reader, path);
  };
  // The second core faults /jobs' records in only when it is not the one folding the
  // costs: a saturated las trace's 9 million charges and preemptions take longer there
  // than /jobs here (its `gcsim analyze` 0.74 s -> 0.84 s with both on that core). A run's
  // summary has them folded already (SummaryTrace), so there it is free.
  std::size_t cost_rows = 0;
  for (const schema::Table* t : {&schema::UTILIZATION, &schema::LEDGER, &schema::PREEMPTIONS})
    if (has_table(*reader, *t)) cost_rows += rows(*reader, *t);
  const bool prefault_jobs = !reader->concurrent_reads() || cost_rows <= rows(*reader, schema::JOBS);
  const auto read_rest = [&] {
    data.nodes = read_nodes(*reader, path);
    data.jobs = read_jobs(*reader, path, parts, prefault_jobs);
    // A trace written with output.events: false has no /events (TraceData::has_events).
    data.has_events = has_table(*reader, schema::EVENTS);
    if (parts.events && data.has_events) data.events = read_events(*reader, path, data.event_kind_labels);
    data.pools = read_pools(*reader, path);
    data.budget_events = read_budget_events(*reader, path);
    data.has_node_events = has_table(*reader, schema::NODE_EVENTS);
    if (data.has_node_events) data.node_events = read_node_events(*reader, path);
    // Services: the three tables are written together (docs/trace-format.md).
    if (has_table(*reader, schema::SERVICES)) {
      data.services = read_services(*reader, path);
      data.service_series = read_service_series(*reader, path);
      if (parts.requests) data.service_requests = read_service_requests(*reader, path);
    }
  };
  // parallel_for rethrows the lowest item's error: /jobs and the rest's before the costs'.
  sim::parallel_for(2, reader->concurrent_reads() ? 2 : 1, [&](std::size_t part) {
    if (part == 0) read_rest();
    else read_costs();
  });
  return data;
}

}  // namespace

TraceData read_trace(const std::string& path, TraceParts parts) {
  return read_trace_from(TraceReader::open(path).get(), path, parts);
}

TraceData read_trace(const TraceReader& reader, const std::string& label, TraceParts parts) {
  return read_trace_from(&reader, label, parts);
}

bool is_detail_column(std::string_view table, std::string_view column) {
  using Names = std::initializer_list<std::string_view>;
  const auto in = [column](Names names) { return std::find(names.begin(), names.end(), column) != names.end(); };
  if (table == schema::JOBS.name) return in({"name", "gpus", "node_type", "first_node", "nodes"});
  if (table == schema::LEDGER.name) return in({"time_s", "pool", "node", "job"});
  if (table == schema::PREEMPTIONS.name) return in({"time_s", "gpus", "save_s", "restore_s", "saved_gpu_s", "reason", "mode"});
  return false;
}

bool read_by_read_trace(std::string_view table, TraceParts parts) {
  for (const schema::Table* t : {&schema::NODES, &schema::JOBS, &schema::UTILIZATION, &schema::LEDGER, &schema::POOLS,
                                 &schema::BUDGET_EVENTS, &schema::PREEMPTIONS, &schema::NODE_EVENTS, &schema::SERVICES,
                                 &schema::SERVICE_SERIES})
    if (table == t->name) return true;
  if (parts.requests && table == schema::SERVICE_REQUESTS.name) return true;
  return parts.events && table == schema::EVENTS.name;
}

std::vector<config::SourceRecord> read_inputs(const TraceReader& r, const std::string& path) {
  if (!has_table(r, schema::INPUTS))
    throw Error("'" + path +
                "' has no /inputs table (it was written before traces embedded their inputs), so it cannot be "
                "rerun; run its scenario again with gcsim run");
  std::vector<config::SourceRecord> records(rows(r, schema::INPUTS));
  std::vector<std::int64_t> sizes(records.size()), offsets(records.size());
  TableRows<schema::INPUTS, config::SourceRecord> c(r, path, records);
  c.str("key", &config::SourceRecord::key);
  c.str("written", &config::SourceRecord::written);
  c.str("resolved", &config::SourceRecord::resolved);
  c.str("digest", &config::SourceRecord::digest);
  c.each_int("size_bytes", "an integer", [&](config::SourceRecord&, std::int64_t v, std::size_t row) { sizes[row] = v; });
  c.each_int("offset", "an integer", [&](config::SourceRecord&, std::int64_t v, std::size_t row) { offsets[row] = v; });
  c.read();
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
