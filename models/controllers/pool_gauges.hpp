// The figures of each node pool (node type) an operator watches, kept up to date from the
// cluster's signals: how many of its nodes are in each phase, the GPUs of its up nodes, the
// share of them whose jobs' kernels run (busy, as `gcsim analyze` counts it: GPU shares held
// by jobs, a model-described job's weighted by the compute share of its step, compute_s /
// step_s, as its run started; input waits and exposed communication lower it), the memory
// those jobs use per GPU, and the GPUs asked by waiting jobs it could host (not the jobs of
// a team its budget holds: no pool may run them until the team is released, so a held job
// is not demand; issue 35). The autoscaler's triggers read them (docs/autoscaling.md,
// "Triggers"); the metrics sampler and the alert rules of issue 32 are to read the same
// figures.
//
// Memory per GPU: a model-described job uses what the memory-fit model says it needs per
// GPU at its batch and ZeRO stage (ModelSpeeds::memory_per_gpu_bytes, the trace's
// /jobs.memory_per_gpu; models/workload/memory_fit.hpp: weights, gradients, optimizer
// state, activations and the CUDA reserve); a plain job (`duration` or `work`) is taken to fill the memory of the
// GPUs it holds (its share of them), as frameworks that reserve the GPU's memory up front
// do: the memory-fit model has nothing to size it by.
//
// Every update is O(1) per job start or end and O(1) per node change (plus one pass over the
// eligible types of an arriving job, and one pass over the queue when a team is held or
// released); reading a figure is O(1).
#pragma once

#include <cstdint>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/coupling/model_speeds.hpp"

namespace gcsim::models {

class PoolGauges {
 public:
  // Subscribes to the cluster's signals (order ORDER_EXTENSIONS); the cluster (and speeds)
  // must outlive it. Without `speeds` a model-described job counts wholly busy and its
  // memory is check_memory_fit's need at its own batch.
  PoolGauges(const Scenario& scenario, Cluster& cluster, const ModelSpeeds* speeds = nullptr);
  PoolGauges(const PoolGauges&) = delete;
  PoolGauges& operator=(const PoolGauges&) = delete;

  struct Pool {
    int provisioning = 0;  // nodes requested, not yet up
    int up = 0;            // up, taking jobs
    int draining = 0;      // up, taking no new jobs (scale-in or a market's notice)
    int up_gpus = 0;       // GPUs of up and draining nodes
    double held_gpus = 0;  // GPU shares held by running jobs
    double busy_gpus = 0;  // the same, each weighted by the compute share of its job's step
    double memory_used_bytes = 0;  // memory used on its GPUs by running jobs
    double gpu_memory_bytes = 0;   // one GPU's memory
    double waiting_gpus = 0;       // GPUs asked by queued jobs that can run on it, held ones not
  };

  const Pool& pool(int type) const { return pools_[static_cast<std::size_t>(type)]; }
  // Busy GPUs over up GPUs, 0..1; 0 when none is up.
  double gpu_utilization(int type) const;
  // Memory used over the memory of the up GPUs (idle GPUs count as using none), 0..1; 0
  // when none is up.
  double gpu_memory(int type) const;
  double waiting_gpus(int type) const { return pool(type).waiting_gpus; }
  // GPUs asked by queued jobs that can run on both `a` and `b` (fallback accounting);
  // tracked only for the pairs given to track_pair.
  double waiting_gpus_both(std::size_t pair) const { return pairs_[pair].waiting_gpus; }
  // Tracks the waiting GPUs of jobs eligible on both types; returns the pair's index. Call
  // before the run starts.
  std::size_t track_pair(int a, int b);

  // The memory one GPU of node type `type` holds for job `j`, and the share of its GPU-time
  // in which its kernels run (see the file comment; for a running job).
  double job_memory_per_gpu_bytes(const Job& j, int type) const;
  double job_compute_share(const Job& j) const;

 private:
  void add_waiting(const Job& j, double sign);
  void run_started(const Job& j);
  void run_ended(const Job& j);
  void node_changed(const NodeTransition& t);
  void team_hold_changed(int team, bool held);

  struct Pair {
    std::uint64_t mask = 0;
    double waiting_gpus = 0;
  };
  struct Run {
    int type = -1;  // -1: not running (or over capacity)
    double held_gpus = 0;
    double busy_gpus = 0;
    double memory_bytes = 0;
  };

  const Scenario& scenario_;
  const Cluster& cluster_;
  const ModelSpeeds* speeds_;
  std::vector<Pool> pools_;
  std::vector<Pair> pairs_;
  std::vector<Run> runs_;         // by job id
  std::vector<char> waiting_;     // by job id: counted in waiting_gpus
};

}  // namespace gcsim::models
