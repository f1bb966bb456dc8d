// The registry entry of the serving part (see serving_part.cpp).
#pragma once

#include "models/run/component.hpp"

namespace gcsim::models {

// Built after every part that may report services (a ServiceSink: the trace's service
// tables) or supply replica costs (a ReplicaCostProvider).
inline constexpr int BUILD_SERVICES = BUILD_EXTENSIONS + 500;

// A ServingController (models/services/serving_controller.hpp) for a scenario with
// `workload.services`; its totals go into RunSummary::services.
ComponentEntry serving_component();

}  // namespace gcsim::models
