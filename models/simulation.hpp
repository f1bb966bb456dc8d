// One run of a scenario: builds the model objects from the validated specs (wiring only),
// runs the engine, and, when given a trace file, records it. No files are opened here:
// the front end creates the TraceFile and commits it.
#pragma once

#include <cstdint>
#include <optional>

#include "models/config/scenario.hpp"
#include "sim/trace/table_writer.hpp"

namespace gcsim::models {

struct RunOptions {
  std::uint64_t replication = 0;
  // Wall-clock run time is the one attribute that differs between identical runs; tests
  // of bit-for-bit reproducibility pin it.
  std::optional<double> fixed_wall_clock_s;
};

struct RunSummary {
  double end_s = 0;
  double wall_clock_s = 0;
  std::uint64_t events_handled = 0;
  std::size_t jobs_total = 0;
  std::size_t jobs_completed = 0;
  std::size_t jobs_running = 0;
  std::size_t jobs_never_started = 0;
  double total_cost_usd = 0;
  double busy_cost_usd = 0;
  // Storage charges posted to the run's ledger: stored data, transfer and requests
  // (docs/storage.md, "Costs"). Not part of total_cost_usd, which is node billing.
  double storage_cost_usd = 0;
};

RunSummary run_simulation(const Scenario& scenario, trace::TraceFile* trace, const RunOptions& options = {});

}  // namespace gcsim::models
