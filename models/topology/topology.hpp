// The cluster's hardware graph: GPUs, PCIe switches, CPUs (host memory and PCIe root),
// NICs, NVSwitches and fabric switches as vertices of a Boost.Graph adjacency_list; links
// as directed edges. A full-duplex cable is two directed edges with one link resource
// each; a half-duplex cable is two edges naming one shared resource. Link resources are
// numbered densely, so FlowNetwork::add_links gives them the same ids there.
//
// Routing: least cost, where every hop costs HOP_COST and a PCIe hop one unit more, so
// paths are shortest in hops and, among those, prefer NVLink/NVSwitch to PCIe. Equal-cost
// paths are all candidates (ECMP); a flow takes path number hash(src, dst, flow) mod N in
// a fixed enumeration of the N candidates, so the choice is deterministic and spreads
// flows evenly. Endpoints (GPUs, NICs, CPUs of nodes) forward nothing: only switches and
// the hosts of explicit fabrics (which may sit in the middle of a chain) do. Distance
// tables per destination and chosen paths are cached.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "models/topology/link_id.hpp"
#include "models/topology/topology_spec.hpp"
#include "sim/time.hpp"

namespace gcsim::topology {

enum class VertexKind { Gpu, PcieSwitch, Cpu, Nic, NvSwitch, Leaf, Spine, Core, Switch, Host };
std::string_view vertex_kind_name(VertexKind k);

struct VertexProps {
  VertexKind kind = VertexKind::Switch;
  std::string name;
  int node = -1;      // cluster node index, -1 for fabric vertices
  int index = -1;     // GPU / NIC / PCIe switch number inside the node
  bool forwards = false;
};

struct EdgeProps {
  LinkId link = 0;    // the link resource this direction uses
  std::uint32_t cost = 0;
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, VertexProps, EdgeProps>;
using Vertex = std::uint32_t;

struct LinkResource {
  std::string name;        // "dgx-a100-0/gpu0->pcie0", "L2" (half duplex), "L2:H1->H2"
  double bytes_per_s = 0;
  sim::SimTime latency;
  LinkKind kind = LinkKind::Ethernet;
  bool half_duplex = false;
};

class Topology {
 public:
  static constexpr std::uint32_t HOP_COST = 1024;

  // Building blocks (used by the builders; tests build small graphs with them too).
  Vertex add_vertex(VertexKind kind, std::string name, bool forwards, int node = -1, int index = -1);
  // A cable between a and b: two directed edges; full duplex gives each direction its own
  // resource of bytes_per_s, half duplex one shared resource. Returns the first resource.
  LinkId add_cable(Vertex a, Vertex b, double bytes_per_s, sim::SimTime latency, LinkKind kind,
                   bool half_duplex = false, std::string name = {});

  const Graph& graph() const { return g_; }
  std::size_t vertex_count() const { return boost::num_vertices(g_); }
  const VertexProps& vertex(Vertex v) const { return g_[v]; }
  const std::vector<LinkResource>& links() const { return links_; }

  // Named endpoints: explicit hosts, generated hosts "h0".., nodes' GPUs "<node>/gpu<i>".
  std::optional<Vertex> find(std::string_view name) const;
  // Cluster nodes.
  int node_count() const { return static_cast<int>(nodes_.size()); }
  const std::string& node_name(int node) const { return nodes_[node].name; }
  Vertex gpu(int node, int local) const { return nodes_[node].gpus[local]; }
  int gpus_in_node(int node) const { return static_cast<int>(nodes_[node].gpus.size()); }
  Vertex cpu(int node) const { return nodes_[node].cpu; }
  Vertex nic(int node, int i) const { return nodes_[node].nics[i]; }
  int nics_in_node(int node) const { return static_cast<int>(nodes_[node].nics.size()); }
  // The NIC a GPU's inter-node traffic uses (GPU i uses NIC i mod count, as NCCL pairs
  // each GPU with its nearest NIC).
  Vertex nic_for_gpu(int node, int local) const;
  // Hosts of a host-only topology (for `gcsim flows`), in spec order.
  const std::vector<Vertex>& hosts() const { return hosts_; }

