// The parts a run is composed of (see component.hpp).
#include "models/run/component.hpp"

#include <algorithm>
#include <utility>

#include "models/core/event_priorities.hpp"
#include "sim/check.hpp"

namespace gcsim::models {

Controller::Controller(sim::Engine& engine, int priority) : engine_(engine), priority_(priority) {
  GCSIM_CHECK(priority > PRIORITY_STATE && priority < PRIORITY_END,
              "a controller's priority " + std::to_string(priority) + " is not between the cluster's transitions (" +
                  std::to_string(PRIORITY_STATE) + ") and the end of the run (" + std::to_string(PRIORITY_END) +
                  "), exclusive (models/core/event_priorities.hpp)");
}

sim::RngStream RunContext::stream(std::string_view name) {
  GCSIM_CHECK(streams_.emplace(name).second,
              "the random stream '" + std::string(name) + "' is claimed twice in one run");
  return sim::RngStream(seed, replication, name);
}

void ComponentRegistry::add(ComponentEntry entry) {
  GCSIM_CHECK(static_cast<bool>(entry.factory), "component '" + entry.name + "' has no factory");
  registry_.add(entry.name, std::move(entry.description), std::move(entry.factory));
  build_order_[entry.name] = entry.build_order;
}

std::vector<std::string> ComponentRegistry::build_order() const {
  std::vector<std::string> names = registry_.names();  // by name
  std::stable_sort(names.begin(), names.end(),
                   [&](const std::string& a, const std::string& b) { return build_order_.at(a) < build_order_.at(b); });
  return names;
}

void ComponentRegistry::build(RunContext& ctx, std::vector<std::unique_ptr<Component>>& parts) const {
  for (const std::string& name : build_order()) {
    std::unique_ptr<Component> part = registry_.find(name)->factory(ctx);
    if (!part) continue;
    ctx.add_built(*part);
    parts.push_back(std::move(part));
  }
}

}  // namespace gcsim::models
