// Alerting rules in `gcsim analyze` (see alert_report.hpp).
#include "analysis/alert_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/report.hpp"
#include "sim/config/config_node.hpp"
#include "sim/rules/alert_rules_file.hpp"

namespace gcsim::analysis {
namespace {

const std::string* label(const promql::Labels& labels, std::string_view name) {
  for (const auto& [k, v] : labels)
    if (k == name) return &v;
  return nullptr;
}

std::string condition_of(const promql::AlertRule& rule) {
  const std::string* summary = label(rule.annotations, "summary");
  return summary ? *summary : rule.expr.text();
}

// Time (s) of [a, b] in the union of the intervals (from, to], sorted in place.
double union_within(std::vector<std::pair<double, double>>& spans) {
  std::sort(spans.begin(), spans.end());
  double total = 0, reach = -INFINITY;
  for (const auto& [from, to] : spans) {
    const double start = std::max(from, reach);
    if (to > start) total += to - start;
    reach = std::max(reach, to);
  }
  return total;
}

std::string cause_words(const std::string& cause) {
  if (cause == "idle") return "idle GPUs";
  if (cause == "no model") return "jobs without a model (bottleneck not known)";
  return cause + " jobs";
}

}  // namespace

std::string AlertAdvice::line() const {
  std::string out = "pool " + pool + ": " + rule + " for " + format_count(gpu_hours, 1) + " GPU-hours in " +
                    std::to_string(firings) + (firings == 1 ? " firing" : " firings") + " (" + condition + ")";
  bool bound = false;
  // The three largest shares, those that round to 0.0% left out.
  for (std::size_t i = 0; i < causes.size() && i < 3 && (i == 0 || causes[i].second >= 0.0005); ++i) {
    out += (i == 0 ? ": " : ", ") + format_percent(causes[i].second) + " " + cause_words(causes[i].first);
    bound = bound || causes[i].first.ends_with("-bound");
  }
  if (bound) out += " (see Training: bound by)";
  return out;
}

std::vector<promql::AlertGroup> trace_alert_rules(const TraceAttributes& attrs) {
  if (attrs.alert_rules_yaml.empty()) return {};
  const config::ConfigDocument doc = config::load_yaml_string(attrs.alert_rules_yaml, "the trace's alert_rules");
  return promql::read_alert_groups(doc.root, &promql::exported_series_names());
}

AlertsReport report_alerts(const TraceData& trace, const MetricsData& metrics, const std::vector<promql::AlertGroup>& groups,
                           std::string rules_from) {
  AlertsReport report;
  report.rules_from = std::move(rules_from);
  report.firings = evaluate_trace_alerts(metrics, groups);

  std::map<std::pair<std::string, std::string>, std::size_t> rule_index;
  for (const promql::AlertGroup& g : groups)
    for (const promql::AlertRule& r : g.rules) {
      rule_index[{g.name, r.name}] = report.rules.size();
      report.rules.push_back({g.name, r.name, condition_of(r), 0, 0, 0});
    }
  for (const Firing& f : report.firings) {
    AlertRuleSummary& s = report.rules[rule_index.at({f.group, f.rule})];
    s.peak = s.firings == 0 ? f.peak : std::max(s.peak, f.peak);
    ++s.firings;
    s.firing_s += static_cast<double>(f.end_ms - f.start_ms) / 1000;
  }

  // The series of each node, the nodes of each pool, each job's bottleneck.
  std::unordered_map<std::string, std::size_t> node_by_name;
  std::map<std::string, std::vector<std::size_t>> pool_nodes;
  for (std::size_t n = 0; n < metrics.node_names.size(); ++n) {
    node_by_name.emplace(metrics.node_names[n], n);
    pool_nodes[metrics.node_pools[n]].push_back(n);
  }
  std::vector<std::vector<std::size_t>> node_series(metrics.node_names.size());
  for (std::size_t i = 0; i < metrics.series.size(); ++i)
    node_series[static_cast<std::size_t>(metrics.series[i].node)].push_back(i);
  std::unordered_map<std::int64_t, const std::string*> bottleneck;
  for (const JobRecord& j : trace.jobs) bottleneck.emplace(j.job_id, &j.model.bottleneck);

  struct Tally {
    int firings = 0;
    double gpu_s = 0;
    std::map<std::string, double> cause_s;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Tally> tallies;  // (pool, group, rule)
  std::vector<std::size_t> nodes;
  std::map<std::pair<std::int32_t, std::int32_t>, std::vector<std::pair<double, double>>> gpu_spans;
  for (const Firing& f : report.firings) {
    const double a = static_cast<double>(f.start_ms) / 1000, b = static_cast<double>(f.end_ms) / 1000;
    if (b <= a) continue;
    const std::string* node = label(f.labels, "node");
    const std::string* gpu = label(f.labels, "gpu");
    const std::string* pool = label(f.labels, "pool");
    const std::string* job = label(f.labels, "job");
    nodes.clear();
    if (node) {
      if (auto it = node_by_name.find(*node); it != node_by_name.end()) nodes.push_back(it->second);
    } else if (pool) {
      if (auto it = pool_nodes.find(*pool); it != pool_nodes.end()) nodes = it->second;
    } else {
      for (std::size_t n = 0; n < metrics.node_names.size(); ++n) nodes.push_back(n);
    }
    gpu_spans.clear();
    std::map<std::string, Tally*> touched;  // by pool
    for (std::size_t n : nodes) {
      const std::string& node_pool = metrics.node_pools[n];
      if (pool && *pool != node_pool) continue;
      for (std::size_t i : node_series[n]) {
        const GpuSeries& s = metrics.series[i];
        if (gpu && *gpu != std::to_string(s.gpu)) continue;
        if (job && (s.job < 0 || metrics.job_names[static_cast<std::size_t>(s.job)] != *job)) continue;
        double lived = 0;
        for (const MetricSegment& seg : s.segments) {
          const double from = std::max(seg.from_s, a), to = std::min(seg.to_s, b);
          if (to <= from) continue;
          lived += to - from;
          gpu_spans[{s.node, s.gpu}].emplace_back(from, to);
        }
        if (lived <= 0) continue;
        std::string cause = "idle";
        if (s.job >= 0) {
          const auto it = bottleneck.find(s.job);
          cause = it == bottleneck.end() || it->second->empty() ? "no model" : *it->second + "-bound";
        }
        Tally*& t = touched[node_pool];
        if (t == nullptr) t = &tallies[{node_pool, f.group, f.rule}];
        t->cause_s[cause] += lived;
      }
    }
    for (auto& [key, spans] : gpu_spans)
      tallies[{metrics.node_pools[static_cast<std::size_t>(key.first)], f.group, f.rule}].gpu_s += union_within(spans);
    for (auto& [p, t] : touched) ++t->firings;
  }
  for (auto& [key, t] : tallies) {
    if (t.gpu_s <= 0) continue;
    AlertAdvice advice;
    std::tie(advice.pool, std::ignore, advice.rule) = key;
    advice.condition = report.rules[rule_index.at({std::get<1>(key), std::get<2>(key)})].condition;
    advice.firings = t.firings;
    advice.gpu_hours = t.gpu_s / 3600;
    double total = 0;
    for (const auto& [c, s] : t.cause_s) total += s;
    for (const auto& [c, s] : t.cause_s) advice.causes.emplace_back(c, s / total);
    std::stable_sort(advice.causes.begin(), advice.causes.end(),
                     [](const auto& x, const auto& y) { return x.second > y.second; });
    report.advice.push_back(std::move(advice));
  }
  std::stable_sort(report.advice.begin(), report.advice.end(),
                   [](const AlertAdvice& x, const AlertAdvice& y) { return x.gpu_hours > y.gpu_hours; });
  return report;
}

std::string format_alerts(const AlertsReport& report) {
  if (report.rules.empty()) return "";
  std::string out = "\nAlerts (rules: " + report.rules_from + "; docs/alerts.md)\n";
  std::size_t width = 4;
  for (const AlertRuleSummary& r : report.rules) width = std::max(width, r.group.size() + 1 + r.rule.size());
  out += "  " + pad_right("rule", width + 2) + pad_left("firings", 8) + pad_left("hours firing", 14) + pad_left("peak", 12) + "\n";
  for (const AlertRuleSummary& r : report.rules) {
    out += "  " + pad_right(r.group + "/" + r.rule, width + 2) + pad_left(format_count(r.firings, 0), 8) +
           pad_left(r.firings ? format_count(r.firing_s / 3600, 1) : "-", 14) +
           pad_left(r.firings ? format_count(r.peak, 2) : "-", 12) + "\n";
  }
  if (!report.advice.empty()) {
    out += "  Advice (GPU-hours the firings covered, and what those GPUs were doing):\n";
    for (const AlertAdvice& a : report.advice) out += "    " + a.line() + "\n";
  }
  out += "  every firing: gcsim alerts TRACE" + std::string(report.rules_from == SCENARIO_RULES ? "" : " --rules FILE") + "\n";
  return out;
}

std::string alerts_json(const AlertsReport& report, int depth) {
  JsonObject o(depth);
  o.string("rules_from", report.rules_from);
  std::vector<std::string> rules;
  for (const AlertRuleSummary& r : report.rules) {
    JsonObject j(depth + 2);
    j.string("group", r.group);
    j.string("rule", r.rule);
    j.string("condition", r.condition);
    j.integer("firings", r.firings);
    j.number("firing_s", r.firing_s);
    j.number("peak", r.firings ? r.peak : NAN);
    rules.push_back(j.finish());
  }
  o.raw("rules", json_array(rules, depth + 1));
  std::vector<std::string> advice;
  for (const AlertAdvice& a : report.advice) {
    JsonObject j(depth + 2);
    j.string("pool", a.pool);
    j.string("rule", a.rule);
    j.integer("firings", a.firings);
    j.number("gpu_hours", a.gpu_hours);
    JsonObject causes(depth + 3);
    for (const auto& [c, share] : a.causes) causes.number(c, share);
    j.raw("causes", causes.finish());
    j.string("advice", a.line());
    advice.push_back(j.finish());
  }
  o.raw("advice", json_array(advice, depth + 1));
  return o.finish();
}

}  // namespace gcsim::analysis
