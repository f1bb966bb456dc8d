// The hardware graph, its builders and least-cost ECMP routing; see topology.hpp.
#include "models/topology/topology.hpp"

#include <algorithm>
#include <limits>
#include <queue>

#include "models/gpu/gpu_spec.hpp"
#include "sim/check.hpp"
#include "sim/errors.hpp"

namespace gcsim::topology {

namespace {
constexpr std::uint64_t UNREACHABLE = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t COUNT_CAP = std::uint64_t{1} << 62;
constexpr std::uint64_t CHOICE_CAP = std::uint64_t{1} << 20;
// Per-hop latencies inside a node: a PCIe switch traversal is ~100-200 ns; NVLink and
// NVSwitch hops are of the same order. They matter little next to fabric microseconds.
constexpr sim::SimTime PCIE_HOP_LATENCY = sim::SimTime::from_ns(200);
constexpr sim::SimTime NVLINK_HOP_LATENCY = sim::SimTime::from_ns(100);

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t pair_key(Vertex a, Vertex b) { return (static_cast<std::uint64_t>(a) << 32) | b; }
}  // namespace

std::string_view vertex_kind_name(VertexKind k) {
  switch (k) {
    case VertexKind::Gpu: return "gpu";
    case VertexKind::PcieSwitch: return "pcie-switch";
    case VertexKind::Cpu: return "cpu";
    case VertexKind::Nic: return "nic";
    case VertexKind::NvSwitch: return "nvswitch";
    case VertexKind::Leaf: return "leaf";
    case VertexKind::Spine: return "spine";
    case VertexKind::Core: return "core";
    case VertexKind::Switch: return "switch";
    case VertexKind::Host: return "host";
  }
  return "?";
}

Vertex Topology::add_vertex(VertexKind kind, std::string name, bool forwards, int node, int index) {
  // Vertex ids are 32-bit (pair keys and route keys hold two whole ids, so every id that
  // fits is routable): a 2^32nd vertex would alias vertex 0.
  GCSIM_CHECK(boost::num_vertices(g_) < std::numeric_limits<Vertex>::max(),
              "topology has more than 2^32 - 1 vertices");
  const auto v = static_cast<Vertex>(boost::add_vertex(VertexProps{kind, name, node, index, forwards}, g_));
  by_name_.emplace(std::move(name), v);
  return v;
}

LinkId Topology::add_cable(Vertex a, Vertex b, double bytes_per_s, sim::SimTime latency, LinkKind kind,
                           bool half_duplex, std::string name) {
  if (name.empty()) name = g_[a].name + "--" + g_[b].name;
  const std::uint32_t cost = HOP_COST + (kind == LinkKind::Pcie ? 1 : 0);
  const auto first = static_cast<LinkId>(links_.size());
  if (half_duplex) {
    links_.push_back(LinkResource{name, bytes_per_s, latency, kind, true});
    boost::add_edge(a, b, EdgeProps{first, cost}, g_);
    boost::add_edge(b, a, EdgeProps{first, cost}, g_);
  } else {
    links_.push_back(LinkResource{name + ":" + g_[a].name + "->" + g_[b].name, bytes_per_s, latency, kind, false});
    links_.push_back(LinkResource{name + ":" + g_[b].name + "->" + g_[a].name, bytes_per_s, latency, kind, false});
    boost::add_edge(a, b, EdgeProps{first, cost}, g_);
    boost::add_edge(b, a, EdgeProps{first + 1, cost}, g_);
  }
  tables_.clear();
  path_cache_.clear();
  return first;
}

std::optional<Vertex> Topology::find(std::string_view name) const {
  const auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

Vertex Topology::nic_for_gpu(int node, int local) const {
  const NodeVertices& n = nodes_[node];
  return n.nics[static_cast<std::size_t>(local) % n.nics.size()];
}

void Topology::set_route(Vertex src, Vertex dst, std::vector<LinkId> links) {
  explicit_routes_[pair_key(src, dst)] = std::move(links);
  path_cache_.clear();
}

const Topology::DstTable& Topology::table_to(Vertex dst) const {
  if (const auto it = tables_.find(dst); it != tables_.end()) return it->second;
  const std::size_t n = vertex_count();
  DstTable t;
  t.dist.assign(n, UNREACHABLE);
  t.count.assign(n, 0);
  // Dijkstra toward dst over in-edges; a vertex that does not forward can start a path
  // but is never crossed, so it is not expanded (dst itself always is).
  using Item = std::pair<std::uint64_t, Vertex>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  t.dist[dst] = 0;
  queue.push({0, dst});
  std::vector<Vertex> order;
  while (!queue.empty()) {
    const auto [d, v] = queue.top();
    queue.pop();
    if (d != t.dist[v]) continue;
    order.push_back(v);
    if (v != dst && !g_[v].forwards) continue;
    for (auto [e, end] = boost::in_edges(v, g_); e != end; ++e) {
      const auto u = static_cast<Vertex>(boost::source(*e, g_));
      const std::uint64_t nd = d + g_[*e].cost;
      if (nd < t.dist[u]) {
        t.dist[u] = nd;
        queue.push({nd, u});
      }
    }
  }
  // Number of least-cost paths, in order of distance (each path's next hop is closer).
  t.count[dst] = 1;
  for (const Vertex v : order) {
    if (v == dst) continue;
    std::uint64_t c = 0;
    for (auto [e, end] = boost::out_edges(v, g_); e != end; ++e) {
      const auto w = static_cast<Vertex>(boost::target(*e, g_));
      if (t.dist[w] == UNREACHABLE || (w != dst && !g_[w].forwards)) continue;
      if (t.dist[w] + g_[*e].cost == t.dist[v]) c = std::min(COUNT_CAP, c + t.count[w]);
    }
    t.count[v] = c;
  }
  return tables_.emplace(dst, std::move(t)).first->second;
}

std::uint64_t Topology::path_count(Vertex src, Vertex dst) const {
  if (src == dst) return 1;
  if (explicit_routes_.contains(pair_key(src, dst))) return 1;
  return table_to(dst).count[src];
}

std::span<const LinkId> Topology::route(Vertex src, Vertex dst, std::uint64_t flow_hash) const {
  if (src == dst) return {};
  if (const auto it = explicit_routes_.find(pair_key(src, dst)); it != explicit_routes_.end()) return it->second;
  const DstTable& t = table_to(dst);
  if (t.dist[src] == UNREACHABLE)
    throw Error("no path from '" + g_[src].name + "' to '" + g_[dst].name + "' in the network");
  const std::uint64_t n = std::min(t.count[src], CHOICE_CAP);
  std::uint64_t choice = n > 1 ? splitmix64(flow_hash ^ splitmix64(pair_key(src, dst))) % n : 0;
  const RouteKey key{pair_key(src, dst), choice};
  if (const auto it = path_cache_.find(key); it != path_cache_.end()) return it->second;
  std::vector<LinkId> path;
  Vertex v = src;
  while (v != dst) {
    bool stepped = false;
    for (auto [e, end] = boost::out_edges(v, g_); e != end; ++e) {
      const auto w = static_cast<Vertex>(boost::target(*e, g_));
      if (t.dist[w] == UNREACHABLE || (w != dst && !g_[w].forwards)) continue;
      if (t.dist[w] + g_[*e].cost != t.dist[v]) continue;
      if (choice < t.count[w]) {
        path.push_back(g_[*e].link);
        v = w;
        stepped = true;
        break;
      }
      choice -= t.count[w];
    }
    // The counts say a candidate number `choice` exists through some neighbour; none
    // taking it means the distance table is inconsistent with the graph.
    GCSIM_CHECK(stepped, "route from '" + g_[src].name + "' to '" + g_[dst].name + "' lost its way at '" +
                             g_[v].name + "'");
  }
  return path_cache_.emplace(key, std::move(path)).first->second;
}

sim::SimTime Topology::path_latency(std::span<const LinkId> path) const {
  sim::SimTime t = sim::SimTime::zero();
  for (const LinkId l : path) t += links_[l].latency;
  return t;
}

double Topology::path_bottleneck_bytes_per_s(std::span<const LinkId> path) const {
  double b = std::numeric_limits<double>::infinity();
  for (const LinkId l : path) b = std::min(b, links_[l].bytes_per_s);
  return b;
}

// ---------------------------------------------------------------------------------------
// Builders

namespace {

struct Endpoint {
  Vertex v;
  double bytes_per_s;
};

[[noreturn]] void infeasible(const NetworkSpec& spec, const std::string& detail) {
  throw ConfigError(ErrorCode::Infeasible, spec.mark, spec.path, detail);
}

void build_explicit(Topology& topo, const NetworkSpec& spec, bool hosts_are_endpoints,
                    const std::vector<std::vector<Endpoint>>& node_endpoints) {
  std::vector<Vertex> host_vertices;
  for (const std::string& h : spec.hosts) {
    const Vertex v = topo.add_vertex(VertexKind::Host, h, true);
    host_vertices.push_back(v);
    if (hosts_are_endpoints) topo.add_host(v);
  }
  auto vertex_of = [&](const std::string& name) {
    if (const auto v = topo.find(name)) return *v;
    return topo.add_vertex(VertexKind::Switch, name, true);
  };
  struct Cable {
    Vertex a, b;
    LinkId first;
    bool half;
  };
  std::unordered_map<std::string, Cable> cables;
  for (const ExplicitLinkSpec& l : spec.links) {
    const Vertex a = vertex_of(l.a);
    const Vertex b = vertex_of(l.b);
    const LinkId first = topo.add_cable(a, b, l.bytes_per_s, l.latency, l.kind, l.half_duplex, l.name);
    cables.emplace(l.name, Cable{a, b, first, l.half_duplex});
  }
  topo.reserve_routes(spec.routes.size());
  for (const RouteSpec& r : spec.routes) {
    const Vertex from = *topo.find(r.from);
    Vertex at = from;
    std::vector<LinkId> links;
    links.reserve(r.links.size());
    for (const std::string& name : r.links) {
      const Cable& c = cables.at(name);
      const bool forward = c.a == at;
      links.push_back(c.half ? c.first : c.first + (forward ? 0 : 1));
      at = forward ? c.b : c.a;
    }
    topo.set_route(from, *topo.find(r.to), std::move(links));
  }
  // Cluster nodes attach to the host of the same name, by one cable per NIC.
  for (std::size_t n = 0; n < node_endpoints.size(); ++n) {
    const std::string& name = topo.node_name(static_cast<int>(n));
    const auto it = std::find(spec.hosts.begin(), spec.hosts.end(), name);
    if (it == spec.hosts.end())
      infeasible(spec, "the explicit fabric has no host named '" + name + "' for that cluster node");
    const Vertex h = host_vertices[static_cast<std::size_t>(it - spec.hosts.begin())];
    for (const Endpoint& ep : node_endpoints[n])
      topo.add_cable(ep.v, h, ep.bytes_per_s, sim::SimTime::zero(), spec.link.kind);
  }
}

void build_generated(Topology& topo, const NetworkSpec& spec, const std::vector<std::vector<Endpoint>>& node_endpoints) {
  const FabricLinkSpec& link = spec.link;
  const int nodes = static_cast<int>(node_endpoints.size());
  auto attach = [&](const Endpoint& ep, Vertex sw) {
    topo.add_cable(ep.v, sw, std::min(ep.bytes_per_s, link.bytes_per_s), link.latency, link.kind);
  };
  switch (spec.fabric) {
    case Fabric::SingleSwitch: {
      const Vertex sw = topo.add_vertex(VertexKind::Switch, "switch", true);
      for (const auto& eps : node_endpoints)
        for (const Endpoint& ep : eps) attach(ep, sw);
      break;
    }
    case Fabric::LeafSpine: {
      const int leaves = spec.leaves > 0 ? spec.leaves : std::max(1, (nodes + spec.nodes_per_leaf - 1) / spec.nodes_per_leaf);
      if (nodes > std::int64_t{leaves} * spec.nodes_per_leaf)
        infeasible(spec, std::to_string(nodes) + " nodes do not fit on " + std::to_string(leaves) + " leaves of " +
                             std::to_string(spec.nodes_per_leaf));
      std::vector<Vertex> leaf, spine;
      for (int l = 0; l < leaves; ++l) leaf.push_back(topo.add_vertex(VertexKind::Leaf, "leaf" + std::to_string(l), true));
      for (int s = 0; s < spec.spines; ++s) spine.push_back(topo.add_vertex(VertexKind::Spine, "spine" + std::to_string(s), true));
      double node_down = 0;  // the largest node's bandwidth into its leaf
      for (const auto& eps : node_endpoints) {
        double sum = 0;
        for (const Endpoint& ep : eps) sum += std::min(ep.bytes_per_s, link.bytes_per_s);
        node_down = std::max(node_down, sum);
      }
      // With an oversubscription ratio, uplinks carry leaf downlink capacity / ratio,
      // split over the spines; without one, every uplink runs at link speed.
      const double uplink = spec.oversubscription > 0
                                ? spec.nodes_per_leaf * node_down / (spec.oversubscription * spec.spines)
                                : link.bytes_per_s;
      for (int n = 0; n < nodes; ++n)
        for (const Endpoint& ep : node_endpoints[n]) attach(ep, leaf[n / spec.nodes_per_leaf]);
      for (const Vertex l : leaf)
        for (const Vertex s : spine) topo.add_cable(l, s, uplink, link.latency, link.kind);
      break;
    }
    case Fabric::FatTree: {
      // Al-Fares et al., "A scalable, commodity data center network architecture"
      // (SIGCOMM 2008): k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 cores.
      const int k = spec.k, half = spec.k / 2;
      std::size_t ports = 0;
      for (const auto& eps : node_endpoints) ports += eps.size();
      const auto capacity = static_cast<std::size_t>(k) * k * k / 4;
      if (ports > capacity)
        infeasible(spec, std::to_string(ports) + " endpoints exceed a k=" + std::to_string(k) + " fat-tree's " +
                             std::to_string(capacity) + " host ports");
      std::vector<Vertex> core, agg, edge;
      for (int c = 0; c < half * half; ++c) core.push_back(topo.add_vertex(VertexKind::Core, "core" + std::to_string(c), true));
      for (int p = 0; p < k; ++p) {
        for (int a = 0; a < half; ++a)
          agg.push_back(topo.add_vertex(VertexKind::Spine, "pod" + std::to_string(p) + "/agg" + std::to_string(a), true));
        for (int e = 0; e < half; ++e)
          edge.push_back(topo.add_vertex(VertexKind::Leaf, "pod" + std::to_string(p) + "/edge" + std::to_string(e), true));
      }
      for (int p = 0; p < k; ++p)
        for (int e = 0; e < half; ++e)
          for (int a = 0; a < half; ++a) topo.add_cable(edge[p * half + e], agg[p * half + a], link.bytes_per_s, link.latency, link.kind);
      for (int p = 0; p < k; ++p)
        for (int a = 0; a < half; ++a)
          for (int c = 0; c < half; ++c) topo.add_cable(agg[p * half + a], core[a * half + c], link.bytes_per_s, link.latency, link.kind);
      std::size_t port = 0;
      for (const auto& eps : node_endpoints)
        for (const Endpoint& ep : eps) attach(ep, edge[port++ / static_cast<std::size_t>(half)]);
      break;
    }
    case Fabric::Explicit:
      GCSIM_CHECK(false, "explicit fabrics are built by build_explicit, not build_generated");
      break;
  }
}

void add_node(Topology& topo, const std::string& name, int node, int gpus, const NodeInternalsSpec& s,
              const models::GpuSpec& gpu, std::vector<Endpoint>& endpoints) {
  Topology::NodeVertices nv;
  nv.name = name;
  nv.cpu = topo.add_vertex(VertexKind::Cpu, name + "/cpu", true, node);
  const double pcie = pcie_bytes_per_s(s.pcie_gen, s.pcie_lanes);
  const double pcie_x16 = pcie_bytes_per_s(s.pcie_gen, 16);
  const int switches = std::max(1, (gpus + s.gpus_per_pcie_switch - 1) / s.gpus_per_pcie_switch);
  for (int i = 0; i < switches; ++i) {
    const Vertex sw = topo.add_vertex(VertexKind::PcieSwitch, name + "/pcie" + std::to_string(i), true, node, i);
    topo.add_cable(sw, nv.cpu, pcie_x16, PCIE_HOP_LATENCY, LinkKind::Pcie);
    nv.pcie_switches.push_back(sw);
  }
  for (int i = 0; i < gpus; ++i) {
    const Vertex g = topo.add_vertex(VertexKind::Gpu, name + "/gpu" + std::to_string(i), false, node, i);
    topo.add_cable(g, nv.pcie_switches[static_cast<std::size_t>(i / s.gpus_per_pcie_switch)], pcie, PCIE_HOP_LATENCY, LinkKind::Pcie);
    nv.gpus.push_back(g);
  }
  if (s.nvlink == NvlinkMode::NvSwitch && gpus > 1) {
    const Vertex nvs = topo.add_vertex(VertexKind::NvSwitch, name + "/nvswitch", true, node);
    for (const Vertex g : nv.gpus) topo.add_cable(g, nvs, gpu.nvlink_bytes_per_s, NVLINK_HOP_LATENCY, LinkKind::NvSwitch);
  } else if (s.nvlink == NvlinkMode::PointToPoint && gpus > 1) {
    // All-to-all when every GPU can reach every other directly (links split evenly over
    // the peers); otherwise a ring with half the links to each neighbour.
    const double per_link = nvlink_link_bytes_per_s(s.nvlink_gen);
    if (s.nvlink_links >= gpus - 1) {
      const int per_pair = s.nvlink_links / (gpus - 1);
      for (int i = 0; i < gpus; ++i)
        for (int j = i + 1; j < gpus; ++j)
          topo.add_cable(nv.gpus[i], nv.gpus[j], per_pair * per_link, NVLINK_HOP_LATENCY, LinkKind::NvLink);
    } else {
      const int per_pair = std::max(1, s.nvlink_links / 2);
      for (int i = 0; i < gpus; ++i)
        topo.add_cable(nv.gpus[i], nv.gpus[(i + 1) % gpus], per_pair * per_link, NVLINK_HOP_LATENCY, LinkKind::NvLink);
    }
  }
  // With GPUDirect RDMA a NIC sits on a PCIe switch next to GPUs (peer-to-peer DMA);
  // without it, NICs hang off the CPU's root complex, so GPU traffic crosses host memory.
  for (int i = 0; i < s.nic_count; ++i) {
    const Vertex nic = topo.add_vertex(VertexKind::Nic, name + "/nic" + std::to_string(i), true, node, i);
    const Vertex up = s.rdma ? nv.pcie_switches[static_cast<std::size_t>(i) % nv.pcie_switches.size()] : nv.cpu;
    topo.add_cable(nic, up, pcie_x16, PCIE_HOP_LATENCY, LinkKind::Pcie);
    nv.nics.push_back(nic);
    endpoints.push_back(Endpoint{nic, s.nic_bytes_per_s});
  }
  topo.add_node(std::move(nv));
}

}  // namespace

Topology build_topology(const NetworkSpec& spec, const std::vector<NodeGroup>& groups) {
  Topology topo;
  std::vector<std::vector<Endpoint>> endpoints;
  const models::GpuSpec no_gpu;
  int node = 0;
  for (const NodeGroup& group : groups) {
    const models::GpuSpec& gpu = group.gpu != nullptr ? *group.gpu : no_gpu;
    const NodeInternalsSpec internals = resolve_node_internals(group.internals, gpu);
    for (int i = 0; i < group.count; ++i, ++node) {
      endpoints.emplace_back();
      add_node(topo, group.type_name + "-" + std::to_string(i), node, group.gpus_per_node, internals, gpu, endpoints.back());
    }
  }
  if (spec.fabric == Fabric::Explicit) {
    build_explicit(topo, spec, false, endpoints);
  } else {
    build_generated(topo, spec, endpoints);
  }
  return topo;
}

Topology build_host_topology(const NetworkSpec& spec) {
  Topology topo;
  if (spec.fabric == Fabric::Explicit) {
    build_explicit(topo, spec, true, {});
    return topo;
  }
  int n = spec.host_count;
  if (n == 0 && spec.fabric == Fabric::LeafSpine && spec.leaves > 0) {
    // Hosts default to every port of the leaves, bounded as a `hosts` count is.
    const std::int64_t ports = leaf_spine_capacity(spec);
    if (ports > MAX_GENERATED_HOSTS)
      throw ConfigError(ErrorCode::OutOfRange, spec.mark, spec.path + ".leaves",
                        "without `hosts`, the hosts are every port of the leaves: " + std::to_string(spec.leaves) +
                            " leaves of " + std::to_string(spec.nodes_per_leaf) + " nodes are " + std::to_string(ports) +
                            " hosts, more than the limit of " + std::to_string(MAX_GENERATED_HOSTS) +
                            "; give `hosts` (a count or a list of names)");
    n = static_cast<int>(ports);
  }
  if (n == 0 && spec.fabric == Fabric::FatTree) n = spec.k * spec.k * spec.k / 4;
  if (n == 0)
    throw ConfigError(ErrorCode::MissingKey, spec.mark, spec.path,
                      "the number of hosts is unknown: give `hosts` (a count or a list of names)" +
                          std::string(spec.fabric == Fabric::LeafSpine ? " or `leaves`" : ""));
  std::vector<std::vector<Endpoint>> endpoints;
  for (int i = 0; i < n; ++i) {
    const std::string name = spec.hosts.empty() ? "h" + std::to_string(i) : spec.hosts[static_cast<std::size_t>(i)];
    const Vertex v = topo.add_vertex(VertexKind::Host, name, false);
    topo.add_host(v);
    endpoints.push_back({Endpoint{v, spec.link.bytes_per_s}});
  }
  build_generated(topo, spec, endpoints);
  return topo;
}

}  // namespace gcsim::topology
