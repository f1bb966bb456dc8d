// Storage contention and staging in runs (see storage_coupling.hpp).
#include "models/storage/storage_coupling.hpp"

#include <algorithm>
#include <cassert>
#include <stdexcept>

#include "models/workload/job_speed.hpp"

namespace gcsim::models {
namespace {

// Bytes per sample as the step-time model reads them (step_time.cpp, input pipeline).
double file_bytes_of(const TrainingSpec& t) {
  return t.dataset && t.dataset->file_bytes > 0 ? t.dataset->file_bytes : t.figures().input_bytes;
}

double dataset_bytes_of(const TrainingSpec& t) {
  const DatasetRef& d = *t.dataset;
  if (d.bytes > 0) return d.bytes;
  return (d.samples > 0 ? d.samples : t.epoch_samples()) * t.figures().input_bytes;
}

bool shared(TierKind k) { return k != TierKind::LocalNvme; }

}  // namespace

StorageCoupling::StorageCoupling(const Scenario& scenario, Cluster& cluster)
    : scenario_(scenario), cluster_(cluster) {
  assert(scenario.storage);
  for (std::size_t i = 0; i < scenario.storage->tiers.size(); ++i)
    if (scenario.storage->tiers[i].kind == TierKind::LocalNvme) {
      local_tier_ = i;
      break;
    }
  caches_.resize(cluster.nodes().size());
  group_of_.assign(cluster.jobs().size(), -1);
  pinned_.resize(cluster.jobs().size());
  cluster.job_started.connect([this](const Job& j) { on_started(j); });
  cluster.job_finished.connect([this](const Job& j) { on_finished(j); });
}

const StagingCache* StorageCoupling::staging_cache(std::uint32_t node) const {
  return node < caches_.size() && caches_[node] ? &*caches_[node] : nullptr;
}

double StorageCoupling::read_bytes_per_s(std::uint32_t job) const {
  if (job >= group_of_.size() || group_of_[job] < 0) return 0;
  for (const Reader& r : groups_[static_cast<std::size_t>(group_of_[job])].readers)
    if (r.job == job) return r.rate;
  return 0;
}

StagingCache& StorageCoupling::cache(std::uint32_t node) {
  if (!caches_[node]) caches_[node].emplace(scenario_.storage->tiers[*local_tier_].capacity_bytes);
  return *caches_[node];
}

StorageCoupling::Group& StorageCoupling::group_for(std::size_t tier, std::int64_t node) {
  for (Group& g : groups_)
    if (g.tier == tier && g.node == node) return g;
  groups_.push_back(Group{tier, node, {}});
  return groups_.back();
}

double StorageCoupling::stage(const Job& j, const StorageTierSpec& from, const StorageTierSpec& to) {
  const TrainingSpec& t = *j.training;
  // An unnamed dataset is the job's own: no later job can reuse it.
  const std::string key = t.dataset->name.empty() ? "#job-" + std::to_string(j.id) : from.name + "/" + t.dataset->name;
  const double bytes = dataset_bytes_of(t);
  bool missing = false;
  for (std::uint32_t n : cluster_.nodes_of(j)) missing |= !cache(n).contains(key);
  for (std::uint32_t n : cluster_.nodes_of(j)) {
    cache(n).insert(key, bytes);  // touches it when already staged; throws when it cannot fit
    cache(n).pin(key);
  }
  pinned_[j.id] = key;
  // Every node copies the whole dataset at once, each from the source at the rate one
  // reader gets (staging traffic is not shared with the tier's other readers).
  return missing ? staging_time_s(from, to, bytes, file_bytes_of(t), READERS_PER_GPU * j.gpus_per_node_held) : 0.0;
}

void StorageCoupling::on_started(const Job& j) {
  if (!j.training || !j.training->dataset || j.training->dataset->tier.empty()) return;
  const TrainingSpec& t = *j.training;
  const StorageSpec& storage = *scenario_.storage;
  const StorageTierSpec* source = storage.find(t.dataset->tier);
  if (!source) return;
  std::size_t tier = static_cast<std::size_t>(source - storage.tiers.data());
  if (t.dataset->access == DataAccess::Stage && source->kind != TierKind::LocalNvme && local_tier_) {
    const StorageTierSpec& local = storage.tiers[*local_tier_];
    bool staged = true;
    double delay_s = 0;
    try {
      delay_s = stage(j, *source, local);
    } catch (const std::length_error&) {
      staged = false;  // too big for the node's NVMe even when emptied: stream it instead
    }
    if (staged) {
      tier = *local_tier_;
      if (delay_s > 0) cluster_.delay_progress(j.id, sim::SimTime::from_seconds(delay_s));
    }
  }
  const StorageTierSpec& read_tier = storage.tiers[tier];
  const NodeTypeSpec& type = scenario_.cluster.node_types[static_cast<std::size_t>(j.node_type)];

  Reader r{j.id, 0, 0, 0, 0, 0, hardware_context(type, j.gpus, t, std::nullopt)};
  const double file = file_bytes_of(t);
  const double nodes = read_tier.per_node() ? static_cast<double>(r.hw.nodes) : 1.0;
  r.bandwidth = read_tier.read_bytes_per_s;
  if (read_tier.iops > 0 && file > 0) r.bandwidth = std::min(r.bandwidth, read_tier.iops * file);
  r.bandwidth *= nodes;
  r.cap = read_throughput_bytes_per_s(read_tier, file, READERS_PER_GPU * r.hw.gpus_per_node()) * nodes;
  r.hw.storage_read_bytes_per_s = 0;
  const StepEstimate unlimited = estimate_step(t, r.hw);
  const double base_s = unlimited.step_s - unlimited.straggler_s;
  r.demand = base_s > 0 ? t.samples_per_step() * file / base_s : r.cap;
  r.max_rate = std::min(r.demand, r.cap);

  // Jobs on one node share its NVMe; a job spanning nodes holds them whole, so keying by
  // its first node is exact.
  Group& g = group_for(tier, shared(read_tier.kind) ? -1 : static_cast<std::int64_t>(cluster_.nodes_of(j)[0]));
  const auto at = std::lower_bound(g.readers.begin(), g.readers.end(), j.id,
                                   [](const Reader& a, std::uint32_t id) { return a.job < id; });
  g.readers.insert(at, std::move(r));
  group_of_[j.id] = static_cast<std::int32_t>(&g - groups_.data());
  recompute(g);
}

void StorageCoupling::on_finished(const Job& j) {
  if (j.id >= group_of_.size()) return;
  if (!pinned_[j.id].empty()) {
    for (std::uint32_t n : cluster_.nodes_of(j)) cache(n).unpin(pinned_[j.id]);
    pinned_[j.id].clear();
  }
  if (group_of_[j.id] < 0) return;
  Group& g = groups_[static_cast<std::size_t>(group_of_[j.id])];
  group_of_[j.id] = -1;
  const auto it = std::find_if(g.readers.begin(), g.readers.end(), [&](const Reader& r) { return r.job == j.id; });
  assert(it != g.readers.end());
  g.readers.erase(it);
  recompute(g);
}

void StorageCoupling::recompute(Group& g) {
  // Progressive filling of device time: readers in order of their largest share, each
  // taking the smaller of that and an equal split of what is left.
  auto& rs = g.readers;
  order_.resize(rs.size());
  for (std::size_t i = 0; i < rs.size(); ++i) order_[i] = i;
  std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
    return rs[a].max_rate / rs[a].bandwidth < rs[b].max_rate / rs[b].bandwidth;
  });
  double left = 1.0;
  std::size_t n = rs.size();
  for (std::size_t i : order_) {
    const double share = std::min(rs[i].max_rate / rs[i].bandwidth, left / static_cast<double>(n));
    rs[i].rate = share * rs[i].bandwidth;
    left -= share;
    --n;
  }
  for (Reader& r : rs) {  // by job id: deterministic order of set_rate calls
    // At or above its demand storage does not limit the job: it runs as if alone, so a lone
    // job's speed is exactly the one Cluster::nominal_rate gives.
    const bool limited = r.rate < r.demand * (1 - 1e-12) && r.rate < r.cap;
    r.hw.storage_read_bytes_per_s = limited ? r.rate : r.cap;
    const Job& j = cluster_.jobs()[r.job];
    const StepEstimate e = estimate_step(*j.training, r.hw);
    if (e.samples_per_s != j.samples_per_s || e.step_s != j.step_s)
      cluster_.set_model_speed(r.job, e.samples_per_s, e.step_s, static_cast<int>(e.bottleneck));
  }
}

}  // namespace gcsim::models
