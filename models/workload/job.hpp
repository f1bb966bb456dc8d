// A job as the simulation runs it: what was asked (from a JobSpec or a generator draw)
// and what happened (status, times, placement). Jobs live in one vector indexed by id.
#pragma once

#include <cstdint>
#include <string>

#include "models/gpu/gpu_spec.hpp"
#include "models/workload/training.hpp"
#include "sim/engine.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

struct CommSpec;

enum class JobStatus : std::uint8_t { Completed = 0, Running = 1, NeverStarted = 2, Queued = 3, Future = 4 };

struct Job {
  std::uint32_t id = 0;
  std::string name;
  sim::SimTime submit;
  int gpus = 1;
  // Exactly one of these describes the work: a measured duration, or FLOP at a rate.
  bool has_duration = true;
  sim::SimTime duration;
  double work_flop = 0;
  Precision precision = Precision::Fp32;
  double efficiency = 0;
  std::uint64_t eligible_types = 0;  // bit t set: node type t can hold this job
  const TrainingSpec* training = nullptr;  // model-described: work is samples at the step-time model's speed
  const CommSpec* comm = nullptr;          // duration job whose steps wait for collectives on the network

  // What happened.
  JobStatus status = JobStatus::Future;
  sim::SimTime start;
  sim::SimTime end;
  int node_type = -1;
  std::uint32_t nodes_offset = 0;  // into Cluster::held_nodes()
  std::uint32_t nodes_count = 0;
  int gpus_per_node_held = 0;      // GPUs held on each of its nodes
  std::uint64_t gpu_mask = 0;      // which GPUs (bit = local index) it holds on each node
  int gpus_held() const { return gpus_per_node_held * static_cast<int>(nodes_count); }

  // Progress, in work units: seconds of runtime for a duration job, FLOP for a work job.
  // A running job advances at `rate` units per second from `progress_at`; models that
  // change its speed (contention, a slower placement) call Cluster::set_rate, which moves
  // the finish event, so run time always follows the modelled speed.
  bool driven = false;             // a driver (not a finish event) ends it: Cluster::finish_job
  // What the step-time model gave on the placement (model-described jobs; else 0).
  double samples_per_s = 0;
  double step_s = 0;
  int bottleneck = -1;             // models::Bottleneck, -1 when not modelled
  double work_total = 0;
  double work_done = 0;
  double rate = 0;
  sim::SimTime progress_at;
  sim::EventId finish_event;
};

}  // namespace gcsim::models
