// Room for a waiting job made by preempting running jobs, as srtf, priority and las do
// (docs/scheduling.md, "Preemption"). The policy keeps its running jobs here in its victim
// order (the first is preempted first) and says, job by job in that order, whether it may
// preempt it for the waiting one; a `false` ends the search (no later job may be taken
// either, the order being the policy's). Victims are taken until the waiting job would
// fit on what they and the pass's free capacity leave: job by job in order, or, for a job
// that needs whole nodes, node by node (the nodes whose jobs may all be preempted, the one
// whose last victim comes first in the order first; a count says first whether enough
// exist). If it would not fit even then, nobody is preempted. A run that started at this
// instant is never a victim (passed over, as a job stopping for another reason is): the
// pass that started it gave it that room, and taking it back at once is the livelock
// (the victim, or a job behind the waiting one, placed again in the room and
// preempted again, without end; docs/scheduling.md, "One preemption per run and instant"). Of the jobs taken, only
// those holding GPUs that the waiting job's planned place uses are preempted (on a node
// where it needs k GPUs more than are free, the first victims in order that free k): a
// victim elsewhere freed room it does not use, and stopping it would only cost its save
// and restore. Jobs preempted here count as freeing their GPUs until their run ends, so
// one waiting job never preempts twice for the same room, and a victim is never
// chosen twice. A round (srtf and priority at a pass, las and finish-time-fair at a tick)
// holds room for several waiting jobs in one pass: each job's room stays taken in the
// round's plan, so the next one is planned on what is left (docs/scheduling.md, "The
// round"). Nothing allocates once warm.
//
// The room is planned on a placement instance of the preempter's own, over its own copy of
// the nodes: the cluster's free GPUs plus those of the jobs preempted here and still
// stopping. The copy follows the cluster's change log and the stopping jobs as they come
// and go, so a plan costs the nodes that changed, not a give-back of every stopping job at
// every pass (hundreds of them in a saturated cluster: docs/scheduling.md, "Speed"). Where jobs share
// GPUs (the view has gpu_room) the copy is GPU by GPU: each GPU's unheld thousandths plus
// those of the stopping jobs on it, and a node's free GPUs are its GPUs with all 1000.
#pragma once

#include <cstdint>
#include <vector>

#include "models/scheduler/order_index.hpp"
#include "models/scheduler/placement.hpp"
#include "models/scheduler/scheduler.hpp"

namespace gcsim::models {

class Preempter {
 public:
  // A run started (`key`: its place in the victim order, smaller first), or its key changed.
  // A job preempted here is out of the order until its run ends (a scan would only pass
  // over it): its key is kept aside.
  void running(std::uint32_t job, int gpus, double key) {
    if (is_preempted(job)) {
      held_of_[job].key = key;
      return;
    }
    if (order_.contains(job)) {
      order_.rekey(job, key);  // its size class is its GPUs', as when it was inserted
      rekeyed(job);
      return;
    }
    order_.insert(job, gpus, key);
    unfiled_.push_back(job);
  }
  // Its run ended (finished or stopped).
  void ended(std::uint32_t job);
  bool is_running(std::uint32_t job) const { return order_.contains(job) || is_preempted(job); }
  double key(std::uint32_t job) const { return is_preempted(job) ? held_of_[job].key : order_.key(job); }
  // Preempted here and still stopping.
  bool is_preempted(std::uint32_t job) const { return job < is_preempted_.size() && is_preempted_[job]; }

  // What a search for room found for a waiting job.
  enum class Room : std::uint8_t {
    None,  // no room, even with every job it may preempt
    Free,  // room without preempting: free capacity, or room coming from jobs stopping here
    Made,  // room made: preemptions appended to the decisions
  };

  // Appends preemptions to `out` that make room for waiting job `w` alone (a round of one
  // job, on a plan made afresh), choosing victims in order while may_preempt(id) holds;
  // returns whether it preempted. Room already coming
  // from jobs stopping for an earlier decision counts first: then nothing is preempted.
  // `out` holds this pass's placements so far (their GPUs are taken).
  template <class MayPreempt>
  bool make_room(const ClusterView& cluster, const QueuedJob& w, MayPreempt&& may_preempt, PreemptReason reason,
                 Decisions& out) {
    begin_round(cluster, out);
    const bool made = hold_room(cluster, w, may_preempt, reason, out) == Room::Made;
    end_round();
    return made;
  }

