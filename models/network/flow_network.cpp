// The flow-level network resource; see flow_network.hpp for the model.
#include "models/network/flow_network.hpp"

#include <algorithm>
#include <limits>

#include "models/topology/topology.hpp"
#include "sim/check.hpp"

namespace gcsim::network {

namespace {
constexpr std::int64_t NEVER = std::numeric_limits<std::int64_t>::max();

bool entry_after(const auto& a, const auto& b) {
  return a.t_ns > b.t_ns || (a.t_ns == b.t_ns && a.serial > b.serial);
}

}  // namespace

void FlowNetwork::heap_push(std::vector<TimedEntry>& h, const TimedEntry& e) {
  h.push_back(e);
  std::push_heap(h.begin(), h.end(), [](const TimedEntry& a, const TimedEntry& b) { return entry_after(a, b); });
}

void FlowNetwork::heap_pop(std::vector<TimedEntry>& h) {
  std::pop_heap(h.begin(), h.end(), [](const TimedEntry& a, const TimedEntry& b) { return entry_after(a, b); });
  h.pop_back();
}

LinkId FlowNetwork::add_link(double bytes_per_s, sim::SimTime latency) {
  GCSIM_CHECK(bytes_per_s > 0 && latency >= sim::SimTime::zero(), "a link needs a positive bandwidth and a latency >= 0");
  const LinkId id = solver_.add_resource(bytes_per_s);
  capacity_.push_back(bytes_per_s);
  latency_.push_back(latency);
  link_bytes_.push_back(0);
  link_busy_ns_.push_back(0);
  link_busy_since_ns_.push_back(0);
  link_active_.push_back(0);
  return id;
}

void FlowNetwork::add_links(const topology::Topology& topo) {
  GCSIM_CHECK(link_count() == 0, "add_links on a flow network that already has links (ids would not match the topology's)");
  for (const topology::LinkResource& l : topo.links()) add_link(l.bytes_per_s, l.latency);
}

FlowId FlowNetwork::start_flow(std::span<const LinkId> path, double bytes, std::uint64_t tag,
                               FlowCallback callback) {
  GCSIM_CHECK(bytes >= 0, "a flow of " + std::to_string(bytes) + " bytes");
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(recs_.size());
    recs_.emplace_back();
  }
  Rec& r = recs_[slot];
  r.path.assign(path.begin(), path.end());
  sim::SimTime latency = sim::SimTime::zero();
  for (const LinkId l : path) {
    GCSIM_CHECK(l < capacity_.size(), "flow path names link " + std::to_string(l) + " of " + std::to_string(capacity_.size()));
    latency += latency_[l];
  }
  r.bytes = bytes;
  r.work.remaining = bytes;
  r.work.rate = 0;
  r.serial = next_serial_++;
  r.tag = tag;
  // now_ns_ guards against an engine that advanced this model past its own clock.
  r.start = sim::SimTime::from_ns(std::max(engine_.now().ns(), now_ns_));
  r.callback = callback;
  r.phase = Phase::Latency;
  ++live_count_;
  heap_push(activations_, TimedEntry{(r.start + latency).ns(), r.serial, slot, r.generation});
  return (static_cast<FlowId>(r.generation) << 32) | slot;
}

bool FlowNetwork::is_live(FlowId id) const {
  const auto slot = static_cast<std::uint32_t>(id & 0xffffffffu);
  const auto generation = static_cast<std::uint32_t>(id >> 32);
  return slot < recs_.size() && recs_[slot].phase != Phase::Free && recs_[slot].generation == generation;
}

double FlowNetwork::rate(FlowId id) const {
  return is_live(id) ? recs_[static_cast<std::uint32_t>(id & 0xffffffffu)].work.rate : 0.0;
}

bool FlowNetwork::completion_valid(const TimedEntry& e) const {
  const Rec& r = recs_[e.slot];
  return r.phase == Phase::Transfer && r.version == e.stamp;
}

