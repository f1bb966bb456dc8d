// The trace's service tables (docs/trace-format.md): /services (each service's totals and
// its request sampling), /service_series (each service over each interval) and
// /service_requests (completed requests, sampled). A part of the run that the serving part
// reports to through serving::ServiceSink (it finds it by ctx.find<serving::ServiceSink>()),
// built whenever the run writes a trace; the tables are made at the first report, so a run
// without services writes none and its trace is what it was before services existed.
//
// Sampling. /service_requests keeps at most `request_rows` rows per service (output.request_rows):
// the n-th completed request of a service (n from 0, in completion order) is kept when n is a
// multiple of k, k starting at 1 and doubling (every other kept row dropped) each time one more
// row would pass the bound. So the rows kept are always exactly the multiples of k among the
// requests completed so far, a regular 1-in-k sample whatever the run's length, k a power of
// two reported as /services.sample_every; memory holds the kept rows only.
#pragma once

#include <cstdint>
#include <vector>

#include "models/run/component.hpp"
#include "models/serving/service_records.hpp"
#include "sim/trace/table_writer.hpp"

namespace gcsim::models {

// Systematic 1-in-k sampling of one service's completed requests, at most `bound` kept (see above).
class RequestSampler {
 public:
  explicit RequestSampler(std::int64_t bound) : bound_(bound) {}
  void offer(const serving::RequestRecord& r);
  const std::vector<serving::RequestRecord>& kept() const { return kept_; }
  // k; 0 when the bound is 0 (nothing is kept).
  std::int64_t sample_every() const { return bound_ == 0 ? 0 : every_; }
  std::uint64_t offered() const { return offered_; }

 private:
  std::int64_t bound_;
  std::int64_t every_ = 1;
  std::uint64_t offered_ = 0;
  std::vector<serving::RequestRecord> kept_;
};

class ServiceTables final : public Component, public serving::ServiceSink {
 public:
  // `request_rows`: output.request_rows, at least 0.
  ServiceTables(trace::TraceFile& file, std::int64_t request_rows);

  void request(const serving::RequestRecord& r) override;
  void sample(const serving::ServiceSample& s) override;
  void totals(const serving::ServiceTotals& t) override;

  // Writes /services and /service_requests (when a service reported).
  void finish(RunSummary& summary) override;
  void finish();

 private:
  void make_tables();
  RequestSampler& sampler(std::uint32_t service);

  trace::TraceFile& file_;
  std::int64_t request_rows_;
  trace::Table* services_ = nullptr;  // null until a service reports
  trace::Table* series_ = nullptr;
  trace::Table* requests_ = nullptr;
  std::vector<RequestSampler> samplers_;  // by service index
  std::vector<serving::ServiceTotals> totals_;
  bool finished_ = false;
};

// The registry entry: a ServiceTables when the run writes a trace (build order
// BUILD_SERVICE_TABLES, before the serving part that reports to it).
ComponentEntry service_tables_component();

}  // namespace gcsim::models
