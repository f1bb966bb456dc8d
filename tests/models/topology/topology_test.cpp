// The hardware graph: fabric shapes, ECMP determinism, node internals (PCIe generations,
// NVLink/NVSwitch, RDMA), and bandwidth-bound transfer ratios through the flow network.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "models/gpu/gpu_spec.hpp"
#include "models/network/flow_network.hpp"
#include "models/topology/topology.hpp"
#include "sim/engine.hpp"

using namespace gcsim::topology;
using gcsim::network::FlowDone;
using gcsim::network::FlowNetwork;
using gcsim::sim::SimTime;

namespace {

NetworkSpec leaf_spine(int per_leaf, int leaves, int spines) {
  NetworkSpec s;
  s.fabric = Fabric::LeafSpine;
  s.nodes_per_leaf = per_leaf;
  s.leaves = leaves;
  s.spines = spines;
  s.link.bytes_per_s = 1.25e9;
  s.link.latency = SimTime::from_ns(1000);
  return s;
}

// Seconds to move `bytes` from a to b alone on the network (latency included).
double transfer_s(const Topology& topo, Vertex a, Vertex b, double bytes) {
  gcsim::sim::Engine engine;
  FlowNetwork net(engine);
  net.add_links(topo);
  engine.add_resource_model(&net);
  double finish = -1;
  net.finished.connect([&](const FlowDone& d) { finish = d.finish.seconds(); });
  net.start_flow(topo.route(a, b, 0), bytes);
  engine.run();
  return finish;
}

gcsim::models::GpuSpec gpu_spec(int pcie_gen, double nvlink_bytes_per_s) {
  gcsim::models::GpuSpec g;
  g.name = "test-gpu";
  g.pcie_gen = pcie_gen;
  g.nvlink_bytes_per_s = nvlink_bytes_per_s;
  return g;
}

}  // namespace

TEST_CASE("topology: PCIe bandwidths per generation", "[unit][network]") {
  CHECK(pcie_bytes_per_s(3) == Approx(15.754e9).epsilon(1e-3));
  CHECK(pcie_bytes_per_s(4) == Approx(31.508e9).epsilon(1e-3));
  CHECK(pcie_bytes_per_s(5) == Approx(63.015e9).epsilon(1e-3));
  CHECK(pcie_bytes_per_s(4, 8) == Approx(pcie_bytes_per_s(4) / 2));
}

TEST_CASE("topology: leaf-spine paths and deterministic ECMP", "[model][network]") {
  NetworkSpec spec = leaf_spine(4, 3, 4);
  const Topology topo = build_host_topology(spec);
  REQUIRE(topo.hosts().size() == 12);
  const Vertex h0 = topo.hosts()[0], h1 = topo.hosts()[1], h5 = topo.hosts()[5];
  CHECK(topo.route(h0, h1, 7).size() == 2);   // host -> leaf -> host
  CHECK(topo.path_count(h0, h1) == 1);
  CHECK(topo.route(h0, h5, 7).size() == 4);   // host -> leaf -> spine -> leaf -> host
  CHECK(topo.path_count(h0, h5) == 4);        // one per spine
  CHECK(topo.path_latency(topo.route(h0, h5, 7)).ns() == 4000);
  // Same inputs, same path, in this topology and in an identical one built again.
  const Topology again = build_host_topology(spec);
  std::set<std::vector<LinkId>> seen;
  for (std::uint64_t flow = 0; flow < 200; ++flow) {
    const auto p = topo.route(h0, h5, flow);
    const auto q = again.route(h0, h5, flow);
    CHECK(std::vector<LinkId>(p.begin(), p.end()) == std::vector<LinkId>(q.begin(), q.end()));
    CHECK(std::vector<LinkId>(p.begin(), p.end()) ==
          std::vector<LinkId>(topo.route(h0, h5, flow).begin(), topo.route(h0, h5, flow).end()));
    seen.insert(std::vector<LinkId>(p.begin(), p.end()));
  }
  CHECK(seen.size() == 4);  // the hash spreads flows over every spine
  // The reverse direction uses the other resource of each full-duplex cable.
  const auto fwd = topo.route(h0, h1, 0);
  const auto back = topo.route(h1, h0, 0);
  CHECK(fwd[0] != back[1]);
}

