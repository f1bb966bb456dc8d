// Where a job fits, shared by all policies. A job takes all its GPUs on one node when some
// eligible node type has that many per node (best fit: the node with the fewest free GPUs
// that suffice, lowest index on ties, which keeps whole nodes free for big jobs); otherwise
// it takes whole free nodes of one type (gang scheduling: all or nothing). The planner
// works on a scratch copy of free capacity, so a policy can place several jobs in one pass.
// `gcsim estimate` asks the same planner where a job would go (node_type_on_idle_cluster),
// so there is one placement rule.
#pragma once

#include <span>
#include <vector>

#include "models/scheduler/scheduler.hpp"

namespace gcsim::models {

struct ClusterSpec;

// The node types as policies see them, in the scenario's order: the Cluster's view is built
// from this too.
std::vector<NodeTypeView> node_type_views(const ClusterSpec& cluster);
// The node type the planner places `job` on when every node is up and free (a job alone at
// the start of a run), or -1 when it fits on none.
int node_type_on_idle_cluster(std::span<const NodeTypeView> types, const QueuedJob& job);

class PlacementPlanner {
 public:
  void reset(const ClusterView& cluster);
  // Appends a placement for queue[queue_index] to `out` and reserves its capacity, or
  // returns false (and changes nothing) when it does not fit now.
  bool try_place(const QueuedJob& job, std::uint32_t queue_index, Decisions& out);

 private:
  const ClusterView* cluster_ = nullptr;
  std::vector<int> free_;  // scratch free GPUs per node
};

}  // namespace gcsim::models
