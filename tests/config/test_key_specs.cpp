// Typed key specs (sim/config/key_table.hpp): a key's range and default written once, read
// through MapReader::get/value/need with the spec's bounds, printed by range_text() and
// default_text(); and every key table the scenario has, held to that one-source rule.
#include <catch2/catch.hpp>

#include "support/key_values.hpp"
#include "support/scenario_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "models/config/budget_reader.hpp"
#include "models/config/cluster_reader.hpp"
#include "models/config/scenario_keys.hpp"
#include "models/config/scheduler_reader.hpp"
#include "models/config/workload_reader.hpp"
#include "models/register_builtins.hpp"
#include "models/scheduler/scheduler_registry.hpp"
#include "sim/check.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/reader.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::InternalError;
using gcsim::config::ConfigDocument;
using gcsim::config::KeyKind;
using gcsim::config::KeySpec;
using gcsim::config::load_yaml_string;
using gcsim::config::MapReader;
namespace c = gcsim::config;
namespace s = gcsim::sim;

namespace {

using gcsim::test::config_error;

constexpr KeySpec TABLE[] = {
    {.name = "gpus", .type = "integer", .help = "GPUs", .kind = KeyKind::Integer, .min = 1, .max = 64,
     .has_default = true, .default_number = 8},
    {.name = "count", .type = "integer", .required = true, .kind = KeyKind::Integer, .min = 1, .max = 1 << 20},
    {.name = "seed", .type = "integer", .kind = KeyKind::Integer, .min = 0},
    {.name = "eff", .type = "fraction", .kind = KeyKind::Fraction, .min = 0, .max = 1, .above_min = true,
     .has_default = true, .default_number = 0.4},
    {.name = "share", .type = "fraction", .range = ">= min", .kind = KeyKind::Percent, .min = 0, .max = 1,
     .has_default = true, .default_number = 1},
    {.name = "work", .type = "FLOP", .kind = KeyKind::Number, .min = 0, .above_min = true,
     .below_min = "work must be > 0 FLOP"},
    {.name = "sigma", .type = "number", .kind = KeyKind::Number, .min = 0, .max = 10, .above_min = true},
    {.name = "every", .type = "duration", .kind = KeyKind::Duration, .min = 1e9, .has_default = true,
     .default_number = 3600e9},
    {.name = "deadline", .type = "duration", .default_value = "none", .kind = KeyKind::Duration, .min = 1},
    {.name = "pull", .type = "duration", .kind = KeyKind::Duration, .min = 0, .has_default = true, .default_number = 0},
    {.name = "limit", .type = "USD", .kind = KeyKind::Usd, .min = 0, .above_min = true},
    {.name = "size", .type = "bytes", .kind = KeyKind::Bytes},
    {.name = "pause", .type = "bool", .kind = KeyKind::Bool, .has_default = true, .default_number = 1},
    {.name = "mode", .type = "`a` | `b`", .default_value = "`a`", .range = "a choice"},
};

struct Doc {
  ConfigDocument doc;
  const c::ConfigNode& map() const { return *doc.root.find("t"); }
};

Doc doc(const std::string& body) { return {load_yaml_string("t:\n  count: 4\n" + body, "keys.yaml")}; }

}  // namespace

