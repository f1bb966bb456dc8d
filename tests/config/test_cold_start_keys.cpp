// `workload.services[i].cold_start` as a map (docs/serving.md, "Cold start"): an image pull
// and a model load read from storage tiers, priced at resolve as a checkpoint restore is
// (retrieval delay + size / read throughput, one reader alone; docs/storage.md), and every
// error of models/config/service_reader.cpp and the resolve step at its line and column.
#include <catch2/catch.hpp>

#include <string>

#include "models/serving/llm_cost.hpp"
#include "models/workload/model_catalog.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using gcsim::test::config_error;

namespace {

// object-store: one stream of a file of F bytes takes latency + F / stream (50 ms + F at
// 500 MB/s; the aggregate 10 GB/s does not bind); shared-fs: F / 2 GB/s; archive: a
// retrieval delay of 1 h, then F / 1 GB/s.
const std::string STORAGE = R"(storage:
  tiers:
    - {name: object-store, kind: object-store, read: 10GB/s, stream: 500MB/s, latency: 50ms}
    - {name: shared-fs, kind: shared-fs, read: 2GB/s}
    - {name: glacier, kind: archive, read: 1GB/s, retrieval: {delay: 1h}}
)";

const std::string HEAD = R"(name: cold
horizon: 1h
cluster:
  node_types:
    - {name: n, gpu: A100-80GB-SXM, gpus: 8, count: 2, price: {on_demand_per_hour: 16}}
)";

// A service (line 7 of the file with storage, 2 of `workload`'s lines before it) with the
// cold_start lines given, each indented under `cold_start:`.
std::string scenario(const std::string& head_of_service, const std::string& cold_lines, bool storage = true) {
  return HEAD + (storage ? STORAGE : "") + "workload:\n  services:\n" + head_of_service + "      cold_start:\n" + cold_lines;
}

const std::string LATENCY = "    - name: s\n      requests: {arrival: 1s}\n      latency: 20ms\n";
const std::string LLAMA =
    "    - name: s\n      model: llama-2-7b\n      precision: fp16\n      requests:\n        arrival: 1s\n"
    "        prompt_tokens: 100\n        output_tokens: 10\n";

// The line of `cold_start:` in scenario(LATENCY, ...) with storage: HEAD 5 lines, STORAGE 5,
// `workload:` and `services:` 2, the service 3: line 16; its map's keys on 17, 18, ...
constexpr int COLD_LINE = 16;

}  // namespace

