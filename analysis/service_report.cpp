// Inference services in a trace (see service_report.hpp).
#include "analysis/service_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <iterator>
#include <limits>

#include "analysis/plot_support.hpp"
#include "analysis/plots.hpp"
#include "analysis/report.hpp"

namespace gcsim::analysis {

namespace fs = std::filesystem;

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t LABEL_WIDTH = 28;
constexpr std::size_t VALUE_WIDTH = 12;

void slo_check(std::vector<SloCheck>& out, std::string_view what, double target_s, double p99_s) {
  if (std::isnan(target_s)) return;
  out.push_back({what, target_s, p99_s, std::isnan(p99_s) ? -1 : (p99_s <= target_s ? 1 : 0)});
}

void row(std::string& out, const std::string& label, const std::string& value, const std::string& note = "") {
  out += "    " + pad_right(label, LABEL_WIDTH) + " " + value;
  if (!note.empty()) out += "  " + note;
  out += '\n';
}

void latency_row(std::string& out, const std::string& label, std::initializer_list<double> values) {
  out += "    " + pad_right(label, LABEL_WIDTH);
  for (double v : values) out += pad_left(format_latency(v), VALUE_WIDTH);
  out += '\n';
}

}  // namespace

std::vector<ServiceSummary> summarize_services(const TraceData& trace) {
  std::vector<ServiceSummary> out;
  for (const ServiceRecord& r : trace.services) {
    ServiceSummary s;
    s.record = r;
    slo_check(s.slo, "p99", r.slo_p99_s, r.e2e_p99_s);
    slo_check(s.slo, "ttft_p99", r.slo_ttft_p99_s, r.ttft_p99_s);
    slo_check(s.slo, "tpot_p99", r.slo_tpot_p99_s, r.tpot_p99_s);
    s.gpu_hours = r.replica_gpu_s / 3600.0;
    s.cost_per_million_requests_usd = r.completed > 0 ? r.cost_usd / static_cast<double>(r.completed) * 1e6 : NaN;
    s.cost_per_million_output_tokens_usd =
        r.output_tokens > 0 ? r.cost_usd / static_cast<double>(r.output_tokens) * 1e6 : NaN;
    out.push_back(std::move(s));
  }
  return out;
}

std::string format_latency(double seconds) {
  if (std::isnan(seconds)) return "n/a";
  if (std::isinf(seconds)) return format_duration(seconds);
  char buf[64];
  const double a = std::fabs(seconds);
  if (a < 1e-3) std::snprintf(buf, sizeof buf, "%.0fus", seconds * 1e6);
  else if (a < 1.0) std::snprintf(buf, sizeof buf, "%.1fms", seconds * 1e3);
  else if (a < 60.0) std::snprintf(buf, sizeof buf, "%.2fs", seconds);
  else return format_duration(seconds);
  return buf;
}

std::string format_services(const std::vector<ServiceSummary>& services) {
  if (services.empty()) return "";
  std::string out = "\nServices (docs/serving.md)\n";
  for (const ServiceSummary& s : services) {
    const ServiceRecord& r = s.record;
    std::string about;
    if (!r.model.empty()) about += "model " + r.model;
    if (!r.team.empty()) about += std::string(about.empty() ? "" : ", ") + "team " + r.team;
    out += "  " + r.name + (about.empty() ? "" : " (" + about + ")") + "\n";
    row(out, "requests", format_count(static_cast<double>(r.arrived), 0) + " arrived, " +
                             format_count(static_cast<double>(r.completed), 0) + " completed, " +
                             format_count(static_cast<double>(r.unfinished), 0) + " unfinished at the end" +
                             (r.refused > 0 ? ", " + format_count(static_cast<double>(r.refused), 0) + " refused" : std::string()));
    out += "    " + pad_right("", LABEL_WIDTH);
    for (const char* h : {"mean", "p50", "p95", "p99"}) out += pad_left(h, VALUE_WIDTH);
    out += '\n';
    latency_row(out, "end-to-end", {r.e2e_mean_s, r.e2e_p50_s, r.e2e_p95_s, r.e2e_p99_s});
    if (!std::isnan(r.ttft_p99_s) || !std::isnan(r.tpot_p99_s) || r.output_tokens > 0) {
      latency_row(out, "time to first token", {NaN, r.ttft_p50_s, r.ttft_p95_s, r.ttft_p99_s});
      latency_row(out, "time per output token", {NaN, r.tpot_p50_s, r.tpot_p95_s, r.tpot_p99_s});
    }
    row(out, "wait (arrival to start)", format_latency(r.wait_mean_s), "mean");
    for (const SloCheck& c : s.slo)
      row(out, "SLO " + std::string(c.what) + " <= " + format_latency(c.target_s),
          "p99 " + format_latency(c.p99_s) + ": " + (c.met == 1 ? "met" : c.met == 0 ? "MISSED" : "n/a"));
    if (!s.slo.empty())
      row(out, "within every target", format_percent(r.slo_attained), "of the completed requests");
    row(out, "replicas", "at most " + std::to_string(r.replicas_max) + " up");
    if (r.cold_starts > 0)
      row(out, "cold starts", format_count(static_cast<double>(r.cold_starts), 0),
          "(" + format_latency(r.cold_start_s) + " in all)");
    row(out, "GPU-hours", format_count(s.gpu_hours, 1));
    row(out, "cost", format_usd(r.cost_usd));
    row(out, "per million requests", format_usd(s.cost_per_million_requests_usd), "(cost / completed requests)");
    if (r.output_tokens > 0)
      row(out, "per million output tokens", format_usd(s.cost_per_million_output_tokens_usd),
          "(" + format_count(static_cast<double>(r.output_tokens), 0) + " output tokens)");
    if (r.sample_every > 1)
      row(out, "requests in the trace", format_count(static_cast<double>(r.request_rows), 0),
          "(1 in " + std::to_string(r.sample_every) + " completed: output.request_rows)");
  }
  return out;
}