TEST_CASE("range_text and default_text write a typed key's bounds and default", "[unit]") {
  const auto at = [](std::string_view name) { return *c::find_key(TABLE, name); };
  CHECK(c::range_text(at("gpus")) == "1..64");
  CHECK(c::default_text(at("gpus")) == "`8`");
  CHECK(c::range_text(at("count")) == "1..1048576");
  CHECK(c::default_text(at("count")).empty());
  CHECK(c::range_text(at("seed")) == ">= 0");
  CHECK(c::range_text(at("eff")) == "(0, 1]");
  CHECK(c::default_text(at("eff")) == "`0.4`");
  CHECK(c::range_text(at("share")) == "0%..100%; >= min");
  CHECK(c::default_text(at("share")) == "`100%`");
  CHECK(c::range_text(at("work")) == "> 0");
  CHECK(c::range_text(at("sigma")) == "(0, 10]");
  CHECK(c::range_text(at("every")) == ">= 1s");
  CHECK(c::default_text(at("every")) == "`1h`");
  CHECK(c::range_text(at("deadline")) == "> 0");
  CHECK(c::default_text(at("deadline")) == "none");
  CHECK(c::range_text(at("pull")) == ">= 0");
  CHECK(c::default_text(at("pull")) == "`0s`");
  CHECK(c::range_text(at("limit")) == "> 0");
  CHECK(c::range_text(at("size")) == "> 0");
  CHECK(c::range_text(at("pause")).empty());
  CHECK(c::default_text(at("pause")) == "`true`");
  CHECK(c::range_text(at("mode")) == "a choice");
  CHECK(c::default_text(at("mode")) == "`a`");
  CHECK(c::format_key_duration(0) == "0s");
  CHECK(c::format_key_duration(300e9) == "5m");
  CHECK(c::format_key_duration(7 * 86400e9) == "7d");
  CHECK(c::format_key_duration(90e9) == "90s");
  CHECK(c::format_key_duration(250e6) == "250ms");
  CHECK(c::format_key_duration(1) == "1ns");
}

