// The trace's contract, shared by its writer (models/trace/) and its reader (analysis/):
// the schema version, every table's name and columns (name, type, enum labels, string
// widths), and the enum labels in value order. Standard library only, so analysis/ includes it without
// linking models/ (docs/engine.md, "Trace schema"); docs/trace-format.md says what each
// column means.
//
// Columns are listed in the order the writer lays them out; readers find them by name,
// and column() makes a name that is not in the schema a compile error.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace gcsim::trace::schema {

// Changes only when an existing field changes meaning or type; added columns and labels
// keep it (docs/trace-format.md, "Conventions").
// 3: string columns fixed-width, /inputs' bytes moved to /input_bytes.
// 4: /utilization.allocated_gpus is float64 (jobs may hold shares of a GPU), /jobs.gpu_milli.
// 5: /jobs.node_type, .team and .bottleneck are coded (enums of the run's names, value 0
//    "none"); /jobs.name is as wide as the run's longest job name.
// 6: /jobs holds the jobs submitted by the horizon; those of the workload submitted after
//    it are only counted, in the root attribute jobs_after_horizon (a run that takes its
//    jobs as it reaches them never makes them).
inline constexpr std::int64_t VERSION = 6;

// Code: a column of names with few distinct values (a run's node types, its teams), stored
// as a small integer code: an HDF5 enum whose labels are the names, given when the table is
// written (NONE_LABEL, value 0, then the names), so h5py and h5dump still show names and a
// cell costs 1, 2 or 4 bytes instead of a 256-byte string.
enum class Type : std::uint8_t { F64, I64, I32, Str, Enum8, Code };

// The label of value 0 of every Code column: no name (a job never started has no node type,
// a job without a team no team). It contains '/', which no scenario name may
// (config::read_name), so it never collides with a name.
inline constexpr std::string_view NONE_LABEL = "n/a";

// String column widths in bytes: a cell holds a value up to that long, null-padded. Every
// string that reaches a column is bounded where it is read: names (of the scenario, node
// types, teams, jobs, generators, GPUs, network hosts and links, and the parts of instance
// ids in catalogs) to config::MAX_NAME_BYTES (sim/config/names.hpp; the writer checks at
// compile time that NAME_BYTES holds it), paths by the system's PATH_MAX.
inline constexpr std::uint32_t NAME_BYTES = 256;
inline constexpr std::uint32_t LABEL_BYTES = 32;      // words gcsim writes: bottleneck, link kind
inline constexpr std::uint32_t JOB_NAME_BYTES = 288;  // a generator's name, '-' and a count of up to 20 digits
inline constexpr std::uint32_t INSTANCE_BYTES = 1024;  // "<provider>/<type>@<zone or region>", each part a name
inline constexpr std::uint32_t LINK_BYTES = 2048;      // "<a>--<b>:<a>-><b>" of vertices named "<node>/<part>"

inline constexpr std::uint32_t KEY_BYTES = 1024;      // a key path such as "catalogs.instances[0]" (config::MAX_SOURCE_KEY_BYTES)
inline constexpr std::uint32_t PATH_BYTES = 4096;     // PATH_MAX on Linux (config::MAX_SOURCE_PATH_BYTES)
inline constexpr std::uint32_t DIGEST_BYTES = 64;     // "fnv1a64:" and 16 hex digits

struct Column {
  std::string_view name;
  Type type;
  std::span<const std::string_view> labels = {};  // Enum8 only: label i has value i
  std::uint32_t str_bytes = 0;                    // Str only: the cell width (at most; see JOBS.name)
};

struct Table {
  std::string_view name;  // the dataset under the root: "jobs" is /jobs
  std::span<const Column> columns;
};

// A column's name, checked against the table at compile time.
consteval std::string_view column(const Table& table, std::string_view name) {
  for (const Column& c : table.columns)
    if (c.name == name) return c.name;
  throw "not a column of this table in the trace schema";  // not a constant: a compile error
}

// ---- Root attributes ----

