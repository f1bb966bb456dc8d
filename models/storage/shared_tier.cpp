// Max-min fair sharing of a storage tier's device time (see shared_tier.hpp): progressive
// filling over the transfers' caps, recomputed at every start, end and cancel.
#include "models/storage/shared_tier.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <utility>

namespace gcsim::models {
namespace {

// Bytes below this count as done: float residue of rate x time, far below a byte.
constexpr double DONE_EPSILON_BYTES = 1e-3;

}  // namespace

SharedTier::SharedTier(const sim::Engine& engine, double read_bytes_per_s, double write_bytes_per_s)
    : engine_(engine), read_bytes_per_s_(read_bytes_per_s), write_bytes_per_s_(write_bytes_per_s) {
  assert(read_bytes_per_s > 0 && write_bytes_per_s > 0);
}

SharedTier::TransferId SharedTier::start_transfer(double bytes, double cap_bytes_per_s, Direction direction,
                                                  Callback done) {
  progress_to(engine_.now());
  const TransferId id = next_id_++;
  transfers_.push_back(Transfer{id, std::max(0.0, bytes), std::max(0.0, cap_bytes_per_s),
                                direction == Direction::Read ? read_bytes_per_s_ : write_bytes_per_s_, 0,
                                std::move(done)});
  recompute_rates();
  return id;
}

bool SharedTier::cancel(TransferId id) {
  progress_to(engine_.now());
  auto it = std::find_if(transfers_.begin(), transfers_.end(), [&](const Transfer& t) { return t.id == id; });
  if (it == transfers_.end()) return false;
  transfers_.erase(it);
  recompute_rates();
  return true;
}

const SharedTier::Transfer* SharedTier::find(TransferId id) const {
  for (const Transfer& t : transfers_)
    if (t.id == id) return &t;
  return nullptr;
}

double SharedTier::rate_bytes_per_s(TransferId id) const {
  const Transfer* t = find(id);
  return t ? t->rate : 0;
}

double SharedTier::remaining_bytes(TransferId id) const {
  const Transfer* t = find(id);
  if (!t) return 0;
  const double dt = (engine_.now() - updated_at_).seconds();
  return std::max(0.0, t->remaining - t->rate * dt);
}

void SharedTier::progress_to(sim::SimTime now) {
  if (now <= updated_at_) return;
  const double dt = (now - updated_at_).seconds();
  for (Transfer& t : transfers_) t.remaining = std::max(0.0, t.remaining - t.rate * dt);
  updated_at_ = now;
}

void SharedTier::recompute_rates() {
  // Progressive filling on device-time shares: transfer i may use at most cap_i / B_i of
  // the device (1 when uncapped); all shares rise together until a transfer reaches its
  // cap or the device is full.
  std::vector<std::pair<double, Transfer*>> order;
  order.reserve(transfers_.size());
  for (Transfer& t : transfers_) order.emplace_back(t.cap > 0 ? std::min(1.0, t.cap / t.bandwidth) : 1.0, &t);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double left = 1.0;
  std::size_t n = order.size();
  for (auto& [max_share, t] : order) {
    const double fair = left / static_cast<double>(n);
    const double share = std::min(max_share, fair);
    t->rate = share * t->bandwidth;
    left -= share;
    --n;
  }
  next_ = sim::SimTime::max();
  for (const Transfer& t : transfers_) {
    if (t.remaining <= DONE_EPSILON_BYTES) {
      next_ = updated_at_;
      continue;
    }
    if (t.rate <= 0) continue;
    // Round up so that at next_ the transfer has really finished.
    const double ns = std::ceil(t.remaining / t.rate * 1e9);
    const sim::SimTime at = ns >= 9.2e18 ? sim::SimTime::max() : updated_at_ + sim::SimTime::from_ns(static_cast<std::int64_t>(ns));
    next_ = std::min(next_, at);
  }
}

sim::SimTime SharedTier::next_event_time() const { return next_; }

void SharedTier::advance_to(sim::SimTime now) {
  progress_to(now);
  std::vector<Transfer> finished;
  for (auto it = transfers_.begin(); it != transfers_.end();) {
    // A transfer within one nanosecond of its rate is done (rounding of next_).
    if (it->remaining <= std::max(DONE_EPSILON_BYTES, it->rate * 1e-9)) {
      finished.push_back(std::move(*it));
      it = transfers_.erase(it);
    } else {
      ++it;
    }
  }
  recompute_rates();
  for (Transfer& t : finished)
    if (t.done) t.done(t.id);
}

}  // namespace gcsim::models
