// Forwarding header: the CSV reader moved to sim/config/csv.hpp, where the scenario's CSV
// tables use it too. Kept so that the pricing code and its tests build unchanged.
#pragma once

#include "sim/config/csv.hpp"

namespace gcsim::models {
namespace csv = config::csv;
}  // namespace gcsim::models
