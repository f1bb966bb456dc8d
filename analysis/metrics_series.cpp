// Simulated GPU metrics as series (see metrics_series.hpp; docs/metrics.md).
#include "analysis/metrics_series.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "models/trace/schema.hpp"
#include "sim/errors.hpp"
#include "sim/rules/promql.hpp"
#include "sim/trace/trace_reader.hpp"

namespace gcsim::analysis {
namespace {

namespace schema = trace::schema;

constexpr std::string_view VALUE_COLUMNS[GPU_QUANTITIES] = {
    schema::column(schema::METRICS, "util"),
    schema::column(schema::METRICS, "fb_used_bytes"),
    schema::column(schema::METRICS, "pcie_tx_bytes_per_s"),
    schema::column(schema::METRICS, "pcie_rx_bytes_per_s"),
    schema::column(schema::METRICS, "nvlink_tx_bytes_per_s"),
    schema::column(schema::METRICS, "nvlink_rx_bytes_per_s"),
    schema::column(schema::METRICS, "net_tx_bytes_per_s"),
    schema::column(schema::METRICS, "net_rx_bytes_per_s")};

// The families, and for a GPU gauge which stored quantity it shows and its scale.
enum class Source : std::uint8_t { GpuGauge, NodeCounter, NodeLatency };
struct FamilySource {
  MetricFamily family;
  Source source;
  GpuQuantity quantity;   // GpuGauge and NodeCounter
  double scale;           // exported = stored * scale
};

const std::vector<FamilySource>& sources() {
  using enum GpuQuantity;
  using promql::metric_family;
  static const std::vector<FamilySource> s = {
      {metric_family("DCGM_FI_DEV_GPU_UTIL"), Source::GpuGauge, Util, 100.0},
      {metric_family("DCGM_FI_DEV_FB_USED"), Source::GpuGauge, FbUsed, 1.0 / (1024.0 * 1024.0)},
      {metric_family("DCGM_FI_PROF_PCIE_TX_BYTES"), Source::GpuGauge, PcieTx, 1.0},
      {metric_family("DCGM_FI_PROF_PCIE_RX_BYTES"), Source::GpuGauge, PcieRx, 1.0},
      {metric_family("DCGM_FI_PROF_NVLINK_TX_BYTES"), Source::GpuGauge, NvlinkTx, 1.0},
      {metric_family("DCGM_FI_PROF_NVLINK_RX_BYTES"), Source::GpuGauge, NvlinkRx, 1.0},
      {metric_family("gcsim_node_network_transmit_bytes"), Source::NodeCounter, NetTx, 1.0},
      {metric_family("gcsim_node_network_receive_bytes"), Source::NodeCounter, NetRx, 1.0},
      {metric_family("gcsim_node_network_latency_seconds"), Source::NodeLatency, Util, 1.0},
  };
  return s;
}

// A GPU series' exported labels: node, gpu, pool, and job while a job runs.
void gpu_labels(const MetricsData& data, const GpuSeries& s, std::vector<std::pair<std::string, std::string>>& out) {
  const auto n = static_cast<std::size_t>(s.node);
  out = {{"node", data.node_names[n]}, {"gpu", std::to_string(s.gpu)}, {"pool", data.node_pools[n]}};
  if (s.job >= 0) out.emplace_back("job", data.job_names[static_cast<std::size_t>(s.job)]);
}

// A node series' exported labels: node and pool.
void node_labels(const MetricsData& data, std::int32_t node, std::vector<std::pair<std::string, std::string>>& out) {
  const auto n = static_cast<std::size_t>(node);
  out = {{"node", data.node_names[n]}, {"pool", data.node_pools[n]}};
}

// The grid instants t_k = k * every, k >= 1, in (from, to].
std::int64_t first_k_after(double from, double every) { return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(from / every)) + 1); }

