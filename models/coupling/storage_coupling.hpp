// Couples running model-described jobs to the storage tiers they read from and write to:
// a job streams its samples from its dataset's tier (or, once staged, from its nodes'
// NVMe); a job that stages its dataset to local NVMe first copies it out of the source
// tier, holding its GPUs without progress until the copy ends, and jobs on the same nodes
// that need the same dataset wait for that copy; a checkpoint write goes to its tier.
// Reads, copies and writes are transfers of the StorageTiers resource model, which shares
// each device's time by max-min fairness (models/storage/storage_tiers.hpp); this class turns jobs into
// transfers, their shares into speeds (through ModelSpeeds) and predicted ends (through
// Cluster::hold_progress_until and Cluster::move_checkpoint_write), and keeps the staging
// caches, pins and waiters. An observer of the cluster's job signals.
//
// Transfers of job j reading files of size F_j (docs/storage.md, "Storage in runs"):
//   bandwidth  B_j = min(R_read, IOPS · F_j)            (× nodes for local NVMe)
//   demand     D_j = samples per step · F_j / max(GPU time, other input time)
//              (the read rate at which storage stops limiting it)
//   cap        C_j = its read throughput alone (read_throughput_bytes_per_s)
// A job whose rate reaches its demand runs at its unlimited speed; the others run at the
// step-time model's speed with HardwareContext::storage_read_bytes_per_s = its rate.
// A staging copy's demand is its cap: the source's throughput alone for its files on each
// node it copies to, at most the NVMe write bandwidth of those nodes. A checkpoint write
// moves the checkpoint at the tier's write bandwidth, capped per stream.
//
// It posts no charges: what storage costs is the StorageCostMeter's, from the signals
// below and the state it reads at the end of the run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/config/scenario.hpp"
#include "models/coupling/model_speeds.hpp"
#include "models/storage/staging_cache.hpp"
#include "models/storage/storage_tiers.hpp"
#include "sim/engine.hpp"
#include "sim/signal.hpp"

namespace gcsim::models {

// A dataset copy on one node's NVMe, from `since` until evicted, lost or the end of the run.
struct StagedCopy {
  std::uint32_t node;
  std::string key;
  double bytes;
  sim::SimTime since;
  std::int32_t job;  // the job whose staging made it
};

class StorageCoupling {
 public:
  // Subscribes to the cluster's job and checkpoint signals; `speeds` must have been
  // constructed first. `scenario.storage` must be set; `tiers` is registered with the engine.
  StorageCoupling(const Scenario& scenario, sim::Engine& engine, Cluster& cluster, ModelSpeeds& speeds,
                  StorageTiers& tiers);
  StorageCoupling(const StorageCoupling&) = delete;
  StorageCoupling& operator=(const StorageCoupling&) = delete;

  // The staging cache of a node (nullptr when nothing was ever staged there).
  const StagingCache* staging_cache(std::uint32_t node) const;
  // Read rate a running job currently gets from its tier, bytes/s (0 when not coupled);
  // while it stages, the rate of its copy.
  double read_bytes_per_s(std::uint32_t job) const;

  // For the cost meter. A streaming read ended (the job finished or stopped): at t, the job
  // read `samples` samples of its run from tier `tier`.
  sim::Signal<sim::SimTime, const Job&, std::size_t, double> stream_ended;
  // A staging copy moved `bytes` out of tier `source` (all of them when it completed, what it
  // had moved when abandoned).
  sim::Signal<sim::SimTime, const Job&, std::size_t, double> copy_read;
  // A copy left its node at t (evicted, abandoned, or lost with the node).
  sim::Signal<const StagedCopy&, sim::SimTime> copy_dropped;

  // State at the end of the run. The tier a running job streams from (-1: none); the source
  // tier and bytes moved by t of its copy in progress (nullopt: none); the copies on NVMe.
  // -1 also for a job submitted during the run (a service's replica), beyond the tables
  // sized at build: such jobs read nothing here.
  std::int32_t stream_tier(std::uint32_t job) const { return job < stream_tier_.size() ? stream_tier_[job] : -1; }
  std::optional<std::pair<std::size_t, double>> copy_progress(std::uint32_t job, sim::SimTime t) const;
  const std::vector<StagedCopy>& copies() const { return copies_; }

 private:
  // A copy to local NVMe in progress: the nodes it writes to, and jobs on those nodes
  // that wait for the same dataset.
  struct Staging {
    std::uint32_t job;
    std::size_t source;
    std::string key;
    std::vector<std::uint32_t> nodes;
    double bytes = 0;          // the dataset (each node gets all of it)
    sim::SimTime done_at;      // predicted end
    sim::EventId retrieval;    // the archive's retrieval delay
    bool copying = false;      // past the retrieval delay
    bool predicted = false;    // done_at comes from the copy's share, not "as if alone"
    std::vector<std::uint32_t> waiters;
  };

  void on_started(const Job& job);
  void on_finished(const Job& job);
  void on_stopped(const Job& job);
  void on_checkpoint_started(const Job& job);
  void end_write(std::uint32_t job);  // removes its checkpoint write, if any, and re-shares
  void on_node_down(std::uint32_t node);
  void on_retrieved(std::uint64_t job);
  void on_staged(StorageTiers::TransferId copy);
  // Starts a transfer of the job on (tier, the job's first node for local NVMe), records
  // it in `slot` and re-shares: the one way a job joins a device.
  void join(const Job& job, std::size_t tier, StorageTiers::Kind kind, double bandwidth, double cap, double bytes,
            StorageTiers::TransferId& slot);
  // Joins `job` to the readers of `tier` as a streaming reader.
  void stream(const Job& job, std::size_t tier);
  void end_stream(const Job& job, sim::SimTime t, double samples);
  void leave(std::uint32_t job);
  bool demand_changed(std::uint32_t job);
  // Refreshes the demands of the device's readers, re-shares it and applies the new rates.
  void share(std::uint32_t device);
  StagingCache& cache(std::uint32_t node);
  Staging* staging_of(std::uint32_t job);
  void unpin(const Job& job);
  void drop_copy(std::vector<StagedCopy>::iterator it, sim::SimTime t);
  // Makes room for and pins the dataset on the job's nodes; false (nothing changed) when it
  // cannot fit on one of them. Fills `missing` with the nodes that must copy it and sets
  // `wait_for` to a job whose copy to one of them is still running (-1: none).
  bool reserve(const Job& job, const std::string& key, double bytes, std::vector<std::uint32_t>& missing,
               std::int64_t& wait_for);

  const Scenario& scenario_;
  sim::Engine& engine_;
  Cluster& cluster_;
  ModelSpeeds& speeds_;
  StorageTiers& tiers_;
  std::optional<std::size_t> local_tier_;       // the scenario's local-nvme tier
  std::vector<std::optional<StagingCache>> caches_;  // by node
  std::vector<StorageTiers::TransferId> read_;  // by job id: its streaming read or copy
  std::vector<StorageTiers::TransferId> write_; // by job id: its checkpoint write
  std::vector<std::string> pinned_;             // by job id: the dataset it pinned ("" = none)
  std::vector<std::int32_t> stream_tier_;       // by job id: tier it streams from, -1 = none
  std::vector<Staging> stagings_;               // copies in progress, in start order
  std::vector<StagedCopy> copies_;              // on NVMe, in staging order
};

}  // namespace gcsim::models
