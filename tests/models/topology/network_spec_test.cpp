// The `network:` section and node-internals keys: the documented shapes (docs/network.md) as written, and every
// validation branch by its error code.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "models/gpu/gpu_spec.hpp"
#include "models/topology/topology.hpp"
#include "models/topology/topology_spec.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/reader.hpp"
#include "sim/errors.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using namespace gcsim::topology;

namespace {

NetworkSpec parse(const std::string& body) {
  const auto doc = gcsim::config::load_yaml_string("network:\n" + body, "net.yaml");
  return parse_network_spec(*doc.root.find("network"));
}

ErrorCode code_of(const std::string& body) {
  try {
    parse(body);
  } catch (const ConfigError& e) {
    return e.code();
  }
  FAIL("no ConfigError for:\n" << body);
  return ErrorCode::Syntax;
}

// Parses a node type map, reading the keys the lead's loader reads, so finish() is strict.
NodeInternalsSpec parse_node(const std::string& body) {
  const auto doc = gcsim::config::load_yaml_string(body, "node.yaml");
  gcsim::config::MapReader r(doc.root);
  for (const char* k : {"name", "gpu", "gpus", "cpu_cores", "memory", "count", "price"}) r.optional(k);
  NodeInternalsSpec s = parse_node_internals(r);
  r.finish();
  return s;
}

ErrorCode node_code_of(const std::string& body) {
  try {
    parse_node(body);
  } catch (const ConfigError& e) {
    return e.code();
  }
  FAIL("no ConfigError for:\n" << body);
  return ErrorCode::Syntax;
}

const std::string EXPLICIT =
    "  fabric: explicit\n"
    "  hosts: [H0, H1, H2]\n"
    "  links:\n"
    "    - {name: L1, between: [H0, S], bandwidth: 10GB/s, latency: 1us}\n"
    "    - {name: L2, between: [S, H1], bandwidth: 5GB/s}\n"
    "    - {name: L3, between: [H1, H2], bandwidth: 5GB/s, duplex: half}\n";

}  // namespace

TEST_CASE("network spec: a leaf-spine and a node type parse as written", "[unit][network]") {
  const NetworkSpec s = parse(
      "  fabric: leaf-spine\n"
      "  nodes_per_leaf: 2\n"
      "  spines: 2\n"
      "  link: {speed: 200Gbps, latency: 2us, kind: infiniband}\n");
  CHECK(s.fabric == Fabric::LeafSpine);
  CHECK(s.nodes_per_leaf == 2);
  CHECK(s.spines == 2);
  CHECK(s.link.bytes_per_s == Approx(25e9));
  CHECK(s.link.latency.ns() == 2000);
  CHECK(s.link.kind == LinkKind::Infiniband);

  const NodeInternalsSpec n = parse_node(
      "name: dgx-a100\n"
      "gpu: A100-80GB-SXM\n"
      "gpus: 8\n"
      "cpu_cores: 128\n"
      "memory: 2TiB\n"
      "pcie: gen4                 # gen3 | gen4 | gen5 (x16 per GPU)\n"
      "nvlink: nvswitch           # none | nvswitch | {gen: 3, links: 12} point to point\n"
      "nics: {count: 8, speed: 200Gbps, rdma: true}\n"
      "count: 4\n"
      "price: {on_demand_per_hour: 32.77}\n");
  CHECK(n.pcie_gen == 4);
  CHECK(n.nvlink == NvlinkMode::NvSwitch);
  CHECK(n.nic_count == 8);
  CHECK(n.nic_bytes_per_s == Approx(25e9));
  CHECK(n.rdma);
  const NodeInternalsSpec p2p = parse_node("nvlink: {gen: 3, links: 12}\npcie: {gen: 5, lanes: 8}\n");
  CHECK(p2p.nvlink == NvlinkMode::PointToPoint);
  CHECK(p2p.nvlink_links == 12);
  CHECK(p2p.pcie_lanes == 8);
}