// The samples as points: what for_each_series hands over.
struct PointSink {
  std::vector<Sample>& out;
  void point(std::int64_t k, double t, double value) {
    (void)k;
    out.push_back({t, value});
  }
  void run(std::int64_t, std::int64_t, double, double) {}  // not called: no jumps
};

// The samples as runs of equal values on the grid: what for_each_series_runs hands over.
struct RunSink {
  std::vector<SampleRun>& out;
  void run(std::int64_t k, std::int64_t count, double value) {
    if (!out.empty() && out.back().first_k + out.back().count == k && promql::same_bits(out.back().value, value)) {
      out.back().count += count;
      return;
    }
    out.push_back({k, count, value});
  }
  void point(std::int64_t k, double, double value) { run(k, 1, value); }
};

// With Jump (only when `every` is a whole number of seconds, so that t = k x every and
// t - every are exact), the grid instants whose interval (t - every, t] lies inside one
// segment are handed over as one run: there the loop below computes the same value
// v x every / every x scale at each of them.
template <bool Jump, class Sink>
void gpu_samples_to(const GpuSeries& s, std::size_t q, double scale, double every, double end_s, const SampleWindow& w,
                    Sink& sink) {
  const auto& seg = s.segments;
  std::size_t i = 0;
  // Walk the grid instants inside each maximal run of touching segments.
  while (i < seg.size()) {
    std::size_t j = i;
    while (j + 1 < seg.size() && seg[j + 1].from_s <= seg[j].to_s) ++j;
    const double from = std::max(seg[i].from_s, std::nextafter(w.from_s, -1.0)), to = std::min({seg[j].to_s, end_s, w.to_s});
    std::size_t lo = i;  // the first segment that may overlap the current window
    for (std::int64_t k = first_k_after(from, every);; ++k) {
      const double t = static_cast<double>(k) * every;
      if (t > to) break;
      const double w0 = t - every;
      while (lo <= j && seg[lo].to_s <= w0) ++lo;
      if constexpr (Jump) {
        if (lo <= j && seg[lo].from_s <= w0 && t <= seg[lo].to_s) {
          // Inside segment lo up to the last instant at or before min(its end, to).
          const double limit = std::min(seg[lo].to_s, to);
          auto last = static_cast<std::int64_t>(std::floor(limit / every));
          while (static_cast<double>(last + 1) * every <= limit) ++last;
          while (static_cast<double>(last) * every > limit) --last;
          const double v = seg[lo].values[q];
          if (!std::isnan(v)) {
            double weighted = 0, covered = 0;
            weighted += v * (t - w0);
            covered += t - w0;
            sink.run(k, last - k + 1, weighted / covered * scale);
          }
          k = last;
          continue;
        }
      }
      double weighted = 0, covered = 0;
      bool unknown = false;
      for (std::size_t m = lo; m <= j && seg[m].from_s < t; ++m) {
        const double a = std::max(seg[m].from_s, w0), b = std::min(seg[m].to_s, t);
        if (b <= a) continue;
        const double v = seg[m].values[q];
        if (std::isnan(v)) {
          unknown = true;
          break;
        }
        weighted += v * (b - a);
        covered += b - a;
      }
      if (!unknown && covered > 0) sink.point(k, t, weighted / covered * scale);
    }
    i = j + 1;
  }
}

void gpu_samples(const GpuSeries& s, std::size_t q, double scale, double every, double end_s, const SampleWindow& w,
                 std::vector<Sample>& out) {
  out.clear();
  PointSink sink{out};
  gpu_samples_to<false>(s, q, scale, every, end_s, w, sink);
}

