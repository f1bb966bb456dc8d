// Node slots coming and going, the NodeEventSink side of the cluster and the controllers'
// node API (see node_events.hpp, docs/spot.md and docs/engine.md, "Nodes that come and
// go"): on a market's notice a job writes a last checkpoint if it fits before the node
// goes; when the node goes, each of its jobs stops and loses the work since its last
// commit. A controller's scale-in drains a node instead: its jobs run on (to a deadline,
// if any) and it is released when the last one ends.
#include <algorithm>

#include "models/cluster/cluster.hpp"
#include "models/core/event_priorities.hpp"
#include "sim/check.hpp"

namespace gcsim::models {

template <class F>
void Cluster::for_each_job_on(std::uint32_t n, F&& f) {
  // The list is taken out of scratch_jobs_ while f runs, so that a call made from inside f
  // (through a signal) gets a list of its own instead of overwriting this one.
  std::vector<std::uint32_t> ids = std::move(scratch_jobs_);
  alloc_.jobs_on(n, ids);
  for (std::uint32_t id : ids) f(jobs_[id]);
  scratch_jobs_ = std::move(ids);
}

bool Cluster::move_node(std::uint32_t n, NodePhase to, NodeReason why, bool billed, sim::SimTime down_at) {
  const NodePhase from = alloc_.nodes()[n].phase;
  if (!alloc_.transition(n, to, why, engine_.now(), billed, down_at)) return false;
  node_changed.emit(NodeTransition{engine_.now(), n, from, to, why, alloc_.nodes()[n].billed});
  return true;
}

void Cluster::take_node(std::uint32_t n, NodePhase to, NodeReason why, StopReason stop) {
  const bool was_up = alloc_.nodes()[n].up;
  // A job stopped below must not release this node on its own (release_if_drained).
  const std::int64_t outer = taking_node_;
  taking_node_ = n;
  // Re-checked for each job: an observer of an earlier job's stop may have stopped (or,
  // through a controller misusing a signal, otherwise moved) a later one already.
  for_each_job_on(n, [&](Job& j) {
    if (j.status == JobStatus::Running) stop_job(j, stop);
  });
  taking_node_ = outer;
  engine_.cancel(node_event_[n]);
  if (!move_node(n, to, why)) return;
  if (was_up) node_down.emit(n);
}

void Cluster::notice(std::uint32_t n, sim::SimTime down_at) {
  if (!move_node(n, NodePhase::Draining, NodeReason::SpotInterruption, true, down_at)) return;
  node_noticed.emit(n, down_at);
  const sim::SimTime now = engine_.now();
  for_each_job_on(n, [&](Job& j) {
    if (j.noticed) return;
    j.noticed = true;
    if (!j.checkpoint() || j.driven || j.stopping) return;
    accrue(j);
    // A job that finishes before the node goes just finishes.
    const double left_s = std::max(0.0, j.progress.remaining) / j.progress.rate;
    if (std::max(now, j.progress.updated) + sim::SimTime::from_seconds(left_s) <= down_at) return;
    // Still restoring or pulling: there is nothing new to save yet.
    if (j.progress.updated > now && j.work_done() <= j.ckpt().ckpt_work) return;
    if (now + j.checkpoint()->write_time <= down_at) checkpoints_.begin_last(j, down_at, j.checkpoint()->write_time, false);
  });
}

void Cluster::down(std::uint32_t n, NodeReason why) {
  const NodePhase phase = alloc_.nodes()[n].phase;
  if (phase == NodePhase::Down || phase == NodePhase::Released) return;
  take_node(n, NodePhase::Down, why, StopReason::NodeLoss);
}

void Cluster::provisioning(std::uint32_t n, NodeReason why) { move_node(n, NodePhase::Provisioning, why, false); }

void Cluster::up(std::uint32_t n, NodeReason why) {
  if (!move_node(n, NodePhase::Up, why)) return;
  node_up.emit(n);
  request_schedule();
}

// ---- Controllers ----

std::optional<std::uint32_t> Cluster::request_node(int type, sim::SimTime provisioning, bool bill_provisioning) {
  GCSIM_CHECK(type >= 0 && static_cast<std::size_t>(type) < scenario_.cluster.node_types.size(),
              "request_node: no node type " + std::to_string(type));
  const NodeTypeSpec& t = scenario_.cluster.node_types[static_cast<std::size_t>(type)];
  GCSIM_CHECK(!t.spot || supply_, "request_node: no market supplies the spot node type '" + t.name + "'");
  GCSIM_CHECK(provisioning >= sim::SimTime::zero(), "request_node: a negative provisioning delay");
  const std::int64_t slot = alloc_.released_slot(static_cast<std::uint16_t>(type));
  if (slot < 0) return std::nullopt;
  const auto n = static_cast<std::uint32_t>(slot);
  if (t.spot) {
    // The market provisions it (its up() brings it up) when it has capacity.
    if (!supply_->acquire(n)) return std::nullopt;
    move_node(n, NodePhase::Provisioning, NodeReason::ScaleOut, bill_provisioning);
    return n;
  }
  move_node(n, NodePhase::Provisioning, NodeReason::ScaleOut, bill_provisioning);
  if (provisioning == sim::SimTime::zero()) {
    on_provisioned(n);
  } else {
    node_event_[n] = engine_.schedule_after<&Cluster::on_provisioned>(provisioning, this, n, PRIORITY_STATE);
  }
  return n;
}

void Cluster::on_provisioned(std::uint64_t node) {
  const auto n = static_cast<std::uint32_t>(node);
  GCSIM_CHECK(alloc_.nodes()[n].phase == NodePhase::Provisioning, "node " + std::to_string(n) + " comes up unrequested");
  up(n, NodeReason::ScaleOut);
}

bool Cluster::drain_node(std::uint32_t n, sim::SimTime deadline) {
  GCSIM_CHECK(n < alloc_.nodes().size(), "drain_node: no node " + std::to_string(n));
  const bool spot = scenario_.cluster.node_types[alloc_.nodes()[n].type].spot.has_value();
  GCSIM_CHECK(!spot || supply_, "drain_node: no market supplies node " + std::to_string(n));
  const sim::SimTime now = engine_.now();
  if (alloc_.nodes()[n].phase != NodePhase::Up) return false;
  // A spot node leaves its market's pool first: it is not interrupted while it drains, nor replaced.
  if (spot) supply_->give_back(n);
  if (!move_node(n, NodePhase::Draining, NodeReason::ScaleIn, true, std::max(deadline, now))) return false;
  if (alloc_.idle(n)) {
    release_if_drained(n);
    return true;
  }
  if (deadline.is_max()) return true;
  const sim::SimTime at = std::max(deadline, now);
  node_event_[n] = engine_.schedule_at<&Cluster::on_drain_deadline>(at, this, n, PRIORITY_DRAIN_DEADLINE);
  // Jobs that can checkpoint write a last one that ends at the deadline.
  for_each_job_on(n, [&](Job& j) {
    if (!j.checkpoint() || j.driven || j.stopping || j.status != JobStatus::Running) return;
    const sim::SimTime write_at = at - std::min(at - now, j.checkpoint()->write_time);
    engine_.schedule_at<&Cluster::on_drain_checkpoint>(write_at, this, event_arg(j), PRIORITY_STATE);
  });
  return true;
}

void Cluster::on_drain_checkpoint(std::uint64_t arg) {
  Job* j = live(arg);
  if (!j || j->stopping) return;
  // The deadline of the drain of one of its nodes (the earliest, if several are draining).
  sim::SimTime deadline = sim::SimTime::max();
  for (std::uint32_t n : alloc_.nodes_of(*j)) {
    const NodeState& node = alloc_.nodes()[n];
    if (node.phase == NodePhase::Draining && node.reason == NodeReason::ScaleIn) deadline = std::min(deadline, node.down_at);
  }
  if (deadline.is_max()) return;
  const sim::SimTime now = engine_.now();
  accrue(*j);
  // A job that finishes by the deadline just finishes; one still restoring has nothing new to save.
  const double left_s = std::max(0.0, j->progress.remaining) / j->progress.rate;
  if (std::max(now, j->progress.updated) + sim::SimTime::from_seconds(left_s) <= deadline) return;
  if (j->progress.updated > now && j->work_done() <= j->ckpt().ckpt_work) return;
  if (now + j->checkpoint()->write_time <= deadline)
    plan_stop_after_checkpoint(*j, StopReason::NodeReleased, j->checkpoint()->write_time, false);
}

void Cluster::on_drain_deadline(std::uint64_t node) {
  const auto n = static_cast<std::uint32_t>(node);
  GCSIM_CHECK(alloc_.nodes()[n].phase == NodePhase::Draining, "node " + std::to_string(n) + ": a drain's deadline, not draining");
  take_node(n, NodePhase::Released, NodeReason::ScaleIn, StopReason::NodeReleased);
  request_schedule();  // its jobs are queued again
}

bool Cluster::release_node(std::uint32_t n) {
  GCSIM_CHECK(n < alloc_.nodes().size(), "release_node: no node " + std::to_string(n));
  const NodeState& node = alloc_.nodes()[n];
  if (scenario_.cluster.node_types[node.type].spot) {
    // Only an up spot node (or one draining for a scale-in: already given back) is the controller's to release.
    GCSIM_CHECK(supply_, "release_node: no market supplies node " + std::to_string(n));
    if (node.phase == NodePhase::Up) supply_->give_back(n);
    else if (node.phase != NodePhase::Draining || node.reason != NodeReason::ScaleIn) return false;
  }
  const NodePhase phase = node.phase;
  if (phase != NodePhase::Provisioning && phase != NodePhase::Up && phase != NodePhase::Draining) return false;
  const bool had_jobs = !alloc_.idle(n);
  take_node(n, NodePhase::Released, NodeReason::Released, StopReason::NodeReleased);
  if (had_jobs) request_schedule();
  return true;
}

int Cluster::released_slots(int type) const {
  const NodeTypeView& t = types_[static_cast<std::size_t>(type)];
  int free = 0;
  for (std::uint32_t n = t.first_node; n < t.first_node + static_cast<std::uint32_t>(t.count); ++n)
    free += alloc_.nodes()[n].phase == NodePhase::Released;
  return free;
}

int Cluster::spot_supply(int type) const {
  const int free = released_slots(type);
  if (!scenario_.cluster.node_types[static_cast<std::size_t>(type)].spot || !supply_) return free;
  return std::min(free, supply_->supply_now(type));
}

sim::SimTime Cluster::next_supply_change(int type) const {
  if (!scenario_.cluster.node_types[static_cast<std::size_t>(type)].spot || !supply_) return sim::SimTime::max();
  return supply_->next_supply_change(type);
}

void Cluster::release_if_drained(std::uint32_t n) {
  const NodeState& node = alloc_.nodes()[n];
  if (node.phase != NodePhase::Draining || node.reason != NodeReason::ScaleIn || !alloc_.idle(n) || taking_node_ == n) return;
  take_node(n, NodePhase::Released, NodeReason::ScaleIn, StopReason::NodeReleased);
}

void Cluster::release_drained_nodes_of(const Job& j) {
  for (std::uint32_t n : alloc_.nodes_of(j)) release_if_drained(n);
}

}  // namespace gcsim::models
