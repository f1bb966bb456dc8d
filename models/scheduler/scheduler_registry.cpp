// The policy and placement registry (see scheduler_registry.hpp).
#include "models/scheduler/scheduler_registry.hpp"

#include <algorithm>

#include "models/scheduler/quotas.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {

int PolicyContext::team_index(const config::ConfigNode& at, std::string_view team) const {
  if (!knows_teams) return -1;
  const auto it = std::find(teams.begin(), teams.end(), team);
  if (it == teams.end()) {
    const std::string near = did_you_mean(team, teams);
    at.fail(ErrorCode::UnknownName,
            "no job names team '" + std::string(team) + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?"));
  }
  return static_cast<int>(it - teams.begin());
}

void SchedulerRegistry::insert_policy(std::string name, Policy policy) {
  const auto [it, added] = policies_.try_emplace(std::move(name), std::move(policy));
  if (!added) throw InternalError("scheduler registry: policy '" + it->first + "' is registered twice");
}

const SchedulerRegistry::Policy* SchedulerRegistry::find_policy(const std::string& name) const {
  const auto it = policies_.find(name);
  return it == policies_.end() ? nullptr : &it->second;
}

std::vector<std::string> SchedulerRegistry::policy_names() const {
  std::vector<std::string> names;
  for (const auto& [name, p] : policies_) names.push_back(name);
  return names;
}

std::unique_ptr<Scheduler> SchedulerRegistry::make(const SchedulerSpec& spec) const {
  const Policy* p = find_policy(spec.policy);
  if (p == nullptr) {
    std::string valid;
    for (const auto& [name, entry] : policies_) valid += (valid.empty() ? "" : ", ") + name;
    throw Error("unknown scheduler policy '" + spec.policy + "'; valid policies: " + valid);
  }
  std::unique_ptr<Scheduler> policy = p->make(spec.params.get(), *this);
  if (spec.quotas) policy = std::make_unique<QuotaScheduler>(std::move(policy), *spec.quotas, make_placement("first-fit"));
  return policy;
}

std::unique_ptr<PlacementStrategy> SchedulerRegistry::make_placement(const std::string& name) const {
  const auto* e = placements_.find(name);
  if (e == nullptr) throw InternalError("scheduler registry: no placement strategy '" + name + "'");
  return e->factory();
}

}  // namespace gcsim::models
