// The simulated GPU metrics of a trace (its /metrics table, docs/metrics.md) as series an
// operator would scrape: the reader behind `gcsim metrics TRACE --openmetrics` and the API
// later parts (alert rules over a run) iterate over.
//
// The trace stores the metrics by change: per (node, gpu, job) series, rows that say
// "from here on these values" or "the series ends". read_metrics() turns them into
// piecewise-constant segments; for_each_series() expands them to one sample per `every`
// (output.metrics.every), the way DCGM exporter scraped every `every` would have reported
// them: the sample at t_k = k * every (k >= 1) exists while the series lives at t_k
// (a segment covers (from, to] with from < t_k <= to) and is the time-weighted mean of the
// series' values over (t_k - every, t_k] where it lived, or absent when the run does not
// model the quantity for the job (NaN). Node network counters are the sum of the node's
// GPUs' network traffic integrated from the start of the run. A run with a `network:`
// section also has each node's inter-node latency (/node_latency): rows at grid instants,
// each the sample at its instant and at the later ones until the node's next row.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/rules/metric_names.hpp"

namespace gcsim::trace {
class TraceReader;
}

namespace gcsim::analysis {

// The stored per-GPU quantities, in /metrics column order after `state`.
enum class GpuQuantity : std::uint8_t { Util, FbUsed, PcieTx, PcieRx, NvlinkTx, NvlinkRx, NetTx, NetRx };
inline constexpr std::size_t GPU_QUANTITIES = 8;

struct MetricSegment {
  double from_s = 0;  // the values hold over (from_s, to_s]
  double to_s = 0;
  std::array<double, GPU_QUANTITIES> values{};
};

// One GPU's series for one job (job -1: the GPU idle), every time it lived, in time order.
struct GpuSeries {
  std::int32_t node = 0;
  std::int32_t gpu = 0;  // index on its node
  std::int64_t job = -1;
  std::vector<MetricSegment> segments;
};

// A node's inter-node latency as stored: its rows (time, seconds; NaN: no latency from
// then on) in time order, each at a grid instant k * every.
struct NodeLatencySeries {
  std::int32_t node = 0;
  std::vector<std::pair<double, double>> rows;
};

struct MetricsData {
  double every_s = 0;
  double end_s = 0;                      // the run's end: the last sample is at or before it
  std::vector<std::string> node_names;   // by node id: "<pool>-<i>", i its index in its pool
  std::vector<std::string> node_pools;   // by node id: its node type
  std::vector<std::string> job_names;    // by job id
  std::vector<GpuSeries> series;         // by (node, gpu, job)
  std::size_t rows = 0;                  // stored /metrics rows
  std::vector<NodeLatencySeries> latency;  // by node; empty without a /node_latency table
  std::size_t latency_rows = 0;          // stored /node_latency rows
};

// False when the trace has no /metrics table (a run without output.metrics, or a trace
// written before it).
bool has_metrics(const trace::TraceReader& trace);
// Reads /metrics, /node_latency (when the trace has it), /nodes and /jobs. Throws gcsim::Error when the trace has no /metrics
// table (saying how to get one) or its rows contradict themselves.
MetricsData read_metrics(const trace::TraceReader& trace);

// One exported metric family (docs/metrics.md lists each with its meaning).
using MetricFamily = promql::MetricFamily;
const std::vector<MetricFamily>& metric_families();

struct Sample {
  double time_s = 0;  // simulated seconds since the run's start
  double value = 0;
};

// One exported series: its family, its labels (name, value) in the order written, and its
// samples in time order.
struct Series {
  const MetricFamily* family = nullptr;
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<Sample> samples;
};

// The simulated time span whose samples are wanted: from_s <= t <= to_s.
struct SampleWindow {
  double from_s = 0;
  double to_s = std::numeric_limits<double>::infinity();
};

// Calls f once per exported series with at least one sample in `window`, family by family
// in metric_families() order, series by (node, gpu, job). The Series passed is reused
// between calls. A counter's values count from the run's start whatever the window.
void for_each_series(const MetricsData& data, const std::function<void(const Series&)>& f,
                     const SampleWindow& window = {});
// The same for the families `want` accepts only: the others are not expanded.
void for_each_series_of(const MetricsData& data, const std::function<bool(const MetricFamily&)>& want,
                        const std::function<void(const Series&)>& f, const SampleWindow& window = {});

// One exported series held by change: runs of equal samples (equal bit for bit) at
// consecutive grid instants t_k = k x every. The samples are those for_each_series gives.
struct SampleRun {
  std::int64_t first_k = 0;
  std::int64_t count = 0;
  double value = 0;
};
struct RunsSeries {
  const MetricFamily* family = nullptr;
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<SampleRun> runs;
};
// Calls f once per exported series of a family `want` accepts that has a sample, in
// for_each_series' order, over the whole run. Without expanding the samples where the
// grid allows it (a whole number of seconds `every`): a month of 5,000 GPUs is a few
// runs per job and GPU, not 172,800 samples per GPU. The RunsSeries passed is reused.
void for_each_series_runs(const MetricsData& data, const std::function<bool(const MetricFamily&)>& want,
                          const std::function<void(const RunsSeries&)>& f);

// The simulated epoch: the wall-clock time of simulated t = 0 in seconds since 1970,
// 2026-01-05T00:00:00Z, a Monday at midnight as simulated time 0 is in the weekly
// calendars (sim/calendar.hpp).
inline constexpr double SIMULATED_EPOCH_S = 1767571200.0;

// OpenMetrics text of every series (`# TYPE`, `# UNIT`, `# HELP`, samples with timestamps
// SIMULATED_EPOCH_S + time_s, `# EOF`), handed to `out` in pieces. Returns the number of
// samples written.
std::uint64_t write_openmetrics(const MetricsData& data, const std::function<void(std::string_view)>& out,
                                const SampleWindow& window = {});

}  // namespace gcsim::analysis
