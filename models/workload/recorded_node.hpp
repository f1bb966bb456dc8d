// A recorded run's node as the as-recorded replay carries it (RecordedRun::node in the
// workload, JobExtras::recorded_node in the job, QueuedJob::recorded_node for the `recorded`
// policy): >= 0 the node of its one recorded machine, -1 none known, and <= -2 the nodes
// of the several machines a trace recorded it over, the same GPUs on each: the set at an
// offset in WorkloadSpec::recorded_node_sets (ClusterView::recorded_node_sets), its count
// n >= 2 there, then its n nodes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gcsim::models {

constexpr std::int32_t recorded_node_set(std::size_t offset) { return -2 - static_cast<std::int32_t>(offset); }
constexpr bool is_recorded_node_set(std::int32_t node) { return node <= -2; }
constexpr std::size_t recorded_node_set_offset(std::int32_t node) {
  return static_cast<std::size_t>(-2 - static_cast<std::int64_t>(node));
}

}  // namespace gcsim::models
