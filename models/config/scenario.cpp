// The scenario structs' own queries (see scenario.hpp).
#include "models/config/scenario.hpp"

#include <algorithm>

namespace gcsim::models {

int WorkloadSpec::team_index(std::string_view team) const {
  const auto it = std::lower_bound(teams.begin(), teams.end(), team);
  return it != teams.end() && *it == team ? static_cast<int>(it - teams.begin()) : -1;
}

}  // namespace gcsim::models