// A node's counter: the sum of its GPU series' rates, integrated from 0; a sample at each
// grid instant where some series of the node lives and every living one knows the rate.
void node_samples(const std::vector<const GpuSeries*>& gpus, std::size_t q, double every, double end_s,
                  const SampleWindow& w, std::vector<Sample>& out) {
  out.clear();
  struct Change {
    double t;
    double rate;
    int alive;
    int unknown;
  };
  std::vector<Change> changes;
  for (const GpuSeries* s : gpus)
    for (const MetricSegment& m : s->segments) {
      const double v = m.values[q];
      const bool nan = std::isnan(v);
      changes.push_back({m.from_s, nan ? 0.0 : v, 1, nan ? 1 : 0});
      changes.push_back({m.to_s, nan ? 0.0 : -v, -1, nan ? -1 : 0});
    }
  if (changes.empty()) return;
  std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.t < b.t; });
  double rate = 0, bytes = 0, at = 0;
  int alive = 0, unknown = 0;
  std::size_t c = 0;
  const double last = std::min({end_s, changes.back().t, w.to_s});
  for (std::int64_t k = 1;; ++k) {
    const double t = static_cast<double>(k) * every;
    if (t > last) break;
    // The changes before t take effect; a segment (from, to] lives at t when from < t <= to.
    while (c < changes.size() && changes[c].t < t) {
      bytes += rate * (changes[c].t - at);
      at = changes[c].t;
      rate += changes[c].rate;
      alive += changes[c].alive;
      unknown += changes[c].unknown;
      ++c;
    }
    // A segment ending at t (its change not yet applied) still lives at t; one starting at t
    // does not yet.
    const int live = alive, live_unknown = unknown;
    if (live > 0 && live_unknown == 0 && t >= w.from_s && t <= w.to_s)
      out.push_back({t, std::max(0.0, bytes + rate * (t - at))});
  }
}

// Each node's counter of quantity q (node_samples of its GPU series, which are ordered by
// node) into `samples`; f(node) for each node with a sample in `w`.
template <class F>
void node_counters(const MetricsData& data, std::size_t q, const SampleWindow& w, std::vector<Sample>& samples, F&& f) {
  std::vector<const GpuSeries*> on_node;
  for (std::size_t i = 0; i < data.series.size();) {
    const std::int32_t node = data.series[i].node;
    on_node.clear();
    for (; i < data.series.size() && data.series[i].node == node; ++i) on_node.push_back(&data.series[i]);
    node_samples(on_node, q, data.every_s, data.end_s, w, samples);
    if (!samples.empty()) f(node);
  }
}

// A node's latency: each stored row is the sample at its grid instant and at the later
// ones up to the node's next row (exclusive) or the run's end.
void latency_samples(const NodeLatencySeries& s, double every, double end_s, const SampleWindow& w,
                     std::vector<Sample>& out) {
  out.clear();
  const auto last_k = static_cast<std::int64_t>(std::floor(std::min(end_s, w.to_s) / every));
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    const double v = s.rows[i].second;
    if (std::isnan(v)) continue;
    // Rows are written at grid instants: their k, rounded against the division's error.
    const std::int64_t k0 = std::llround(s.rows[i].first / every);
    const std::int64_t k1 = i + 1 < s.rows.size() ? std::llround(s.rows[i + 1].first / every) : last_k + 1;
    for (std::int64_t k = std::max<std::int64_t>(k0, 1); k < k1 && k <= last_k; ++k) {
      const double t = static_cast<double>(k) * every;
      if (t >= w.from_s) out.push_back({t, v});
    }
  }
}

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

bool has_metrics(const trace::TraceReader& trace) { return trace.has_table(std::string(schema::METRICS.name)); }