bool FlowNetwork::activation_valid(const TimedEntry& e) const {
  const Rec& r = recs_[e.slot];
  return r.phase == Phase::Latency && r.generation == e.stamp;
}

void FlowNetwork::drop_stale_tops() {
  while (!completions_.empty() && !completion_valid(completions_.front())) heap_pop(completions_);
  while (!activations_.empty() && !activation_valid(activations_.front())) heap_pop(activations_);
}

sim::SimTime FlowNetwork::next_event_time() const {
  std::int64_t t = NEVER;
  if (!completions_.empty()) t = completions_.front().t_ns;
  if (!activations_.empty()) t = std::min(t, activations_.front().t_ns);
  return sim::SimTime::from_ns(t);
}

void FlowNetwork::settle(Rec& r, std::int64_t t_ns) {
  const sim::SimTime t = sim::SimTime::from_ns(t_ns);
  if (t > r.work.updated && r.work.rate > 0) {
    const double moved = r.work.settle(t);
    for (const LinkId l : r.path) link_bytes_[l] += moved;
  }
  r.work.updated = t;
}

void FlowNetwork::push_completion(std::uint32_t slot) {
  Rec& r = recs_[slot];
  r.work.finish = r.work.predict_finish();
  if (r.work.finish.is_max()) return;
  heap_push(completions_, TimedEntry{r.work.finish.ns(), r.serial, slot, r.version});
}

void FlowNetwork::end_transfer(std::uint32_t slot, std::int64_t t_ns) {
  Rec& r = recs_[slot];
  settle(r, t_ns);
  // The completion entry decided the finish; whatever rounding left over was carried too.
  for (const LinkId l : r.path) link_bytes_[l] += r.work.remaining;
  r.work.remaining = 0;
  solver_.remove_flow(r.solver_flow);
  for (const LinkId l : r.path) {
    if (--link_active_[l] == 0) link_busy_ns_[l] += t_ns - link_busy_since_ns_[l];
  }
}

void FlowNetwork::release(std::uint32_t slot) {
  Rec& r = recs_[slot];
  r.phase = Phase::Free;
  ++r.generation;
  ++r.version;
  free_slots_.push_back(slot);
  --live_count_;
}

void FlowNetwork::apply_rates(std::int64_t t_ns) {
  for (const SolverFlow f : solver_.solve()) {
    const std::uint32_t slot = owner_[f];
    Rec& r = recs_[slot];
    const double new_rate = solver_.rate(f);
    if (new_rate == r.work.rate) continue;
    settle(r, t_ns);
    r.work.rate = new_rate;
    ++r.version;
    push_completion(slot);
  }
  compact_completions();
}

void FlowNetwork::compact_completions() {
  // Stale entries pile up when rates change often; rebuild when they dominate.
  if (completions_.size() < 1024 || completions_.size() < 4 * solver_.active_flows()) return;
  std::erase_if(completions_, [this](const TimedEntry& e) { return !completion_valid(e); });
  std::make_heap(completions_.begin(), completions_.end(),
                 [](const TimedEntry& a, const TimedEntry& b) { return entry_after(a, b); });
}

