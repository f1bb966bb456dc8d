// A gcsim trace (docs/trace-format.md; its names and labels in models/trace/schema.hpp) read
// back into plain typed records: the one place analysis touches HDF5. Metrics, reports and plots take a TraceData,
// so tests can build one by hand without any file.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/trace/schema.hpp"
#include "sim/config/source_resolver.hpp"

namespace gcsim::trace {
class TraceReader;
}

namespace gcsim::analysis {

// The trace schema this code reads (the writer's); a trace with a newer one is refused.
// Schema 1 traces (before the ledger, pools and interruptions) still read: the new tables
// come back empty.
inline constexpr std::int64_t TRACE_SCHEMA = trace::schema::VERSION;

struct TraceAttributes {
  std::string gcsim_version;
  std::string scenario_name;
  std::string scenario_file;
  std::string scenario_yaml;     // the exact scenario text
  std::string alert_rules_yaml;  // the scenario's `alerts:` as a rules file ("" without)
  std::string gpu_catalog_yaml;  // the resolved GPU entries used
  std::uint64_t seed = 0;  // unsigned 64-bit in the trace (from 2026-12; before, int64 of the same bits)
  std::uint64_t replication = 0;
  double horizon_s = 0;
  double end_s = 0;  // when the run ended: the horizon, or the last completion if earlier
  // The workload's jobs submitted after the horizon, in no table (schema 6); 0 in older
  // traces, whose /jobs lists them.
  std::int64_t jobs_after_horizon = 0;
  std::string run_until;  // "horizon" or "done" (schema 2); "" in older traces
  std::string scheduler;           // the policy's name (schema 2); "" in older traces
  std::string scheduler_settings;  // its settings as one line; "" when it has none, or in older traces
  double wall_clock_s = 0;
  std::int64_t trace_schema = TRACE_SCHEMA;
};

struct NodeRecord {
  std::int32_t node_id = 0;
  std::string node_type;
  std::string gpu;
  std::int32_t gpus = 0;
  double price_usd_per_hour = 0;
  double up_s = 0;
  double down_s = 0;
  double cost_usd = 0;  // every charge of the node (busy and idle)
  std::string market = "on_demand";
  double up_time_s = 0;  // seconds it was up (billed, for rented nodes)
  double busy_gpu_s = 0; // GPU-seconds jobs held on it
  std::int32_t interruptions = 0;
};

// In the order of the schema's /jobs.status labels.
enum class JobStatus : std::uint8_t { Completed = 0, Running = 1, NeverStarted = 2, Interrupted = 3 };
static_assert(trace::schema::JOB_STATUSES.size() == 4);

// Interruptions and checkpoints of a job (schema 2; zeros in older traces). GPU-seconds.
struct ResilienceRecord {
  std::string team;
  std::int32_t interruptions = 0;
  std::int32_t checkpoints = 0;
  double gpu_s_held = 0;
  double gpu_s_lost = 0;
  double gpu_s_checkpoint = 0;
  double gpu_s_restart = 0;
};

// One row of /ledger: a charge (docs/trace-format.md).
struct ChargeRecord {
  double time_s = 0;
  std::int32_t pool = -1;
  std::int32_t node = -1;
  std::int64_t job = -1;
  std::string category;
  double usd = 0;
  bool busy = false;
};

// One row of /pools: a node type and its market.
struct PoolRecord {
  std::string name;
  std::string market;
  std::string gpu;
  std::int32_t gpus_per_node = 0;
  std::int32_t count = 0;
  double on_demand_usd_per_hour = 0;
  double fixed_usd_per_hour = 0;        // owned: depreciation + maintenance + hosting; reserved: the effective price
  double energy_idle_usd_per_hour = 0;  // owned
  double energy_busy_usd_per_hour = 0;  // owned
  std::string compare_to;               // owned, reserved: the on-demand alternative named in the scenario
  double compare_usd_per_gpu_hour = std::numeric_limits<double>::quiet_NaN();
  double term_s = std::numeric_limits<double>::quiet_NaN();          // reserved: the commitment's term
  double commitment_usd = std::numeric_limits<double>::quiet_NaN();  // reserved: every term overlapping the horizon, whole
};

struct BudgetEventRecord {
  double time_s = 0;
  std::string team;
  std::string kind;    // alert, limit_reached, period_start
  double spent_usd = 0;
  double limit_usd = 0;
  std::string action;  // alert, stop_new, stop_running, stop_instances
};

// A preemption by the scheduling policy, from /preemptions (traces written before that
// table have none).
struct PreemptionRecord {
  double time_s = 0;
  std::int64_t job = 0;
  std::string reason;  // priority, quantum, fair_share, cost, deadline, shorter, unspecified
  std::string mode;    // save, lose
  std::int32_t gpus = 0;
  double save_s = 0;
  double save_gpu_s = 0;
  double restore_s = 0;
  double restore_gpu_s = 0;
  double saved_gpu_s = 0;
  double lost_gpu_s = 0;
};

// A change of a node slot's state, from /node_events (traces written before that table have
// none: TraceData::has_node_events is false).
struct NodeEventRecord {
  double time_s = 0;
  std::int32_t node = 0;
  std::string state;   // provisioning, up, draining, down, released
  std::string reason;  // initial, scale_out, scale_in, spot_interruption, spot_replacement, availability, released
  bool billed = false;
};

// What the step-time model gave a model-described job (NaN / "" for other jobs, and in
// traces written before these columns existed).
struct ModelRecord {
  double samples = std::numeric_limits<double>::quiet_NaN();        // samples processed
  double samples_per_s = std::numeric_limits<double>::quiet_NaN();  // whole job, on its placement
  double step_time_s = std::numeric_limits<double>::quiet_NaN();
  std::string bottleneck;
  // The breakdown of step_time_s, per micro-step (docs/trace-format.md).
  double compute_s = std::numeric_limits<double>::quiet_NaN();       // GPU compute
  double input_s = std::numeric_limits<double>::quiet_NaN();         // input pipeline (overlaps the GPU)
  double comm_s = std::numeric_limits<double>::quiet_NaN();          // gradient all-reduce, whole
  double comm_exposed_s = std::numeric_limits<double>::quiet_NaN();  // not hidden behind backward
  double memory_per_gpu_bytes = std::numeric_limits<double>::quiet_NaN();
};

struct JobRecord {
  std::int64_t job_id = 0;
  std::string name;
  double submit_s = 0;
  double start_s = 0;  // NaN if never started
  double end_s = 0;    // NaN unless completed
  std::int32_t gpus = 0;       // requested
  std::int32_t gpus_held = 0;  // GPUs of the node(s) it holds (or a share of)
  std::string node_type;       // "" if never started
  std::int32_t first_node = -1;
  std::int32_t nodes = 0;
  double cost_usd = 0;  // its share of node cost while held (running jobs: up to end_s)
  JobStatus status = JobStatus::NeverStarted;
  ModelRecord model;  // jobs described by a model only
  ResilienceRecord resilience;
  std::int32_t gpu_milli = 1000;  // its share of each GPU in thousandths (traces before schema 4: 1000)
  double gpu_share_held() const { return gpus_held * (gpu_milli / 1000.0); }  // GPU-seconds per second held
};

// Event kinds are an open set (later schemas append kinds), so a record keeps the raw
// value and TraceData::event_kind_labels names it.
struct EventRecord {
  double time_s = 0;
  std::int64_t job = -1;   // -1 if none
  std::int32_t node = -1;  // -1 if none
  std::uint8_t kind = 0;   // index into TraceData::event_kind_labels
};

// One step of the allocation step function: the values hold from time_s to the next row.
struct UtilizationSample {
  double time_s = 0;
  double allocated_gpus = 0;  // a shared GPU counts the shares held (an integer before schema 4)
  std::int32_t total_gpus = 0;
};

// Inference services (docs/serving.md), from /services, /service_series and
// /service_requests (docs/trace-format.md): a trace without services has none of them.
// NaN: not applicable (a latency of a service that completed nothing, a TTFT of a model
// without tokens, an SLO target not set).
struct ServiceRecord {
  std::int32_t service = 0;  // its index, in scenario order
  std::string name;
  std::string team;   // "" for none
  std::string model;  // "" with `latency:`
  std::int64_t arrived = 0;
  std::int64_t completed = 0;
  std::int64_t unfinished = 0;  // queued or being served at the end
  double e2e_mean_s = std::numeric_limits<double>::quiet_NaN();
  double e2e_p50_s = std::numeric_limits<double>::quiet_NaN();
  double e2e_p95_s = std::numeric_limits<double>::quiet_NaN();
  double e2e_p99_s = std::numeric_limits<double>::quiet_NaN();
  double wait_mean_s = std::numeric_limits<double>::quiet_NaN();
  double ttft_p50_s = std::numeric_limits<double>::quiet_NaN();
  double ttft_p95_s = std::numeric_limits<double>::quiet_NaN();
  double ttft_p99_s = std::numeric_limits<double>::quiet_NaN();
  double tpot_p50_s = std::numeric_limits<double>::quiet_NaN();
  double tpot_p95_s = std::numeric_limits<double>::quiet_NaN();
  double tpot_p99_s = std::numeric_limits<double>::quiet_NaN();
  double slo_p99_s = std::numeric_limits<double>::quiet_NaN();  // targets
  double slo_ttft_p99_s = std::numeric_limits<double>::quiet_NaN();
  double slo_tpot_p99_s = std::numeric_limits<double>::quiet_NaN();
  double slo_attained = std::numeric_limits<double>::quiet_NaN();  // share of completed requests within every target
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;
  double replica_gpu_s = 0;
  double cost_usd = 0;
  std::int32_t replicas_max = 0;
  std::int64_t sample_every = 0;  // /service_requests keeps every k-th completed request (0: none)
  std::int64_t request_rows = 0;  // the rows it kept
  std::int64_t refused = 0;       // never served: longer than the model's context, the KV cache or max_tokens
  std::int64_t cold_starts = 0;   // replica starts
  double cold_start_s = 0;        // time spent in their cold starts
};

struct ServiceSampleRecord {
  std::int32_t service = 0;
  double t_s = 0;
  double interval_s = 0;
  std::int64_t arrived = 0;
  std::int64_t completed = 0;
  double e2e_p50_s = std::numeric_limits<double>::quiet_NaN();
  double e2e_p99_s = std::numeric_limits<double>::quiet_NaN();
  double ttft_p99_s = std::numeric_limits<double>::quiet_NaN();
  double tpot_p99_s = std::numeric_limits<double>::quiet_NaN();
  double slo_attained = std::numeric_limits<double>::quiet_NaN();
  std::int64_t queue_length = 0;
  std::int32_t replicas_up = 0;
  std::int32_t replicas_wanted = 0;
  double busy_fraction = 0;
};

struct ServiceRequestRecord {
  std::int32_t service = 0;
  std::int32_t replica = 0;
  std::int64_t request = 0;
  double arrival_s = 0;
  double start_s = 0;
  double first_token_s = 0;
  double end_s = 0;
  std::int32_t prompt_tokens = 0;
  std::int32_t output_tokens = 0;
};

// The sums of /ledger that the figures need (Metrics' costs and costs by category), taken
// row by row in the table's order: the same numbers whether from rows read back
// (compute_metrics sums TraceData::ledger) or folded as a run writes them (SummaryTrace),
// which keeps no rows. add() is the one place the arithmetic is written.
struct LedgerTotals {
  struct Category {
    std::string name;
    bool storage = false;
    double usd = 0;
  };
  std::size_t rows = 0;
  double total_usd = 0;
  double busy_usd = 0;
  double storage_usd = 0;
  std::vector<Category> by_category;  // in order of first appearance
  void add(std::string_view category, double usd, bool busy) { add_at(category_index(category), usd, busy); }
  // The place of `category` in by_category, added there when it is new.
  std::size_t category_index(std::string_view category);
  // A charge of the category at by_category[k] (what add does once the category is found).
  void add_at(std::size_t k, double usd, bool busy);