TEST_CASE("topology: leaf-spine oversubscription sets uplink bandwidth", "[unit][network]") {
  NetworkSpec spec = leaf_spine(16, 2, 4);
  spec.oversubscription = 4;
  const Topology topo = build_host_topology(spec);
  // 16 hosts x 1.25e9 down per leaf, / (4:1 x 4 spines) = 1.25e9 per uplink.
  const auto p = topo.route(topo.hosts()[0], topo.hosts()[20], 0);
  REQUIRE(p.size() == 4);
  CHECK(topo.links()[p[1]].bytes_per_s == Approx(1.25e9));
  spec.oversubscription = 1;
  const Topology full = build_host_topology(spec);
  const auto q = full.route(full.hosts()[0], full.hosts()[20], 0);
  CHECK(full.links()[q[1]].bytes_per_s == Approx(5e9));
}

TEST_CASE("topology: k-ary fat-tree", "[model][network]") {
  NetworkSpec spec;
  spec.fabric = Fabric::FatTree;
  spec.k = 4;
  const Topology topo = build_host_topology(spec);
  REQUIRE(topo.hosts().size() == 16);
  const auto& h = topo.hosts();
  CHECK(topo.route(h[0], h[1], 0).size() == 2);   // same edge switch
  CHECK(topo.route(h[0], h[2], 0).size() == 4);   // same pod, via an aggregation switch
  CHECK(topo.path_count(h[0], h[2]) == 2);
  CHECK(topo.route(h[0], h[15], 0).size() == 6);  // across pods, via a core switch
  CHECK(topo.path_count(h[0], h[15]) == 4);       // (k/2)^2 cores
}

TEST_CASE("topology: PCIe 3 vs 4 vs 5 for bandwidth-bound GPU-to-GPU copies", "[model][network]") {
  // Two GPUs on one PCIe switch, no NVLink: GPU0 -> switch -> GPU1, two PCIe hops.
  NetworkSpec spec;
  spec.host_count = 0;
  const double bytes = 10e9;
  double t[6] = {};
  for (int gen = 3; gen <= 5; ++gen) {
    const auto gpu = gpu_spec(gen, 0);
    const Topology topo = build_topology(spec, {NodeGroup{"n", 1, 2, NodeInternalsSpec{}, &gpu}});
    const auto path = topo.route(topo.gpu(0, 0), topo.gpu(0, 1), 0);
    CHECK(path.size() == 2);
    t[gen] = transfer_s(topo, topo.gpu(0, 0), topo.gpu(0, 1), bytes) - topo.path_latency(path).seconds();
    CHECK(t[gen] == Approx(bytes / pcie_bytes_per_s(gen)).epsilon(1e-8));  // ns rounding
  }
  CHECK(t[3] / t[4] == Approx(2.0).epsilon(1e-6));
  CHECK(t[4] / t[5] == Approx(2.0).epsilon(1e-6));
}

TEST_CASE("topology: NVSwitch vs PCIe, and NVLink point to point", "[model][network]") {
  NetworkSpec spec;
  const double bytes = 30e9;
  const auto a100 = gpu_spec(4, 300e9);
  NodeInternalsSpec pcie_only;
  pcie_only.nvlink = NvlinkMode::None;
  const Topology with_nvs = build_topology(spec, {NodeGroup{"dgx", 1, 8, NodeInternalsSpec{}, &a100}});
  const Topology without = build_topology(spec, {NodeGroup{"pcie", 1, 8, pcie_only, &a100}});
  // The NVSwitch path is GPU -> NVSwitch -> GPU on NVSwitch links, never PCIe.
  const auto p = with_nvs.route(with_nvs.gpu(0, 0), with_nvs.gpu(0, 5), 0);
  REQUIRE(p.size() == 2);
  for (const LinkId l : p) CHECK(with_nvs.links()[l].kind == LinkKind::NvSwitch);
  const double t_nvs = transfer_s(with_nvs, with_nvs.gpu(0, 0), with_nvs.gpu(0, 5), bytes);
  const double t_pcie = transfer_s(without, without.gpu(0, 0), without.gpu(0, 5), bytes);
  CHECK(t_nvs == Approx(bytes / 300e9).epsilon(1e-5));
  // GPUs 0 and 5 sit on different PCIe switches: GPU -> switch -> CPU -> switch -> GPU.
  CHECK(without.route(without.gpu(0, 0), without.gpu(0, 5), 0).size() == 4);
  CHECK(t_pcie / t_nvs == Approx(300e9 / pcie_bytes_per_s(4)).epsilon(1e-4));

  // Point to point {gen: 3, links: 12} among 4 GPUs: 4 links (100 GB/s) per pair.
  NodeInternalsSpec p2p;
  p2p.nvlink = NvlinkMode::PointToPoint;
  p2p.nvlink_gen = 3;
  p2p.nvlink_links = 12;
  const Topology mesh = build_topology(spec, {NodeGroup{"m", 1, 4, p2p, &a100}});
  const auto q = mesh.route(mesh.gpu(0, 0), mesh.gpu(0, 3), 0);
  REQUIRE(q.size() == 1);
  CHECK(mesh.links()[q[0]].bytes_per_s == Approx(100e9));
}

