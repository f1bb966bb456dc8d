// The service tables (see service_tables.hpp).
#include "models/trace/service_tables.hpp"

#include <limits>
#include <memory>
#include <string>

#include "models/config/scenario.hpp"
#include "models/trace/schema_tables.hpp"
#include "sim/check.hpp"

namespace gcsim::models {

namespace {

std::int64_t count(std::uint64_t v, const char* what) {
  GCSIM_CHECK(v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()),
              std::string("a service's ") + what + " count passes the trace's int64");
  return static_cast<std::int64_t>(v);
}

std::int32_t index32(std::uint32_t v, const char* what) {
  GCSIM_CHECK(v <= static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max()),
              std::string("a service's ") + what + " index passes the trace's int32");
  return static_cast<std::int32_t>(v);
}

}  // namespace

void RequestSampler::offer(const serving::RequestRecord& r) {
  const std::uint64_t n = offered_++;
  if (bound_ == 0 || n % static_cast<std::uint64_t>(every_) != 0) return;
  // One more row would pass the bound: k doubles and the kept rows keep the multiples of the
  // new k (every other one, from the first), until this one fits or is not a multiple.
  while (static_cast<std::int64_t>(kept_.size()) >= bound_) {
    every_ *= 2;
    std::size_t to = 0;
    for (std::size_t from = 0; from < kept_.size(); from += 2) kept_[to++] = kept_[from];
    kept_.resize(to);
    if (n % static_cast<std::uint64_t>(every_) != 0) return;
  }
  kept_.push_back(r);
}

ServiceTables::ServiceTables(trace::TraceFile& file, std::int64_t request_rows)
    : file_(file), request_rows_(request_rows) {
  GCSIM_CHECK(request_rows >= 0, "output.request_rows is negative");
}

void ServiceTables::make_tables() {
  if (services_) return;
  services_ = &add_table(file_, trace::schema::SERVICES, 256);
  series_ = &add_table(file_, trace::schema::SERVICE_SERIES, 8192);
  requests_ = &add_table(file_, trace::schema::SERVICE_REQUESTS, 8192);
}

RequestSampler& ServiceTables::sampler(std::uint32_t service) {
  while (samplers_.size() <= service) samplers_.emplace_back(request_rows_);
  return samplers_[service];
}

void ServiceTables::request(const serving::RequestRecord& r) {
  GCSIM_CHECK(!finished_, "a request reported after the service tables were written");
  make_tables();
  sampler(r.service).offer(r);
}

void ServiceTables::sample(const serving::ServiceSample& s) {
  GCSIM_CHECK(!finished_, "a service sample reported after the service tables were written");
  make_tables();
  series_->begin_row()
      .i32(0, index32(s.service, "service"))
      .f64(1, s.t_s)
      .f64(2, s.interval_s)
      .i64(3, count(s.arrived, "arrived"))
      .i64(4, count(s.completed, "completed"))
      .f64(5, s.e2e_p50_s)
      .f64(6, s.e2e_p99_s)
      .f64(7, s.ttft_p99_s)
      .f64(8, s.tpot_p99_s)
      .f64(9, s.slo_attained)
      .i64(10, s.queue_length)
      .i32(11, s.replicas_up)
      .i32(12, s.replicas_wanted)
      .f64(13, s.busy_fraction);
}

void ServiceTables::totals(const serving::ServiceTotals& t) {
  GCSIM_CHECK(!finished_, "a service's totals reported after the service tables were written");
  make_tables();
  totals_.push_back(t);
}

void ServiceTables::finish(RunSummary&) { finish(); }

void ServiceTables::finish() {
  if (finished_) return;
  finished_ = true;
  if (!services_) return;  // no service reported: no tables
  for (const serving::ServiceTotals& t : totals_) {
    const RequestSampler& s = sampler(t.service);
    services_->begin_row()
        .i32(0, index32(t.service, "service"))
        .str(1, t.name)
        .str(2, t.team)
        .str(3, t.model)
        .i64(4, count(t.arrived, "arrived"))
        .i64(5, count(t.completed, "completed"))
        .i64(6, count(t.unfinished, "unfinished"))
        .f64(7, t.e2e_mean_s)
        .f64(8, t.e2e_p50_s)
        .f64(9, t.e2e_p95_s)
        .f64(10, t.e2e_p99_s)
        .f64(11, t.wait_mean_s)
        .f64(12, t.ttft_p50_s)
        .f64(13, t.ttft_p95_s)
        .f64(14, t.ttft_p99_s)
        .f64(15, t.tpot_p50_s)
        .f64(16, t.tpot_p95_s)
        .f64(17, t.tpot_p99_s)
        .f64(18, t.slo_p99_s)
        .f64(19, t.slo_ttft_p99_s)
        .f64(20, t.slo_tpot_p99_s)
        .f64(21, t.slo_attained)
        .i64(22, count(t.prompt_tokens, "prompt token"))
        .i64(23, count(t.output_tokens, "output token"))
        .f64(24, t.replica_gpu_s)
        .f64(25, t.cost_usd)
        .i32(26, t.replicas_max)
        .i64(27, s.sample_every())
        .i64(28, static_cast<std::int64_t>(s.kept().size()))
        .i64(29, count(t.refused, "refused"))
        .i64(30, count(t.cold_starts, "cold start"))
        .f64(31, t.cold_start_s);
  }
  std::size_t rows = 0;
  for (const RequestSampler& s : samplers_) rows += s.kept().size();
  requests_->reserve(rows);
  for (const RequestSampler& s : samplers_)
    for (const serving::RequestRecord& r : s.kept())
      requests_->begin_row()
          .i32(0, index32(r.service, "service"))
          .i32(1, index32(r.replica, "replica"))
          .i64(2, count(r.request, "request"))
          .f64(3, r.arrival_s)
          .f64(4, r.start_s)
          .f64(5, r.first_token_s)
          .f64(6, r.end_s)
          .i32(7, r.prompt_tokens)
          .i32(8, r.output_tokens);
  samplers_.clear();
  samplers_.shrink_to_fit();
}

ComponentEntry service_tables_component() {
  return {"service-tables",
          "the trace's /services, /service_series and /service_requests, which the serving part reports to "
          "(docs/trace-format.md), when the run writes a trace",
          BUILD_SERVICE_TABLES, [](RunContext& ctx) -> std::unique_ptr<Component> {
            if (!ctx.trace) return nullptr;
            return std::make_unique<ServiceTables>(*ctx.trace, ctx.scenario.output.request_rows);
          }};
}

}  // namespace gcsim::models