void FlowNetwork::advance_to(sim::SimTime now) {
  GCSIM_CHECK(now.ns() >= now_ns_, "flow network advanced backwards, to " + std::to_string(now.ns()) + " ns from " + std::to_string(now_ns_) + " ns");
  drop_stale_tops();
  for (;;) {
    const std::int64_t t = next_event_time().ns();
    if (t > now.ns() || t == NEVER) break;
    now_ns_ = t;
    done_.clear();
    while (!completions_.empty() && completions_.front().t_ns == t) {
      const TimedEntry e = completions_.front();
      heap_pop(completions_);
      if (!completion_valid(e)) continue;
      end_transfer(e.slot, t);
      const Rec& r = recs_[e.slot];
      done_.push_back(FlowDone{(static_cast<FlowId>(r.generation) << 32) | e.slot, r.tag, r.start,
                               sim::SimTime::from_ns(t), r.bytes});
    }
    while (!activations_.empty() && activations_.front().t_ns == t) {
      const TimedEntry e = activations_.front();
      heap_pop(activations_);
      if (!activation_valid(e)) continue;
      Rec& r = recs_[e.slot];
      if (r.bytes <= 0 || r.path.empty()) {
        for (const LinkId l : r.path) link_bytes_[l] += r.bytes;
        r.phase = Phase::Transfer;  // for release() symmetry; never enters the solver
        done_.push_back(FlowDone{(static_cast<FlowId>(r.generation) << 32) | e.slot, r.tag, r.start,
                                 sim::SimTime::from_ns(t), r.bytes});
        continue;
      }
      r.phase = Phase::Transfer;
      r.work.rate = 0;
      r.work.updated = sim::SimTime::from_ns(t);
      ++r.version;
      r.solver_flow = solver_.add_flow(r.path);
      if (owner_.size() <= r.solver_flow) owner_.resize(r.solver_flow + 1);
      owner_[r.solver_flow] = e.slot;
      for (const LinkId l : r.path) {
        if (link_active_[l]++ == 0) link_busy_since_ns_[l] = t;
      }
    }
    apply_rates(t);
    // Report in start order; slots are freed first so callbacks may reuse them.
    std::sort(done_.begin(), done_.end(), [this](const FlowDone& a, const FlowDone& b) {
      return recs_[a.id & 0xffffffffu].serial < recs_[b.id & 0xffffffffu].serial;
    });
    emitting_.swap(done_);
    callbacks_.clear();
    for (const FlowDone& d : emitting_) {
      const auto slot = static_cast<std::uint32_t>(d.id & 0xffffffffu);
      if (recs_[slot].callback.fn != nullptr) callbacks_.emplace_back(recs_[slot].callback, d);
      release(slot);
    }
    flows_finished_ += emitting_.size();
    drop_stale_tops();
    for (const auto& [cb, d] : callbacks_) cb.fn(cb.context, d);
    for (const FlowDone& d : emitting_) finished.emit(d);
    drop_stale_tops();
  }
}

bool FlowNetwork::cancel_flow(FlowId id) {
  if (!is_live(id)) return false;
  const auto slot = static_cast<std::uint32_t>(id & 0xffffffffu);
  Rec& r = recs_[slot];
  if (r.phase == Phase::Transfer) {
    const std::int64_t t = std::max(now_ns_, engine_.now().ns());
    // Count only what was really carried: settle, then forget the rest.
    settle(r, t);
    r.work.remaining = 0;
    solver_.remove_flow(r.solver_flow);
    for (const LinkId l : r.path) {
      if (--link_active_[l] == 0) link_busy_ns_[l] += t - link_busy_since_ns_[l];
    }
    release(slot);
    apply_rates(t);
  } else {
    release(slot);
  }
  drop_stale_tops();
  return true;
}

LinkStats FlowNetwork::link_stats(LinkId l, sim::SimTime now) const {
  LinkStats s;
  s.bytes = link_bytes_[l];
  for (std::size_t i = 0; i < solver_.crossings(l); ++i) {
    const Rec& r = recs_[owner_[solver_.crossing_flow(l, i)]];
    if (now > r.work.updated) s.bytes += r.work.done_by(now);
  }
  std::int64_t busy = link_busy_ns_[l];
  if (link_active_[l] > 0 && now.ns() > link_busy_since_ns_[l]) busy += now.ns() - link_busy_since_ns_[l];
  s.busy = sim::SimTime::from_ns(busy);
  s.utilization = now.ns() > 0 ? s.bytes / (capacity_[l] * now.seconds()) : 0.0;
  return s;
}

}  // namespace gcsim::network
