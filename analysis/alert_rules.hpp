// Alerting rules over a run's metrics, as Prometheus writes and evaluates them
// (docs/alerts.md): a rules file (`groups:` of `rules:` with `alert`, `expr`, `for`,
// `labels`, `annotations`) read with errors at file:line:column, and its evaluation over
// series held in memory with Prometheus 2.42's alert states: an alert is pending from the
// first evaluation that returns its series and firing once it has been returned for `for`;
// it resolves at the first evaluation that does not return it. Each group is evaluated at
// 0, interval, 2 x interval, ... of the run's clock, as `promtool test rules` evaluates a
// test, so that its answers can be checked by promtool (tests/analysis/test_alert_rules.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/rules/alert_rules_file.hpp"

namespace gcsim::analysis {

using promql::AlertGroup;
using promql::AlertRule;

// One alert that fired: its rule, its labels (the series' labels without the metric name,
// then the rule's labels, then alertname), when it became pending (active_ms), when it
// fired (start_ms) and when it resolved (end_ms, or the last evaluation at or before the
// end if it still fired then, with `resolved` false), and the highest value it had while
// firing.
struct Firing {
  std::string group;
  std::string rule;
  promql::Labels labels;
  std::int64_t active_ms = 0;
  std::int64_t start_ms = 0;
  std::int64_t end_ms = 0;
  bool resolved = false;
  double peak = 0;
};

// Evaluates rules window by window, so that a month of metrics need not be held at once:
// evaluate() runs every group at its evaluation times in [from_ms, to_ms), given the series
// over [from_ms - lookback_ms(), to_ms); the alerts' states carry from one window to the
// next. finish() returns the firings, those still firing ended at their last evaluation.
class AlertEvaluator {
 public:
  explicit AlertEvaluator(const std::vector<AlertGroup>& groups);
  ~AlertEvaluator();
  AlertEvaluator(const AlertEvaluator&) = delete;
  AlertEvaluator& operator=(const AlertEvaluator&) = delete;
  std::int64_t lookback_ms() const;
  void evaluate(const std::vector<promql::Series>& series, std::int64_t from_ms, std::int64_t to_ms);
  // Firings in the order they started (then group, rule, labels).
  std::vector<Firing> finish();

 private:
  struct State;
  const std::vector<AlertGroup>& groups_;
  std::unique_ptr<State> state_;
};

// All of it at once: every group over `series` from 0 to end_ms (inclusive).
std::vector<Firing> evaluate_alerts(const std::vector<AlertGroup>& groups, const std::vector<promql::Series>& series,
                                    std::int64_t end_ms);

struct MetricsData;
// The exported series of a trace's metrics (analysis/metrics_series.hpp) with a sample in
// [from_s, to_s], as PromQL sees them once exported: the family's name (a counter's with
// "_total"), the labels, the samples at their simulated times in milliseconds.
std::vector<promql::Series> metrics_as_promql(const MetricsData& data, double from_s, double to_s);
// Every group over a run's metrics, from its start to its end: what `gcsim alerts`
// reports. The series are held by change (metrics_as_runs) and each rule evaluated by
// change (evaluate_alerts_by_change); when the samples are not on a grid of whole
// milliseconds that divides every group's interval, evaluate_trace_alerts_by_window.
std::vector<Firing> evaluate_trace_alerts(const MetricsData& data, const std::vector<AlertGroup>& groups);

// The straightforward evaluation, kept as the reference the evaluation by change is checked
// against: an hour of samples at a time (plus what the rules look back over) expanded from
// the trace, every evaluation of every rule computed from the samples (AlertEvaluator).
std::vector<Firing> evaluate_trace_alerts_by_window(const MetricsData& data, const std::vector<AlertGroup>& groups);

// Every group over series held by change on a grid of step_ms, at 0, interval, 2 x
// interval, ... up to end_ms (inclusive): the firings evaluate_alerts gives over the same
// samples, bit for bit, with each rule's expression recomputed only when a change of a
// series it reads is in its window (promql::GridEvaluation) and the alerts' `for` advanced
// at every evaluation. Every group's interval must be a multiple of step_ms.
std::vector<Firing> evaluate_alerts_by_change(const std::vector<AlertGroup>& groups,
                                              const std::vector<promql::RunSeries>& series, std::int64_t step_ms,
                                              std::int64_t end_ms);

// The exported series of a trace's metrics (as metrics_as_promql names them) that a rule of
// `groups` selects, over the whole run, held by change: runs of equal samples on the grid
// of step_ms. nullopt when a sample's time is not a multiple of step_ms, or when they take
// more than max_runs runs (a node counter rises at nearly every sample: a month of 625
// nodes' counters would be 2 x 10^8 runs, 5 GB; the windowed evaluation then keeps the
// memory bounded).
inline constexpr std::size_t MAX_RUNS = 20'000'000;  // 24 bytes each
std::optional<std::vector<promql::RunSeries>> metrics_as_runs(const MetricsData& data,
                                                              const std::vector<AlertGroup>& groups,
                                                              std::int64_t step_ms, std::size_t max_runs = MAX_RUNS);

// The alerts firing at the evaluation at `t_ms` (what `promtool test rules` lists at an
// eval_time), from the firings of evaluate_alerts.
std::vector<const Firing*> firing_at(const std::vector<Firing>& firings, std::int64_t t_ms);

}  // namespace gcsim::analysis
