// Couples running model-described jobs to the storage tiers they read from: readers of one
// shared tier (shared-fs, object-store, archive), or of one node's local NVMe, divide its
// read bandwidth, and a job that stages its dataset to local NVMe first holds its GPUs
// without progress for the staging time. An observer of the cluster's job signals; it
// changes jobs' speeds through Cluster::set_model_speed and Cluster::delay_progress.
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
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/cluster.hpp"
#include "models/config/scenario.hpp"
#include "models/storage/staging_cache.hpp"
#include "models/workload/step_time.hpp"

namespace gcsim::models {

class StorageCoupling {
 public:
  // Subscribes to the cluster's job_started / job_finished. `scenario.storage` must be set.
  StorageCoupling(const Scenario& scenario, Cluster& cluster);
  StorageCoupling(const StorageCoupling&) = delete;
  StorageCoupling& operator=(const StorageCoupling&) = delete;

  // The staging cache of a node (nullptr when nothing was ever staged there).
  const StagingCache* staging_cache(std::uint32_t node) const;
  // Read rate a running job currently gets from its tier, bytes/s (0 when not coupled).
  double read_bytes_per_s(std::uint32_t job) const;

 private:
  struct Reader {
    std::uint32_t job;
    double bandwidth;         // B_j
    double max_rate;          // min(D_j, C_j)
    double demand;            // D_j
    double cap;               // C_j
    double rate = 0;          // current share, bytes/s
    HardwareContext hw;       // the job's context; storage_read set at each recompute
  };
  // Readers of one tier (node = -1) or of one node's local NVMe, by job id.
  struct Group {
    std::size_t tier;
    std::int64_t node;
    std::vector<Reader> readers;
  };

  void on_started(const Job& job);
  void on_finished(const Job& job);
  void recompute(Group& group);
  Group& group_for(std::size_t tier, std::int64_t node);
  StagingCache& cache(std::uint32_t node);
  // Stages the job's dataset on its nodes; returns the staging time (0 when all hold it).
  double stage(const Job& job, const StorageTierSpec& from, const StorageTierSpec& to);

  const Scenario& scenario_;
  Cluster& cluster_;
  std::optional<std::size_t> local_tier_;       // the scenario's local-nvme tier
  std::vector<Group> groups_;
  std::vector<std::optional<StagingCache>> caches_;  // by node
  std::vector<std::int32_t> group_of_;          // by job id: index into groups_, -1 = none
  std::vector<std::string> pinned_;             // by job id: the dataset it pinned ("" = none)
  std::vector<std::size_t> order_;              // scratch for recompute
};

}  // namespace gcsim::models
