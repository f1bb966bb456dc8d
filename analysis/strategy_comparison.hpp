// `gcsim compare`'s table and JSON: the figures of each scheduling strategy (a variant of
// the scenario's `scheduler:` section) over its replications, a column per variant and a
// row per figure, with each figure's mean and 95% Student t interval when there are several
// replications (docs/analysis.md, "Comparing strategies"). Works on figures, so a run's trace
// need not stay in memory.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/metrics.hpp"
#include "analysis/trace_data.hpp"

namespace gcsim::analysis {

// Latency: a request's latency, to the millisecond (format_latency, analysis/service_report.hpp).
enum class FigureUnit { Usd, Fraction, Seconds, Count, GpuHours, Ratio, Latency };

struct FigureDefinition {
  std::string_view key;    // the JSON key
  std::string_view label;  // the table's row
  FigureUnit unit;
};

// Every figure, in table order: cost (total, busy, idle), utilization, JCT (mean, p50, p95,
// p99), wait (mean, p95), makespan, interruptions, preemptions, lost GPU-hours, Jain's index over the
// teams' mean slowdowns, the worst finish-time fairness rho.
inline constexpr std::array<FigureDefinition, 17> STRATEGY_FIGURES = {{
    {"total_cost_usd", "total cost", FigureUnit::Usd},
    {"busy_cost_usd", "  busy", FigureUnit::Usd},
    {"idle_cost_usd", "  idle", FigureUnit::Usd},
    {"gpu_utilization", "GPUs allocated", FigureUnit::Fraction},
    {"jct_mean_s", "JCT mean", FigureUnit::Seconds},
    {"jct_p50_s", "JCT p50", FigureUnit::Seconds},
    {"jct_p95_s", "JCT p95", FigureUnit::Seconds},
    {"jct_p99_s", "JCT p99", FigureUnit::Seconds},
    {"wait_mean_s", "wait mean", FigureUnit::Seconds},
    {"wait_p95_s", "wait p95", FigureUnit::Seconds},
    {"makespan_s", "makespan", FigureUnit::Seconds},
    {"interruptions", "interruptions", FigureUnit::Count},
    {"preemptions", "preemptions", FigureUnit::Count},
    {"gpu_hours_lost", "lost GPU-hours", FigureUnit::GpuHours},
    {"team_slowdown_jain", "Jain index, team slowdown", FigureUnit::Ratio},
    {"worst_rho", "worst rho (JCT / alone)", FigureUnit::Ratio},
    {"jobs_completed", "jobs completed", FigureUnit::Count},
}};

using StrategyFigures = std::array<double, STRATEGY_FIGURES.size()>;

// The index in STRATEGY_FIGURES of the figure named `key`, or STRATEGY_FIGURES.size() when
// there is none; and its unit (Ratio for an unknown key).
constexpr std::size_t figure_index(std::string_view key) {
  for (std::size_t i = 0; i < STRATEGY_FIGURES.size(); ++i)
    if (STRATEGY_FIGURES[i].key == key) return i;
  return STRATEGY_FIGURES.size();
}
constexpr FigureUnit figure_unit(std::string_view key) {
  const std::size_t i = figure_index(key);
  return i < STRATEGY_FIGURES.size() ? STRATEGY_FIGURES[i].unit : FigureUnit::Ratio;
}

// A figure's value as the tables write it ("$1,234.50", "45.2%", "3h 5m", "1,234"); a mean
// or half-width over replications (`of_replications`) gives counts a decimal.
std::string format_figure(FigureUnit unit, double v, bool of_replications);

// One run's figures, in STRATEGY_FIGURES order (NaN where undefined).
StrategyFigures strategy_figures(const TraceData& trace, const Metrics& metrics);

// Per team, below the table: each team's mean wait, mean JCT and share of the GPU-hours
// held (TeamMetrics), in this order.
inline constexpr std::array<FigureDefinition, 3> TEAM_FIGURES = {{
    {"wait_mean_s", "wait mean", FigureUnit::Seconds},
    {"jct_mean_s", "JCT mean", FigureUnit::Seconds},
    {"gpu_hours_share", "GPU-hour share", FigureUnit::Fraction},
}};
using TeamFigures = std::array<double, TEAM_FIGURES.size()>;
// One run's figures per team named by a job, by team name.
std::vector<std::pair<std::string, TeamFigures>> team_figures(const Metrics& metrics);

// Per inference service (analysis/service_report.hpp), below the teams: its end-to-end p99,
// the share of its completed requests within every SLO target, its cost per million
// completed requests, in this order.
inline constexpr std::array<FigureDefinition, 3> SERVICE_FIGURES = {{
    {"e2e_p99_s", "p99", FigureUnit::Latency},
    {"slo_attained", "SLO attained", FigureUnit::Fraction},
    {"cost_per_million_requests_usd", "per million requests", FigureUnit::Usd},
}};
using ServiceFigures = std::array<double, SERVICE_FIGURES.size()>;
// One run's figures per service, by service name, in scenario order (none without services).
std::vector<std::pair<std::string, ServiceFigures>> service_figures(const TraceData& trace);

// One variant: its label (the --policy text, or an @FILE's label or stem), the scheduler
// section it ran as YAML, and each replication's figures (and per-team figures),
// replication 0 first.
struct StrategyResult {
  std::string label;
  std::string scheduler_yaml;
  std::vector<StrategyFigures> replications;
  std::vector<std::vector<std::pair<std::string, TeamFigures>>> team_replications;  // empty: none given
  std::vector<std::vector<std::pair<std::string, ServiceFigures>>> service_replications;  // empty: none given
};

// What every variant shares.
struct ComparisonHeader {
  std::string scenario_name;
  std::string scenario_file;
  std::uint64_t seed = 0;
  std::uint64_t replications = 1;
};

// The table: with one replication each cell is the value; with more, `mean ± half-width`
// of the 95% interval. '*' marks the best mean of a row where lower is better. When jobs
// name teams, a row per team and team figure follows; when the run has services, a row per
// service and service figure.
std::string format_strategy_table(const ComparisonHeader& header, const std::vector<StrategyResult>& variants);

// {"scenario": ..., "seed": ..., "replications": R, "variants": [{"label": ..., "policy":
// <scheduler YAML>, "figures": {KEY: {"mean": m, "ci95": h, "values": [...]}, ...},
// "teams": {TEAM: {KEY: {...}, ...}, ...}, "services": {SERVICE: {KEY: {...}, ...}, ...}
// (only when the run has services)}, ...]}, NaN as null; a newline at the end.
std::string format_strategy_json(const ComparisonHeader& header, const std::vector<StrategyResult>& variants);

}  // namespace gcsim::analysis