MetricsData read_metrics(const trace::TraceReader& trace) {
  const std::string table(schema::METRICS.name);
  if (!has_metrics(trace))
    throw Error("the trace has no /metrics table: run the scenario with `output: {metrics: {every: 15s}}` "
                "(docs/metrics.md)");
  MetricsData d;
  d.every_s = trace.attribute_double(schema::attribute::METRICS_EVERY_S);
  d.end_s = trace.attribute_double(schema::attribute::END_S);
  if (!(d.every_s > 0)) throw Error("the trace's metrics_every_s is not > 0");

  // Node names: "<type>-<i>", i counting the nodes of the type in id order (as the network
  // names its hosts, models/coupling/model_traffic.hpp).
  {
    const std::string nodes(schema::NODES.name);
    const auto types = trace.column_str(nodes, std::string(schema::column(schema::NODES, "node_type")));
    const auto ids = trace.column_int(nodes, std::string(schema::column(schema::NODES, "node_id")));
    std::map<std::string, int> count;
    std::int64_t max_id = -1;
    for (std::int64_t id : ids) max_id = std::max(max_id, id);
    d.node_names.resize(static_cast<std::size_t>(max_id + 1));
    d.node_pools.resize(static_cast<std::size_t>(max_id + 1));
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const auto id = static_cast<std::size_t>(ids[i]);
      d.node_pools[id] = types[i];
      d.node_names[id] = types[i] + "-" + std::to_string(count[types[i]]++);
    }
  }
  d.job_names = trace.column_str(std::string(schema::JOBS.name), std::string(schema::column(schema::JOBS, "name")));

  std::vector<std::string> cols = {"time_s", "node", "gpu", "job", "state"};
  for (std::string_view c : VALUE_COLUMNS) cols.emplace_back(c);
  const trace::Columns c = trace.read_columns(table, cols);
  const auto& time = c.f64.at("time_s");
  const auto& node = c.ints.at("node");
  const auto& gpu = c.ints.at("gpu");
  const auto& job = c.ints.at("job");
  const auto& state = c.ints.at("state");
  std::array<const std::vector<double>*, GPU_QUANTITIES> values{};
  for (std::size_t q = 0; q < GPU_QUANTITIES; ++q) values[q] = &c.f64.at(std::string(VALUE_COLUMNS[q]));
  d.rows = time.size();

  // Rows by series, in row (time) order: an "on" row opens a segment (closing the one
  // open), an "off" row closes it.
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::size_t> index;
  struct Open {
    bool open = false;
    MetricSegment seg;
  };
  std::vector<Open> open;
  for (std::size_t r = 0; r < time.size(); ++r) {
    if (node[r] < 0 || static_cast<std::size_t>(node[r]) >= d.node_names.size() || job[r] < -1 ||
        (job[r] >= 0 && static_cast<std::size_t>(job[r]) >= d.job_names.size()))
      throw Error("/metrics row " + std::to_string(r) + " names a node or job the trace does not have");
    const auto key = std::make_tuple(node[r], gpu[r], job[r]);
    auto [it, added] = index.emplace(key, d.series.size());
    if (added) {
      GpuSeries s;
      s.node = static_cast<std::int32_t>(node[r]);
      s.gpu = static_cast<std::int32_t>(gpu[r]);
      s.job = job[r];
      d.series.push_back(std::move(s));
      open.emplace_back();
    }
    GpuSeries& s = d.series[it->second];
    Open& o = open[it->second];
    const double t = time[r];
    if (o.open && t > o.seg.from_s) {
      o.seg.to_s = t;
      s.segments.push_back(o.seg);
    }
    o.open = state[r] == 1;
    if (o.open) {
      o.seg.from_s = t;
      for (std::size_t q = 0; q < GPU_QUANTITIES; ++q) o.seg.values[q] = (*values[q])[r];
    }
  }
  for (std::size_t i = 0; i < open.size(); ++i)
    if (open[i].open && d.end_s > open[i].seg.from_s) {  // a trace cut short: the series lives to the end
      open[i].seg.to_s = d.end_s;
      d.series[i].segments.push_back(open[i].seg);
    }
  std::sort(d.series.begin(), d.series.end(), [](const GpuSeries& a, const GpuSeries& b) {
    return std::tie(a.node, a.gpu, a.job) < std::tie(b.node, b.gpu, b.job);
  });

  // The nodes' latency (a run with a network: section), rows by node in time order.
  const std::string latency(schema::NODE_LATENCY.name);
  if (trace.has_table(latency)) {
    const trace::Columns l = trace.read_columns(
        latency, {std::string(schema::column(schema::NODE_LATENCY, "time_s")),
                  std::string(schema::column(schema::NODE_LATENCY, "node")),
                  std::string(schema::column(schema::NODE_LATENCY, "state")),
                  std::string(schema::column(schema::NODE_LATENCY, "latency_s"))});
    const auto& lt = l.f64.at("time_s");
    const auto& ln = l.ints.at("node");
    const auto& ls = l.ints.at("state");
    const auto& lv = l.f64.at("latency_s");
    d.latency_rows = lt.size();
    std::vector<std::int64_t> slot(d.node_names.size(), -1);
    for (std::size_t r = 0; r < lt.size(); ++r) {
      if (ln[r] < 0 || static_cast<std::size_t>(ln[r]) >= d.node_names.size())
        throw Error("/node_latency row " + std::to_string(r) + " names a node the trace does not have");
      auto& at = slot[static_cast<std::size_t>(ln[r])];
      if (at < 0) {
        at = static_cast<std::int64_t>(d.latency.size());
        d.latency.push_back({static_cast<std::int32_t>(ln[r]), {}});
      }
      d.latency[static_cast<std::size_t>(at)].rows.emplace_back(
          lt[r], ls[r] == 1 ? lv[r] : std::numeric_limits<double>::quiet_NaN());
    }
    std::sort(d.latency.begin(), d.latency.end(),
              [](const NodeLatencySeries& a, const NodeLatencySeries& b) { return a.node < b.node; });
  }
  return d;
}

