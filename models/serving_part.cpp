// The serving part as a part of a run (models/run/component.hpp): built when the workload has
// services; it reports through the ServiceSink part built before it, if any, and adds each
// service's totals (and a note of refused requests) to the run's summary.
#include "models/serving_part.hpp"

#include <memory>

#include "models/services/serving_controller.hpp"
#include "models/simulation.hpp"

namespace gcsim::models {

namespace {

class ServingPart final : public Component {
 public:
  explicit ServingPart(RunContext& ctx)
      : controller_(ctx, ctx.find<serving::ServiceSink>(), ctx.find<ReplicaCostProvider>()), scenario_(ctx.scenario) {}
  void start() override { controller_.start(); }
  void finish(RunSummary& summary) override {
    controller_.finish(summary);
    summary.services = controller_.totals();
    const auto refused = controller_.refused();
    for (std::size_t i = 0; i < refused.size(); ++i)
      if (refused[i] > 0)
        summary.notes.push_back("service '" + scenario_.workload.services[i].name + "': " + std::to_string(refused[i]) +
                                " requests refused: longer than the model's context, a replica's KV cache or max_tokens");
  }

 private:
  ServingController controller_;
  const Scenario& scenario_;
};

}  // namespace

ComponentEntry serving_component() {
  return {"services", "services' requests, batching and replicas on the cluster (`workload.services`, docs/serving.md)",
          BUILD_SERVICES, [](RunContext& ctx) -> std::unique_ptr<Component> {
            if (ctx.scenario.workload.services.empty()) return nullptr;
            return std::make_unique<ServingPart>(ctx);
          }};
}

}  // namespace gcsim::models
