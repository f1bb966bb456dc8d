// The scheduling-policy contract. A policy gets a read-only view of the cluster (nodes, node
// types with their market and price now, waiting jobs and, if it asks, running jobs) and
// returns decisions: placements, preemptions, and a time to be called again. The cluster
// checks every decision in every build and applies it (Vidur's schedule(), SST's
// sub-component slots); an invalid one is an InternalError naming the policy, raised before
// anything changes. A new policy is one file plus one line in register_builtins.
// Decisions are written into a caller-owned buffer so a pass allocates nothing once warm.
// docs/engine.md, "The cluster", says when a pass runs and in which order decisions apply.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "models/pricing/price_spec.hpp"
#include "models/workload/stop_reason.hpp"
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
};

enum class NodeStatus : std::uint8_t {
  Up,       // placeable
  Noticed,  // up, but a market takes it at a known time: no new jobs
  Down,     // gone until a market gives it back
};

struct NodeView {
  std::uint16_t type = 0;
  int gpus_free = 0;  // 0 on noticed and down nodes
  NodeStatus status = NodeStatus::Up;
};

inline constexpr double UNKNOWN = std::numeric_limits<double>::quiet_NaN();

// A waiting job, as policies see it.
struct QueuedJob {
  std::uint32_t job = 0;           // job id
  int gpus = 1;
  sim::SimTime submit;
  std::uint64_t eligible_types = 0;  // bit t set: node type t can hold it
  int team = -1;                   // index into WorkloadSpec::teams, -1 for none
  int priority = 0;                // 0 unless the workload gives one (no key does yet)
  int restarts = 0;                // runs ended before finishing (interruptions, budget stops, preemptions)
  double attained_gpu_s = 0;       // GPU-seconds held over its runs so far (attained service)
  // Work left in seconds at the nominal rate, where known: exact for duration jobs (from
  // their last committed checkpoint, for a waiting job), UNKNOWN for FLOP and model jobs
  // before they run (their speed depends on the node type). Running jobs: at their current rate.
  double remaining_s = UNKNOWN;
  double estimated_remaining_s = UNKNOWN;  // a user-given estimate; UNKNOWN: none given (no key yet)
  bool can_checkpoint = false;     // it writes checkpoints (a preemption's default save is one)
};

// A running job: the waiting job's fields at now, plus where it runs and since when.
struct RunningJob : QueuedJob {
  int node_type = 0;
  std::uint32_t first = 0;         // its nodes: ClusterView::running_nodes[first, first + count)
  std::uint32_t count = 0;
  int gpus_per_node = 0;
  sim::SimTime since;              // start of its current run
  bool stopping = false;           // writing a last checkpoint before it stops (notice, budget, preemption)
};

struct ClusterView {
  sim::SimTime now;
  std::span<const NodeTypeView> types;
  std::span<const NodeView> nodes;
  // Filled only for a policy whose wants_running_jobs() is true (empty otherwise).
  std::span<const RunningJob> running = {};
  std::span<const std::uint32_t> running_nodes = {};
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
  // Called whenever the queue or the free capacity may have changed (and at a wake-up it
  // asked for). Jobs in `queue` are in submit order.
  virtual void schedule(const ClusterView& cluster, std::span<const QueuedJob> queue, Decisions& out) = 0;
  // True for a policy that reads ClusterView::running (the cluster builds it only then).
  virtual bool wants_running_jobs() const { return false; }
};

}  // namespace gcsim::models
