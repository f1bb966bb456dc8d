// Expands a scenario's workload (written jobs and generators) into the concrete job list a
// run replays, sorted by submit time (ties keep the order of appearance: written jobs first,
// then generators in order). Generated values come from named random streams
// "workload.generators.<name>.<field>" seeded by (seed, replication).
#pragma once

#include <cstdint>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/workload/job.hpp"

namespace gcsim::models {

std::vector<Job> expand_workload(const Scenario& scenario, std::uint64_t replication);

// Node types (bit per type index) that can ever hold a job of `gpus` GPUs, given the
// precision when the job is work-based.
std::uint64_t eligible_node_types(const ClusterSpec& cluster, int gpus, const Precision* precision);

}  // namespace gcsim::models
