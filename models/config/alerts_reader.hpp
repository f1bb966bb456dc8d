// The `alerts:` section (docs/alerts.md): Prometheus alerting rules over the run's
// simulated GPU metrics, checked here as the scenario is loaded (the PromQL, every metric
// and label name, durations: sim/rules/) and kept as a rules file's text, which the trace
// carries (its root attribute `alert_rules`) for `gcsim analyze` and `gcsim alerts` to
// evaluate over the run's /metrics. Three forms:
//   alerts: [{alert: GpuHot, expr: 'DCGM_FI_DEV_GPU_UTIL > 85', for: 10m}, ...]  (one group, "scenario", every 1m)
//   alerts: {groups: [{name: gpus, interval: 1m, rules: [...]}]}                 (a rules file's shape)
//   alerts: {file: rules.yml}                                                     (a rules file, relative to the scenario)
#pragma once

#include <string>

#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"
#include "sim/config/source_resolver.hpp"

namespace gcsim::models {

inline constexpr config::KeySpec ALERTS_KEYS[] = {
    {"file", "path", "", false, "",
     "a Prometheus rules file (`groups:` of `rules:`), relative to the scenario; not with `groups`"},
    {"groups", "list of maps", "", false, "",
     "the rule groups, as a Prometheus rules file writes them (`name`, `interval`, `rules`); not with `file`"},
};

// The name of the group a list of rules without groups makes.
inline constexpr const char* SCENARIO_ALERT_GROUP = "scenario";

// The rules as a Prometheus rules file (promql::rules_yaml); ConfigError at the node (or
// in the rules file, at its own line and column) for anything wrong.
std::string read_alerts(const config::ConfigNode& node, config::SourceResolver& sources);

}  // namespace gcsim::models
