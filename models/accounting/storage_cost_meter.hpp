// What storage costs in a run, as an observer (STYLE.md point 5): it subscribes to the
// storage coupling's signals (reads ended, copies read and dropped) and the cluster's
// checkpoint and end-of-run signals, and posts the charges to the ledger when they become
// known (prices in models/storage/storage_spec.hpp):
//  * datasets on their shared tier for the whole run (at the end of the run), charged once
//    per dataset to the job that names it (no job when several do);
//  * staged copies on each node's NVMe from the start of the copy until evicted, lost with
//    the node, abandoned, or the end of the run;
//  * datasets declared on local NVMe on the job's nodes while it runs;
//  * reads out of a tier (requests, transfer, retrieval) when a job's run ends or a copy
//    completes or is abandoned, and what was read by the end of the run;
//  * checkpoints on their tier from the first commit to the end of the run.
#pragma once

#include <cstdint>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/config/scenario.hpp"
#include "models/coupling/storage_coupling.hpp"
#include "models/pricing/ledger.hpp"
#include "sim/engine.hpp"

namespace gcsim::models {

class StorageCostMeter {
 public:
  // Construct right after `storage`, so that its end-of-run charges come where the
  // storage model's came before it posted none.
  StorageCostMeter(const Scenario& scenario, const sim::Engine& engine, Cluster& cluster, StorageCoupling& storage,
                   Ledger& ledger);
  StorageCostMeter(const StorageCostMeter&) = delete;
  StorageCostMeter& operator=(const StorageCostMeter&) = delete;

  // All storage charges posted so far (stored data, transfer, requests), USD.
  double cost_usd() const { return cost_usd_; }

 private:
  void charge(sim::SimTime t, std::int32_t pool, std::int32_t node, std::int32_t job, ChargeCategory c, double usd);
  void charge_reads(sim::SimTime t, const StorageTierSpec& tier, double bytes, double file_bytes, std::int32_t job);
  // A run's streaming reads, and the dataset it kept on local NVMe while it ran.
  void charge_stream(sim::SimTime t, const Job& job, std::size_t tier, double samples);
  void charge_copy(const StagedCopy& c, sim::SimTime until);
  void on_run_ended(sim::SimTime end);
  double samples_done(const Job& job, sim::SimTime t) const;

  const Scenario& scenario_;
  const sim::Engine& engine_;
  const Cluster& cluster_;
  const StorageCoupling& storage_;
  Ledger& ledger_;
  std::vector<sim::SimTime> ckpt_stored_since_;  // by job id: first checkpoint commit
  double cost_usd_ = 0;
};

}  // namespace gcsim::models
