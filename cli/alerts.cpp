// `gcsim alerts TRACE --rules FILE [--json]` (docs/alerts.md): Prometheus alerting rules
// evaluated over a run's simulated GPU metrics (the trace's /metrics, docs/metrics.md),
// with every firing: rule, labels, when it fired and resolved, its peak value.
#include <cstdio>
#include <iostream>

#include "analysis/alert_report.hpp"
#include "analysis/alert_rules.hpp"
#include "analysis/metrics_series.hpp"  // read_metrics
#include "analysis/report.hpp"
#include "cli/commands.hpp"
#include "sim/config/config_node.hpp"
#include "sim/errors.hpp"
#include "sim/trace/trace_reader.hpp"

namespace gcsim::cli {


std::vector<promql::AlertGroup> alert_rules_for(const analysis::TraceAttributes& attrs, const std::string& rules_path,
                                                std::string& from) {
  if (rules_path.empty()) {
    from = analysis::SCENARIO_RULES;
    return analysis::trace_alert_rules(attrs);
  }
  from = rules_path;
  const config::ConfigDocument rules = config::load_yaml_file(rules_path, "rules file");
  return promql::read_alert_groups(rules.root, &promql::exported_series_names());
}

int cmd_alerts(const std::string& trace_path, const std::string& rules_path, bool json) {
  const auto reader = trace::TraceReader::open(trace_path);
  std::string from;
  const std::vector<promql::AlertGroup> groups =
      alert_rules_for(analysis::read_trace_attributes(*reader, trace_path), rules_path, from);
  if (groups.empty())
    throw Error("trace '" + trace_path + "' carries no alerting rules (its scenario has no `alerts:`): give a rules "
                "file with --rules FILE (docs/alerts.md)");
  const analysis::MetricsData data = analysis::read_metrics(*reader);
  const std::vector<analysis::Firing> firings = analysis::evaluate_trace_alerts(data, groups);
  std::size_t rule_count = 0;
  for (const auto& g : groups) rule_count += g.rules.size();
  if (json) {
    std::cout << "{\"trace\": " << analysis::json_quote(trace_path) << ", \"rules\": " << rule_count << ", \"firings\": [";
    for (std::size_t i = 0; i < firings.size(); ++i) {
      const analysis::Firing& f = firings[i];
      std::cout << (i ? ", " : "") << "{\"group\": " << analysis::json_quote(f.group) << ", \"alert\": " << analysis::json_quote(f.rule)
                << ", \"labels\": {";
      bool first = true;
      for (const auto& [k, v] : f.labels) {
        std::cout << (first ? "" : ", ") << analysis::json_quote(k) << ": " << analysis::json_quote(v);
        first = false;
      }
      std::cout << "}, \"pending_s\": " << analysis::json_number(static_cast<double>(f.active_ms) / 1000)
                << ", \"start_s\": " << analysis::json_number(static_cast<double>(f.start_ms) / 1000)
                << ", \"end_s\": " << analysis::json_number(static_cast<double>(f.end_ms) / 1000)
                << ", \"resolved\": " << (f.resolved ? "true" : "false")
                << ", \"peak\": " << analysis::json_number(f.peak) << "}";
    }
    std::cout << "]}\n";
    return 0;
  }
  std::printf("gcsim alerts: %zu rule(s) of %s over %s (metrics every %g s, %s simulated)\n", rule_count,
              from.c_str(), trace_path.c_str(), data.every_s, analysis::format_duration(data.end_s).c_str());
  if (firings.empty()) {
    std::printf("  no alert fired\n");
    return 0;
  }
  std::printf("  %-28s %-44s %12s %12s %12s %10s\n", "alert", "labels", "fired at", "resolved at", "for", "peak");
  for (const analysis::Firing& f : firings) {
    promql::Labels shown;
    for (const auto& kv : f.labels)
      if (kv.first != "alertname") shown.push_back(kv);
    const double start = static_cast<double>(f.start_ms) / 1000;
    const double end = static_cast<double>(f.end_ms) / 1000;
    std::printf("  %-28s %-44s %12s %12s %12s %10.4g\n", f.rule.c_str(),
                promql::format_labels(shown).c_str(), analysis::format_duration(start).c_str(),
                f.resolved ? analysis::format_duration(end).c_str() : "(firing)",
                analysis::format_duration(end - start).c_str(), f.peak);
  }
  return 0;
}

}  // namespace gcsim::cli
