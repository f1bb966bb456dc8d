// Jobs on the network: a job that declares its communication (JobSpec::comm) runs as a
// sequence of steps, each `every` of compute followed by one collective of `bytes` over the
// job's GPUs, sent as flows on the shared FlowNetwork; the job waits for it. Jobs sharing
// links slow each other down, and their run times show it. The driver is an observer of
// the cluster: it takes over such a job when it starts and ends it through
// Cluster::finish_job. docs/network.md, "Jobs on the network".
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
    std::int64_t steps_left = 0;
    sim::SimTime compute;  // per simulated step
    CollectiveSpec collective;
    sim::EventId next;               // the pending compute-done or finish event
    std::uint32_t slot = 0;          // the collective in flight, when in_flight
    bool in_flight = false;
  };
  void on_stop(const models::Job& job);
  void on_start(const models::Job& job);
  void on_compute_done(std::uint64_t job);
  void on_finish(std::uint64_t job) { cluster_.finish_job(static_cast<std::uint32_t>(job)); }

  static void on_collective_done(void* self, std::uint64_t job, sim::SimTime finish);

  sim::Engine& engine_;
  models::Cluster& cluster_;
  CollectiveRunner& runner_;
  const topology::Topology& topo_;
  std::vector<Run> runs_;  // by job id
};

}  // namespace gcsim::network
