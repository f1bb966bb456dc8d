// Inference services in the analysis (analysis/service_report.hpp): the summary's SLO checks
// and costs per million requests and output tokens by hand, the report section and JSON,
// gcsim compare's per-service rows, the two plots; and nothing of it without services.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <limits>
#include <string>
#include <vector>

#include "analysis/overlay_plots.hpp"
#include "analysis/service_report.hpp"
#include "analysis/strategy_comparison.hpp"
#include "analysis/trace_data.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using namespace gcsim::analysis;
using test::has;

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

// chat: an LLM with TTFT and TPOT targets; classify: `latency:`, an end-to-end target, and
// nothing completed.
TraceData two_services() {
  TraceData t;
  t.attrs.end_s = 600;
  ServiceRecord chat;
  chat.service = 0;
  chat.name = "chat";
  chat.model = "llama-2-7b";
  chat.arrived = 1010;
  chat.completed = 1000;
  chat.unfinished = 10;
  chat.e2e_mean_s = 1.5;
  chat.e2e_p50_s = 1.2;
  chat.e2e_p95_s = 3.1;
  chat.e2e_p99_s = 4.25;
  chat.ttft_p50_s = 0.2;
  chat.ttft_p95_s = 0.9;
  chat.ttft_p99_s = 2.5;    // above its 2s target
  chat.tpot_p50_s = 0.02;
  chat.tpot_p95_s = 0.04;
  chat.tpot_p99_s = 0.1;    // at its target: met
  chat.slo_ttft_p99_s = 2;
  chat.slo_tpot_p99_s = 0.1;
  chat.slo_attained = 0.985;
  chat.prompt_tokens = 512000;
  chat.output_tokens = 250000;
  chat.replica_gpu_s = 9000;  // 2.5 GPU-hours
  chat.cost_usd = 50;
  chat.replicas_max = 3;
  chat.cold_starts = 4;
  chat.cold_start_s = 26.2;
  chat.sample_every = 1;
  chat.request_rows = 1000;
  ServiceRecord classify;
  classify.service = 1;
  classify.name = "classify";
  classify.team = "vision";
  classify.arrived = 5;
  classify.unfinished = 5;
  classify.slo_p99_s = 0.2;
  classify.cost_usd = 1;
  classify.replicas_max = 1;
  classify.sample_every = 1;
  t.services = {chat, classify};
  for (int i = 0; i < 5; ++i) {
    ServiceSampleRecord a;
    a.service = 0;
    a.t_s = 120.0 * i;
    a.interval_s = 120;
    a.e2e_p50_s = 1.0 + 0.1 * i;
    a.e2e_p99_s = 3.0 + 0.5 * i;
    a.ttft_p99_s = 1.5 + 0.2 * i;
    a.replicas_up = 1 + i % 3;
    a.replicas_wanted = 2 + i % 3;
    ServiceSampleRecord b = a;
    b.service = 1;
    b.e2e_p50_s = b.e2e_p99_s = NaN;  // nothing completed
    b.replicas_up = b.replicas_wanted = 1;
    t.service_series.push_back(a);
    t.service_series.push_back(b);
  }
  return t;
}

}  // namespace

TEST_CASE("services: SLO checks, GPU-hours and costs per million by hand", "[unit][analysis][services]") {
  const std::vector<ServiceSummary> s = summarize_services(two_services());
  REQUIRE(s.size() == 2);
  const ServiceSummary& chat = s[0];
  CHECK(chat.gpu_hours == Approx(2.5));
  // $50 over 1,000 completed requests: $50,000 per million; over 250,000 output tokens: $200.
  CHECK(chat.cost_per_million_requests_usd == Approx(50000.0));
  CHECK(chat.cost_per_million_output_tokens_usd == Approx(200.0));
  REQUIRE(chat.slo.size() == 2);
  CHECK(chat.slo[0].what == "ttft_p99");
  CHECK(chat.slo[0].target_s == 2);
  CHECK(chat.slo[0].p99_s == 2.5);
  CHECK(chat.slo[0].met == 0);
  CHECK(chat.slo[1].what == "tpot_p99");
  CHECK(chat.slo[1].met == 1);  // p99 <= target
  const ServiceSummary& classify = s[1];
  CHECK(std::isnan(classify.cost_per_million_requests_usd));  // nothing completed
  CHECK(std::isnan(classify.cost_per_million_output_tokens_usd));  // no tokens
  REQUIRE(classify.slo.size() == 1);
  CHECK(classify.slo[0].what == "p99");
  CHECK(classify.slo[0].met == -1);  // no p99 to judge
  CHECK(summarize_services(TraceData{}).empty());
}

