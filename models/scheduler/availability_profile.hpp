// The availability profile of the backfilling policies (docs/scheduling.md, "The code"):
// free GPUs per node over time, as Slurm's backfill plugin keeps its node_space map, held
// relative to one instant so that a search costs the nodes it touches, not every node.
// Conservative backfilling searches every reservation on it; EASY plans its head's (with
// no holds: its rest state is base):
//   base   the free GPUs now per node (0 unless up), followed through the cluster's change log;
//   rest   base plus the GPUs of the runs ended by the rest front (cap), less the GPUs of
//          every hold counted at rest (held): the state between searches;
//   search rest changed on the nodes a search touched so far (the runs ended by its
//          candidate time, the holds overlapping the job's span), back to rest after it.
// Per node type, a histogram of nodes by GPUs available (rest, or the search's state)
// answers "may a job of g GPUs fit?" without the placement strategy; the strategy is asked
// on a view (plan nodes) of which only the nodes written since the last ask are refiled.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/scheduler/scheduler.hpp"

namespace gcsim::models {

class AvailabilityProfile {
 public:
  // Follows the cluster's change log into base and rest (rebuilding all after entries were
  // dropped unread, on first use, or at every call for a view without the log). False when
  // plans made on the profile may no longer hold: it was rebuilt (no hold and no release
  // counted at rest), or a node's status changed.
  bool follow(const ClusterView& cluster, bool& rebuilt);
  void invalidate() { valid_ = false; }
  bool valid_for(const ClusterView& cluster) const { return valid_ && base_.size() == cluster.nodes.size(); }
  long long total_free() const { return base_total_; }
  int base(std::uint32_t n) const { return base_[n]; }

  // At rest: node n's capacity and held GPUs change by cap and held.
  void rest_change(const ClusterView& cluster, std::uint32_t n, int cap, int held);
  int rest_avail(std::uint32_t n) const { return std::max(0, rcap_[n] - rheld_[n]); }
  // Every hold counted afresh: clear_held(), add_held() for each, then refile_rest().
  void clear_held() { std::fill(rheld_.begin(), rheld_.end(), 0); }
  void add_held(std::uint32_t n, int gpus) { rheld_[n] += gpus; }
  void refile_rest(const ClusterView& cluster);

  // A search: starts at rest (with `live` false the histogram is filed only at refresh(),
  // the first time it is read), changes touched nodes, and goes back to rest at end_search().
  void begin_search(bool live) {
    hist_saved_.assign(hist_.begin(), hist_.end());
    live_ = live;
  }
  void change(const ClusterView& cluster, std::uint32_t n, int cap, int held);
  bool live() const { return live_; }
  void refresh(const ClusterView& cluster);
  // Whether some node (or enough whole nodes) has room for q now in the search's state:
  // exact for one-node jobs and for whole nodes, else an upper bound.
  bool may_fit(const ClusterView& cluster, const QueuedJob& q) const;
  // The plan view in the search's state for a job like q (nodes that cannot host it keep
  // a stale value), and its change log read.
  const ClusterView& sync_view(const ClusterView& cluster, const QueuedJob& q);
  void view_read() {
    log_.dropped += log_.nodes.size();
    log_.nodes.clear();
  }
  void end_search();
  // In a search: node n's GPUs available (capacity less holds), and the nodes changed so
  // far (the others are at rest).
  int avail(std::uint32_t n) const { return std::max(0, scap_[n] - sheld_[n]); }
  const std::vector<std::uint32_t>& touched() const { return touched_; }

 private:
  void refile(const ClusterView& cluster, std::uint32_t n, int before);
  void set_view_node(std::uint32_t n, int gpus_free);
  bool valid_ = false;
  std::vector<int> base_;
  std::vector<NodeStatus> status_;
  long long base_total_ = 0;
  std::uint64_t log_read_ = 0;
  std::vector<int> rcap_;   // rest
  std::vector<int> rheld_;
  std::vector<int> scap_;   // search (rest on nodes not touched)
  std::vector<int> sheld_;
  std::vector<char> touched_flag_;
  std::vector<std::uint32_t> touched_;
  std::vector<int> hist_;        // [hist_first_[type] + available GPUs]
  std::vector<int> hist_saved_;  // at the start of a search
  std::vector<int> hist_first_;
  bool live_ = true;
  // The plan view, with a change log of its own so that the strategy refiles only the nodes
  // written since its last reset.
  std::vector<NodeView> nodes_;
  ClusterView view_;
  NodeChanges log_;
  std::vector<std::uint32_t> dirty_;  // nodes whose view entry may not be their value at rest
  std::vector<char> dirty_flag_;
  std::vector<int> need_;  // by node type: GPUs of one node the job asked about needs
};

}  // namespace gcsim::models
