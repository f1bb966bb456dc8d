// The scheduling-policy contract. A policy is told as jobs join and leave the waiting set
// and as runs start and end (so it can keep its own order over them: a pass need not look
// at every waiting job), gets a read-only view of the cluster (nodes, node types with their
// market and price now, the waiting jobs by id and, if it asks, running jobs) and returns
// decisions: placements, preemptions, and a time to be called again. The cluster
// checks every decision in every build and applies it (Vidur's schedule(), SST's
// sub-component slots); an invalid one is an InternalError naming the policy, raised before
// anything changes. A new policy is one file plus one line in register_builtins.
// Decisions are written into a caller-owned buffer so a pass allocates nothing once warm.
// docs/engine.md, "The cluster", says when a pass runs and in which order decisions apply.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "models/pricing/market.hpp"
#include "models/workload/recorded_node.hpp"
#include "models/workload/stop_reason.hpp"
#include "sim/allocator.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

struct NodeTypeView {
  int gpus_per_node = 0;
  int count = 0;
  std::uint32_t first_node = 0;   // nodes of a type are contiguous in ClusterView::nodes
  double usd_per_gpu_hour = 0;    // the on-demand list price per GPU-hour (the reference)
  Market market = Market::OnDemand;
  // The pool's price per GPU-hour at ClusterView::now: spot from its price profile, reserved
  // the effective price (upfront spread over the term), owned 0 (its cost is sunk: tco.hpp).
  double usd_per_gpu_hour_now = 0;
  std::uint32_t first_gpu = 0;    // cluster-wide index of its first node's GPU 0 (ClusterView::gpu_room)
};

// The cluster-wide index (ClusterView::gpu_room's numbering) of GPU `local` of node
// `node`, a node of type `t`.
inline std::uint32_t gpu_index(const NodeTypeView& t, std::uint32_t node, int local) {
  return t.first_gpu + (node - t.first_node) * static_cast<std::uint32_t>(t.gpus_per_node) + static_cast<std::uint32_t>(local);
}

enum class NodeStatus : std::uint8_t {
  Up,       // placeable
  Noticed,  // up, but a market takes it at a known time: no new jobs
  Down,     // gone until a market gives it back
};

struct NodeView {
  std::uint16_t type = 0;
  int gpus_free = 0;  // GPUs nobody holds any share of; 0 on noticed and down nodes
  NodeStatus status = NodeStatus::Up;
};

inline constexpr double UNKNOWN = std::numeric_limits<double>::quiet_NaN();

// A waiting job, as policies see it.
struct QueuedJob {
  std::uint32_t job = 0;           // job id
  int gpus = 1;
  sim::SimTime submit;
  std::uint64_t eligible_types = 0;  // bit t set: node type t can hold it
  // Its share of its one GPU in thousandths, below 1000 for a job that shares a GPU
  // (job key `gpu_milli`); 1000: it takes whole GPUs, which it never shares.
  int gpu_milli = 1000;
  int team = -1;                   // index into WorkloadSpec::teams, -1 for none
  int priority = 0;                // its class (job key `priority`, default 0): higher goes first under `priority`
  sim::SimTime waiting_since = sim::SimTime::zero();  // when it joined the waiting jobs (its arrival, or the end of its last run)
  int restarts = 0;                // runs ended before finishing (interruptions, budget stops, preemptions)
  double attained_gpu_s = 0;       // GPU-seconds held over its runs so far (attained service)
  // Work left in seconds at the nominal rate, where known: exact for duration jobs (from
  // their last committed checkpoint, for a waiting job), UNKNOWN for FLOP and model jobs
  // before they run (their speed depends on the node type). Running jobs: at their current rate.
  double remaining_s = UNKNOWN;
  // The job's true remaining length: remaining_s where known, else its work left at its
  // speed alone on the fastest node type it may use (FLOP jobs: GPUs x peak x efficiency;
  // model-described jobs: the step-time model's speed on an idle node). Always known.
  double length_s = 0;
  // The user's estimate of the job's run time (job key `estimate`, or drawn with an error),
  // less the work already saved, in the same proportion as length_s; UNKNOWN: none given.
  double estimated_remaining_s = UNKNOWN;
  bool can_checkpoint = false;     // it writes checkpoints (a preemption's default save is one)
  sim::SimTime deadline = sim::SimTime::max();  // when it should be done (job key `deadline`); max(): none
  // As a trace recorded it (mode: as-recorded; the `recorded` policy): when it started, and
  // the node of its recorded machine; min() and -1 when not known; <= -2 for the nodes of
  // several machines, the set at offset -2 - recorded_node in ClusterView::recorded_node_sets.
  sim::SimTime recorded_start = sim::SimTime::min();
  std::int32_t recorded_node = -1;
};

