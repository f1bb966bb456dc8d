// Reading alerting rules (see alert_rules_file.hpp).
#include "sim/rules/alert_rules_file.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include <yaml-cpp/yaml.h>

#include "sim/config/reader.hpp"
#include "sim/errors.hpp"
#include "sim/rules/metric_names.hpp"

namespace gcsim::promql {

namespace {

using config::ConfigNode;

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}
using config::MapReader;

std::int64_t read_prom_duration(const ConfigNode& n) {
  try {
    return parse_duration_ms(n.scalar());
  } catch (const ParseError& e) {
    n.fail(ErrorCode::BadUnit, std::string(e.what()) + " (Prometheus durations: 30s, 5m, 1h30m)");
  }
}

Labels read_labels(const ConfigNode& n) {
  Labels out;
  for (const auto& [k, v] : n.entries()) {
    const std::string key(k);
    if (key.empty() || key == NAME_LABEL || !(std::isalpha(static_cast<unsigned char>(key[0])) || key[0] == '_') ||
        !std::all_of(key.begin(), key.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
      v.fail(ErrorCode::WrongType, "'" + key + "' is not a label name (letters, digits and _, not starting with a digit)");
    out.emplace_back(key, std::string(v.scalar()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

AlertRule read_rule(const ConfigNode& n, const SeriesNames* names) {
  if (n.is_map() && n.find("record") != nullptr)
    n.find("record")->fail(ErrorCode::UnknownKey,
                           "recording rules are not evaluated by gcsim: write the expression into the alert's expr");
  MapReader r(n, {"alert", "expr", "for", "labels", "annotations", "keep_firing_for"});
  if (const ConfigNode* k = r.optional("keep_firing_for"))
    k->fail(ErrorCode::UnknownKey, "keep_firing_for is not evaluated by gcsim (docs/alerts.md)");
  const ConfigNode& name = r.required("alert");
  const ConfigNode& expr = r.required("expr");
  AlertRule rule{std::string(name.scalar()), Expr::parse("0"), 0, {}, {}};
  if (rule.name.empty()) name.fail(ErrorCode::OutOfRange, "an alert needs a name");
  // An error inside the expression: at its column in the file when the expression is
  // written on its line (plain or quoted), else at the expression's start.
  const auto fail_in_expr = [&expr](ErrorCode code, std::size_t column, const std::string& message) {
    SourceMark at = expr.mark();
    const std::string_view text = expr.scalar();
    if (text.find('\n') == std::string_view::npos && at.column > 0)
      at.column += static_cast<int>(column) - 1 + (expr.quoted() ? 1 : 0);
    throw ConfigError(code, at, expr.path(),
                      message + " (column " + std::to_string(column) + " of '" + std::string(text) + "')");
  };
  try {
    rule.expr = Expr::parse(expr.scalar());
  } catch (const ParseError& e) {
    fail_in_expr(ErrorCode::Syntax, e.column(), "bad expression: " + std::string(e.what()));
  }
  // A misspelt metric or label would select nothing, and the rule would never fire.
  for (const NameUse& use : names ? rule.expr.names_used() : std::vector<NameUse>{}) {
    const std::vector<std::string>& known = use.what == NameUse::Metric ? names->metrics : names->labels;
    if (std::find(known.begin(), known.end(), use.name) != known.end()) continue;
    const std::string suggestion = did_you_mean(use.name, known);
    fail_in_expr(ErrorCode::UnknownName, use.column, std::string(use.what == NameUse::Metric ? "unknown metric '" : "unknown label '") +
                                 use.name + "'" +
                                 (suggestion.empty() ? "; gcsim's are " + join_names(known) + " (docs/metrics.md)"
                                                     : "; did you mean '" + suggestion + "'?"));
  }
  if (const ConfigNode* f = r.optional("for")) rule.for_ms = read_prom_duration(*f);
  if (const ConfigNode* l = r.optional("labels")) rule.labels = read_labels(*l);
  if (const ConfigNode* a = r.optional("annotations")) {
    for (const auto& [k, v] : a->entries()) rule.annotations.emplace_back(std::string(k), std::string(v.scalar()));
    std::sort(rule.annotations.begin(), rule.annotations.end());
  }
  r.finish();
  return rule;
}

}  // namespace

AlertRule read_alert_rule(const ConfigNode& node, const SeriesNames* names) { return read_rule(node, names); }

const SeriesNames& exported_series_names() {
  static const SeriesNames names{exported_metric_names(),
                                 std::vector<std::string>(METRIC_LABELS.begin(), METRIC_LABELS.end())};
  return names;
}

std::vector<AlertGroup> read_alert_groups(const ConfigNode& root, const SeriesNames* names) {
  MapReader top(root, {"groups"});
  const ConfigNode& groups = top.required("groups");
  top.finish();
  std::vector<AlertGroup> out;
  std::set<std::string> group_names;
  for (const ConfigNode& g : groups.items()) {
    MapReader r(g, {"name", "interval", "rules", "limit"});
    if (const ConfigNode* l = r.optional("limit")) l->fail(ErrorCode::UnknownKey, "a group's limit is not evaluated by gcsim");
    AlertGroup group;
    const ConfigNode& name = r.required("name");
    group.name = std::string(name.scalar());
    if (!group_names.insert(group.name).second) name.fail(ErrorCode::Duplicate, "a second group named '" + group.name + "'");
    if (const ConfigNode* i = r.optional("interval")) {
      group.interval_ms = read_prom_duration(*i);
      if (group.interval_ms <= 0) i->fail(ErrorCode::OutOfRange, "the interval must be longer than zero");
    }
    for (const ConfigNode& rule : r.required("rules").items()) group.rules.push_back(read_rule(rule, names));
    r.finish();
    out.push_back(std::move(group));
  }
  return out;
}

std::string rules_yaml(const std::vector<AlertGroup>& groups) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "groups" << YAML::Value << YAML::BeginSeq;
  for (const AlertGroup& g : groups) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << g.name;
    out << YAML::Key << "interval" << YAML::Value << format_duration_ms(g.interval_ms);
    out << YAML::Key << "rules" << YAML::Value << YAML::BeginSeq;
    for (const AlertRule& r : g.rules) {
      out << YAML::BeginMap << YAML::Key << "alert" << YAML::Value << YAML::DoubleQuoted << r.name;
      out << YAML::Key << "expr" << YAML::Value << YAML::DoubleQuoted << r.expr.text();
      if (r.for_ms > 0) out << YAML::Key << "for" << YAML::Value << format_duration_ms(r.for_ms);
      for (const auto& [key, labels] : {std::pair{"labels", &r.labels}, std::pair{"annotations", &r.annotations}}) {
        if (labels->empty()) continue;
        out << YAML::Key << key << YAML::Value << YAML::BeginMap;
        for (const auto& [k, v] : *labels) out << YAML::Key << k << YAML::Value << YAML::DoubleQuoted << v;
        out << YAML::EndMap;
      }
      out << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace gcsim::promql
