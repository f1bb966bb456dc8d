// The spot market's run time (see spot_market.hpp and docs/spot.md).
//
// Per node: a Poisson process of rate lambda per node-second gives exponential lifetimes of
// mean 1/lambda from each time the node comes up (memoryless, so "from up" is exact); a
// Weibull process gives lifetimes lambda * (-ln(1 - u))^(1/k) from the node's up time (its
// age), mean lambda * Gamma(1 + 1/k) (Weibull 1951; the usual age-dependent hazard
// h(a) = (k / lambda) (a / lambda)^(k - 1)).
// Per pool: trace replay and price-driven pools have a capacity profile (the trace's count,
// or count / 0 as the price is at-or-below / above the maximum). Each drop of that capacity
// is announced `notice` before it happens: the highest-indexed up nodes beyond the new
// capacity get their notice then and go at the drop's instant. Nodes coming up inside a
// notice window that would exceed an announced drop are noticed at once.
#include "models/spot/spot_market.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "sim/check.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {
namespace {

std::size_t pool_of(std::uint64_t arg) { return static_cast<std::size_t>(arg >> 32); }
std::uint32_t node_of(std::uint64_t arg) { return static_cast<std::uint32_t>(arg & 0xffffffffu); }

}  // namespace

SpotMarket::Pool::Pool(SpotPoolSpec s, std::uint64_t seed, std::uint64_t replication)
    : spec(std::move(s)),
      wanted(spec.count),
      slots(std::max(spec.count, spec.slots)),
      correlated_times(seed, replication, "spot." + spec.name + ".correlated"),
      correlated_victims(seed, replication, "spot." + spec.name + ".correlated.victims") {
  nodes.reserve(static_cast<std::size_t>(slots));
  for (int i = 0; i < slots; ++i)
    nodes.emplace_back(sim::RngStream(seed, replication, "spot." + spec.name + ".node" + std::to_string(i)));
  waiting.reserve(nodes.size());
  scratch.reserve(nodes.size());
  pending.reserve(16);
}

SpotMarket::SpotMarket(sim::Engine& engine, std::uint64_t seed, std::uint64_t replication,
                       std::vector<SpotPoolSpec> pools, NodeEventSink& sink)
    : engine_(engine), sink_(sink) {
  pools_.reserve(pools.size());
  for (SpotPoolSpec& s : pools) {
    if (s.count < 0 || std::max(s.count, s.slots) <= 0) throw Error("spot pool '" + s.name + "' has no nodes");
    if (s.interruptions.price_driven() && s.spot_price == nullptr)
      throw Error("spot pool '" + s.name + "' is price-driven but has no spot price profile");
    if (s.interruptions.price_driven() && s.spot_price->empty())
      throw Error("spot pool '" + s.name + "' has an empty spot price profile");
    if (s.interruptions.process == InterruptionProcess::Trace && s.interruptions.trace.empty())
      throw Error("spot pool '" + s.name + "' replays a trace but its profile is empty");
    pools_.emplace_back(std::move(s), seed, replication);
  }
}

void SpotMarket::start() {
  GCSIM_CHECK(!started_, "SpotMarket::start called twice");
  started_ = true;
  for (std::size_t p = 0; p < pools_.size(); ++p)
    engine_.schedule_at<&SpotMarket::on_start>(engine_.now(), this, p, PRIORITY_START);
}

// ---------------------------------------------------------------------------------------
// Capacity

int SpotMarket::reclaim_capacity_at(const Pool& pool, sim::SimTime t) const {
  const InterruptionSpec& s = pool.spec.interruptions;
  if (s.process == InterruptionProcess::Trace) return std::min(pool.slots, s.trace.value_at(t));
  if (s.process == InterruptionProcess::Price)
    return pool.spec.spot_price->value_at(t) > pool.spec.max_usd_per_hour ? 0 : pool.slots;
  return pool.slots;
}

