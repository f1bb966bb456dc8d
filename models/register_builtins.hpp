// The registries of built-in components, filled explicitly (static self-registration gets
// dropped by linkers): scheduling policies and placement strategies, and the parts a run is
// composed of (models/run/component.hpp: model speeds, cost meter, budgets, trace, spot
// market, network, storage). Interruption processes, fabrics and pricing schemes are still
// chosen by fixed enums in their spec readers (spot_spec.cpp, topology_spec.cpp,
// price_spec.cpp).
//
// builtins() is the one filled instance the front end passes down. The loader never
// reaches for it itself, so a test may pass a registry of its own; a run takes its parts
// from RunOptions::parts when set, else from builtins().components.
#pragma once

#include "models/run/component.hpp"
#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::models {

struct Builtins {
  SchedulerRegistry schedulers;
  ComponentRegistry components;
};

void register_builtins(Builtins& builtins);
// The filled registries, built once per process on first use (read-only afterwards).
const Builtins& builtins();

}  // namespace gcsim::models
