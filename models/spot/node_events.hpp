// Node slots' states and the reasons they change, and what a market tells the cluster about
// its nodes (models/spot drives it; the cluster implements it). A slot is in one phase:
//   provisioning  requested, coming up: not placeable; billed only when its requester says so
//   up            placeable and billed
//   draining      up and billed, but takes no new jobs: a market's notice (it goes down at a
//                 known time) or a controller's scale-in (it is released when its jobs end)
//   down          gone (interrupted, waiting for capacity): not placeable, not billed
//   released      given back, or never taken (a slot beyond the scenario's count): not billed
// Every change carries a reason (NodeReason), recorded in the trace's /node_events, so an
// interruption is told apart from a scale-in. The sink's calls:
//   notice(n, at):         node n will be taken at `at` (>= now): draining, reason spot_interruption
//   down(n, why):          node n is gone now; jobs on it are preempted. Follows a notice, or not.
//   provisioning(n, why):  a replacement for down node n is requested (not billed: a market's
//                          replacement is billed from when it is up, as the spot clouds bill it)
//   up(n, why):            node n (a replacement in the same slot) is up and placeable now.
// Calls happen inside engine events; each call is O(jobs on the node).
#pragma once

#include <cstdint>

#include "sim/time.hpp"

namespace gcsim::models {

// Value order = the labels of /node_events.state (trace::schema::NODE_STATES).
enum class NodePhase : std::uint8_t { Provisioning, Up, Draining, Down, Released };

// Value order = the labels of /node_events.reason (trace::schema::NODE_REASONS).
enum class NodeReason : std::uint8_t {
  Initial,           // the scenario's nodes at the start (and slots beyond its count, released)
  ScaleOut,          // a controller requested the node (provisioning, then up)
  ScaleIn,           // a controller drained it (draining, then released when its jobs end or at the deadline)
  SpotInterruption,  // the market reclaims it (notice: draining; then down)
  SpotReplacement,   // the market brings a replacement into the slot (provisioning, then up)
  Availability,      // the market has no capacity for it (down at the start, a replacement request cancelled)
  Released,          // a controller released it at once (its jobs stop)
};

// One change of a slot's phase (Cluster::node_changed). `billed` says whether the slot is
// billed from now on (the cost meter opens and closes its sessions on it).
struct NodeTransition {
  sim::SimTime time;
  std::uint32_t node = 0;
  NodePhase from = NodePhase::Up;
  NodePhase to = NodePhase::Up;
  NodeReason reason = NodeReason::Initial;
  bool billed = true;
};

class NodeEventSink {
 public:
  virtual ~NodeEventSink() = default;
  virtual void notice(std::uint32_t node, sim::SimTime down_at) = 0;
  virtual void down(std::uint32_t node, NodeReason why) = 0;
  virtual void provisioning(std::uint32_t node, NodeReason why) = 0;
  virtual void up(std::uint32_t node, NodeReason why) = 0;
};

// What a market offers the controller of an elastic spot pool, through the cluster
// (Cluster::request_node, drain_node, release_node, spot_supply; docs/autoscaling.md,
// "Elastic spot pools"). The market keeps, per pool, the size the pool wants: the slots
// it holds, awaits capacity for, or provisions. A slot beyond it is released: not the
// market's, never interrupted, never replaced, not billed.
class ElasticSupply {
 public:
  virtual ~ElasticSupply() = default;
  // Nodes of node type `type` the market could supply now: its capacity now (availability,
  // trace, price) less the slots it holds, provisions or awaits capacity for. 0: none.
  virtual int supply_now(int type) const = 0;
  // The first time after now at which supply_now(type) may rise (max(): never).
  virtual sim::SimTime next_supply_change(int type) const = 0;
  // Takes released slot `node` into its pool (the wanted size + 1) and provisions it: up
  // after the pool's provisioning delay (up(node, ScaleOut)). The caller moves the slot to
  // provisioning. False (nothing changes) when supply_now is 0.
  virtual bool acquire(std::uint32_t node) = 0;
  // Up node `node` leaves its pool (the wanted size - 1): the market forgets it (its own
  // interruption process ends; it is not replaced). The caller drains or releases it.
  virtual void give_back(std::uint32_t node) = 0;
};

}  // namespace gcsim::models