 private:
  std::size_t last_ = 0;  // the category matched last (charges come in runs of one category)
};

// The same for /preemptions: the count, the GPU-hours of saves, restores and lost work (each
// row's GPU-seconds / 3600, summed in row order), and the rows per job id (for the teams).
struct PreemptionTotals {
  std::int64_t rows = 0;
  double save_gpu_h = 0;
  double restore_gpu_h = 0;
  double lost_gpu_h = 0;
  std::vector<std::int32_t> by_job;  // rows naming job id i; negative ids are not counted
  void add(std::int64_t job, double save_gpu_s, double restore_gpu_s, double lost_gpu_s);
};

// The integrals of /utilization's step function over [0, end_s]: each row's values hold
// from its time to the next row's (the last until end_s), 0 before the first row.
struct StepIntegrals {
  double allocated_gpu_s = 0;
  double total_gpu_s = 0;
  // The largest allocated value holding for a positive time in [0, end_s], and the first
  // time it did (NaN when no row does).
  double peak_allocated_gpus = 0;
  double peak_at_s = std::numeric_limits<double>::quiet_NaN();
  // One row's step, from time_s (clipped at 0) to to_s: the one place the arithmetic is
  // written (integrate_utilization and UtilizationFold add steps in row order).
  void add_step(double time_s, double allocated_gpus, std::int32_t total_gpus, double to_s);
};

// /utilization's rows folded one at a time, in row order, as a run writes them
// (SummaryTrace) or a reader reads them without keeping them (TraceParts::utilization):
// integrals(end_s) is integrate_utilization(rows, end_s) bit for bit. A row's step is
// closed when the next row comes, so every row but the last must lie at or before end_s
// (a run's rows do; a reader that knows end_s first passes it as `clip_s`, which
// integrate_utilization's min(next, end_s) then matches for any rows).
class UtilizationFold {
 public:
  explicit UtilizationFold(double clip_s = std::numeric_limits<double>::infinity()) : clip_s_(clip_s) {}
  // Throws gcsim::Error naming the row when it is earlier than the one before.
  void add(double time_s, double allocated_gpus, std::int32_t total_gpus);
  // Throws InternalError when a closed step passed end_s (the rows were not a run's).
  StepIntegrals integrals(double end_s) const;
  std::size_t rows() const { return rows_; }