// A running job: the waiting job's fields at now, plus where it runs and since when.
struct RunningJob : QueuedJob {
  int node_type = 0;
  std::uint32_t first = 0;         // its nodes: ClusterView::running_nodes[first, first + count)
  std::uint32_t count = 0;
  int gpus_per_node = 0;
  int gpu = -1;                    // a shared GPU's local index on its node (gpu_milli < 1000), else -1
  sim::SimTime since;              // start of its current run
  bool stopping = false;           // writing a last checkpoint before it stops (notice, budget, preemption)
};

// The waiting jobs, as policies see them: each by its job id. Kept by the cluster's queue
// (a job is in it from when it joins to when it is placed or held); read-only here.
class WaitingJobs {
 public:
  std::size_t size() const { return jobs_.size(); }
  bool empty() const { return jobs_.empty(); }
  bool contains(std::uint32_t job) const { return job < slot_.size() && slot_[job] >= 0; }
  // The entry of a waiting job (contains(job) must hold).
  const QueuedJob& operator[](std::uint32_t job) const { return jobs_[static_cast<std::size_t>(slot_[job])]; }
  // Every waiting job, in no particular order.
  std::span<const QueuedJob> all() const { return jobs_; }
  // Their ids in submit order (ties by id), into `out`: O(n log n), for simple policies
  // and tests; a policy for large queues keeps its own order (order_index.hpp).
  void in_submit_order(std::vector<std::uint32_t>& out) const;

  // The queue's (models/cluster/job_queue.hpp).
  void add(const QueuedJob& job);
  void remove(std::uint32_t job);
  // Room for `jobs` entries, asked for once before the run: address space only, its pages
  // faulted in (ahead of add, on another thread) only as the queue fills, and no doubling
  // copies the entries over on the adding thread.
  void reserve(std::size_t jobs) { jobs_.reserve(jobs); }

  // Emptied, a queue that has held more entries than this at once frees its room (remove).
  static constexpr std::size_t RELEASE_ENTRIES = std::size_t{1} << 16;
  std::size_t capacity() const { return jobs_.capacity(); }

 private:
  std::vector<QueuedJob> jobs_;
  std::vector<std::int32_t> slot_;  // by job id: index into jobs_, -1 when not waiting
  std::size_t most_ = 0;            // the most entries held at once since the room was last freed
  sim::PrefaultAhead jobs_ahead_;   // jobs_'s next pages (a saturated queue grows to most jobs)
};

// Where a running job runs (ClusterView::where).
struct RunningPlace {
  int node_type = -1;
  std::span<const std::uint32_t> nodes;
  int gpus_per_node = 0;
  bool stopping = false;  // writing a last checkpoint, or saving its state, before it stops
  int gpu = -1;           // a job sharing a GPU: its local index on the node, and the job's share
  int gpu_milli = 1000;
  std::uint64_t gpu_mask = 0;  // the GPUs it holds on each node (bit = local index); 0: not known
  // The start of its current run; min(): not known (a view built by hand). A run that a pass
  // started at ClusterView::now is never a victim at now (docs/scheduling.md, "One preemption
  // per run and instant").
  sim::SimTime since = sim::SimTime::min();
};
// Whether a running job at `place` may be preempted at `now`: not when its run started at now.
inline bool started_before(const RunningPlace& place, sim::SimTime now) { return place.since < now; }
class RunningJobs {
 public:
  virtual ~RunningJobs() = default;
  // InternalError for a job that is not running.
  virtual RunningPlace where(std::uint32_t job) const = 0;
};

// How long a job would take on each node type: for policies that choose the type
// (hetero, cost-aware, spot-fallback). The cluster answers from the same speeds that give
// QueuedJob::length_s, which is the least of these over the job's eligible types.
class JobSpeeds {
 public:
  virtual ~JobSpeeds() = default;
  // The time job `job` (waiting or running) needs to finish the work it has left (from its
  // last committed checkpoint) running alone on node type `type`, in seconds; NaN when it
  // may not run there. Duration jobs take their duration on every type.
  virtual double time_left_alone_s(std::uint32_t job, int type) const = 0;
};

// The nodes whose NodeView changed, oldest first, as the cluster logs them for placement
// indexes (placement.hpp) to follow the view without reading every node. The cluster drops
// what a pass has seen after the pass; `dropped` counts every entry dropped so far, so a
// reader that last read up to entry d (counted from the start) has missed some when
// d < dropped.
struct NodeChanges {
  std::uint64_t dropped = 0;
  std::vector<std::uint32_t> nodes;
  // Entries logged so far, dropped ones included: a reader that has read them all is up to date.
  std::uint64_t total() const { return dropped + nodes.size(); }
};

// What each team may still take in a pass, beyond free capacity: team quotas
// (models/scheduler/quotas.hpp), which wrap the policy and put themselves in the view it
// sees. PlacementStrategy::try_place asks before placing a job, so no policy has to know
// about quotas; an ordering policy only passes over a job they hold back instead of
// blocking on it (held_by_quota). The quotas read what the pass has placed so far from
// the pass's decisions themselves, so a placement a policy takes back is forgotten too.
class Admission {
 public:
  virtual ~Admission() = default;
  // Whether `job` (waiting) may start now, given the placements decided so far in this pass.
  virtual bool admits(const QueuedJob& job) const = 0;
};

