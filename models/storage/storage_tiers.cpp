// Storage devices shared by max-min fairness of device time; see storage_tiers.hpp.
#include "models/storage/storage_tiers.hpp"

#include <algorithm>
#include <string>

#include "sim/check.hpp"

namespace gcsim::models {

std::uint32_t StorageTiers::device(std::size_t tier, std::int64_t node) {
  GCSIM_CHECK(node >= -1, "StorageTiers::device: node " + std::to_string(node) + " is not a node or -1");
  if (device_index_.size() <= tier) device_index_.resize(tier + 1);
  auto& by_node = device_index_[tier];
  const auto slot = static_cast<std::size_t>(node + 1);  // -1 (shared) is slot 0
  if (by_node.size() <= slot) by_node.resize(slot + 1, NO_DEVICE);
  if (by_node[slot] == NO_DEVICE) {
    by_node[slot] = static_cast<std::uint32_t>(devices_.size());
    devices_.push_back(Device{tier, node, solver_.add_resource(1.0), {}});  // capacity: all its time
  }
  return by_node[slot];
}

StorageTiers::TransferId StorageTiers::start(std::uint32_t device, Kind kind, std::uint32_t job, double bandwidth,
                                             double cap, double bytes) {
  GCSIM_CHECK(device < devices_.size() && bandwidth > 0 && cap > 0, "StorageTiers::start: no such device, or a zero bandwidth or cap");
  // Ids are not reused (a few per job run), so a copy_done handler that ends a copy and
  // starts another never sees its id come back as due.
  const auto id = static_cast<TransferId>(transfers_.size());
  Transfer& t = transfers_.emplace_back();
  t.job = job;
  t.kind = kind;
  t.device = device;
  t.bandwidth = bandwidth;
  t.cap = cap;
  t.demand = cap;
  t.work.remaining = kind == Kind::Read ? 0 : bytes;
  t.work.updated = engine_.now();
  t.live = true;
  const sim::ResourceId resource[] = {devices_[device].resource};
  t.flow = solver_.add_flow(resource, 1.0, cap / bandwidth);
  // By job, a job's write after its read or copy.
  auto& on = devices_[device].transfers;
  const auto key = [this](TransferId x) { return std::pair(transfers_[x].job, transfers_[x].kind == Kind::Write); };
  on.insert(std::upper_bound(on.begin(), on.end(), id, [&](TransferId a, TransferId b) { return key(a) < key(b); }), id);
  if (kind == Kind::Copy) copies_.push_back(id);
  return id;
}

void StorageTiers::end(TransferId id) {
  Transfer& t = transfers_[id];
  GCSIM_CHECK(t.live, "StorageTiers::end: transfer " + std::to_string(id) + " has already ended");
  solver_.remove_flow(t.flow);
  auto& on = devices_[t.device].transfers;
  on.erase(std::find(on.begin(), on.end(), id));
  if (t.kind == Kind::Copy) {
    copies_.erase(std::find(copies_.begin(), copies_.end(), id));
    update_next_copy_end();
  }
  t.live = false;
}

void StorageTiers::set_demand(TransferId id, double demand_bytes_per_s) {
  Transfer& t = transfers_[id];
  GCSIM_CHECK(t.live && demand_bytes_per_s > 0, "StorageTiers::set_demand: transfer " + std::to_string(id) + " has ended, or the demand is not positive");
  t.demand = demand_bytes_per_s;
  solver_.set_cap(t.flow, std::min(t.demand, t.cap) / t.bandwidth);
}

std::span<const StorageTiers::TransferId> StorageTiers::reshare(std::uint32_t device) {
  solver_.solve();
  const sim::SimTime now = engine_.now();
  for (const TransferId id : devices_[device].transfers) {
    Transfer& t = transfers_[id];
    t.work.set_rate(now, solver_.rate(t.flow) * t.bandwidth);
    if (t.kind != Kind::Read) t.work.finish = t.work.predict_finish();
  }
  update_next_copy_end();
  return devices_[device].transfers;
}

void StorageTiers::update_next_copy_end() {
  next_copy_end_ = sim::SimTime::max();
  for (const TransferId id : copies_) next_copy_end_ = std::min(next_copy_end_, transfers_[id].work.finish);
}

void StorageTiers::advance_to(sim::SimTime now) {
  // Handlers end copies and start transfers: collect the due ones first.
  due_.clear();
  for (const TransferId id : copies_)
    if (transfers_[id].work.finish <= now) due_.push_back(id);
  for (const TransferId id : due_) {
    const Transfer& t = transfers_[id];
    if (t.live && t.kind == Kind::Copy && t.work.finish <= now) copy_done.emit(id);
  }
  update_next_copy_end();
}

}  // namespace gcsim::models
