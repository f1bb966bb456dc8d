// The key tables of the sections other packages read (storage, topology, pricing, spot, a
// model job's training keys, its dataset and parallelism): each typed key is enforced from
// its spec at its own path, each table's out-of-range error is the exact message a user
// sees (file:line:column, code, dotted key), and an absent key takes the spec's default,
// which is the model's own default.
#include <catch2/catch.hpp>

#include "support/key_values.hpp"
#include "support/scenario_support.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "models/config/cluster_reader.hpp"
#include "models/config/workload_reader.hpp"
#include "models/pricing/billing.hpp"
#include "models/pricing/price_spec.hpp"
#include "models/pricing/tco.hpp"
#include "models/spot/spot_spec.hpp"
#include "models/storage/storage_spec.hpp"
#include "models/topology/topology_spec.hpp"
#include "models/workload/model_catalog.hpp"
#include "models/workload/training.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/reader.hpp"
#include "sim/errors.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::config::KeyKind;
using gcsim::config::KeySpec;
namespace c = gcsim::config;
namespace m = gcsim::models;
namespace t = gcsim::topology;

namespace {

// A scenario with one node type and one job, written in block style so that a map under
// test is a block of "key: value" lines at a known indentation.
const std::string HEAD = "name: t\nhorizon: 30d\ncluster:\n  node_types:\n    - name: a\n      gpu: A100-80GB-SXM\n"
                         "      gpus: 8\n      count: 2\n";
const std::string PRICE = "      price: {on_demand_per_hour: 32.77}\n";
const std::string SPOT = "      market: spot\n      price: {spot_per_hour: 3}\n";
const std::string JOB = "workload:\n  jobs:\n    - name: j\n      gpus: 8\n";
const std::string DURATION_JOB = JOB + "      duration: 1h\n";
const std::string MODEL_JOB = JOB + "      model: resnet50\n      precision: amp\n";

// A map under test: the lines before it, its own lines at `indent` spaces ("key: value";
// a line given to with() replaces the line of the same key, else is added), and the rest.
struct Block {
  std::string before;
  int indent;
  std::vector<std::string> lines;
  std::string after;

  std::string with(const std::string& kv) const {
    const std::string key = kv.substr(0, kv.find(':') + 1);
    std::vector<std::string> out = lines;
    const auto same = std::find_if(out.begin(), out.end(), [&](const std::string& l) { return l.rfind(key, 0) == 0; });
    if (same != out.end()) *same = kv;
    else out.push_back(kv);
    std::string yaml = before;
    for (const std::string& l : out) yaml += std::string(static_cast<std::size_t>(indent), ' ') + l + "\n";
    return yaml + after;
  }
};

struct Map {
  std::string path;  // the dotted path of the map in the scenarios below
  c::KeyTable keys;
  Block block;
  std::vector<std::string> skip;  // keys read only in another variant of the map
  std::vector<std::string> only = {};  // when given, only these keys (the others are tested elsewhere)

  bool tests(std::string_view key) const {
    const auto in = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), key) != v.end(); };
    return !in(skip) && (only.empty() || in(only));
  }
};

