// Alerting rules: reading (Prometheus' rules-file shape) and evaluation with Prometheus
// 2.42's alert states (see alert_rules.hpp and docs/alerts.md).
#include "analysis/alert_rules.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include "sim/config/reader.hpp"
#include "sim/errors.hpp"

namespace gcsim::analysis {

namespace {

using config::ConfigNode;
using config::MapReader;

std::int64_t read_prom_duration(const ConfigNode& n) {
  try {
    return promql::parse_duration_ms(n.scalar());
  } catch (const promql::ParseError& e) {
    n.fail(ErrorCode::BadUnit, std::string(e.what()) + " (Prometheus durations: 30s, 5m, 1h30m)");
  }
}

promql::Labels read_labels(const ConfigNode& n) {
  promql::Labels out;
  std::set<std::string> seen;
  for (const auto& [k, v] : n.entries()) {
    const std::string key(k);
    if (key.empty() || key == promql::NAME_LABEL || !(std::isalpha(static_cast<unsigned char>(key[0])) || key[0] == '_') ||
        !std::all_of(key.begin(), key.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
      v.fail(ErrorCode::WrongType, "'" + key + "' is not a label name (letters, digits and _, not starting with a digit)");
    seen.insert(key);
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
  AlertRule rule{std::string(name.scalar()), promql::Expr::parse("0"), 0, {}, {}};
  if (rule.name.empty()) name.fail(ErrorCode::OutOfRange, "an alert needs a name");
  try {
    rule.expr = promql::Expr::parse(expr.scalar());
  } catch (const promql::ParseError& e) {
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

std::vector<Firing> evaluate_alerts(const std::vector<AlertGroup>& groups, const std::vector<promql::Series>& series,
                                    std::int64_t end_ms) {
  std::vector<Firing> done;
  for (const AlertGroup& g : groups) {
    for (const AlertRule& rule : g.rules) {
      // Active alerts by their labels: pending (start_ms < 0) or firing.
      std::map<promql::Labels, Firing> active;
      for (std::int64_t t = 0; t <= end_ms; t += g.interval_ms) {
        std::map<promql::Labels, double> now;
        for (promql::Sample& s : rule.expr.evaluate(series, t)) {
          promql::Labels l;
          for (auto& kv : s.labels)
            if (kv.first != promql::NAME_LABEL && std::none_of(rule.labels.begin(), rule.labels.end(),
                                                               [&](const auto& r) { return r.first == kv.first; }))
              l.push_back(std::move(kv));
          for (const auto& kv : rule.labels)
            if (kv.first != "alertname") l.push_back(kv);
          l.emplace_back("alertname", rule.name);
          std::sort(l.begin(), l.end());
          now[std::move(l)] = s.value;
        }
        for (auto it = active.begin(); it != active.end();) {
          if (now.count(it->first) == 0) {
            if (it->second.start_ms >= 0) {
              it->second.end_ms = t;
              it->second.resolved = true;
              done.push_back(std::move(it->second));
            }
            it = active.erase(it);
          } else {
            ++it;
          }
        }
        for (auto& [labels, value] : now) {
          auto [it, fresh] = active.try_emplace(labels);
          Firing& f = it->second;
          if (fresh) {
            f.group = g.name;
            f.rule = rule.name;
            f.labels = labels;
            f.active_ms = t;
            f.start_ms = -1;
          }
          if (f.start_ms < 0 && t - f.active_ms >= rule.for_ms) {
            f.start_ms = t;
            f.peak = value;
          }
          if (f.start_ms >= 0) f.peak = std::max(f.peak, value);
          f.end_ms = t;
        }
      }
      for (auto& [labels, f] : active)
        if (f.start_ms >= 0) done.push_back(std::move(f));
    }
  }
  std::sort(done.begin(), done.end(), [](const Firing& a, const Firing& b) {
    return std::tie(a.start_ms, a.group, a.rule, a.labels) < std::tie(b.start_ms, b.group, b.rule, b.labels);
  });
  return done;
}

std::vector<const Firing*> firing_at(const std::vector<Firing>& firings, std::int64_t t_ms) {
  std::vector<const Firing*> out;
  for (const Firing& f : firings)
    if (f.start_ms <= t_ms && (f.resolved ? t_ms < f.end_ms : t_ms <= f.end_ms)) out.push_back(&f);
  return out;
}

}  // namespace gcsim::analysis