TEST_CASE("network spec: defaults", "[unit][network]") {
  const NetworkSpec s = parse("  fabric: single-switch\n");
  CHECK(s.link.bytes_per_s == Approx(12.5e9));
  CHECK(s.link.latency.ns() == 1000);
  CHECK(s.link.kind == LinkKind::Ethernet);
  const NodeInternalsSpec n = parse_node("name: x\n");
  CHECK(n.pcie_gen == 0);
  CHECK(n.nvlink == NvlinkMode::Auto);
  CHECK(n.nic_count == 1);
  CHECK(n.nic_bytes_per_s == Approx(12.5e9));
  CHECK_FALSE(n.rdma);
  gcsim::models::GpuSpec a100;
  a100.name = "A100";
  a100.pcie_gen = 4;
  a100.nvlink_bytes_per_s = 300e9;
  const NodeInternalsSpec r = resolve_node_internals(n, a100);
  CHECK(r.pcie_gen == 4);
  CHECK(r.nvlink == NvlinkMode::NvSwitch);
  gcsim::models::GpuSpec t4;
  t4.name = "T4";
  t4.pcie_gen = 3;
  const NodeInternalsSpec r2 = resolve_node_internals(n, t4);
  CHECK(r2.pcie_gen == 3);
  CHECK(r2.nvlink == NvlinkMode::None);
}

TEST_CASE("network spec: explicit fabric parses links, duplex and routes", "[unit][network]") {
  const NetworkSpec s = parse(EXPLICIT + "  routes: [{from: H0, to: H2, links: [L1, L2, L3]}]\n");
  CHECK(s.fabric == Fabric::Explicit);
  CHECK(s.hosts.size() == 3);
  REQUIRE(s.links.size() == 3);
  CHECK(s.links[0].latency.ns() == 1000);
  CHECK(s.links[1].latency.ns() == 0);
  CHECK(s.links[2].half_duplex);
  REQUIRE(s.routes.size() == 1);
  CHECK(s.routes[0].links.size() == 3);
}

