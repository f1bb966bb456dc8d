// The live step-time estimate of every running model-described job: the one place a run
// turns a job's hardware context into its speed. At start a job gets the context of its
// placement (hardware_context(), as `gcsim estimate` builds it): the cluster asks for its
// starting speed here (ModelSpeeds is the cluster's RateProvider), so it is estimated once;
// the models that share hardware between jobs then replace one input each and ask for a
// new estimate:
//   storage contention (StorageCoupling)    the read rate the job gets from its tier
//   the network (network::ModelTraffic)     the time of its gradient all-reduce, measured
//                                           on the FlowNetwork over its real placement
// Each change re-runs estimate_step() on the job's context and applies the new speed
// through Cluster::set_model_speed, which keeps the progress made so far. The last
// estimate (breakdown, memory per GPU) stays readable for the trace after the job ends.
// Construct it on the cluster before the models that use it (it registers itself as the
// cluster's rate provider).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/cluster/rate_provider.hpp"
#include "models/config/scenario.hpp"
#include "models/workload/step_time.hpp"

namespace gcsim::models {

class ModelSpeeds final : public RateProvider {
 public:
  ModelSpeeds(const Scenario& scenario, Cluster& cluster);
  ModelSpeeds(const ModelSpeeds&) = delete;
  ModelSpeeds& operator=(const ModelSpeeds&) = delete;

  // RateProvider: builds the job's context on its placement and returns its estimate.
  ModelSpeed start_speed(const Job& job) override;
  double alone_samples_per_s(const Job& job, int node_type) override;

  // The job's current context and last estimate; nullptr for jobs that are not
  // model-described or never started.
  const HardwareContext* context(std::uint32_t job) const;
  const StepEstimate* estimate(std::uint32_t job) const;
  // GPU memory per GPU at the job's batch and ZeRO stage (models/workload/memory_fit.hpp); 0 when unknown.
  double memory_per_gpu_bytes(std::uint32_t job) const;

  // The read rate the job's storage gives it (bytes/s, whole job; 0 = not limiting).
  void set_storage_read(std::uint32_t job, double bytes_per_s);
  // The time of one gradient all-reduce of the job (seconds, per optimizer step), as the
  // network measured it; from now on it replaces the alpha-beta term.
  void set_all_reduce_s(std::uint32_t job, double seconds);
  // The step the job would take if storage did not limit it (its demand on storage).
  StepEstimate unlimited_by_storage(std::uint32_t job);

  // Called when a job's step changes for a reason other than storage (its all-reduce
  // time), before its speed is updated; returns true when the callee re-shared storage and
  // so already updated the job's speed. StorageCoupling sets it: a job's demand on
  // storage follows its step time.
  void on_demand_changed(std::function<bool(std::uint32_t job)> fn) { demand_changed_ = std::move(fn); }

 private:
  struct Entry {
    std::optional<HardwareContext> hw;
    StepEstimate estimate;
    double memory_bytes = 0;
    double all_reduce_s = -1;  // < 0: not measured, the alpha-beta term applies
  };
  void refresh(std::uint32_t job);

  const Scenario& scenario_;
  Cluster& cluster_;
  std::vector<std::int32_t> slot_of_;  // by job id: index into entries_, -1 = not model-described
  std::vector<Entry> entries_;
  std::function<bool(std::uint32_t)> demand_changed_;
};

}  // namespace gcsim::models