std::vector<Map> maps() {
  const std::string node_end = PRICE + DURATION_JOB;
  return {
      {"workload.jobs[0]", m::JOB_KEYS,
       {HEAD + PRICE + JOB + "      model: bert-large\n      precision: amp\n", 6, {"batch_per_gpu: 8", "samples: 10M"}, ""},
       {},
       {"seq_len", "batch_per_gpu", "grad_accum", "samples"}},
      {"workload.jobs[0]", m::JOB_KEYS,
       {HEAD + PRICE + JOB + "      model: bert-large\n      precision: amp\n", 6, {"batch_per_gpu: 8", "tokens: 1G"}, ""},
       {},
       {"tokens"}},
      {"workload.jobs[0]", m::JOB_KEYS,
       {HEAD + PRICE + MODEL_JOB, 6, {"batch_per_gpu: 256", "dataset: imagenet-1k", "epochs: 1"}, ""},
       {},
       {"epochs"}},
      {"workload.jobs[0].model", m::INLINE_MODEL_KEYS,
       {HEAD + PRICE + JOB + "      precision: amp\n      batch_per_gpu: 8\n      samples: 1000\n      model:\n", 8,
        {"name: tiny", "forward_flop: 1e9", "tensor_fraction: 0.9", "memory_traffic: 1MB", "params: 1e6",
         "activations: 1MB", "kernels_per_step: 100"},
        ""},
       {}},
      {"workload.jobs[0].model.transformer", m::TRANSFORMER_KEYS,
       {HEAD + PRICE + JOB + "      precision: amp\n      batch_per_gpu: 8\n      samples: 1000\n      model:\n"
                             "        name: tiny\n        transformer:\n",
        10, {"layers: 2", "hidden: 64", "heads: 4", "seq_len: 32", "vocab: 100"}, ""},
       {}},
      {"workload.jobs[0].dataset", m::DATASET_KEYS,
       {HEAD + PRICE + MODEL_JOB + "      batch_per_gpu: 256\n      epochs: 1\n      dataset:\n", 8,
        {"name: mine", "samples: 1000", "size: 1GB"}, ""},
       {}},
      {"workload.jobs[0].parallelism", m::PARALLELISM_KEYS,
       {HEAD + PRICE + MODEL_JOB + "      batch_per_gpu: 256\n      samples: 10M\n      parallelism:\n", 8, {}, ""},
       {}},
      {"storage.tiers[0]", m::STORAGE_TIER_KEYS,
       {HEAD + node_end + "storage:\n  tiers:\n    - name: s3\n", 6, {"kind: object-store", "read: 1GB/s"}, ""},
       {}},
      {"storage.tiers[0].retrieval", m::RETRIEVAL_KEYS,
       {HEAD + node_end + "storage:\n  tiers:\n    - name: g\n      kind: archive\n      read: 1GB/s\n      retrieval:\n", 8,
        {"delay: 12h"}, ""},
       {}},
      {"network.link", t::FABRIC_LINK_KEYS, {HEAD + node_end + "network:\n  fabric: single-switch\n  link:\n", 4, {}, ""}, {}},
      {"network", t::LEAF_SPINE_KEYS,
       {HEAD + node_end + "network:\n  fabric: leaf-spine\n", 2, {"nodes_per_leaf: 2", "spines: 1"}, ""},
       {}},
      {"network", t::FAT_TREE_KEYS, {HEAD + node_end + "network:\n  fabric: fat-tree\n", 2, {"k: 4"}, ""}, {}},
      {"network.links[0]", t::EXPLICIT_LINK_KEYS,
       {HEAD + node_end + "network:\n  fabric: explicit\n  hosts: [h0, h1]\n  links:\n    - name: l0\n", 6,
        {"between: [h0, h1]", "bandwidth: 100Gbps"}, ""},
       {}},
      {"cluster.node_types[0]", m::NODE_TYPE_KEYS, {HEAD, 6, {}, node_end}, {}, {"gpus_per_pcie_switch"}},
      {"cluster.node_types[0].pcie", t::PCIE_KEYS, {HEAD + "      pcie:\n", 8, {"gen: 4"}, node_end}, {}},
      {"cluster.node_types[0].nvlink", t::NVLINK_KEYS, {HEAD + "      nvlink:\n", 8, {"gen: 3", "links: 12"}, node_end}, {}},
      {"cluster.node_types[0].nics", t::NIC_KEYS, {HEAD + "      nics:\n", 8, {}, node_end}, {}},
      {"cluster.node_types[0].price.billing", m::BILLING_KEYS,
       {HEAD + "      price:\n        on_demand_per_hour: 32.77\n        billing:\n", 10, {"granularity: 1m"}, DURATION_JOB},
       {}},
      {"cluster.node_types[0].ownership", m::OWNERSHIP_KEYS,
       {HEAD + "      market: owned\n      ownership:\n", 8, {"capex: 100000", "depreciation: 3y", "electricity: 0.1/kWh"},
        DURATION_JOB},
       {}},
      {"cluster.node_types[0].price.reserved", m::RESERVED_KEYS,
       {HEAD + "      market: reserved\n      price:\n        reserved:\n", 10, {"term: 1y", "per_hour: 3"}, DURATION_JOB},
       {}},
      {"cluster.node_types[0].price.spot_profile", m::PRICE_PROFILE_KEYS,
       {HEAD + "      market: spot\n      price:\n        spot_profile:\n", 10, {"points: [{at: 0h, price: 1}]"}, DURATION_JOB},
       {}},
      {"cluster.node_types[0].price.spot_profile.points[0]", m::PRICE_POINT_KEYS,
       {HEAD + "      market: spot\n      price:\n        spot_profile:\n          points:\n            - at: 0h\n", 14,
        {"price: 1"}, DURATION_JOB},
       {"at"}},  // the first point must be at 0, and a negative duration is refused by the parser
      {"cluster.node_types[0].interruptions", m::INTERRUPTION_KEYS,
       {HEAD + SPOT + "      interruptions:\n", 8, {"process: poisson", "rate: 0.1/h"}, DURATION_JOB},
       {"shape", "scale", "start", "loop"}},
      {"cluster.node_types[0].interruptions", m::INTERRUPTION_KEYS,
       {HEAD + SPOT + "      interruptions:\n", 8, {"process: weibull", "shape: 0.7", "scale: 20h"}, DURATION_JOB},
       {"rate", "start", "loop"}},
      {"cluster.node_types[0].interruptions.correlated", m::CORRELATED_KEYS,
       {HEAD + SPOT + "      interruptions:\n        process: poisson\n        rate: 0.1/h\n        correlated:\n", 10,
        {"rate: 1/h", "fraction: 10%"}, DURATION_JOB},
       {}},
      {"cluster.node_types[0].availability", m::AVAILABILITY_KEYS,
       {HEAD + SPOT + "      availability:\n", 8, {"windows: [{every: 1d, from: 0h, to: 8h, available: 50%}]"}, DURATION_JOB},
       {"start", "loop"}},
      {"cluster.node_types[0].availability.windows[0]", m::AVAILABILITY_WINDOW_KEYS,
       {HEAD + SPOT + "      availability:\n        windows:\n          - available: 50%\n", 12,
        {"every: 1d", "from: 0h", "to: 8h"}, DURATION_JOB},
       {"available"}},
      {"cluster.node_types[0].availability.windows[0]", m::AVAILABILITY_WINDOW_KEYS,
       {HEAD + SPOT + "      availability:\n        windows:\n          - every: 1d\n", 12,
        {"from: 0h", "to: 8h", "available: 50%"}, DURATION_JOB},
       {"every"}},
  };
}

}  // namespace