TEST_CASE("network spec: every validation branch", "[unit][network]") {
  SECTION("general") {
    CHECK(code_of("  fabric: leaf-spline\n") == ErrorCode::UnknownName);
    CHECK(code_of("  fabric: single-switch\n  spines: 2\n") == ErrorCode::UnknownKey);
    CHECK(code_of("  fabric: single-switch\n  link: {speed: 100}\n") == ErrorCode::BadUnit);
    CHECK(code_of("  fabric: single-switch\n  link: {speed: 100Gbps, kind: token-ring}\n") == ErrorCode::UnknownName);
    CHECK(code_of("  fabric: single-switch\n  link: {sped: 100Gbps}\n") == ErrorCode::UnknownKey);
    CHECK(code_of("  fabric: single-switch\n  link: {latency: 5}\n") == ErrorCode::BadUnit);
    CHECK(code_of("  fabric: single-switch\n  hosts: 0\n") == ErrorCode::OutOfRange);
    CHECK(code_of("  fabric: single-switch\n  hosts: []\n") == ErrorCode::OutOfRange);
    CHECK(code_of("  fabric: single-switch\n  hosts: [a, a]\n") == ErrorCode::Duplicate);
  }
  SECTION("leaf-spine") {
    CHECK(code_of("  fabric: leaf-spine\n  spines: 2\n") == ErrorCode::MissingKey);
    CHECK(code_of("  fabric: leaf-spine\n  nodes_per_leaf: 2\n") == ErrorCode::MissingKey);
    CHECK(code_of("  fabric: leaf-spine\n  nodes_per_leaf: 2\n  spines: 0\n") == ErrorCode::OutOfRange);
    CHECK(code_of("  fabric: leaf-spine\n  nodes_per_leaf: 0\n  spines: 1\n") == ErrorCode::OutOfRange);
    CHECK(code_of("  fabric: leaf-spine\n  nodes_per_leaf: 2\n  spines: 1\n  leaves: 0\n") == ErrorCode::OutOfRange);
    CHECK(code_of("  fabric: leaf-spine\n  nodes_per_leaf: 2\n  spines: 1\n  oversubscription: 0.5\n") == ErrorCode::OutOfRange);
    CHECK(code_of("  fabric: leaf-spine\n  nodes_per_leaf: 2\n  spines: 1\n  oversubscription: lots\n") == ErrorCode::WrongType);
    CHECK(code_of("  fabric: leaf-spine\n  nodes_per_leaf: 2\n  spines: 1\n  oversubscription: \"4:0\"\n") == ErrorCode::OutOfRange);
    CHECK(code_of("  fabric: leaf-spine\n  nodes_per_leaf: 2\n  spines: 1\n  leaves: 2\n  hosts: 5\n") == ErrorCode::Infeasible);
    CHECK(parse("  fabric: leaf-spine\n  nodes_per_leaf: 2\n  spines: 1\n  oversubscription: \"4:1\"\n").oversubscription == 4.0);
    CHECK(code_of("  fabric: leaf-spine\n  nodes_per_leaf: 2\n  spines: 1\n  k: 4\n") == ErrorCode::UnknownKey);
  }
  SECTION("fat-tree") {
    CHECK(code_of("  fabric: fat-tree\n") == ErrorCode::MissingKey);
    CHECK(code_of("  fabric: fat-tree\n  k: 5\n") == ErrorCode::OutOfRange);
    CHECK(code_of("  fabric: fat-tree\n  k: 0\n") == ErrorCode::OutOfRange);
    CHECK(code_of("  fabric: fat-tree\n  k: 4\n  hosts: 17\n") == ErrorCode::Infeasible);
  }
  SECTION("explicit") {
    CHECK(code_of("  fabric: explicit\n  links: [{name: L, between: [a, b], bandwidth: 1GB/s}]\n") == ErrorCode::MissingKey);
    CHECK(code_of("  fabric: explicit\n  hosts: a\n  links: [{name: L, between: [a, b], bandwidth: 1GB/s}]\n") == ErrorCode::WrongType);
    CHECK(code_of("  fabric: explicit\n  hosts: []\n  links: [{name: L, between: [a, b], bandwidth: 1GB/s}]\n") == ErrorCode::OutOfRange);
    CHECK(code_of("  fabric: explicit\n  hosts: [a, a]\n  links: [{name: L, between: [a, b], bandwidth: 1GB/s}]\n") == ErrorCode::Duplicate);
    CHECK(code_of("  fabric: explicit\n  hosts: [a]\n") == ErrorCode::MissingKey);
    CHECK(code_of("  fabric: explicit\n  hosts: [a]\n  links: x\n") == ErrorCode::WrongType);
    CHECK(code_of("  fabric: explicit\n  hosts: [a]\n  links: []\n") == ErrorCode::OutOfRange);
    CHECK(code_of("  fabric: explicit\n  hosts: [a]\n  links: [{name: L, between: [a, b], bandwidth: 1GB/s}, {name: L, between: [a, c], bandwidth: 1GB/s}]\n") ==
          ErrorCode::Duplicate);
    CHECK(code_of("  fabric: explicit\n  hosts: [a]\n  links: [{between: [a, b], bandwidth: 1GB/s}]\n") == ErrorCode::MissingKey);
    CHECK(code_of("  fabric: explicit\n  hosts: [a]\n  links: [{name: L, between: [a], bandwidth: 1GB/s}]\n") == ErrorCode::WrongType);
    CHECK(code_of("  fabric: explicit\n  hosts: [a]\n  links: [{name: L, between: [a, a], bandwidth: 1GB/s}]\n") == ErrorCode::Infeasible);
    CHECK(code_of("  fabric: explicit\n  hosts: [a]\n  links: [{name: L, between: [a, b]}]\n") == ErrorCode::MissingKey);
    CHECK(code_of("  fabric: explicit\n  hosts: [a]\n  links: [{name: L, between: [a, b], bandwidth: 1GB}]\n") == ErrorCode::BadUnit);
    CHECK(code_of("  fabric: explicit\n  hosts: [a]\n  links: [{name: L, between: [a, b], bandwidth: 1GB/s, duplex: simplex}]\n") ==
          ErrorCode::UnknownName);
    CHECK(code_of("  fabric: explicit\n  hosts: [a]\n  links: [{name: L, between: [a, b], bandwidth: 1GB/s, bandwith: 2GB/s}]\n") ==
          ErrorCode::UnknownKey);
    CHECK(code_of(EXPLICIT + "  routes: {from: H0}\n") == ErrorCode::WrongType);
    CHECK(code_of(EXPLICIT + "  routes: [{from: H9, to: H2, links: [L1]}]\n") == ErrorCode::UnknownName);
    CHECK(code_of(EXPLICIT + "  routes: [{from: H0, to: S, links: [L1]}]\n") == ErrorCode::UnknownName);
    CHECK(code_of(EXPLICIT + "  routes: [{from: H0, to: H0, links: [L1]}]\n") == ErrorCode::Infeasible);
    CHECK(code_of(EXPLICIT + "  routes: [{from: H0, to: H1, links: [L1, L2]}, {from: H0, to: H1, links: [L1, L2]}]\n") ==
          ErrorCode::Duplicate);
    CHECK(code_of(EXPLICIT + "  routes: [{from: H0, to: H1, links: []}]\n") == ErrorCode::WrongType);
    CHECK(code_of(EXPLICIT + "  routes: [{from: H0, to: H1, links: [L1, L9]}]\n") == ErrorCode::UnknownName);
    CHECK(code_of(EXPLICIT + "  routes: [{from: H0, to: H1, links: [L2]}]\n") == ErrorCode::Infeasible);
    CHECK(code_of(EXPLICIT + "  routes: [{from: H0, to: H2, links: [L1, L2]}]\n") == ErrorCode::Infeasible);
    CHECK(code_of(EXPLICIT + "  routes: [{from: H0, to: H1, links: [L1, L2], via: x}]\n") == ErrorCode::UnknownKey);
  }
  SECTION("unknown keys suggest the closest one") {
    try {
      parse("  fabric: leaf-spine\n  nodes_per_leaf: 2\n  spines: 2\n  leafs: 2\n");
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK(e.code() == ErrorCode::UnknownKey);
      CHECK_THAT(e.what(), Catch::Contains("leaves"));
      CHECK(e.key_path() == "network.leafs");
    }
  }
}

