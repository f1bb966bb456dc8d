// The as-recorded replay's part (see recorded_part.hpp).
#include "models/recorded_part.hpp"

#include <memory>

#include "models/cluster/cluster.hpp"
#include "models/scheduler/recorded.hpp"
#include "models/simulation.hpp"

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
            // Wrapped (team quotas around a `policy: recorded` named by hand), it says nothing.
            const auto* policy = dynamic_cast<const RecordedScheduler*>(&ctx.cluster.policy());
            if (policy == nullptr) return nullptr;
            return std::make_unique<RecordedReplayPart>(*policy);
          }};
}

}  // namespace gcsim::models
