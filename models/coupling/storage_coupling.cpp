// Jobs as readers, copiers and writers of the storage tiers (see storage_coupling.hpp).
#include "models/coupling/storage_coupling.hpp"

#include <algorithm>

#include "models/storage/storage_datasets.hpp"
#include "models/coupling/job_speed.hpp"
#include "models/core/event_priorities.hpp"
#include "sim/check.hpp"

namespace gcsim::models {
namespace {

using Kind = StorageTiers::Kind;
using TransferId = StorageTiers::TransferId;

}  // namespace

StorageCoupling::StorageCoupling(const Scenario& scenario, sim::Engine& engine, Cluster& cluster, ModelSpeeds& speeds,
                                 StorageTiers& tiers)
    : scenario_(scenario), engine_(engine), cluster_(cluster), speeds_(speeds), tiers_(tiers) {
  GCSIM_CHECK(scenario.storage, "StorageCoupling needs a scenario with a storage section");
  for (std::size_t i = 0; i < scenario.storage->tiers.size(); ++i)
    if (scenario.storage->tiers[i].kind == TierKind::LocalNvme) {
      local_tier_ = i;
      break;
    }
  const std::size_t jobs = cluster.jobs().size();
  caches_.resize(cluster.nodes().size());
  read_.assign(jobs, StorageTiers::NONE);
  write_.assign(jobs, StorageTiers::NONE);
  pinned_.resize(jobs);
  stream_tier_.assign(jobs, -1);
  // A job made during the run (Cluster::submit, or a streamed run's) grows the tables when
  // it arrives, before it can start.
  cluster.job_submitted.connect(ORDER_STORAGE, [this](const Job& j) {
    if (j.id < read_.size()) return;
    const std::size_t n = std::size_t{j.id} + 1;
    read_.resize(n, StorageTiers::NONE);
    write_.resize(n, StorageTiers::NONE);
    pinned_.resize(n);
    stream_tier_.resize(n, -1);
  });
  cluster.job_started.connect(ORDER_STORAGE, [this](const Job& j) { on_started(j); });
  cluster.job_finished.connect(ORDER_STORAGE, [this](const Job& j) { on_finished(j); });
  cluster.job_stopped.connect(ORDER_STORAGE, [this](const Job& j) { on_stopped(j); });
  cluster.checkpoint_started.connect(ORDER_STORAGE, [this](const Job& j) { on_checkpoint_started(j); });
  cluster.checkpoint_written.connect(ORDER_STORAGE, [this](const Job& j) {
    if (write_[j.id] != StorageTiers::NONE) end_write(j.id);
  });
  cluster.node_down.connect(ORDER_STORAGE, [this](std::uint32_t n) { on_node_down(n); });
  speeds.on_demand_changed([this](std::uint32_t job) { return demand_changed(job); });
  tiers.copy_done.connect(ORDER_STORAGE, [this](TransferId copy) { on_staged(copy); });
}

const StagingCache* StorageCoupling::staging_cache(std::uint32_t node) const {
  return node < caches_.size() && caches_[node] ? &*caches_[node] : nullptr;
}

double StorageCoupling::read_bytes_per_s(std::uint32_t job) const {
  if (job >= read_.size() || read_[job] == StorageTiers::NONE) return 0;
  return tiers_.transfer(read_[job]).work.rate;
}

std::optional<std::pair<std::size_t, double>> StorageCoupling::copy_progress(std::uint32_t job, sim::SimTime t) const {
  const auto s = std::find_if(stagings_.begin(), stagings_.end(), [&](const Staging& x) { return x.job == job; });
  if (s == stagings_.end()) return std::nullopt;
  double moved = 0;
  if (s->copying && read_[job] != StorageTiers::NONE)
    moved = s->bytes * static_cast<double>(s->nodes.size()) - tiers_.transfer(read_[job]).work.remaining_at(t);
  return std::pair(s->source, moved);
}

StagingCache& StorageCoupling::cache(std::uint32_t node) {
  if (!caches_[node]) caches_[node].emplace(scenario_.storage->tiers[*local_tier_].capacity_bytes);
  return *caches_[node];
}

StorageCoupling::Staging* StorageCoupling::staging_of(std::uint32_t job) {
  for (Staging& s : stagings_)
    if (s.job == job) return &s;
  return nullptr;
}

void StorageCoupling::unpin(const Job& j) {
  if (pinned_[j.id].empty()) return;
  for (const std::uint32_t n : cluster_.nodes_of(j)) cache(n).unpin(pinned_[j.id]);
  pinned_[j.id].clear();
}

void StorageCoupling::drop_copy(std::vector<StagedCopy>::iterator it, sim::SimTime t) {
  copy_dropped.emit(*it, t);
  copies_.erase(it);
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
                                     [&](const StagedCopy& x) { return x.node == n && x.key == evicted; });
        GCSIM_CHECK(it != copies_.end(), "a staging copy that ended is not among the copies under way");
        drop_copy(it, now);
      }
      copies_.push_back(StagedCopy{n, key, bytes, now, static_cast<std::int32_t>(j.id)});
      missing.push_back(n);
    }
    c.pin(key);
  }
  return true;
}

