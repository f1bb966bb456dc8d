// The registries of built-in components, filled explicitly (static self-registration gets
// dropped by linkers). Only scheduling policies and placement strategies register here:
// interruption processes, fabrics and pricing schemes are still chosen by fixed enums in
// their spec readers (spot_spec.cpp, topology_spec.cpp, price_spec.cpp).
//
// builtins() is the one filled instance the front end passes down; the loader and the run
// never reach for it themselves, so a test may pass a registry of its own.
#pragma once

#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::models {

struct Builtins {
  SchedulerRegistry schedulers;
};

void register_builtins(Builtins& builtins);
// The filled registries, built once per process on first use (read-only afterwards).
const Builtins& builtins();

}  // namespace gcsim::models