 private:
  double clip_s_;
  StepIntegrals closed_;  // the steps of every row but the last
  double last_time_s_ = 0;
  double last_allocated_ = 0;
  std::int32_t last_total_ = 0;
  std::size_t rows_ = 0;
};

struct TraceData {
  TraceAttributes attrs;
  std::vector<NodeRecord> nodes;
  std::vector<JobRecord> jobs;
  std::vector<EventRecord> events;
  std::vector<std::string> event_kind_labels;  // by value: submit, start, finish, end_of_run, ...
  std::vector<UtilizationSample> utilization;
  std::vector<ChargeRecord> ledger;          // schema 2
  std::vector<PoolRecord> pools;             // schema 2
  std::vector<BudgetEventRecord> budget_events;
  std::vector<PreemptionRecord> preemptions;
  // Set when the run folded /ledger and /preemptions into their sums instead of keeping the
  // rows (SummaryTrace): then `ledger` and `preemptions` are empty and the figures come from
  // these; otherwise compute_metrics sums the rows.
  std::optional<LedgerTotals> ledger_totals;
  std::optional<PreemptionTotals> preemption_totals;
  // Set when /utilization was folded into its integrals instead of kept
  // (TraceParts::utilization false): then `utilization` is empty.
  std::optional<UtilizationFold> utilization_fold;
  std::vector<NodeEventRecord> node_events;
  bool has_node_events = false;  // the trace has /node_events (else interruptions come from /events' node_down rows)
  bool has_events = true;        // the trace has /events (output.events: false leaves it out)
  std::vector<ServiceRecord> services;                // empty: the run had no services
  std::vector<ServiceSampleRecord> service_series;
  std::vector<ServiceRequestRecord> service_requests;  // TraceParts::requests
};

// What read_trace reads besides the tables every figure needs.
struct TraceParts {
  bool events = true;  // /events: the plots mark interruptions from it; no figure of the summary needs it
  // Columns no figure of the report, the JSON, a comparison or the plots reads: /jobs'
  // name, node_type, first_node, nodes and gpus; /ledger's time_s, pool, node and job;
  // /preemptions' all but job, save_gpu_s, restore_gpu_s and lost_gpu_s. false leaves
  // those fields at their defaults (a million-job trace reads about a tenth faster);
  // tools that look at single jobs, charges or preemptions keep the default. Without them
  // no figure needs a row of /ledger or /preemptions either: those two are folded into
  // their sums (TraceData::ledger_totals and preemption_totals) a block at a time as they
  // are read, and no row is kept (a saturated million-job las trace has 6.1 million charges
  // and 3.2 million preemptions).
  bool details = true;
  // /service_requests, the sampled requests of services: no figure of the report, the
  // JSON, a comparison or the plots reads them (the services' totals and series do).
  bool requests = true;
  // /utilization's rows: the plots draw them; the figures need only their integrals, so
  // false folds them as they are read (TraceData::utilization_fold) and keeps no row (a
  // saturated million-job run writes two million or more).
  bool utilization = true;
};

// Reads a whole trace. Throws gcsim::Error naming the file and object when the file is
// missing, not HDF5, of an unsupported schema, or lacks a dataset or column.
TraceData read_trace(const std::string& path, TraceParts parts = {});
// The root attributes alone (`path` names the trace in errors).
TraceAttributes read_trace_attributes(const trace::TraceReader& reader, const std::string& path);


// The same from any reader: a trace in memory (trace::MemoryTrace, once committed). With
// parts.events false, TraceData::events stays empty and the reader needs no /events.
TraceData read_trace(const trace::TraceReader& reader, const std::string& label, TraceParts parts = {});

// Whether read_trace(reader, label, parts) reads the table `table`: what a run keeps in
// memory for its summary (trace::TeeTrace), so nothing else is held twice.
bool read_by_read_trace(std::string_view table, TraceParts parts);
// Whether `column` of `table` is one read_trace reads only with TraceParts::details (the
// blocks under `parts.details` in read_jobs, read_ledger and read_preemptions): a copy kept
// for the figures alone leaves these out (SummaryTrace).
bool is_detail_column(std::string_view table, std::string_view column);

// The files the run read (/inputs, their bytes from /input_bytes), for gcsim rerun. Throws
// gcsim::Error naming the trace when it has no /inputs table (one written before traces
// embedded their inputs) or a row's bytes lie outside /input_bytes.
std::vector<config::SourceRecord> read_inputs(const trace::TraceReader& reader, const std::string& path);

// The label of an event's kind ("" for a value this reader has no label for).
const std::string& event_kind_label(const TraceData& trace, const EventRecord& event);

const char* job_status_name(JobStatus status);

}  // namespace gcsim::analysis