TEST_CASE("MapReader reads a typed key through its spec: value, default, bounds", "[unit]") {
  SECTION("absent keys take the spec's default, or none") {
    const Doc d = doc("");
    MapReader r(d.map(), TABLE);
    CHECK(r.value<std::int64_t>("gpus") == 8);
    CHECK(r.value<std::int64_t>("count") == 4);
    CHECK(r.get<std::int64_t>("seed") == std::nullopt);
    CHECK(r.value<double>("eff") == 0.4);
    CHECK(r.value<double>("share") == 1.0);
    CHECK(r.value<s::SimTime>("every") == s::hours(1));
    CHECK(r.value<s::SimTime>("pull") == s::SimTime::zero());
    CHECK(r.get<s::SimTime>("deadline") == std::nullopt);
    CHECK(r.value<bool>("pause"));
    CHECK(r.where("gpus") == nullptr);
  }
  SECTION("given values in the kind's units") {
    const Doc d = doc("  gpus: 64\n  seed: 9223372036854775807\n  eff: 100%\n  share: 25%\n  work: 2.1e18\n"
                      "  every: 1s\n  deadline: 1ns\n  limit: $5\n  size: 1KiB\n  pause: false\n  sigma: 10\n");
    MapReader r(d.map(), TABLE);
    CHECK(r.value<std::int64_t>("gpus") == 64);
    CHECK(r.get<std::int64_t>("seed") == std::numeric_limits<std::int64_t>::max());
    CHECK(r.value<double>("eff") == 1.0);
    CHECK(r.value<double>("share") == Approx(0.25).epsilon(1e-15));
    CHECK(*r.get<double>("work") == 2.1e18);
    CHECK(r.value<s::SimTime>("every") == s::seconds(1));
    CHECK(*r.get<s::SimTime>("deadline") == s::SimTime::from_ns(1));
    CHECK(*r.get<double>("limit") == 5.0);
    CHECK(*r.get<double>("size") == 1024.0);
    CHECK(!r.value<bool>("pause"));
    CHECK(*r.get<double>("sigma") == 10.0);
    REQUIRE(r.where("gpus") != nullptr);
    CHECK(r.where("gpus")->path() == "t.gpus");
  }
  SECTION("each bound of the spec, with the plain readers' codes and wording") {
    const auto error = [](const std::string& body, std::string_view key, auto read) {
      const Doc d = doc(body);
      return config_error([&] {
        MapReader r(d.map(), TABLE);
        read(r, key);
      });
    };
    const auto integer = [](MapReader& r, std::string_view k) { (void)r.get<std::int64_t>(k); };
    const auto number = [](MapReader& r, std::string_view k) { (void)r.get<double>(k); };
    const auto duration = [](MapReader& r, std::string_view k) { (void)r.get<s::SimTime>(k); };
    const ConfigError gpus = error("  gpus: 65\n", "gpus", integer);
    CHECK(gpus.code() == ErrorCode::OutOfRange);
    CHECK(gpus.key_path() == "t.gpus");
    CHECK(gpus.detail() == "'65' is out of range: must be between 1 and 64");
    CHECK(error("  gpus: 0\n", "gpus", integer).code() == ErrorCode::OutOfRange);
    CHECK(error("  seed: -1\n", "seed", integer).code() == ErrorCode::OutOfRange);
    CHECK(error("  gpus: 1.5\n", "gpus", integer).code() == ErrorCode::WrongType);
    const ConfigError eff = error("  eff: 0\n", "eff", number);
    CHECK(eff.code() == ErrorCode::OutOfRange);
    CHECK(eff.detail() == "expected a fraction in (0, 1], got '0'");
    CHECK(error("  eff: 101%\n", "eff", number).code() == ErrorCode::OutOfRange);
    const ConfigError work = error("  work: 0\n", "work", number);
    CHECK(work.code() == ErrorCode::OutOfRange);
    CHECK(work.detail() == "work must be > 0 FLOP");
    CHECK(error("  sigma: 0\n", "sigma", number).detail() == "sigma must be (0, 10]");
    CHECK(error("  sigma: 10.5\n", "sigma", number).code() == ErrorCode::OutOfRange);
    CHECK(error("  every: 999ms\n", "every", duration).code() == ErrorCode::OutOfRange);
    CHECK(error("  deadline: 0s\n", "deadline", duration).code() == ErrorCode::OutOfRange);
    CHECK(error("  every: 5\n", "every", duration).code() == ErrorCode::BadUnit);
    CHECK(error("  limit: 0\n", "limit", number).code() == ErrorCode::OutOfRange);
    CHECK(error("  size: 0B\n", "size", number).code() == ErrorCode::OutOfRange);
    CHECK(error("  pause: maybe\n", "pause", [](MapReader& r, std::string_view k) { (void)r.value<bool>(k); }).code() ==
          ErrorCode::WrongType);
  }
  SECTION("need: missing whatever the spec says") {
    const Doc d = doc("");
    MapReader r(d.map(), TABLE);
    const ConfigError e = config_error([&] { (void)r.need<std::int64_t>("seed"); });
    CHECK(e.code() == ErrorCode::MissingKey);
    CHECK(e.key_path() == "t.seed");
  }
  SECTION("a required typed key is missing at once") {
    const ConfigDocument d = load_yaml_string("t:\n  gpus: 2\n", "keys.yaml");
    const ConfigError e = config_error([&] { MapReader r(*d.root.find("t"), TABLE); });
    CHECK(e.code() == ErrorCode::MissingKey);
    CHECK(e.key_path() == "t.count");
  }
}

TEST_CASE("MapReader refuses to hand out a typed key's node by name, or to read it as another type", "[unit]") {
  const Doc d = doc("  gpus: 2\n  mode: b\n");
  MapReader r(d.map(), TABLE);
  REQUIRE_THROWS_AS(r.optional("gpus"), InternalError);
  REQUIRE_THROWS_AS(r.required("gpus"), InternalError);
  REQUIRE_THROWS_AS(r.get<double>("gpus"), InternalError);  // an Integer is read as std::int64_t
  REQUIRE_THROWS_AS(r.get<std::int64_t>("mode"), InternalError);  // untyped
  REQUIRE_THROWS_AS(r.get<std::int64_t>("gpuz"), InternalError);  // not in the table
  REQUIRE_THROWS_AS(r.value<s::SimTime>("deadline"), InternalError);  // no default
  CHECK(r.optional("mode") != nullptr);  // an untyped key is read by its reader's own code
  CHECK(r.value<std::int64_t>("gpus") == 2);
}

