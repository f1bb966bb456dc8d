// The registry entry of the autoscaler (see autoscale_part.cpp).
#pragma once

#include "models/run/component.hpp"

namespace gcsim::models {

// An Autoscaler (models/controllers/autoscaler.hpp) for a scenario with an elastic pool,
// and its trace tables (models/trace/autoscale_tables.hpp).
ComponentEntry autoscaler_component();

}  // namespace gcsim::models
