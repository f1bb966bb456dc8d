// Jobs on the network: a job that declares its communication (JobSpec::comm) runs as a
// sequence of steps, each `every` of compute followed by one collective of `bytes` over the
// job's GPUs, sent as flows on the shared FlowNetwork; the job waits for it. Jobs sharing
// links slow each other down, and their run times show it. The driver is an observer of
// the cluster: it takes over such a job when it starts and ends it through
// Cluster::finish_job. docs/network.md, "Jobs on the network".
//
// A job of N real steps is simulated in S = min(N, simulated_steps) steps, each carrying
// N/S real steps' compute and bytes (bandwidth time is linear in both). The per-step path
// latency L (Σ over the collective's phases of the longest path latency, what a phase waits
// before its bytes move) would be counted only S times: the (N − S)·L left out is waited
// with the compute, spread over the simulated steps, so a job's run time is
// N·(compute + collective) whatever S is (tests/scenarios/test_model_runs.cpp).
#pragma once

#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/network/collectives.hpp"
#include "models/network/flow_network.hpp"
#include "models/topology/topology.hpp"

namespace gcsim::network {

class JobTraffic {
 public:
  JobTraffic(sim::Engine& engine, models::Cluster& cluster, CollectiveRunner& runner, const topology::Topology& topo);

 private:
  struct Run {
    std::int64_t steps = 0;       // simulated steps of this run
    std::int64_t steps_left = 0;
    // Compute and the latency of the real steps not simulated, in ns: waited in `steps`
    // near-equal parts, one before each collective (whole ns, exact in total).
    __int128 wait_ns = 0;
    std::vector<std::vector<Send>> phases;  // the collective, decomposed once
    sim::EventId next;               // the pending compute-done or finish event
    std::uint32_t slot = 0;          // the collective in flight, when in_flight
    bool in_flight = false;
  };
  void on_stop(const models::Job& job);
  void on_start(const models::Job& job);
  void on_compute_done(std::uint64_t job);
  // The wait before simulated step `step` (0-based) of `run`.
  static sim::SimTime wait_before(const Run& run, std::int64_t step);
  void on_finish(std::uint64_t job) { cluster_.finish_job(static_cast<std::uint32_t>(job)); }

  static void on_collective_done(void* self, std::uint64_t job, sim::SimTime finish);

  sim::Engine& engine_;
  models::Cluster& cluster_;
  CollectiveRunner& runner_;
  const topology::Topology& topo_;
  std::vector<Run> runs_;  // by job id
};

}  // namespace gcsim::network
