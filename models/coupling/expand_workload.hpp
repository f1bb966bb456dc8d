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

// The jobs of one run, and the scenario's written-out JobSpecs released: for a caller that
// runs the scenario once (`gcsim run`), so that a million plain jobs are held once, as Jobs,
// not also as specs (docs/engine.md, "A million jobs"). The specs whose parts the jobs point
// to (a model, comm, a checkpoint plan) move to `kept`, which must outlive the jobs;
// `workload.jobs` is left empty, so the scenario cannot be expanded (nor estimated) again.
struct TakenWorkload {
  std::vector<Job> jobs;
  std::vector<JobSpec> kept;
};
TakenWorkload take_workload(Scenario& scenario, std::uint64_t seed, std::uint64_t replication);

}  // namespace gcsim::models
