// `gcsim compare`'s table and JSON (see strategy_comparison.hpp).
#include "analysis/strategy_comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/confidence.hpp"
#include "analysis/fairness.hpp"
#include "analysis/report.hpp"
#include "analysis/service_report.hpp"

namespace gcsim::analysis {

namespace {

constexpr std::size_t LABEL_WIDTH = 28;
constexpr std::size_t MIN_COLUMN_WIDTH = 12;

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

// A team's figure over the replications (NaN where the team has no job in a replication).
std::vector<double> team_values_of(const StrategyResult& v, const std::string& team, std::size_t figure) {
  std::vector<double> out;
  for (const auto& teams : v.team_replications) {
    double value = NOT_A_NUMBER;
    for (const auto& [name, figures] : teams)
      if (name == team) value = figures[figure];
    out.push_back(value);
  }
  return out;
}

// A service's figure over the replications (NaN where a replication does not have it).
std::vector<double> service_values_of(const StrategyResult& v, const std::string& service, std::size_t figure) {
  std::vector<double> out;
  for (const auto& services : v.service_replications) {
    double value = NOT_A_NUMBER;
    for (const auto& [name, figures] : services)
      if (name == service) value = figures[figure];
    out.push_back(value);
  }
  return out;
}

// Every service of any variant's runs, in the order they first appear (scenario order:
// every variant runs the same scenario).
std::vector<std::string> services_of(const std::vector<StrategyResult>& variants) {
  std::vector<std::string> services;
  for (const StrategyResult& v : variants)
    for (const auto& run : v.service_replications)
      for (const auto& [name, figures] : run)
        if (std::find(services.begin(), services.end(), name) == services.end()) services.push_back(name);
  return services;
}

// Every team of any variant's runs, sorted.
std::vector<std::string> teams_of(const std::vector<StrategyResult>& variants) {
  std::vector<std::string> teams;
  for (const StrategyResult& v : variants)
    for (const auto& run : v.team_replications)
      for (const auto& [name, figures] : run)
        if (std::find(teams.begin(), teams.end(), name) == teams.end()) teams.push_back(name);
  std::sort(teams.begin(), teams.end());
  return teams;
}

std::string cell_of(const std::vector<double>& values, FigureUnit unit, bool with_interval) {
  const MeanInterval m = mean_ci95(values);
  if (!with_interval) return format_figure(unit, m.mean, false);
  if (std::isnan(m.mean)) return "n/a";
  return format_figure(unit, m.mean, true) + " ± " +
         (std::isnan(m.half_width) ? "n/a" : format_figure(unit, m.half_width, true));
}

std::string json_figure(const std::vector<double>& values, int depth) {
  const MeanInterval m = mean_ci95(values);
  JsonObject figure(depth);
  figure.number("mean", m.mean);
  figure.number("ci95", m.half_width);
  std::string list = "[";
  for (std::size_t i = 0; i < values.size(); ++i) list += (i > 0 ? ", " : "") + json_number(values[i]);
  figure.raw("values", list + "]");
  return figure.finish();
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

std::string format_figure(FigureUnit unit, double v, bool of_replications) {
  switch (unit) {
    case FigureUnit::Usd: return format_usd(v);
    case FigureUnit::Fraction: return format_percent(v);
    case FigureUnit::Seconds: return format_duration(v);
    case FigureUnit::Count: return format_count(v, of_replications ? 1 : 0);
    case FigureUnit::GpuHours: return format_count(v, 1);
    case FigureUnit::Latency: return format_latency(v);
    case FigureUnit::Ratio: {
      if (!std::isfinite(v)) return "n/a";
      char text[32];
      std::snprintf(text, sizeof text, "%.3f", v);
      return text;
    }
  }
  return "n/a";
}

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

std::vector<std::pair<std::string, ServiceFigures>> service_figures(const TraceData& trace) {
  std::vector<std::pair<std::string, ServiceFigures>> out;
  for (const ServiceSummary& s : summarize_services(trace))
    out.emplace_back(s.record.name,
                     ServiceFigures{s.record.e2e_p99_s, s.record.slo_attained, s.cost_per_million_requests_usd});
  return out;
}

std::vector<std::pair<std::string, TeamFigures>> team_figures(const Metrics& m) {
  std::vector<std::pair<std::string, TeamFigures>> out;
  for (const TeamMetrics& t : m.teams) out.emplace_back(t.team, TeamFigures{t.wait_s.mean, t.jct_s.mean, t.gpu_hours_share});
  return out;
}

std::string format_strategy_table(const ComparisonHeader& header, const std::vector<StrategyResult>& variants) {
  const bool with_interval = header.replications > 1;
  // Rows: the figures, then per team its team figures.
  struct Row {
    std::string label;
    FigureUnit unit;
    bool ranked;
    std::vector<std::vector<double>> values;  // per variant
  };
  std::vector<Row> rows;
  for (std::size_t f = 0; f < STRATEGY_FIGURES.size(); ++f) {
    Row row{std::string(STRATEGY_FIGURES[f].label), STRATEGY_FIGURES[f].unit, lower_is_better(f), {}};
    for (const StrategyResult& v : variants) row.values.push_back(values_of(v, f));
    rows.push_back(std::move(row));
  }
  const std::vector<std::string> teams = teams_of(variants);
  for (const std::string& team : teams)
    for (std::size_t f = 0; f < TEAM_FIGURES.size(); ++f) {
      Row row{"  " + team + ": " + std::string(TEAM_FIGURES[f].label), TEAM_FIGURES[f].unit,
              TEAM_FIGURES[f].unit == FigureUnit::Seconds, {}};
      for (const StrategyResult& v : variants) row.values.push_back(team_values_of(v, team, f));
      rows.push_back(std::move(row));
    }
  const std::size_t services_from = rows.size();
  const std::vector<std::string> services = services_of(variants);
  for (const std::string& service : services)
    for (std::size_t f = 0; f < SERVICE_FIGURES.size(); ++f) {
      // Ranked where lower is better: the p99 and the cost, not the share attained.
      Row row{"  " + service + ": " + std::string(SERVICE_FIGURES[f].label), SERVICE_FIGURES[f].unit,
              SERVICE_FIGURES[f].unit != FigureUnit::Fraction, {}};
      for (const StrategyResult& v : variants) row.values.push_back(service_values_of(v, service, f));
      rows.push_back(std::move(row));
    }
  std::size_t label_width = LABEL_WIDTH;
  for (const Row& row : rows) label_width = std::max(label_width, row.label.size() + 2);

  std::vector<std::vector<std::string>> cells(rows.size());
  std::vector<std::size_t> width(variants.size(), MIN_COLUMN_WIDTH);
  for (std::size_t c = 0; c < variants.size(); ++c) width[c] = std::max(width[c], display_width(variants[c].label));
  std::vector<std::vector<bool>> marks(rows.size(), std::vector<bool>(variants.size(), false));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::vector<double> means;
    for (std::size_t c = 0; c < variants.size(); ++c) {
      cells[r].push_back(cell_of(rows[r].values[c], rows[r].unit, with_interval));
      width[c] = std::max(width[c], display_width(cells[r][c]));
      means.push_back(mean_ci95(rows[r].values[c]).mean);
    }
    if (!rows[r].ranked || variants.size() < 2) continue;
    // The best shown mean, unless every variant shows the same.
    std::vector<std::string> shown;
    for (std::size_t c = 0; c < variants.size(); ++c) shown.push_back(format_figure(rows[r].unit, means[c], with_interval));
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
  out += "\n  " + pad_right("", label_width);
  for (std::size_t c = 0; c < variants.size(); ++c) out += "  " + pad_to(variants[c].label, width[c]) + " ";
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += '\n';
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (r == STRATEGY_FIGURES.size() && !teams.empty()) out += "  teams\n";
    if (r == services_from && !services.empty()) out += "  services\n";
    out += "  " + pad_right(rows[r].label, label_width);
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
    for (std::size_t f = 0; f < STRATEGY_FIGURES.size(); ++f)
      figures.raw(std::string(STRATEGY_FIGURES[f].key), json_figure(values_of(v, f), 4));
    o.raw("figures", figures.finish());
    JsonObject teams(3);
    for (const std::string& team : teams_of({v})) {
      JsonObject per(4);
      for (std::size_t f = 0; f < TEAM_FIGURES.size(); ++f)
        per.raw(std::string(TEAM_FIGURES[f].key), json_figure(team_values_of(v, team, f), 5));
      teams.raw(team, per.finish());
    }
    o.raw("teams", teams.finish());
    const std::vector<std::string> services = services_of({v});
    if (!services.empty()) {
      JsonObject per_service(3);
      for (const std::string& service : services) {
        JsonObject per(4);
        for (std::size_t f = 0; f < SERVICE_FIGURES.size(); ++f)
          per.raw(std::string(SERVICE_FIGURES[f].key), json_figure(service_values_of(v, service, f), 5));
        per_service.raw(service, per.finish());
      }
      o.raw("services", per_service.finish());
    }
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
