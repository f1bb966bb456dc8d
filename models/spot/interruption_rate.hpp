// The mean interruption rate of a spot pool's process: what `checkpoint: {every: optimal}`
// plans for (docs/checkpoints.md). Computed once per node type by the scenario's resolve
// step.
#pragma once

#include "models/spot/spot_spec.hpp"

namespace gcsim::models {

// Mean interruptions per node-second: Poisson λ; Weibull 1 / (scale Γ(1 + 1/k)); a trace's
// capacity drops per node-second of capacity over the trace; correlated events add
// rate x fraction. Price-driven pools have no rate (their interruptions follow the price,
// not chance).
double mean_interruption_rate_per_s(const InterruptionSpec& spec);

}  // namespace gcsim::models
