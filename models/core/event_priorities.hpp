// Everything that orders the model layer's work at one instant, in one place:
//  - the priorities of its events. The engine runs events in (time, priority, sequence)
//    order, lower priority first (sim/engine.hpp); these constants say what must have
//    happened before what at one instant, and why (docs/engine.md, "Priorities at one
//    instant", a table that tests/models/run/test_run_components.cpp checks against
//    EVENT_PRIORITIES below);
//  - the order in which the parts of a run see one signal (sim::Signal's connection
//    order; docs/engine.md, "Who sees a signal first", checked against OBSERVER_ORDERS).
// No other file defines a priority or an observer order (the same test looks).
#pragma once

#include <string_view>

namespace gcsim::models {

// ---- Event priorities ----

// A spot market's start runs before anything else at its instant, so no job is placed on a
// node the pool cannot supply.
inline constexpr int PRIORITY_MARKET_START = -1000;
// At a capacity drop's instant: its announcement (when the notice is zero), then the
// capacity change (so that nodes going down then see the new capacity and do not request
// replacements beyond it), then the nodes' downs and ups (PRIORITY_STATE).
inline constexpr int PRIORITY_MARKET_ANNOUNCE = -2;
inline constexpr int PRIORITY_MARKET_CAPACITY = -1;
// The cluster's own transitions: arrivals, finishes, checkpoints; a market's node notices,
// downs and ups, and storage's staging events (a retrieval delay's end), at the same
// priority: with the cluster's state changes, before its scheduling pass.
inline constexpr int PRIORITY_STATE = 0;
// A budget's stop_running ends a run once its last checkpoint is written: after the
// cluster's transitions at that instant (a write that completes then counts).
inline constexpr int PRIORITY_BUDGET_STOP = 1;
// A saving preemption (scheduler.preemption) ends the run once its last checkpoint or save
// is written, at the same point for the same reason.
inline constexpr int PRIORITY_PREEMPT_STOP = 1;
// A drain's deadline (Cluster::drain_node) runs after the planned stops of that instant, so
// that a job whose last checkpoint ends at the deadline stops with it saved, and before the
// controllers, so they see the release.
inline constexpr int PRIORITY_DRAIN_DEADLINE = 2;
static_assert(PRIORITY_BUDGET_STOP < PRIORITY_DRAIN_DEADLINE && PRIORITY_PREEMPT_STOP < PRIORITY_DRAIN_DEADLINE);
// Controllers act (budgets: checks, holds, period starts; later autoscalers and preempting
// schedulers): after every state change at the instant, so they see its charges and
// stops, and never from inside one; before the scheduling pass, so a hold applies to it.
inline constexpr int PRIORITY_CONTROL = 5;
// One scheduling pass that sees every arrival, finish, stop and hold of the instant.
inline constexpr int PRIORITY_SCHEDULE = 10;
// Autoscalers decide after the scheduling pass, so that the demand they see waiting is the
// demand the pass could not place on the capacity there is (what a cluster autoscaler calls
// unschedulable), and the utilization they see includes the jobs the pass started. A node
// they bring up at once gets a pass of its own at the same instant (Cluster::up).
inline constexpr int PRIORITY_AUTOSCALE = 12;
// The first probe of a model job's gradient traffic: after the scheduling pass that
// started the job, so that the storage model has held a staging job's progress before the
// probe looks.
inline constexpr int PRIORITY_NETWORK_PROBE = 15;
// The metrics sampler records the instant's GPU metrics after every change of it (starts,
// stops, nodes, the speeds a network probe set), so a row holds the instant's final values
// (docs/metrics.md).
inline constexpr int PRIORITY_METRICS = 18;
// The end of the run, last: a job finishing exactly at the horizon counts as completed.
inline constexpr int PRIORITY_END = 20;

// ---- Observer orders: who sees a signal first (lower first) ----
// Only what observes signals has an order. ModelSpeeds observes none: the cluster asks it
// for a starting job's speed (RateProvider) before it emits job_started, so every observer
// of job_started already sees the job's speed.

// The cost meter posts a run's charge on job_finished / job_stopped and closes a node's
// session on node_down before anyone reads the spend (budgets, the trace).
inline constexpr int ORDER_COSTS = 100;
// Budgets count a team's spend from the ledger's charges and their running jobs.
inline constexpr int ORDER_BUDGETS = 200;
// The trace records what the cost meter and the budgets made of the same signal.
inline constexpr int ORDER_TRACE = 300;
// The network's traffic of a started or stopped job (duration jobs, then model jobs), and
// the trace's table of finished flows.
inline constexpr int ORDER_NETWORK = 400;
inline constexpr int ORDER_MODEL_TRAFFIC = 410;
inline constexpr int ORDER_FLOW_TRACE = 420;
// Storage: the job's reads, staging and checkpoint writes, then what they cost.
inline constexpr int ORDER_STORAGE = 500;
inline constexpr int ORDER_STORAGE_COSTS = 510;
// Parts added by RunOptions::components or registered later (autoscalers, samplers) pick
// an order of their own; from here on none of the built-in parts observes.
inline constexpr int ORDER_EXTENSIONS = 1000;
// The metrics sampler notes which GPUs a start, stop or node change touched, after
// everything else has seen it (it records them from an event of its own).
inline constexpr int ORDER_METRICS = 1100;

struct NamedOrder {
  std::string_view name;
  int value;
};

// Every constant above, as docs/engine.md's tables list them.
inline constexpr NamedOrder EVENT_PRIORITIES[] = {
    {"PRIORITY_MARKET_START", PRIORITY_MARKET_START},
    {"PRIORITY_MARKET_ANNOUNCE", PRIORITY_MARKET_ANNOUNCE},
    {"PRIORITY_MARKET_CAPACITY", PRIORITY_MARKET_CAPACITY},
    {"PRIORITY_STATE", PRIORITY_STATE},
    {"PRIORITY_BUDGET_STOP", PRIORITY_BUDGET_STOP},
    {"PRIORITY_PREEMPT_STOP", PRIORITY_PREEMPT_STOP},
    {"PRIORITY_DRAIN_DEADLINE", PRIORITY_DRAIN_DEADLINE},
    {"PRIORITY_CONTROL", PRIORITY_CONTROL},
    {"PRIORITY_SCHEDULE", PRIORITY_SCHEDULE},
    {"PRIORITY_AUTOSCALE", PRIORITY_AUTOSCALE},
    {"PRIORITY_NETWORK_PROBE", PRIORITY_NETWORK_PROBE},
    {"PRIORITY_METRICS", PRIORITY_METRICS},
    {"PRIORITY_END", PRIORITY_END},
};
inline constexpr NamedOrder OBSERVER_ORDERS[] = {
    {"ORDER_COSTS", ORDER_COSTS},
    {"ORDER_BUDGETS", ORDER_BUDGETS},
    {"ORDER_TRACE", ORDER_TRACE},
    {"ORDER_NETWORK", ORDER_NETWORK},
    {"ORDER_MODEL_TRAFFIC", ORDER_MODEL_TRAFFIC},
    {"ORDER_FLOW_TRACE", ORDER_FLOW_TRACE},
    {"ORDER_STORAGE", ORDER_STORAGE},
    {"ORDER_STORAGE_COSTS", ORDER_STORAGE_COSTS},
    {"ORDER_EXTENSIONS", ORDER_EXTENSIONS},
    {"ORDER_METRICS", ORDER_METRICS},
};

}  // namespace gcsim::models
