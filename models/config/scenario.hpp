// The validated scenario: typed specs built from a scenario file by scenario_loader.
// Everything here is checked (units, ranges, references, feasibility), so model objects
// built from it never re-validate user input. SI units throughout.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/serving/service_spec.hpp"
#include "models/config/cluster_spec.hpp"
#include "models/gpu/gpu_spec.hpp"
#include "models/scheduler/scheduler_spec.hpp"
#include "models/storage/storage_spec.hpp"
#include "models/topology/topology_spec.hpp"
#include "models/workload/boxed.hpp"
#include "models/workload/checkpoint_spec.hpp"
#include "models/workload/comm_spec.hpp"
#include "models/workload/distribution.hpp"
#include "models/workload/recorded_node.hpp"
#include "models/workload/training.hpp"
#include "models/workload/week_rate.hpp"
#include "sim/calendar.hpp"
#include "sim/config/source_resolver.hpp"
#include "sim/errors.hpp"
#include "sim/time.hpp"
#include "sim/trace/chunk_filters.hpp"

namespace gcsim::models {

// A user's estimate of a job's run time (what sjf, srtf and backfill may rank by, with
// `lengths: estimate`): a stated run time, or the true length times a lognormal error
// exp(sigma Z), Z ~ N(0, 1), so its median is the truth (docs/scheduling.md, "Lengths").
struct EstimateSpec {
  std::optional<sim::SimTime> given;
  double sigma = 0;  // the error's; used when nothing is given
};

// A job written out in the scenario. Exactly one of duration / work_flop / training is set.
// What few jobs have is boxed out of line (models/workload/boxed.hpp), so a plain job costs
// about sizeof(JobSpec) plus its name (docs/engine.md, "A million jobs"). Its place in the
// scenario is its index: the key path "workload.jobs[i]" (job_path) and, for errors, the
// node the reader keeps or re-reads (WorkloadSection::for_each_job_node).
struct JobSpec {
  std::string name;
  sim::SimTime submit;
  sim::SimTime image_pull;     // container start on every (re)start, before progress
  std::optional<sim::SimTime> duration;
  std::optional<double> work_flop;
  double efficiency = 0.4;     // fraction of peak achieved (work jobs only)
  std::uint64_t node_type_mask = ~std::uint64_t{0};  // node types with one of them (resolve step)
  std::optional<sim::SimTime> deadline;  // after submit: when it should be done (cost-aware, spot-fallback)
  Boxed<TrainingSpec> training;          // a model-described job: runs at the step-time model's speed
  Boxed<CommSpec> comm;                  // duration jobs that talk over the network
  Boxed<CheckpointSpec> checkpoint;
  Boxed<EstimateSpec> estimate;
  std::vector<std::string> gpu_types;    // the GPUs it accepts (key `gpu`, canonical names); empty: any
  std::int32_t gpus = 1;
  // Its share of its GPU in thousandths (key `gpu_milli`): 1000, the whole GPU, or less for
  // a one-GPU job that shares its GPU with other such jobs (docs/scheduling.md, "GPU shares").
  std::int16_t gpu_milli = 1000;
  std::int16_t priority = 0;   // its class for `policy: priority` (higher first), -1000..1000
  std::int16_t team = -1;      // budget owner: index into WorkloadSpec::teams; -1 for none
  Precision precision = Precision::Fp32;
  // Its status as a trace recorded it: 0 for none (not from a trace, or a format without
  // one), else 1 + its index in WorkloadSpec::recorded_statuses.
  std::uint8_t recorded_status = 0;
};

// A job as a trace recorded it, for the as-recorded replay (docs/traces.md, "Modes"; the
// `recorded` policy): its recorded wait from its submit to its start in whole seconds
// (the traces' resolution), and the node (index in the cluster) of its recorded machine;
// -1 when not known. Out of JobSpec, which only such a replay would make bigger. A job
// recorded over several machines, the same GPUs on each, has its nodes in
// WorkloadSpec::recorded_node_sets (models/workload/recorded_node.hpp).
struct RecordedRun {
  std::int32_t wait_s = -1;
  std::int32_t node = -1;
};

// The key path of written-out job i, "workload.jobs[i]", for messages about it.
inline std::string job_path(std::size_t i) { return "workload.jobs[" + std::to_string(i) + "]"; }

// A stream of jobs drawn from distributions. Each field draws from its own named random
// stream ("workload.generators.<name>.<field>"), so adding a field or a generator never
// changes what the others draw.
struct GeneratorSpec {
  std::string name;
  std::int64_t count = 0;
  sim::SimTime start;                    // first arrival is start + one inter-arrival draw
  Distribution arrival;                  // inter-arrival time, seconds
  // Arrivals only inside these hours of the week: the inter-arrival times run on a clock
  // that stops outside them (unset: always).
  std::optional<sim::WeekCalendar> active;
  // Arrivals at a rate by hour of the week, in place of `arrival` (unset: `arrival`).
  std::optional<WeekRate> rate;
  // No job arrives at or after `end`: the generator stops there, with `count` at most.
  std::optional<sim::SimTime> end;
  Distribution gpus;                     // rounded to an integer, >= 1
  std::optional<Distribution> gpu_milli;  // one-GPU jobs' share of their GPU, rounded, 1..1000 (unset: 1000)
  std::optional<Distribution> duration;  // seconds
  std::optional<Distribution> work;      // FLOP
  Precision precision = Precision::Fp32;
  Distribution efficiency = Distribution::constant(0.4);
  std::optional<CheckpointSpec> checkpoint;
  sim::SimTime image_pull;
  std::string team;
  // `team: {choice: [...], weights: [...]}`: each job's team drawn among these (team empty).
  std::vector<std::string> team_choice;
  std::vector<double> team_weights;
  int priority = 0;                      // every job of the generator gets it
  std::optional<sim::SimTime> deadline;  // after each job's submit
  std::vector<std::string> gpu_types;    // as for jobs
  std::uint64_t node_type_mask = ~std::uint64_t{0};
  std::optional<EstimateSpec> estimate;  // the error form only
  SourceMark mark;
  std::string path;
};

struct WorkloadSpec {
  std::vector<JobSpec> jobs;
  SourceMark jobs_mark;  // where the first written-out job is (inline map, or CSV row)
  std::vector<GeneratorSpec> generators;
  // `workload.services` (docs/serving.md): request streams served by replicas placed as jobs.
  std::vector<serving::ServiceSpec> services;
  std::vector<std::string> teams;  // every team named by a job or generator, sorted
  // By job index, for a trace replayed as recorded (jobs written beside it have none);
  // empty otherwise.
  std::vector<RecordedRun> recorded;
  // The node sets of runs recorded over several machines: at each set's offset its count
  // n >= 2, then its n nodes (RecordedRun::node). Empty when there are none.
  std::vector<std::int32_t> recorded_node_sets;
  // The statuses a trace recorded for its jobs (JobSpec::recorded_status), in the order
  // first met; at most MAX_RECORDED_STATUSES, the rest read as OTHER_RECORDED_STATUS.
  std::vector<std::string> recorded_statuses;
  static constexpr std::size_t MAX_RECORDED_STATUSES = 255;
  static constexpr std::string_view OTHER_RECORDED_STATUS = "(other)";
  // What a trace's parsed job file held while it was read (TraceImportReport::
  // document_bytes: a JSON log's tree), for the load's part of the memory estimate.
  std::size_t trace_document_bytes = 0;
  int team_index(std::string_view team) const;  // -1 for none
  // A job's team by name ("" for none); JobSpec::team is its index.
  std::string_view team_name(int team) const { return team < 0 ? std::string_view() : std::string_view(teams[static_cast<std::size_t>(team)]); }
};

// A spending limit per team over a period (docs/pricing.md, "Budgets"): when the team's
// charges in the current period reach `limit_usd`, `action` happens; a new period starts
// afresh. Checked whenever a charge is posted and every `check_every`.
// StopInstances: as StopRunning, and the elastic pools give back the nodes the stopped jobs
// held as soon as they are idle (the autoscaler; docs/autoscaling.md, "Budgets").
enum class BudgetAction : std::uint8_t { Alert = 0, StopNew = 1, StopRunning = 2, StopInstances = 3 };
struct BudgetSpec {
  std::string team;
  double limit_usd = 0;
  sim::SimTime period;        // zero: the whole run
  BudgetAction action = BudgetAction::Alert;
  double alert_fraction = 0;  // also alert (once a period) at this share of the limit; 0 for none
  sim::SimTime check_every = sim::seconds(3600);
  SourceMark mark;
  std::string path;
};

// output.request_rows: the most rows of /service_requests per service (docs/serving.md).
inline constexpr std::int64_t DEFAULT_REQUEST_ROWS = 1'000'000;
inline constexpr std::int64_t MAX_REQUEST_ROWS = 100'000'000;  // about 6 GB of kept rows per service

struct OutputSpec {
  std::string trace;  // file name of the trace; default "<name>.h5"
  bool flows = false; // write the /flows table (one row per network flow)
  bool events = true; // write the /events table (output.events)
  // The trace's deflate level, 0 (none) to 9; a run may override it (RunOptions).
  int compression = trace::DEFAULT_COMPRESSION_LEVEL;
  // output.metrics.every: the interval of the simulated GPU metrics (docs/metrics.md);
  // zero: no /metrics table.
  sim::SimTime metrics_every = sim::SimTime::zero();
  // output.request_rows: the completed requests of each service kept in /service_requests
  // by systematic sampling (models/trace/service_tables.hpp); 0: none.
  std::int64_t request_rows = DEFAULT_REQUEST_ROWS;
  // output.service_interval: the interval of the services' samples (ServiceSample).
  sim::SimTime service_interval = sim::seconds(60);
};

// When a run stops: at the horizon (the default: the planning period, for which a fixed
// cluster is provisioned and billed), or as soon as every job has finished (rented pools are
// given back then; owned and reserved pools still accrue to the horizon, docs/pricing.md).
enum class RunUntil { Done, Horizon };

struct Scenario {
  std::string name;
  std::uint64_t seed = 0;  // the default; a run may override it (RunOptions::seed)
  sim::SimTime horizon;
  RunUntil run_until = RunUntil::Horizon;
  ClusterSpec cluster;
  SchedulerSpec scheduler;
  WorkloadSpec workload;
  std::vector<BudgetSpec> budgets;
  std::optional<topology::NetworkSpec> network;
  std::optional<StorageSpec> storage;
  OutputSpec output;
  // `alerts:` (docs/alerts.md), checked and written out as a Prometheus rules file; empty
  // without. The trace carries it (root attribute `alert_rules`) for the analysis.
  std::string alert_rules_yaml;

  // Provenance, embedded in every trace so any run can be redone.
  std::string source_file;
  std::string source_text;
  std::string gpu_catalog_yaml;  // the resolved GPU entries used, as YAML
  // Bundled instance rows that the scenario's `catalogs.instances` files replaced, one line
  // each (InstanceCatalog::overrides); validate and run print them.
  std::vector<std::string> catalog_overrides;
  // The import report of a `workload.trace` (docs/traces.md, "The import report"): rows
  // read, jobs made, skipped by reason, time span, GPU-hours, one line each; validate and
  // run print them. Empty without a trace.
  std::vector<std::string> import_report;
  // Every other file the scenario was resolved against: the bundled catalogs and each file
  // it names (extra catalogs, instance CSVs, traces, price CSVs, CSV tables), with bytes.
  std::vector<config::SourceRecord> inputs;
};

// Whether a run may take the scenario's jobs as it reaches them (Cluster's streamed mode,
// docs/engine.md "Jobs taken as they come"): every job is plain (no model, no comm, no
// share of a GPU: their couplings and the GPU-room view are set up from the jobs given
// when the run is built) and no service submits replicas among them (their ids would
// interleave with the jobs').
bool streamable(const Scenario& scenario);

}  // namespace gcsim::models
