// `gcsim metrics TRACE [--openmetrics] [-o FILE] [--from T] [--to T]` (docs/metrics.md): the simulated GPU
// metrics of a run, summarised, or exported as OpenMetrics text that Prometheus' promtool
// loads (`promtool tsdb create-blocks-from openmetrics FILE DIR`).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "analysis/metrics_series.hpp"
#include "cli/commands.hpp"
#include "sim/atomic_file.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"
#include "sim/trace/trace_reader.hpp"

namespace gcsim::cli {

int cmd_metrics(const std::string& trace_path, bool openmetrics, const std::string& out_path, const std::string& from,
                const std::string& to) {
  const auto seconds = [](const char* option, const std::string& text) {
    try {
      return static_cast<double>(units::parse_duration_ns(text)) / 1e9;
    } catch (const units::UnitError& e) {
      throw Error(std::string(option) + " '" + text + "': " + e.what());
    }
  };
  analysis::SampleWindow window;
  if (!from.empty()) window.from_s = seconds("--from", from);
  if (!to.empty()) window.to_s = seconds("--to", to);
  if (window.from_s < 0 || window.to_s < window.from_s)
    throw Error("--from and --to must be simulated times with 0 <= from <= to (given '" + from + "', '" + to + "')");
  const auto reader = trace::TraceReader::open(trace_path);
  const analysis::MetricsData data = analysis::read_metrics(*reader);
  if (!openmetrics) {
    // The grid instants the GPU series live at, without expanding them (a month of 5,000
    // GPUs is billions of samples): each GPU family exports at most this many.
    std::uint64_t instants = 0;
    for (const analysis::GpuSeries& s : data.series)
      for (const analysis::MetricSegment& m : s.segments)
        instants += static_cast<std::uint64_t>(std::floor(std::min(m.to_s, data.end_s) / data.every_s)) -
                    static_cast<std::uint64_t>(std::floor(m.from_s / data.every_s));
    std::cout << "metrics every " << data.every_s << " s over " << data.end_s << " s: " << data.rows
              << " stored rows, " << data.series.size() << " GPU series, " << instants
              << " GPU samples per GPU metric at most on export (gcsim metrics TRACE --openmetrics -o FILE)";
    if (data.latency_rows > 0)
      std::cout << "; " << data.latency_rows << " stored node latency rows, " << data.latency.size() << " nodes";
    std::cout << "\n";
    return 0;
  }
  if (out_path.empty()) {
    analysis::write_openmetrics(
        data, [](std::string_view bytes) { std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); },
        window);
    std::cout.flush();
    return 0;
  }
  sim::remove_stale_temp_files(std::filesystem::path(out_path).parent_path().string());
  sim::AtomicFile file(out_path, sim::SpecialFiles::write_through);
  analysis::write_openmetrics(data, [&](std::string_view bytes) { file.write(bytes); }, window);
  file.commit();
  return 0;
}

}  // namespace gcsim::cli
