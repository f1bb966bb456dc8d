// The scenario structs' own queries (see scenario.hpp).
#include "models/config/scenario.hpp"

#include <algorithm>

namespace gcsim::models {

int WorkloadSpec::team_index(std::string_view team) const {
  const auto it = std::lower_bound(teams.begin(), teams.end(), team);
  return it != teams.end() && *it == team ? static_cast<int>(it - teams.begin()) : -1;
}

bool streamable(const Scenario& scenario) {
  const WorkloadSpec& w = scenario.workload;
  if (!w.services.empty()) return false;
  for (const JobSpec& j : w.jobs)
    if (j.training || j.comm || j.gpu_milli < 1000) return false;
  for (const GeneratorSpec& g : w.generators)
    if (g.gpu_milli) return false;
  return true;
}

}  // namespace gcsim::models