  // A round: room for several waiting jobs in one pass, each job's room held for it, so
  // that the next one is planned on what is left (docs/scheduling.md, "The round").
  // begin_round plans on the cluster with this pass's placements (`out`) taken; each
  // hold_room then finds room for one job on that plan, as make_room does, and takes it
  // there (its GPUs, whether free now or freed by its victims, are no later job's); the
  // victims it kept out of the room are taken back. After Room::None the plan is spent
  // (the search gave back jobs it then did not preempt): the round is over.
  void begin_round(const ClusterView& cluster, const Decisions& out) {
    round_ = cluster.running_jobs != nullptr;
    if (round_) plan(cluster, out);
  }
  template <class MayPreempt>
  Room hold_room(const ClusterView& cluster, const QueuedJob& w, MayPreempt&& may_preempt, PreemptReason reason,
                 Decisions& out) {
    if (!round_) return Room::None;
    const Room r = find_room(cluster, w, may_preempt, reason, out);
    if (r == Room::None) round_ = false;
    return r;
  }
  void end_round() { round_ = false; }

 private:
  static constexpr std::uint32_t NONE = 0xffffffffu;
  // A node a job preempted here holds while it stops (job NONE: its run has ended).
  struct Held {
    std::uint32_t job;
    std::uint32_t node;
    int gpus;             // whole GPUs it frees there (0 for a share)
    std::uint64_t mask;   // the GPUs it holds there
    int milli;            // thousandths of each (1000, or its share)
    std::uint32_t first_gpu;  // the node's GPU 0 in gpu_room's numbering
  };
  struct Span {
    std::uint32_t first = 0;  // into held_
    std::uint32_t count = 0;
    double key = 0;           // its key in the victim order, while it is out of it
  };
  // Room for `w` on the round's plan (room_): free there, or made by victims chosen in
  // order while may_preempt holds (appended to `out`). The room stays taken in the plan,
  // and the victims given back but not needed are taken back.
  template <class MayPreempt>
  Room find_room(const ClusterView& cluster, const QueuedJob& w, MayPreempt&& may_preempt, PreemptReason reason,
                 Decisions& out) {
    PlacementStrategy& placement = room_;
    if (placement.could_fit(w.gpus) && placement.reserve(w)) return Room::Free;
    victims_.clear();
    bool fits = false;
    if (needs_whole_nodes(cluster, w)) {
      if (!could_clear(cluster, placement, w, may_preempt)) return Room::None;
      fits = clear_nodes(cluster, placement, w, may_preempt);
    } else {
      order_.scan([](int) { return true; }, [&](std::uint32_t id, bool) {
        if (!may_preempt(id)) return Visit::Stop;
        const RunningPlace place = cluster.running_jobs->where(id);
        if (place.stopping) return Visit::Next;  // stopping for another reason (a notice, a budget)
        if (!started_before(place, cluster.now)) return Visit::Next;  // started at now: never a victim now
        placement.give_back(place);
        victims_.push_back(id);
        fits = placement.could_fit(w.gpus) && placement.reserve(w);
        return fits ? Visit::Stop : Visit::Next;
      });
    }
    if (!fits) return Room::None;
    keep_needed(cluster, placement, w);
    for (std::uint32_t id : unneeded_) placement.take_back(cluster.running_jobs->where(id));
    for (std::uint32_t id : victims_) {
      out.preemptions.push_back(Preemption{.job = id, .reason = reason});
      stopping(cluster, id, cluster.running_jobs->where(id));
    }
    return Room::Made;
  }
  // The placement instance to plan on, reset to the cluster's view with the stopping jobs'
  // GPUs free and this pass's placements (in `out`) taken.
  PlacementStrategy& plan(const ClusterView& cluster, const Decisions& out);
  // nodes_[n] (and, following GPUs, rooms_ of its GPUs) from the cluster's node n and what
  // stops there; logged when it changed.
  void refresh(const ClusterView& cluster, std::uint32_t n);
  // The cluster-wide index of node n's GPU `local` (ClusterView::gpu_room's numbering).
  static std::uint32_t gpu_index(const ClusterView& cluster, std::uint32_t n, int local) {
    return models::gpu_index(cluster.types[cluster.nodes[n].type], n, local);
  }
  // Whether waiting job w needs whole nodes on every type it may use (it is no share and
  // has at least a node's GPUs on each).
  static bool needs_whole_nodes(const ClusterView& cluster, const QueuedJob& w) {
    if (w.gpu_milli < 1000) return false;
    const std::size_t types = std::min<std::size_t>(cluster.types.size(), 64);
    for (std::size_t t = 0; t < types; ++t)
      if ((w.eligible_types >> t & 1) && w.gpus < cluster.types[t].gpus_per_node) return false;
    return true;
  }
  // Visits the up nodes of w's types whose jobs in the order may all be preempted (the
  // node's last in the order may), those whose last victim comes first in the order first,
  // until visit(n) returns Visit::Stop. Once a node's last may not be preempted, no node
  // after it is visited but those of the same key (nodes tie by node id, not by job).
  template <class MayPreempt, class F>
  void scan_clearable(const ClusterView& cluster, const QueuedJob& w, MayPreempt&& may_preempt, F&& visit) {
    file_unfiled(cluster);
    const std::size_t types = std::min<std::size_t>(cluster.types.size(), 64);
    bool refused = false;
    double refused_key = 0;
    node_order_.scan([](int) { return true; }, [&](std::uint32_t n, bool) {
      const double key = node_order_.key(n);
      if (refused && refused_key < key) return Visit::Stop;
      if (!may_preempt(last_on_node(n))) {
        if (!refused) refused_key = key;
        refused = true;
        return Visit::Next;
      }
      const std::size_t t = cluster.nodes[n].type;
      if (t >= types || !(w.eligible_types >> t & 1) || cluster.nodes[n].status != NodeStatus::Up) return Visit::Next;
      return visit(n);
    });
  }
  // For a job that needs whole nodes: whether enough could be cleared (false: no set of
  // victims can make room, and nothing more is looked at). An upper bound: jobs placed in
  // this pass or stopping for another reason hold nodes it counts, so it may say true
  // where clear_nodes then fails; it never says false where clear_nodes would succeed.
  template <class MayPreempt>
  bool could_clear(const ClusterView& cluster, const PlacementStrategy& placement, const QueuedJob& w,
                   MayPreempt&& may_preempt) {
    const std::size_t types = std::min<std::size_t>(cluster.types.size(), 64);
    for (std::size_t t = 0; t < types; ++t) {
      if (!(w.eligible_types >> t & 1)) continue;
      const int per = cluster.types[t].gpus_per_node;
      clear_need_[t] = (w.gpus + per - 1) / per - placement.whole_free_nodes(t);
      if (clear_need_[t] <= 0) return true;
    }
    bool enough = false;
    scan_clearable(cluster, w, may_preempt, [&](std::uint32_t n) {
      enough = --clear_need_[cluster.nodes[n].type] <= 0;
      return enough ? Visit::Stop : Visit::Next;
    });
    return enough;
  }
  // Victims for a job that needs whole nodes, node by node in scan_clearable's order,
  // every job on each given back, until the job would fit (victims_: all of them; true if
  // it fits). A node where a job stops for another reason (a notice, a budget) is passed
  // over. Taking victims job by job instead would free GPUs all over the cluster before
  // whole nodes come together: hundreds of jobs given back in a plan for one preemption.
  template <class MayPreempt>
  bool clear_nodes(const ClusterView& cluster, PlacementStrategy& placement, const QueuedJob& w,
                   MayPreempt&& may_preempt) {
    bool fits = false;
    scan_clearable(cluster, w, may_preempt, [&](std::uint32_t n) {
      for (const OnNode& e : on_node_[n]) {
        const RunningPlace place = cluster.running_jobs->where(e.job);
        if (place.stopping || !started_before(place, cluster.now)) return Visit::Next;
      }
      for (const OnNode& e : on_node_[n]) {
        if (e.job >= is_victim_.size()) is_victim_.resize(std::max<std::size_t>(e.job + 1, is_victim_.size() * 2), 0);
        if (is_victim_[e.job]) continue;  // a multi-node job, given back already
        is_victim_[e.job] = 1;
        placement.give_back(cluster.running_jobs->where(e.job));
        victims_.push_back(e.job);
      }
      fits = placement.could_fit(w.gpus) && placement.reserve(w);
      return fits ? Visit::Stop : Visit::Next;
    });
    for (std::uint32_t id : victims_) is_victim_[id] = 0;
    return fits;
  }
  // Keeps in victims_ only those the waiting job's reservation (placement.reserved())
  // needs, in victim order (the others go to unneeded_): the taken victims free GPUs all
  // over the cluster before enough come together where it fits (a 64-GPU job needs 8 whole
  // nodes), and preempting the others would only stop work for nothing.
  void keep_needed(const ClusterView& cluster, const PlacementStrategy& placement, const QueuedJob& w);
  // Adds `sign` x a stopping job's thousandths to stopping_room_ (when following GPUs).
  void add_stopping_room(const Held& h, int sign);
  // Job `job`, running at `place`, was preempted here.
  void stopping(const ClusterView& cluster, std::uint32_t job, const RunningPlace& place);
  void compact();  // drops the entries of held_ whose job has ended

