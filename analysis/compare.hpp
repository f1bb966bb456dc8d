// Several runs side by side: `gcsim analyze A.h5 B.h5 ...` prints one table with a column
// per run and marks the lowest value of each row where lower is better (docs/analysis.md,
// "Comparing runs"). Works on metrics, so a run's trace need not stay in memory.
#pragma once

#include <string>
#include <vector>

#include "analysis/metrics.hpp"
#include "analysis/trace_data.hpp"

namespace gcsim::analysis {

struct ComparedRun {
  std::string trace_path;  // as given on the command line
  TraceAttributes attrs;
  Metrics metrics;
  std::vector<TeamBudget> budgets;
};

// The run's metrics and budgets, keeping only what the comparison needs of the trace.
ComparedRun compared_run(const std::string& trace_path, const TraceData& trace);

// Column headers: the scenario name; where two runs share one, the trace's file name is
// added ("spot (b.h5)"), and the whole path where file names clash too.
std::vector<std::string> comparison_labels(const std::vector<ComparedRun>& runs);

// The table: a row per metric, a column per run; '*' after the lowest value of each row
// where lower is better, unless every run has the same value.
std::string format_comparison(const std::vector<ComparedRun>& runs);

// {"runs": [{"trace": ..., "scenario": ..., "label": ..., <format_json's keys>}, ...]}
// with a newline at the end.
std::string format_comparison_json(const std::vector<ComparedRun>& runs);

}  // namespace gcsim::analysis
