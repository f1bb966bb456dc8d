// Storage contention, staging and storage costs in runs (see storage_coupling.hpp).
#include "models/storage/storage_coupling.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "models/workload/job_speed.hpp"

namespace gcsim::models {
namespace {

// With the cluster's state changes (arrivals, finishes), before its scheduling pass.
constexpr int PRIORITY_STORAGE = 0;

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

// What identifies a dataset on a tier: its name there; an unnamed dataset is the job's own,
// which no other job can reuse.
std::string dataset_key(const Job& j, const StorageTierSpec& tier) {
  const std::string& name = j.training->dataset->name;
  return name.empty() ? tier.name + "/#job-" + std::to_string(j.id) : tier.name + "/" + name;
}

// The tier's bandwidth for files of size F: min(R_read, IOPS · F).
double tier_bandwidth(const StorageTierSpec& tier, double file_bytes) {
  double b = tier.read_bytes_per_s;
  if (tier.iops > 0 && file_bytes > 0) b = std::min(b, tier.iops * file_bytes);
  return b;
}

}  // namespace

StorageCoupling::StorageCoupling(const Scenario& scenario, sim::Engine& engine, Cluster& cluster, ModelSpeeds& speeds,
                                 Ledger& ledger)
    : scenario_(scenario), engine_(engine), cluster_(cluster), speeds_(speeds), ledger_(ledger) {
  assert(scenario.storage);
  for (std::size_t i = 0; i < scenario.storage->tiers.size(); ++i)
    if (scenario.storage->tiers[i].kind == TierKind::LocalNvme) {
      local_tier_ = i;
      break;
    }
  caches_.resize(cluster.nodes().size());
  group_of_.assign(cluster.jobs().size(), -1);
  pinned_.resize(cluster.jobs().size());
  stream_tier_.assign(cluster.jobs().size(), -1);
  cluster.job_started.connect([this](const Job& j) { on_started(j); });
  cluster.job_finished.connect([this](const Job& j) { on_finished(j); });
  cluster.job_stopped.connect([this](const Job& j) { on_stopped(j); });
  write_group_.assign(cluster.jobs().size(), -1);
  ckpt_stored_since_.assign(cluster.jobs().size(), sim::SimTime::max());
  cluster.checkpoint_started.connect([this](const Job& j) { on_checkpoint_started(j); });
  cluster.checkpoint_written.connect([this](const Job& j) {
    if (write_group_[j.id] >= 0) end_write(j.id);
    if (!j.checkpoint->tier.empty() && ckpt_stored_since_[j.id].is_max()) ckpt_stored_since_[j.id] = engine_.now();
  });
  cluster.node_down.connect([this](std::uint32_t n) { on_node_down(n); });
  cluster.run_ended.connect([this](sim::SimTime end) { on_run_ended(end); });
  speeds.on_demand_changed([this](std::uint32_t job) { return demand_changed(job); });
}

const StagingCache* StorageCoupling::staging_cache(std::uint32_t node) const {
  return node < caches_.size() && caches_[node] ? &*caches_[node] : nullptr;
}

double StorageCoupling::read_bytes_per_s(std::uint32_t job) const {
  if (job >= group_of_.size() || group_of_[job] < 0) return 0;
  for (const Reader& r : groups_[static_cast<std::size_t>(group_of_[job])].readers)
    if (r.job == job && !r.writing) return r.rate;
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

StorageCoupling::Staging* StorageCoupling::staging_of(std::uint32_t job) {
  for (Staging& s : stagings_)
    if (s.job == job) return &s;
  return nullptr;
}

void StorageCoupling::charge(sim::SimTime t, std::int32_t pool, std::int32_t node, std::int32_t job, ChargeCategory c,
                             double usd) {
  if (!(usd > 0)) return;
  ledger_.post(Charge{t, pool, node, job, c, usd, false});
  cost_usd_ += usd;
}

void StorageCoupling::charge_reads(sim::SimTime t, const StorageTierSpec& tier, double bytes, double file_bytes,
                                   std::int32_t job) {
  const ReadCost c = read_cost(tier, bytes, file_bytes);
  charge(t, -1, -1, job, ChargeCategory::Requests, c.requests_usd + c.retrieval_usd);
  charge(t, -1, -1, job, ChargeCategory::Egress, c.transfer_usd);
}

void StorageCoupling::charge_copy(const Copy& c, sim::SimTime until) {
  const StorageTierSpec& local = scenario_.storage->tiers[*local_tier_];
  charge(until, cluster_.nodes()[c.node].type, static_cast<std::int32_t>(c.node), c.job, ChargeCategory::Storage,
         storage_cost_usd(local, c.bytes, (until - c.since).seconds()));
}

double StorageCoupling::samples_done(const Job& j, sim::SimTime t) const {
  if (j.status == JobStatus::Completed) return j.work_total;
  return std::min(j.work_total, j.work_done + j.rate * std::max(0.0, (t - j.progress_at).seconds()));
}

bool StorageCoupling::reserve(const Job& j, const std::string& key, double bytes, std::vector<std::uint32_t>& missing,
                              std::int64_t& wait_for) {
  missing.clear();
  wait_for = -1;
  for (const std::uint32_t n : cluster_.nodes_of(j))
    if (!cache(n).contains(key) && !cache(n).can_fit(bytes)) return false;
  const sim::SimTime now = engine_.now();
  for (const std::uint32_t n : cluster_.nodes_of(j)) {
    StagingCache& c = cache(n);
    if (c.contains(key)) {
      c.touch(key);
      // Present, or still being copied there by another job: then wait for that copy.
      for (const Staging& s : stagings_)
        if (s.key == key && std::find(s.nodes.begin(), s.nodes.end(), n) != s.nodes.end()) wait_for = s.job;
    } else {
      for (const std::string& evicted : c.insert(key, bytes)) {
        const auto it = std::find_if(copies_.begin(), copies_.end(),
                                     [&](const Copy& x) { return x.node == n && x.key == evicted; });
        assert(it != copies_.end());
        charge_copy(*it, now);
        copies_.erase(it);
      }
      copies_.push_back(Copy{n, key, bytes, now, static_cast<std::int32_t>(j.id)});
      missing.push_back(n);
    }
    c.pin(key);
  }
  return true;
}

void StorageCoupling::on_started(const Job& j) {
  if (!j.training || !j.training->dataset || j.training->dataset->tier.empty()) return;
  const TrainingSpec& t = *j.training;
  const StorageSpec& storage = *scenario_.storage;
  const StorageTierSpec* source = storage.find(t.dataset->tier);
  if (!source) return;
  const auto source_tier = static_cast<std::size_t>(source - storage.tiers.data());
  if (t.dataset->access == DataAccess::Stage && shared(source->kind) && local_tier_) {
    const std::string key = dataset_key(j, *source);
    const double bytes = dataset_bytes_of(t);
    std::vector<std::uint32_t> missing;
    std::int64_t wait_for = -1;
    // A dataset too big for the NVMe even with everything unpinned evicted is streamed.
    if (reserve(j, key, bytes, missing, wait_for)) {
      pinned_[j.id] = key;
      if (!missing.empty()) {
        const StorageTierSpec& local = storage.tiers[*local_tier_];
        const double copy_bytes = bytes * static_cast<double>(missing.size());
        const double cap = static_cast<double>(missing.size()) *
                           std::min(read_throughput_bytes_per_s(*source, file_bytes_of(t), READERS_PER_GPU * j.gpus_per_node_held),
                                    local.write_bytes_per_s);
        Staging s{j.id, source_tier, key, std::move(missing), bytes, {}, {}, false, {}};
        // Until the copy has a share, it is expected to end as if alone.
        s.done_at = engine_.now() + sim::SimTime::from_seconds(source->retrieval_delay_s + copy_bytes / cap);
        if (source->retrieval_delay_s > 0)
          s.event = engine_.schedule_after<&StorageCoupling::on_retrieved>(sim::SimTime::from_seconds(source->retrieval_delay_s),
                                                                            this, j.id, PRIORITY_STORAGE);
        stagings_.push_back(std::move(s));
        cluster_.hold_progress_until(j.id, stagings_.back().done_at);
        if (source->retrieval_delay_s <= 0) on_retrieved(j.id);
        return;
      }
      if (wait_for >= 0) {
        Staging* s = staging_of(static_cast<std::uint32_t>(wait_for));
        s->waiters.push_back(j.id);
        cluster_.hold_progress_until(j.id, std::max(engine_.now(), s->done_at));
        return;
      }
      stream(j, *local_tier_);
      return;
    }
  }
  stream(j, source_tier);
}

void StorageCoupling::on_retrieved(std::uint64_t id) {
  Staging& s = *staging_of(static_cast<std::uint32_t>(id));
  const Job& j = cluster_.jobs()[id];
  const TrainingSpec& t = *j.training;
  const StorageTierSpec& source = scenario_.storage->tiers[s.source];
  const StorageTierSpec& local = scenario_.storage->tiers[*local_tier_];
  s.copying = true;
  const double file = file_bytes_of(t);
  const auto nodes = static_cast<double>(s.nodes.size());
  Reader r;
  r.job = j.id;
  r.bandwidth = tier_bandwidth(source, file);
  r.cap = nodes * std::min(read_throughput_bytes_per_s(source, file, READERS_PER_GPU * j.gpus_per_node_held),
                           local.write_bytes_per_s);
  r.demand = r.cap;
  r.staging = true;
  r.remaining = s.bytes * nodes;
  r.updated = engine_.now();
  Group& g = group_for(s.source, -1);
  const auto at = std::lower_bound(g.readers.begin(), g.readers.end(), j.id,
                                   [](const Reader& a, std::uint32_t job) { return a.job < job; });
  g.readers.insert(at, r);
  group_of_[j.id] = static_cast<std::int32_t>(&g - groups_.data());
  recompute(g);
}

void StorageCoupling::on_staged(std::uint64_t id) {
  const auto job = static_cast<std::uint32_t>(id);
  const auto it = std::find_if(stagings_.begin(), stagings_.end(), [&](const Staging& s) { return s.job == job; });
  assert(it != stagings_.end());
  const Staging done = std::move(*it);
  stagings_.erase(it);
  const std::size_t source_group = static_cast<std::size_t>(group_of_[job]);
  auto& readers = groups_[source_group].readers;
  readers.erase(std::find_if(readers.begin(), readers.end(), [&](const Reader& r) { return r.job == job && !r.writing; }));
  group_of_[job] = -1;
  const sim::SimTime now = engine_.now();
  const Job& j = cluster_.jobs()[job];
  charge_reads(now, scenario_.storage->tiers[done.source], done.bytes * static_cast<double>(done.nodes.size()),
               file_bytes_of(*j.training), static_cast<std::int32_t>(job));
  // The job, and those that waited for this copy, now read from their nodes' NVMe.
  cluster_.hold_progress_until(job, now);
  stream(j, *local_tier_);
  for (const std::uint32_t w : done.waiters) {
    const Job& waiter = cluster_.jobs()[w];
    if (waiter.status != JobStatus::Running) continue;
    cluster_.hold_progress_until(w, now);
    stream(waiter, *local_tier_);
  }
  recompute(groups_[source_group]);
}

void StorageCoupling::stream(const Job& j, std::size_t tier) {
  const StorageTierSpec& read_tier = scenario_.storage->tiers[tier];
  const HardwareContext& hw = *speeds_.context(j.id);
  const double file = file_bytes_of(*j.training);
  const double nodes = read_tier.per_node() ? static_cast<double>(hw.nodes) : 1.0;
  Reader r;
  r.job = j.id;
  r.bandwidth = tier_bandwidth(read_tier, file) * nodes;
  r.cap = read_throughput_bytes_per_s(read_tier, file, READERS_PER_GPU * hw.gpus_per_node()) * nodes;
  stream_tier_[j.id] = static_cast<std::int32_t>(tier);
  // Jobs on one node share its NVMe; a job spanning nodes holds them whole, so keying by
  // its first node is exact.
  Group& g = group_for(tier, shared(read_tier.kind) ? -1 : static_cast<std::int64_t>(cluster_.nodes_of(j)[0]));
  const auto at = std::lower_bound(g.readers.begin(), g.readers.end(), j.id,
                                   [](const Reader& a, std::uint32_t id) { return a.job < id; });
  g.readers.insert(at, r);
  group_of_[j.id] = static_cast<std::int32_t>(&g - groups_.data());
  recompute(g);
}

void StorageCoupling::leave(std::uint32_t job) {
  if (group_of_[job] < 0) return;
  Group& g = groups_[static_cast<std::size_t>(group_of_[job])];
  group_of_[job] = -1;
  const auto it = std::find_if(g.readers.begin(), g.readers.end(), [&](const Reader& r) { return r.job == job && !r.writing; });
  assert(it != g.readers.end());
  g.readers.erase(it);
  recompute(g);
}

// A checkpoint write shares the tier it goes to with its readers and other writers (a
// local-nvme tier: the node's NVMe), like a staging copy: large files at the tier's write
// bandwidth, capped per stream; it ends when its bytes have moved at the shares it got.
void StorageCoupling::on_checkpoint_started(const Job& j) {
  if (write_group_[j.id] >= 0) end_write(j.id);  // a regular write cut short by a last one
  const StorageSpec& storage = *scenario_.storage;
  const StorageTierSpec* tier = storage.find(j.checkpoint->tier);
  const auto tier_index = static_cast<std::size_t>(tier - storage.tiers.data());
  const double write_bps = tier->write_bytes_per_s > 0 ? tier->write_bytes_per_s : tier->read_bytes_per_s;
  Reader w;
  w.job = j.id;
  w.writing = true;
  w.bandwidth = write_bps;
  w.cap = tier->stream_bytes_per_s > 0 ? std::min(write_bps, tier->stream_bytes_per_s) : write_bps;
  w.demand = w.cap;
  w.remaining = j.checkpoint->size_bytes;
  w.updated = engine_.now();
  Group& g = group_for(tier_index, shared(tier->kind) ? -1 : static_cast<std::int64_t>(cluster_.nodes_of(j)[0]));
  // Kept in job order (a job's writer after its reader): the order speed changes are made in.
  const auto at = std::upper_bound(g.readers.begin(), g.readers.end(), j.id,
                                   [](std::uint32_t id, const Reader& r) { return id < r.job; });
  g.readers.insert(at, w);
  write_group_[j.id] = static_cast<std::int32_t>(&g - groups_.data());
  recompute(g);
}

void StorageCoupling::end_write(std::uint32_t job) {
  Group& g = groups_[static_cast<std::size_t>(write_group_[job])];
  write_group_[job] = -1;
  const auto it = std::find_if(g.readers.begin(), g.readers.end(), [&](const Reader& r) { return r.job == job && r.writing; });
  assert(it != g.readers.end());
  g.readers.erase(it);
  recompute(g);
}

bool StorageCoupling::demand_changed(std::uint32_t job) {
  if (group_of_[job] < 0) return false;
  Group& g = groups_[static_cast<std::size_t>(group_of_[job])];
  for (const Reader& r : g.readers)
    if (r.job == job && r.staging) return false;  // a copy's demand does not depend on the step
  recompute(g);
  return true;
}

void StorageCoupling::on_finished(const Job& j) {
  if (j.id >= group_of_.size()) return;
  if (!pinned_[j.id].empty()) {
    for (std::uint32_t n : cluster_.nodes_of(j)) cache(n).unpin(pinned_[j.id]);
    pinned_[j.id].clear();
  }
  if (stream_tier_[j.id] >= 0) {
    const StorageTierSpec& tier = scenario_.storage->tiers[static_cast<std::size_t>(stream_tier_[j.id])];
    const double file = file_bytes_of(*j.training);
    // This run read the samples from where it started (a restart resumes at its checkpoint).
    charge_reads(j.end, tier, (j.work_total - j.run_start_work) * file, file, static_cast<std::int32_t>(j.id));
    // A dataset kept on local NVMe is stored on each of the job's nodes while it runs.
    if (scenario_.storage->find(j.training->dataset->tier)->kind == TierKind::LocalNvme)
      for (const std::uint32_t n : cluster_.nodes_of(j))
        charge(j.end, cluster_.nodes()[n].type, static_cast<std::int32_t>(n), static_cast<std::int32_t>(j.id),
               ChargeCategory::Storage, storage_cost_usd(tier, dataset_bytes_of(*j.training), (j.end - j.run_start).seconds()));
    stream_tier_[j.id] = -1;
  }
  leave(j.id);
}

// A run that lost its nodes (docs/storage.md, "Interrupted runs"): its reads so far are
// charged, its copy in progress is abandoned (the partial dataset is dropped from the
// nodes, and jobs that waited for it start their own copy), and it leaves its group.
void StorageCoupling::on_stopped(const Job& j) {
  if (j.id >= group_of_.size()) return;
  if (write_group_[j.id] >= 0) end_write(j.id);  // a write in progress is abandoned
  const sim::SimTime now = engine_.now();
  // Jobs waiting for another job's copy just stop waiting.
  for (Staging& s : stagings_) s.waiters.erase(std::remove(s.waiters.begin(), s.waiters.end(), j.id), s.waiters.end());
  std::vector<std::uint32_t> waiters;
  if (Staging* s = staging_of(j.id)) {
    engine_.cancel(s->event);
    double moved = 0;
    if (s->copying && group_of_[j.id] >= 0) {
      for (const Reader& r : groups_[static_cast<std::size_t>(group_of_[j.id])].readers)
        if (r.job == j.id && !r.writing)
          moved = s->bytes * static_cast<double>(s->nodes.size()) -
                  std::max(0.0, r.remaining - r.rate * (now - r.updated).seconds());
    }
    charge_reads(now, scenario_.storage->tiers[s->source], moved, file_bytes_of(*j.training), static_cast<std::int32_t>(j.id));
    for (const std::uint32_t n : s->nodes) {
      const auto it = std::find_if(copies_.begin(), copies_.end(), [&](const Copy& c) { return c.node == n && c.key == s->key; });
      if (it != copies_.end()) {
        charge_copy(*it, now);
        copies_.erase(it);
      }
    }
    waiters = s->waiters;
    const std::string key = s->key;
    const std::vector<std::uint32_t> nodes = s->nodes;
    stagings_.erase(stagings_.begin() + (s - stagings_.data()));
    // Unpin everyone's pins on the partial copies and drop them.
    if (!pinned_[j.id].empty()) {
      for (const std::uint32_t n : cluster_.nodes_of(j)) cache(n).unpin(pinned_[j.id]);
      pinned_[j.id].clear();
    }
    for (const std::uint32_t w : waiters) {
      if (pinned_[w].empty()) continue;
      for (const std::uint32_t n : cluster_.nodes_of(cluster_.jobs()[w])) cache(n).unpin(pinned_[w]);
      pinned_[w].clear();
    }
    for (const std::uint32_t n : nodes) cache(n).erase(key);
  }
  if (!pinned_[j.id].empty()) {
    for (const std::uint32_t n : cluster_.nodes_of(j)) cache(n).unpin(pinned_[j.id]);
    pinned_[j.id].clear();
  }
  if (stream_tier_[j.id] >= 0) {
    const StorageTierSpec& tier = scenario_.storage->tiers[static_cast<std::size_t>(stream_tier_[j.id])];
    const double file = file_bytes_of(*j.training);
    charge_reads(now, tier, std::max(0.0, j.stopped_work - j.run_start_work) * file, file, static_cast<std::int32_t>(j.id));
    if (scenario_.storage->find(j.training->dataset->tier)->kind == TierKind::LocalNvme)
      for (const std::uint32_t n : cluster_.nodes_of(j))
        charge(now, cluster_.nodes()[n].type, static_cast<std::int32_t>(n), static_cast<std::int32_t>(j.id),
               ChargeCategory::Storage, storage_cost_usd(tier, dataset_bytes_of(*j.training), (now - j.run_start).seconds()));
    stream_tier_[j.id] = -1;
  }
  leave(j.id);
  // Those that waited for the abandoned copy make their own.
  for (const std::uint32_t w : waiters)
    if (cluster_.jobs()[w].status == JobStatus::Running) on_started(cluster_.jobs()[w]);
}

// A node that goes loses its NVMe: a replacement comes up empty.
void StorageCoupling::on_node_down(std::uint32_t n) {
  if (!caches_[n]) return;
  const sim::SimTime now = engine_.now();
  for (auto it = copies_.begin(); it != copies_.end();) {
    if (it->node == n) {
      charge_copy(*it, now);
      it = copies_.erase(it);
    } else {
      ++it;
    }
  }
  caches_[n].reset();
}

void StorageCoupling::on_run_ended(sim::SimTime end) {
  const StorageSpec& storage = *scenario_.storage;
  // Checkpoints on a tier are kept from their first commit to the end of the run (a new
  // one replaces the last: one checkpoint's size is stored).
  for (const Job& j : cluster_.jobs()) {
    if (ckpt_stored_since_[j.id].is_max()) continue;
    const StorageTierSpec& tier = *storage.find(j.checkpoint->tier);
    charge(end, -1, -1, static_cast<std::int32_t>(j.id), ChargeCategory::Storage,
           storage_cost_usd(tier, j.checkpoint->size_bytes, (end - ckpt_stored_since_[j.id]).seconds()));
  }
  // What running jobs read (or copied) up to the end, and local datasets held until then.
  for (const Job& j : cluster_.jobs()) {
    if (j.status != JobStatus::Running) continue;
    const double file = j.training ? file_bytes_of(*j.training) : 0;
    if (const Staging* s = staging_of(j.id)) {
      double moved = 0;
      if (s->copying) {
        for (const Reader& r : groups_[static_cast<std::size_t>(group_of_[j.id])].readers)
          if (r.job == j.id && !r.writing)
            moved = s->bytes * static_cast<double>(s->nodes.size()) -
                    std::max(0.0, r.remaining - r.rate * (end - r.updated).seconds());
      }
      charge_reads(end, storage.tiers[s->source], moved, file, static_cast<std::int32_t>(j.id));
    }
    if (stream_tier_[j.id] < 0) continue;
    const StorageTierSpec& tier = storage.tiers[static_cast<std::size_t>(stream_tier_[j.id])];
    charge_reads(end, tier, std::max(0.0, samples_done(j, end) - j.run_start_work) * file, file, static_cast<std::int32_t>(j.id));
    if (storage.find(j.training->dataset->tier)->kind == TierKind::LocalNvme)
      for (const std::uint32_t n : cluster_.nodes_of(j))
        charge(end, cluster_.nodes()[n].type, static_cast<std::int32_t>(n), static_cast<std::int32_t>(j.id),
               ChargeCategory::Storage, storage_cost_usd(tier, dataset_bytes_of(*j.training), (end - j.run_start).seconds()));
  }
  // Staged copies still on the nodes.
  for (const Copy& c : copies_) charge_copy(c, end);
  copies_.clear();
  // Every dataset on a shared tier, once, for the whole run (first named by the lowest job
  // id; charged to that job when no other names it).
  struct Stored {
    std::string key;
    const StorageTierSpec* tier;
    double bytes;
    std::int32_t job;
  };
  std::vector<Stored> stored;
  for (const Job& j : cluster_.jobs()) {
    if (!j.training || !j.training->dataset || j.training->dataset->tier.empty()) continue;
    const StorageTierSpec* tier = storage.find(j.training->dataset->tier);
    if (!tier || !shared(tier->kind)) continue;
    const std::string key = dataset_key(j, *tier);
    const auto it = std::find_if(stored.begin(), stored.end(), [&](const Stored& s) { return s.key == key; });
    if (it != stored.end()) {
      it->job = -1;
      continue;
    }
    stored.push_back(Stored{key, tier, dataset_bytes_of(*j.training), static_cast<std::int32_t>(j.id)});
  }
  for (const Stored& s : stored)
    charge(end, -1, -1, s.job, ChargeCategory::Storage, storage_cost_usd(*s.tier, s.bytes, end.seconds()));
}

void StorageCoupling::recompute(Group& g) {
  const sim::SimTime now = engine_.now();
  auto& rs = g.readers;
  for (Reader& r : rs) {
    if (r.staging || r.writing) {
      r.remaining = std::max(0.0, r.remaining - r.rate * (now - r.updated).seconds());
      r.updated = now;
      continue;
    }
    // The read rate at which storage stops limiting the job, at its current step.
    const StepEstimate unlimited = speeds_.unlimited_by_storage(r.job);
    const double base_s = unlimited.step_s - unlimited.straggler_s;
    const TrainingSpec& t = *cluster_.jobs()[r.job].training;
    r.demand = base_s > 0 ? t.samples_per_step() * file_bytes_of(t) / base_s : r.cap;
  }
  // Progressive filling of device time: readers in order of their largest share, each
  // taking the smaller of that and an equal split of what is left.
  auto max_share = [&](std::size_t i) { return std::min(rs[i].demand, rs[i].cap) / rs[i].bandwidth; };
  order_.resize(rs.size());
  for (std::size_t i = 0; i < rs.size(); ++i) order_[i] = i;
  std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) { return max_share(a) < max_share(b); });
  double left = 1.0;
  std::size_t n = rs.size();
  for (std::size_t i : order_) {
    const double share = std::min(max_share(i), left / static_cast<double>(n));
    rs[i].rate = share * rs[i].bandwidth;
    left -= share;
    --n;
  }
  for (const Reader& r : rs) {  // by job id: deterministic order of speed changes
    if (r.writing) {
      const sim::SimTime done = now + sim::SimTime::from_ns(static_cast<std::int64_t>(std::ceil(r.remaining / r.rate * 1e9)));
      cluster_.move_checkpoint_write(r.job, done);
      continue;
    }
    if (r.staging) {
      // The copy ends when its bytes have moved at this rate (rounded up to the ns, so it
      // never ends before its last byte); the job and its waiters hold until then.
      Staging& s = *staging_of(r.job);
      const sim::SimTime done = now + sim::SimTime::from_ns(static_cast<std::int64_t>(std::ceil(r.remaining / r.rate * 1e9)));
      if (done == s.done_at && engine_.is_pending(s.event)) continue;
      s.done_at = done;
      engine_.cancel(s.event);
      s.event = engine_.schedule_at<&StorageCoupling::on_staged>(done, this, r.job, PRIORITY_STORAGE);
      cluster_.hold_progress_until(r.job, done);
      for (const std::uint32_t w : s.waiters)
        if (cluster_.jobs()[w].status == JobStatus::Running) cluster_.hold_progress_until(w, done);
      continue;
    }
    // At or above its demand storage does not limit the job: it runs as if alone, so a lone
    // job's speed is exactly the one Cluster::nominal_rate gives.
    const bool limited = r.rate < r.demand * (1 - 1e-12) && r.rate < r.cap;
    speeds_.set_storage_read(r.job, limited ? r.rate : r.cap);
  }
}

}  // namespace gcsim::models
