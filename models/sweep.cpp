// Many runs on a pool of threads (see sweep.hpp).
#include "models/sweep.hpp"

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "sim/check.hpp"
#include "sim/parallel.hpp"
#include "sim/errors.hpp"
#include "sim/trace/table_writer.hpp"

#ifndef GCSIM_HDF5_THREADSAFE
#define GCSIM_HDF5_THREADSAFE 1
#endif

namespace gcsim::models {

namespace {

// Held by a run for as long as it has a trace open when HDF5 is not thread-safe. The one
// piece of process-wide state here, and it guards a process-wide library.
std::mutex& serial_hdf5_mutex() {
  static std::mutex m;
  return m;
}

std::string run_label(const RunOutcome& o) {
  return "scenario '" + o.scenario + "' (seed " + std::to_string(o.seed) + ", replication " +
         std::to_string(o.replication) + ")";
}

void record_failure(RunOutcome& o, const std::string& label, RunFailure kind, const char* what) {
  o.summary.reset();
  o.trace_path.clear();
  o.failure = kind;
  o.error = label + ": " + what;
  o.exception = std::current_exception();
}

void run_one(const Catalogs& catalogs, const SchedulerRegistry& schedulers, RunSpec& spec, RunOutcome& out) {
  out.replication = spec.options.replication;
  // Until the scenario is known, the message names the file the document came from.
  std::string label = spec.document ? "scenario file '" + spec.document->file + "'" : std::string("scenario");
  try {
    std::shared_ptr<const Scenario> scenario = spec.scenario;
    if (!scenario) {
      scenario = std::make_shared<const Scenario>(load_scenario(std::move(*spec.document), catalogs, schedulers));
      spec.document.reset();
    }
    out.scenario = scenario->name;
    out.seed = run_seed(*scenario, spec.options);
    label = run_label(out);

    const auto all_tables = [](const std::string&) { return true; };
    const std::function<bool(const std::string&)> kept = spec.in_memory_tables ? spec.in_memory_tables : all_tables;
    if (spec.output_stem.empty() && spec.read_in_memory) {
      const std::unique_ptr<trace::TraceFile> copy = spec.make_copy(label);
      out.summary = run_simulation_into(*scenario, schedulers, spec.options, *copy, kept);
      spec.read_in_memory(*copy, label);
      return;
    }
    if (spec.output_stem.empty()) {
      out.summary = run_simulation(*scenario, schedulers, nullptr, spec.options);
      return;
    }
    std::unique_lock<std::mutex> serial;
    if (!GCSIM_HDF5_THREADSAFE) serial = std::unique_lock<std::mutex>(serial_hdf5_mutex());
    const std::string path = spec.output_stem + ".h5";
    if (spec.read_in_memory) {
      const std::unique_ptr<trace::TraceFile> copy = spec.make_copy(label);
      out.summary = run_simulation_to(*scenario, schedulers, path, spec.options, *copy, kept);
      out.trace_path = path;
      spec.read_in_memory(*copy, label);
      return;
    }
    out.summary = run_simulation_to(*scenario, schedulers, path, spec.options);
    out.trace_path = path;
  } catch (const InternalError& e) {
    record_failure(out, label, RunFailure::Internal, e.what());
  } catch (const Error& e) {
    record_failure(out, label, RunFailure::User, e.what());
  } catch (const std::exception& e) {
    record_failure(out, label, RunFailure::Internal, e.what());
  } catch (...) {
    record_failure(out, label, RunFailure::Internal, "unknown exception");
  }
}

}  // namespace

std::string output_stem(const std::string& folder, const Scenario& scenario, const RunOptions& options) {
  std::string stem = folder;
  if (!stem.empty() && stem.back() != '/') stem += '/';
  return stem + scenario.name + "-seed" + std::to_string(run_seed(scenario, options)) + "-rep" +
         std::to_string(options.replication);
}

std::vector<RunOutcome> run_many(const Catalogs& catalogs, const SchedulerRegistry& schedulers, std::vector<RunSpec> runs,
                                 int threads) {
  std::set<std::string> stems;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunSpec& r = runs[i];
    if (static_cast<bool>(r.scenario) == r.document.has_value()) {
      throw Error("run_many: run " + std::to_string(i) + " needs exactly one of a scenario and a document");
    }
    if (static_cast<bool>(r.read_in_memory) != static_cast<bool>(r.make_copy)) {
      throw Error("run_many: run " + std::to_string(i) + " needs both or neither of read_in_memory and make_copy");
    }
    // Equal stems would not clash while writing (temporary names are unique) but the
    // second rename would silently replace the first run's trace.
    if (!r.output_stem.empty() && !stems.insert(r.output_stem).second) {
      throw Error("run_many: two runs write '" + r.output_stem + ".h5'");
    }
  }

  std::vector<RunOutcome> outcomes(runs.size());
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::size_t workers = std::min<std::size_t>(static_cast<std::size_t>(threads), runs.size());
  // run_one catches everything, so every outcome is filled and nothing is rethrown.
  sim::parallel_for(runs.size(), workers,
                    [&](std::size_t i) { run_one(catalogs, schedulers, runs[i], outcomes[i]); });
  return outcomes;
}

}  // namespace gcsim::models
