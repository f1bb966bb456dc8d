// One run of a scenario: builds the model objects from the validated specs (wiring only),
// runs the engine, and, when given a trace file, records it. No files are opened here:
// the front end creates the TraceFile and commits it.
#pragma once

#include <functional>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/pricing/ledger.hpp"
#include "models/run/component.hpp"
#include "models/serving/service_records.hpp"
#include "models/spot/spot_market.hpp"
#include "sim/trace/table_writer.hpp"

namespace gcsim::models {

class SchedulerRegistry;
struct Job;

// A scheduler section that replaces the scenario's for one run (RunOptions::scheduler).
struct SchedulerChoice {
  SchedulerSpec spec;
  // The whole scenario with this `scheduler:` section in it, as the trace embeds it so that
  // `gcsim rerun` reruns this variant (models/config/scheduler_variant.hpp,
  // with_scheduler_section). Required when the run writes a trace.
  std::string source_text;
};

// What differs between runs of one Scenario, so that a seed sweep shares one const
// Scenario between runs instead of copying it. Every random stream derives from
// (seed, replication, stream name).
struct RunOptions {
  std::optional<std::uint64_t> seed;  // default: the scenario's `seed`
  std::uint64_t replication = 0;
  // Wall-clock run time is the one attribute that differs between identical runs; tests
  // of bit-for-bit reproducibility pin it.
  std::optional<double> fixed_wall_clock_s;
  // The trace records the scenario's and inputs' paths as absolute paths of this machine
  // (`gcsim run --absolute-paths`); by default relative to the scenario, and the bundled
  // catalogs as "<bundled>/..." (config::paths_for_trace).
  bool absolute_paths = false;
  // The most events the run may handle (gcsim's --max-events; 0: no limit). The estimate
  // checks a scenario before it runs; this stops, with an Error, a run that passes the
  // limit anyway (an event storm the estimate does not see), and its trace is not committed.
  std::uint64_t max_events = 0;
  // The trace's deflate level, in place of the scenario's output.compression (gcsim's
  // --trace-compression); 0 to 9 (trace::MIN/MAX_COMPRESSION_LEVEL).
  std::optional<int> trace_compression;
  // Encode the trace's chunks on a thread of their own (trace::TraceOptions::encoding_thread):
  // the same file, sooner, for a run with a core to spare (gcsim run; not the runs of a
  // compare or sweep, which keep every core busy already).
  bool trace_encoding_thread = false;
  // The scheduling policy to run, in place of the scenario's `scheduler:` section: a policy
  // sweep (gcsim compare) runs every variant over one shared, read-only Scenario instead of
  // a Scenario per variant. Null: the scenario's own. Shared, so that copies of the options
  // (one RunSpec per replication) hold one copy of it.
  std::shared_ptr<const SchedulerChoice> scheduler;
  // The registered parts the run is composed of (models/run/component.hpp); null: the
  // built-in ones, builtins().components. A test may pass a registry with parts of its own.
  const ComponentRegistry* parts = nullptr;
  // Parts of this run only, built after the registered ones, in this order (a caller's
  // observer, a test's controller; later autoscalers, samplers, request generators).
  std::vector<ComponentFactory> components;
  // The run's jobs, expanded by the caller (take_workload, models/coupling/expand_workload.hpp)
  // and moved from by the run, in place of expanding the scenario's workload: `gcsim run`
  // expands them and releases the scenario's written-out JobSpecs before the run, so that a
  // job is held once, by the cluster (docs/engine.md, "A million jobs"). Null: the run
  // takes the workload's jobs itself, as it reaches them where the scenario allows
  // (stream_jobs, streamable()), else expanded before it (a compare or sweep shares one
  // Scenario between runs).
  std::vector<Job>* jobs = nullptr;
  // What the estimate gave for the run's events, when the caller computed it before it
  // released the written-out jobs: the event limit's message quotes it. Unset: computed.
  std::optional<double> estimated_events;
  // Without `jobs`, a streamable scenario's jobs are taken as the run reaches them rather
  // than expanded before it (docs/engine.md, "Jobs taken as they come"): the same trace.
  // False expands them up front (tests compare the two).
  bool stream_jobs = true;
};

struct RunSummary {
  double end_s = 0;
  double wall_clock_s = 0;
  // CPU seconds of this thread in the event loop alone (from the cluster's start to the
  // engine's last event): the simulation's own cost, without loading, workload expansion
  // or building the models; what bench/scheduler_bench reports. Never in the trace.
  double loop_cpu_s = 0;
  std::uint64_t events_handled = 0;
  std::size_t jobs_total = 0;
  std::size_t jobs_completed = 0;
  std::size_t jobs_running = 0;
  std::size_t jobs_never_started = 0;             // submitted by the horizon
  std::size_t jobs_submitted_after_horizon = 0;   // never came: the run ended first (never made, or given and left out)
  std::size_t jobs_interrupted = 0;  // interrupted and waiting to restart at the end
  double total_cost_usd = 0;
  double busy_cost_usd = 0;
  // Storage charges posted to the run's ledger: stored data, transfer and requests
  // (docs/storage.md, "Costs"); part of total_cost_usd, like every ledger charge.
  double storage_cost_usd = 0;
  std::array<double, CHARGE_CATEGORIES> cost_by_category_usd{};
  std::size_t interruptions = 0;   // job runs ended by a lost node or a budget stop
  double lost_gpu_h = 0;           // GPU-hours of work redone
  // What parts of the run want said beside the figures (the as-recorded replay's counts),
  // one line each; `gcsim run` prints them as notes.
  std::vector<std::string> notes;
  // Each service's figures over the run (`workload.services`; docs/serving.md), in
  // scenario order; `gcsim run` prints a line each.
  std::vector<serving::ServiceTotals> services;
};

// Reentrant: runs in other threads at the same time share nothing with this one but the
// const Scenario (and the catalogs it points into), which only reading touches. An
// exception (gcsim::Error, InternalError) ends this run alone; the trace is then not
// committed and its temporary file goes when the caller destroys it. The scheduling policy
// is built from scenario.scheduler by `schedulers`, the registry the scenario was loaded
// against (an unknown policy is an Error).
RunSummary run_simulation(const Scenario& scenario, const SchedulerRegistry& schedulers, trace::TraceFile* trace,
                          const RunOptions& options = {});

// One run into a trace at `trace_path`: the trace is written to a temporary file and takes
// its name only once the run has ended well (sim/atomic_file.hpp); on any exception
// nothing is left at `trace_path` and the temporary file is removed.
RunSummary run_simulation_to(const Scenario& scenario, const SchedulerRegistry& schedulers, const std::string& trace_path,
                             const RunOptions& options = {});

// The same, with the tables and byte arrays that `to_copy(name)` picks written to `copy`
// too (trace::TeeTrace), which is committed after the file: a copy in memory the caller
// computes the run's figures from (trace::MemoryTrace, analysis::SummaryTrace), so the file
// is never read back.
RunSummary run_simulation_to(const Scenario& scenario, const SchedulerRegistry& schedulers, const std::string& trace_path,
                             const RunOptions& options, trace::TraceFile& copy,
                             const std::function<bool(const std::string&)>& to_copy);

// A run with no file: the tables and byte arrays that `to_copy(name)` picks go to `copy`,
// the others nowhere (no HDF5, whose library-wide lock would make concurrent runs take
// turns); `copy` is committed when the run has ended well.
RunSummary run_simulation_into(const Scenario& scenario, const SchedulerRegistry& schedulers, const RunOptions& options,
                               trace::TraceFile& copy, const std::function<bool(const std::string&)>& to_copy);

// The spot pools of `scenario`, as run_simulation hands them to the spot market (the
// node types with `market: spot`, each with its first node's index); tests that build a
// Cluster themselves wire the market from the same list.
std::vector<SpotPoolSpec> spot_pools(const Scenario& scenario);

// The scheduler section a run of `scenario` with `options` uses.
inline const SchedulerSpec& run_scheduler(const Scenario& scenario, const RunOptions& options) {
  return options.scheduler ? options.scheduler->spec : scenario.scheduler;
}

// The seed a run of `scenario` with `options` uses.
inline std::uint64_t run_seed(const Scenario& scenario, const RunOptions& options) {
  return options.seed.value_or(scenario.seed);
}

}  // namespace gcsim::models
