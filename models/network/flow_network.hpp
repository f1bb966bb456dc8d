// The flow-level network as a rate-shared engine resource (sim/resource_model.hpp).
//
// A flow of S bytes started at t0 over links l1..lk first waits the sum of the links'
// latencies (the latency phase: propagation plus switching, alpha in the alpha-beta model),
// then competes for bandwidth: all flows in their transfer phase share link capacity by
// max-min fairness (maxmin.hpp), recomputed when a flow enters or leaves its transfer
// phase. A flow finishes when its remaining bytes reach zero:
//   finish = t_last + ceil(remaining(t_last) / rate * 1e9) ns
// where t_last is the last instant its rate changed. Rounding up keeps a finish from
// preceding its true time (by more than 1e-12 relative, the allowance made for double
// rounding, see transfer_ns); a finish is decided by the
// completion entry that predicted it, not by testing remaining <= 0, so a residue of a few
// bytes cannot make the model loop.
//
// The latency phase is internal (no engine event): the model's next_event_time() is the
// earliest of its next activation and its next completion. A flow started with zero
// latency is activated at the next advance_to(now), so flows started together (a
// collective's phase) share one rate recomputation.
//
// Completions are reported through the `finished` signal and an optional per-flow
// callback, both called after the model's state is updated, at the finish instant.
// Callbacks may start new flows. Register the model with engine.add_resource_model(&net);
// it must outlive the run.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/topology/link_id.hpp"
#include "sim/activity.hpp"
#include "sim/engine.hpp"
#include "sim/maxmin.hpp"
#include "sim/resource_model.hpp"
#include "sim/signal.hpp"
#include "sim/time.hpp"

namespace gcsim::topology {
class Topology;
}

namespace gcsim::network {

// A link's id: the topology's number of it, which is also its resource in the solver
// (FlowNetwork::add_links adds them in that order).
using topology::LinkId;
using sim::SolverFlow;

// (generation << 32) | slot: unique for the model's life, stale after the flow ends.
using FlowId = std::uint64_t;

struct FlowDone {
  FlowId id;
  std::uint64_t tag;     // the caller's value given to start_flow
  sim::SimTime start;    // when start_flow was called
  sim::SimTime finish;   // when the last byte arrived
  double bytes;
};

struct FlowCallback {
  void (*fn)(void* context, const FlowDone& done) = nullptr;
  void* context = nullptr;
};

struct LinkStats {
  double bytes = 0;          // bytes carried up to the query time (all directions sharing it)
  sim::SimTime busy;         // time with at least one flow in transfer phase
  double utilization = 0;    // time-weighted: bytes / (capacity * elapsed)
};

class FlowNetwork final : public sim::ResourceModel {
 public:
  explicit FlowNetwork(sim::Engine& engine) : engine_(engine) {}
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  // A directed link resource (a full-duplex cable is two; a half-duplex one is one
  // resource that both directions' paths name). bytes_per_s > 0, latency >= 0.
  LinkId add_link(double bytes_per_s, sim::SimTime latency);
  // Adds every link resource of `topo` in its order, so the topology's link ids name the
  // same links here; the network must have no links yet.
  void add_links(const topology::Topology& topo);
  std::size_t link_count() const { return capacity_.size(); }
  double link_capacity(LinkId l) const { return capacity_[l]; }
  sim::SimTime link_latency(LinkId l) const { return latency_[l]; }

  // Starts a flow of `bytes` (>= 0) at engine.now() over `path` (link ids; empty means
  // same endpoint: it finishes after no latency, at the next advance).
  FlowId start_flow(std::span<const LinkId> path, double bytes, std::uint64_t tag = 0,
                    FlowCallback callback = {});
  // Removes a flow without reporting it. False when it already finished or was cancelled.
  bool cancel_flow(FlowId id);
  bool is_live(FlowId id) const;
  // Current rate in bytes/s (0 during the latency phase).
  double rate(FlowId id) const;

  sim::SimTime next_event_time() const override;
  void advance_to(sim::SimTime now) override;

  sim::Signal<const FlowDone&> finished;

  LinkStats link_stats(LinkId l, sim::SimTime now) const;
  std::size_t live_flows() const { return live_count_; }
  std::size_t transferring_flows() const { return solver_.active_flows(); }
  std::uint64_t recomputations() const { return solver_.recomputations(); }
  std::uint64_t flows_recomputed() const { return solver_.flows_recomputed(); }
  std::uint64_t flows_finished() const { return flows_finished_; }

 private:
  enum class Phase : std::uint8_t { Free, Latency, Transfer };
  struct Rec {
    std::vector<LinkId> path;
    double bytes = 0;
    // Bytes left, rate, their instant and the predicted finish. Its finish is reached
    // through the model's completion heap (next_event_time), not an engine event.
    sim::Activity work;
    std::uint64_t serial = 0;     // start order: ties between equal instants
    std::uint64_t tag = 0;
    sim::SimTime start;
    FlowCallback callback;
    std::uint32_t generation = 0;
    std::uint32_t version = 0;    // bumped on every rate change; stale heap entries skip
    SolverFlow solver_flow = 0;
    Phase phase = Phase::Free;
  };
  struct TimedEntry {
    std::int64_t t_ns;
    std::uint64_t serial;
    std::uint32_t slot;
    std::uint32_t stamp;  // version (completions) or generation (activations)
  };

  void settle(Rec& r, std::int64_t t_ns);  // books r.work up to t_ns and what its links carried
  void push_completion(std::uint32_t slot);
  void end_transfer(std::uint32_t slot, std::int64_t t_ns);
  void apply_rates(std::int64_t t_ns);
  void release(std::uint32_t slot);
  void drop_stale_tops();
  static void heap_push(std::vector<TimedEntry>& h, const TimedEntry& e);
  static void heap_pop(std::vector<TimedEntry>& h);
  bool completion_valid(const TimedEntry& e) const;
  bool activation_valid(const TimedEntry& e) const;
  void compact_completions();

  sim::Engine& engine_;
  sim::MaxMinSolver solver_;
  std::vector<double> capacity_;
  std::vector<sim::SimTime> latency_;
  std::vector<double> link_bytes_;
  std::vector<std::int64_t> link_busy_ns_;
  std::vector<std::int64_t> link_busy_since_ns_;
  std::vector<std::uint32_t> link_active_;

  std::vector<Rec> recs_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::uint32_t> owner_;  // solver flow -> slot
  std::vector<TimedEntry> completions_;
  std::vector<TimedEntry> activations_;
  std::vector<FlowDone> done_;
  std::vector<FlowDone> emitting_;
  std::vector<std::pair<FlowCallback, FlowDone>> callbacks_;
  std::uint64_t next_serial_ = 0;
  std::size_t live_count_ = 0;
  std::uint64_t flows_finished_ = 0;
  std::int64_t now_ns_ = 0;
};

}  // namespace gcsim::network
