// The priorities of the model layer's events at one instant. The engine runs events in
// (time, priority, sequence) order, lower priority first (sim/engine.hpp); these constants
// say what must have happened before what at one instant, and why: docs/engine.md,
// "Controllers". Markets come before all of them (models/spot/spot_market.hpp: -1000 to 0).
#pragma once

namespace gcsim::models {

// The cluster's own transitions: arrivals, finishes, checkpoints; a market's node events
// run at the same priority (SpotMarket::PRIORITY_NODE).
inline constexpr int PRIORITY_STATE = 0;
// A budget's stop_running ends a run once its last checkpoint is written: after the
// cluster's transitions at that instant (a write that completes then counts).
inline constexpr int PRIORITY_BUDGET_STOP = 1;
// A saving preemption (scheduler.preemption) ends the run once its last checkpoint or save
// is written, at the same point for the same reason.
inline constexpr int PRIORITY_PREEMPT_STOP = 1;
// Controllers act (budgets: checks, holds, period starts; later autoscalers and preempting
// schedulers): after every state change at the instant, so they see its charges and
// stops, and never from inside one; before the scheduling pass, so a hold applies to it.
inline constexpr int PRIORITY_CONTROL = 5;
// One scheduling pass that sees every arrival, finish, stop and hold of the instant.
inline constexpr int PRIORITY_SCHEDULE = 10;
// The end of the run, last: a job finishing exactly at the horizon counts as completed.
inline constexpr int PRIORITY_END = 20;

}  // namespace gcsim::models