sim::SimTime SpotMarket::next_reclaim_change(const Pool& pool, sim::SimTime t, int current) const {
  const InterruptionSpec& s = pool.spec.interruptions;
  sim::SimTime period;
  if (s.process == InterruptionProcess::Trace) {
    period = s.trace.period();
  } else if (s.process == InterruptionProcess::Price) {
    period = pool.spec.spot_price->period();
  } else {
    return sim::SimTime::max();
  }
  // A periodic profile that does not change within one period from t never changes.
  const sim::SimTime limit = period > sim::SimTime::zero() ? t.saturating_add(period) : sim::SimTime::max();
  sim::SimTime x = t;
  while (true) {
    x = s.process == InterruptionProcess::Trace ? s.trace.next_change_after(x)
                                                : pool.spec.spot_price->next_change_after(x);
    if (x.is_max() || x > limit) return sim::SimTime::max();
    if (reclaim_capacity_at(pool, x) != current) return x;
  }
}

// What the pool can hold at t: its slots, its availability, and `reclaim`, the capacity the
// trace or the price leaves (the pool's reclaim_now, or the profile's value at t).
int SpotMarket::supply_capacity(const Pool& pool, sim::SimTime t, int reclaim) const {
  return std::min({pool.slots, pool.spec.availability.capacity_at(t, pool.slots), reclaim});
}

// ---------------------------------------------------------------------------------------
// Elastic pools (ElasticSupply)

std::size_t SpotMarket::pool_of_type(int type) const {
  for (std::size_t p = 0; p < pools_.size(); ++p)
    if (pools_[p].spec.type == type) return p;
  GCSIM_CHECK(false, "the spot market has no pool of node type " + std::to_string(type));
  return 0;
}

std::size_t SpotMarket::pool_of_node(std::uint32_t node, std::uint32_t& index) const {
  for (std::size_t p = 0; p < pools_.size(); ++p) {
    const Pool& pool = pools_[p];
    if (node >= pool.spec.first_node && node < pool.spec.first_node + static_cast<std::uint32_t>(pool.slots)) {
      index = node - pool.spec.first_node;
      return p;
    }
  }
  GCSIM_CHECK(false, "the spot market owns no node " + std::to_string(node));
  return 0;
}

// The capacity now from the profiles themselves (not reclaim_now, which an event of this
// instant may not have moved yet), less the wanted slots: held, provisioning or waiting.
int SpotMarket::supply_now(int type) const {
  const Pool& pool = pools_[pool_of_type(type)];
  const sim::SimTime now = engine_.now();
  return std::max(0, supply_capacity(pool, now, reclaim_capacity_at(pool, now)) - pool.wanted);
}

sim::SimTime SpotMarket::next_supply_change(int type) const {
  const Pool& pool = pools_[pool_of_type(type)];
  const sim::SimTime now = engine_.now();
  return std::min(pool.spec.availability.next_change_after(now), next_reclaim_change(pool, now, reclaim_capacity_at(pool, now)));
}

bool SpotMarket::acquire(std::uint32_t node) {
  std::uint32_t i = 0;
  const std::size_t p = pool_of_node(node, i);
  Pool& pool = pools_[p];
  Node& n = pool.nodes[i];
  GCSIM_CHECK(n.phase == Phase::Released, "acquire: slot " + std::to_string(i) + " of spot pool '" + pool.spec.name + "' is not released");
  if (supply_now(pool.spec.type) <= 0) return false;
  n.phase = Phase::Provisioning;
  n.scale_out = true;
  ++pool.wanted;
  ++pool.provisioning;
  ++pool.counters.scale_outs;
  n.up_event = engine_.schedule_after<&SpotMarket::on_up>(pool.spec.provisioning, this, arg_of(p, i), PRIORITY_NODE);
  return true;
}

void SpotMarket::give_back(std::uint32_t node) {
  std::uint32_t i = 0;
  Pool& pool = pools_[pool_of_node(node, i)];
  Node& n = pool.nodes[i];
  GCSIM_CHECK(n.phase == Phase::Up, "give_back: slot " + std::to_string(i) + " of spot pool '" + pool.spec.name + "' is not up");
  engine_.cancel(n.own_notice);
  n.phase = Phase::Released;
  --pool.up_live;
  --pool.wanted;
  ++pool.counters.given_back;
}

