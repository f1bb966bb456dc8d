// What the serving part (models/services/) reports about each service, and the interface
// it reports through: the trace recorder's service tables implement ServiceSink
// (models/trace/service_tables.*, docs/trace-format.md), a test can implement its own.
// Times are seconds from the run's start (the trace edge: STYLE 8). NaN: not applicable.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

namespace gcsim::models::serving {

inline constexpr double NOT_APPLICABLE = std::numeric_limits<double>::quiet_NaN();

// One request that completed. first_token_s == end_s for a model without tokens.
struct RequestRecord {
  std::uint32_t service = 0;     // index in Scenario's services, in scenario order
  std::uint32_t replica = 0;     // the replica (its index within the service) that served it
  std::uint64_t request = 0;     // its number within the service, in arrival order from 0
  double arrival_s = 0;
  double start_s = 0;            // its batch (or its first iteration) began
  double first_token_s = 0;
  double end_s = 0;
  std::int32_t prompt_tokens = 0;   // 0 for a model without tokens
  std::int32_t output_tokens = 0;
};

// One service over one interval [t_s, t_s + interval_s) (output.service_interval).
struct ServiceSample {
  std::uint32_t service = 0;
  double t_s = 0;
  double interval_s = 0;
  std::uint64_t arrived = 0;      // requests that arrived in the interval
  std::uint64_t completed = 0;    // requests that completed in the interval
  double e2e_p50_s = NOT_APPLICABLE;   // of the requests completed in the interval
  double e2e_p99_s = NOT_APPLICABLE;
  double ttft_p99_s = NOT_APPLICABLE;
  double tpot_p99_s = NOT_APPLICABLE;
  // Share of the requests completed in the interval that met every SLO target of the
  // service (each target a per-request latency bound: the request's end-to-end, TTFT, TPOT).
  double slo_attained = NOT_APPLICABLE;
  std::int64_t queue_length = 0;  // requests waiting at the interval's end
  std::int32_t replicas_up = 0;   // replicas serving at the interval's end
  std::int32_t replicas_wanted = 0;  // replicas the service asked for (placed or waiting)
  double busy_fraction = 0;       // mean over its replicas up of the time spent serving
};

// One service over the whole run, reported once at the end.
struct ServiceTotals {
  std::uint32_t service = 0;
  std::string name;
  std::string team;               // empty: none
  std::string model;              // catalog model, or empty with `latency:`
  std::uint64_t arrived = 0;
  std::uint64_t completed = 0;
  std::uint64_t unfinished = 0;   // queued or being served when the run ended
  // Refused: they could never be served (longer than the model's context, a replica's KV
  // cache or max_tokens). arrived = completed + unfinished + refused.
  std::uint64_t refused = 0;
  double e2e_mean_s = NOT_APPLICABLE;
  double e2e_p50_s = NOT_APPLICABLE, e2e_p95_s = NOT_APPLICABLE, e2e_p99_s = NOT_APPLICABLE;
  double wait_mean_s = NOT_APPLICABLE;   // arrival to start
  double ttft_p50_s = NOT_APPLICABLE, ttft_p95_s = NOT_APPLICABLE, ttft_p99_s = NOT_APPLICABLE;
  double tpot_p50_s = NOT_APPLICABLE, tpot_p95_s = NOT_APPLICABLE, tpot_p99_s = NOT_APPLICABLE;
  // The SLO targets (NaN: not set) and the share of completed requests that met all of them.
  double slo_p99_s = NOT_APPLICABLE, slo_ttft_p99_s = NOT_APPLICABLE, slo_tpot_p99_s = NOT_APPLICABLE;
  double slo_attained = NOT_APPLICABLE;
  std::uint64_t prompt_tokens = 0;   // of completed requests
  std::uint64_t output_tokens = 0;
  double replica_gpu_s = 0;       // GPU-seconds its replicas held (shares counted as shares)
  double cost_usd = 0;            // its replicas' cost (the cost meter's job costs)
  std::int32_t replicas_max = 0;  // most replicas up at once
  // Replica starts (each one's cold start begun) and the time spent in them: to ready, to a
  // stop cutting one short, or to the run's end (docs/serving.md, "Cold start").
  std::uint64_t cold_starts = 0;
  double cold_start_s = 0;
};

class ServiceSink {
 public:
  virtual ~ServiceSink() = default;
  // Every completed request, in completion order (the sink samples; it is called at the
  // instant the request ends).
  virtual void request(const RequestRecord& r) = 0;
  // Each interval of each service, in time order, once the interval has ended (and the
  // last, partial one at the run's end).
  virtual void sample(const ServiceSample& s) = 0;
  // At the run's end, once per service, in scenario order.
  virtual void totals(const ServiceTotals& t) = 0;
};

}  // namespace gcsim::models::serving
