// A shared storage tier as a rate-shared resource in the engine (sim::ResourceModel):
// concurrent reads and writes divide the tier's bandwidth, so readers and checkpoint
// writers slow each other down.
//
// Sharing model (docs/storage.md): the tier's device time is the shared resource. A read
// at rate r uses r / R_read of it, a write at rate w uses w / R_write; together they use at
// most 1. Transfers get max-min fair shares of device time (progressive filling, Bertsekas
// & Gallager 1992, section 6.5.2), each capped by its own per-stream limit (a client NIC,
// an object store's per-connection rate). With equal caps, n readers get R_read / n each.
// Rates are recomputed when a transfer starts, ends or is cancelled; between those
// instants every transfer progresses linearly, so the engine only needs the next
// completion time.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/engine.hpp"
#include "sim/resource_model.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

class SharedTier final : public sim::ResourceModel {
 public:
  using TransferId = std::uint64_t;
  using Callback = std::function<void(TransferId)>;
  enum class Direction { Read, Write };

  // The caller registers the tier with engine.add_resource_model(&tier); the tier reads
  // engine.now() when transfers start.
  SharedTier(const sim::Engine& engine, double read_bytes_per_s, double write_bytes_per_s);

  // Starts moving `bytes`; `cap_bytes_per_s` limits this transfer alone (0 = none). `done`
  // runs (from advance_to) when the last byte has moved; it may start new transfers.
  TransferId start_transfer(double bytes, double cap_bytes_per_s, Direction direction, Callback done);
  TransferId start_transfer(double bytes, double cap_bytes_per_s, Callback done) {
    return start_transfer(bytes, cap_bytes_per_s, Direction::Read, std::move(done));
  }
  // Stops a transfer without calling its callback; false when it is not active.
  bool cancel(TransferId id);

  std::size_t active() const { return transfers_.size(); }
  // Current rate and bytes left of an active transfer (0 when not active).
  double rate_bytes_per_s(TransferId id) const;
  double remaining_bytes(TransferId id) const;

  sim::SimTime next_event_time() const override;
  void advance_to(sim::SimTime now) override;

 private:
  struct Transfer {
    TransferId id;
    double remaining;
    double cap;        // bytes/s, 0 = none
    double bandwidth;  // the tier's bandwidth in this direction
    double rate = 0;
    Callback done;
  };
  void progress_to(sim::SimTime now);
  void recompute_rates();
  const Transfer* find(TransferId id) const;

  const sim::Engine& engine_;
  double read_bytes_per_s_;
  double write_bytes_per_s_;
  std::vector<Transfer> transfers_;
  sim::SimTime updated_at_ = sim::SimTime::zero();
  sim::SimTime next_ = sim::SimTime::max();
  TransferId next_id_ = 1;
};

}  // namespace gcsim::models
