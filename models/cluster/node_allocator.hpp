// The cluster's nodes and who holds which GPU: per-node busy masks, the owner of every
// GPU (or, for a GPU shared by jobs with gpu_milli < 1000, its jobs and the thousandths
// they hold), each slot's phase (provisioning, up, draining, down, released:
// models/spot/node_events.hpp), and the node view policies see. allocate()
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
#include "models/spot/node_events.hpp"
#include "models/workload/job.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

struct NodeState {
  std::uint16_t type = 0;
  int gpus = 0;
  std::uint64_t busy_mask = 0;  // which of its (at most 64) GPUs someone holds (all or a share of)
  NodePhase phase = NodePhase::Up;
  NodeReason reason = NodeReason::Initial;  // of the last change of phase
  bool up = true;               // up or draining (running jobs, billed)
  bool noticed = false;         // draining: no new jobs (a market takes it at down_at)
  bool billed = true;           // billed now (up, draining, or provisioning billed by request)
  sim::SimTime up_since;
  sim::SimTime down_at;         // draining: when it goes (SimTime::max() for a drain without deadline)
  std::uint32_t first_gpu = 0;  // index of its GPU 0 in the cluster-wide GPU numbering
  double busy_gpu_s = 0;        // GPU-seconds of ended job runs on it (shares counted as shares)
  // Thousandths of GPUs held by jobs placed over capacity (Placement::over_capacity): load
  // beyond its GPUs, in no busy mask.
  std::int64_t over_milli = 0;
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
  // GPUs held, a shared GPU counting the thousandths its jobs hold.
  double allocated_gpus() const { return static_cast<double>(allocated_milli_) / 1000.0; }
  // Per GPU (cluster-wide numbering): thousandths nobody holds, 0 on noticed and down nodes
  // (ClusterView::gpu_room).
  std::span<const std::uint16_t> gpu_room() const { return gpu_room_; }

  // Gives the queued job `j` the GPUs placement `p` names (the lowest free GPUs of each
  // node; for a job sharing a GPU, its share of GPU p.gpu) and records them on the job
  // (node_type, nodes_of, gpu_mask). InternalError, naming `policy`, unless every node
  // exists, is of the type p names, is up and not noticed, is listed once and has
  // p.gpus_per_node GPUs free, and the job fits the placement; a sharing job needs one
  // node, one GPU, and that GPU to have its share unheld. A placement over capacity needs
  // no free GPU: the job holds none (gpu_mask 0), its GPUs count in the nodes' over_milli
  // and in allocated_gpus(), so the GPU owners stay exclusive while the load may exceed
  // the GPUs.
  void allocate(Job& j, const Placement& p, const Decisions& d, std::string_view policy);
  // Frees the GPUs of j's run, which held them for run_s seconds. InternalError if the run
  // does not hold them (a second release would count them free twice).
  void release(const Job& j, double run_s);

  // The jobs holding GPUs (or shares) of node n, each once, in GPU order, into `out` (cleared first).
  void jobs_on(std::uint32_t n, std::vector<std::uint32_t>& out) const;

  // Moves slot n to phase `to` for `why`, billed or not from now on (meaningful for
  // provisioning; up and draining are billed, down and released not). Returns false (and
  // changes nothing) when the change does not apply: the same phase again, draining or
  // provisioning from anything but up / released-or-down, up from released (request it
  // first). `down_at` is a draining node's deadline.
  bool transition(std::uint32_t n, NodePhase to, NodeReason why, sim::SimTime now, bool billed = false,
                  sim::SimTime down_at = sim::SimTime::max());
  // The first released slot of `type`, or -1.
  std::int64_t released_slot(std::uint16_t type) const;
  // Nothing holds any GPU (or share) of node n, over capacity or not.
  bool idle(std::uint32_t n) const { return nodes_[n].busy_mask == 0 && nodes_[n].over_milli == 0; }
  // Runs placed over capacity so far (Placement::over_capacity).
  std::uint64_t over_capacity_runs() const { return over_runs_; }

 private:
  void refresh_view(std::uint32_t n);
  // The `k` lowest GPUs of `node` nobody holds any of (fewer if it has fewer).
  static std::uint64_t lowest_free(const NodeState& node, int k);
  void allocate_share(Job& j, const Placement& p, std::uint32_t n, std::string_view policy);
  void release_share(const Job& j, double run_s);
  void allocate_over(Job& j, const Placement& p, const Decisions& d, std::string_view policy);
  void release_over(const Job& j, double run_s);

  std::vector<NodeState> nodes_;
  std::vector<NodeView> view_;          // what policies see; kept current at every change
  NodeChanges changes_;                 // every refresh of view_, logged
  // Per GPU (NodeState::first_gpu + local): the job holding it, or NO_JOB; for a shared GPU
  // the first of its jobs, the others linked through next_sharer_ (by job id).
  std::vector<std::uint32_t> gpu_job_;
  std::vector<std::uint32_t> next_sharer_;
  std::vector<std::uint16_t> gpu_used_;  // per GPU: thousandths held (1000 for a whole-GPU job)
  std::vector<std::uint16_t> gpu_room_;  // per GPU: 1000 - used on up nodes, else 0
  std::vector<std::uint32_t> held_nodes_;  // every run's nodes, appended at allocate (Job::nodes_offset)
  int total_gpus_ = 0;
  int up_gpus_ = 0;
  std::int64_t allocated_milli_ = 0;
  // Per node, the jobs over capacity on it now (jobs_on() lists them with the node's own);
  // empty until a node first has one.
  std::vector<std::vector<std::uint32_t>> over_on_;
  std::uint64_t over_runs_ = 0;
};

}  // namespace gcsim::models
