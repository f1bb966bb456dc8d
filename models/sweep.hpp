// Many simulations in one process: run_many() runs a list of runs on a pool of threads
// and returns one outcome per run, in the order given. Built on load_scenario() and
// run_simulation(): the catalogs and the scheduler registry are the caller's, only read; each run
// owns its engine, models, random streams and trace. A run that throws (a user error, an
// InternalError from a broken invariant, anything else) ends alone: its outcome holds the
// message, which names the scenario, seed and replication, and the other runs go on.
// (docs/engine.md, "Many simulations in one process".)
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/config/scenario_loader.hpp"
#include "models/simulation.hpp"
#include "sim/config/config_node.hpp"
#include "sim/trace/trace_reader.hpp"

namespace gcsim::models {

struct RunSpec {
  // Exactly one of the two: a scenario already loaded (shared, read-only, by any number
  // of runs: a seed sweep loads it once), or a parsed document that the run loads against
  // the shared catalogs (its validation errors are then that run's failure).
  std::shared_ptr<const Scenario> scenario;
  std::optional<config::ConfigDocument> document;
  // Seed (default: the scenario's), replication, pinned wall clock, and the policy: a policy
  // sweep gives every variant the same `scenario` and its own `options.scheduler`
  // (RunOptions::scheduler), so the workload is held once (gcsim compare does).
  RunOptions options;
  // The trace goes to "<output_stem>.h5"; no trace when empty. The folder must exist
  // (the front end makes folders). Two runs of one call may not share a stem.
  std::string output_stem;
  // When set, the trace is also written to a copy in memory, which make_copy (also to be
  // set) makes for the run, on its thread, given its label: a TraceFile that keeps or folds
  // what the caller needs (trace::MemoryTrace, analysis::SummaryTrace). With no
  // output_stem there is no file and no HDF5; with one, the file's tables are copied as
  // they are written (trace::TeeTrace). Once the run has ended well, the copy is committed
  // and handed to read_in_memory, on the run's thread; then it is dropped. What the caller
  // wants of it (a run's figures) it takes there, never reading the file back. An exception
  // it throws is the run's failure.
  std::function<std::unique_ptr<trace::TraceFile>(const std::string& label)> make_copy;
  std::function<void(trace::TraceFile& copy, const std::string& label)> read_in_memory;
  // The tables (and byte arrays) written to the copy; unset: every one.
  std::function<bool(const std::string& table)> in_memory_tables;
};

enum class RunFailure {
  None,
  User,      // gcsim::Error: the scenario or its files (exit code 2 in the CLI)
  Internal,  // InternalError or any other exception: a bug in gcsim (exit code 1)
};

struct RunOutcome {
  std::string scenario;  // the scenario's name, or its file when it did not load
  std::uint64_t seed = 0;
  std::uint64_t replication = 0;
  std::string trace_path;             // the committed trace; empty on failure or without a stem
  std::optional<RunSummary> summary;  // set when the run succeeded
  RunFailure failure = RunFailure::None;
  // "scenario 'NAME' (seed S, replication R): WHAT" (or "scenario file 'F': WHAT").
  std::string error;
  std::exception_ptr exception;  // the original exception, to rethrow if wanted
  bool ok() const { return failure == RunFailure::None; }
};

// "<folder>/<name>-seed<S>-rep<R>": a stem that differs for every (scenario, seed,
// replication), so a sweep into one folder cannot overwrite its own outputs.
std::string output_stem(const std::string& folder, const Scenario& scenario, const RunOptions& options);

// Runs every spec, at most `threads` at once (<= 0: one per hardware thread). Throws
// gcsim::Error before running anything when a spec is malformed (neither or both of
// scenario and document) or two specs share an output stem; never throws for a failing
// run. When HDF5 is not built thread-safe (GCSIM_HDF5_THREADSAFE 0, see CMakeLists.txt),
// runs that write traces run one at a time. Documents are loaded, and every run's policy is
// built, against `schedulers`.
std::vector<RunOutcome> run_many(const Catalogs& catalogs, const SchedulerRegistry& schedulers, std::vector<RunSpec> runs,
                                 int threads);

}  // namespace gcsim::models