const std::vector<MetricFamily>& metric_families() {
  static const std::vector<MetricFamily> f = [] {
    std::vector<MetricFamily> v;
    for (const FamilySource& s : sources()) v.push_back(s.family);
    return v;
  }();
  return f;
}

void for_each_series(const MetricsData& data, const std::function<void(const Series&)>& f, const SampleWindow& window) {
  for_each_series_of(data, [](const MetricFamily&) { return true; }, f, window);
}

void for_each_series_of(const MetricsData& data, const std::function<bool(const MetricFamily&)>& want,
                        const std::function<void(const Series&)>& f, const SampleWindow& window) {
  const auto& families = metric_families();
  Series out;
  for (std::size_t fi = 0; fi < sources().size(); ++fi) {
    const FamilySource& src = sources()[fi];
    if (!want(families[fi])) continue;
    out.family = &families[fi];
    const auto q = static_cast<std::size_t>(src.quantity);
    if (src.source == Source::NodeLatency) {
      for (const NodeLatencySeries& s : data.latency) {
        latency_samples(s, data.every_s, data.end_s, window, out.samples);
        if (out.samples.empty()) continue;
        node_labels(data, s.node, out.labels);
        f(out);
      }
      continue;
    }
    if (src.source == Source::GpuGauge) {
      for (const GpuSeries& s : data.series) {
        gpu_samples(s, q, src.scale, data.every_s, data.end_s, window, out.samples);
        if (out.samples.empty()) continue;
        gpu_labels(data, s, out.labels);
        f(out);
      }
      continue;
    }
    node_counters(data, q, window, out.samples, [&](std::int32_t node) {
      node_labels(data, node, out.labels);
      f(out);
    });
  }
}