std::string services_json(const std::vector<ServiceSummary>& services, int depth) {
  std::vector<std::string> items;
  for (const ServiceSummary& s : services) {
    const ServiceRecord& r = s.record;
    JsonObject o(depth + 1);
    o.string("name", r.name);
    o.string("team", r.team);
    o.string("model", r.model);
    o.integer("arrived", r.arrived);
    o.integer("completed", r.completed);
    o.integer("unfinished", r.unfinished);
    o.number("e2e_mean_s", r.e2e_mean_s);
    o.number("e2e_p50_s", r.e2e_p50_s);
    o.number("e2e_p95_s", r.e2e_p95_s);
    o.number("e2e_p99_s", r.e2e_p99_s);
    o.number("wait_mean_s", r.wait_mean_s);
    o.number("ttft_p50_s", r.ttft_p50_s);
    o.number("ttft_p95_s", r.ttft_p95_s);
    o.number("ttft_p99_s", r.ttft_p99_s);
    o.number("tpot_p50_s", r.tpot_p50_s);
    o.number("tpot_p95_s", r.tpot_p95_s);
    o.number("tpot_p99_s", r.tpot_p99_s);
    const auto met = [&](std::string_view what) {
      for (const SloCheck& c : s.slo)
        if (c.what == what) return c.met;
      return -1;
    };
    o.number("slo_p99_s", r.slo_p99_s);
    o.boolean_or_null("slo_p99_met", met("p99"));
    o.number("slo_ttft_p99_s", r.slo_ttft_p99_s);
    o.boolean_or_null("slo_ttft_p99_met", met("ttft_p99"));
    o.number("slo_tpot_p99_s", r.slo_tpot_p99_s);
    o.boolean_or_null("slo_tpot_p99_met", met("tpot_p99"));
    o.number("slo_attained", r.slo_attained);
    o.integer("prompt_tokens", r.prompt_tokens);
    o.integer("output_tokens", r.output_tokens);
    o.integer("replicas_max", r.replicas_max);
    o.number("gpu_hours", s.gpu_hours);
    o.number("cost_usd", r.cost_usd);
    o.number("cost_per_million_requests_usd", s.cost_per_million_requests_usd);
    o.number("cost_per_million_output_tokens_usd", s.cost_per_million_output_tokens_usd);
    o.integer("sample_every", r.sample_every);
    o.integer("request_rows", r.request_rows);
    o.integer("refused", r.refused);
    o.integer("cold_starts", r.cold_starts);
    o.number("cold_start_s", r.cold_start_s);
    items.push_back(o.finish());
  }
  return json_array(items, depth);
}