  // The links a flow from src to dst crosses (empty when src == dst). `flow_hash` picks
  // among equal-cost paths. Throws gcsim::Error when dst is unreachable. The span stays
  // valid as long as the topology (cached paths are never erased, and unordered_map
  // nodes do not move). Fills caches: see "one run, one thread" below.
  std::span<const LinkId> route(Vertex src, Vertex dst, std::uint64_t flow_hash) const;
  // Number of equal-cost candidates (saturating); 0 when unreachable.
  std::uint64_t path_count(Vertex src, Vertex dst) const;
  sim::SimTime path_latency(std::span<const LinkId> path) const;
  double path_bottleneck_bytes_per_s(std::span<const LinkId> path) const;

  // An explicit route (ordered pair) overriding least-cost routing.
  void set_route(Vertex src, Vertex dst, std::vector<LinkId> links);
  // Room for n explicit routes (a full table of 256 hosts has 65,280).
  void reserve_routes(std::size_t n) { explicit_routes_.reserve(n); }

  struct NodeVertices {
    std::string name;
    Vertex cpu = 0;
    std::vector<Vertex> gpus, nics, pcie_switches;
  };
  void add_node(NodeVertices n) { nodes_.push_back(std::move(n)); }
  void add_host(Vertex v) { hosts_.push_back(v); }

 private:
  struct DstTable {
    std::vector<std::uint64_t> dist;
    std::vector<std::uint64_t> count;
  };
  const DstTable& table_to(Vertex dst) const;

  Graph g_;
  std::vector<LinkResource> links_;
  std::vector<NodeVertices> nodes_;
  std::vector<Vertex> hosts_;
  std::unordered_map<std::string, Vertex> by_name_;
  std::unordered_map<std::uint64_t, std::vector<LinkId>> explicit_routes_;
  // One run, one thread. route(), path_count() and table_to() fill these caches although
  // they are const, so a Topology must not be used from two threads at once, even
  // through const references. Each run builds its own (run_simulation, from the
  // scenario's immutable NetworkSpec) and runs on one thread, so runs in parallel never
  // share one; a caller that wants one topology for many threads must copy it per thread.
  // (A lock on every route() would cost the flow-start path for a case no caller has.)
  // A chosen path's key: the whole (src, dst) pair and the candidate number, so no two
  // routes share a key whatever the number of vertices (a key packing src, dst and the
  // choice into 64 bits gave a silently wrong route past 2^21 vertices).
  struct RouteKey {
    std::uint64_t pair = 0;    // src << 32 | dst
    std::uint64_t choice = 0;  // < CHOICE_CAP
    bool operator==(const RouteKey&) const = default;
  };
  struct RouteKeyHash {
    std::size_t operator()(const RouteKey& k) const noexcept {
      // pair and choice mixed (a plain xor would map (p, c) and (p ^ c, 0) together).
      return std::hash<std::uint64_t>{}(k.pair * 0x9e3779b97f4a7c15ULL ^ k.choice);
    }
  };
  mutable std::unordered_map<Vertex, DstTable> tables_;
  mutable std::unordered_map<RouteKey, std::vector<LinkId>, RouteKeyHash> path_cache_;
};

// One kind of node in the cluster: `count` nodes of `gpus_per_node` GPUs each.
struct NodeGroup {
  std::string type_name;
  int count = 0;
  int gpus_per_node = 0;
  NodeInternalsSpec internals;   // as parsed; resolved against *gpu here
  const models::GpuSpec* gpu = nullptr;
};

// The whole cluster: node internals for every node (named "<type>-<i>"), attached to the
// fabric through their NICs. Throws ConfigError(Infeasible) at the network spec when the
// nodes do not fit the fabric (leaf-spine with `leaves`, fat-tree ports, explicit fabrics
// missing a host named after a node).
Topology build_topology(const NetworkSpec& spec, const std::vector<NodeGroup>& nodes);

// The fabric alone with its hosts as endpoints (for `gcsim flows`): explicit fabrics'
// hosts, or generated fabrics' hosts "h0".."hN-1" (or the names listed), each attached by
// one link of the fabric's link speed. N: `hosts`, else leaves * nodes_per_leaf, else
// k^3/4 for a fat-tree. Throws ConfigError(MissingKey) when N cannot be known.
Topology build_host_topology(const NetworkSpec& spec);

}  // namespace gcsim::topology