void for_each_series_runs(const MetricsData& data, const std::function<bool(const MetricFamily&)>& want,
                          const std::function<void(const RunsSeries&)>& f) {
  const auto& families = metric_families();
  // Jump over the inside of segments only where t = k x every is exact (a whole number of
  // seconds, far below 2^53); else every instant is computed.
  const bool jump = data.every_s == std::floor(data.every_s) && data.every_s < 1e6;
  RunsSeries out;
  std::vector<Sample> samples;
  for (std::size_t fi = 0; fi < sources().size(); ++fi) {
    const FamilySource& src = sources()[fi];
    if (!want(families[fi])) continue;
    out.family = &families[fi];
    const auto q = static_cast<std::size_t>(src.quantity);
    if (src.source == Source::NodeLatency) {
      // Stored by change already: its samples, joined.
      for (const NodeLatencySeries& s : data.latency) {
        latency_samples(s, data.every_s, data.end_s, SampleWindow{}, samples);
        if (samples.empty()) continue;
        out.runs.clear();
        RunSink sink{out.runs};
        for (const Sample& x : samples) sink.point(std::llround(x.time_s / data.every_s), x.time_s, x.value);
        node_labels(data, s.node, out.labels);
        f(out);
      }
      continue;
    }
    if (src.source == Source::GpuGauge) {
      for (const GpuSeries& s : data.series) {
        out.runs.clear();
        RunSink sink{out.runs};
        if (jump) gpu_samples_to<true>(s, q, src.scale, data.every_s, data.end_s, SampleWindow{}, sink);
        else gpu_samples_to<false>(s, q, src.scale, data.every_s, data.end_s, SampleWindow{}, sink);
        if (out.runs.empty()) continue;
        gpu_labels(data, s, out.labels);
        f(out);
      }
      continue;
    }
    node_counters(data, q, SampleWindow{}, samples, [&](std::int32_t node) {
      out.runs.clear();
      RunSink sink{out.runs};
      for (const Sample& x : samples) sink.point(std::llround(x.time_s / data.every_s), x.time_s, x.value);
      node_labels(data, node, out.labels);
      f(out);
    });
  }
}

namespace {
// A label value as OpenMetrics escapes it: backslash, double quote and newline.
void append_escaped(std::string& out, const std::string& v) {
  for (char ch : v) {
    if (ch == '\\') out += "\\\\";
    else if (ch == '"') out += "\\\"";
    else if (ch == '\n') out += "\\n";
    else out += ch;
  }
}
}  // namespace

std::uint64_t write_openmetrics(const MetricsData& data, const std::function<void(std::string_view)>& out,
                                const SampleWindow& window) {
  std::string buf;
  std::uint64_t samples = 0;
  const MetricFamily* current = nullptr;
  const auto flush_if_big = [&] {
    if (buf.size() >= (1u << 20)) {
      out(buf);
      buf.clear();
    }
  };
  const auto header = [&](const MetricFamily& f) {
    buf += "# TYPE ";
    buf += f.name;
    buf += ' ';
    buf += f.type;
    buf += '\n';
    if (!f.unit.empty()) {
      buf += "# UNIT ";
      buf += f.name;
      buf += ' ';
      buf += f.unit;
      buf += '\n';
    }
    buf += "# HELP ";
    buf += f.name;
    buf += ' ';
    buf += f.help;
    buf += '\n';
  };
  // Every family gets its header, even one without samples in this run.
  std::size_t next_header = 0;
  const auto& families = metric_families();
  for_each_series(data, [&](const Series& s) {
    if (s.family != current) {
      while (&families[next_header] != s.family) header(families[next_header++]);
      header(families[next_header++]);
      current = s.family;
    }
    std::string prefix(s.family->name);
    if (s.family->type == "counter") prefix += "_total";
    prefix += '{';
    for (std::size_t i = 0; i < s.labels.size(); ++i) {
      if (i) prefix += ',';
      prefix += s.labels[i].first;
      prefix += "=\"";
      append_escaped(prefix, s.labels[i].second);
      prefix += '"';
    }
    prefix += "} ";
    for (const Sample& p : s.samples) {
      buf += prefix;
      buf += format_number(p.value);
      buf += ' ';
      char ts[48];
      // Milliseconds are exact in a double at this magnitude; Prometheus keeps milliseconds.
      std::snprintf(ts, sizeof ts, "%.3f", SIMULATED_EPOCH_S + p.time_s);
      buf += ts;
      buf += '\n';
      ++samples;
      flush_if_big();
    }
  }, window);
  while (next_header < families.size()) header(families[next_header++]);
  buf += "# EOF\n";
  out(buf);
  return samples;
}

}  // namespace gcsim::analysis
