// The as-recorded replay's part of a run (docs/traces.md, "Modes"): when the run's policy
// is `recorded` (models/scheduler/recorded.hpp), it says at the end what the replay did:
// runs started, on their recorded machines, placed over capacity, late. A note in the run
// summary (RunSummary::notes); the same line is the trace's scheduler settings. A run of a
// trace replayed as recorded under another policy (a compare's or a sweep's) is refused.
#pragma once

#include "models/run/component.hpp"

namespace gcsim::models {

ComponentEntry recorded_replay_component();  // when the run's policy is `recorded`

}  // namespace gcsim::models
