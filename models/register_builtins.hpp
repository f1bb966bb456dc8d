// The registries of built-in components, filled explicitly (static self-registration gets
// dropped by linkers). Only scheduling policies register here: interruption processes,
// fabrics and pricing schemes are still chosen by fixed enums in their spec readers
// (spot_spec.cpp, topology_spec.cpp, price_spec.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/scheduler/scheduler.hpp"
#include "sim/registry.hpp"

namespace gcsim::models {

using SchedulerRegistry = sim::Registry<std::unique_ptr<Scheduler>, const SchedulerSpec&>;

struct Builtins {
  SchedulerRegistry schedulers;
};

void register_builtins(Builtins& builtins);
// The filled registries, built once per process on first use (read-only afterwards).
const Builtins& builtins();
std::vector<std::string> scheduler_names();

}  // namespace gcsim::models
