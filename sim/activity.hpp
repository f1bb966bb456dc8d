// An amount of work that progresses at a rate that may change: a network flow's bytes, a
// storage read, a staging copy, a checkpoint write (SimGrid's kernel Action: remaining
// work, rate, last update, and the event that ends it). The owner sets the rate whenever
// its resource model re-shares; the record keeps the work done so far exact across rate
// changes (remaining(t) = remaining - rate * (t - updated)) and predicts the finish.
// It knows nothing of what the work is: units are the owner's (bytes, samples, FLOP, or
// seconds of runtime). Work starts at `updated`, which an owner may set in the future: a
// job's compute waits for its restore, image pull and staging, and before then none is done.
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

  // Work done from `updated` to t at the current rate (never more than is left; none
  // before `updated`).
  double done_by(SimTime t) const {
    return t > updated ? std::min(remaining, rate * (t - updated).seconds()) : 0.0;
  }
  // Work left at t, at the current rate (never below zero).
  double remaining_at(SimTime t) const { return remaining - done_by(t); }
  // Books the work done up to `now` at the old rate, and returns it (owners that count
  // what their resources carried add it up). Before `updated` (work not started yet) it
  // books nothing and leaves the start where it is.
  double settle(SimTime now) {
    if (!(now > updated)) return 0.0;
    const double done = done_by(now);
    remaining -= done;
    updated = now;
    return done;
  }
  void set_rate(SimTime now, double new_rate) {
    settle(now);
    rate = new_rate;
  }
  // When the work left ends at the current rate, rounded up to the nanosecond so that it
  // never ends before its last unit: `updated` when none is left (at any rate), max() at
  // rate 0 or beyond the representable time. Call after settle(now). The quotient carries the double rounding of every earlier
  // settle(); shaving 1e-12 of it off before the ceiling keeps that noise from turning an
  // exact instant into instant + 1 ns, at the price of a finish at most 1e-12 relative
  // (1 ns per 1000 s) before its true time.
  SimTime predict_finish() const {
    if (!(remaining > 0)) return updated;
    if (!(rate > 0)) return SimTime::max();
    const double ns = std::ceil(remaining / rate * 1e9 * (1.0 - 1e-12));
    if (!(ns < 9.0e18)) return SimTime::max();
    return updated.saturating_add(SimTime::from_ns(static_cast<std::int64_t>(ns)));
  }
  // Cancels its completion event, if any; true when one was pending.
  bool cancel(Engine& engine) {
    finish = SimTime::max();
    return engine.cancel(completion);
  }
};

}  // namespace gcsim::sim