// Finds the first drop after `after` (capacity `current` then) and schedules its
// announcement `notice` before it, or at once when that is already past.
void SpotMarket::schedule_next_drop(std::size_t p, sim::SimTime after, int current) {
  Pool& pool = pools_[p];
  sim::SimTime t = after;
  int value = current;
  while (true) {
    t = next_reclaim_change(pool, t, value);
    if (t.is_max()) return;
    const int next = reclaim_capacity_at(pool, t);
    if (next < value) {
      pool.drop_at = t;
      pool.drop_capacity = next;
      const sim::SimTime announce = std::max(engine_.now(), t - pool.spec.notice);
      engine_.schedule_at<&SpotMarket::on_drop_announce>(announce, this, p, PRIORITY_ANNOUNCE);
      return;
    }
    value = next;
  }
}

void SpotMarket::on_drop_announce(std::uint64_t p) {
  Pool& pool = pools_[p];
  pool.pending.push_back({pool.drop_at, pool.drop_capacity});
  // The highest-indexed up nodes beyond the coming capacity get their notice.
  int excess = pool.up_live - pool.drop_capacity;
  for (std::uint32_t i = static_cast<std::uint32_t>(pool.nodes.size()); excess > 0 && i-- > 0;) {
    if (pool.nodes[i].phase != Phase::Up) continue;
    give_notice(p, i, pool.drop_at);
    --excess;
  }
  schedule_next_drop(p, pool.drop_at, pool.drop_capacity);
}

void SpotMarket::on_capacity_change(std::uint64_t p) {
  Pool& pool = pools_[p];
  const sim::SimTime now = engine_.now();
  const int before = pool.reclaim_now;
  pool.reclaim_now = reclaim_capacity_at(pool, now);
  while (!pool.pending.empty() && pool.pending.front().at <= now) pool.pending.erase(pool.pending.begin());
  if (pool.reclaim_now < before) {
    enforce_capacity(p, pool.reclaim_now);
  } else {
    try_acquire(p);
  }
  const sim::SimTime next = next_reclaim_change(pool, now, pool.reclaim_now);
  if (!next.is_max()) engine_.schedule_at<&SpotMarket::on_capacity_change>(next, this, p, PRIORITY_CAPACITY);
}

// At a drop's instant (the noticed nodes go right after): requests still provisioning
// beyond the capacity are cancelled (highest index first), and, should any up node not
// under notice still exceed it, it is taken at once (notice and down at this instant).
void SpotMarket::enforce_capacity(std::size_t p, int capacity) {
  Pool& pool = pools_[p];
  int excess = pool.up_live + pool.provisioning - capacity;
  for (std::uint32_t i = static_cast<std::uint32_t>(pool.nodes.size()); excess > 0 && i-- > 0;) {
    Node& n = pool.nodes[i];
    if (n.phase != Phase::Provisioning) continue;
    engine_.cancel(n.up_event);
    n.phase = Phase::Waiting;
    --pool.provisioning;
    ++pool.counters.cancelled_requests;
    sink_.down(pool.spec.first_node + i, NodeReason::Availability);
    pool.waiting.push_back(i);
    std::push_heap(pool.waiting.begin(), pool.waiting.end(), std::greater<>());
    --excess;
  }
  for (std::uint32_t i = static_cast<std::uint32_t>(pool.nodes.size()); excess > 0 && i-- > 0;) {
    if (pool.nodes[i].phase != Phase::Up) continue;
    give_notice(p, i, engine_.now());
    --excess;
  }
}

