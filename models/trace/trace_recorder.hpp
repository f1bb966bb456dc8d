// Writes gcsim's trace tables (docs/trace-format.md) as an observer of the cluster: /events,
// /utilization, /ledger, /node_events and /budget_events as things happen, /jobs, /nodes, /pools,
// /preemptions and the root attributes when the run ends. The network's tables are written next door
// (network_tables.hpp). Names, columns and labels come from schema.hpp, which analysis/
// reads with; the trace file itself (HDF5, temp-file-then-rename) is sim/trace's business.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "models/accounting/cost_meter.hpp"
#include "models/cluster/cluster.hpp"
#include "models/controllers/budgets.hpp"
#include "models/coupling/model_speeds.hpp"
#include "models/trace/schema.hpp"
#include "models/trace/schema_tables.hpp"
#include "sim/block_list.hpp"
#include "sim/trace/table_writer.hpp"

namespace gcsim::models {


class TraceRecorder {
 public:
  TraceRecorder(trace::TraceFile& file, const Scenario& scenario, std::uint64_t seed, std::uint64_t replication,
                Cluster& cluster,
                const CostMeter& costs, const ModelSpeeds& speeds, Ledger& ledger, BudgetWatcher* budgets);

  // Root attributes known only after the run; call before TraceFile::commit().
  void finish(double wall_clock_s);
  // Record the scenario's and the inputs' paths as absolute paths of this machine, not
  // relative to the scenario (config::paths_for_trace; RunOptions::absolute_paths).
  void record_absolute_paths(bool absolute) { absolute_paths_ = absolute; }
  // The scenario text the trace embeds when the run's scheduler is not the scenario's own
  // (RunOptions::scheduler): the scenario with the run's `scheduler:` section in it.
  void record_scenario_text(std::string_view text) { scenario_text_ = text; }

 private:
  void event(trace::schema::EventKind kind, sim::SimTime t, std::int64_t job, std::int32_t node);
  void utilization(sim::SimTime t);
  void node_event(const NodeTransition& t);
  void flush_utilization();
  void write_jobs();
  void write_nodes();
  void write_pools();
  void write_inputs();
  void write_preemptions();
  void preemption_stopped(const Job& j);
  void restart_began(const Job& j);

  // A /preemptions row but its restore (restores_), complete once the job's next run has
  // spent its restore. 56 bytes: a saturated million-job las run makes 3 million.
  struct PreemptionRow {
    double time_s = 0;
    double save_s = 0;
    double save_gpu_s = 0;
    double saved_gpu_s = 0;
    double lost_gpu_s = 0;
    std::uint32_t job = 0;
    std::int32_t gpus = 0;
    std::uint8_t reason = 0;
    std::uint8_t mode = 0;
  };
  struct Restore {
    double s = 0;
    double gpu_s = 0;
  };
  Restore restore_of(std::size_t row) const { return restores_.empty() ? Restore{} : restores_[row]; }
  void set_restore(std::size_t row, Restore r);

  trace::TraceFile& file_;
  const Scenario& scenario_;
  std::uint64_t seed_;
  std::uint64_t replication_;
  bool absolute_paths_ = false;
  std::string_view scenario_text_;  // empty: the scenario's own source_text
  const Cluster& cluster_;
  const CostMeter& costs_;
  const ModelSpeeds& speeds_;
  // Written from the event loop, a block of rows at a time (trace::BlockedRows): flushed
  // by finish(), after which a row is an InternalError (it would never reach the file).
  std::optional<trace::BlockedRows> events_;  // none with output.events false
  trace::BlockedRows utilization_;
  trace::BlockedRows ledger_;
  bool finished_ = false;
  trace::Table& node_events_;
  trace::Table* budget_events_ = nullptr;
  std::vector<int> node_downs_;  // spot interruptions
  std::vector<double> last_down_s_;
  std::vector<double> first_up_s_;  // NaN while a node down from the start has not come up
  // Kept to the run's end (a row's restore is known only when the job restarts): by
  // blocks, so that millions of rows never hold a doubled buffer (sim/block_list.hpp).
  sim::BlockList<PreemptionRow> preemptions_;
  // By row, each preemption's restore; empty while every one is zero (no restore time, as
  // under las without a `preemption` map), so that such runs keep no column of zeros.
  sim::BlockList<Restore> restores_;
  // By job: the row of its last preemption while its restore is still to come or going on, else -1.
  std::vector<std::int64_t> open_preemption_;
  // The utilization row for the current instant is held back until time moves on, so that
  // several changes at one instant give one row.
  bool util_pending_ = false;
  sim::SimTime util_time_;
  double util_value_ = -1;
  double util_written_ = -1;
  int util_total_ = 0;
  int util_total_written_ = -1;
};

}  // namespace gcsim::models