TEST_CASE("node internals: every validation branch", "[unit][network]") {
  CHECK(node_code_of("pcie: gen6\n") == ErrorCode::UnknownName);
  CHECK(node_code_of("pcie: {gen: 6}\n") == ErrorCode::OutOfRange);
  CHECK(node_code_of("pcie: {lanes: 16}\n") == ErrorCode::MissingKey);
  CHECK(node_code_of("pcie: {gen: 4, lanes: 3}\n") == ErrorCode::OutOfRange);
  CHECK(node_code_of("pcie: {gen: 4, lane: 8}\n") == ErrorCode::UnknownKey);
  CHECK(node_code_of("nvlink: nvlinkk\n") == ErrorCode::UnknownName);
  CHECK(node_code_of("nvlink: {gen: 5, links: 4}\n") == ErrorCode::OutOfRange);
  CHECK(node_code_of("nvlink: {gen: 3}\n") == ErrorCode::MissingKey);
  CHECK(node_code_of("nvlink: {gen: 3, links: 0}\n") == ErrorCode::OutOfRange);
  CHECK(node_code_of("nics: {count: 0}\n") == ErrorCode::OutOfRange);
  CHECK(node_code_of("nics: {speed: 100}\n") == ErrorCode::BadUnit);
  CHECK(node_code_of("nics: {rdma: maybe}\n") != ErrorCode::Syntax);
  CHECK(node_code_of("nics: {cnt: 2}\n") == ErrorCode::UnknownKey);
  CHECK(node_code_of("gpus_per_pcie_switch: 0\n") == ErrorCode::OutOfRange);
  CHECK(node_code_of("pcei: gen4\n") == ErrorCode::UnknownKey);
  // nvswitch on a GPU without NVLink is found when the GPU is known.
  const NodeInternalsSpec s = parse_node("nvlink: nvswitch\n");
  gcsim::models::GpuSpec t4;
  t4.name = "T4";
  t4.pcie_gen = 3;
  try {
    resolve_node_internals(s, t4);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.code() == ErrorCode::Infeasible);
    CHECK(e.mark().line == 1);
  }
}