void SpotMarket::try_acquire(std::size_t p) {
  Pool& pool = pools_[p];
  const int capacity = supply_capacity(pool, engine_.now(), pool.reclaim_now);
  int held = pool.up_live + pool.noticed + pool.provisioning;
  while (!pool.waiting.empty() && held < capacity) {
    std::pop_heap(pool.waiting.begin(), pool.waiting.end(), std::greater<>());
    const std::uint32_t i = pool.waiting.back();
    pool.waiting.pop_back();
    Node& n = pool.nodes[i];
    n.phase = Phase::Provisioning;
    ++pool.provisioning;
    ++held;
    n.scale_out = false;
    sink_.provisioning(pool.spec.first_node + i, NodeReason::SpotReplacement);
    n.up_event = engine_.schedule_after<&SpotMarket::on_up>(pool.spec.provisioning, this, arg_of(p, i), PRIORITY_NODE);
  }
  // Trace and price rises arrive as capacity changes; availability changes need a wake.
  if (!pool.waiting.empty() && !pool.spec.availability.always() && !engine_.is_pending(pool.wake)) {
    const sim::SimTime next = pool.spec.availability.next_change_after(engine_.now());
    if (!next.is_max()) pool.wake = engine_.schedule_at<&SpotMarket::on_wake>(next, this, p, PRIORITY_CAPACITY);
  }
}

void SpotMarket::on_wake(std::uint64_t p) { try_acquire(p); }

// ---------------------------------------------------------------------------------------
// Nodes

void SpotMarket::on_start(std::uint64_t p) {
  Pool& pool = pools_[p];
  const sim::SimTime now = engine_.now();
  pool.reclaim_now = reclaim_capacity_at(pool, now);
  const int initial = supply_capacity(pool, now, pool.reclaim_now);
  for (std::uint32_t i = 0; i < pool.nodes.size(); ++i) {
    if (static_cast<int>(i) >= pool.spec.count) {
      pool.nodes[i].phase = Phase::Released;  // an elastic pool's slot beyond its start size (released in the cluster too)
    } else if (static_cast<int>(i) < initial) {
      pool.nodes[i].phase = Phase::Up;
      ++pool.up_live;
      start_own_process(p, i);
    } else {
      pool.nodes[i].phase = Phase::Waiting;
      pool.waiting.push_back(i);  // ascending: already a min-heap
      ++pool.counters.initially_down;
      sink_.down(pool.spec.first_node + i, NodeReason::Availability);
    }
  }
  const sim::SimTime change = next_reclaim_change(pool, now, pool.reclaim_now);
  if (!change.is_max()) engine_.schedule_at<&SpotMarket::on_capacity_change>(change, this, p, PRIORITY_CAPACITY);
  schedule_next_drop(p, now, pool.reclaim_now);
  if (pool.spec.interruptions.correlated) {
    pool.correlated_at = now;
    schedule_next_correlated(p);
  }
  try_acquire(p);
}

void SpotMarket::start_own_process(std::size_t p, std::uint32_t i) {
  Pool& pool = pools_[p];
  Node& n = pool.nodes[i];
  const InterruptionSpec& s = pool.spec.interruptions;
  double lifetime_s = 0;
  if (s.process == InterruptionProcess::Poisson && s.rate_per_s > 0) {
    lifetime_s = n.rng.exponential(1.0 / s.rate_per_s);
  } else if (s.process == InterruptionProcess::Weibull) {
    lifetime_s = n.rng.weibull(s.weibull_shape, s.weibull_scale.seconds());
  } else {
    return;
  }
  const sim::SimTime now = engine_.now();
  n.own_down_at = now.saturating_add(sim::SimTime::from_seconds(lifetime_s));
  if (n.own_down_at.is_max()) return;  // beyond any horizon: never
  const sim::SimTime notice_at = std::max(now, n.own_down_at - pool.spec.notice);
  n.own_notice = engine_.schedule_at<&SpotMarket::on_own_notice>(notice_at, this, arg_of(p, i), PRIORITY_NODE);
}

void SpotMarket::on_own_notice(std::uint64_t arg) {
  const std::size_t p = pool_of(arg);
  const std::uint32_t i = node_of(arg);
  GCSIM_CHECK(pools_[p].nodes[i].phase == Phase::Up,
              "a notice for a node of pool '" + pools_[p].spec.name + "' that is not up");
  give_notice(p, i, pools_[p].nodes[i].own_down_at);
}

