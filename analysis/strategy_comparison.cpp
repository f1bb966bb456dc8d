// `gcsim compare`'s table and JSON (see strategy_comparison.hpp).
#include "analysis/strategy_comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/confidence.hpp"
#include "analysis/fairness.hpp"
#include "analysis/report.hpp"

namespace gcsim::analysis {

namespace {

constexpr std::size_t LABEL_WIDTH = 28;
constexpr std::size_t MIN_COLUMN_WIDTH = 12;

// `of_replications`: a mean or a half-width over replications, where counts get a decimal.
std::string format_value(FigureUnit unit, double v, bool of_replications) {
  switch (unit) {
    case FigureUnit::Usd: return format_usd(v);
    case FigureUnit::Fraction: return format_percent(v);
    case FigureUnit::Seconds: return format_duration(v);
    case FigureUnit::Count: return format_count(v, of_replications ? 1 : 0);
    case FigureUnit::GpuHours: return format_count(v, 1);
    case FigureUnit::Ratio: {
      if (!std::isfinite(v)) return "n/a";
      char text[32];
      std::snprintf(text, sizeof text, "%.3f", v);
      return text;
    }
  }
  return "n/a";
}

// Every figure is better lower but utilization (higher), Jain's index (higher) and the
// cost breakdown and job count (neither: they describe, they do not rank).
bool lower_is_better(std::size_t figure) {
  const std::string_view key = STRATEGY_FIGURES[figure].key;
  return key != "busy_cost_usd" && key != "idle_cost_usd" && key != "gpu_utilization" && key != "team_slowdown_jain" &&
         key != "jobs_completed";
}

std::vector<double> values_of(const StrategyResult& v, std::size_t figure) {
  std::vector<double> out;
  for (const StrategyFigures& f : v.replications) out.push_back(f[figure]);
  return out;
}

std::string cell(const StrategyResult& v, std::size_t figure, bool with_interval) {
  const std::vector<double> values = values_of(v, figure);
  const MeanInterval m = mean_ci95(values);
  const FigureUnit unit = STRATEGY_FIGURES[figure].unit;
  if (!with_interval) return format_value(unit, m.mean, false);
  if (std::isnan(m.mean)) return "n/a";
  return format_value(unit, m.mean, true) + " ± " +
         (std::isnan(m.half_width) ? "n/a" : format_value(unit, m.half_width, true));
}

// Display width in characters (the ± is two bytes of UTF-8).
std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

std::string pad_to(const std::string& s, std::size_t width) {
  const std::size_t w = display_width(s);
  return w >= width ? s : std::string(width - w, ' ') + s;
}

}  // namespace

StrategyFigures strategy_figures(const TraceData& trace, const Metrics& m) {
  return {m.total_cost_usd,
          m.busy_cost_usd,
          m.idle_cost_usd,
          m.gpu_utilization,
          m.jct_s.mean,
          m.jct_s.p50,
          m.jct_s.p95,
          m.jct_s.p99,
          m.wait_s.mean,
          m.wait_s.p95,
          m.jobs_completed > 0 ? m.makespan_s : NOT_A_NUMBER,
          static_cast<double>(m.interruptions),
          static_cast<double>(m.preemptions),
          m.gpu_hours_lost,
          team_slowdown_jain(trace),
          worst_finish_time_fairness(trace),
          static_cast<double>(m.jobs_completed)};
}

std::string format_strategy_table(const ComparisonHeader& header, const std::vector<StrategyResult>& variants) {
  const bool with_interval = header.replications > 1;
  std::vector<std::vector<std::string>> cells(STRATEGY_FIGURES.size());
  std::vector<std::size_t> width(variants.size(), MIN_COLUMN_WIDTH);
  for (std::size_t c = 0; c < variants.size(); ++c) width[c] = std::max(width[c], display_width(variants[c].label));
  std::vector<std::vector<bool>> marks(STRATEGY_FIGURES.size(), std::vector<bool>(variants.size(), false));
  for (std::size_t r = 0; r < STRATEGY_FIGURES.size(); ++r) {
    std::vector<double> means;
    for (std::size_t c = 0; c < variants.size(); ++c) {
      cells[r].push_back(cell(variants[c], r, with_interval));
      width[c] = std::max(width[c], display_width(cells[r][c]));
      means.push_back(mean_ci95(values_of(variants[c], r)).mean);
    }
    if (!lower_is_better(r) || variants.size() < 2) continue;
    // The best shown mean, unless every variant shows the same.
    std::vector<std::string> shown;
    for (std::size_t c = 0; c < variants.size(); ++c)
      shown.push_back(format_value(STRATEGY_FIGURES[r].unit, means[c], with_interval));
    std::size_t best = variants.size();
    for (std::size_t c = 0; c < variants.size(); ++c)
      if (!std::isnan(means[c]) && (best == variants.size() || means[c] < means[best])) best = c;
    if (best == variants.size()) continue;
    if (std::all_of(shown.begin(), shown.end(), [&](const std::string& s) { return s == shown[best]; })) continue;
    for (std::size_t c = 0; c < variants.size(); ++c) marks[r][c] = !std::isnan(means[c]) && shown[c] == shown[best];
  }

  std::string out = "gcsim compare: scenario '" + header.scenario_name + "' (" + header.scenario_file + "), seed " +
                    std::to_string(header.seed) + ", " + std::to_string(header.replications) +
                    (header.replications == 1 ? " replication" : " replications") + ", " +
                    std::to_string(variants.size()) + (variants.size() == 1 ? " strategy" : " strategies") + "\n";
  out += "\n  " + pad_right("", LABEL_WIDTH);
  for (std::size_t c = 0; c < variants.size(); ++c) out += "  " + pad_to(variants[c].label, width[c]) + " ";
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += '\n';
  for (std::size_t r = 0; r < STRATEGY_FIGURES.size(); ++r) {
    out += "  " + pad_right(std::string(STRATEGY_FIGURES[r].label), LABEL_WIDTH);
    for (std::size_t c = 0; c < variants.size(); ++c) out += "  " + pad_to(cells[r][c], width[c]) + (marks[r][c] ? "*" : " ");
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  }
  out += "\n  * best in its row, where lower is better";
  if (with_interval) out += "; mean ± half-width of the 95% Student t interval over the replications";
  out += "\n  rho = JCT / time alone; Jain index over the teams' mean rho (docs/analysis.md)\n";
  return out;
}

std::string format_strategy_json(const ComparisonHeader& header, const std::vector<StrategyResult>& variants) {
  std::vector<std::string> items;
  for (const StrategyResult& v : variants) {
    JsonObject o(2);
    o.string("label", v.label);
    o.string("policy", v.scheduler_yaml);
    JsonObject figures(3);
    for (std::size_t f = 0; f < STRATEGY_FIGURES.size(); ++f) {
      const std::vector<double> values = values_of(v, f);
      const MeanInterval m = mean_ci95(values);
      JsonObject figure(4);
      figure.number("mean", m.mean);
      figure.number("ci95", m.half_width);
      std::string list = "[";
      for (std::size_t i = 0; i < values.size(); ++i) list += (i > 0 ? ", " : "") + json_number(values[i]);
      figure.raw("values", list + "]");
      figures.raw(std::string(STRATEGY_FIGURES[f].key), figure.finish());
    }
    o.raw("figures", figures.finish());
    items.push_back(o.finish());
  }
  JsonObject top;
  top.string("scenario", header.scenario_name);
  top.string("scenario_file", header.scenario_file);
  top.raw("seed", std::to_string(header.seed));
  top.integer("replications", static_cast<std::int64_t>(header.replications));
  top.raw("variants", json_array(items, 1));
  return top.finish() + "\n";
}

}  // namespace gcsim::analysis