namespace attribute {
inline constexpr const char* TRACE_SCHEMA = "trace_schema";  // VERSION when written
inline constexpr const char* GCSIM_VERSION = "gcsim_version";
inline constexpr const char* SCENARIO_NAME = "scenario_name";
inline constexpr const char* SCENARIO_FILE = "scenario_file";
inline constexpr const char* SCENARIO_YAML = "scenario_yaml";        // the exact scenario text
inline constexpr const char* GPU_CATALOG_YAML = "gpu_catalog_yaml";  // the GPU entries used
inline constexpr const char* SEED = "seed";
inline constexpr const char* REPLICATION = "replication";
inline constexpr const char* HORIZON_S = "horizon_s";
inline constexpr const char* END_S = "end_s";
// The workload's jobs submitted after the horizon, in no table (schema 6; absent before,
// when /jobs listed them as never started).
inline constexpr const char* JOBS_AFTER_HORIZON = "jobs_after_horizon";
inline constexpr const char* RUN_UNTIL = "run_until";  // "done" or "horizon"
inline constexpr const char* SCHEDULER = "scheduler";
inline constexpr const char* SCHEDULER_SETTINGS = "scheduler_settings";
inline constexpr const char* WALL_CLOCK_S = "wall_clock_s";
// output.metrics.every in seconds, with the /metrics table (docs/metrics.md).
inline constexpr const char* METRICS_EVERY_S = "metrics_every_s";
// The scenario's `alerts:` as a Prometheus rules file (docs/alerts.md); absent without.
inline constexpr const char* ALERT_RULES = "alert_rules";
// A `workload.trace`'s import report, one line each, as `gcsim validate` prints it (rows
// read, jobs made, skipped by reason, statuses, span, GPU-hours); absent without a trace.
inline constexpr const char* IMPORT_REPORT = "import_report";
}  // namespace attribute

// ---- Enum labels, in value order ----

// /events.kind. Later schemas append kinds, so readers keep the raw value.
enum class EventKind : std::uint8_t {
  Submit = 0,
  Start = 1,
  Finish = 2,
  EndOfRun = 3,
  Stop = 4,        // a run ended without finishing (interruption, budget stop); one row per node
  Checkpoint = 5,  // a checkpoint committed (node -1)
  Notice = 6,      // a node will be taken (job -1)
  NodeDown = 7,    // a node was taken (job -1)
  NodeUp = 8,      // a node (or its replacement) came up (job -1)
  Restore = 9,     // a restart began restoring the job's last checkpoint (node -1)
};
inline constexpr std::array<std::string_view, 10> EVENT_KINDS = {
    "submit", "start", "finish", "end_of_run", "stop", "checkpoint", "notice", "node_down", "node_up", "restore"};

// /jobs.status (the values of models::JobStatus a finished run can have).
inline constexpr std::array<std::string_view, 4> JOB_STATUSES = {"completed", "running", "never_started",
                                                                 "interrupted"};

// /ledger.category, in the value order of models::ChargeCategory.
inline constexpr std::array<std::string_view, 7> LEDGER_CATEGORIES = {
    "compute_busy", "compute_idle", "storage", "egress", "requests", "ownership", "reserved"};
// /ledger.busy
inline constexpr std::array<std::string_view, 2> LEDGER_BUSY = {"idle", "busy"};
// /node_events.billed
inline constexpr std::array<std::string_view, 2> NO_YES = {"no", "yes"};

// /nodes.market and /pools.market, in the value order of models::Market.
inline constexpr std::array<std::string_view, 4> MARKETS = {"on_demand", "spot", "reserved", "owned"};

// /budget_events.kind and .action
inline constexpr std::array<std::string_view, 3> BUDGET_EVENT_KINDS = {"alert", "limit_reached", "period_start"};
inline constexpr std::array<std::string_view, 4> BUDGET_ACTIONS = {"alert", "stop_new", "stop_running", "stop_instances"};

// /preemptions.reason, in the value order of models::PreemptReason; .mode, how it stopped.
inline constexpr std::array<std::string_view, 9> PREEMPT_REASONS = {
    "unspecified", "priority", "quantum", "fair_share", "cost", "deadline", "shorter", "reclaim", "quota_cap"};
inline constexpr std::array<std::string_view, 2> PREEMPT_MODES = {"save", "lose"};

// /node_events.state and .reason, in the value order of models::NodePhase and NodeReason.
inline constexpr std::array<std::string_view, 5> NODE_STATES = {"provisioning", "up", "draining", "down", "released"};
inline constexpr std::array<std::string_view, 7> NODE_REASONS = {
    "initial", "scale_out", "scale_in", "spot_interruption", "spot_replacement", "availability", "released"};

// /scale_decisions.direction and .trigger, in the value order of models::ScaleDirection and
// models::TriggerKind.
inline constexpr std::array<std::string_view, 2> SCALE_DIRECTIONS = {"out", "in"};
inline constexpr std::array<std::string_view, 7> SCALE_TRIGGERS = {"waiting_gpus", "gpu_utilization", "gpu_memory",
                                                                   "idle",         "schedule",        "fallback",
                                                                   "budget"};