TEST_CASE("the other packages' readers enforce their typed keys' bounds from the spec, at the key's path", "[unit]") {
  int checked = 0;
  for (const Map& map : maps()) {
    {
      INFO(map.path << " (the map as written, valid)\n" << map.block.with(map.block.lines.empty() ? "" : map.block.lines[0]));
      if (!map.block.lines.empty()) CHECK_NOTHROW(gcsim::test::scenario_from_yaml(map.block.with(map.block.lines[0])));
    }
    for (const KeySpec& k : map.keys) {
      if (!k.typed() || !map.tests(k.name)) continue;
      for (const std::string& v : gcsim::test::outside_values(k)) {
        const std::string yaml = map.block.with(std::string(k.name) + ": " + v);
        INFO(map.path << " " << k.name << ": " << v << "\n" << yaml);
        const ConfigError e = gcsim::test::config_error([&] { (void)gcsim::test::scenario_from_yaml(yaml); });
        CHECK(e.code() == ErrorCode::OutOfRange);
        CHECK(e.key_path() == map.path + "." + std::string(k.name));
        ++checked;
      }
    }
  }
  CHECK(checked >= 45);
}

namespace {

// The map of maps() at `path` whose block holds `first` (its first line), or the first at `path`.
const Map& map_at(const std::vector<Map>& all, const std::string& path, const std::string& first = "") {
  for (const Map& map : all)
    if (map.path == path && (first.empty() || (!map.block.lines.empty() && map.block.lines[0] == first))) return map;
  FAIL("no map " << path);
  throw std::logic_error("unreachable");
}

// "test.yaml:<line>:<column>: error[out-of-range]: <path>.<key>: <detail>", the line and
// column those of the value in `kv` ("key: value") as the scenario writes it.
std::string expected_message(const std::string& yaml, const std::string& path, const std::string& kv,
                             const std::string& detail) {
  const std::size_t at = yaml.find(kv + "\n");
  REQUIRE(at != std::string::npos);
  const std::size_t line_start = yaml.rfind('\n', at) + 1;
  const auto line = 1 + std::count(yaml.begin(), yaml.begin() + static_cast<std::ptrdiff_t>(at), '\n');
  const std::size_t column = at - line_start + kv.find(':') + 2 + 1;
  return "test.yaml:" + std::to_string(line) + ":" + std::to_string(column) + ": error[out-of-range]: " + path + "." +
         kv.substr(0, kv.find(':')) + ": " + detail;
}

}  // namespace