void StorageCoupling::on_started(const Job& j) {
  if (!j.training() || !j.training()->dataset || j.training()->dataset->tier.empty()) return;
  const TrainingSpec& t = *j.training();
  const StorageSpec& storage = *scenario_.storage;
  const StorageTierSpec* source = storage.find(t.dataset->tier);
  if (!source) return;
  const auto source_tier = static_cast<std::size_t>(source - storage.tiers.data());
  if (t.dataset->access == DataAccess::Stage && shared_tier(source->kind) && local_tier_) {
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
        Staging s{j.id, source_tier, key, std::move(missing), bytes, {}, {}, false, false, {}};
        // Until the copy has a share, it is expected to end as if alone.
        s.done_at = engine_.now() + sim::SimTime::from_seconds(source->retrieval_delay_s + copy_bytes / cap);
        if (source->retrieval_delay_s > 0)
          s.retrieval = engine_.schedule_after<&StorageCoupling::on_retrieved>(
              sim::SimTime::from_seconds(source->retrieval_delay_s), this, j.id, PRIORITY_STATE);
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
  const StorageTierSpec& source = scenario_.storage->tiers[s.source];
  const StorageTierSpec& local = scenario_.storage->tiers[*local_tier_];
  s.copying = true;
  const double file = file_bytes_of(*j.training());
  const auto nodes = static_cast<double>(s.nodes.size());
  const double cap = nodes * std::min(read_throughput_bytes_per_s(source, file, READERS_PER_GPU * j.gpus_per_node_held),
                                      local.write_bytes_per_s);
  join(j, s.source, Kind::Copy, tier_bandwidth_bytes_per_s(source, file), cap, s.bytes * nodes, read_[j.id]);
}

void StorageCoupling::on_staged(TransferId copy) {
  const std::uint32_t job = tiers_.transfer(copy).job;
  const std::uint32_t source_device = tiers_.transfer(copy).device;
  const auto it = std::find_if(stagings_.begin(), stagings_.end(), [&](const Staging& s) { return s.job == job; });
  GCSIM_CHECK(it != stagings_.end() && read_[job] == copy, "a job's staging copy is not the one it waits for");
  const Staging done = std::move(*it);
  stagings_.erase(it);
  tiers_.end(copy);  // the source is re-shared last, as the copy's readers move to NVMe
  read_[job] = StorageTiers::NONE;
  const sim::SimTime now = engine_.now();
  const Job& j = cluster_.jobs()[job];
  copy_read.emit(now, j, done.source, done.bytes * static_cast<double>(done.nodes.size()));
  // The job, and those that waited for this copy, now read from their nodes' NVMe.
  cluster_.hold_progress_until(job, now);
  stream(j, *local_tier_);
  for (const std::uint32_t w : done.waiters) {
    const Job& waiter = cluster_.jobs()[w];
    if (waiter.status != JobStatus::Running) continue;
    cluster_.hold_progress_until(w, now);
    stream(waiter, *local_tier_);
  }
  share(source_device);
}

void StorageCoupling::join(const Job& j, std::size_t tier, Kind kind, double bandwidth, double cap, double bytes,
                           TransferId& slot) {
  // Jobs on one node share its NVMe; a job spanning nodes holds them whole, so keying by
  // its first node is exact.
  const StorageTierSpec& spec = scenario_.storage->tiers[tier];
  const std::uint32_t device =
      tiers_.device(tier, shared_tier(spec.kind) ? -1 : static_cast<std::int64_t>(cluster_.nodes_of(j)[0]));
  // Recorded before sharing: a speed change made by the sharing may ask for this job's read.
  slot = tiers_.start(device, kind, j.id, bandwidth, cap, bytes);
  share(device);
}

void StorageCoupling::stream(const Job& j, std::size_t tier) {
  const StorageTierSpec& read_tier = scenario_.storage->tiers[tier];
  const HardwareContext& hw = *speeds_.context(j.id);
  const double file = file_bytes_of(*j.training());
  const double nodes = read_tier.per_node() ? static_cast<double>(hw.nodes) : 1.0;
  stream_tier_[j.id] = static_cast<std::int32_t>(tier);
  join(j, tier, Kind::Read, tier_bandwidth_bytes_per_s(read_tier, file) * nodes,
       read_throughput_bytes_per_s(read_tier, file, READERS_PER_GPU * hw.gpus_per_node()) * nodes, 0, read_[j.id]);
}

void StorageCoupling::end_stream(const Job& j, sim::SimTime t, double samples) {
  stream_ended.emit(t, j, static_cast<std::size_t>(stream_tier_[j.id]), samples);
  stream_tier_[j.id] = -1;
}

void StorageCoupling::leave(std::uint32_t job) {
  if (read_[job] == StorageTiers::NONE) return;
  const std::uint32_t device = tiers_.transfer(read_[job]).device;
  tiers_.end(read_[job]);
  read_[job] = StorageTiers::NONE;
  share(device);
}

// A checkpoint write shares the tier it goes to with its readers and other writers (a
// local-nvme tier: the node's NVMe), like a staging copy: large files at the tier's write
// bandwidth, capped per stream; it ends when its bytes have moved at the shares it got.
void StorageCoupling::on_checkpoint_started(const Job& j) {
  if (write_[j.id] != StorageTiers::NONE) end_write(j.id);  // a regular write cut short by a last one
  const StorageSpec& storage = *scenario_.storage;
  const StorageTierSpec* tier = storage.find(j.checkpoint()->tier);
  const auto tier_index = static_cast<std::size_t>(tier - storage.tiers.data());
  const double write_bps = tier->write_bytes_per_s > 0 ? tier->write_bytes_per_s : tier->read_bytes_per_s;
  const double cap = tier->stream_bytes_per_s > 0 ? std::min(write_bps, tier->stream_bytes_per_s) : write_bps;
  join(j, tier_index, Kind::Write, write_bps, cap, j.checkpoint()->size_bytes, write_[j.id]);
}

void StorageCoupling::end_write(std::uint32_t job) {
  const std::uint32_t device = tiers_.transfer(write_[job]).device;
  tiers_.end(write_[job]);
  write_[job] = StorageTiers::NONE;
  share(device);
}

bool StorageCoupling::demand_changed(std::uint32_t job) {
  if (read_[job] == StorageTiers::NONE) return false;
  const StorageTiers::Transfer& t = tiers_.transfer(read_[job]);
  if (t.kind == Kind::Copy) return false;  // a copy's demand does not depend on the step
  share(t.device);
  return true;
}

void StorageCoupling::on_finished(const Job& j) {
  if (j.id >= read_.size()) return;
  unpin(j);
  // This run read the samples from where it started (a restart resumes at its checkpoint).
  if (stream_tier_[j.id] >= 0) end_stream(j, j.end, j.work_total() - j.ckpt().run_start_work);
  leave(j.id);
}

// A run that lost its nodes (docs/storage.md, "Interrupted runs"): its reads so far count,
// its copy in progress is abandoned (the partial dataset is dropped from the nodes, and
// jobs that waited for it start their own copy), and it leaves its device.
void StorageCoupling::on_stopped(const Job& j) {
  if (j.id >= read_.size()) return;
  if (write_[j.id] != StorageTiers::NONE) end_write(j.id);  // a write in progress is abandoned
  const sim::SimTime now = engine_.now();
  // Jobs waiting for another job's copy just stop waiting.
  for (Staging& s : stagings_) s.waiters.erase(std::remove(s.waiters.begin(), s.waiters.end(), j.id), s.waiters.end());
  std::vector<std::uint32_t> waiters;
  if (Staging* s = staging_of(j.id)) {
    engine_.cancel(s->retrieval);
    copy_read.emit(now, j, s->source, copy_progress(j.id, now)->second);
    for (const std::uint32_t n : s->nodes) {
      const auto it =
          std::find_if(copies_.begin(), copies_.end(), [&](const StagedCopy& c) { return c.node == n && c.key == s->key; });
      if (it != copies_.end()) drop_copy(it, now);
    }
    waiters = s->waiters;
    const std::string key = s->key;
    const std::vector<std::uint32_t> nodes = s->nodes;
    stagings_.erase(stagings_.begin() + (s - stagings_.data()));
    // Unpin everyone's pins on the partial copies and drop them.
    unpin(j);
    for (const std::uint32_t w : waiters) unpin(cluster_.jobs()[w]);
    for (const std::uint32_t n : nodes) cache(n).erase(key);
  }
  unpin(j);
  if (stream_tier_[j.id] >= 0) end_stream(j, now, std::max(0.0, j.stopped_work() - j.ckpt().run_start_work));
  leave(j.id);
  // Those that waited for the abandoned copy make their own.
  for (const std::uint32_t w : waiters)
    if (cluster_.jobs()[w].status == JobStatus::Running) on_started(cluster_.jobs()[w]);
}

// A node that goes loses its NVMe: a replacement comes up empty.
void StorageCoupling::on_node_down(std::uint32_t n) {
  if (!caches_[n]) return;
  const sim::SimTime now = engine_.now();
  for (std::size_t i = 0; i < copies_.size();) {
    if (copies_[i].node == n) {
      drop_copy(copies_.begin() + static_cast<std::ptrdiff_t>(i), now);
    } else {
      ++i;
    }
  }
  caches_[n].reset();
}

void StorageCoupling::share(std::uint32_t device) {
  for (const TransferId id : tiers_.transfers_on(device)) {
    const StorageTiers::Transfer& t = tiers_.transfer(id);
    if (t.kind != Kind::Read) continue;
    // The read rate at which storage stops limiting the job, at its current step.
    const StepEstimate unlimited = speeds_.unlimited_by_storage(t.job);
    const double base_s = unlimited.step_s - unlimited.straggler_s;
    const TrainingSpec& tr = *cluster_.jobs()[t.job].training();
    tiers_.set_demand(id, base_s > 0 ? tr.samples_per_step() * file_bytes_of(tr) / base_s : t.cap);
  }
  for (const TransferId id : tiers_.reshare(device)) {  // by job id: deterministic order of speed changes
    const StorageTiers::Transfer t = tiers_.transfer(id);  // a copy: speed changes may start transfers
    switch (t.kind) {
      case Kind::Write:
        cluster_.move_checkpoint_write(t.job, t.work.finish);
        break;
      case Kind::Copy: {
        // The job and its waiters hold until the copy ends.
        Staging& s = *staging_of(t.job);
        if (s.predicted && t.work.finish == s.done_at) break;
        s.predicted = true;
        s.done_at = t.work.finish;
        cluster_.hold_progress_until(t.job, s.done_at);
        for (const std::uint32_t w : s.waiters)
          if (cluster_.jobs()[w].status == JobStatus::Running) cluster_.hold_progress_until(w, s.done_at);
        break;
      }
      case Kind::Read: {
        // At or above its demand storage does not limit the job: it runs as if alone, so a
        // lone job's speed is exactly the one it started at (ModelSpeeds::start_speed).
        const bool limited = t.work.rate < t.demand * (1 - 1e-12) && t.work.rate < t.cap;
        speeds_.set_storage_read(t.job, limited ? t.work.rate : t.cap);
        break;
      }
    }
  }
}

}  // namespace gcsim::models
