// The trace's service tables (models/trace/service_tables.hpp): the request sampling by
// hand; what a serving part reports through serving::ServiceSink, written by a real run and
// read back field by field (analysis/trace_data.hpp); a run without services writes none of
// the tables; output.request_rows read and bounded.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "analysis/trace_data.hpp"
#include "models/register_builtins.hpp"
#include "models/run/component.hpp"
#include "models/serving/service_records.hpp"
#include "models/simulation.hpp"
#include "models/trace/service_tables.hpp"
#include "sim/trace/trace_reader.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::serving::RequestRecord;
using models::serving::ServiceSample;
using models::serving::ServiceTotals;

namespace {

RequestRecord request(std::uint32_t service, std::uint64_t n) {
  RequestRecord r;
  r.service = service;
  r.replica = static_cast<std::uint32_t>(n % 3);
  r.request = n;
  r.arrival_s = 10.0 * static_cast<double>(n);
  r.start_s = r.arrival_s + 0.5;
  r.first_token_s = r.start_s + 0.25;
  r.end_s = r.first_token_s + 2.0;
  r.prompt_tokens = static_cast<std::int32_t>(100 + n);
  r.output_tokens = static_cast<std::int32_t>(20 + n);
  return r;
}

std::vector<std::uint64_t> kept_numbers(const models::RequestSampler& s) {
  std::vector<std::uint64_t> out;
  for (const RequestRecord& r : s.kept()) out.push_back(r.request);
  return out;
}

}  // namespace

TEST_CASE("request sampling: a regular 1-in-k sample, k doubling at the bound", "[unit][services]") {
  SECTION("bound 4, 10 requests: rows 0, 4, 8 and k = 4") {
    // 0..3 kept (k 1); the 5th would pass: k 2 keeps 0, 2 and takes 4, 6; the 9th (8) would
    // pass again: k 4 keeps 0, 4 and takes 8.
    models::RequestSampler s(4);
    for (std::uint64_t n = 0; n < 10; ++n) s.offer(request(0, n));
    CHECK(kept_numbers(s) == std::vector<std::uint64_t>{0, 4, 8});
    CHECK(s.sample_every() == 4);
    CHECK(s.offered() == 10);
  }
  SECTION("bound 0: none, and k 0") {
    models::RequestSampler s(0);
    for (std::uint64_t n = 0; n < 10; ++n) s.offer(request(0, n));
    CHECK(s.kept().empty());
    CHECK(s.sample_every() == 0);
  }
  SECTION("below the bound: all, k 1") {
    models::RequestSampler s(10);
    for (std::uint64_t n = 0; n < 10; ++n) s.offer(request(0, n));
    CHECK(kept_numbers(s) == std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    CHECK(s.sample_every() == 1);
  }
  SECTION("bound 1, 3 requests: row 0, k 4 (k 2 would keep 0 and 2)") {
    models::RequestSampler s(1);
    for (std::uint64_t n = 0; n < 3; ++n) s.offer(request(0, n));
    CHECK(kept_numbers(s) == std::vector<std::uint64_t>{0});
    CHECK(s.sample_every() == 4);
  }
  SECTION("whatever the count: the multiples of the least power of two k that keeps at most the bound") {
    for (const std::int64_t bound : {1, 2, 3, 7, 16}) {
      models::RequestSampler s(bound);
      for (std::uint64_t n = 0; n < 1000; ++n) {
        s.offer(request(0, n));
        const std::uint64_t count = n + 1;
        std::uint64_t k = 1;
        while ((count + k - 1) / k > static_cast<std::uint64_t>(bound)) k *= 2;  // multiples of k below count
        INFO("bound " << bound << ", " << count << " requests");
        REQUIRE(s.sample_every() == static_cast<std::int64_t>(k));
        REQUIRE(s.kept().size() == (count + k - 1) / k);
        for (std::size_t i = 0; i < s.kept().size(); ++i) REQUIRE(s.kept()[i].request == i * k);
      }
    }
  }
}

namespace {

const char* SCENARIO = R"(name: serving-trace
horizon: 1h
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: j, submit: 0h, gpus: 1, duration: 30m}
)";