namespace {

// Every key table of the scenario: its sections, the scheduler's common keys and each policy's.
std::vector<std::pair<std::string, std::vector<KeySpec>>> every_table() {
  std::vector<std::pair<std::string, std::vector<KeySpec>>> out;
  for (const auto& s : gcsim::models::scenario_key_sections())
    out.push_back({std::string(s.section.path), {s.section.keys.begin(), s.section.keys.end()}});
  out.push_back({"scheduler", gcsim::models::scheduler_common_keys()});
  for (const auto& [name, policy] : gcsim::models::builtins().schedulers.policies())
    out.push_back({"scheduler(policy: " + name + ")", {policy.keys.begin(), policy.keys.end()}});
  return out;
}

}  // namespace

TEST_CASE("every typed key in every table has one source for its range and default", "[unit]") {
  int typed = 0;
  for (const auto& [path, keys] : every_table()) {
    for (const KeySpec& k : keys) {
      if (!k.typed()) continue;
      ++typed;
      INFO(path << " " << k.name);
      // The default is written by default_text() from the number, never beside it.
      if (k.has_default) CHECK(k.default_value.empty());
      CHECK(!(k.has_default && k.required));
      // The text field holds only a condition beyond the bounds, never the bounds again.
      const std::string extra(k.range);
      CHECK((extra.empty() || !(extra[0] == '>' || extra[0] == '<' || extra[0] == '(' || std::isdigit(
                                   static_cast<unsigned char>(extra[0])))));
      CHECK(k.min <= k.max);
      if (k.kind == KeyKind::Duration) CHECK(std::isinf(k.max));
      if (k.kind == KeyKind::Fraction || k.kind == KeyKind::Percent) CHECK((k.min >= 0 && k.max <= 1));
      // The default lies in the range the reader enforces.
      if (k.has_default && k.kind != KeyKind::Bool) {
        CHECK(k.default_number >= k.min);
        CHECK(k.default_number <= k.max);
        if (k.above_min) CHECK(k.default_number > k.min);
      }
      if (k.kind == KeyKind::Integer) CHECK(k.default_number == std::floor(k.default_number));
    }
  }
  CHECK(typed >= 40);
}

namespace {

// A small valid scenario, with lines added at the top, entries added to its node type's
// and its job's flow maps, and sections added at the end.
std::string scenario_with(const std::string& top, const std::string& node, const std::string& job,
                          const std::string& more) {
  // `top`: lines of the top level; the horizon is 30 days unless they give one.
  return "name: t\n" + (top.rfind("horizon:", 0) == 0 ? std::string() : "horizon: 30d\n") + top +
         "cluster:\n  node_types:\n    - {name: a, gpu: A100-80GB-SXM, " +
         (node.find(" gpus:") == std::string::npos ? "gpus: 8, " : "") +
         (node.find(" count:") == std::string::npos ? "count: 2, " : "") + "price: {on_demand_per_hour: 32.77}" + node +
         "}\n"
         "workload:\n  jobs:\n    - {name: j, team: t, " + job + "}\n" + more;
}

}  // namespace