  // The nodes of the jobs in order_, for could_clear: by node, its jobs in order_ (job,
  // key); node_order_ holds the nodes with any, by the largest key (their last victim).
  // A job joins on_node_ at the first plan after its run started (its place is read from
  // the cluster then); its nodes are kept in job_nodes_ (span job_span_[job]) so that it
  // can leave when its run ends.
  struct OnNode {
    std::uint32_t job;
    double key;
  };
  struct NodeSpan {
    std::uint32_t first = 0;
    std::uint32_t count = 0;  // 0: not filed
  };
  void file_unfiled(const ClusterView& cluster);
  void unfile(std::uint32_t job);
  void rekeyed(std::uint32_t job);
  void refile_node(std::uint32_t n);  // node_order_'s key for n from on_node_[n]
  std::uint32_t last_on_node(std::uint32_t n) const;
  std::vector<std::vector<OnNode>> on_node_;
  OrderIndex<double> node_order_;
  std::vector<std::uint32_t> unfiled_;
  struct JobNode {
    std::uint32_t job;  // NONE once unfiled
    std::uint32_t node;
  };
  std::vector<JobNode> job_nodes_;
  std::vector<NodeSpan> job_span_;
  std::size_t dead_nodes_ = 0;  // entries of job_nodes_ of jobs no longer filed
  int clear_need_[64] = {};