// ---- Tables ----

namespace detail {
using T = Type;
inline constexpr Column EVENTS[] = {
    {"time_s", T::F64}, {"kind", T::Enum8, EVENT_KINDS}, {"job", T::I64}, {"node", T::I32}};
inline constexpr Column UTILIZATION[] = {{"time_s", T::F64}, {"allocated_gpus", T::F64}, {"total_gpus", T::I32}};
inline constexpr Column LEDGER[] = {{"time_s", T::F64}, {"pool", T::I32},
                                    {"node", T::I32},   {"job", T::I64},
                                    {"category", T::Enum8, LEDGER_CATEGORIES}, {"usd", T::F64},
                                    {"busy", T::Enum8, LEDGER_BUSY}};
inline constexpr Column BUDGET_EVENTS[] = {{"time_s", T::F64},
                                           {"team", T::Str, {}, NAME_BYTES},
                                           {"kind", T::Enum8, BUDGET_EVENT_KINDS},
                                           {"spent_usd", T::F64},
                                           {"limit_usd", T::F64},
                                           {"action", T::Enum8, BUDGET_ACTIONS}};
inline constexpr Column JOBS[] = {{"job_id", T::I64},
                                  {"name", T::Str, {}, JOB_NAME_BYTES},  // written as wide as the longest
                                  {"submit_s", T::F64},
                                  {"start_s", T::F64},
                                  {"end_s", T::F64},
                                  {"gpus", T::I32},
                                  {"gpus_held", T::I32},
                                  {"node_type", T::Code},
                                  {"first_node", T::I32},
                                  {"nodes", T::I32},
                                  {"cost_usd", T::F64},
                                  {"status", T::Enum8, JOB_STATUSES},
                                  {"samples", T::F64},
                                  {"samples_per_s", T::F64},
                                  {"step_time_s", T::F64},
                                  {"bottleneck", T::Code},
                                  {"compute_s", T::F64},
                                  {"input_s", T::F64},
                                  {"comm_s", T::F64},
                                  {"comm_exposed_s", T::F64},
                                  {"memory_per_gpu_bytes", T::F64},
                                  {"team", T::Code},
                                  {"interruptions", T::I32},
                                  {"checkpoints", T::I32},
                                  {"gpu_s_held", T::F64},
                                  {"gpu_s_lost", T::F64},
                                  {"gpu_s_checkpoint", T::F64},
                                  {"gpu_s_restart", T::F64},
                                  {"gpu_milli", T::I32},
                                  {"recorded_status", T::Code}};
inline constexpr Column NODES[] = {{"node_id", T::I32},
                                   {"node_type", T::Str, {}, NAME_BYTES},
                                   {"gpu", T::Str, {}, NAME_BYTES},
                                   {"gpus", T::I32},
                                   {"price_usd_per_hour", T::F64},
                                   {"up_s", T::F64},
                                   {"down_s", T::F64},
                                   {"cost_usd", T::F64},
                                   {"market", T::Enum8, MARKETS},
                                   {"up_time_s", T::F64},
                                   {"interruptions", T::I32},
                                   {"busy_gpu_s", T::F64}};
inline constexpr Column POOLS[] = {{"name", T::Str, {}, NAME_BYTES},
                                   {"market", T::Enum8, MARKETS},
                                   {"gpu", T::Str, {}, NAME_BYTES},
                                   {"gpus_per_node", T::I32},
                                   {"count", T::I32},
                                   {"instance", T::Str, {}, INSTANCE_BYTES},
                                   {"on_demand_usd_per_hour", T::F64},
                                   {"fixed_usd_per_hour", T::F64},
                                   {"energy_idle_usd_per_hour", T::F64},
                                   {"energy_busy_usd_per_hour", T::F64},
                                   {"compare_to", T::Str, {}, INSTANCE_BYTES},
                                   {"compare_usd_per_gpu_hour", T::F64},
                                   {"term_s", T::F64},
                                   {"commitment_usd", T::F64}};
// A row's file is size_bytes bytes of /input_bytes from offset.
inline constexpr Column INPUTS[] = {{"key", T::Str, {}, KEY_BYTES},         {"written", T::Str, {}, PATH_BYTES},
                                    {"resolved", T::Str, {}, PATH_BYTES},   {"size_bytes", T::I64},
                                    {"digest", T::Str, {}, DIGEST_BYTES},   {"offset", T::I64}};
inline constexpr Column LINKS[] = {{"link_id", T::I32},     {"name", T::Str, {}, LINK_BYTES},  {"kind", T::Str, {}, LABEL_BYTES},
                                   {"bytes_per_s", T::F64}, {"latency_s", T::F64}, {"bytes", T::F64},
                                   {"busy_s", T::F64},      {"utilization", T::F64}};
inline constexpr Column PREEMPTIONS[] = {{"time_s", T::F64},          {"job", T::I64},
                                          {"reason", T::Enum8, PREEMPT_REASONS},
                                          {"mode", T::Enum8, PREEMPT_MODES},
                                          {"gpus", T::I32},            {"save_s", T::F64},
                                          {"save_gpu_s", T::F64},      {"restore_s", T::F64},
                                          {"restore_gpu_s", T::F64},   {"saved_gpu_s", T::F64},
                                          {"lost_gpu_s", T::F64}};
inline constexpr Column NODE_EVENTS[] = {{"time_s", T::F64},
                                         {"node", T::I32},
                                         {"state", T::Enum8, NODE_STATES},
                                         {"reason", T::Enum8, NODE_REASONS},
                                         {"billed", T::Enum8, NO_YES}};
inline constexpr Column POOL_SIZES[] = {{"time_s", T::F64},       {"pool", T::I32},      {"slots", T::I32},
                                        {"provisioning", T::I32}, {"up", T::I32},        {"draining", T::I32},
                                        {"held_gpus", T::F64},    {"busy_gpus", T::F64}, {"waiting_gpus", T::F64},
                                        {"memory_used", T::F64}};
inline constexpr Column SCALE_DECISIONS[] = {{"time_s", T::F64},
                                             {"pool", T::I32},
                                             {"direction", T::Enum8, SCALE_DIRECTIONS},
                                             {"trigger", T::Enum8, SCALE_TRIGGERS},
                                             {"value", T::F64},
                                             {"nodes", T::I32},
                                             {"size_before", T::I32},
                                             {"size_after", T::I32}};
inline constexpr Column FLOWS[] = {
    {"flow_id", T::I64}, {"job", T::I64}, {"bytes", T::F64}, {"start_s", T::F64}, {"finish_s", T::F64}};
// Simulated GPU metrics, stored by change (docs/metrics.md): a row says that from time_s
// on the series (node, gpu, job) has these values (state "on"), or that it ends (state
// "off", values NaN). job -1: the GPU idle. NaN: not modelled for the job.
inline constexpr std::array<std::string_view, 2> METRIC_STATES = {"off", "on"};
inline constexpr Column METRICS[] = {{"time_s", T::F64},
                                     {"node", T::I32},
                                     {"gpu", T::I32},
                                     {"job", T::I64},
                                     {"state", T::Enum8, METRIC_STATES},
                                     {"util", T::F64},
                                     {"fb_used_bytes", T::F64},
                                     {"pcie_tx_bytes_per_s", T::F64},
                                     {"pcie_rx_bytes_per_s", T::F64},
                                     {"nvlink_tx_bytes_per_s", T::F64},
                                     {"nvlink_rx_bytes_per_s", T::F64},
                                     {"net_tx_bytes_per_s", T::F64},
                                     {"net_rx_bytes_per_s", T::F64}};
// The inter-node latency of the simulated metrics, stored by change (docs/metrics.md): a
// row says that from time_s on (a grid instant k * every) the node's probe latency is
// latency_s (state "on"), or that the node has none (state "off", NaN).
inline constexpr Column NODE_LATENCY[] = {
    {"time_s", T::F64}, {"node", T::I32}, {"state", T::Enum8, METRIC_STATES}, {"latency_s", T::F64}};
// Inference services (docs/serving.md), one row per service (models/serving/service_records.hpp's
// ServiceTotals) with its request sampling: sample_every k (every k-th completed request of
// the service kept in /service_requests; 0 when output.request_rows is 0) and request_rows,
// the rows kept.
inline constexpr Column SERVICES[] = {{"service", T::I32},
                                      {"name", T::Str, {}, NAME_BYTES},
                                      {"team", T::Str, {}, NAME_BYTES},
                                      {"model", T::Str, {}, NAME_BYTES},
                                      {"arrived", T::I64},
                                      {"completed", T::I64},
                                      {"unfinished", T::I64},
                                      {"e2e_mean_s", T::F64},
                                      {"e2e_p50_s", T::F64},
                                      {"e2e_p95_s", T::F64},
                                      {"e2e_p99_s", T::F64},
                                      {"wait_mean_s", T::F64},
                                      {"ttft_p50_s", T::F64},
                                      {"ttft_p95_s", T::F64},
                                      {"ttft_p99_s", T::F64},
                                      {"tpot_p50_s", T::F64},
                                      {"tpot_p95_s", T::F64},
                                      {"tpot_p99_s", T::F64},
                                      {"slo_p99_s", T::F64},
                                      {"slo_ttft_p99_s", T::F64},
                                      {"slo_tpot_p99_s", T::F64},
                                      {"slo_attained", T::F64},
                                      {"prompt_tokens", T::I64},
                                      {"output_tokens", T::I64},
                                      {"replica_gpu_s", T::F64},
                                      {"cost_usd", T::F64},
                                      {"replicas_max", T::I32},
                                      {"sample_every", T::I64},
                                      {"request_rows", T::I64},
                                      {"refused", T::I64},
                                      {"cold_starts", T::I64},
                                      {"cold_start_s", T::F64}};
// Each service over each interval of output.service_interval (ServiceSample).
inline constexpr Column SERVICE_SERIES[] = {{"service", T::I32},       {"t_s", T::F64},
                                            {"interval_s", T::F64},    {"arrived", T::I64},
                                            {"completed", T::I64},     {"e2e_p50_s", T::F64},
                                            {"e2e_p99_s", T::F64},     {"ttft_p99_s", T::F64},
                                            {"tpot_p99_s", T::F64},    {"slo_attained", T::F64},
                                            {"queue_length", T::I64},  {"replicas_up", T::I32},
                                            {"replicas_wanted", T::I32}, {"busy_fraction", T::F64}};
// The completed requests kept by sampling (RequestRecord), per service in completion order.
inline constexpr Column SERVICE_REQUESTS[] = {{"service", T::I32},       {"replica", T::I32},
                                              {"request", T::I64},       {"arrival_s", T::F64},
                                              {"start_s", T::F64},       {"first_token_s", T::F64},
                                              {"end_s", T::F64},         {"prompt_tokens", T::I32},
                                              {"output_tokens", T::I32}};
}  // namespace detail

