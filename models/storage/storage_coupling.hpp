// Couples running model-described jobs to the storage tiers they read from: readers of one
// shared tier (shared-fs, object-store, archive), or of one node's local NVMe, divide its
// read bandwidth; a job that stages its dataset to local NVMe first is a reader of the
// source tier while it copies, holding its GPUs without progress until the copy ends; and
// what is stored and read is charged to the cost ledger. An observer of the cluster's job
// signals; it changes jobs' speeds through ModelSpeeds and holds their progress through
// Cluster::hold_progress_until.
//
// Sharing (docs/storage.md, "Storage in runs"): max-min fairness with demands over the
// tier's device time, as in SharedTier (progressive filling, Bertsekas & Gallager 1992,
// section 6.5.2). Job j reading files of size F_j:
//   bandwidth  B_j = min(R_read, IOPS · F_j)            (× nodes for local NVMe)
//   demand     D_j = samples per step · F_j / max(GPU time, other input time)
//              (the read rate at which storage stops limiting it)
//   cap        C_j = its read throughput alone (read_throughput_bytes_per_s)
//   shares     s_j ≤ min(D_j, C_j) / B_j, Σ s_j ≤ 1, max-min fair; its rate is s_j · B_j.
// A job whose rate reaches its demand runs at its unlimited speed; the others run at the
// step-time model's speed with HardwareContext::storage_read_bytes_per_s = s_j · B_j.
// A staging copy is a member of the source tier's group whose demand is its cap: the
// source's throughput alone for its files on each node it copies to, at most the NVMe write
// bandwidth of those nodes; it ends when its bytes have moved at the shares it got.
//
// Costs (storage_spec.hpp, posted to the Ledger when they become known): datasets on their
// tier for the whole run (at the end of the run); staged copies on each node's NVMe from
// the start of the copy until evicted or the end of the run; datasets declared on local
// NVMe on the job's nodes while it runs; reads out of a tier (requests, transfer,
// retrieval) when a job ends or a copy completes, and what was read by the end of the run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/cluster.hpp"
#include "models/config/scenario.hpp"
#include "models/pricing/ledger.hpp"
#include "models/storage/staging_cache.hpp"
#include "models/workload/model_speeds.hpp"
#include "sim/engine.hpp"

namespace gcsim::models {

class StorageCoupling {
 public:
  // Subscribes to the cluster's job_started / job_finished / run_ended; `speeds` must have
  // been constructed first. `scenario.storage` must be set.
  StorageCoupling(const Scenario& scenario, sim::Engine& engine, Cluster& cluster, ModelSpeeds& speeds,
                  Ledger& ledger);
  StorageCoupling(const StorageCoupling&) = delete;
  StorageCoupling& operator=(const StorageCoupling&) = delete;

  // The staging cache of a node (nullptr when nothing was ever staged there).
  const StagingCache* staging_cache(std::uint32_t node) const;
  // Read rate a running job currently gets from its tier, bytes/s (0 when not coupled);
  // while it stages, the rate of its copy.
  double read_bytes_per_s(std::uint32_t job) const;
  // All storage charges posted so far (stored data, transfer, requests), USD.
  double cost_usd() const { return cost_usd_; }

 private:
  struct Reader {
    std::uint32_t job = 0;
    double bandwidth = 0;     // B_j
    double demand = 0;        // D_j (a copy: its cap)
    double cap = 0;           // C_j
    double rate = 0;          // current share, bytes/s
    bool staging = false;     // a staging copy, not a streaming job
    bool writing = false;     // a checkpoint write (a job may also be a reader of the tier)
    double remaining = 0;     // a copy: bytes left as of `updated`
    sim::SimTime updated = sim::SimTime::zero();
  };
  // Readers of one tier (node = -1) or of one node's local NVMe, by job id.
  struct Group {
    std::size_t tier;
    std::int64_t node;
    std::vector<Reader> readers;
  };
  // A copy to local NVMe in progress: the nodes it writes to, and jobs on those nodes
  // that wait for the same dataset.
  struct Staging {
    std::uint32_t job;
    std::size_t source;
    std::string key;
    std::vector<std::uint32_t> nodes;
    double bytes = 0;          // the dataset (each node gets all of it)
    sim::SimTime done_at;      // predicted end
    sim::EventId event;        // retrieval end, then copy end
    bool copying = false;      // past the archive's retrieval delay
    std::vector<std::uint32_t> waiters;
  };
  // A dataset copy on one node's NVMe, charged from `since` until evicted.
  struct Copy {
    std::uint32_t node;
    std::string key;
    double bytes;
    sim::SimTime since;
    std::int32_t job;
  };

  void on_started(const Job& job);
  void on_finished(const Job& job);
  void on_stopped(const Job& job);
  void on_checkpoint_started(const Job& job);
  void end_write(std::uint32_t job);  // removes its checkpoint writer, if any, and re-shares
  void on_node_down(std::uint32_t node);
  void on_run_ended(sim::SimTime end);
  void on_retrieved(std::uint64_t job);
  void on_staged(std::uint64_t job);
  // Joins `job` to the readers of `tier` as a streaming reader and re-shares.
  void stream(const Job& job, std::size_t tier);
  void leave(std::uint32_t job);
  bool demand_changed(std::uint32_t job);
  void recompute(Group& group);
  Group& group_for(std::size_t tier, std::int64_t node);
  StagingCache& cache(std::uint32_t node);
  Staging* staging_of(std::uint32_t job);
  // Makes room for and pins the dataset on the job's nodes; false (nothing changed) when it
  // cannot fit on one of them. Fills `missing` with the nodes that must copy it and sets
  // `wait_for` to a job whose copy to one of them is still running (-1: none).
  bool reserve(const Job& job, const std::string& key, double bytes, std::vector<std::uint32_t>& missing,
               std::int64_t& wait_for);
  void charge(sim::SimTime t, std::int32_t pool, std::int32_t node, std::int32_t job, ChargeCategory c, double usd);
  void charge_reads(sim::SimTime t, const StorageTierSpec& tier, double bytes, double file_bytes, std::int32_t job);
  void charge_copy(const Copy& c, sim::SimTime until);
  double samples_done(const Job& job, sim::SimTime t) const;

  const Scenario& scenario_;
  sim::Engine& engine_;
  Cluster& cluster_;
  ModelSpeeds& speeds_;
  Ledger& ledger_;
  std::optional<std::size_t> local_tier_;       // the scenario's local-nvme tier
  std::vector<Group> groups_;
  std::vector<std::optional<StagingCache>> caches_;  // by node
  std::vector<std::int32_t> group_of_;          // by job id: index into groups_, -1 = none
  std::vector<std::string> pinned_;             // by job id: the dataset it pinned ("" = none)
  std::vector<std::int32_t> stream_tier_;       // by job id: tier it streams from, -1 = none
  std::vector<std::int32_t> write_group_;       // by job id: group its checkpoint write is in, -1 = none
  std::vector<sim::SimTime> ckpt_stored_since_; // by job id: first checkpoint commit (stored from then)
  std::vector<Staging> stagings_;               // copies in progress, in start order
  std::vector<Copy> copies_;                    // on NVMe, in staging order
  std::vector<std::size_t> order_;              // scratch for recompute
  double cost_usd_ = 0;
};

}  // namespace gcsim::models
