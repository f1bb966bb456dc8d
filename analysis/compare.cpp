// The comparison table and its JSON (see compare.hpp). Rows are built as values first and
// formatted once, so the '*' marks compare what the reader sees: two costs that both print
// as $100.00 tie.
#include "analysis/compare.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <functional>

#include "analysis/report.hpp"

namespace gcsim::analysis {

namespace {

constexpr std::size_t LABEL_WIDTH = 26;
constexpr std::size_t MIN_COLUMN_WIDTH = 12;

struct Row {
  std::string label;
  std::vector<double> values;  // one per run, NaN where undefined
  std::function<std::string(double)> format;
  bool lower_is_better = false;
  std::vector<std::string> text;  // rows that are text, not numbers (values unused)
};

// Which cells of a row get a '*': the lowest shown values, when at least two runs have a
// value and not all shown values are equal.
std::vector<bool> lowest_marks(const std::vector<double>& values, const std::vector<std::string>& shown) {
  std::vector<bool> marks(values.size(), false);
  std::size_t best = values.size();
  std::size_t defined = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i])) continue;
    ++defined;
    if (best == values.size() || values[i] < values[best]) best = i;
  }
  if (defined < 2) return marks;
  bool all_same = true;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isnan(values[i]) && shown[i] != shown[best]) all_same = false;
  if (all_same) return marks;
  for (std::size_t i = 0; i < values.size(); ++i) marks[i] = !std::isnan(values[i]) && shown[i] == shown[best];
  return marks;
}

// The ledger categories in report order; others (from a newer trace) follow in first-seen order.
std::vector<std::string> category_names(const std::vector<ComparedRun>& runs) {
  std::vector<std::string> names;
  for (std::string_view c : CATEGORY_REPORT_ORDER)
    for (const ComparedRun& r : runs)
      if (std::any_of(r.metrics.cost_by_category_usd.begin(), r.metrics.cost_by_category_usd.end(),
                      [&](const auto& e) { return e.first == c; })) {
        names.emplace_back(c);
        break;
      }
  for (const ComparedRun& r : runs)
    for (const auto& [name, usd] : r.metrics.cost_by_category_usd)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  return names;
}

std::string format_hours(double h) { return format_count(h, 1); }
std::string format_integer(double v) { return format_count(v, 0); }

std::vector<Row> comparison_rows(const std::vector<ComparedRun>& runs) {
  // Schema-1 traces carry no interruption columns: their figures are unknown, not zero.
  const auto per_run = [&](const std::function<double(const ComparedRun&)>& get, bool needs_schema_2 = false) {
    std::vector<double> v;
    for (const ComparedRun& r : runs) v.push_back(needs_schema_2 && r.attrs.trace_schema < 2 ? NOT_A_NUMBER : get(r));
    return v;
  };
  std::vector<Row> rows;
  rows.push_back({"total cost", per_run([](const ComparedRun& r) { return r.metrics.total_cost_usd; }), format_usd, true, {}});
  for (const std::string& name : category_names(runs)) {
    rows.push_back({"  " + name, per_run([&](const ComparedRun& r) {
                      const auto& c = r.metrics.cost_by_category_usd;
                      if (c.empty()) return NOT_A_NUMBER;  // no ledger in this trace
                      const auto it = std::find_if(c.begin(), c.end(), [&](const auto& e) { return e.first == name; });
                      return it == c.end() ? 0.0 : it->second;
                    }),
                    format_usd, false, {}});
  }
  rows.push_back({"GPU-hours delivered", per_run([](const ComparedRun& r) { return r.metrics.gpu_hours_delivered; }),
                  format_hours, false, {}});
  rows.push_back({"GPU-hours useful", per_run([](const ComparedRun& r) { return r.metrics.gpu_hours_useful; }, true),
                  format_hours, false, {}});
  rows.push_back({"GPUs allocated", per_run([](const ComparedRun& r) { return r.metrics.gpu_utilization; }), format_percent,
                  false, {}});
  rows.push_back({"GPUs busy", per_run([](const ComparedRun& r) { return r.metrics.gpu_busy_share; }), format_percent,
                  false, {}});
  Row jobs{"jobs completed / total", std::vector<double>(runs.size(), NOT_A_NUMBER), nullptr, false, {}};
  for (const ComparedRun& r : runs)
    jobs.text.push_back(format_integer(static_cast<double>(r.metrics.jobs_completed)) + " / " +
                        format_integer(static_cast<double>(r.metrics.jobs_total)));
  rows.push_back(std::move(jobs));
  // Jobs that came and never ran, apart from those the run ended before (not starved);
  // shown when some run has either.
  const auto any = [&](auto get) { return std::any_of(runs.begin(), runs.end(), [&](const ComparedRun& r) { return get(r) > 0; }); };
  const auto after = [](const ComparedRun& r) { return r.metrics.jobs_submitted_after_horizon; };
  if (any([](const ComparedRun& r) { return r.metrics.jobs_never_started; }) || any(after))
    rows.push_back({"jobs never started",
                    per_run([](const ComparedRun& r) { return static_cast<double>(r.metrics.jobs_never_started); }),
                    format_integer, true, {}});
  if (any(after))
    rows.push_back({"submitted after horizon",
                    per_run([](const ComparedRun& r) { return static_cast<double>(r.metrics.jobs_submitted_after_horizon); }),
                    format_integer, false, {}});
  rows.push_back({"mean wait", per_run([](const ComparedRun& r) { return r.metrics.wait_s.mean; }), format_duration, true, {}});
  rows.push_back({"mean JCT", per_run([](const ComparedRun& r) { return r.metrics.jct_s.mean; }), format_duration, true, {}});
  rows.push_back({"p95 JCT", per_run([](const ComparedRun& r) { return r.metrics.jct_s.p95; }), format_duration, true, {}});
  rows.push_back({"makespan", per_run([](const ComparedRun& r) { return r.metrics.makespan_s; }), format_duration, true, {}});
  rows.push_back({"interruptions",
                  per_run([](const ComparedRun& r) { return static_cast<double>(r.metrics.interruptions); }, true),
                  format_integer, true, {}});
  rows.push_back({"lost GPU-hours", per_run([](const ComparedRun& r) { return r.metrics.gpu_hours_lost; }, true),
                  format_hours, true, {}});
  rows.push_back({"checkpoint GPU-hours", per_run([](const ComparedRun& r) { return r.metrics.gpu_hours_checkpoint; }, true),
                  format_hours, true, {}});
  rows.push_back({"cost per useful GPU-hour",
                  per_run([](const ComparedRun& r) { return r.metrics.cost_per_useful_gpu_hour_usd; }, true), format_usd,
                  true, {}});
  rows.push_back({"cost per completed job", per_run([](const ComparedRun& r) { return r.metrics.cost_per_completed_job_usd; }),
                  format_usd, true, {}});
  return rows;
}

}  // namespace

