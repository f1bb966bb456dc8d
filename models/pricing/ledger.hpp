// The cost ledger: every charge of a run, with its time, pool (node type), node, job (when
// attributable), category and amount, so that any cost breakdown can be computed from the
// trace alone (docs/pricing.md, "The ledger"). Meters (compute billing, ownership, storage)
// post charges here; the trace recorder and budgets listen to `charged`.
//
// A charge covers an interval that ends at `time`; sums over the ledger are exact (no
// rounding is applied here: billing rules round before posting).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "sim/signal.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

enum class ChargeCategory : std::uint8_t {
  ComputeBusy = 0,   // a node's bill (rented) for the GPU-time a job held
  ComputeIdle = 1,   // the rest of a rented node's bill (idle GPUs, billing rounding, minimums)
  Storage = 2,       // $/GB-month for stored data (datasets, checkpoints)
  Egress = 3,        // $/GB moved out of a tier or region
  Requests = 4,      // per-request charges (object stores), archive retrieval fees
  Ownership = 5,     // owned nodes: depreciation, maintenance, hosting, energy
  Reserved = 6,      // reserved/committed capacity, paid whether used or not
};
inline constexpr int CHARGE_CATEGORIES = 7;
std::string_view charge_category_name(ChargeCategory c);  // "compute_busy", "compute_idle", ...

struct Charge {
  sim::SimTime time;        // end of the charged interval (when it was posted)
  std::int32_t pool = -1;   // node type index, -1 when not a node's charge
  std::int32_t node = -1;   // node index, -1 when not a node's charge
  std::int32_t job = -1;    // job id, -1 when not attributable to a job
  ChargeCategory category = ChargeCategory::ComputeBusy;
  double usd = 0;
  // Owned and reserved capacity split into the share jobs used and the rest: true when a
  // job held it. Rented compute says the same through ComputeBusy/ComputeIdle.
  bool busy = false;
};

class Ledger {
 public:
  void post(const Charge& c) {
    total_usd_ += c.usd;
    by_category_usd_[static_cast<std::size_t>(c.category)] += c.usd;
    if (c.busy) busy_usd_ += c.usd;
    ++entries_;
    charged.emit(c);
  }
  double total_usd() const { return total_usd_; }
  double category_usd(ChargeCategory c) const { return by_category_usd_[static_cast<std::size_t>(c)]; }
  // Charges for capacity a job held (ComputeBusy, and busy Ownership/Reserved shares).
  double busy_usd() const { return busy_usd_; }
  std::uint64_t entries() const { return entries_; }

  sim::Signal<const Charge&> charged;

 private:
  double total_usd_ = 0;
  double busy_usd_ = 0;
  std::array<double, CHARGE_CATEGORIES> by_category_usd_{};
  std::uint64_t entries_ = 0;
};

}  // namespace gcsim::models
