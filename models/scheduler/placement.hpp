// Where a job fits, as a strategy of its own (issue 9: placement is a decision separate
// from ordering). Every strategy gang-schedules: a job that fits on one node of an eligible
// type takes all its GPUs there, on the node the strategy chooses; a bigger job takes whole
// free nodes of one type, in type order, lowest index first, or nothing. The strategies
// differ in the node they choose for a one-node job:
//   best-fit   the node with the fewest free GPUs that suffice, lowest index on ties (keeps
//              whole nodes free for big jobs);
//   first-fit  the lowest-index node that suffices.
// A strategy works on a scratch copy of free capacity, so a policy can place several jobs
// in one pass. Strategies are chosen by name from a registry (scheduler_registry.hpp); a
// new one is a subclass here plus one line in register_builtins.cpp.
#pragma once

#include <span>
#include <vector>

#include "models/scheduler/scheduler.hpp"

namespace gcsim::models {

struct ClusterSpec;
class Scheduler;

// The node types as policies see them, in the scenario's order: the Cluster's view is built
// from this too.
std::vector<NodeTypeView> node_type_views(const ClusterSpec& cluster);
// The node type `policy` places `job` on when every node is up and free and the job is
// alone in the queue (a job alone at the start of a run), or -1 when it places it nowhere.
// `gcsim estimate` asks this with the scenario's own policy and placement strategy, so the
// estimate and the run agree.
int node_type_on_idle_cluster(std::span<const NodeTypeView> types, const QueuedJob& job, Scheduler& policy);

class PlacementStrategy {
 public:
  virtual ~PlacementStrategy() = default;
  void reset(const ClusterView& cluster);
  // Appends a placement for `job` to `out` and takes its capacity, or returns false (and
  // changes nothing) when it does not fit now.
  bool try_place(const QueuedJob& job, Decisions& out);
  // Takes the capacity `job` would take, without placing it (a reservation, a plan); false
  // when it does not fit.
  bool reserve(const QueuedJob& job);
  // Gives a running job's GPUs back to the scratch capacity (what a plan assumes freed).
  void give_back(const RunningPlace& place);
  // Whether a job of `gpus` GPUs, of any type, could fit now: false means no job of that
  // size or more can (a pass may stop looking at them).
  bool could_fit(int gpus) const;

 protected:
  struct NodeChoice {
    int node = -1;  // -1: no single node of an eligible type has room
    int type = -1;
  };
  // The node a job that fits on one node of an eligible type goes to, given free().
  virtual NodeChoice choose_node(const QueuedJob& job) const = 0;

  const ClusterView* cluster_ = nullptr;
  // Free GPUs of node n in the plan: the view's, plus what this pass changed (an overlay
  // cleared at reset, so a pass costs what it touches, not every node).
  int free(std::uint32_t n) const { return cluster_->nodes[n].gpus_free + delta_[n]; }

 private:
  bool place_whole_nodes(const QueuedJob& job, Decisions& out);
  void take(std::uint32_t node, int gpus);
  void change(std::uint32_t node, int gpus);  // free(node) += gpus
  void count() const;
  void recount(std::size_t type) const;
  std::vector<int> delta_;                // by node; 0 but for touched_
  std::vector<std::uint32_t> touched_;
  // Per node type, for could_fit: whole free nodes, and the most free GPUs on one node;
  // counted at the first could_fit of a pass, then kept (a type's most is recounted when a
  // take may have lowered it).
  mutable bool counted_ = false;
  mutable std::vector<int> whole_free_;
  mutable std::vector<int> max_free_;
  mutable std::vector<std::uint8_t> stale_;
  Decisions scratch_;  // reserve()'s placements, dropped
};

class BestFitPlacement final : public PlacementStrategy {
 protected:
  NodeChoice choose_node(const QueuedJob& job) const override;
};

class FirstFitPlacement final : public PlacementStrategy {
 protected:
  NodeChoice choose_node(const QueuedJob& job) const override;
};

}  // namespace gcsim::models