void SpotMarket::give_notice(std::size_t p, std::uint32_t i, sim::SimTime down_at) {
  Pool& pool = pools_[p];
  Node& n = pool.nodes[i];
  GCSIM_CHECK(n.phase == Phase::Up && down_at >= engine_.now(),
              "a notice for a node of pool '" + pool.spec.name + "' that is not up, or for a past instant");
  engine_.cancel(n.own_notice);
  n.phase = Phase::Noticed;
  --pool.up_live;
  ++pool.noticed;
  ++pool.counters.notices;
  sink_.notice(pool.spec.first_node + i, down_at);
  n.down_event = engine_.schedule_at<&SpotMarket::on_down>(down_at, this, arg_of(p, i), PRIORITY_NODE);
}

void SpotMarket::on_down(std::uint64_t arg) {
  const std::size_t p = pool_of(arg);
  const std::uint32_t i = node_of(arg);
  Pool& pool = pools_[p];
  Node& n = pool.nodes[i];
  GCSIM_CHECK(n.phase == Phase::Noticed, "a node of pool '" + pool.spec.name + "' goes down without a notice");
  n.phase = Phase::Waiting;
  --pool.noticed;
  ++pool.counters.interruptions;
  sink_.down(pool.spec.first_node + i, NodeReason::SpotInterruption);
  pool.waiting.push_back(i);
  std::push_heap(pool.waiting.begin(), pool.waiting.end(), std::greater<>());
  try_acquire(p);
}

void SpotMarket::on_up(std::uint64_t arg) {
  const std::size_t p = pool_of(arg);
  const std::uint32_t i = node_of(arg);
  Pool& pool = pools_[p];
  GCSIM_CHECK(pool.nodes[i].phase == Phase::Provisioning,
              "a node of pool '" + pool.spec.name + "' comes up without being provisioned");
  Node& n = pool.nodes[i];
  n.phase = Phase::Up;
  --pool.provisioning;
  ++pool.up_live;
  if (!n.scale_out) ++pool.counters.replacements;
  sink_.up(pool.spec.first_node + i, n.scale_out ? NodeReason::ScaleOut : NodeReason::SpotReplacement);
  start_own_process(p, i);
  // Inside an announced drop's notice window: a node that would exceed it is noticed now.
  for (const PendingDrop& d : pool.pending) {
    if (d.at >= engine_.now() && pool.up_live > d.capacity) {
      give_notice(p, i, d.at);
      break;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Correlated events

// Draws the next event time (a Poisson process of events, independent of the pool's state)
// and schedules its announcement `notice` before it.
void SpotMarket::schedule_next_correlated(std::size_t p) {
  Pool& pool = pools_[p];
  const CorrelatedSpec& c = *pool.spec.interruptions.correlated;
  pool.correlated_at =
      pool.correlated_at.saturating_add(sim::SimTime::from_seconds(pool.correlated_times.exponential(1.0 / c.rate_per_s)));
  if (pool.correlated_at.is_max()) return;
  const sim::SimTime announce = std::max(engine_.now(), pool.correlated_at - pool.spec.notice);
  engine_.schedule_at<&SpotMarket::on_correlated>(announce, this, p, PRIORITY_ANNOUNCE);
}

void SpotMarket::on_correlated(std::uint64_t p) {
  Pool& pool = pools_[p];
  ++pool.counters.correlated_events;
  const double fraction = pool.spec.interruptions.correlated->fraction;
  pool.scratch.clear();
  for (std::uint32_t i = 0; i < pool.nodes.size(); ++i)
    if (pool.nodes[i].phase == Phase::Up) pool.scratch.push_back(i);
  const std::size_t n = pool.scratch.size();
  const std::size_t k = std::min(n, static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(n) - 1e-9)));
  // A uniform k-subset: the first k steps of a Fisher-Yates shuffle.
  for (std::size_t j = 0; j < k; ++j) {
    const std::size_t pick = j + static_cast<std::size_t>(pool.correlated_victims.uniform_int(n - j));
    std::swap(pool.scratch[j], pool.scratch[pick]);
  }
  std::sort(pool.scratch.begin(), pool.scratch.begin() + static_cast<std::ptrdiff_t>(k));
  for (std::size_t j = 0; j < k; ++j) give_notice(p, pool.scratch[j], pool.correlated_at);
  schedule_next_correlated(p);
}

}  // namespace gcsim::models