inline constexpr Table EVENTS{"events", detail::EVENTS};
inline constexpr Table UTILIZATION{"utilization", detail::UTILIZATION};
inline constexpr Table LEDGER{"ledger", detail::LEDGER};
inline constexpr Table BUDGET_EVENTS{"budget_events", detail::BUDGET_EVENTS};  // only with budgets:
inline constexpr Table JOBS{"jobs", detail::JOBS};
inline constexpr Table NODES{"nodes", detail::NODES};
inline constexpr Table POOLS{"pools", detail::POOLS};
inline constexpr Table PREEMPTIONS{"preemptions", detail::PREEMPTIONS};  // every preemption by the policy
// Every change of a node slot's state, with its reason (schema 4 traces written before it
// have none: readers take its absence as "unknown").
inline constexpr Table NODE_EVENTS{"node_events", detail::NODE_EVENTS};
// Every file the scenario was resolved against besides its own text (bundled and extra
// catalogs, traces, price CSVs, CSV tables), bytes included, so the run can be redone.
inline constexpr Table INPUTS{"inputs", detail::INPUTS};
// The bytes of the /inputs files, one after another: a 1-D uint8 dataset, not a table.
inline constexpr const char* INPUT_BYTES = "input_bytes";
inline constexpr Table LINKS{"links", detail::LINKS};  // only with a network: section
inline constexpr Table FLOWS{"flows", detail::FLOWS};  // only with output: {flows: true}
// Only with an elastic pool (`autoscale:`): each elastic pool's size and load whenever they
// change (one row per pool and instant, after the instant's scheduling pass), and every
// scale decision with its trigger (docs/autoscaling.md).
inline constexpr Table POOL_SIZES{"pool_sizes", detail::POOL_SIZES};
inline constexpr Table SCALE_DECISIONS{"scale_decisions", detail::SCALE_DECISIONS};
inline constexpr Table METRICS{"metrics", detail::METRICS};  // only with output: {metrics: ...}
// Only with output: {metrics: ...} and a network: section.
inline constexpr Table NODE_LATENCY{"node_latency", detail::NODE_LATENCY};
// Only when the run has services (`workload.services`, docs/serving.md): the three are
// written together, or none of them.
inline constexpr Table SERVICES{"services", detail::SERVICES};
inline constexpr Table SERVICE_SERIES{"service_series", detail::SERVICE_SERIES};
inline constexpr Table SERVICE_REQUESTS{"service_requests", detail::SERVICE_REQUESTS};

}  // namespace gcsim::trace::schema