TEST_CASE("topology: inter-node traffic with and without GPUDirect RDMA", "[model][network]") {
  NetworkSpec spec = leaf_spine(2, 1, 1);
  spec.link.bytes_per_s = 25e9;
  const auto gpu = gpu_spec(4, 0);
  NodeInternalsSpec rdma;
  rdma.rdma = true;
  rdma.nic_bytes_per_s = 25e9;
  NodeInternalsSpec host;  // no rdma
  host.nic_bytes_per_s = 25e9;
  for (const bool with_rdma : {true, false}) {
    const Topology topo = build_topology(spec, {NodeGroup{"n", 2, 2, with_rdma ? rdma : host, &gpu}});
    const auto path = topo.route(topo.gpu(0, 0), topo.gpu(1, 0), 0);
    bool crosses_cpu = false;
    for (const LinkId l : path) crosses_cpu |= topo.links()[l].name.find("/cpu") != std::string::npos;
    CHECK(crosses_cpu == !with_rdma);
    // GPU -> pcie sw -> NIC -> leaf -> NIC -> pcie sw -> GPU (+ CPU hops without RDMA).
    CHECK(path.size() == (with_rdma ? 6u : 8u));
  }
}

TEST_CASE("topology: routes stay distinct past 2^21 vertices", "[model][network]") {
  // The route cache once keyed a path by src << 42 | dst << 21 | choice, so (src 0, dst
  // 2^21 + 2) and (src 1, dst 2) had the same key: whichever was routed first answered for
  // both. Four hosts on one switch, the fourth given the id 2^21 + 2 by unconnected
  // filler vertices: each route must be its own two links.
  Topology topo;
  const Vertex a = topo.add_vertex(VertexKind::Host, "a", false);
  const Vertex b = topo.add_vertex(VertexKind::Host, "b", false);
  const Vertex c = topo.add_vertex(VertexKind::Host, "c", false);
  const Vertex sw = topo.add_vertex(VertexKind::Switch, "sw", true);
  REQUIRE((a == 0 && b == 1 && c == 2 && sw == 3));
  constexpr Vertex FAR = (Vertex{1} << 21) + 2;
  while (topo.vertex_count() < FAR) topo.add_vertex(VertexKind::Switch, "", false);
  const Vertex d = topo.add_vertex(VertexKind::Host, "d", false);
  REQUIRE(d == FAR);
  const SimTime lat = SimTime::from_ns(1000);
  const LinkId la = topo.add_cable(a, sw, 1e9, lat, LinkKind::Ethernet);  // a->sw la, sw->a la+1
  const LinkId lb = topo.add_cable(b, sw, 1e9, lat, LinkKind::Ethernet);
  const LinkId lc = topo.add_cable(c, sw, 1e9, lat, LinkKind::Ethernet);
  const LinkId ld = topo.add_cable(d, sw, 1e9, lat, LinkKind::Ethernet);

  const auto b_to_c = topo.route(b, c, 0);
  CHECK(std::vector<LinkId>(b_to_c.begin(), b_to_c.end()) == std::vector<LinkId>{lb, lc + 1});
  const auto a_to_d = topo.route(a, d, 0);  // the old key's twin of (b, c)
  CHECK(std::vector<LinkId>(a_to_d.begin(), a_to_d.end()) == std::vector<LinkId>{la, ld + 1});
  const auto d_to_a = topo.route(d, a, 0);
  CHECK(std::vector<LinkId>(d_to_a.begin(), d_to_a.end()) == std::vector<LinkId>{ld, la + 1});
  // Asked again, from the cache.
  const auto again = topo.route(a, d, 0);
  CHECK(std::vector<LinkId>(again.begin(), again.end()) == std::vector<LinkId>{la, ld + 1});
}
