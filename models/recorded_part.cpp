// The as-recorded replay's part (see recorded_part.hpp).
#include "models/recorded_part.hpp"

#include <memory>

#include "models/cluster/cluster.hpp"
#include "models/scheduler/recorded.hpp"
#include "models/simulation.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {

namespace {

class RecordedReplayPart final : public Component {
 public:
  explicit RecordedReplayPart(const RecordedScheduler& policy) : policy_(policy) {}
  void finish(RunSummary& s) override {
    s.notes.push_back("replayed as recorded (policy recorded, whatever scheduler: says): " + policy_.settings());
  }

 private:
  const RecordedScheduler& policy_;
};

}  // namespace

ComponentEntry recorded_replay_component() {
  return {"recorded-replay", "the as-recorded replay's counts (policy `recorded`), in the run summary", BUILD_EXTENSIONS,
          [](RunContext& ctx) -> std::unique_ptr<Component> {
            const auto* policy = dynamic_cast<const RecordedScheduler*>(&ctx.cluster.policy());
            // A trace replayed as recorded under another policy (`gcsim compare --policy`, a
            // sweep's policy axis) would silently be a resubmit: refused.
            if (policy == nullptr && !ctx.scenario.workload.recorded.empty())
              throw Error("scenario '" + ctx.scenario.name + "' replays its trace as recorded (workload.trace.mode: " +
                          "as-recorded, policy recorded); a run under policy '" + ctx.scheduler.policy +
                          "' would not: to compare policies on the trace, use mode: resubmit");
            if (policy == nullptr) return nullptr;
            return std::make_unique<RecordedReplayPart>(*policy);
          }};
}

}  // namespace gcsim::models