struct ClusterView {
  sim::SimTime now;
  std::span<const NodeTypeView> types;
  std::span<const NodeView> nodes;
  // Filled only for a policy whose wants_running_jobs() is true (empty otherwise).
  std::span<const RunningJob> running = {};
  std::span<const std::uint32_t> running_nodes = {};
  // Any running job's place, for every policy (null only in a view built by hand).
  const RunningJobs* running_jobs = nullptr;
  // Any job's speed on each node type (null only in a view built by hand).
  const JobSpeeds* speeds = nullptr;
  // Each node's leaf switch (or other group of nodes close in the network), from the
  // scenario's network; empty when it has none.
  std::span<const std::uint32_t> node_group = {};
  // The cluster's log of node changes (null in a view built by hand).
  const NodeChanges* changes = nullptr;
  // Team quotas in force (null: none).
  Admission* admission = nullptr;
  // Per GPU (cluster-wide, NodeTypeView::first_gpu + local node index x gpus_per_node + GPU):
  // the thousandths of it nobody holds, 0 on noticed and down nodes. Filled when some job
  // shares GPUs (QueuedJob::gpu_milli < 1000); empty otherwise, when a GPU is either free
  // (one of the first gpus_free of its node, as a plan counts them) or taken.
  std::span<const std::uint16_t> gpu_room = {};
  // The node sets of jobs a trace recorded over several machines (QueuedJob::recorded_node
  // <= -2; WorkloadSpec::recorded_node_sets): empty when there are none.
  std::span<const std::int32_t> recorded_node_sets = {};
};

// A waiting job that quotas hold back now: a strict pass passes over it (it does not hold
// the jobs behind it, which may be other teams'), and a preempting policy makes no room for it.
inline bool held_by_quota(const ClusterView& cluster, const QueuedJob& job) {
  return cluster.admission != nullptr && !cluster.admission->admits(job);
}

// Start waiting job `job` on nodes[first, first + count) of Decisions::nodes, taking
// gpus_per_node GPUs on each; a job that shares a GPU (gpu_milli < 1000) takes its share
// of GPU `gpu` (local index) of its one node, with gpus_per_node 1.
struct Placement {
  std::uint32_t job = 0;
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  int gpus_per_node = 0;
  int node_type = 0;
  int gpu = -1;
  int gpu_milli = 1000;  // the job's (QueuedJob::gpu_milli)
  // The GPUs (bit = local index) it takes on each node, as the strategy planned them when the
  // view has ClusterView::gpu_room (the cluster checks them); 0: not said.
  std::uint64_t gpu_mask = 0;
  // Start it even though its nodes lack the room (the `recorded` replay, which never delays
  // a job): it holds none of their GPUs (gpu_mask 0, gpu -1) but counts in their load and in
  // the allocated GPUs; the nodes must be up and of the type, the GPUs per node suffice.
  bool over_capacity = false;
};

// Stop a running job. A policy says whom and why; how it stops (saving its work first or
// losing it) is the scenario's `scheduler.preemption` (PreemptionSpec), applied by the cluster.
struct Preemption {
  std::uint32_t job = 0;           // job id of a running job
  PreemptReason reason = PreemptReason::Unspecified;
};

struct Decisions {
  std::vector<Placement> placements;
  std::vector<std::uint32_t> nodes;
  std::vector<Preemption> preemptions;
  // Call the policy again at this time (> now), even if nothing else changes; max(): not
  // asked. A later request replaces a pending one; a pass that asks nothing keeps it.
  sim::SimTime wake_at = sim::SimTime::max();
  void clear() {
    placements.clear();
    nodes.clear();
    preemptions.clear();
    wake_at = sim::SimTime::max();
  }
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // The job joined the waiting jobs (it arrived, its run stopped, or a budget released
  // its team): its entry as `waiting` holds it until it leaves.
  virtual void job_waiting(const QueuedJob& job) = 0;
  // The job left the waiting jobs: it was placed (by this policy), or a budget held it.
  virtual void job_left(std::uint32_t job) = 0;
  // A run started (after job_left) at `now`, and a run ended (finished or stopped, before
  // job_waiting when it goes back): for policies that keep an order over running jobs.
  virtual void run_started(const QueuedJob& job, sim::SimTime now) {
    (void)job;
    (void)now;
  }
  virtual void run_ended(std::uint32_t job, sim::SimTime now) {
    (void)job;
    (void)now;
  }
  // Called whenever the waiting jobs or the free capacity may have changed (and at a
  // wake-up it asked for).
  virtual void schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) = 0;
  // The policy's settings as one line ("blocking: strict, lengths: true"), for the trace
  // and the report: which rule a run used. "" for none.
  virtual std::string settings() const { return ""; }
  // True for a policy that reads ClusterView::running (the cluster builds it only then).
  virtual bool wants_running_jobs() const { return false; }
};

}  // namespace gcsim::models
