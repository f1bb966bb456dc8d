// Storage charges from the storage model's signals (see storage_cost_meter.hpp).
#include "models/accounting/storage_cost_meter.hpp"

#include <algorithm>
#include <string>

#include "models/core/event_priorities.hpp"
#include "models/storage/storage_datasets.hpp"

namespace gcsim::models {

StorageCostMeter::StorageCostMeter(const Scenario& scenario, const sim::Engine& engine, Cluster& cluster,
                                   StorageCoupling& storage, Ledger& ledger)
    : scenario_(scenario), engine_(engine), cluster_(cluster), storage_(storage), ledger_(ledger) {
  ckpt_stored_since_.assign(cluster.jobs().size(), sim::SimTime::max());
  cluster.job_submitted.connect(ORDER_STORAGE_COSTS, [this](const Job& j) {  // jobs submitted during the run (Cluster::submit)
    if (j.id >= ckpt_stored_since_.size()) ckpt_stored_since_.resize(std::size_t{j.id} + 1, sim::SimTime::max());
  });
  cluster.checkpoint_written.connect(ORDER_STORAGE_COSTS, [this](const Job& j) {
    // A save on preemption of a job with no checkpoint plan is stored nowhere (no tier).
    if (j.checkpoint() && !j.checkpoint()->tier.empty() && ckpt_stored_since_[j.id].is_max())
      ckpt_stored_since_[j.id] = engine_.now();
  });
  storage.stream_ended.connect(ORDER_STORAGE_COSTS, 
      [this](sim::SimTime t, const Job& j, std::size_t tier, double samples) { charge_stream(t, j, tier, samples); });
  storage.copy_read.connect(ORDER_STORAGE_COSTS, [this](sim::SimTime t, const Job& j, std::size_t tier, double bytes) {
    charge_reads(t, scenario_.storage->tiers[tier], bytes, file_bytes_of(*j.training()), static_cast<std::int32_t>(j.id));
  });
  storage.copy_dropped.connect(ORDER_STORAGE_COSTS, [this](const StagedCopy& c, sim::SimTime until) { charge_copy(c, until); });
  cluster.run_ended.connect(ORDER_STORAGE_COSTS, [this](sim::SimTime end) { on_run_ended(end); });
}

void StorageCostMeter::charge(sim::SimTime t, std::int32_t pool, std::int32_t node, std::int32_t job, ChargeCategory c,
                              double usd) {
  if (!(usd > 0)) return;
  ledger_.post(Charge{t, pool, node, job, c, usd, false});
  cost_usd_ += usd;
}

void StorageCostMeter::charge_reads(sim::SimTime t, const StorageTierSpec& tier, double bytes, double file_bytes,
                                    std::int32_t job) {
  const ReadCost c = read_cost(tier, bytes, file_bytes);
  charge(t, -1, -1, job, ChargeCategory::Requests, c.requests_usd + c.retrieval_usd);
  charge(t, -1, -1, job, ChargeCategory::Egress, c.transfer_usd);
}

void StorageCostMeter::charge_stream(sim::SimTime t, const Job& j, std::size_t tier_index, double samples) {
  const StorageSpec& storage = *scenario_.storage;
  const StorageTierSpec& tier = storage.tiers[tier_index];
  const double file = file_bytes_of(*j.training());
  charge_reads(t, tier, samples * file, file, static_cast<std::int32_t>(j.id));
  // A dataset kept on local NVMe is stored on each of the job's nodes while it runs.
  if (storage.find(j.training()->dataset->tier)->kind == TierKind::LocalNvme)
    for (const std::uint32_t n : cluster_.nodes_of(j))
      charge(t, cluster_.nodes()[n].type, static_cast<std::int32_t>(n), static_cast<std::int32_t>(j.id),
             ChargeCategory::Storage, storage_cost_usd(tier, dataset_bytes_of(*j.training()), (t - j.run_start).seconds()));
}

void StorageCostMeter::charge_copy(const StagedCopy& c, sim::SimTime until) {
  const StorageSpec& storage = *scenario_.storage;
  const auto local = std::find_if(storage.tiers.begin(), storage.tiers.end(),
                                  [](const StorageTierSpec& t) { return t.kind == TierKind::LocalNvme; });
  charge(until, cluster_.nodes()[c.node].type, static_cast<std::int32_t>(c.node), c.job, ChargeCategory::Storage,
         storage_cost_usd(*local, c.bytes, (until - c.since).seconds()));
}

double StorageCostMeter::samples_done(const Job& j, sim::SimTime t) const {
  if (j.status == JobStatus::Completed) return j.work_total();
  return j.work_done_at(t);
}

void StorageCostMeter::on_run_ended(sim::SimTime end) {
  const StorageSpec& storage = *scenario_.storage;
  // Checkpoints on a tier are kept from their first commit to the end of the run (a new
  // one replaces the last: one checkpoint's size is stored).
  for (const Job& j : cluster_.jobs()) {
    if (j.id >= ckpt_stored_since_.size() || ckpt_stored_since_[j.id].is_max()) continue;
    const StorageTierSpec& tier = *storage.find(j.checkpoint()->tier);
    charge(end, -1, -1, static_cast<std::int32_t>(j.id), ChargeCategory::Storage,
           storage_cost_usd(tier, j.checkpoint()->size_bytes, (end - ckpt_stored_since_[j.id]).seconds()));
  }
  // What running jobs read (or copied) up to the end, and local datasets held until then.
  for (const Job& j : cluster_.jobs()) {
    if (j.status != JobStatus::Running) continue;
    const double file = j.training() ? file_bytes_of(*j.training()) : 0;
    if (const auto copy = storage_.copy_progress(j.id, end))
      charge_reads(end, storage.tiers[copy->first], copy->second, file, static_cast<std::int32_t>(j.id));
    if (storage_.stream_tier(j.id) < 0) continue;
    charge_stream(end, j, static_cast<std::size_t>(storage_.stream_tier(j.id)),
                  std::max(0.0, samples_done(j, end) - j.ckpt().run_start_work));
  }
  // Staged copies still on the nodes.
  for (const StagedCopy& c : storage_.copies()) charge_copy(c, end);
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
    if (!j.training() || !j.training()->dataset || j.training()->dataset->tier.empty()) continue;
    const StorageTierSpec* tier = storage.find(j.training()->dataset->tier);
    if (!tier || !shared_tier(tier->kind)) continue;
    const std::string key = dataset_key(j, *tier);
    const auto it = std::find_if(stored.begin(), stored.end(), [&](const Stored& s) { return s.key == key; });
    if (it != stored.end()) {
      it->job = -1;
      continue;
    }
    stored.push_back(Stored{key, tier, dataset_bytes_of(*j.training()), static_cast<std::int32_t>(j.id)});
  }
  for (const Stored& s : stored)
    charge(end, -1, -1, s.job, ChargeCategory::Storage, storage_cost_usd(*s.tier, s.bytes, end.seconds()));
}

}  // namespace gcsim::models