ServiceTotals totals_of(std::uint32_t service) {
  const double b = 1 + service;  // every field distinct, per service too
  ServiceTotals t;
  t.service = service;
  t.name = service == 0 ? "classify" : "chat";
  t.team = service == 0 ? "" : "web";
  t.model = service == 0 ? "" : "llama-2-7b";
  t.arrived = 1000 + service;
  t.completed = 990 + service;
  t.unfinished = 10;
  t.refused = 3;
  t.cold_starts = 4 + service;
  t.cold_start_s = 26.2 * b;
  t.e2e_mean_s = 0.1 * b;
  t.e2e_p50_s = 0.2 * b;
  t.e2e_p95_s = 0.3 * b;
  t.e2e_p99_s = 0.4 * b;
  t.wait_mean_s = 0.05 * b;
  if (service == 1) {
    t.ttft_p50_s = 0.5;
    t.ttft_p95_s = 0.6;
    t.ttft_p99_s = 0.7;
    t.tpot_p50_s = 0.01;
    t.tpot_p95_s = 0.02;
    t.tpot_p99_s = 0.03;
    t.slo_ttft_p99_s = 2;
    t.slo_tpot_p99_s = 0.1;
    t.prompt_tokens = 512000;
    t.output_tokens = 128000;
  } else {
    t.slo_p99_s = 0.2;
  }
  t.slo_attained = 0.97 + 0.01 * service;
  t.replica_gpu_s = 3600.0 * b;
  t.cost_usd = 4.5 * b;
  t.replicas_max = static_cast<std::int32_t>(2 + service);
  return t;
}

ServiceSample sample_of(std::uint32_t service, int i) {
  ServiceSample s;
  s.service = service;
  s.t_s = 60.0 * i;
  s.interval_s = 60;
  s.arrived = static_cast<std::uint64_t>(100 + i);
  s.completed = static_cast<std::uint64_t>(90 + i);
  s.e2e_p50_s = 0.1 + i;
  s.e2e_p99_s = 0.2 + i;
  s.ttft_p99_s = service == 1 ? 0.3 + i : models::serving::NOT_APPLICABLE;
  s.tpot_p99_s = service == 1 ? 0.04 + i : models::serving::NOT_APPLICABLE;
  s.slo_attained = 0.5 + 0.1 * i;
  s.queue_length = 7 + i;
  s.replicas_up = 1 + i;
  s.replicas_wanted = 2 + i;
  s.busy_fraction = 0.25 + 0.1 * i;
  return s;
}

// What the serving part will do: find the sink while it is built, report through it. Here
// all at its finish, which comes before the sink's (reverse build order).
class FakeServing final : public models::Component {
 public:
  FakeServing(models::RunContext& ctx, int requests) : requests_(requests) {
    sink_ = ctx.find<models::serving::ServiceSink>();
  }
  void finish(models::RunSummary&) override {
    REQUIRE(sink_ != nullptr);
    for (int n = 0; n < requests_; ++n) {
      sink_->request(request(0, static_cast<std::uint64_t>(n)));
      if (n < 3) sink_->request(request(1, static_cast<std::uint64_t>(n)));
    }
    for (int i = 0; i < 2; ++i) {
      sink_->sample(sample_of(0, i));
      sink_->sample(sample_of(1, i));
    }
    sink_->totals(totals_of(0));
    sink_->totals(totals_of(1));
  }

 private:
  models::serving::ServiceSink* sink_ = nullptr;
  int requests_;
};

void check_same(double read, double written) {
  if (std::isnan(written)) CHECK(std::isnan(read));
  else CHECK(read == written);  // bit for bit: float64 in, float64 out
}

}  // namespace

