// Reading alerting rules (see alert_rules_file.hpp).
#include "sim/rules/alert_rules_file.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "sim/config/reader.hpp"
#include "sim/errors.hpp"

namespace gcsim::promql {

namespace {

using config::ConfigNode;
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

AlertRule read_rule(const ConfigNode& n) {
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
  try {
    rule.expr = Expr::parse(expr.scalar());
  } catch (const ParseError& e) {
    // The column in the file when the expression is written on its line (plain or quoted).
    SourceMark at = expr.mark();
    const std::string_view text = expr.scalar();
    if (text.find('\n') == std::string_view::npos && at.column > 0)
      at.column += static_cast<int>(e.column()) - 1 + (expr.quoted() ? 1 : 0);
    throw ConfigError(ErrorCode::Syntax, at, expr.path(),
                      "bad expression: " + std::string(e.what()) + " (column " + std::to_string(e.column()) +
                          " of '" + std::string(text) + "')");
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

std::vector<AlertGroup> read_alert_groups(const ConfigNode& root) {
  MapReader top(root, {"groups"});
  const ConfigNode& groups = top.required("groups");
  top.finish();
  std::vector<AlertGroup> out;
  std::set<std::string> names;
  for (const ConfigNode& g : groups.items()) {
    MapReader r(g, {"name", "interval", "rules", "limit"});
    if (const ConfigNode* l = r.optional("limit")) l->fail(ErrorCode::UnknownKey, "a group's limit is not evaluated by gcsim");
    AlertGroup group;
    const ConfigNode& name = r.required("name");
    group.name = std::string(name.scalar());
    if (!names.insert(group.name).second) name.fail(ErrorCode::Duplicate, "a second group named '" + group.name + "'");
    if (const ConfigNode* i = r.optional("interval")) {
      group.interval_ms = read_prom_duration(*i);
      if (group.interval_ms <= 0) i->fail(ErrorCode::OutOfRange, "the interval must be longer than zero");
    }
    for (const ConfigNode& rule : r.required("rules").items()) group.rules.push_back(read_rule(rule));
    r.finish();
    out.push_back(std::move(group));
  }
  return out;
}

}  // namespace gcsim::promql
