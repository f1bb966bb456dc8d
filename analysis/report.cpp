// Text report and JSON summary of one run. The JSON is written by hand (no JSON library
// is a dependency); std::to_chars gives the shortest round-trip text of each double.
#include "analysis/report.hpp"
#include "sim/units.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

namespace gcsim::analysis {

namespace {

std::string printf_string(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

// Digits with thousands separators: 1234567 -> "1,234,567".
std::string group_thousands(std::string digits) {
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<std::size_t>(i), ",");
  return digits;
}

constexpr std::size_t LABEL_WIDTH = 24;
constexpr std::size_t VALUE_WIDTH = 14;

void line(std::string& out, const std::string& label, const std::string& value, const std::string& note = "") {
  out += "  " + pad_right(label, LABEL_WIDTH) + pad_left(value, VALUE_WIDTH);
  if (!note.empty()) out += "  " + note;
  out += '\n';
}

// Identity lines: the value is text, left-aligned after the label.
void info(std::string& out, const std::string& label, const std::string& text) {
  out += "  " + pad_right(label, LABEL_WIDTH) + text + '\n';
}

void distribution_row(std::string& out, const std::string& label, const Distribution& d) {
  out += "  " + pad_right(label, LABEL_WIDTH);
  for (double v : {d.mean, d.p50, d.p95, d.p99, d.max}) out += pad_left(format_duration(v), 12);
  out += '\n';
}

void append_utf8_escaped(std::string& out, std::string_view text) {
  static const char* HEX = "0123456789abcdef";
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (c < 0x20) {
            out += "\\u00";
            out += HEX[c >> 4];
            out += HEX[c & 0xf];
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence passes through; anything else becomes U+FFFD.
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if (c >= 0xc2 && c <= 0xdf) len = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) len = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4) len = 4, cp = c & 0x07;
    bool ok = len > 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) {
      ok = (p[i + k] & 0xc0) == 0x80;
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    // Reject overlong forms, surrogates and code points past U+10FFFF.
    ok = ok && !(len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) &&
         !(len == 4 && (cp < 0x10000 || cp > 0x10ffff));
    if (ok) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      out += "\xef\xbf\xbd";
      ++i;
    }
  }
}


}  // namespace

std::string format_count(double value, int decimals) {
  if (!std::isfinite(value)) return "n/a";
  const std::string fixed = printf_string(decimals == 0 ? "%.0f" : "%.1f", std::fabs(value));
  const std::size_t dot = fixed.find('.');
  const std::string int_part = fixed.substr(0, dot);
  const std::string frac_part = dot == std::string::npos ? "" : fixed.substr(dot);
  return (value < 0 ? "-" : "") + group_thousands(int_part) + frac_part;
}

std::string pad_right(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string pad_left(const std::string& s, std::size_t width) {
  return s.size() < width ? std::string(width - s.size(), ' ') + s : s;
}

std::string format_percent(double fraction) {
  return std::isfinite(fraction) ? printf_string("%.1f%%", 100.0 * fraction) : "n/a";
}

std::string json_quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  append_utf8_escaped(out, text);
  out += '"';
  return out;
}

std::string json_number(double value) { return std::isfinite(value) ? units::shortest_text(value) : "null"; }

