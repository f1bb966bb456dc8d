// Gradient synchronisation of model-described jobs on the network (docs/network.md, "Model
// jobs on the network"). When a scenario has a `network:` section, a running model job with
// data-parallel degree > 1 sends its gradient all-reduce as flows over its real GPUs:
// each of its tensor x pipeline data-parallel groups runs a ring all-reduce (hierarchical
// when the group spans nodes) of gradient_sync_bytes(), NCCL-calibrated (models/network/collectives.hpp).
// The measured time replaces the alpha-beta term of the step-time model
// (ModelSpeeds::set_all_reduce_s), so jobs that share links slow each other down.
//
// Cheap by sampling, as JobTraffic does: a job of N optimizer steps sends one collective
// ("probe") of k = ceil(N / PROBES) steps' bytes every k optimizer steps of its current
// step time, so the load it puts on each link over time is the real job's (same bytes, same
// duty cycle) with at most about PROBES collectives per job. A probe that took T_sim gives
// the per-step time T = (T_sim - L)/k + L, L its path latencies (counted once per phase per
// real step, as an unscaled collective would). At start, before the first probe returns,
// the job runs at the uncontended time of its collective on the topology (each flow at the
// smallest capacity / crossings of its links among its phase's flows), so a job alone on
// the network never runs at an alpha-beta speed. Speeds follow contention one probe late.
#pragma once

#include <cstdint>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/coupling/model_speeds.hpp"
#include "models/network/collectives.hpp"
#include "models/topology/topology.hpp"
#include "sim/engine.hpp"

namespace gcsim::models {
struct Scenario;
}

namespace gcsim::network {

// The scenario's network with its cluster's nodes built in (node `i` of a type is the host
// `<type>-<i>`; global node index = the earlier types' counts + i), as a run builds it.
// The scenario must have a `network:` section.
topology::Topology cluster_topology(const models::Scenario& scenario);

// The phases of a model job's gradient synchronisation over `gpus` (its GPUs in rank
// order): every data-parallel group's all-reduce of gradient_sync_bytes(), all at once
// (see the header comment).
std::vector<std::vector<Send>> gradient_sync_phases(const models::TrainingSpec& job, std::vector<topology::Vertex> gpus,
                                                    const topology::Topology& topo);

// The uncontended time of `phases` sent with ECMP tag `tag` (see the header comment), and
// in *latency_s the sum over phases of their longest path latency. `crossings` is scratch,
// one zero per link, left zero.
double uncontended_s(const std::vector<std::vector<Send>>& phases, std::uint64_t tag, const topology::Topology& topo,
                     std::vector<std::uint32_t>& crossings, double* latency_s);

// What a run gives a model job alone on the network: the uncontended time of its gradient
// all-reduce (seconds per optimizer step) on the first nodes of `node_type` (first GPUs of
// each, as a first-fit placement on an idle cluster takes them); `gcsim estimate` uses it.
// Negative when the job sends nothing on the network (data-parallel degree 1).
double alone_all_reduce_s(const models::Scenario& scenario, const topology::Topology& topo, int node_type,
                          const models::TrainingSpec& job, int job_gpus);

class ModelTraffic {
 public:
  // At most about this many collectives are sent per job.
  static constexpr std::int64_t PROBES = 200;

  // Subscribes to the cluster's job signals; construct after `speeds`.
  ModelTraffic(sim::Engine& engine, models::Cluster& cluster, models::ModelSpeeds& speeds, CollectiveRunner& runner,
               const topology::Topology& topo);
  ModelTraffic(const ModelTraffic&) = delete;
  ModelTraffic& operator=(const ModelTraffic&) = delete;

  // Probes sent so far (all jobs).
  std::uint64_t probes_sent() const { return probes_sent_; }

 private:
  struct Run {
    std::vector<std::vector<Send>> steps;  // one probe: k optimizer steps' bytes
    double scale = 1;                      // k
    double latency_s = 0;                  // L
    std::uint32_t collective = 0;          // the runner's slot while in flight
    bool in_flight = false;
    sim::SimTime sent;
    sim::EventId next;
  };
  void on_start(const models::Job& job);
  void on_finish(const models::Job& job);
  void on_probe(std::uint64_t job);
  static void on_probe_done(void* self, std::uint64_t job, sim::SimTime finish);

  sim::Engine& engine_;
  models::Cluster& cluster_;
  models::ModelSpeeds& speeds_;
  CollectiveRunner& runner_;
  const topology::Topology& topo_;
  std::vector<std::int32_t> slot_of_;  // by job id: index into runs_, -1 = none
  std::vector<Run> runs_;
  std::vector<std::uint32_t> crossings_;  // scratch, by link
  std::uint64_t probes_sent_ = 0;
};

}  // namespace gcsim::network
