// Expands a scenario's workload (written jobs and generators) into the concrete job list a
// run replays (a coupling: it joins the workload's specs with the cluster's, for each job's
// eligible node types, so it lives above both), sorted by submit time (ties keep the order of appearance: written jobs first,
// then generators in order). Generated values come from named random streams
// "workload.generators.<name>.<field>" seeded by (seed, replication).
#pragma once

#include <cstdint>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/workload/job.hpp"

namespace gcsim::models {

std::vector<Job> expand_workload(const Scenario& scenario, std::uint64_t seed, std::uint64_t replication);
// With the scenario's own seed.
inline std::vector<Job> expand_workload(const Scenario& scenario, std::uint64_t replication) {
  return expand_workload(scenario, scenario.seed, replication);
}

}  // namespace gcsim::models
