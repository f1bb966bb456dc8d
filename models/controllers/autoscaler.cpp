// Autoscaling node pools (see autoscaler.hpp).
#include "models/controllers/autoscaler.hpp"

#include <algorithm>
#include <bit>
#include <limits>

#include "models/core/event_priorities.hpp"
#include "sim/check.hpp"

namespace gcsim::models {

namespace {
// on_evaluate's argument for "every pool" (a pool's own wake-up passes its index).
constexpr std::uint64_t ALL_POOLS = std::numeric_limits<std::uint32_t>::max();
}  // namespace

Autoscaler::Autoscaler(sim::Engine& engine, const Scenario& scenario, Cluster& cluster, const ModelSpeeds* speeds)
    : Controller(engine, PRIORITY_AUTOSCALE), scenario_(scenario), cluster_(cluster), gauges_(scenario, cluster, speeds),
      pool_of_type_(scenario.cluster.node_types.size(), -1), idle_since_(cluster.nodes().size(), sim::SimTime::max()),
      give_back_(cluster.nodes().size(), 0) {
  const auto& types = scenario.cluster.node_types;
  for (std::size_t t = 0; t < types.size(); ++t) {
    if (!types[t].autoscale) continue;
    PoolState p;
    p.type = static_cast<int>(t);
    p.spec = &*types[t].autoscale;
    p.first_node = cluster.types()[t].first_node;
    p.slots = cluster.types()[t].count;
    p.gpus_per_node = types[t].gpus;
    p.spot = types[t].spot.has_value();
    pool_of_type_[t] = static_cast<int>(pools_.size());
    pools_.push_back(p);
  }
  // A pool with a fallback keeps the demand both could host until it is at its max.
  for (PoolState& p : pools_)
    if (p.spec->fallback_type >= 0)
      p.fallback_pair = static_cast<std::int64_t>(gauges_.track_pair(p.type, p.spec->fallback_type));
  for (std::uint32_t n = 0; n < cluster.nodes().size(); ++n) {
    const NodeState& node = cluster.nodes()[n];
    if (node.phase == NodePhase::Up && node.busy_mask == 0 && node.over_milli == 0) idle_since_[n] = sim::SimTime::zero();
  }
  // The teams whose budget gives their stopped jobs' nodes back (stop_instances).
  for (const BudgetSpec& b : scenario.budgets) {
    const int team = scenario.workload.team_index(b.team);
    if (team < 0 || b.action != BudgetAction::StopInstances) continue;
    if (give_back_team_.size() <= static_cast<std::size_t>(team)) give_back_team_.resize(static_cast<std::size_t>(team) + 1, 0);
    give_back_team_[static_cast<std::size_t>(team)] = 1;
  }
  // Observed after the gauges (connected first, in the gauges' constructor above).
  cluster.job_submitted.connect(ORDER_EXTENSIONS, [this](const Job&) { request_evaluation(); });
  cluster.job_started.connect(ORDER_EXTENSIONS, [this](const Job& j) {
    for (std::uint32_t n : cluster_.nodes_of(j)) {
      idle_since_[n] = sim::SimTime::max();
      give_back_[n] = 0;  // in use again: the scale-in rule decides
    }
    request_evaluation();
  });
  cluster.job_finished.connect(ORDER_EXTENSIONS, [this](const Job& j) { job_moved(j); });
  cluster.job_stopped.connect(ORDER_EXTENSIONS, [this](const Job& j) {
    if (j.stop_reason == StopReason::Budget && j.team >= 0 && static_cast<std::size_t>(j.team) < give_back_team_.size() &&
        give_back_team_[static_cast<std::size_t>(j.team)])
      for (std::uint32_t n : cluster_.nodes_of(j))
        if (pool_of_type_[cluster_.nodes()[n].type] >= 0) give_back_[n] = 1;
    job_moved(j);
  });
  // A held team's jobs leave the demand (PoolGauges), a released one's come back.
  cluster.team_hold_changed.connect(ORDER_EXTENSIONS, [this](int, bool) { request_evaluation(); });
  cluster.node_changed.connect(ORDER_EXTENSIONS, [this](const NodeTransition& t) {
    const NodeState& node = cluster_.nodes()[t.node];
    if (t.to != NodePhase::Up) {
      idle_since_[t.node] = sim::SimTime::max();
      give_back_[t.node] = 0;
    }
    else if (idle_since_[t.node].is_max() && node.busy_mask == 0 && node.over_milli == 0) idle_since_[t.node] = t.time;
    request_evaluation();
  });
}

void Autoscaler::job_moved(const Job& j) {
  const sim::SimTime now = engine_.now();
  for (std::uint32_t n : cluster_.nodes_of(j)) {
    const NodeState& node = cluster_.nodes()[n];
    if (node.phase == NodePhase::Up && node.busy_mask == 0 && node.over_milli == 0 && idle_since_[n].is_max())
      idle_since_[n] = now;
  }
  request_evaluation();
}

void Autoscaler::start() {
  for (std::size_t i = 0; i < pools_.size(); ++i)
    if (!pools_[i].spec->schedule.empty()) act_at<&Autoscaler::on_schedule_change>(sim::SimTime::zero(), this, i);
  request_evaluation();
}

std::vector<int> Autoscaler::pools() const {
  std::vector<int> types;
  for (const PoolState& p : pools_) types.push_back(p.type);
  return types;
}

std::uint64_t Autoscaler::unmet(int type) const {
  const int i = pool_of_type_[static_cast<std::size_t>(type)];
  return i < 0 ? 0 : pools_[static_cast<std::size_t>(i)].unmet;
}

int Autoscaler::size(int type) const {
  const PoolGauges::Pool& g = gauges_.pool(type);
  return g.provisioning + g.up;
}

void Autoscaler::request_evaluation() {
  if (evaluation_pending_ || cluster_.ended()) return;
  evaluation_pending_ = true;
  act_at<&Autoscaler::on_evaluate>(engine_.now(), this, ALL_POOLS);
}

void Autoscaler::wake(PoolState& p, sim::SimTime at) {
  if (at >= p.wake_at && p.wake_at > engine_.now()) return;  // an earlier one is pending
  p.wake_at = at;
  act_at<&Autoscaler::on_evaluate>(at, this, static_cast<std::uint64_t>(pool_of_type_[static_cast<std::size_t>(p.type)]));
}

void Autoscaler::on_evaluate(std::uint64_t arg) {
  if (cluster_.ended()) return;
  if (arg == ALL_POOLS) {
    evaluation_pending_ = false;
    for (PoolState& p : pools_) evaluate(p);
    evaluated.emit(engine_.now());
    return;
  }
  PoolState& p = pools_[arg];
  if (p.wake_at == engine_.now()) p.wake_at = sim::SimTime::max();
  evaluate(p);
}

bool Autoscaler::cooling(const PoolState& p) const {
  return !p.last_decision.is_max() && engine_.now() < p.last_decision + p.spec->cooldown;
}

int Autoscaler::floor_of(const PoolState& p) const {
  return p.spec->schedule.empty() ? p.spec->min : std::max(p.spec->min, p.spec->scheduled_count(engine_.now()));
}

double Autoscaler::measure(const PoolState& p, const TriggerSpec& t, double* spilled) const {
  if (spilled) *spilled = 0;
  switch (t.kind) {
    case TriggerKind::WaitingGpus: {
      double w = gauges_.waiting_gpus(p.type);
      // Demand that a preferred pool (one that falls back to this one) could also host is
      // its own while it can grow; once it is at max, or its spot market has no capacity
      // now, only what its nodes still provisioning will not answer spills over to this one.
      double spill = 0;
      for (const PoolState& q : pools_) {
        if (q.spec->fallback_type != p.type || q.fallback_pair < 0) continue;
        const PoolGauges::Pool& g = gauges_.pool(q.type);
        const double both = gauges_.waiting_gpus_both(static_cast<std::size_t>(q.fallback_pair));
        w -= both;
        if (g.provisioning + g.up + g.draining >= q.slots || (q.spot && cluster_.spot_supply(q.type) <= 0))
          spill += std::max(0.0, both - static_cast<double>(g.provisioning) * q.gpus_per_node);
      }
      // Nodes still provisioning answer that much of it already.
      const double mine = std::max(0.0, w - static_cast<double>(gauges_.pool(p.type).provisioning) * p.gpus_per_node);
      const double total = std::max(0.0, w + spill - static_cast<double>(gauges_.pool(p.type).provisioning) * p.gpus_per_node);
      if (spilled) *spilled = total - mine;
      return total;
    }
    case TriggerKind::GpuUtilization: return gauges_.gpu_utilization(p.type);
    case TriggerKind::GpuMemory: return gauges_.gpu_memory(p.type);
    default: return 0;
  }
}

void Autoscaler::evaluate(PoolState& p) {
  const sim::SimTime now = engine_.now();
  const AutoscaleSpec& spec = *p.spec;
  bool out_holds = false;
  if (spec.scale_out) {
    const ScaleRuleSpec& r = *spec.scale_out;
    double spilled = 0;
    const double v = measure(p, r.when, &spilled);
    if (r.when.holds(v)) {
      out_holds = true;
      if (p.out_since.is_max()) p.out_since = now;
      const PoolGauges::Pool& g = gauges_.pool(p.type);
      const int free_slots = p.slots - (g.provisioning + g.up + g.draining);
      if (now - p.out_since < r.hold) {
        wake(p, p.out_since + r.hold);
      } else if (free_slots <= 0) {
        // At max: the demand waits (or goes to the fallback pool, which counts it).
      } else if (cooling(p)) {
        wake(p, p.last_decision + spec.cooldown);
      } else if (p.spot && cluster_.spot_supply(p.type) <= 0) {
        // Unmet: the market has no capacity (the fallback pool counts the demand). Asked
        // again when its capacity may have risen; the trigger keeps holding meanwhile.
        ++p.unmet;
        const sim::SimTime next = cluster_.next_supply_change(p.type);
        if (!next.is_max()) wake(p, next);
      } else {
        // Demand sent on by a preferred pool at its max decided it when the pool's own
        // would not have.
        const TriggerKind why = spilled > 0 && !r.when.holds(v - spilled) ? TriggerKind::Fallback : r.when.kind;
        const int room = p.spot ? std::min(free_slots, cluster_.spot_supply(p.type)) : free_slots;
        scale_out(p, std::min(r.by, room), why, v);
        // The trigger must hold for `for` again before the next decision.
        p.out_since = now;
        if (r.hold > sim::SimTime::zero()) wake(p, now + r.hold);
      }
    } else {
      p.out_since = sim::SimTime::max();
    }
  }
  // Nodes a budget's stopped jobs held go back as soon as they are idle (stop_instances):
  // not after the scale-in rule's `for`, not held by the cooldown (nor starting one); as a
  // scale-in, not below the floor and not while the scale-out trigger holds.
  if (!out_holds) give_back(p);
  if (!spec.scale_in) return;
  const ScaleRuleSpec& r = *spec.scale_in;
  const int room = size(p.type) - floor_of(p);
  if (r.when.kind == TriggerKind::Idle) {
    int idle_long = 0;
    sim::SimTime next = sim::SimTime::max();
    for (std::uint32_t n = p.first_node; n < p.first_node + static_cast<std::uint32_t>(p.slots); ++n) {
      if (idle_since_[n].is_max()) continue;
      if (now - idle_since_[n] >= r.hold) ++idle_long;
      else next = std::min(next, idle_since_[n] + r.hold);
    }
    if (!next.is_max()) wake(p, next);
    if (idle_long == 0 || room <= 0 || out_holds) return;
    if (cooling(p)) {
      wake(p, p.last_decision + spec.cooldown);
      return;
    }
    scale_in(p, std::min({r.by, room, idle_long}), TriggerKind::Idle, idle_long, true, r.hold);
    return;
  }
  const double v = measure(p, r.when);
  if (!r.when.holds(v)) {
    p.in_since = sim::SimTime::max();
    return;
  }
  if (p.in_since.is_max()) p.in_since = now;
  if (now - p.in_since < r.hold) {
    wake(p, p.in_since + r.hold);
    return;
  }
  if (room <= 0 || out_holds) return;
  if (cooling(p)) {
    wake(p, p.last_decision + spec.cooldown);
    return;
  }
  scale_in(p, std::min(r.by, room), r.when.kind, v, false, sim::SimTime::zero());
  p.in_since = now;
  if (r.hold > sim::SimTime::zero()) wake(p, now + r.hold);
}

void Autoscaler::scale_out(PoolState& p, int n, TriggerKind why, double value) {
  const int before = size(p.type);
  int got = 0;
  for (int i = 0; i < n; ++i) {
    if (!cluster_.request_node(p.type, p.spec->provisioning, p.spec->bill_provisioning)) break;
    ++got;
  }
  if (got > 0) record(p, ScaleDirection::Out, why, value, got, before);
}

void Autoscaler::scale_in(PoolState& p, int n, TriggerKind why, double value, bool idle_only, sim::SimTime idle_for) {
  const sim::SimTime now = engine_.now();
  // Candidates: up nodes (not draining); idle ones first, longest idle first, then those
  // holding the fewest GPUs; the highest slot first on ties, so the low slots stay.
  scratch_.clear();
  for (std::uint32_t k = p.first_node; k < p.first_node + static_cast<std::uint32_t>(p.slots); ++k) {
    if (cluster_.nodes()[k].phase != NodePhase::Up) continue;
    if (idle_only && (idle_since_[k].is_max() || now - idle_since_[k] < idle_for)) continue;
    scratch_.push_back(k);
  }
  const auto busy = [&](std::uint32_t k) { return std::popcount(cluster_.nodes()[k].busy_mask); };
  std::sort(scratch_.begin(), scratch_.end(), [&](std::uint32_t a, std::uint32_t b) {
    const bool ia = !idle_since_[a].is_max(), ib = !idle_since_[b].is_max();
    if (ia != ib) return ia;
    if (ia && idle_since_[a] != idle_since_[b]) return idle_since_[a] < idle_since_[b];
    if (!ia && busy(a) != busy(b)) return busy(a) < busy(b);
    return a > b;
  });
  const int before = size(p.type);
  int done = 0;
  for (std::uint32_t k : scratch_) {
    if (done == n) break;
    if (cluster_.drain_node(k)) ++done;
  }
  if (done > 0) record(p, ScaleDirection::In, why, value, done, before);
}

void Autoscaler::give_back(PoolState& p) {
  const int room = size(p.type) - floor_of(p);
  if (room <= 0) return;  // at the floor: the marks stay, for when it drops
  int idle = 0;
  for (std::uint32_t k = p.first_node; k < p.first_node + static_cast<std::uint32_t>(p.slots); ++k)
    idle += give_back_[k] && cluster_.nodes()[k].phase == NodePhase::Up && !idle_since_[k].is_max();
  if (idle == 0) return;
  // The highest slots first, as the other scale-ins on ties. A drained idle node is released
  // at once, which clears its mark (node_changed).
  const int before = size(p.type);
  const int n = std::min(room, idle);
  int done = 0;
  for (std::uint32_t k = p.first_node + static_cast<std::uint32_t>(p.slots); k-- > p.first_node && done < n;) {
    if (!give_back_[k] || cluster_.nodes()[k].phase != NodePhase::Up || idle_since_[k].is_max()) continue;
    if (cluster_.drain_node(k)) ++done;
  }
  if (done > 0) record(p, ScaleDirection::In, TriggerKind::Budget, idle, done, before);
}

void Autoscaler::record(PoolState& p, ScaleDirection d, TriggerKind why, double value, int nodes, int before) {
  // The clock's and a budget's decisions are not the rules': they start no cooldown.
  if (why != TriggerKind::Schedule && why != TriggerKind::Budget) p.last_decision = engine_.now();
  decisions_.push_back(ScaleDecision{engine_.now(), p.type, d, why, value, nodes, before, size(p.type)});
  decided.emit(decisions_.back());
}

void Autoscaler::on_schedule_change(std::uint64_t i) {
  if (cluster_.ended()) return;
  PoolState& p = pools_[i];
  const sim::SimTime now = engine_.now();
  const int target = p.spec->scheduled_count(now);
  if (target != p.scheduled) {
    p.scheduled = target;
    const int have = size(p.type);
    if (have < target) {
      const PoolGauges::Pool& g = gauges_.pool(p.type);
      scale_out(p, std::min(target - have, p.slots - (g.provisioning + g.up + g.draining)), TriggerKind::Schedule, target);
    } else if (have > target) {
      scale_in(p, have - target, TriggerKind::Schedule, target, false, sim::SimTime::zero());
    }
  }
  const sim::SimTime next = p.spec->next_schedule_change(now);
  if (!next.is_max() && next < scenario_.horizon) act_at<&Autoscaler::on_schedule_change>(next, this, i);
}

}  // namespace gcsim::models