TEST_CASE("each table's out-of-range error names the file, line, column, code and key, with the exact detail", "[unit]") {
  struct Case {
    std::string path;
    std::string first;  // the first line of the map's block, to tell variants apart ("" = the first map)
    std::string kv;
    std::string detail;
  };
  const std::vector<Case> cases{
      {"workload.jobs[0]", "", "grad_accum: 0", "'0' is out of range: must be between 1 and 1048576"},
      {"workload.jobs[0].dataset", "", "samples: 0", "must be greater than zero"},
      {"workload.jobs[0].parallelism", "", "zero: 4", "'4' is out of range: must be between 0 and 3"},
      {"workload.jobs[0].model", "", "params: 0", "must be greater than zero"},
      {"workload.jobs[0].model.transformer", "", "layers: 10001", "'10001' is out of range: must be between 1 and 10000"},
      {"storage.tiers[0]", "", "iops: 0", "must be greater than zero"},
      {"storage.tiers[0].retrieval", "", "price: -1/GB", "a price must not be negative"},
      {"network.link", "", "speed: 0Gbps", "'0Gbps' must be greater than zero"},
      {"network", "nodes_per_leaf: 2", "spines: 0", "'0' is out of range: must be between 1 and 100000"},
      {"network", "k: 4", "k: 1026", "'1026' is out of range: must be between 2 and 1024"},
      {"network.links[0]", "", "bandwidth: 0Gbps", "'0Gbps' must be greater than zero"},
      {"cluster.node_types[0]", "", "gpus_per_pcie_switch: 1025", "'1025' is out of range: must be between 1 and 1024"},
      {"cluster.node_types[0].pcie", "", "gen: 6", "'6' is out of range: must be between 3 and 5"},
      {"cluster.node_types[0].nvlink", "", "links: 65", "'65' is out of range: must be between 1 and 64"},
      {"cluster.node_types[0].nics", "", "count: 65", "'65' is out of range: must be between 1 and 64"},
      {"cluster.node_types[0].price.billing", "", "granularity: 0s", "'0s' is out of range: must be at least 1ns"},
      {"cluster.node_types[0].ownership", "", "pue: 3.5", "'3.5' is out of range: must be between 1 and 3"},
      {"cluster.node_types[0].price.reserved", "", "term: 30m", "'30m' is out of range: must be at least 1h"},
      {"cluster.node_types[0].price.spot_profile", "", "repeat: 0s", "'0s' is out of range: must be at least 1ns"},
      {"cluster.node_types[0].price.spot_profile.points[0]", "", "price: -1", "'-1' must not be negative"},
      {"cluster.node_types[0].interruptions", "process: poisson", "rate: 61/h",
       "'61/h' is out of range: at most 60/h (once a minute; a replacement node takes minutes to provision, so faster "
       "interruptions make no physical sense)"},
      {"cluster.node_types[0].interruptions", "process: weibull", "scale: 30s", "'30s' is out of range: must be at least 1m"},
      {"cluster.node_types[0].interruptions.correlated", "", "fraction: 0", "a correlated event must hit more than 0% of the nodes"},
      {"cluster.node_types[0].availability", "", "otherwise: 101%", "'101%' is out of range: must be between 0 and 1 (0% and 100%)"},
      {"cluster.node_types[0].availability.windows[0]", "", "every: 30s", "'30s' is out of range: must be at least 1m"},
  };
  const std::vector<Map> all = maps();
  for (const Case& k : cases) {
    const Map& map = map_at(all, k.path, k.first);
    const std::string yaml = map.block.with(k.kv);
    INFO(yaml);
    const ConfigError e = gcsim::test::config_error([&] { (void)gcsim::test::scenario_from_yaml(yaml); });
    CHECK(std::string(e.what()) == expected_message(yaml, k.path, k.kv, k.detail));
  }
}

namespace {

constexpr KeySpec QUANTITIES[] = {
    {.name = "speed", .type = "bandwidth", .kind = KeyKind::Bandwidth, .has_default = true, .default_number = 100e9 / 8},
    {.name = "odd", .type = "bandwidth", .kind = KeyKind::Bandwidth, .has_default = true, .default_number = 3.3},
    {.name = "rate", .type = "rate", .kind = KeyKind::Rate, .min = 0, .max = 1.0 / 60, .above_max = "at most 60/h (why)"},
    {.name = "zone", .type = "rate", .kind = KeyKind::Rate, .min = 0, .max = 1.0 / 3600, .above_min = true},
    {.name = "power", .type = "power", .kind = KeyKind::Power, .min = 0, .max = 1000},
    {.name = "hourly", .type = "USD/h", .kind = KeyKind::UsdPerHour, .has_default = true, .default_number = 0},
    {.name = "energy", .type = "USD/kWh", .kind = KeyKind::UsdPerKwh},
};

}  // namespace

