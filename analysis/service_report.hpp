// Inference services in a trace (docs/serving.md, "Outputs"): per service, its requests,
// latencies (end-to-end, TTFT, TPOT), each SLO target beside what was attained, replicas,
// GPU-hours and cost, and cost per million requests and per million output tokens; as the
// "Services" section of `gcsim analyze`, its JSON, `gcsim compare`'s per-service rows
// (analysis/strategy_comparison.hpp), and
// two plots (latency and replicas over time). Everything comes from /services and
// /service_series; a trace without services gives nothing (no section, no key, no plot).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/trace_data.hpp"

namespace gcsim::analysis {

// One SLO target of a service and the run's p99 against it.
struct SloCheck {
  std::string_view what;  // "p99" (end-to-end), "ttft_p99", "tpot_p99": the key under slo:
  double target_s = 0;
  double p99_s = 0;  // NaN when nothing completed (or no tokens)
  int met = -1;      // 1: p99 <= target, 0: above it, -1: no p99 to judge
};

struct ServiceSummary {
  ServiceRecord record;         // the /services row
  std::vector<SloCheck> slo;    // the targets set, in the order p99, ttft_p99, tpot_p99
  double gpu_hours = 0;         // replica_gpu_s / 3600
  // cost_usd per completed request and per output token, times a million; NaN when none
  // completed (or, per token, when the service's model has no tokens).
  double cost_per_million_requests_usd = 0;
  double cost_per_million_output_tokens_usd = 0;
};

// One per /services row, in scenario order (empty without services).
std::vector<ServiceSummary> summarize_services(const TraceData& trace);

// "25.0ms", "1.24s", "850us"; longer ones as format_duration; "n/a" for NaN.
std::string format_latency(double seconds);

// The report's "Services" section ("" without services).
std::string format_services(const std::vector<ServiceSummary>& services);

// The summaries as a JSON array at nesting level `depth` (analysis/report.hpp's writers):
// one object per service, keys as docs/analysis.md lists them.
std::string services_json(const std::vector<ServiceSummary>& services, int depth);

// service_latency<suffix>.png (each service's end-to-end p50 and p99 per interval, its SLO
// target dashed; TTFT p99 and its target too for a service with one) and
// service_replicas<suffix>.png (replicas up and replicas wanted per service), in `dir`,
// which must exist. Returns their paths; none without services (or without a series).
std::vector<std::string> plot_services(const TraceData& trace, const std::string& dir, const std::string& suffix = "");

}  // namespace gcsim::analysis