std::string format_duration(double seconds) {
  if (std::isnan(seconds)) return "n/a";
  if (std::isinf(seconds)) return seconds > 0 ? "inf" : "-inf";
  if (seconds < 0) return "-" + format_duration(-seconds);
  if (seconds < 59.95) return printf_string("%.1fs", seconds);
  char buf[64];
  if (seconds < 3599.5) {
    const auto s = static_cast<long long>(std::llround(seconds));
    std::snprintf(buf, sizeof buf, "%lldm %llds", s / 60, s % 60);
    return buf;
  }
  const auto minutes = static_cast<long long>(std::llround(seconds / 60.0));
  if (minutes < 24 * 60) {
    std::snprintf(buf, sizeof buf, "%lldh %lldm", minutes / 60, minutes % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lldd %lldh %lldm", minutes / 1440, minutes % 1440 / 60, minutes % 60);
  }
  return buf;
}

namespace {

// Worth a section of its own only when the ledger holds more than the busy / idle split
// that the Cost section already shows.
bool categories_add_information(const Metrics& m) {
  return std::any_of(m.cost_by_category_usd.begin(), m.cost_by_category_usd.end(),
                     [](const auto& c) { return c.first != "compute_busy" && c.first != "compute_idle"; });
}

bool has_interruptions_or_checkpoints(const Metrics& m) {
  return m.interruptions > 0 || m.jobs_interrupted > 0 || m.gpu_hours_checkpoint > 0 || m.gpu_hours_lost > 0;
}

// A single on-demand pool says nothing the totals don't.
bool pools_add_information(const Metrics& m) {
  return m.pools.size() > 1 ||
         std::any_of(m.pools.begin(), m.pools.end(), [](const PoolMetrics& p) { return p.market != "on_demand"; });
}

void append_category_section(std::string& out, const Metrics& m) {
  if (!categories_add_information(m)) return;
  double ledger_usd = 0;
  for (const auto& c : m.cost_by_category_usd) ledger_usd += c.second;
  out += "\nCost by category (ledger)\n";
  for (const auto& [name, usd] : m.cost_by_category_usd)
    line(out, name, format_usd(usd), ledger_usd > 0 ? format_percent(usd / ledger_usd) : "");
  line(out, "ledger total", format_usd(ledger_usd));
}

void append_resilience_section(std::string& out, const Metrics& m) {
  if (!has_interruptions_or_checkpoints(m)) return;
  const auto share = [&](double hours) { return m.gpu_hours_held > 0 ? format_percent(hours / m.gpu_hours_held) : ""; };
  out += "\nInterruptions and checkpoints\n";
  line(out, "interruptions", format_count(static_cast<double>(m.interruptions), 0), "(runs stopped before finishing)");
  line(out, "jobs interrupted at end", format_count(static_cast<double>(m.jobs_interrupted), 0));
  line(out, "GPU-hours held", format_count(m.gpu_hours_held, 1));
  line(out, "  lost (redone)", format_count(m.gpu_hours_lost, 1), share(m.gpu_hours_lost));
  line(out, "  checkpoint writes", format_count(m.gpu_hours_checkpoint, 1), share(m.gpu_hours_checkpoint));
  line(out, "  restore / image pull", format_count(m.gpu_hours_restart, 1), share(m.gpu_hours_restart));
  line(out, "  input / comm waits", format_count(m.gpu_hours_waiting, 1), share(m.gpu_hours_waiting));
  line(out, "  useful", format_count(m.gpu_hours_useful, 1), share(m.gpu_hours_useful));
  line(out, "checkpoint overhead", format_percent(checkpoint_overhead_share(m)), "of GPU-hours held");
  line(out, "per useful GPU-hour", format_usd(m.cost_per_useful_gpu_hour_usd), "(total cost / useful GPU-hours)");
}

void append_preemption_section(std::string& out, const Metrics& m) {
  if (m.preemptions == 0) return;
  // Shares of held GPU-time, as in the section above: a few seconds show as 0.0 GPU-hours.
  const auto of_held = [&](double hours, const char* what) {
    return (m.gpu_hours_held > 0 ? format_percent(hours / m.gpu_hours_held) + " of held, " : std::string()) + what;
  };
  out += "\nPreemptions (by the scheduling policy)\n";
  line(out, "preemptions", format_count(static_cast<double>(m.preemptions), 0));
  line(out, "GPU-hours saving", format_count(m.gpu_hours_preempt_save, 1), of_held(m.gpu_hours_preempt_save, "before the stop"));
  line(out, "GPU-hours restoring", format_count(m.gpu_hours_preempt_restore, 1),
       of_held(m.gpu_hours_preempt_restore, "after the restart"));
  line(out, "GPU-hours lost", format_count(m.gpu_hours_preempt_lost, 1), of_held(m.gpu_hours_preempt_lost, "redone"));
}

void append_pool_section(std::string& out, const Metrics& m) {
  if (!pools_add_information(m)) return;
  std::size_t name_width = 8;
  for (const PoolMetrics& p : m.pools) name_width = std::max(name_width, p.name.size() + 2);
  const bool any_break_even = std::any_of(m.pools.begin(), m.pools.end(), [](const PoolMetrics& p) {
    return !p.compare_to.empty() || !std::isnan(p.break_even_utilization);
  });
  out += "\nPools\n  " + pad_right("pool", name_width) + pad_right("market", 11) + pad_left("GPUs", 6) +
         pad_left("utilization", 13) + pad_left("cost", 15) + pad_left("per busy GPU-h", 16) +
         (any_break_even ? "  break-even utilization vs on demand" : "") + "\n";
  for (const PoolMetrics& p : m.pools) {
    out += "  " + pad_right(p.name, name_width) + pad_right(p.market, 11) +
           pad_left(format_count(static_cast<double>(p.gpus), 0), 6) + pad_left(format_percent(p.utilization), 13) +
           pad_left(format_usd(p.cost_usd), 15) + pad_left(format_usd(p.cost_per_busy_gpu_hour_usd), 16);
    if (!p.compare_to.empty() || !std::isnan(p.break_even_utilization)) {
      const bool owned = p.market == "owned";
      const std::string versus = " vs " + (p.compare_to.empty() ? std::string(owned ? "the cloud" : "its on-demand price") : p.compare_to) +
                                 " at " + format_usd(p.compare_usd_per_gpu_hour) + "/GPU-h";
      if (std::isinf(p.break_even_utilization)) {
        out += "  never" + versus;
      } else {
        const bool above = std::isfinite(p.utilization) && p.utilization >= p.break_even_utilization;
        const char* verdict = owned ? (above ? ": above (owning is cheaper)" : ": below (renting is cheaper)")
                                    : (above ? ": above (reserving is cheaper)" : ": below (on demand is cheaper)");
        out += "  " + format_percent(p.break_even_utilization) + " (" + format_count(p.break_even_utilization * 8760, 0) +
               " h a year)" + versus + verdict;
      }
    }
    out += '\n';
  }
  for (const PoolMetrics& p : m.pools) {
    if (!std::isfinite(p.commitment_usd)) continue;
    const double years = p.term_s / (8760.0 * 3600.0);
    const std::string term = years == std::floor(years) ? format_count(years, 0) + "y" : format_duration(p.term_s);
    out += "  " + p.name + ": " + format_usd(p.cost_usd) + " is this horizon's share of " + format_usd(p.commitment_usd) +
           " committed (" + term + " terms, paid whether used or not)\n";
  }
}

void append_budget_section(std::string& out, const TraceData& trace) {
  const std::vector<TeamBudget> teams = team_budgets(trace);
  if (teams.empty()) return;
  std::size_t name_width = 8;
  for (const TeamBudget& t : teams) name_width = std::max(name_width, t.team.size() + 2);
  out += "\nBudgets\n  " + pad_right("team", name_width) + pad_left("alerts", 8) + pad_left("limits", 8) +
         pad_left("limit", 15) + pad_left("peak spend", 15) + "  first limit at\n";
  for (const TeamBudget& t : teams) {
    out += "  " + pad_right(t.team, name_width) + pad_left(format_count(static_cast<double>(t.alerts), 0), 8) +
           pad_left(format_count(static_cast<double>(t.limits_reached), 0), 8) + pad_left(format_usd(t.limit_usd), 15) +
           pad_left(format_usd(t.max_spent_usd), 15);
    if (t.limits_reached > 0) out += "  " + format_duration(t.first_limit_s) + (t.action.empty() ? "" : " (" + t.action + ")");
    out += '\n';
  }
}

// Nodes that came and went at a controller's request (/node_events): shown only when some
// did, so a run of fixed pools (and every older trace) reads as before.
void append_node_section(std::string& out, const TraceData& trace) {
  std::int64_t requested = 0, drained = 0, released = 0, interrupted = 0;
  for (const NodeEventRecord& e : trace.node_events) {
    requested += e.state == "provisioning" && e.reason == "scale_out";
    drained += e.state == "draining" && e.reason == "scale_in";
    released += e.state == "released" && (e.reason == "scale_in" || e.reason == "released");
    interrupted += e.state == "down" && e.reason == "spot_interruption";
  }
  if (requested == 0 && drained == 0 && released == 0) return;
  out += "\nNodes that came and went\n";
  line(out, "requested (scale-out)", format_count(static_cast<double>(requested), 0));
  line(out, "drained (scale-in)", format_count(static_cast<double>(drained), 0));
  line(out, "released", format_count(static_cast<double>(released), 0), "(a scale-in, not an interruption)");
  line(out, "spot interruptions", format_count(static_cast<double>(interrupted), 0));
}

void append_team_section(std::string& out, const Metrics& m) {
  if (m.teams.empty()) return;
  std::size_t name_width = 8;
  for (const TeamMetrics& t : m.teams) name_width = std::max(name_width, t.team.size() + 2);
  out += "\nTeams\n  " + pad_right("team", name_width) + pad_left("jobs", 9) + pad_left("completed", 11) +
         pad_left("GPU-hours", 12) + pad_left("share", 8) + pad_left("wait mean", 12) + pad_left("wait p95", 12) +
         pad_left("JCT mean", 12) + pad_left("preempted", 11) + "\n";
  for (const TeamMetrics& t : m.teams) {
    out += "  " + pad_right(t.team, name_width) + pad_left(format_count(static_cast<double>(t.jobs), 0), 9) +
           pad_left(format_count(static_cast<double>(t.completed), 0), 11) + pad_left(format_count(t.gpu_hours_held, 1), 12) +
           pad_left(format_percent(t.gpu_hours_share), 8) + pad_left(format_duration(t.wait_s.mean), 12) +
           pad_left(format_duration(t.wait_s.p95), 12) + pad_left(format_duration(t.jct_s.mean), 12) +
           pad_left(format_count(static_cast<double>(t.preemptions), 0), 11) + "\n";
  }
}

std::string indent(int depth) { return std::string(static_cast<std::size_t>(2 * std::max(depth, 0)), ' '); }

}  // namespace

void JsonObject::key(const std::string& k) {
  out_ += first_ ? "{\n" : ",\n";
  first_ = false;
  out_ += indent(depth_ + 1) + json_quote(k) + ": ";
}

void JsonObject::number(const std::string& k, double v) {
  key(k);
  out_ += json_number(v);
}

void JsonObject::integer(const std::string& k, std::int64_t v) {
  key(k);
  out_ += std::to_string(v);
}

void JsonObject::string(const std::string& k, std::string_view v) {
  key(k);
  out_ += json_quote(v);
}

void JsonObject::boolean_or_null(const std::string& k, int v) {
  key(k);
  out_ += v < 0 ? "null" : v > 0 ? "true" : "false";
}

void JsonObject::raw(const std::string& k, const std::string& json) {
  key(k);
  out_ += json;
}

std::string JsonObject::finish() const { return first_ ? std::string("{}") : out_ + "\n" + indent(depth_) + "}"; }

std::string json_array(const std::vector<std::string>& items, int depth) {
  if (items.empty()) return "[]";
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "\n" : ",\n") + indent(depth + 1) + items[i];
  return out + "\n" + indent(depth) + "]";
}

