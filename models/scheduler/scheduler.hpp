// The scheduling-policy interface. A policy gets a read-only view of the cluster and the
// queue and returns decisions (placements); the cluster applies them (Vidur's schedule(),
// SST's sub-component slots). A new policy is one file plus one line in register_builtins.
// Decisions are written into a caller-owned buffer so a pass allocates nothing once warm.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/time.hpp"

namespace gcsim::models {

struct NodeTypeView {
  int gpus_per_node = 0;
  int count = 0;
  std::uint32_t first_node = 0;   // nodes of a type are contiguous in ClusterView::nodes
  double usd_per_gpu_hour = 0;
};

struct NodeView {
  std::uint16_t type = 0;
  int gpus_free = 0;
};

struct ClusterView {
  sim::SimTime now;
  std::span<const NodeTypeView> types;
  std::span<const NodeView> nodes;
};

struct QueuedJob {
  std::uint32_t job = 0;           // job id
  int gpus = 1;
  sim::SimTime submit;
  std::uint64_t eligible_types = 0;
};

// Start queue[queue_index] on nodes[first, first + count) of Decisions::nodes, taking
// gpus_per_node GPUs on each.
struct Placement {
  std::uint32_t queue_index = 0;
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  int gpus_per_node = 0;
  int node_type = 0;
};

struct Decisions {
  std::vector<Placement> placements;
  std::vector<std::uint32_t> nodes;
  void clear() {
    placements.clear();
    nodes.clear();
  }
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Called whenever the queue or the free capacity may have changed. Jobs in `queue` are
  // in submit order.
  virtual void schedule(const ClusterView& cluster, std::span<const QueuedJob> queue, Decisions& out) = 0;
};

}  // namespace gcsim::models