TEST_CASE("cold_start as a map: an image pull and a model load priced on their tiers", "[unit][config][serving]") {
  SECTION("by hand: object-store image, shared-fs model, fixed") {
    const auto s = test::scenario_from_yaml(scenario(LATENCY,
                                                     "        image: {size: 2GB, tier: object-store}\n"
                                                     "        model: {tier: shared-fs, size: 3GB}\n"
                                                     "        fixed: 10s\n"));
    const auto& c = s.workload.services[0].cold_start;
    CHECK(c.fixed == sim::seconds(10));
    CHECK(c.image.bytes == 2e9);
    // pull = 0 + 2e9 / min(10e9, 1 * 2e9 / (0.05 + 2e9 / 500e6)) = 0.05 + 4 = 4.05 s
    CHECK(c.image.time.ns() == 4'050'000'000);
    // load = 0 + 3e9 / 2e9 = 1.5 s
    CHECK(c.model.time.ns() == 1'500'000'000);
    CHECK(c.time(false).ns() == 15'550'000'000);  // 10 + 4.05 + 1.5
    CHECK(c.time(true).ns() == 11'500'000'000);   // 10 + 1.5
  }
  SECTION("an archive's retrieval delay comes first") {
    const auto s = test::scenario_from_yaml(scenario(LATENCY, "        model: {tier: glacier, size: 5GB}\n"));
    const auto& c = s.workload.services[0].cold_start;
    CHECK(c.model.time.ns() == 3'605'000'000'000);  // 3600 + 5e9 / 1e9
    CHECK(c.fixed == sim::SimTime::zero());
    CHECK(c.image.empty());
    CHECK(c.time(false) == c.time(true));  // no image to pull
  }
  SECTION("a catalog model's weights by default: parameters x bytes of the precision") {
    const auto s = test::scenario_from_yaml(scenario(LLAMA, "        model: {tier: shared-fs}\n"));
    const auto& sv = s.workload.services[0];
    const double params = models::resolve(*sv.model_spec).params;
    CHECK(params == Approx(6.74e9).epsilon(0.01));  // Llama 2 7B (Touvron et al. 2023)
    CHECK(sv.cold_start.model.bytes == params * 2);  // fp16
    CHECK(sv.cold_start.model.time == sim::SimTime::from_seconds(params * 2 / 2e9));
  }
  SECTION("size overrides the catalog's") {
    const auto s = test::scenario_from_yaml(scenario(LLAMA, "        model: {tier: shared-fs, size: 4GB}\n"));
    CHECK(s.workload.services[0].cold_start.model.time.ns() == 2'000'000'000);
  }
  SECTION("a duration is the fixed part alone") {
    const auto s = test::scenario_from_yaml(HEAD + "workload:\n  services:\n" + LATENCY + "      cold_start: 45s\n");
    const auto& c = s.workload.services[0].cold_start;
    CHECK(c.fixed == sim::seconds(45));
    CHECK(c.time(false) == sim::seconds(45));
  }
  SECTION("sizes as people write them") {
    const auto s = test::scenario_from_yaml(scenario(LATENCY, "        image: {size: 12GiB, tier: shared-fs}\n"));
    CHECK(s.workload.services[0].cold_start.image.bytes == 12.0 * 1024 * 1024 * 1024);
  }
}

TEST_CASE("cold_start errors at their line and column", "[unit][config][serving]") {
  SECTION("an unknown key of the map, with did-you-mean") {
    const ConfigError e = config_error([&] { (void)test::scenario_from_yaml(scenario(LATENCY, "        fixd: 10s\n")); });
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(e.mark().line == COLD_LINE + 1);
    CHECK(e.mark().column == 9);
    CHECK(std::string(e.what()).find("fixed") != std::string::npos);
  }
  SECTION("an unknown key of image, with did-you-mean") {
    const ConfigError e = config_error(
        [&] { (void)test::scenario_from_yaml(scenario(LATENCY, "        image:\n          sise: 1GB\n          tier: shared-fs\n")); });
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(e.mark().line == COLD_LINE + 2);
    CHECK(e.mark().column == 11);
    CHECK(std::string(e.what()).find("size") != std::string::npos);
  }
  SECTION("an unknown tier, with did-you-mean") {
    const ConfigError e = config_error(
        [&] { (void)test::scenario_from_yaml(scenario(LATENCY, "        image:\n          size: 1GB\n          tier: object-stor\n")); });
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(e.key_path() == "workload.services[0].cold_start.image.tier");
    CHECK(e.mark().line == COLD_LINE + 3);
    CHECK(e.mark().column == 17);
    CHECK(std::string(e.what()).find("did you mean 'object-store'") != std::string::npos);
  }
  SECTION("a tier named in a scenario without storage") {
    const ConfigError e = config_error([&] {
      (void)test::scenario_from_yaml(scenario(LATENCY, "        model:\n          tier: shared-fs\n          size: 1GB\n", false));
    });
    CHECK(e.code() == ErrorCode::Conflict);
    CHECK(e.key_path() == "workload.services[0].cold_start.model.tier");
    CHECK(e.mark().line == COLD_LINE - 5 + 2);  // no STORAGE lines
    CHECK(std::string(e.what()).find("no storage: section") != std::string::npos);
  }
  SECTION("a model without size for a latency service") {
    const ConfigError e = config_error([&] { (void)test::scenario_from_yaml(scenario(LATENCY, "        model:\n          tier: shared-fs\n")); });
    CHECK(e.code() == ErrorCode::MissingKey);
    CHECK(e.key_path() == "workload.services[0].cold_start.model");
    CHECK(e.mark().line == COLD_LINE + 2);
  }
  SECTION("an image without size") {
    const ConfigError e = config_error([&] { (void)test::scenario_from_yaml(scenario(LATENCY, "        image: {tier: shared-fs}\n")); });
    CHECK(e.code() == ErrorCode::MissingKey);
    CHECK(e.mark().line == COLD_LINE + 1);
  }
  SECTION("a size of zero or below") {
    for (const char* size : {"0GB", "-1GB"}) {
      INFO(size);
      const ConfigError e = config_error([&] {
        (void)test::scenario_from_yaml(scenario(LATENCY, std::string("        image:\n          size: ") + size + "\n          tier: shared-fs\n"));
      });
      CHECK(e.code() == ErrorCode::OutOfRange);
      CHECK(e.key_path() == "workload.services[0].cold_start.image.size");
      CHECK(e.mark().line == COLD_LINE + 2);
      CHECK(e.mark().column == 17);
    }
  }
  SECTION("a negative fixed part") {
    const ConfigError e = config_error([&] { (void)test::scenario_from_yaml(scenario(LATENCY, "        fixed: -1s\n")); });
    CHECK(e.key_path() == "workload.services[0].cold_start.fixed");
    CHECK(e.mark().line == COLD_LINE + 1);
  }
}
