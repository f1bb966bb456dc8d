// Where a job fits, as a strategy of its own (placement is a decision separate from
// ordering: docs/scheduling.md, "Placement"). Every strategy gang-schedules: a job that fits on one node of an eligible
// type takes all its GPUs there, on the node the strategy chooses; a bigger job takes
// ceil(gpus / gpus_per_node) whole free nodes of one type, or nothing (the cluster gives a
// run the same GPUs on each of its nodes, so a multi-node job never takes partly free nodes).
// The strategies (docs/scheduling.md, "Placement"):
//   best-fit   one node: the fewest free GPUs that suffice, lowest index on ties (keeps
//              whole nodes free for big jobs); several: the first eligible type in type
//              order, its lowest-index whole free nodes;
//   first-fit  one node: the lowest-index node that suffices; several: as best-fit;
//   pack       one node: the fullest node after placing, as a fraction of its GPUs
//              (Kubernetes' MostAllocated), lowest index on ties; several: the eligible
//              type that needs the fewest nodes, lowest-index whole free nodes;
//   spread     one node: the most free GPUs, lowest index on ties (Kubernetes'
//              LeastAllocated, by count); several: as best-fit;
//   topology   one node: as best-fit; several: the whole free nodes of one leaf switch
//              when one has enough (the leaf with the fewest that suffice, as Slurm's
//              topology/tree plugin), else of the fewest leaves (ClusterView::node_group;
//              without groups, as best-fit).
// Shares of a GPU (QueuedJob::gpu_milli < 1000; docs/scheduling.md, "GPU shares"): a job
// that shares a GPU goes, under every strategy but spread, to the GPU already shared whose
// unheld thousandths suffice and are fewest (best fit; ties by the lowest GPU, earlier node
// types first), and only when none has room to a GPU nobody holds, on the node the strategy
// picks for a one-GPU job (so a share never breaks into a free GPU while a shared one has
// room, and free GPUs stay on the fullest nodes): fragmentation-aware packing, which keeps
// whole GPUs and whole nodes for the jobs that need them. spread does the opposite (a free
// GPU on the emptiest node first, else the shared GPU with the most room), as Kubernetes'
// LeastAllocated spreads load. In a view with ClusterView::gpu_room the plan follows every
// GPU (a whole-GPU job takes the lowest free GPUs of a node, as the cluster gives them); in
// a view without it (a plan built by hand) a share counts as a whole GPU.
// A strategy plans on an overlay of the view (free = view + this pass's changes), so a
// policy can place several jobs in one pass. It finds nodes through an index of each
// type's nodes by free GPUs (a bitset per free count with a summary level), so a choice
// costs O(gpus per node x nodes / 4096), not O(nodes). With the cluster's change log
// (ClusterView::changes) the index follows the view from pass to pass by the nodes that
// changed; a view without one (built by hand, a plan) on the same storage is compared node
// by node; any other view gets the index rebuilt at its first use in a pass. Strategies are chosen by name from a registry (scheduler_registry.hpp); a
// new one is a subclass here plus one line in register_builtins.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "models/scheduler/scheduler.hpp"

namespace gcsim::models {

class Scheduler;

// The node type `policy` places `job` on when every node is up and free and the job is
// alone in the queue (a job alone at the start of a run), or -1 when it places it nowhere.
// `gcsim estimate` asks this with the scenario's own policy and placement strategy, so the
// estimate and the run agree. `speeds` (the job's time on each type) is needed by policies
// that choose the node type (type_choice.hpp); null for the others.
int node_type_on_idle_cluster(std::span<const NodeTypeView> types, const QueuedJob& job, Scheduler& policy,
                              const JobSpeeds* speeds = nullptr);

// A set of small integers (a type's local node indices), ordered: a bitset with one summary
// bit per word, so the lowest member from a point costs O(size / 4096) words.
class NodeSet {
 public:
  static constexpr std::uint32_t NONE = 0xffffffffu;
  void reset(std::size_t size);  // empty, for members 0..size-1
  void insert(std::uint32_t i);
  void erase(std::uint32_t i);
  std::uint32_t next(std::uint32_t from) const;  // the lowest member >= from, or NONE
  std::uint32_t first() const { return next(0); }
  bool empty() const { return size_ == 0; }
  int size() const { return size_; }