std::string format_report(const TraceData& trace, const Metrics& m) {
  const TraceAttributes& a = trace.attrs;
  std::string out;
  out += "gcsim run report\n";
  info(out, "scenario", a.scenario_name + (a.scenario_file.empty() ? "" : " (" + a.scenario_file + ")"));
  info(out, "seed / replication", std::to_string(a.seed) + " / " + std::to_string(a.replication));
  info(out, "gcsim version", a.gcsim_version.empty() ? "unknown" : a.gcsim_version);
  info(out, "horizon", format_duration(a.horizon_s));
  info(out, "ended at", format_duration(a.end_s) + (a.end_s < a.horizon_s ? " (all jobs finished before the horizon)" : " (horizon)"));
  if (a.end_s >= a.horizon_s && std::isfinite(m.last_completion_s))
    info(out, "last job finished at", format_duration(m.last_completion_s));
  if (a.end_s < a.horizon_s && has_committed_pools(m.pools))
    info(out, "billed to", "the horizon for owned and reserved pools (paid whether used or not); to " +
                               format_duration(a.end_s) + " for rented ones (run_until: done)");
  if (!a.scheduler.empty())
    info(out, "scheduler", a.scheduler + (a.scheduler_settings.empty() ? "" : " (" + a.scheduler_settings + ")"));
  info(out, "simulation wall clock", printf_string("%.2fs", a.wall_clock_s));
  info(out, "nodes", format_count(static_cast<double>(trace.nodes.size()), 0));

  const bool have_total = m.total_cost_usd > 0;
  out += "\nCost\n";
  line(out, "total", format_usd(m.total_cost_usd));
  line(out, "busy (held by jobs)", format_usd(m.busy_cost_usd),
       have_total ? format_percent(m.busy_cost_usd / m.total_cost_usd) : "");
  line(out, "idle", format_usd(m.idle_cost_usd), have_total ? format_percent(m.idle_cost_usd / m.total_cost_usd) : "");
  if (m.storage_cost_usd > 0)
    line(out, "storage", format_usd(m.storage_cost_usd), have_total ? format_percent(m.storage_cost_usd / m.total_cost_usd) : "");
  line(out, "per completed job", format_usd(m.cost_per_completed_job_usd));
  line(out, "per GPU-hour delivered", format_usd(m.cost_per_gpu_hour_usd));

  out += "\nGPUs\n";
  line(out, "allocated", format_percent(m.gpu_utilization), "(time-weighted: GPUs held by jobs / provisioned)");
  line(out, "allocated GPUs, mean", format_count(m.mean_allocated_gpus, 1), "(time-weighted over the run)");
  line(out, "allocated GPUs, peak", format_count(m.peak_allocated_gpus, 1),
       std::isnan(m.peak_allocated_at_s) ? "" : "(first at " + format_duration(m.peak_allocated_at_s) + ")");
  line(out, "busy", format_percent(m.gpu_busy_share), "(kernels running / provisioned; input waits and exposed comm lower it)");
  line(out, "GPU-hours delivered", format_count(m.gpu_hours_delivered, 1));
  line(out, "GPU-hours provisioned", format_count(m.gpu_hours_provisioned, 1));

  out += "\nJobs\n";
  line(out, "total", format_count(static_cast<double>(m.jobs_total), 0));
  line(out, "completed", format_count(static_cast<double>(m.jobs_completed), 0));
  line(out, "still running at end", format_count(static_cast<double>(m.jobs_running), 0));
  line(out, "never started", format_count(static_cast<double>(m.jobs_never_started), 0));
  if (m.jobs_submitted_after_horizon > 0)
    line(out, "submitted after horizon", format_count(static_cast<double>(m.jobs_submitted_after_horizon), 0),
         "(never came: not waiting, not in the waits below)");
  if (m.jobs_sharing_gpu > 0)
    line(out, "sharing a GPU", format_count(static_cast<double>(m.jobs_sharing_gpu), 0),
         "(gpu_milli < 1000), holding " + format_count(m.share_gpu_hours_held, 1) + " GPU-hours");
  line(out, "makespan", format_duration(m.makespan_s), "(first submission to last completion)");

  if (m.model_gpu_hours > 0) {
    out += "\nTraining (model-described jobs)\n";
    line(out, "samples processed", format_count(m.samples_total, 0));
    line(out, "goodput", format_count(m.goodput_samples_per_gpu_hour, 0), "samples per GPU-hour held");
    for (const auto& [name, hours] : m.bottleneck_gpu_hours)
      line(out, "bound by " + name, format_percent(hours / m.model_gpu_hours), "of their GPU-hours");
    if (std::isfinite(m.comm_exposed_share)) {
      line(out, "exposed communication", format_percent(m.comm_exposed_share), "of step time (GPU-hour weighted)");
      line(out, "waiting for input", format_percent(m.input_wait_share), "of step time (GPU-hour weighted)");
    }
  }

  out += "\n  " + pad_right("", LABEL_WIDTH);
  for (const char* h : {"mean", "p50", "p95", "p99", "max"}) out += pad_left(h, 12);
  out += '\n';
  distribution_row(out, "wait (" + format_count(static_cast<double>(m.wait_s.count), 0) + " started)", m.wait_s);
  distribution_row(out, "JCT (" + format_count(static_cast<double>(m.jct_s.count), 0) + " completed)", m.jct_s);

  append_category_section(out, m);
  append_resilience_section(out, m);
  append_preemption_section(out, m);
  append_pool_section(out, m);
  append_team_section(out, m);
  append_budget_section(out, trace);
  append_node_section(out, trace);
  return out;
}

