// Shared storage bandwidth as a rate-shared resource model of the engine
// (sim::ResourceModel), on the max-min solver of sim/maxmin.hpp. A device is one
// shared tier (shared-fs, object store, archive) or one node's local NVMe; the transfers
// on a device are the streaming reads of the jobs reading from it, the staging copies
// reading out of it and the checkpoint writes going to it.
//
// Sharing (docs/storage.md, "Storage in runs"): the device's time is the shared resource.
// A transfer j at rate x_j uses x_j / B_j of it, B_j being the device's bandwidth for j
// (min(R_read, IOPS * file size) for a read or copy, the write bandwidth for a write), and
// together they use at most 1. Device time is shared max-min fairly (Bertsekas & Gallager,
// section 6.5.2), each transfer capped by its demand D_j (the read rate at which storage
// stops limiting its job) and its per-stream limit C_j:
//   s_j = x_j / B_j,   sum_j s_j <= 1,   s_j <= min(D_j, C_j) / B_j,   s max-min fair.
// In the solver each device is a resource of capacity 1 and each transfer a flow of weight
// 1 whose rate is s_j, with cap min(D_j, C_j) / B_j; the transfer moves x_j = s_j * B_j
// bytes/s. With equal caps, n readers of one tier get B / n each.
//
// Copies and writes move a fixed number of bytes: their sim::Activity keeps the bytes
// moved across rate changes and predicts their end (rounded up to the ns, so a transfer
// never ends before its last byte). Copies end through the engine seam: next_event_time()
// is the earliest predicted end of a copy, and advance_to() emits copy_done for each copy
// due. A checkpoint write's end is the cluster's checkpoint event, which the owner moves
// to the predicted end; a streaming read is open-ended (it has a rate, no end).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/maxmin.hpp"
#include "sim/activity.hpp"
#include "sim/engine.hpp"
#include "sim/resource_model.hpp"
#include "sim/signal.hpp"

namespace gcsim::models {

class StorageTiers final : public sim::ResourceModel {
 public:
  using TransferId = std::uint32_t;
  static constexpr TransferId NONE = UINT32_MAX;
  enum class Kind : std::uint8_t { Read, Copy, Write };

  struct Transfer {
    std::uint32_t job = 0;
    Kind kind = Kind::Read;
    std::uint32_t device = 0;
    double bandwidth = 0;  // B_j, bytes/s with the whole device
    double cap = 0;        // C_j, bytes/s
    double demand = 0;     // D_j, bytes/s (a copy or a write: its cap)
    sim::Activity work;    // bytes left (copies, writes) and the rate, bytes/s
    sim::SolverFlow flow = 0;
    bool live = false;
  };

  // Register with engine.add_resource_model(&tiers); transfers read engine.now().
  explicit StorageTiers(const sim::Engine& engine) : engine_(engine) {}
  StorageTiers(const StorageTiers&) = delete;
  StorageTiers& operator=(const StorageTiers&) = delete;

  // The device of tier `tier` (scenario order) on `node`, -1 for a shared tier; made on
  // first use. An index lookup, by tier then node.
  std::uint32_t device(std::size_t tier, std::int64_t node);
  // Starts a transfer of `bytes` (ignored for a read) on `device`, bandwidth > 0 and
  // cap > 0 bytes/s, its demand its cap. Its rate is set by the next reshare(device).
  TransferId start(std::uint32_t device, Kind kind, std::uint32_t job, double bandwidth, double cap, double bytes);
  // Ends a transfer (done or abandoned); re-share its device afterwards.
  void end(TransferId id);
  // A read's demand D_j (> 0), bytes/s; takes effect at the next reshare.
  void set_demand(TransferId id, double demand_bytes_per_s);
  // Re-shares the devices changed since the last call and books the new rates of the
  // transfers on `device` from now on (their work so far at the old rates). Returns the
  // device's transfers by job, a job's read or copy before its write: the order owners
  // apply speed changes in. Every change to a device must be followed by its reshare at
  // the same instant.
  std::span<const TransferId> reshare(std::uint32_t device);
  std::span<const TransferId> transfers_on(std::uint32_t device) const { return devices_[device].transfers; }
  const Transfer& transfer(TransferId id) const { return transfers_[id]; }

  sim::SimTime next_event_time() const override { return next_copy_end_; }
  void advance_to(sim::SimTime now) override;

  // A copy has moved its last byte (emitted from advance_to; the handler ends it).
  sim::Signal<TransferId> copy_done;

 private:
  struct Device {
    std::size_t tier;
    std::int64_t node;
    sim::ResourceId resource;
    std::vector<TransferId> transfers;
  };
  void update_next_copy_end();

  const sim::Engine& engine_;
  sim::MaxMinSolver solver_;
  std::vector<Device> devices_;
  // [tier][node + 1]: the device's index in devices_, NO_DEVICE until first used.
  static constexpr std::uint32_t NO_DEVICE = UINT32_MAX;
  std::vector<std::vector<std::uint32_t>> device_index_;
  std::vector<Transfer> transfers_;
  std::vector<TransferId> copies_;  // live copies, in start order
  std::vector<TransferId> due_;     // scratch for advance_to
  sim::SimTime next_copy_end_ = sim::SimTime::max();
};

}  // namespace gcsim::models