TEST_CASE("service tables: what a service reports is in the trace, field by field", "[model][services]") {
  test::TempDir dir;
  const models::Scenario s = test::scenario_from_yaml(std::string(SCENARIO) + "output: {request_rows: 4}\n");
  CHECK(s.output.request_rows == 4);
  const std::string path = dir.file("svc.h5");
  models::RunOptions o;
  o.fixed_wall_clock_s = 0.0;
  o.components.push_back([](models::RunContext& ctx) -> std::unique_ptr<models::Component> {
    return std::make_unique<FakeServing>(ctx, 10);
  });
  models::run_simulation_to(s, models::builtins().schedulers, path, o);
  const analysis::TraceData t = analysis::read_trace(path);

  REQUIRE(t.services.size() == 2);
  for (std::uint32_t i = 0; i < 2; ++i) {
    INFO("service " << i);
    const ServiceTotals w = totals_of(i);
    const analysis::ServiceRecord& r = t.services[i];
    CHECK(r.service == static_cast<std::int32_t>(i));
    CHECK(r.name == w.name);
    CHECK(r.team == w.team);
    CHECK(r.model == w.model);
    CHECK(r.arrived == static_cast<std::int64_t>(w.arrived));
    CHECK(r.completed == static_cast<std::int64_t>(w.completed));
    CHECK(r.unfinished == static_cast<std::int64_t>(w.unfinished));
    CHECK(r.refused == static_cast<std::int64_t>(w.refused));
    CHECK(r.cold_starts == static_cast<std::int64_t>(w.cold_starts));
    check_same(r.cold_start_s, w.cold_start_s);
    check_same(r.e2e_mean_s, w.e2e_mean_s);
    check_same(r.e2e_p50_s, w.e2e_p50_s);
    check_same(r.e2e_p95_s, w.e2e_p95_s);
    check_same(r.e2e_p99_s, w.e2e_p99_s);
    check_same(r.wait_mean_s, w.wait_mean_s);
    check_same(r.ttft_p50_s, w.ttft_p50_s);
    check_same(r.ttft_p95_s, w.ttft_p95_s);
    check_same(r.ttft_p99_s, w.ttft_p99_s);
    check_same(r.tpot_p50_s, w.tpot_p50_s);
    check_same(r.tpot_p95_s, w.tpot_p95_s);
    check_same(r.tpot_p99_s, w.tpot_p99_s);
    check_same(r.slo_p99_s, w.slo_p99_s);
    check_same(r.slo_ttft_p99_s, w.slo_ttft_p99_s);
    check_same(r.slo_tpot_p99_s, w.slo_tpot_p99_s);
    check_same(r.slo_attained, w.slo_attained);
    CHECK(r.prompt_tokens == static_cast<std::int64_t>(w.prompt_tokens));
    CHECK(r.output_tokens == static_cast<std::int64_t>(w.output_tokens));
    check_same(r.replica_gpu_s, w.replica_gpu_s);
    check_same(r.cost_usd, w.cost_usd);
    CHECK(r.replicas_max == w.replicas_max);
  }
  // Service 0: 10 requests under a bound of 4: 0, 4, 8 (1 in 4); service 1: 3, all.
  CHECK(t.services[0].sample_every == 4);
  CHECK(t.services[0].request_rows == 3);
  CHECK(t.services[1].sample_every == 1);
  CHECK(t.services[1].request_rows == 3);

  REQUIRE(t.service_series.size() == 4);
  std::size_t row = 0;
  for (int i = 0; i < 2; ++i)
    for (std::uint32_t svc = 0; svc < 2; ++svc) {
      INFO("series row " << row);
      const ServiceSample w = sample_of(svc, i);
      const analysis::ServiceSampleRecord& r = t.service_series[row++];
      CHECK(r.service == static_cast<std::int32_t>(svc));
      check_same(r.t_s, w.t_s);
      check_same(r.interval_s, w.interval_s);
      CHECK(r.arrived == static_cast<std::int64_t>(w.arrived));
      CHECK(r.completed == static_cast<std::int64_t>(w.completed));
      check_same(r.e2e_p50_s, w.e2e_p50_s);
      check_same(r.e2e_p99_s, w.e2e_p99_s);
      check_same(r.ttft_p99_s, w.ttft_p99_s);
      check_same(r.tpot_p99_s, w.tpot_p99_s);
      check_same(r.slo_attained, w.slo_attained);
      CHECK(r.queue_length == w.queue_length);
      CHECK(r.replicas_up == w.replicas_up);
      CHECK(r.replicas_wanted == w.replicas_wanted);
      check_same(r.busy_fraction, w.busy_fraction);
    }

  // Per service, in completion order: service 0's 0, 4, 8, then service 1's 0, 1, 2.
  REQUIRE(t.service_requests.size() == 6);
  const std::vector<std::pair<std::uint32_t, std::uint64_t>> expected{{0, 0}, {0, 4}, {0, 8}, {1, 0}, {1, 1}, {1, 2}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("request row " << i);
    const RequestRecord w = request(expected[i].first, expected[i].second);
    const analysis::ServiceRequestRecord& r = t.service_requests[i];
    CHECK(r.service == static_cast<std::int32_t>(w.service));
    CHECK(r.replica == static_cast<std::int32_t>(w.replica));
    CHECK(r.request == static_cast<std::int64_t>(w.request));
    check_same(r.arrival_s, w.arrival_s);
    check_same(r.start_s, w.start_s);
    check_same(r.first_token_s, w.first_token_s);
    check_same(r.end_s, w.end_s);
    CHECK(r.prompt_tokens == w.prompt_tokens);
    CHECK(r.output_tokens == w.output_tokens);
  }

  // TraceParts::requests false leaves /service_requests unread, the rest as before.
  const analysis::TraceData without = analysis::read_trace(path, {.requests = false});
  CHECK(without.services.size() == 2);
  CHECK(without.service_series.size() == 4);
  CHECK(without.service_requests.empty());
}