std::string format_json(const Metrics& m, const TraceAttributes& a, std::span<const TeamBudget> budgets) {
  JsonObject j;
  j.string("scenario_name", a.scenario_name);
  append_run_json(j, a, m);
  append_metrics_json(j, m, budgets);
  return j.finish() + "\n";
}

void append_run_json(JsonObject& j, const TraceAttributes& a, const Metrics& m) {
  j.string("scenario_file", a.scenario_file);
  j.string("gcsim_version", a.gcsim_version);
  j.raw("seed", std::to_string(a.seed));  // unsigned 64-bit: above what integer() takes
  j.raw("replication", std::to_string(a.replication));
  j.integer("trace_schema", a.trace_schema);
  j.number("horizon_s", a.horizon_s);
  j.number("end_s", m.end_s);
  j.number("wall_clock_s", a.wall_clock_s);
}

void append_metrics_json(JsonObject& j, const Metrics& m, std::span<const TeamBudget> budgets) {
  j.number("total_cost_usd", m.total_cost_usd);
  j.number("busy_cost_usd", m.busy_cost_usd);
  j.number("idle_cost_usd", m.idle_cost_usd);
  j.number("storage_cost_usd", m.storage_cost_usd);
  j.number("cost_per_completed_job_usd", m.cost_per_completed_job_usd);
  j.number("cost_per_gpu_hour_usd", m.cost_per_gpu_hour_usd);
  j.number("gpu_hours_delivered", m.gpu_hours_delivered);
  j.number("gpu_hours_provisioned", m.gpu_hours_provisioned);
  j.number("gpu_utilization", m.gpu_utilization);
  j.number("gpu_allocated_share", m.gpu_utilization);
  j.number("mean_allocated_gpus", m.mean_allocated_gpus);
  j.number("peak_allocated_gpus", m.peak_allocated_gpus);
  j.number("peak_allocated_at_s", m.peak_allocated_at_s);
  j.number("gpu_busy_share", m.gpu_busy_share);
  j.number("gpu_hours_busy", m.gpu_hours_busy);

  j.integer("jobs_started", static_cast<std::int64_t>(m.wait_s.count));
  j.number("mean_wait_s", m.wait_s.mean);
  j.number("p50_wait_s", m.wait_s.p50);
  j.number("p95_wait_s", m.wait_s.p95);
  j.number("p99_wait_s", m.wait_s.p99);
  j.number("max_wait_s", m.wait_s.max);
  j.number("mean_jct_s", m.jct_s.mean);
  j.number("p50_jct_s", m.jct_s.p50);
  j.number("p95_jct_s", m.jct_s.p95);
  j.number("p99_jct_s", m.jct_s.p99);
  j.number("max_jct_s", m.jct_s.max);
  j.number("makespan_s", m.makespan_s);

  j.integer("jobs_total", m.jobs_total);
  j.integer("jobs_completed", m.jobs_completed);
  j.integer("jobs_running", m.jobs_running);
  j.integer("jobs_never_started", m.jobs_never_started);
  j.integer("jobs_submitted_after_horizon", m.jobs_submitted_after_horizon);
  j.integer("jobs_sharing_gpu", m.jobs_sharing_gpu);
  j.number("share_gpu_hours_held", m.share_gpu_hours_held);
  j.number("samples_total", m.samples_total);
  j.number("model_gpu_hours", m.model_gpu_hours);
  j.number("goodput_samples_per_gpu_hour", m.goodput_samples_per_gpu_hour);
  for (const auto& [name, hours] : m.bottleneck_gpu_hours) j.number("bottleneck_" + name + "_gpu_hours", hours);

  j.integer("jobs_interrupted", m.jobs_interrupted);
  j.integer("interruptions", m.interruptions);
  j.number("gpu_hours_held", m.gpu_hours_held);
  j.number("gpu_hours_lost", m.gpu_hours_lost);
  j.number("gpu_hours_checkpoint", m.gpu_hours_checkpoint);
  j.number("gpu_hours_restart", m.gpu_hours_restart);
  j.number("gpu_hours_useful", m.gpu_hours_useful);
  j.number("gpu_hours_waiting", m.gpu_hours_waiting);
  j.number("checkpoint_overhead_share", checkpoint_overhead_share(m));
  j.number("cost_per_useful_gpu_hour_usd", m.cost_per_useful_gpu_hour_usd);
  j.integer("preemptions", m.preemptions);
  j.number("gpu_hours_preempt_save", m.gpu_hours_preempt_save);
  j.number("gpu_hours_preempt_restore", m.gpu_hours_preempt_restore);
  j.number("gpu_hours_preempt_lost", m.gpu_hours_preempt_lost);

  JsonObject categories(j.depth() + 1);
  for (const auto& [name, usd] : m.cost_by_category_usd) categories.number(name, usd);
  j.raw("cost_by_category_usd", categories.finish());

  std::vector<std::string> pools;
  for (const PoolMetrics& p : m.pools) {
    JsonObject o(j.depth() + 2);
    o.string("name", p.name);
    o.string("market", p.market);
    o.integer("gpus", p.gpus);
    o.number("gpu_hours_up", p.gpu_hours_up);
    o.number("gpu_hours_busy", p.gpu_hours_busy);
    o.number("utilization", p.utilization);
    o.number("cost_usd", p.cost_usd);
    o.number("cost_per_busy_gpu_hour_usd", p.cost_per_busy_gpu_hour_usd);
    o.string("compare_to", p.compare_to);
    o.number("compare_usd_per_gpu_hour", p.compare_usd_per_gpu_hour);
    o.number("break_even_utilization", p.break_even_utilization);
    // Unknown (null) for pools without a break-even or without any up time.
    const bool known = !std::isnan(p.break_even_utilization) && std::isfinite(p.utilization);
    o.number("term_s", p.term_s);
    o.number("commitment_usd", p.commitment_usd);
    o.boolean_or_null("above_break_even", known ? static_cast<int>(p.utilization >= p.break_even_utilization) : -1);
    pools.push_back(o.finish());
  }
  j.raw("pools", json_array(pools, j.depth() + 1));

  std::vector<std::string> per_team;
  for (const TeamMetrics& t : m.teams) {
    JsonObject o(j.depth() + 2);
    o.string("team", t.team);
    o.integer("jobs", t.jobs);
    o.integer("completed", t.completed);
    o.number("gpu_hours_held", t.gpu_hours_held);
    o.number("gpu_hours_share", t.gpu_hours_share);
    o.integer("preemptions", t.preemptions);
    o.number("wait_mean_s", t.wait_s.mean);
    o.number("wait_p95_s", t.wait_s.p95);
    o.number("jct_mean_s", t.jct_s.mean);
    o.number("jct_p95_s", t.jct_s.p95);
    per_team.push_back(o.finish());
  }
  j.raw("teams", json_array(per_team, j.depth() + 1));

  j.integer("budget_alerts", m.budget_alerts);
  j.integer("budget_limits_reached", m.budget_limits_reached);
  std::vector<std::string> teams;
  for (const TeamBudget& t : budgets) {
    JsonObject o(j.depth() + 2);
    o.string("team", t.team);
    o.integer("alerts", t.alerts);
    o.integer("limits_reached", t.limits_reached);
    o.number("limit_usd", t.limit_usd);
    o.number("max_spent_usd", t.max_spent_usd);
    o.number("first_limit_s", t.first_limit_s);
    o.string("action", t.action);
    teams.push_back(o.finish());
  }
  j.raw("budgets", json_array(teams, j.depth() + 1));
}

}  // namespace gcsim::analysis
