// Autoscaling node pools (docs/autoscaling.md): a controller that grows and shrinks each
// node type with `autoscale:` within its min..max, on its scale-out and scale-in triggers
// held for their `for`, by `by` nodes a decision, no two decisions of a pool within its
// cooldown, to the clock's size at each change of its `schedule:`. It observes the cluster
// (through PoolGauges and per-node idle times) and acts only from its own events at
// PRIORITY_AUTOSCALE, after the scheduling pass of the instant (docs/engine.md,
// "Controllers"): Cluster::request_node (provisioning, then up), drain_node (no new jobs;
// released when its last job ends, at once when idle).
//
// The algorithm, per pool, at each instant something it watches changed, and at the times a
// held trigger or a cooldown runs out (never by polling):
//   1. the clock: at a change of the schedule's size, request or drain nodes to reach it;
//   2. scale out: the trigger's measure (waiting_gpus: less the GPUs of nodes still
//      provisioning, demand already answered) holds since `since`; when now - since >= for
//      and the cooldown is over, request min(by, max - nodes) nodes;
//      A pool named as another's `fallback` counts the demand both could host only once
//      that one cannot grow: at its max, or (a spot pool) its market has no capacity now
//      (less what its provisioning nodes answer); a decision that only this spilled demand
//      triggered is recorded with the trigger `fallback`;
//      a spot pool gets no more nodes than its market can supply now (Cluster::spot_supply);
//      with none, its request is unmet: no decision, and it asks again when the market's
//      capacity may rise (Cluster::next_supply_change), not before;
//   3. a budget's give-back: the idle nodes that jobs stopped by a `stop_instances` budget
//      held are drained at once (no `for`, no cooldown), never below the floor, not while the
//      scale-out trigger holds; recorded with the trigger `budget`;
//   4. scale in: `idle`: up nodes with no job for `for` or more are drained (released at
//      once), longest idle first, at most `by`, never below the floor (min, or the clock's
//      size in a window); a measure (`gpu_utilization < 30%`): held for `for`, drain `by`
//      nodes, idle ones first, then those holding the fewest GPUs.
// Every decision is recorded (decisions(), the signal `decided`, the trace's
// /scale_decisions) with its trigger and the measure's value.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/controllers/pool_gauges.hpp"
#include "models/run/component.hpp"
#include "sim/signal.hpp"

namespace gcsim::models {

enum class ScaleDirection : std::uint8_t { Out = 0, In = 1 };

struct ScaleDecision {
  sim::SimTime time;
  int pool = 0;  // node type index
  ScaleDirection direction = ScaleDirection::Out;
  TriggerKind trigger = TriggerKind::WaitingGpus;
  double value = 0;    // the trigger's measure when it decided (GPUs, or a share 0..1; idle: idle nodes)
  int nodes = 0;       // nodes requested or drained
  int size_before = 0; // nodes provisioning or up (not draining) before
  int size_after = 0;  // and after
};

class Autoscaler final : public Controller {
 public:
  // `speeds` (may be null) sizes model-described jobs' busy share and memory (PoolGauges).
  Autoscaler(sim::Engine& engine, const Scenario& scenario, Cluster& cluster, const ModelSpeeds* speeds = nullptr);
  void start() override;

  const std::vector<ScaleDecision>& decisions() const { return decisions_; }
  // Evaluations at which a spot pool's scale-out held, its cooldown was over and it had room,
  // but its market had no capacity (nothing was asked: the demand went to its fallback).
  std::uint64_t unmet(int type) const;
  const PoolGauges& gauges() const { return gauges_; }
  // Nodes provisioning or up, not draining: the size a decision counts.
  int size(int type) const;

  sim::Signal<const ScaleDecision&> decided;
  // After each evaluation of every pool (once per instant at which something it watches
  // changed, after the scheduling pass): the pools' figures are final for now.
  sim::Signal<sim::SimTime> evaluated;
  // The node types with `autoscale:`, in order.
  std::vector<int> pools() const;

 private:
  struct PoolState {
    int type = -1;
    const AutoscaleSpec* spec = nullptr;
    std::uint32_t first_node = 0;
    int slots = 0;
    int gpus_per_node = 0;
    bool spot = false;        // its slots are a spot market's
    sim::SimTime out_since = sim::SimTime::max();  // the scale-out trigger holds since
    sim::SimTime in_since = sim::SimTime::max();   // a measured scale-in trigger holds since
    sim::SimTime last_decision = sim::SimTime::max();  // max(): none yet
    sim::SimTime wake_at = sim::SimTime::max();        // the earliest pending evaluation
    int scheduled = -1;       // the clock's size last applied (-1: none yet)
    std::int64_t fallback_pair = -1;  // PoolGauges pair with its fallback pool
    std::uint64_t unmet = 0;          // see unmet()
  };

  void on_evaluate(std::uint64_t pool);
  void on_schedule_change(std::uint64_t pool);
  void request_evaluation();
  void evaluate(PoolState& p);
  void wake(PoolState& p, sim::SimTime at);
  // The trigger's measure now; for waiting_gpus, `spilled` (when given) is the part of it
  // that preferred pools at their max sent on (fallback).
  double measure(const PoolState& p, const TriggerSpec& t, double* spilled = nullptr) const;
  bool cooling(const PoolState& p) const;
  int floor_of(const PoolState& p) const;
  void scale_out(PoolState& p, int n, TriggerKind why, double value);
  void scale_in(PoolState& p, int n, TriggerKind why, double value, bool idle_only, sim::SimTime idle_for);
  void record(PoolState& p, ScaleDirection d, TriggerKind why, double value, int nodes, int before);
  // Drains the idle nodes a budget's stop_instances marked (give_back_), down to the floor.
  void give_back(PoolState& p);
  void job_moved(const Job& j);

  const Scenario& scenario_;
  Cluster& cluster_;
  PoolGauges gauges_;
  std::vector<PoolState> pools_;
  std::vector<int> pool_of_type_;        // -1 for a fixed pool
  std::vector<sim::SimTime> idle_since_;  // per node: up with no job since (max(): not idle)
  // Per node: a job its team's budget stopped (stop_instances) held it, and no job started on
  // it since: given back as soon as it is idle. Per team: its budget's action is stop_instances.
  std::vector<char> give_back_;
  std::vector<char> give_back_team_;
  std::vector<ScaleDecision> decisions_;
  std::vector<std::uint32_t> scratch_;
  bool evaluation_pending_ = false;
};

}  // namespace gcsim::models