TEST_CASE("service tables: a run without services writes none of them", "[model][services]") {
  test::TempDir dir;
  const models::Scenario s = test::scenario_from_yaml(SCENARIO);
  CHECK(s.output.request_rows == models::DEFAULT_REQUEST_ROWS);
  const std::string path = dir.file("plain.h5");
  models::RunOptions o;
  o.fixed_wall_clock_s = 0.0;
  // The sink is there (the serving part would find it), but nothing reports.
  bool found = false;
  o.components.push_back([&found](models::RunContext& ctx) -> std::unique_ptr<models::Component> {
    found = ctx.find<models::serving::ServiceSink>() != nullptr;
    return nullptr;
  });
  models::run_simulation_to(s, models::builtins().schedulers, path, o);
  CHECK(found);
  const auto reader = trace::TraceReader::open(path);
  for (const char* table : {"services", "service_series", "service_requests"}) {
    INFO(table);
    CHECK_FALSE(reader->has_table(table));
  }
  const analysis::TraceData t = analysis::read_trace(path);
  CHECK(t.services.empty());
  CHECK(t.service_series.empty());
  CHECK(t.service_requests.empty());
}

TEST_CASE("output.request_rows: an integer from 0 to its maximum", "[unit][services][config]") {
  const auto with = [](const std::string& value) {
    return test::scenario_from_yaml(std::string(SCENARIO) + "output: {request_rows: " + value + "}\n");
  };
  CHECK(with("0").output.request_rows == 0);
  CHECK(with("1000").output.request_rows == 1000);
  CHECK(with(std::to_string(models::MAX_REQUEST_ROWS)).output.request_rows == models::MAX_REQUEST_ROWS);
  SECTION("negative") {
    const ConfigError e = test::config_error([&] { with("-1"); });
    CHECK(e.code() == ErrorCode::OutOfRange);
    CHECK(e.key_path() == "output.request_rows");
  }
  SECTION("above the maximum") {
    CHECK(test::config_error([&] { with(std::to_string(models::MAX_REQUEST_ROWS + 1)); }).code() ==
          ErrorCode::OutOfRange);
  }
  SECTION("not a whole number") {
    CHECK(test::config_error([&] { with("1.5"); }).key_path() == "output.request_rows");
  }
  SECTION("misspelt: did you mean") {
    const ConfigError e = test::config_error(
        [&] { test::scenario_from_yaml(std::string(SCENARIO) + "output: {request_row: 5}\n"); });
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(std::string(e.what()).find("request_rows") != std::string::npos);
  }
}

