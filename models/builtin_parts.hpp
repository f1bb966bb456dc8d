// The registry entries of the built-in parts of a run that are not controllers: model
// speeds, the cost meter, the trace recorder, the spot market, the network and storage
// (budgets: models/controllers/budgets.hpp). Each adapts an existing model object to the
// Component interface and decides from the scenario whether a run needs it; register_builtins()
// adds them. The model objects themselves know nothing of components.
#pragma once

#include "models/run/component.hpp"

namespace gcsim::models {

ComponentEntry model_speeds_component();  // always
ComponentEntry cost_meter_component();    // always
ComponentEntry trace_component();         // when the run writes a trace
ComponentEntry spot_market_component();   // when a node type is a spot pool
ComponentEntry network_component();       // with a `network:` section
ComponentEntry storage_component();       // with a `storage:` section
// The metrics sampler (models/controllers/metrics_sampler.hpp), with `output.metrics` and a
// trace: here because it makes the trace's /metrics table, which its package cannot.
ComponentEntry metrics_component();
// The inter-node latency sampler (models/controllers/network_latency.hpp), with
// `output.metrics`, a trace and a `network:` section: it makes the trace's /node_latency
// table.
ComponentEntry network_latency_component();

}  // namespace gcsim::models