std::vector<std::string> plot_services(const TraceData& trace, const std::string& dir, const std::string& suffix) {
  using namespace plotting;
  if (trace.services.empty() || trace.service_series.empty()) return {};
  const double end_s = trace.attrs.end_s;
  const TimeUnit unit = time_unit_for(end_s);
  static constexpr const char* COLORS[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  const auto color = [](std::size_t i) { return gp_quote(COLORS[i % std::size(COLORS)]); };

  struct Lines {
    Points p50, p99, ttft, up, wanted;
  };
  std::vector<Lines> lines(trace.services.size());
  double lat_lo = std::numeric_limits<double>::infinity(), lat_hi = 0, replicas_top = 1;
  const auto latency_point = [&](Points& pts, double x, double v) {
    if (!(v > 0) || !std::isfinite(v)) return;  // no request completed in the interval
    pts.emplace_back(x, v);
    lat_lo = std::min(lat_lo, v);
    lat_hi = std::max(lat_hi, v);
  };
  // A row covers [t_s, t_s + interval_s): latencies are drawn at the interval's end (what had
  // completed by then), replicas as steps from its end on (counted at the end).
  for (const ServiceSampleRecord& s : trace.service_series) {
    std::size_t i = trace.services.size();
    for (std::size_t k = 0; k < trace.services.size(); ++k)
      if (trace.services[k].service == s.service) i = k;
    if (i == trace.services.size()) continue;
    const double x = (s.t_s + s.interval_s) / unit.seconds;
    latency_point(lines[i].p50, x, s.e2e_p50_s);
    latency_point(lines[i].p99, x, s.e2e_p99_s);
    if (!std::isnan(trace.services[i].slo_ttft_p99_s)) latency_point(lines[i].ttft, x, s.ttft_p99_s);
    lines[i].up.emplace_back(x, s.replicas_up);
    lines[i].wanted.emplace_back(x, s.replicas_wanted);
    replicas_top = std::max({replicas_top, static_cast<double>(s.replicas_up), static_cast<double>(s.replicas_wanted)});
  }
  for (const ServiceRecord& r : trace.services)
    for (double target : {r.slo_p99_s, r.slo_ttft_p99_s})
      if (target > 0 && std::isfinite(target)) {
        lat_lo = std::min(lat_lo, target);
        lat_hi = std::max(lat_hi, target);
      }

  std::vector<std::string> paths;
  if (lat_hi > 0) {
    paths.push_back(plot_png(fs::path(dir), "service_latency" + suffix, [&](Gnuplot& gp) {
      gp << "set title 'Request latency over time (per interval; SLO targets dashed)'\n";
      set_time_area(gp, end_s, unit);
      gp << "set ylabel 'latency (s)'\n";
      gp << "set logscale y\n";
      gp << "set yrange [" << gp_number(lat_lo / 2) << ":" << gp_number(lat_hi * 2) << "]\n";
      gp << "set key outside top center horizontal\n";
      std::string cmd;
      std::vector<const Points*> data;
      const auto add = [&](const Points& pts, const std::string& style, const std::string& title) {
        if (pts.empty()) return;
        cmd += std::string(cmd.empty() ? "plot " : ", ") + "'-' using 1:2 " + style + " title " + gp_quote(title);
        data.push_back(&pts);
      };
      std::vector<Points> targets;
      targets.reserve(trace.services.size() * 2);
      for (std::size_t i = 0; i < trace.services.size(); ++i) {
        const ServiceRecord& r = trace.services[i];
        add(lines[i].p50, "with lines lw 1 lc rgb " + color(i), r.name + " p50");
        add(lines[i].p99, "with lines lw 2 lc rgb " + color(i), r.name + " p99");
        add(lines[i].ttft, "with lines lw 2 dt 3 lc rgb " + color(i), r.name + " TTFT p99");
        for (const auto& [target, what] : {std::pair{r.slo_p99_s, " SLO p99"}, std::pair{r.slo_ttft_p99_s, " SLO TTFT p99"}})
          if (target > 0 && std::isfinite(target)) {
            targets.push_back({{0.0, target}, {end_s / unit.seconds, target}});
            add(targets.back(), "with lines lw 1 dt 2 lc rgb " + color(i), r.name + what);
          }
      }
      gp << cmd << "\n";
      for (const Points* p : data) gp.send1d(*p);
    }));
  }
  if (std::all_of(lines.begin(), lines.end(), [](const Lines& l) { return l.up.empty(); })) return paths;
  paths.push_back(plot_png(fs::path(dir), "service_replicas" + suffix, [&](Gnuplot& gp) {
    gp << "set title 'Replicas over time (up solid, wanted dashed)'\n";
    set_time_area(gp, end_s, unit);
    gp << "set ylabel 'replicas'\n";
    gp << "set yrange [0:" << gp_number(std::ceil(replicas_top * 1.1) + 0.5) << "]\n";
    gp << "set key outside top center horizontal\n";
    std::string cmd;
    std::vector<const Points*> data;
    for (std::size_t i = 0; i < trace.services.size(); ++i) {
      if (lines[i].up.empty()) continue;
      const std::string& name = trace.services[i].name;
      cmd += std::string(cmd.empty() ? "plot " : ", ") + "'-' using 1:2 with steps lw 2 lc rgb " + color(i) +
             " title " + gp_quote(name + " up") + ", '-' using 1:2 with steps lw 1 dt 2 lc rgb " + color(i) +
             " title " + gp_quote(name + " wanted");
      data.push_back(&lines[i].up);
      data.push_back(&lines[i].wanted);
    }
    gp << cmd << "\n";
    for (const Points* p : data) gp.send1d(*p);
  }));
  return paths;
}

}  // namespace gcsim::analysis
