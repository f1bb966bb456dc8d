// The cluster's nodes and who holds which GPU: per-node busy masks, the owner of every
// GPU, whether a node is up, noticed or down, and the node view policies see. allocate()
// and release() check what they are given in every build (sim/check.hpp) and refuse an
// impossible placement or a second release with an InternalError naming what was wrong,
// before changing anything.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "models/config/cluster_spec.hpp"
#include "models/scheduler/scheduler.hpp"
#include "models/workload/job.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

struct NodeState {
  std::uint16_t type = 0;
  int gpus = 0;
  std::uint64_t busy_mask = 0;  // which of its (at most 64) GPUs are taken
  bool up = true;               // placeable and billed (a market may take it down)
  bool noticed = false;         // up, but will be taken at down_at: no new jobs
  sim::SimTime up_since;
  sim::SimTime down_at;
  std::uint32_t first_gpu = 0;  // index of its GPU 0 in the cluster-wide GPU numbering
  double busy_gpu_s = 0;        // GPU-seconds of ended job runs on it
};

class NodeAllocator {
 public:
  explicit NodeAllocator(const ClusterSpec& cluster);

  const std::vector<NodeState>& nodes() const { return nodes_; }
  std::span<const NodeView> view() const { return view_; }
  // The nodes whose view changed since the last drop_changes() (ClusterView::changes).
  const NodeChanges& changes() const { return changes_; }
  void drop_changes() {
    changes_.dropped += changes_.nodes.size();
    changes_.nodes.clear();
  }
  std::span<const std::uint32_t> nodes_of(const Job& j) const { return {held_nodes_.data() + j.nodes_offset, j.nodes_count}; }
  int total_gpus() const { return total_gpus_; }
  int up_gpus() const { return up_gpus_; }
  int allocated_gpus() const { return allocated_gpus_; }

  // Gives the queued job `j` the GPUs placement `p` names (the lowest free GPUs of each
  // node) and records them on the job (node_type, nodes_of, gpu_mask). InternalError, naming
  // `policy`, unless every node exists, is of the type p names, is up and not noticed, is
  // listed once and has p.gpus_per_node GPUs free, and the job fits the placement.
  void allocate(Job& j, const Placement& p, const Decisions& d, std::string_view policy);
  // Frees the GPUs of j's run, which held them for run_s seconds. InternalError if the run
  // does not hold them (a second release would count them free twice).
  void release(const Job& j, double run_s);

  // The jobs holding GPUs of node n, each once, in GPU order, into `out` (cleared first).
  void jobs_on(std::uint32_t n, std::vector<std::uint32_t>& out) const;

  // A market's node events; each returns false (and changes nothing) when it does not apply:
  // a notice to a node that is down or already noticed, down of a down node, up of an up one.
  bool notice(std::uint32_t n, sim::SimTime down_at);
  bool down(std::uint32_t n);
  bool up(std::uint32_t n, sim::SimTime now);

 private:
  void refresh_view(std::uint32_t n);

  std::vector<NodeState> nodes_;
  std::vector<NodeView> view_;          // what policies see; kept current at every change
  NodeChanges changes_;                 // every refresh of view_, logged
  std::vector<std::uint32_t> gpu_job_;  // per GPU (NodeState::first_gpu + local): job id, or NO_JOB
  std::vector<std::uint32_t> held_nodes_;  // every run's nodes, appended at allocate (Job::nodes_offset)
  int total_gpus_ = 0;
  int up_gpus_ = 0;
  int allocated_gpus_ = 0;
};

}  // namespace gcsim::models