TEST_CASE("the quantity kinds: written in their units, read through the spec with its bounds", "[unit]") {
  const auto at = [](std::string_view name) { return *c::find_key(QUANTITIES, name); };
  CHECK(c::range_text(at("speed")) == "> 0");
  CHECK(c::default_text(at("speed")) == "`100Gbps`");
  CHECK(c::default_text(at("odd")) == "`3.3B/s`");  // 26.4 bits/s is no whole bit rate
  CHECK(c::range_text(at("rate")) == "0..60/h");
  CHECK(c::range_text(at("zone")) == "(0, 1/h]");
  CHECK(c::range_text(at("power")) == "0..1000");
  CHECK(c::range_text(at("hourly")) == ">= 0");
  CHECK(c::default_text(at("hourly")) == "`0`");
  CHECK(c::range_text(at("energy")) == ">= 0");

  const c::ConfigDocument ok = c::load_yaml_string(
      "t: {speed: 25GB/s, rate: 60/h, zone: 1/h, power: 1kW, hourly: $2.50/h, energy: 0.12/kWh}\n", "q.yaml");
  c::MapReader r(*ok.root.find("t"), QUANTITIES);
  CHECK(r.value<double>("speed") == 25e9);
  CHECK(r.value<double>("odd") == 3.3);
  CHECK(*r.get<double>("rate") == Approx(1.0 / 60).epsilon(1e-12));
  CHECK(*r.get<double>("zone") == Approx(1.0 / 3600).epsilon(1e-12));
  CHECK(*r.get<double>("power") == 1000.0);
  CHECK(r.value<double>("hourly") == 2.5);
  CHECK(*r.get<double>("energy") == Approx(0.12).epsilon(1e-12));
  REQUIRE_THROWS_AS(r.get<std::int64_t>("speed"), gcsim::InternalError);
  r.finish();

  const auto error = [](const std::string& kv) {
    const c::ConfigDocument d = c::load_yaml_string("t: {" + kv + "}\n", "q.yaml");
    const std::string key = kv.substr(0, kv.find(':'));
    return gcsim::test::config_error([&] {
      c::MapReader e(*d.root.find("t"), QUANTITIES);
      (void)e.get<double>(key);
    });
  };
  const ConfigError fast = error("rate: 61/h");
  CHECK(fast.code() == ErrorCode::OutOfRange);
  CHECK(fast.key_path() == "t.rate");
  CHECK(fast.detail() == "'61/h' is out of range: at most 60/h (why)");
  CHECK(error("zone: 2/h").detail() == "'2/h' is out of range: must be (0, 1/h]");
  CHECK(error("zone: 0/h").detail() == "zone must be (0, 1/h]");
  CHECK(error("power: 2kW").detail() == "'2kW' is out of range: must be 0..1000");
  CHECK(error("speed: 0Gbps").detail() == "'0Gbps' must be greater than zero");
  CHECK(error("speed: 5").code() == ErrorCode::BadUnit);
  CHECK(error("energy: -1/kWh").code() == ErrorCode::OutOfRange);
}

