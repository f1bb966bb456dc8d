// Typed, validated descriptions of the network: the `network:` section (the fabric between
// nodes) and the node-internal keys of a node type (pcie, nvlink, nics,
// gpus_per_pcie_switch). Every key, unit and default is listed in docs/network.md.
//
// PCIe bandwidth per direction of a link of `lanes` lanes: rate_GT/s * lanes * 128/130 / 8
// bytes/s (PCI-SIG base specifications 3.0, 4.0, 5.0: 8, 16, 32 GT/s with 128b/130b
// encoding), so x16 is 15.75 GB/s (gen3), 31.5 GB/s (gen4), 63.0 GB/s (gen5).
// NVLink per link per direction: gen1 20 GB/s (P100), gen2 25 GB/s (V100), gen3 25 GB/s
// (A100, 12 links = 300 GB/s), gen4 25 GB/s (H100, 18 links = 450 GB/s) (NVIDIA's V100,
// A100 and H100 architecture whitepapers).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"
#include "sim/config/reader.hpp"
#include "sim/errors.hpp"
#include "sim/time.hpp"

namespace gcsim::models {
struct GpuSpec;
}
namespace gcsim::config {
class SourceResolver;
}

namespace gcsim::topology {

enum class LinkKind { NvLink, NvSwitch, Pcie, Ethernet, Infiniband };
std::string_view link_kind_name(LinkKind k);

enum class Fabric { SingleSwitch, LeafSpine, FatTree, Explicit };
std::string_view fabric_name(Fabric f);

// The keys of a generated fabric's `link:` map and of a node type's `nics:` map, as
// read_fabric_link and parse_node_internals read them (docs/network.md).
inline constexpr config::KeySpec FABRIC_LINK_KEYS[] = {
    {.name = "speed", .type = "bandwidth", .help = "every generated link's bandwidth per direction",
     .kind = config::KeyKind::Bandwidth, .has_default = true, .default_number = 100e9 / 8},
    {.name = "latency", .type = "duration", .help = "every generated link's latency", .kind = config::KeyKind::Duration,
     .min = 0, .has_default = true, .default_number = 1000},
    {"kind", "`ethernet` | `infiniband` | `nvlink` | `nvswitch` | `pcie`", "`ethernet`", false, "", "the links' kind"},
};
inline constexpr config::KeySpec NIC_KEYS[] = {
    {.name = "count", .type = "integer", .help = "NICs per node", .kind = config::KeyKind::Integer, .min = 1, .max = 64,
     .has_default = true, .default_number = 1},
    {.name = "speed", .type = "bandwidth", .help = "each NIC's bandwidth per direction", .kind = config::KeyKind::Bandwidth,
     .has_default = true, .default_number = 100e9 / 8},
    {.name = "rdma", .type = "bool", .help = "GPUDirect RDMA: NICs on the PCIe switches instead of the CPU",
     .kind = config::KeyKind::Bool, .has_default = true, .default_number = 0},
};

// The keys of the `network:` map: `fabric` first, then the keys of the chosen fabric (one
// table each, as parse_network_spec reads them; a key of another fabric is an unknown key).
inline constexpr config::KeySpec NETWORK_KEYS[] = {
    {"fabric", "`single-switch` | `leaf-spine` | `fat-tree` | `explicit`", "`single-switch`", false, "",
     "the fabric's shape; it decides which keys the rest of the map may hold"},
};
inline constexpr config::KeySpec SINGLE_SWITCH_KEYS[] = {
    {"link", "map", "`{speed: 100Gbps, latency: 1us, kind: ethernet}`", false, "", "the generated links (`network.link`)"},
    {"hosts", "integer or list of names", "none (`gcsim flows` needs it)", false, "count 1..1000000", "endpoints for `gcsim flows`"},
};
inline constexpr config::KeySpec LEAF_SPINE_KEYS[] = {
    {"link", "map", "`{speed: 100Gbps, latency: 1us, kind: ethernet}`", false, "", "the generated links (`network.link`)"},
    {.name = "nodes_per_leaf", .type = "integer", .required = true, .help = "nodes on each leaf switch",
     .kind = config::KeyKind::Integer, .min = 1, .max = 100'000},
    {.name = "spines", .type = "integer", .required = true, .help = "spine switches, each linked once to every leaf",
     .kind = config::KeyKind::Integer, .min = 1, .max = 100'000},
    {.name = "leaves", .type = "integer", .default_value = "as many as the nodes need", .help = "leaf switches",
     .kind = config::KeyKind::Integer, .min = 1, .max = 100'000},
    {"oversubscription", "number or ratio like `\"4:1\"`", "none: every uplink runs at `link.speed`", false, ">= 1",
     "sets the uplink bandwidth from the leaves' downlinks"},
    {"hosts", "integer or list of names", "leaves × nodes_per_leaf", false, "count 1..1000000", "endpoints for `gcsim flows`"},
};
inline constexpr config::KeySpec FAT_TREE_KEYS[] = {
    {"link", "map", "`{speed: 100Gbps, latency: 1us, kind: ethernet}`", false, "", "the generated links (`network.link`)"},
    {.name = "k", .type = "even integer", .required = true, .range = "even",
     .help = "the switches' port count (Al-Fares et al.)", .kind = config::KeyKind::Integer, .min = 2, .max = 1024},
    {"hosts", "integer or list of names", "k³/4", false, "count 1..k³/4", "endpoints for `gcsim flows`"},
};
inline constexpr config::KeySpec EXPLICIT_KEYS[] = {
    {"hosts", "list of unique names", "", true, "at least one", "the fabric's hosts; other link ends are switches"},
    {"links", "list of `{name, between: [a, b], bandwidth, latency, duplex: full|half, kind}`, or `{file: links.csv}`", "",
     true, "at least one", "the links (latency 0, full duplex, ethernet unless given)"},
    {"routes", "list of `{from: host, to: host, links: [names]}`, or `{file: routes.csv}`", "least-cost routing", false, "",
     "routes that override least-cost routing for their ordered pair"},
};

// The keys of an explicit fabric's `links[i]` and `routes[i]`, inline or as the columns of
// their CSV tables (sim/config/csv_table.hpp), where a list is written "a;b".
inline constexpr config::KeySpec EXPLICIT_LINK_KEYS[] = {
    {"name", "name", "", true, "unique", "the link's name, as routes give it"},
    {"between", "list of two node names (`a;b` in a CSV)", "", true, "two different nodes",
     "its ends: hosts, or switches (any other name)"},
    {.name = "bandwidth", .type = "bandwidth", .required = true,
     .help = "per direction (full duplex), or shared by both (half duplex)", .kind = config::KeyKind::Bandwidth},
    {.name = "latency", .type = "duration", .help = "the link's latency", .kind = config::KeyKind::Duration, .min = 0,
     .has_default = true, .default_number = 0},
    {"duplex", "`full` | `half`", "`full`", false, "", "one resource per direction, or one shared by both"},
    {"kind", "`ethernet` | `infiniband` | `nvlink` | `nvswitch` | `pcie`", "`ethernet`", false, "", "the link's kind"},
};
inline constexpr config::KeySpec ROUTE_KEYS[] = {
    {"from", "host name", "", true, "a host", "where the route starts"},
    {"to", "host name", "", true, "another host", "where it ends; one route per ordered pair"},
    {"links", "list of link names (`a;b;c` in a CSV)", "", true, "a connected walk from `from` to `to`",
     "the links in the order the route walks them"},
};

// The node type's own key that parse_node_internals reads beside those maps (the node
// type's table, NODE_TYPE_KEYS, holds it).
inline constexpr config::KeySpec GPUS_PER_PCIE_SWITCH_KEY = {
    .name = "gpus_per_pcie_switch", .type = "integer (see network.md)", .help = "GPUs sharing one PCIe switch",
    .kind = config::KeyKind::Integer, .min = 1, .max = 1024, .has_default = true, .default_number = 2};

// The keys of a node type's `pcie:` and `nvlink:` maps (each may also be a name).
inline constexpr config::KeySpec PCIE_KEYS[] = {
    {.name = "gen", .type = "integer", .required = true, .help = "the PCIe generation", .kind = config::KeyKind::Integer,
     .min = 3, .max = 5},
    {.name = "lanes", .type = "integer", .range = "a power of two: 1, 2, 4, 8 or 16",
     .help = "lanes of each GPU's link to its PCIe switch", .kind = config::KeyKind::Integer, .min = 1, .max = 16,
     .has_default = true, .default_number = 16},
};
inline constexpr config::KeySpec NVLINK_KEYS[] = {
    {.name = "gen", .type = "integer", .required = true, .help = "the NVLink generation", .kind = config::KeyKind::Integer,
     .min = 1, .max = 4},
    {.name = "links", .type = "integer", .required = true, .help = "NVLinks per GPU", .kind = config::KeyKind::Integer,
     .min = 1, .max = 64},
};

// Per-direction bandwidth of PCIe generation 3..5 with `lanes` lanes.
double pcie_bytes_per_s(int gen, int lanes = 16);
// Per-direction bandwidth of one NVLink of generation 1..4.
double nvlink_link_bytes_per_s(int gen);

struct FabricLinkSpec {
  double bytes_per_s = 100e9 / 8;  // speed; default 100Gbps
  sim::SimTime latency = sim::SimTime::from_ns(1000);
  LinkKind kind = LinkKind::Ethernet;
};

struct ExplicitLinkSpec {
  std::string name;
  std::string a, b;      // `between: [a, b]`
  double bytes_per_s = 0;  // per direction (full duplex) or shared (half duplex)
  sim::SimTime latency;
  bool half_duplex = false;
  LinkKind kind = LinkKind::Ethernet;
};

struct RouteSpec {
  std::string from, to;
  std::vector<std::string> links;  // walked in order from `from`
};

struct NetworkSpec {
  Fabric fabric = Fabric::SingleSwitch;
  FabricLinkSpec link;             // single-switch, leaf-spine, fat-tree
  // leaf-spine
  int nodes_per_leaf = 0;
  int leaves = 0;                  // 0: as many as the nodes need
  int spines = 0;
  double oversubscription = 0;     // 0: uplinks run at link speed
  // fat-tree
  int k = 0;
  // Endpoints for `gcsim flows`: explicit names; for generated fabrics an optional count
  // (host_count) or list of names; hosts are attached to the fabric in order.
  std::vector<std::string> hosts;
  int host_count = 0;
  // explicit
  std::vector<ExplicitLinkSpec> links;
  std::vector<RouteSpec> routes;
  SourceMark mark;
  std::string path = "network";
};

// The most hosts a generated fabric's `hosts` count (or its default) may give.
inline constexpr int MAX_GENERATED_HOSTS = 1'000'000;

// The nodes a leaf-spine fabric of `leaves` leaves holds: leaves × nodes_per_leaf, in 64
// bits by a checked product (in int, 65,536 × 65,536 wrapped to 0). 0 without `leaves`.
std::int64_t leaf_spine_capacity(const NetworkSpec& s);

// Parses the `network:` map. Throws ConfigError (unknown-key with did-you-mean,
// missing-key, bad-unit, out-of-range, unknown-name, duplicate, infeasible, wrong-type).
// An explicit fabric's CSV tables (`links: {file: ...}`, `routes: {file: ...}`) are read
// through `sources` when given, as a scenario's other files are (so recorded for the trace
// and served from it on a rerun); without one, from the disk by the same rule.
NetworkSpec parse_network_spec(const config::ConfigNode& network, config::SourceResolver* sources = nullptr);

enum class NvlinkMode { Auto, None, NvSwitch, PointToPoint };

struct NodeInternalsSpec {
  int pcie_gen = 0;          // 0: from GpuSpec::pcie_gen (gen4 if the GPU gives none)
  int pcie_lanes = 16;
  int gpus_per_pcie_switch = 2;
  NvlinkMode nvlink = NvlinkMode::Auto;  // Auto: nvswitch if the GPU has NVLink, else none
  int nvlink_gen = 0;
  int nvlink_links = 0;
  int nic_count = 1;
  double nic_bytes_per_s = 100e9 / 8;
  bool rdma = false;
  bool nics_assumed = true;  // no `nics:` and no catalog figure: the default above stands in
  SourceMark nvlink_mark;    // where `nvlink:` was written, for errors found at resolve
  std::string nvlink_path;
};

// Consumes the optional keys pcie, nvlink, nics, gpus_per_pcie_switch of a node type map
// (the caller owns the reader and calls finish()).
NodeInternalsSpec parse_node_internals(config::MapReader& node_type);

// Fills the defaults that depend on the GPU (pcie generation, nvlink Auto). Throws
// ConfigError(Infeasible) at `nvlink:` when nvswitch is asked of a GPU without NVLink.
NodeInternalsSpec resolve_node_internals(const NodeInternalsSpec& spec, const models::GpuSpec& gpu);

}  // namespace gcsim::topology
