// Alerting rules in `gcsim analyze` (docs/alerts.md, "In the report"): the rules a run
// carries (its scenario's `alerts:`, the trace's root attribute `alert_rules`) or a rules
// file given with --rules, evaluated over the trace's simulated GPU metrics
// (analysis/alert_rules.hpp); per rule, how often and how long it fired; and for each rule
// and pool, a line of advice: the GPU-hours the firings covered and what the GPUs in them
// were doing, e.g. "pool p4d: GpuUtilizationLow for 212.0 GPU-hours (utilization below
// 60%): mostly input-bound jobs (input-storage, 71%; see bottleneck)".
//
// The GPUs a firing concerns are those whose series carry its labels among node, gpu, pool
// and job (an alert on `avg(...) by (pool)` concerns every GPU of the pool, one on a single
// GPU's series that GPU); its GPU-hours are the time each of them was up (had a series,
// idle or a job's) from when the alert fired to when it resolved. What they were doing is
// split by time: idle, each bottleneck of the model-described jobs (/jobs.bottleneck), or
// jobs without a model (whose bottleneck is not known).
#pragma once

#include <string>
#include <vector>

#include "analysis/alert_rules.hpp"
#include "analysis/metrics_series.hpp"
#include "analysis/trace_data.hpp"

namespace gcsim::analysis {

struct AlertRuleSummary {
  std::string group;
  std::string rule;
  std::string condition;  // the rule's `summary` annotation, else its expression
  int firings = 0;
  double firing_s = 0;    // the firings' durations, summed
  double peak = 0;        // the highest value while firing
};

struct AlertAdvice {
  std::string pool;
  std::string rule;
  std::string condition;
  int firings = 0;
  double gpu_hours = 0;   // GPU-hours the firings covered
  // What those GPU-hours were, largest first: "idle", "<bottleneck>-bound" (model jobs),
  // "no model" (jobs without one); each with its share of gpu_hours.
  std::vector<std::pair<std::string, double>> causes;
  std::string line() const;  // the advice as the report prints it
};

// AlertsReport::rules_from for the rules a trace carries.
inline constexpr const char* SCENARIO_RULES = "the scenario's alerts:";

struct AlertsReport {
  std::string rules_from;  // SCENARIO_RULES, or the rules file's path
  std::vector<Firing> firings;
  std::vector<AlertRuleSummary> rules;  // every rule, in the groups' order
  std::vector<AlertAdvice> advice;      // by GPU-hours, largest first
};

// The scenario's rules the trace carries (empty without). Throws ConfigError (in the
// attribute's text) should they not read back.
std::vector<promql::AlertGroup> trace_alert_rules(const TraceAttributes& attrs);

// Evaluates `groups` over the metrics and sums up the firings.
AlertsReport report_alerts(const TraceData& trace, const MetricsData& metrics, const std::vector<promql::AlertGroup>& groups,
                           std::string rules_from);

// The report's "Alerts" section ("" when there are no rules), and its JSON value.
std::string format_alerts(const AlertsReport& report);
std::string alerts_json(const AlertsReport& report, int depth);

}  // namespace gcsim::analysis
