// Text report and JSON summary of one run. The JSON is written by hand (no JSON library
// is a dependency); std::to_chars gives the shortest round-trip text of each double.
#include "analysis/report.hpp"

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

std::string format_count(double value, int decimals) {
  if (!std::isfinite(value)) return "n/a";
  const std::string fixed = printf_string(decimals == 0 ? "%.0f" : "%.1f", std::fabs(value));
  const std::size_t dot = fixed.find('.');
  const std::string int_part = fixed.substr(0, dot);
  const std::string frac_part = dot == std::string::npos ? "" : fixed.substr(dot);
  return (value < 0 ? "-" : "") + group_thousands(int_part) + frac_part;
}

std::string format_percent(double fraction) {
  return std::isfinite(fraction) ? printf_string("%.1f%%", 100.0 * fraction) : "n/a";
}

std::string pad_right(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string pad_left(const std::string& s, std::size_t width) {
  return s.size() < width ? std::string(width - s.size(), ' ') + s : s;
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

class JsonObject {
 public:
  void key(const std::string& k) {
    out_ += first_ ? "{\n  " : ",\n  ";
    first_ = false;
    out_ += json_quote(k) + ": ";
  }
  void number(const std::string& k, double v) {
    key(k);
    out_ += json_number(v);
  }
  void integer(const std::string& k, std::int64_t v) {
    key(k);
    out_ += std::to_string(v);
  }
  void string(const std::string& k, std::string_view v) {
    key(k);
    out_ += json_quote(v);
  }
  std::string finish() { return (first_ ? std::string("{") : out_ + "\n") + "}\n"; }

 private:
  std::string out_;
  bool first_ = true;
};

}  // namespace

std::string json_quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  append_utf8_escaped(out, text);
  out += '"';
  return out;
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, end);
}

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

std::string format_usd(double usd) {
  if (!std::isfinite(usd)) return "n/a";
  const std::string fixed = printf_string("%.2f", std::fabs(usd));
  const std::size_t dot = fixed.find('.');
  const std::string sign = usd < 0 && fixed != "0.00" ? "-" : "";
  return sign + "$" + group_thousands(fixed.substr(0, dot)) + fixed.substr(dot);
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
  info(out, "simulation wall clock", printf_string("%.2fs", a.wall_clock_s));
  info(out, "nodes", format_count(static_cast<double>(trace.nodes.size()), 0));

  const bool have_total = m.total_cost_usd > 0;
  out += "\nCost\n";
  line(out, "total", format_usd(m.total_cost_usd));
  line(out, "busy (held by jobs)", format_usd(m.busy_cost_usd),
       have_total ? format_percent(m.busy_cost_usd / m.total_cost_usd) : "");
  line(out, "idle", format_usd(m.idle_cost_usd), have_total ? format_percent(m.idle_cost_usd / m.total_cost_usd) : "");
  line(out, "per completed job", format_usd(m.cost_per_completed_job_usd));
  line(out, "per GPU-hour delivered", format_usd(m.cost_per_gpu_hour_usd));

  out += "\nGPUs\n";
  line(out, "utilization", format_percent(m.gpu_utilization), "(time-weighted, allocated / provisioned)");
  line(out, "GPU-hours delivered", format_count(m.gpu_hours_delivered, 1));
  line(out, "GPU-hours provisioned", format_count(m.gpu_hours_provisioned, 1));

  out += "\nJobs\n";
  line(out, "total", format_count(static_cast<double>(m.jobs_total), 0));
  line(out, "completed", format_count(static_cast<double>(m.jobs_completed), 0));
  line(out, "still running at end", format_count(static_cast<double>(m.jobs_running), 0));
  line(out, "never started", format_count(static_cast<double>(m.jobs_never_started), 0));
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
  return out;
}

std::string format_json(const Metrics& m, const TraceAttributes& a) {
  JsonObject j;
  j.string("scenario_name", a.scenario_name);
  j.string("scenario_file", a.scenario_file);
  j.string("gcsim_version", a.gcsim_version);
  j.integer("seed", a.seed);
  j.integer("replication", a.replication);
  j.integer("trace_schema", a.trace_schema);
  j.number("horizon_s", a.horizon_s);
  j.number("end_s", m.end_s);
  j.number("wall_clock_s", a.wall_clock_s);

  j.number("total_cost_usd", m.total_cost_usd);
  j.number("busy_cost_usd", m.busy_cost_usd);
  j.number("idle_cost_usd", m.idle_cost_usd);
  j.number("cost_per_completed_job_usd", m.cost_per_completed_job_usd);
  j.number("cost_per_gpu_hour_usd", m.cost_per_gpu_hour_usd);
  j.number("gpu_hours_delivered", m.gpu_hours_delivered);
  j.number("gpu_hours_provisioned", m.gpu_hours_provisioned);
  j.number("gpu_utilization", m.gpu_utilization);

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
  j.number("samples_total", m.samples_total);
  j.number("model_gpu_hours", m.model_gpu_hours);
  j.number("goodput_samples_per_gpu_hour", m.goodput_samples_per_gpu_hour);
  for (const auto& [name, hours] : m.bottleneck_gpu_hours) j.number("bottleneck_" + name + "_gpu_hours", hours);
  return j.finish();
}

}  // namespace gcsim::analysis