TEST_CASE("services: latencies to the millisecond", "[unit][analysis][services]") {
  CHECK(format_latency(NaN) == "n/a");
  CHECK(format_latency(0.00085) == "850us");
  CHECK(format_latency(0.025) == "25.0ms");
  CHECK(format_latency(1.2449) == "1.24s");
  CHECK(format_latency(90) == "1m 30s");
}

TEST_CASE("services: the report's section and JSON", "[unit][analysis][services]") {
  const std::string text = format_services(summarize_services(two_services()));
  INFO(text);
  CHECK(text.rfind("\nServices (docs/serving.md)\n  chat (model llama-2-7b)\n", 0) == 0);
  CHECK(has(text, "    requests                     1,010 arrived, 1,000 completed, 10 unfinished at the end\n"));
  CHECK(has(text, "                                        mean         p50         p95         p99\n"));
  CHECK(has(text, "    end-to-end                         1.50s       1.20s       3.10s       4.25s\n"));
  CHECK(has(text, "    time to first token                  n/a     200.0ms     900.0ms       2.50s\n"));
  CHECK(has(text, "    time per output token                n/a      20.0ms      40.0ms     100.0ms\n"));
  CHECK(has(text, "    SLO ttft_p99 <= 2.00s        p99 2.50s: MISSED\n"));
  CHECK(has(text, "    SLO tpot_p99 <= 100.0ms      p99 100.0ms: met\n"));
  CHECK(has(text, "    within every target          98.5%  of the completed requests\n"));
  CHECK(has(text, "    replicas                     at most 3 up\n"));
  CHECK(has(text, "    cold starts                  4  (26.20s in all)\n"));
  CHECK(text.find("cold starts") == text.rfind("cold starts"));  // classify had none: no row
  CHECK(has(text, "    GPU-hours                    2.5\n"));
  CHECK(has(text, "    per million requests         $50,000.00  (cost / completed requests)\n"));
  CHECK(has(text, "    per million output tokens    $200.00  (250,000 output tokens)\n"));
  CHECK(has(text, "\n  classify (team vision)\n"));
  CHECK(has(text, "    SLO p99 <= 200.0ms           p99 n/a: n/a\n"));
  CHECK_FALSE(has(text, "requests in the trace"));  // every request kept
  CHECK(format_services({}) == "");

  const std::string json = services_json(summarize_services(two_services()), 1);
  INFO(json);
  CHECK(has(json, "\"name\": \"chat\""));
  CHECK(has(json, "\"cost_per_million_requests_usd\": 50000"));
  CHECK(has(json, "\"cost_per_million_output_tokens_usd\": 200"));
  CHECK(has(json, "\"slo_ttft_p99_met\": false"));
  CHECK(has(json, "\"slo_tpot_p99_met\": true"));
  CHECK(has(json, "\"slo_p99_met\": null"));
  CHECK(has(json, "\"gpu_hours\": 2.5"));
  CHECK(has(json, "\"cold_starts\": 4"));
  CHECK(has(json, "\"cold_start_s\": 26.2"));
}

