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

const config::KeySpec SCHEDULER_QUOTAS_KEY = {
    .name = "quotas", .type = "map", .default_value = "none",
    .help = "per-team guaranteed shares and caps of the GPUs, by time of the week, with lending and reclaim"};

std::vector<config::KeySpec> scheduler_common_keys() {
  return {SCHEDULER_POLICY_KEY, SCHEDULER_PREEMPTION_KEY, SCHEDULER_QUOTAS_KEY};
}

namespace {

// One team's share in a window: a fraction (its guaranteed min) or {min, max}.
TeamShareSpec read_team_share(const config::ConfigNode& n) {
  TeamShareSpec share;
  if (n.is_scalar()) {
    share.min = config::read_fraction(n);
    return share;
  }
  config::MapReader r(n, TEAM_SHARE_KEYS);
  const config::ConfigNode* min = r.where("min");
  const config::ConfigNode* max = r.where("max");
  share.min = r.value<double>("min");
  share.max = r.value<double>("max");
  if (!min && !max) n.fail(ErrorCode::MissingKey, "give the team's `min` (guaranteed share), `max` (cap), or both");
  if (share.min > share.max)
    (max ? max : min)->fail(ErrorCode::OutOfRange, "a team's guaranteed `min` cannot exceed its cap `max`");
  return share;
}

QuotaWindowSpec read_quota_window(const config::ConfigNode& n, std::size_t index, const PolicyContext& context) {
  config::MapReader r(n, QUOTA_WINDOW_KEYS);
  QuotaWindowSpec w;
  w.name = "window " + std::to_string(index + 1);
  if (const config::ConfigNode* name = r.optional("name")) w.name = config::read_string(*name);
  w.when = read_week_calendar(r);
  const config::ConfigNode& teams = r.required("teams");
  if (!teams.is_map())
    teams.fail(ErrorCode::WrongType, "teams is a map of team names to shares ({research: 80%, quant: {max: 20%}})");
  if (teams.entries().empty()) teams.fail(ErrorCode::MissingKey, "name at least one team and its share");
  w.teams.assign(context.teams.size(), TeamShareSpec{});
  double guaranteed = 0;
  for (const auto& [team, value] : teams.entries()) {
    const TeamShareSpec share = read_team_share(value);
    guaranteed += share.min;
    if (const int t = context.team_index(value, team); t >= 0) w.teams[static_cast<std::size_t>(t)] = share;
  }
  // A 1e-9 guard, so 20% + 80% is 100%.
  if (guaranteed > 1 + 1e-9)
    teams.fail(ErrorCode::OutOfRange, "the guaranteed shares (`min`) of window '" + w.name + "' add up to " +
                                          std::to_string(static_cast<int>(guaranteed * 100 + 0.5)) +
                                          "%, more than the cluster");
  return w;
}

QuotaSpec read_quotas(const config::ConfigNode& n, const PolicyContext& context) {
  config::MapReader r(n, QUOTA_KEYS);
  QuotaSpec q;
  const config::ConfigNode& windows = r.required("windows");
  if (!windows.is_sequence()) windows.fail(ErrorCode::WrongType, "windows is a list of maps ({days, hours, teams})");
  if (windows.size() == 0) windows.fail(ErrorCode::MissingKey, "give at least one window");
  for (std::size_t i = 0; i < windows.size(); ++i) {
    const config::ConfigNode& item = windows.items()[i];
    q.windows.push_back(read_quota_window(item, i, context));
    for (std::size_t k = 0; k + 1 < q.windows.size(); ++k)
      if (q.windows[k].name == q.windows.back().name)
        (item.find("name") ? *item.find("name") : item)
            .fail(ErrorCode::Duplicate, "window '" + q.windows.back().name + "' is named twice");
  }
  q.lending = r.value<bool>("lending");
  if (const config::ConfigNode* reclaim = r.optional("reclaim"))
    q.reclaim = config::read_enum(*reclaim, {"preempt", "wait"}) == "wait" ? ReclaimMode::Wait : ReclaimMode::Preempt;
  return q;
}

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
  const config::ConfigNode* save = r.where("save");
  const config::ConfigNode* restore = r.where("restore");
  if (p.mode == PreemptionMode::Lose) {
    // A job that loses its work saves nothing and has nothing to restore.
    if (const config::ConfigNode* extra = save ? save : restore)
      extra->fail(ErrorCode::Conflict, "`save` and `restore` mean nothing with `mode: lose`");
    return p;
  }
  p.save = r.get<sim::SimTime>("save");
  p.restore = r.get<sim::SimTime>("restore");
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
  std::vector<config::KeySpec> keys = scheduler_common_keys();
  keys.insert(keys.end(), entry->keys.begin(), entry->keys.end());
  config::MapReader map(*section, keys);  // refuses keys the policy does not have, at once
  if (const config::ConfigNode* preemption = map.optional("preemption")) spec.preemption = read_preemption(*preemption, horizon);
  else spec.preemption.keep_without_checkpoint = entry->resumes_by_default;
  if (const config::ConfigNode* quotas = map.optional("quotas")) spec.quotas = read_quotas(*quotas, context);
  spec.params = entry->parse(map, registry, context);
  return spec;
}

}  // namespace gcsim::models
