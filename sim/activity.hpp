// An amount of work that progresses at a rate that may change: a network flow's bytes, a
// storage read, a staging copy, a checkpoint write (SimGrid's kernel Action: remaining
// work, rate, last update, and the event that ends it). The owner sets the rate whenever
// its resource model re-shares; the record keeps the work done so far exact across rate
// changes (remaining(t) = remaining - rate * (t - updated)) and predicts the finish.
// It knows nothing of what the work is: units are the owner's (bytes, samples).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sim/engine.hpp"
#include "sim/time.hpp"

namespace gcsim::sim {

struct Activity {
  double remaining = 0;           // work left as of `updated`
  double rate = 0;                // work per second from `updated` on
  SimTime updated = SimTime::zero();
  SimTime finish = SimTime::max();  // predicted completion; max(): none predicted
  EventId completion;             // the engine event that ends it, when it has one

  // Work left at t >= updated, at the current rate (never below zero).
  double remaining_at(SimTime t) const { return std::max(0.0, remaining - rate * (t - updated).seconds()); }
  // Books the work done up to `now` at the old rate.
  void settle(SimTime now) {
    remaining = remaining_at(now);
    updated = now;
  }
  void set_rate(SimTime now, double new_rate) {
    settle(now);
    rate = new_rate;
  }
  // When the work left ends at the current rate, rounded up to the nanosecond so that it
  // never ends before its last unit; max() at rate 0. Call after settle(now).
  SimTime predict_finish() const {
    if (!(rate > 0)) return SimTime::max();
    return updated + SimTime::from_ns(static_cast<std::int64_t>(std::ceil(remaining / rate * 1e9)));
  }
  // Cancels its completion event, if any; true when one was pending.
  bool cancel(Engine& engine) {
    finish = SimTime::max();
    return engine.cancel(completion);
  }
};

}  // namespace gcsim::sim
