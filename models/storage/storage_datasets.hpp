// What the storage models of a run read from a job's training spec: the bytes per sample
// as the step-time model reads them, the dataset's size and its key on a tier. Shared by
// the coupling (models/coupling/storage_coupling.hpp) and the cost meter
// (models/accounting/storage_cost_meter.hpp).
#pragma once

#include <string>

#include "models/storage/storage_spec.hpp"
#include "models/workload/job.hpp"
#include "models/workload/training.hpp"

namespace gcsim::models {

// Bytes per sample as the step-time model reads them (step_time.cpp, input pipeline).
inline double file_bytes_of(const TrainingSpec& t) {
  return t.dataset && t.dataset->file_bytes > 0 ? t.dataset->file_bytes : t.figures().input_bytes;
}

inline double dataset_bytes_of(const TrainingSpec& t) {
  const DatasetRef& d = *t.dataset;
  if (d.bytes > 0) return d.bytes;
  return (d.samples > 0 ? d.samples : t.epoch_samples()) * t.figures().input_bytes;
}

// Shared tiers are one device for the whole cluster; local NVMe is one per node.
inline bool shared_tier(TierKind k) { return k != TierKind::LocalNvme; }

// What identifies a dataset on a tier: its name there; an unnamed dataset is the job's own,
// which no other job can reuse.
inline std::string dataset_key(const Job& j, const StorageTierSpec& tier) {
  const std::string& name = j.training()->dataset->name;
  return name.empty() ? tier.name + "/#job-" + std::to_string(j.id) : tier.name + "/" + name;
}

}  // namespace gcsim::models