TEST_CASE("a key table's default is the model's own default, where the model keeps one", "[unit]") {
  const auto def = [](c::KeyTable table, std::string_view key) {
    const KeySpec* k = c::find_key(table, key);
    REQUIRE(k != nullptr);
    REQUIRE(k->has_default);
    return k->default_number;
  };
  const t::FabricLinkSpec link;
  CHECK(link.bytes_per_s == def(t::FABRIC_LINK_KEYS, "speed"));
  CHECK(static_cast<double>(link.latency.ns()) == def(t::FABRIC_LINK_KEYS, "latency"));
  const t::NodeInternalsSpec internals;
  CHECK(internals.nic_count == def(t::NIC_KEYS, "count"));
  CHECK(internals.nic_bytes_per_s == def(t::NIC_KEYS, "speed"));
  CHECK(static_cast<double>(internals.rdma) == def(t::NIC_KEYS, "rdma"));
  CHECK(internals.pcie_lanes == def(t::PCIE_KEYS, "lanes"));
  CHECK(internals.gpus_per_pcie_switch == def(m::NODE_TYPE_KEYS, "gpus_per_pcie_switch"));
  const m::ParallelismSpec parallel;
  CHECK(parallel.tensor == def(m::PARALLELISM_KEYS, "tensor"));
  CHECK(parallel.pipeline == def(m::PARALLELISM_KEYS, "pipeline"));
  CHECK(parallel.zero_stage == def(m::PARALLELISM_KEYS, "zero"));
  CHECK(m::TrainingSpec{}.grad_accum == def(m::JOB_KEYS, "grad_accum"));
  const m::TransformerShape shape;
  CHECK(shape.vocab == def(m::TRANSFORMER_KEYS, "vocab"));
  CHECK(shape.head_token_fraction == def(m::TRANSFORMER_KEYS, "head_token_fraction"));
  CHECK(shape.extra_forward_flop == def(m::TRANSFORMER_KEYS, "extra_forward_flop"));
  CHECK(shape.extra_params == def(m::TRANSFORMER_KEYS, "extra_params"));
  CHECK(static_cast<double>(shape.tie_embeddings) == def(m::TRANSFORMER_KEYS, "tie_embeddings"));
  CHECK(m::AvailabilitySpec{}.otherwise_fraction == def(m::AVAILABILITY_KEYS, "otherwise"));
  CHECK(static_cast<double>(m::BillingRule{}.minimum.ns()) == def(m::BILLING_KEYS, "minimum"));
  CHECK(m::DEFAULT_PUE == def(m::OWNERSHIP_KEYS, "pue"));
  CHECK(m::DEFAULT_PUE == 1.5);  // the documented assumption (docs/pricing.md)
  // The defaults as the reference writes them.
  CHECK(c::default_text(*c::find_key(t::FABRIC_LINK_KEYS, "speed")) == "`100Gbps`");
  CHECK(c::default_text(*c::find_key(t::FABRIC_LINK_KEYS, "latency")) == "`1us`");
  CHECK(c::range_text(*c::find_key(m::INTERRUPTION_KEYS, "rate")) == "0..60/h");
  CHECK(c::range_text(*c::find_key(m::CORRELATED_KEYS, "rate")) == "(0, 60/h]");
  CHECK(c::range_text(*c::find_key(m::CORRELATED_KEYS, "fraction")) == "(0%, 100%]");
  CHECK(c::range_text(*c::find_key(m::JOB_KEYS, "grad_accum")) == "1..1048576");
}

TEST_CASE("a model catalog's anchors enforce their typed keys' bounds from the spec, with the exact message", "[unit]") {
  // A catalog file's model with one measured run, in block style; the anchor's keys at 8 spaces.
  const std::string model = "models:\n  - name: m\n    transformer: {layers: 2, hidden: 64, heads: 4, seq_len: 32}\n"
                            "    sources: test\n    anchors:\n      - gpu: V100-SXM2-16GB\n";
  const Block block{model, 8, {"precision: amp", "batch_per_gpu: 8", "samples_per_s: 100", "source: s"}, ""};
  const auto load = [](const std::string& yaml) {
    m::ModelCatalog catalog;
    catalog.add_from(c::load_yaml_string(yaml, "m.yaml").root, &gcsim::test::bundled_gpus());
    return catalog;
  };
  CHECK(load(block.with("precision: amp")).find_model("m")->anchors.at(0).grad_accum == 1);
  int checked = 0;
  for (const KeySpec& k : m::ANCHOR_KEYS) {
    if (!k.typed()) continue;
    for (const std::string& v : gcsim::test::outside_values(k)) {
      const std::string yaml = block.with(std::string(k.name) + ": " + v);
      INFO(yaml);
      const ConfigError e = gcsim::test::config_error([&] { (void)load(yaml); });
      CHECK(e.code() == ErrorCode::OutOfRange);
      CHECK(e.key_path() == "models[0].anchors[0]." + std::string(k.name));
      ++checked;
    }
  }
  CHECK(checked == 13);  // six integers below and above their bounds, samples_per_s at zero
  const std::string yaml = block.with("grad_accum: 1048577");
  const ConfigError e = gcsim::test::config_error([&] { (void)load(yaml); });
  CHECK(std::string(e.what()) == "m.yaml:11:21: error[out-of-range]: models[0].anchors[0].grad_accum: '1048577' is out "
                                 "of range: must be between 1 and 1048576");
}
