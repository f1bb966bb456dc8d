// Rate-shared resources (network links, shared storage bandwidth) plug into the engine
// through this small interface instead of scheduling an event per rate change, the way
// SimGrid's EngineImpl::solve loops over its models. The engine asks each model when its
// next internal completion is; when that comes before the next queued event, the engine
// sets now() to it and calls advance_to(now) on the model, which updates its state and
// handles the completions due (typically by emitting signals or scheduling events).
#pragma once

#include "sim/time.hpp"

namespace gcsim::sim {

class ResourceModel {
 public:
  virtual ~ResourceModel() = default;
  // Earliest instant at which something completes inside the model; SimTime::max() if none.
  // Must be cheap: the engine calls it once per event while the model is registered.
  virtual SimTime next_event_time() const = 0;
  // Brings the model's state to `now` (never earlier than the previous call) and handles
  // all completions due at `now`.
  virtual void advance_to(SimTime now) = 0;
};

}  // namespace gcsim::sim
