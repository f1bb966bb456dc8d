// The autoscaler as a part of a run (models/run/component.hpp): built when a node type has
// `autoscale:`, with its trace tables when the run writes a trace.
#include "models/autoscale_part.hpp"

#include <algorithm>
#include <memory>

#include "models/controllers/autoscaler.hpp"
#include "models/simulation.hpp"
#include "models/trace/autoscale_tables.hpp"

namespace gcsim::models {

namespace {

class AutoscalePart final : public Component {
 public:
  explicit AutoscalePart(RunContext& ctx) : scaler(ctx.engine, ctx.scenario, ctx.cluster, ctx.speeds) {
    if (ctx.trace) recorder_ = std::make_unique<AutoscaleRecorder>(*ctx.trace, ctx.scenario, scaler);
  }
  void start() override { scaler.start(); }
  Autoscaler scaler;

 private:
  std::unique_ptr<AutoscaleRecorder> recorder_;
};

}  // namespace

ComponentEntry autoscaler_component() {
  return {"autoscaler", "elastic node pools (`autoscale:` on a node type): scale out, scale in, schedules (docs/autoscaling.md)",
          BUILD_EXTENSIONS, [](RunContext& ctx) -> std::unique_ptr<Component> {
            const auto& types = ctx.scenario.cluster.node_types;
            if (std::none_of(types.begin(), types.end(), [](const NodeTypeSpec& t) { return t.autoscale.has_value(); }))
              return nullptr;
            return std::make_unique<AutoscalePart>(ctx);
          }};
}

}  // namespace gcsim::models