TEST_CASE("each reader enforces its typed keys' bounds from the spec, at the key's own path", "[unit]") {
  struct Map {
    std::string path;
    c::KeyTable keys;
    std::function<std::string(const std::string& kv)> yaml;  // the scenario with "key: value" in this map
    std::vector<std::string> skip;  // keys read only with others this map does not have
  };
  const auto policy = [](const std::string& name) {
    return [name](const std::string& kv) {
      return scenario_with("", "", "gpus: 1, duration: 1h", "scheduler: {policy: " + name + ", " + kv + "}\n");
    };
  };
  const auto& policies = gcsim::models::builtins().schedulers.policies();
  const std::vector<Map> maps{
      {"", gcsim::models::TOP_LEVEL_KEYS,
       [](const std::string& kv) { return scenario_with(kv + "\n", "", "gpus: 1, duration: 1h", ""); },
       {}},
      {"cluster.node_types[0]", gcsim::models::NODE_TYPE_KEYS,
       [](const std::string& kv) { return scenario_with("", ", " + kv, "gpus: 1, duration: 1h", ""); }, {"notice", "provisioning"}},
      {"workload.jobs[0]", gcsim::models::JOB_KEYS,
       [](const std::string& kv) {
         const bool work = kv.rfind("work:", 0) == 0 || kv.rfind("efficiency:", 0) == 0;
         return scenario_with("", "", kv.rfind("gpus:", 0) == 0 ? kv + ", duration: 1h"
                                      : work ? "gpus: 1, " + kv + (kv.rfind("work:", 0) == 0 ? "" : ", work: 1e18") + ", precision: fp16"
                                      : kv.rfind("duration:", 0) == 0 ? "gpus: 1, " + kv
                                                                      : "gpus: 1, duration: 1h, " + kv,
                              "");
       },
       // A model job's keys: tests/config/test_key_specs_models.cpp (on a duration job they are a conflict).
       {"seq_len", "batch_per_gpu", "grad_accum", "samples", "epochs", "tokens"}},
      {"workload.jobs[0].comm", gcsim::models::COMM_KEYS,
       [](const std::string& kv) {
         std::string comm = "bytes: 1GB, every: 1s";
         const std::string key = kv.substr(0, kv.find(':'));
         if (key == "bytes") comm = "every: 1s";
         if (key == "every") comm = "bytes: 1GB";
         return scenario_with("", "", "gpus: 1, duration: 1h, comm: {" + comm + ", " + kv + "}", "");
       },
       {}},
      {"workload.jobs[0].estimate", gcsim::models::ESTIMATE_KEYS,
       [](const std::string& kv) { return scenario_with("", "", "gpus: 1, duration: 1h, estimate: {error: lognormal, " + kv + "}", ""); },
       {}},
      {"workload.generators[0]", gcsim::models::GENERATOR_KEYS,
       [](const std::string& kv) {
         const std::string base = kv.rfind("count:", 0) == 0 ? "" : "count: 2, ";
         return scenario_with("", "", "gpus: 1, duration: 1h",
                              "  generators:\n    - {name: g, " + base + "arrival: 1h, gpus: 1, duration: 1h, " + kv + "}\n");
       },
       {}},
      {"budgets[0]", gcsim::models::BUDGET_KEYS,
       [](const std::string& kv) {
         const std::string base = kv.rfind("limit:", 0) == 0 ? "" : "limit: 100, ";
         return scenario_with("", "", "gpus: 1, duration: 1h", "budgets:\n  - {team: t, " + base + kv + "}\n");
       },
       {}},
      {"scheduler", policies.at("las").keys, policy("las"), {"queues"}},
      {"scheduler", policies.at("finish-time-fair").keys, policy("finish-time-fair"), {}},
      {"scheduler", policies.at("spot-fallback").keys, policy("spot-fallback"), {}},
      {"scheduler", policies.at("fair-share").keys, policy("fair-share"), {}},
      {"scheduler", policies.at("backfill").keys, policy("backfill"), {}},
  };
  int checked = 0;
  for (const Map& m : maps) {
    for (const KeySpec& k : m.keys) {
      if (!k.typed() || std::find(m.skip.begin(), m.skip.end(), std::string(k.name)) != m.skip.end()) continue;
      for (const std::string& v : gcsim::test::outside_values(k)) {
        const std::string yaml = m.yaml(std::string(k.name) + ": " + v);
        INFO(m.path << " " << k.name << ": " << v << "\n" << yaml);
        const ConfigError e = config_error([&] { (void)gcsim::test::scenario_from_yaml(yaml); });
        CHECK(e.code() == ErrorCode::OutOfRange);
        CHECK(e.key_path() == (m.path.empty() ? "" : m.path + ".") + std::string(k.name));
        ++checked;
      }
    }
  }
  // LAS's queues: the bound, with thresholds absent.
  CHECK(config_error([&] { (void)gcsim::test::scenario_from_yaml(policy("las")("queues: 17")); }).code() ==
        ErrorCode::OutOfRange);
  CHECK(checked >= 40);
}
