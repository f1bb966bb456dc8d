// The scheduling policies and placement strategies a scenario may name, each with its
// description, and for a policy its parameter keys, the parser that reads them from the
// `scheduler:` map and the factory that builds the policy from what was parsed. Filled
// explicitly (register_builtins.cpp; tests may fill their own) and passed to the loader and
// to the run: nothing here is process-wide, so a test's registry stays its own.
//
// A policy is one file: its parameters (a plain struct whose default-constructed value is
// the defaults), its key table (documented in the scenario reference), and a function
// returning its PolicyDef<Params>, registered with one line: add_policy(fifo_policy()).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/scheduler/scheduler_spec.hpp"
#include "models/scheduler/placement.hpp"
#include "models/scheduler/scheduler.hpp"
#include "sim/check.hpp"
#include "sim/config/key_table.hpp"
#include "sim/config/reader.hpp"
#include "sim/registry.hpp"

namespace gcsim::models {

// The round on which a policy preempts (las and finish-time-fair's `interval`): each tick
// is an event while jobs wait, and each may preempt. The event estimate counts them
// (resource_estimate.cpp), blaming `key_path` at `mark` (the key, or the scheduler map
// when the default holds).
struct PolicyRound {
  sim::SimTime interval;
  std::string key_path;
  SourceMark mark;
};

// The parsed parameters of one policy, behind the type-erased handle SchedulerSpec holds.
struct SchedulerParams {
  virtual ~SchedulerParams() = default;
  // A policy's Params declare a round with `std::optional<PolicyRound> round() const`.
  virtual std::optional<PolicyRound> round() const { return std::nullopt; }
};

class SchedulerRegistry;

// What a policy's parser may know of the rest of the scenario: the teams its jobs name
// (sorted: QueuedJob::team indexes them), when the workload has been read (a strategy
// read on its own, as `gcsim compare --policy` first does, knows none).
struct PolicyContext {
  std::vector<std::string> teams;
  bool knows_teams = false;
  // The index of the team a key names, read at `at`: unknown-name with did-you-mean when no
  // job names it; -1 when the teams are not known yet.
  int team_index(const config::ConfigNode& at, std::string_view team) const;
};

// A policy as its own file declares it, with its parameters' type.
template <class Params>
struct PolicyDef {
  std::string name;
  std::string description;  // one line
  config::KeyTable keys;    // its keys in the `scheduler:` map, besides `policy`
  // Reads the keys of `keys` from the map (declared to the reader already: unknown keys
  // have been refused) and validates them; throws ConfigError at the offending node.
  std::function<Params(config::MapReader& map, const SchedulerRegistry& registry, const PolicyContext& context)> parse;
  std::function<std::unique_ptr<Scheduler>(const Params& params, const SchedulerRegistry& registry)> make;
  // The policy assumes a preempted job resumes from its progress (las, after Tiresias):
  // when the scenario gives no `scheduler.preemption`, a job without a checkpoint keeps
  // its work (PreemptionSpec::keep_without_checkpoint) instead of losing its run.
  bool resumes_by_default = false;
};

class SchedulerRegistry {
 public:
  using PlacementRegistry = sim::Registry<std::unique_ptr<PlacementStrategy>>;

  struct Policy {
    std::string description;
    config::KeyTable keys;
    std::function<std::shared_ptr<const SchedulerParams>(config::MapReader&, const SchedulerRegistry&, const PolicyContext&)>
        parse;
    // `params` null: the policy's defaults (a SchedulerSpec built by hand).
    std::function<std::unique_ptr<Scheduler>(const SchedulerParams* params, const SchedulerRegistry&)> make;
    bool resumes_by_default = false;  // PolicyDef::resumes_by_default
  };

  // A name registered twice throws InternalError.
  template <class Params>
  void add_policy(PolicyDef<Params> def);
  void add_placement(std::string name, std::string description, PlacementRegistry::Factory factory) {
    placements_.add(std::move(name), std::move(description), std::move(factory));
  }

  const Policy* find_policy(const std::string& name) const;
  const std::map<std::string, Policy>& policies() const { return policies_; }
  std::vector<std::string> policy_names() const;
  const PlacementRegistry& placements() const { return placements_; }

  // The policy `spec` names, built from its parameters. Throws Error for a name this
  // registry does not hold (a Scenario built by hand, or loaded against another registry).
  std::unique_ptr<Scheduler> make(const SchedulerSpec& spec) const;
  // The placement strategy called `name`; InternalError when there is none (names come
  // from a parser that checked them against this registry).
  std::unique_ptr<PlacementStrategy> make_placement(const std::string& name) const;

 private:
  void insert_policy(std::string name, Policy policy);

  std::map<std::string, Policy> policies_;
  PlacementRegistry placements_;
};

namespace detail {
template <class Params>
struct ParsedParams final : SchedulerParams {
  explicit ParsedParams(Params p) : value(std::move(p)) {}
  std::optional<PolicyRound> round() const override {
    if constexpr (requires(const Params& p) { p.round(); }) return value.round();
    return std::nullopt;
  }
  Params value;
};
}  // namespace detail

template <class Params>
void SchedulerRegistry::add_policy(PolicyDef<Params> def) {
  Policy p;
  p.description = std::move(def.description);
  p.keys = def.keys;
  p.resumes_by_default = def.resumes_by_default;
  p.parse = [parse = std::move(def.parse)](config::MapReader& map, const SchedulerRegistry& registry,
                                           const PolicyContext& context) {
    return std::shared_ptr<const SchedulerParams>(
        std::make_shared<const detail::ParsedParams<Params>>(parse(map, registry, context)));
  };
  p.make = [make = std::move(def.make), name = def.name](const SchedulerParams* params, const SchedulerRegistry& registry) {
    if (params == nullptr) return make(Params{}, registry);
    const auto* typed = dynamic_cast<const detail::ParsedParams<Params>*>(params);
    if (typed == nullptr) throw InternalError("scheduler policy '" + name + "' given another policy's parameters");
    return make(typed->value, registry);
  };
  insert_policy(std::move(def.name), std::move(p));
}

}  // namespace gcsim::models
