// Alerting rules as Prometheus writes them (docs/alerts.md): a rules file (`groups:` of
// `rules:` with `alert`, `expr`, `for`, `labels`, `annotations`), or the same shape under a
// scenario's `alerts:` key, read with errors at file:line:column. Below models/ and
// analysis/, so that a scenario's rules are checked when it is loaded and evaluated by the
// analysis of its trace (analysis/alert_rules.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/config_node.hpp"
#include "sim/rules/promql.hpp"

namespace gcsim::promql {

struct AlertRule {
  std::string name;  // `alert`
  Expr expr;
  std::int64_t for_ms = 0;
  Labels labels;       // `labels`, sorted by name
  Labels annotations;  // `annotations` (kept as written: templates are not expanded)
};

struct AlertGroup {
  std::string name;
  std::int64_t interval_ms = 60'000;  // Prometheus' default evaluation_interval
  std::vector<AlertRule> rules;
};

// The metric and label names rules may use, checked as they are read.
struct SeriesNames {
  std::vector<std::string> metrics;
  std::vector<std::string> labels;
};
// gcsim's exported series (metric_names.hpp): METRIC_FAMILIES' names, METRIC_LABELS.
const SeriesNames& exported_series_names();

// Reads a Prometheus rules file (or the same shape under a scenario key): a map with
// `groups`, each with `name`, optional `interval` and `rules`. Recording rules (`record:`)
// and `keep_firing_for`, `limit` are refused by name: gcsim does not evaluate them.
// Throws ConfigError at the node (an expression's error at its own column where the
// expression is written on one line). With `names`, a metric or label name an expression
// uses that is not among them is an UnknownName error at its column, with did-you-mean
// (null: any name, for rules over series of other origins, as promtool's tests have).
std::vector<AlertGroup> read_alert_groups(const config::ConfigNode& root, const SeriesNames* names);

// One rule (a map with `alert`, `expr`, `for`, `labels`, `annotations`), as read_alert_groups
// reads each: for a scenario's list of rules without groups.
AlertRule read_alert_rule(const config::ConfigNode& node, const SeriesNames* names);

// The groups as a Prometheus rules file (YAML): what a trace keeps of a scenario's
// `alerts:`, read back by read_alert_groups to the same groups.
std::string rules_yaml(const std::vector<AlertGroup>& groups);

}  // namespace gcsim::promql
