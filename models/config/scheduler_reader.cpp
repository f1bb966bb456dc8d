// The `scheduler:` section reader (see scheduler_reader.hpp).
#include "models/config/scheduler_reader.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "models/scheduler/scheduler_registry.hpp"
#include "sim/config/reader.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {

const config::KeySpec SCHEDULER_POLICY_KEY = {
    .name = "policy", .type = "name", .default_value = "`fifo`",
    .help = "the scheduling policy; its own keys follow in the same map (`gcsim policies` lists them)"};

const config::KeySpec SCHEDULER_PREEMPTION_KEY = {
    .name = "preemption", .type = "map", .default_value = "`{mode: save}`",
    .help = "how a job the policy preempts stops: saves and resumes, or loses its work since its last checkpoint"};

namespace {

PreemptionSpec read_preemption(const config::ConfigNode& n, sim::SimTime horizon) {
  config::MapReader r(n, PREEMPTION_KEYS);
  PreemptionSpec p;
  if (const config::ConfigNode* mode = r.optional("mode")) {
    // Two modes: a miss names both, near or not (read_enum names them only when far).
    const std::vector<std::string> modes{"save", "lose"};
    const std::string text = config::read_string(*mode);
    if (std::find(modes.begin(), modes.end(), text) == modes.end()) {
      const std::string near = did_you_mean(text, modes);
      mode->fail(ErrorCode::UnknownName, "unknown mode '" + text + "'" +
                                             (near.empty() ? "" : "; did you mean '" + near + "'?") +
                                             " (modes: save, lose)");
    }
    p.mode = text == "lose" ? PreemptionMode::Lose : PreemptionMode::Save;
  }
  const config::ConfigNode* save = r.optional("save");
  const config::ConfigNode* restore = r.optional("restore");
  if (p.mode == PreemptionMode::Lose) {
    // A job that loses its work saves nothing and has nothing to restore.
    if (const config::ConfigNode* extra = save ? save : restore)
      extra->fail(ErrorCode::Conflict, "`save` and `restore` mean nothing with `mode: lose`");
    return p;
  }
  if (save) p.save = config::read_duration(*save);
  if (restore) p.restore = config::read_duration(*restore);
  // Past the range they would saturate to "never": a job preempted near the horizon would
  // hold its GPUs for ever. (The job's own checkpoint times are bounded with the job.)
  const sim::SimTime save_time = p.save.value_or(sim::SimTime::zero());
  const sim::SimTime restore_time = p.restore.value_or(sim::SimTime::zero());
  if ((horizon + save_time + restore_time).is_max())
    (save_time >= restore_time ? save : restore)->fail(ErrorCode::OutOfRange,
                                                        "the horizon + save + restore lie beyond the simulated time "
                                                        "range (about 292 years)");
  return p;
}

}  // namespace

SchedulerSpec read_scheduler(const config::ConfigNode* section, const SchedulerRegistry& registry,
                             sim::SimTime horizon, const PolicyContext& context) {
  SchedulerSpec spec;
  if (section == nullptr) return spec;
  // The policy first: it decides which keys the rest of the map may hold.
  if (const config::ConfigNode* policy = config::MapReader(*section).optional("policy"))
    spec.policy = config::read_enum(*policy, registry.policy_names());
  const SchedulerRegistry::Policy* entry = registry.find_policy(spec.policy);
  if (entry == nullptr)
    section->fail(ErrorCode::UnknownName, "the default policy '" + spec.policy + "' is not registered; name one");
  std::vector<config::KeySpec> keys{SCHEDULER_POLICY_KEY, SCHEDULER_PREEMPTION_KEY};
  keys.insert(keys.end(), entry->keys.begin(), entry->keys.end());
  config::MapReader map(*section, keys);  // refuses keys the policy does not have, at once
  if (const config::ConfigNode* preemption = map.optional("preemption")) spec.preemption = read_preemption(*preemption, horizon);
  spec.params = entry->parse(map, registry, context);
  return spec;
}

}  // namespace gcsim::models