 private:
  std::vector<std::uint64_t> words_, summary_;
  int size_ = 0;
};

class PlacementStrategy {
 public:
  virtual ~PlacementStrategy() = default;
  // Whether its choice for a job is the least candidate node (or the first whole nodes) in
  // an order of its own that looks at no other node: taking capacity from nodes it did not
  // choose leaves its choice as it was (EASY backfill keeps a plan across such starts).
  virtual bool chooses_least_candidate() const { return false; }
  void reset(const ClusterView& cluster);
  // Appends a placement for `job` to `out` and takes its capacity, or returns false (and
  // changes nothing) when it does not fit now or the view's quotas do not admit it
  // (ClusterView::admission).
  bool try_place(const QueuedJob& job, Decisions& out);
  // Takes the capacity `job` would take, without placing it (a reservation, a plan); false
  // when it does not fit. Quotas are not asked: a plan is about capacity.
  bool reserve(const QueuedJob& job);
  // Gives a running job's GPUs back to the scratch capacity (what a plan assumes freed).
  void give_back(const RunningPlace& place);
  // Takes back what give_back(place) gave (the plan no longer assumes it freed).
  void take_back(const RunningPlace& place) { give_back(place, -1); }
  // Takes the capacity of placement `p`, decided in this pass by another strategy (`nodes`
  // is its Decisions::nodes).
  void take_placed(const Placement& p, std::span<const std::uint32_t> nodes);
  // Places `job`, which shares a GPU, on node n: the shared GPU there with the fewest
  // unheld thousandths that suffice, else its lowest free GPU; false if neither (or the view
  // has no gpu_room). Quotas are not asked.
  bool place_share_on(const QueuedJob& job, std::uint32_t n, Decisions& out);
  // Whole free GPUs of node n in the plan.
  int free_gpus(std::uint32_t n) const { return free(n); }
  // What the plan changed of node n's free GPUs since the view it was reset on: free_gpus(n)
  // is the view's gpus_free plus this (readable when that view is gone).
  int free_gpus_change(std::uint32_t n) const { return delta_[n]; }
  // Whole free nodes of type t in the plan.
  int whole_free_nodes(std::size_t t) const { return whole_free(t); }
  // Unheld thousandths of node n's GPU `local` in the plan (the view must have gpu_room).
  int gpu_room_of(std::uint32_t n, int local) const { return room(gpu_index(n, local)); }
  // The placement the last reserve() planned, and its nodes (valid until the next call).
  const Placement& reserved() const { return scratch_.placements.back(); }
  std::span<const std::uint32_t> reserved_nodes() const {
    const Placement& p = reserved();
    return std::span<const std::uint32_t>(scratch_.nodes).subspan(p.first, p.count);
  }
  // Whether a job of `gpus` GPUs, of any type, could fit now: false means no job of that
  // size or more can (a pass may stop looking at them). For one GPU it counts shared GPUs
  // with room too, so it says true when a share could fit.
  bool could_fit(int gpus) const;

 protected:
  struct NodeChoice {
    int node = -1;  // -1: no single node of an eligible type has room
    int type = -1;
  };
  // The node a job that fits on one node of an eligible type goes to, given free().
  virtual NodeChoice choose_node(const QueuedJob& job) const = 0;
  // Appends to `out` the nodes (ascending) a job bigger than a node of type t takes there,
  // `needed` whole free nodes (at least that many are free: whole_free(t) >= needed).
  // Default: the lowest-index ones.
  virtual void choose_whole_nodes(std::size_t t, int needed, std::vector<std::uint32_t>& out) const;
  // The eligible type a job bigger than a node goes to, given which types have room
  // (`fits`, bit t). Default: the first in type order.
  virtual int choose_type(const QueuedJob& job, std::uint64_t fits) const;

  // Free GPUs of node n in the plan: the view's, plus what this pass changed (an overlay
  // cleared at reset, so a pass costs what it touches, not every node).
  int free(std::uint32_t n) const { return cluster_->nodes[n].gpus_free + delta_[n]; }
  // The index (built if it is not current). Nodes of type t with exactly f free GPUs, as
  // local indices (node = types[t].first_node + i).
  const NodeSet& with_free(std::size_t t, int f) const;
  // The fewest (tightest) and most (loosest) free GPUs >= gpus on one node of type t, or -1.
  int tightest(std::size_t t, int gpus) const;
  int loosest(std::size_t t, int gpus) const;
  int whole_free(std::size_t t) const;  // whole free nodes of type t
  // best-fit's rule for a one-node job (see choose_node).
  NodeChoice tightest_node(const QueuedJob& job) const;

  // Shares of a GPU. A choice of GPU: its node, its local index, its type.
  struct GpuChoice {
    int node = -1;  // -1: none
    int gpu = -1;
    int type = -1;
  };
  // The GPU a job that shares a GPU goes to (default: best fit among shared GPUs, else a
  // free GPU on choose_node's node).
  virtual GpuChoice choose_gpu(const QueuedJob& job) const;
  // The shared GPU (some thousandths held, at least the job's unheld) with the fewest
  // unheld thousandths (the most, `most`), over the job's eligible types.
  GpuChoice shared_gpu(const QueuedJob& job, bool most) const;
  // The lowest free GPU of node n in the plan (free(n) >= 1).
  int lowest_free_gpu(std::uint32_t n) const;
  bool tracks_gpus() const { return !cluster_->gpu_room.empty(); }
  bool fits_one_node(const QueuedJob& job, std::size_t t) const {
    return (job.eligible_types >> t & 1) && job.gpus <= cluster_->types[t].gpus_per_node;
  }