TEST_CASE("gcsim analyze: a Services section, JSON and plots from a trace with services, none without",
          "[model][services][cli]") {
  test::TempDir dir;
  const models::Scenario s = test::scenario_from_yaml(std::string(SCENARIO) + "output: {request_rows: 4}\n");
  const std::string with = dir.file("svc.h5"), without = dir.file("plain.h5");
  models::RunOptions o;
  o.fixed_wall_clock_s = 0.0;
  models::run_simulation_to(s, models::builtins().schedulers, without, o);
  o.components.push_back([](models::RunContext& ctx) -> std::unique_ptr<models::Component> {
    return std::make_unique<FakeServing>(ctx, 10);
  });
  models::run_simulation_to(s, models::builtins().schedulers, with, o);

  const auto a = test::run_gcsim("analyze " + with);
  INFO(a.output);
  REQUIRE(a.code == 0);
  using test::has;
  CHECK(has(a.output, "\nServices (docs/serving.md)\n  classify\n"));
  CHECK(has(a.output, "\n  chat (model llama-2-7b, team web)\n"));
  CHECK(has(a.output, "    requests                     1,000 arrived, 990 completed, 10 unfinished at the end, 3 refused\n"));
  CHECK(has(a.output, "    end-to-end                       100.0ms     200.0ms     300.0ms     400.0ms\n"));
  CHECK(has(a.output, "    SLO p99 <= 200.0ms           p99 400.0ms: MISSED\n"));
  CHECK(has(a.output, "    cold starts                  4  (26.20s in all)\n"));
  CHECK(has(a.output, "    SLO ttft_p99 <= 2.00s        p99 700.0ms: met\n"));
  CHECK(has(a.output, "    SLO tpot_p99 <= 100.0ms      p99 30.0ms: met\n"));
  CHECK(has(a.output, "    within every target          97.0%  of the completed requests\n"));
  // classify: $4.50 over 990 requests; chat: $9.00 over 991 requests and 128,000 output tokens.
  CHECK(has(a.output, "    per million requests         $4,545.45  (cost / completed requests)\n"));
  CHECK(has(a.output, "    per million requests         $9,081.74  (cost / completed requests)\n"));
  CHECK(has(a.output, "    per million output tokens    $70.31  (128,000 output tokens)\n"));
  CHECK(has(a.output, "    requests in the trace        3  (1 in 4 completed: output.request_rows)\n"));

  const auto j = test::run_gcsim("analyze " + with + " --json");
  INFO(j.output);
  REQUIRE(j.code == 0);
  CHECK(has(j.output, "\"services\": ["));
  CHECK(has(j.output, "\"slo_p99_met\": false"));
  CHECK(has(j.output, "\"slo_ttft_p99_met\": true"));
  CHECK(has(j.output, "\"cost_per_million_output_tokens_usd\": 70.3125"));

  const auto p = test::run_gcsim("analyze " + with + " --plot " + dir.file("plots"));
  INFO(p.output);
  REQUIRE(p.code == 0);
  for (const char* png : {"service_latency.png", "service_replicas.png"}) {
    INFO(png);
    CHECK(has(p.output, png));
    CHECK(std::filesystem::file_size(dir.file("plots/") + png) > 0);
  }

  const auto plain = test::run_gcsim("analyze " + without);
  REQUIRE(plain.code == 0);
  CHECK_FALSE(has(plain.output, "Services"));
  const auto plain_json = test::run_gcsim("analyze " + without + " --json");
  CHECK_FALSE(has(plain_json.output, "services"));
  const auto plain_plots = test::run_gcsim("analyze " + without + " --plot " + dir.file("plain-plots"));
  CHECK_FALSE(has(plain_plots.output, "service_"));
}