TEST_CASE("services: gcsim compare's rows per service", "[unit][analysis][services]") {
  TraceData a = two_services();
  TraceData b = two_services();
  b.services[0].e2e_p99_s = 2.0;
  b.services[0].cost_usd = 40;
  b.services[0].slo_attained = 0.999;
  CHECK(service_figures(TraceData{}).empty());
  const auto fa = service_figures(a);
  REQUIRE(fa.size() == 2);
  CHECK(fa[0].first == "chat");
  CHECK(fa[0].second[0] == 4.25);
  CHECK(fa[0].second[1] == 0.985);
  CHECK(fa[0].second[2] == Approx(50000.0));

  const auto variant = [](const std::string& label, const TraceData& t) {
    StrategyFigures figures;
    figures.fill(1.0);
    return StrategyResult{label, "  policy: fifo\n", {figures}, {{}}, {service_figures(t)}};
  };
  const ComparisonHeader header{"s", "s.yaml", 1, 1};
  const std::string table = format_strategy_table(header, {variant("fifo", a), variant("sjf", b)});
  INFO(table);
  CHECK(has(table, "\n  services\n"));
  CHECK_FALSE(has(table, "\n  teams\n"));
  // The lower p99 and cost marked; the share attained described, not ranked.
  CHECK(has(table, "\n    chat: p99                                4.25s          2.00s*\n"));
  CHECK(has(table, "\n    chat: SLO attained                       98.5%          99.9%\n"));
  CHECK(has(table, "\n    chat: per million requests          $50,000.00     $40,000.00*\n"));
  CHECK(has(table, "\n    classify: p99                              n/a            n/a\n"));
  const std::string json = format_strategy_json(header, {variant("fifo", a), variant("sjf", b)});
  CHECK(has(json, "\"services\": {"));
  CHECK(has(json, "\"cost_per_million_requests_usd\": {"));

  // No services: the table and JSON as before.
  const std::string plain = format_strategy_table(header, {variant("fifo", TraceData{})});
  CHECK_FALSE(has(plain, "services"));
  CHECK_FALSE(has(format_strategy_json(header, {variant("fifo", TraceData{})}), "services"));
}

TEST_CASE("services: latency and replica plots, none without services", "[unit][analysis][services][plot]") {
  test::TempDir dir;
  const std::vector<std::string> paths = plot_services(two_services(), dir.path().string(), "-x");
  REQUIRE(paths.size() == 2);
  CHECK(std::filesystem::path(paths[0]).filename() == "service_latency-x.png");
  CHECK(std::filesystem::path(paths[1]).filename() == "service_replicas-x.png");
  for (const std::string& p : paths) {
    INFO(p);
    CHECK(std::filesystem::file_size(p) > 1000);
  }
  CHECK(plot_services(TraceData{}, dir.path().string()).empty());
}

TEST_CASE("services: gcsim compare's plots per service, named as announced", "[unit][analysis][services][plot]") {
  CHECK(service_plot_names({"chat", "classify"}) ==
        std::vector<std::string>{"service_p99-chat", "service_replicas-chat", "service_p99-classify",
                                 "service_replicas-classify"});
  CHECK(overlay_plot_names({"a"}, {"chat"}) == std::vector<std::string>{"jct_cdf", "wait_cdf", "gpus_allocated",
                                                                        "queue_length", "team_share-a",
                                                                        "service_p99-chat", "service_replicas-chat"});
  test::TempDir dir;
  TraceData a = two_services();
  TraceData b = two_services();
  for (auto& x : b.service_series) x.e2e_p99_s *= 2;
  const std::vector<std::string> paths = write_overlay_plots({&a, &b}, {"fifo", "priority"}, dir.path().string());
  // Every file written is one announced (so that compare checks its name before the runs),
  // and each service has both plots in both formats.
  const std::vector<std::string> names = overlay_plot_names({}, {"chat", "classify"});
  std::set<std::string> written;
  for (const std::string& p : paths) {
    const std::filesystem::path f(p);
    CHECK(std::find(names.begin(), names.end(), f.stem().string()) != names.end());
    CHECK(std::filesystem::file_size(f) > 1000);
    written.insert(f.filename().string());
  }
  for (const char* f : {"service_p99-chat.png", "service_p99-chat.svg", "service_replicas-chat.png",
                        "service_replicas-classify.svg", "service_p99-classify.png"})
    CHECK(written.count(f) == 1);
  // The SLO target of classify (200 ms) is drawn in its p99 plot: the SVG has the dashed line.
  std::ifstream svg(dir.file("service_p99-classify.svg"));
  const std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  CHECK(text.find("end-to-end p99 per interval (SLO target dashed)") != std::string::npos);
  // chat has only a TTFT target: its plot is of TTFT.
  std::ifstream chat_svg(dir.file("service_p99-chat.svg"));
  const std::string chat((std::istreambuf_iterator<char>(chat_svg)), std::istreambuf_iterator<char>());
  CHECK(chat.find("service chat: time to first token p99 per interval (SLO target dashed)") != std::string::npos);
  // Without services, none of them.
  TraceData plain;
  for (const std::string& p : write_overlay_plots({&plain}, {"fifo"}, dir.path().string()))
    CHECK(std::filesystem::path(p).stem().string().rfind("service_", 0) == std::string::npos);
}