TEST_CASE("topology build: infeasible fits are ConfigErrors", "[unit][network]") {
  gcsim::models::GpuSpec gpu;
  gpu.pcie_gen = 4;
  std::vector<NodeGroup> nodes{NodeGroup{"n", 5, 1, NodeInternalsSpec{}, &gpu}};
  auto build_code = [&](const std::string& body) {
    try {
      build_topology(parse(body), nodes);
    } catch (const ConfigError& e) {
      return e.code();
    }
    return ErrorCode::Syntax;
  };
  CHECK(build_code("  fabric: leaf-spine\n  nodes_per_leaf: 2\n  spines: 1\n  leaves: 2\n") == ErrorCode::Infeasible);
  CHECK(build_code("  fabric: fat-tree\n  k: 2\n") == ErrorCode::Infeasible);
  CHECK(build_code("  fabric: explicit\n  hosts: [n-0]\n  links: [{name: L, between: [n-0, s], bandwidth: 1GB/s}]\n") ==
        ErrorCode::Infeasible);
  try {
    build_host_topology(parse("  fabric: single-switch\n"));
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.code() == ErrorCode::MissingKey);
  }
}

namespace {

// The UnknownKey a misspelt key gets, with its did-you-mean, key path and position.
ConfigError unknown_key_error(const std::string& body, bool node_type) {
  try {
    if (node_type)
      parse_node(body);
    else
      parse(body);
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no ConfigError for:\n" << body);
  return ConfigError(ErrorCode::Syntax, {}, "", "");
}

}  // namespace

TEST_CASE("network, pcie and nvlink maps refuse a misspelt key with a did-you-mean from their key tables",
          "[unit][network]") {
  SECTION("the top of network: (the fabric key)") {
    const ConfigError e = unknown_key_error("  fabrik: fat-tree\n", false);
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK_THAT(e.what(), Catch::Contains("did you mean 'fabric'?"));
    CHECK(e.key_path() == "network.fabrik");
    CHECK(e.mark().file == "net.yaml");
    CHECK(e.mark().line == 2);
    CHECK(e.mark().column == 3);
  }
  SECTION("a fabric's own keys, a misspelling reported before a missing required key") {
    const ConfigError e = unknown_key_error("  fabric: fat-tree\n  hots: 8\n", false);
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK_THAT(e.what(), Catch::Contains("did you mean 'hosts'?"));
    CHECK(e.key_path() == "network.hots");
    CHECK(e.mark().line == 3);
    CHECK(e.mark().column == 3);
    const ConfigError x = unknown_key_error(EXPLICIT + "  rotes: []\n", false);
    CHECK(x.code() == ErrorCode::UnknownKey);
    CHECK_THAT(x.what(), Catch::Contains("did you mean 'routes'?"));
    CHECK(x.key_path() == "network.rotes");
    CHECK(x.mark().line == 8);
  }
  SECTION("a key of another fabric is an unknown key, reported before a missing required key") {
    const ConfigError e = unknown_key_error("  fabric: explicit\n  k: 4\n", false);
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(e.key_path() == "network.k");
  }
  SECTION("pcie") {
    const ConfigError e = unknown_key_error("pcie: {lane: 8}\n", true);  // not "missing gen"
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK_THAT(e.what(), Catch::Contains("did you mean 'lanes'?"));
    CHECK(e.key_path() == "pcie.lane");
    CHECK(e.mark().line == 1);
    CHECK(e.mark().column == 8);
  }
  SECTION("an explicit fabric's links[i], a misspelling reported before a missing required key") {
    const ConfigError e = unknown_key_error(
        "  fabric: explicit\n  hosts: [a]\n  links:\n    - {name: L, between: [a, b], bandwith: 1GB/s}\n", false);
    CHECK(e.code() == ErrorCode::UnknownKey);  // not "missing bandwidth"
    CHECK_THAT(e.what(), Catch::Contains("did you mean 'bandwidth'?"));
    CHECK(e.key_path() == "network.links[0].bandwith");
    CHECK(e.mark().file == "net.yaml");
    CHECK(e.mark().line == 5);
    CHECK(e.mark().column == 34);
  }
  SECTION("an explicit fabric's routes[i]") {
    const ConfigError e = unknown_key_error(EXPLICIT + "  routes:\n    - {form: H0, to: H1, links: [L1, L2]}\n", false);
    CHECK(e.code() == ErrorCode::UnknownKey);  // not "missing from"
    CHECK_THAT(e.what(), Catch::Contains("did you mean 'from'?"));
    CHECK(e.key_path() == "network.routes[0].form");
    CHECK(e.mark().line == 9);
    CHECK(e.mark().column == 8);
  }
  SECTION("nvlink") {
    const ConfigError e = unknown_key_error("nvlink:\n  link: 12\n", true);  // not "missing gen"
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK_THAT(e.what(), Catch::Contains("did you mean 'links'?"));
    CHECK(e.key_path() == "nvlink.link");
    CHECK(e.mark().line == 2);
    CHECK(e.mark().column == 3);
  }
}

// Issue 28.14: 65,536 leaves of 65,536 nodes is 2^32 ports, which wrapped to 0 in int: "10
// hosts do not fit on 65536 leaves of 65536". The product is 64-bit now; a host default
// past the limit on `hosts` is refused at `leaves`.
TEST_CASE("a leaf-spine fabric's ports are counted without overflow", "[unit][topology]") {
  const std::string big = "  fabric: leaf-spine\n  nodes_per_leaf: 65536\n  spines: 1\n  leaves: 65536\n";
  const NetworkSpec s = parse(big + "  hosts: 10\n");
  CHECK(s.host_count == 10);
  CHECK(leaf_spine_capacity(s) == std::int64_t{1} << 32);
  const Topology topo = build_host_topology(s);
  CHECK(topo.hosts().size() == 10);
  // The largest fabric the keys allow: 10^5 x 10^5 = 10^10 ports.
  CHECK(leaf_spine_capacity(parse("  fabric: leaf-spine\n  nodes_per_leaf: 100000\n  spines: 1\n  leaves: 100000\n")) ==
        10'000'000'000LL);
  CHECK(code_of("  fabric: leaf-spine\n  nodes_per_leaf: 3\n  spines: 1\n  leaves: 2\n  hosts: 7\n") == ErrorCode::Infeasible);
  // Without `hosts`, `gcsim flows` would attach every port: 2^32 is over the 1,000,000 limit.
  try {
    build_host_topology(parse(big));
    FAIL("no ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.code() == ErrorCode::OutOfRange);
    CHECK(e.key_path() == "network.leaves");
  }
  CHECK(build_host_topology(parse("  fabric: leaf-spine\n  nodes_per_leaf: 10\n  spines: 1\n  leaves: 10\n")).hosts().size() == 100);
}