  const ClusterView* cluster_ = nullptr;

 private:
  void give_back(const RunningPlace& place, int sign);  // sign -1: take back
  bool place(const QueuedJob& job, Decisions& out);  // try_place without asking the quotas
  bool place_share(const QueuedJob& job, Decisions& out);
  bool place_whole_nodes(const QueuedJob& job, Decisions& out);
  // A whole-GPU job's GPUs: the lowest free ones; the mask of those taken (0 without gpu_room).
  std::uint64_t take(std::uint32_t node, int gpus);
  void change(std::uint32_t node, int gpus);  // free(node) += gpus
  void refile(std::uint32_t node) const;      // moves node to the bucket of free(node)
  void build() const;
  // Per GPU, when the view has gpu_room: unheld thousandths in the plan, and their change.
  std::uint32_t gpu_index(std::uint32_t node, int local) const {
    return models::gpu_index(cluster_->types[cluster_->nodes[node].type], node, local);
  }
  int room(std::uint32_t g) const { return cluster_->gpu_room[g] + gdelta_[g]; }
  // room(g) += milli, moving the node's free count when the GPU becomes free or stops being.
  void change_room(std::uint32_t node, int local, int milli);
  void refile_gpu(std::uint32_t g, std::size_t type, std::uint32_t local_in_type) const;
  void refile_gpus(std::uint32_t node) const;
  void build_rooms() const;
  void reset_rooms(bool same, bool follow);  // reset()'s part for the GPUs
  bool could_share(int gpus) const;          // a shared GPU has room (one-GPU requests)
  const std::uint16_t* log_rooms_ = nullptr;
  std::vector<int> gdelta_;               // by GPU; 0 but for gtouched_
  std::vector<std::pair<std::uint32_t, std::uint32_t>> gtouched_;  // (node, GPU)
  // The shared GPUs by unheld thousandths: per type, a NodeSet of the type's GPUs (local
  // index node x gpus_per_node + gpu) per value 1..999, and a bitset of the values in use.
  // gfiled_[g] is the value GPU g is filed under, 0 for none (free, full or not up).
  mutable bool rooms_built_ = false;
  mutable std::vector<std::vector<NodeSet>> rooms_;
  mutable std::vector<std::array<std::uint64_t, 16>> room_used_;
  mutable std::vector<std::uint16_t> gfiled_;
  std::vector<int> delta_;                // by node; 0 but for touched_
  std::vector<std::uint32_t> touched_;
  // The index: per type, one NodeSet per free count 0..gpus_per_node (buckets_[t][f]);
  // filed_[n] is the count node n is filed under. Current when built_ (against the view
  // and the overlay); followed through the change log `log_`, read up to `seen_`.
  mutable bool built_ = false;
  mutable std::vector<std::vector<NodeSet>> buckets_;
  mutable std::vector<int> filed_;
  // Nodes changed since the index was last read (change() defers their refiling to the
  // next read, with_free(): a plan that gives back many runs before it asks refiles each
  // node once, and none that reset() refiles anyway). A subset of touched_.
  mutable std::vector<std::uint32_t> stale_;
  mutable std::vector<char> is_stale_;  // by node
  mutable std::vector<NodeTypeView> layout_;  // the types it was built for
  const NodeChanges* log_ = nullptr;
  const NodeView* log_nodes_ = nullptr;  // the view's nodes the log describes
  std::uint64_t seen_ = 0;
  Decisions scratch_;  // reserve()'s placements, dropped
};

class BestFitPlacement final : public PlacementStrategy {
 public:
  bool chooses_least_candidate() const override { return true; }

 protected:
  NodeChoice choose_node(const QueuedJob& job) const override;
};

class FirstFitPlacement final : public PlacementStrategy {
 public:
  bool chooses_least_candidate() const override { return true; }

 protected:
  NodeChoice choose_node(const QueuedJob& job) const override;
};

class PackPlacement final : public PlacementStrategy {
 public:
  bool chooses_least_candidate() const override { return true; }

 protected:
  NodeChoice choose_node(const QueuedJob& job) const override;
  int choose_type(const QueuedJob& job, std::uint64_t fits) const override;
};

class SpreadPlacement final : public PlacementStrategy {
 protected:
  NodeChoice choose_node(const QueuedJob& job) const override;
  GpuChoice choose_gpu(const QueuedJob& job) const override;
};

class TopologyPlacement final : public PlacementStrategy {
 protected:
  NodeChoice choose_node(const QueuedJob& job) const override;
  void choose_whole_nodes(std::size_t t, int needed, std::vector<std::uint32_t>& out) const override;

 private:
  mutable std::vector<int> count_, take_;      // by group: whole free nodes, nodes to take (scratch)
  mutable std::vector<std::uint32_t> groups_;  // groups with some, scratch
};

}  // namespace gcsim::models