  OrderIndex<double> order_;
  std::vector<std::uint8_t> is_preempted_;  // by job id
  std::vector<std::uint32_t> victims_;      // scratch
  std::vector<std::uint32_t> unneeded_;     // scratch of keep_needed: victims given back, not needed
  bool round_ = false;                      // in a round (begin_round), its plan in room_
  std::vector<std::uint8_t> is_victim_;     // by job, scratch of clear_nodes (all 0 between calls)
  std::vector<int> need_;                   // scratch of keep_needed, by node (0 but for W's nodes)

  // The plan: whether W fits is a question of capacity, which every strategy answers alike
  // (a job fits on one node when some eligible node has room, on several when enough
  // whole nodes are free); the nodes reserve() picks are dropped. So best-fit serves all.
  BestFitPlacement room_;
  ClusterView view_;                   // the cluster's, with nodes_ and changes_ (room_ keeps a pointer to it)
  std::vector<NodeView> nodes_;        // the cluster's nodes, stopping jobs' GPUs counted free
  NodeChanges changes_;                // nodes_'s log, for room_ to follow
  const NodeView* cluster_nodes_ = nullptr;  // the storage nodes_ copies
  const NodeChanges* log_ = nullptr;   // the cluster's log, read up to seen_
  std::uint64_t seen_ = 0;
  std::vector<int> stopping_gpus_;     // by node: GPUs of jobs preempted here, still stopping
  // Following GPUs (the view has gpu_room): by GPU, the thousandths of jobs preempted here
  // and still stopping, and rooms_ = the cluster's gpu_room + those (view_.gpu_room).
  bool gpus_ = false;
  std::vector<int> stopping_room_;
  std::vector<std::uint16_t> rooms_;
  std::vector<std::uint32_t> dirty_;   // nodes whose stopping_gpus_ changed since the last plan
  std::vector<Held> held_;             // each stopping job's nodes, contiguous
  std::vector<Span> held_of_;          // by job id
  std::size_t dead_ = 0;               // entries of held_ whose job has ended
};

}  // namespace gcsim::models
