// Live step-time estimates of running model-described jobs (see model_speeds.hpp).
#include "models/coupling/model_speeds.hpp"

#include "models/coupling/job_speed.hpp"
#include "models/workload/memory_fit.hpp"
#include "sim/check.hpp"

namespace gcsim::models {

ModelSpeeds::ModelSpeeds(const Scenario& scenario, Cluster& cluster) : scenario_(scenario), cluster_(cluster) {
  slot_of_.assign(cluster.jobs().size(), -1);
  for (const Job& j : cluster.jobs())
    if (j.training()) {
      slot_of_[j.id] = static_cast<std::int32_t>(entries_.size());
      entries_.emplace_back();
    }
  cluster.set_rate_provider(*this);
}

const HardwareContext* ModelSpeeds::context(std::uint32_t job) const {
  if (job >= slot_of_.size() || slot_of_[job] < 0) return nullptr;
  const Entry& e = entries_[static_cast<std::size_t>(slot_of_[job])];
  return e.hw ? &*e.hw : nullptr;
}

const StepEstimate* ModelSpeeds::estimate(std::uint32_t job) const {
  if (job >= slot_of_.size() || slot_of_[job] < 0) return nullptr;
  const Entry& e = entries_[static_cast<std::size_t>(slot_of_[job])];
  return e.hw ? &e.estimate : nullptr;
}

double ModelSpeeds::memory_per_gpu_bytes(std::uint32_t job) const {
  if (job >= slot_of_.size() || slot_of_[job] < 0) return 0;
  return entries_[static_cast<std::size_t>(slot_of_[job])].memory_bytes;
}

ModelSpeed ModelSpeeds::start_speed(const Job& j) {
  GCSIM_CHECK(j.id < slot_of_.size() && slot_of_[j.id] >= 0, "ModelSpeeds: job '" + j.name + "' is not model-described");
  Entry& e = entries_[static_cast<std::size_t>(slot_of_[j.id])];
  const TrainingSpec& t = *j.training();
  const NodeTypeSpec& type = scenario_.cluster.node_types[static_cast<std::size_t>(j.node_type)];
  e.hw = hardware_context(type, j.gpus, t, scenario_.storage);
  e.all_reduce_s = -1;
  e.memory_bytes = memory_per_gpu(t, t.batch_per_gpu, t.parallel.zero_stage).total();
  e.estimate = estimate_step(t, *e.hw);
  return ModelSpeed{e.estimate.samples_per_s, e.estimate.step_s, static_cast<int>(e.estimate.bottleneck)};
}

double ModelSpeeds::alone_samples_per_s(const Job& j, int node_type) {
  const TrainingSpec& t = *j.training();
  const NodeTypeSpec& type = scenario_.cluster.node_types[static_cast<std::size_t>(node_type)];
  return estimate_step(t, hardware_context(type, j.gpus, t, scenario_.storage)).samples_per_s;
}

void ModelSpeeds::set_storage_read(std::uint32_t job, double bytes_per_s) {
  Entry& e = entries_[static_cast<std::size_t>(slot_of_[job])];
  GCSIM_CHECK(e.hw, "ModelSpeeds: the job has no hardware context (it is not a model job that started)");
  e.hw->storage_read_bytes_per_s = bytes_per_s;
  refresh(job);
}

void ModelSpeeds::set_all_reduce_s(std::uint32_t job, double seconds) {
  const auto slot = static_cast<std::size_t>(slot_of_[job]);
  Entry& e = entries_[slot];
  GCSIM_CHECK(e.hw && seconds >= 0, "ModelSpeeds: a job without a hardware context, or a negative all-reduce time");
  e.all_reduce_s = seconds;
  // The hook reads the measured time each time the model asks (entries_ never moves).
  if (!e.hw->all_reduce)
    e.hw->all_reduce = [this, slot](double, int, const HardwareContext&) { return entries_[slot].all_reduce_s; };
  if (demand_changed_ && demand_changed_(job)) return;
  refresh(job);
}

StepEstimate ModelSpeeds::unlimited_by_storage(std::uint32_t job) {
  Entry& e = entries_[static_cast<std::size_t>(slot_of_[job])];
  GCSIM_CHECK(e.hw, "ModelSpeeds: the job has no hardware context (it is not a model job that started)");
  HardwareContext& hw = *e.hw;
  // Estimated with storage out of the picture, then put back: no copy of the context.
  const double read = hw.storage_read_bytes_per_s;
  hw.storage_read_bytes_per_s = 0;
  const StepEstimate s = estimate_step(*cluster_.jobs()[job].training(), hw);
  hw.storage_read_bytes_per_s = read;
  return s;
}

void ModelSpeeds::refresh(std::uint32_t job) {
  Entry& e = entries_[static_cast<std::size_t>(slot_of_[job])];
  const Job& j = cluster_.jobs()[job];
  e.estimate = estimate_step(*j.training(), *e.hw);
  if (j.status != JobStatus::Running) return;
  if (e.estimate.samples_per_s != j.samples_per_s() || e.estimate.step_s != j.step_s())
    cluster_.set_model_speed(job, ModelSpeed{e.estimate.samples_per_s, e.estimate.step_s, static_cast<int>(e.estimate.bottleneck)});
}

}  // namespace gcsim::models