ComparedRun compared_run(const std::string& trace_path, const TraceData& trace) {
  return {trace_path, trace.attrs, compute_metrics(trace), team_budgets(trace)};
}

std::vector<std::string> comparison_labels(const std::vector<ComparedRun>& runs) {
  const auto file_name = [](const std::string& path) { return std::filesystem::path(path).filename().string(); };
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string& name = runs[i].attrs.scenario_name;
    if (name.empty()) {
      labels.push_back(file_name(runs[i].trace_path));
      continue;
    }
    bool name_clash = false;
    bool file_clash = false;
    for (std::size_t k = 0; k < runs.size(); ++k) {
      if (k == i || runs[k].attrs.scenario_name != name) continue;
      name_clash = true;
      file_clash = file_clash || file_name(runs[k].trace_path) == file_name(runs[i].trace_path);
    }
    if (!name_clash) labels.push_back(name);
    else labels.push_back(name + " (" + (file_clash ? runs[i].trace_path : file_name(runs[i].trace_path)) + ")");
  }
  return labels;
}

std::string format_comparison(const std::vector<ComparedRun>& runs) {
  const std::vector<std::string> labels = comparison_labels(runs);
  const std::vector<Row> rows = comparison_rows(runs);

  // Cells first, so that each column is as wide as its widest cell.
  std::vector<std::vector<std::string>> cells;
  std::vector<std::vector<bool>> marks;
  std::vector<std::size_t> width(runs.size(), MIN_COLUMN_WIDTH);
  for (std::size_t c = 0; c < runs.size(); ++c) width[c] = std::max(width[c], labels[c].size());
  for (const Row& row : rows) {
    std::vector<std::string> shown = row.text;
    if (shown.empty())
      for (double v : row.values) shown.push_back(row.format(v));
    marks.push_back(row.lower_is_better ? lowest_marks(row.values, shown) : std::vector<bool>(runs.size(), false));
    for (std::size_t c = 0; c < runs.size(); ++c) width[c] = std::max(width[c], shown[c].size());
    cells.push_back(std::move(shown));
  }

  std::size_t identity_width = LABEL_WIDTH;
  for (const std::string& l : labels) identity_width = std::max(identity_width, l.size() + 2);
  std::string out = "gcsim comparison of " + std::to_string(runs.size()) + " runs\n";
  for (std::size_t c = 0; c < runs.size(); ++c) {
    const TraceAttributes& a = runs[c].attrs;
    out += "  " + pad_right(labels[c], identity_width) + runs[c].trace_path + "  (seed " + std::to_string(a.seed) +
           ", replication " + std::to_string(a.replication) + ", " + format_duration(a.end_s) + ")\n";
  }
  out += "\n  " + pad_right("", LABEL_WIDTH);
  for (std::size_t c = 0; c < runs.size(); ++c) out += "  " + pad_left(labels[c], width[c]) + " ";
  out.pop_back();
  out += '\n';
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out += "  " + pad_right(rows[r].label, LABEL_WIDTH);
    for (std::size_t c = 0; c < runs.size(); ++c) out += "  " + pad_left(cells[r][c], width[c]) + (marks[r][c] ? "*" : " ");
    // No trailing blanks.
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  }
  out += "\n  * lowest in its row, where lower is better\n";
  return out;
}

std::string format_comparison_json(const std::vector<ComparedRun>& runs) {
  const std::vector<std::string> labels = comparison_labels(runs);
  std::vector<std::string> items;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const ComparedRun& r = runs[i];
    JsonObject o(2);
    o.string("trace", r.trace_path);
    o.string("scenario", r.attrs.scenario_name);
    o.string("label", labels[i]);
    append_run_json(o, r.attrs, r.metrics);
    append_metrics_json(o, r.metrics, r.budgets);
    items.push_back(o.finish());
  }
  JsonObject top;
  top.raw("runs", json_array(items, 1));
  return top.finish() + "\n";
}

}  // namespace gcsim::analysis
