// Collective decompositions against the alpha-beta formulas, with and without competing
// traffic; rings inside an NVSwitch node and hierarchical rings across nodes land on the
// links they should.
#include <catch2/catch.hpp>

#include "models/gpu/gpu_spec.hpp"
#include "models/network/collectives.hpp"
#include "models/network/flow_network.hpp"
#include "models/topology/topology.hpp"
#include "sim/engine.hpp"

using namespace gcsim::network;
using namespace gcsim::topology;
using gcsim::sim::Engine;
using gcsim::sim::SimTime;

namespace {

struct Done {
  std::int64_t finish_ns = -1;
  static void on_done(void* ctx, std::uint64_t, SimTime t) { static_cast<Done*>(ctx)->finish_ns = t.ns(); }
};

Topology switch_hosts(int n, double bytes_per_s, std::int64_t latency_ns) {
  NetworkSpec spec;
  spec.fabric = Fabric::SingleSwitch;
  spec.host_count = n;
  spec.link.bytes_per_s = bytes_per_s;
  spec.link.latency = SimTime::from_ns(latency_ns);
  return build_host_topology(spec);
}

// Runs one collective (and optionally a competing flow) and returns its duration in ns.
std::int64_t run_collective(const Topology& topo, const CollectiveSpec& spec, bool competing = false) {
  Engine engine;
  FlowNetwork net(engine);
  net.add_links(topo);
  engine.add_resource_model(&net);
  CollectiveRunner runner(engine, net, topo);
  if (competing) net.start_flow(topo.route(topo.hosts()[0], topo.hosts()[1], 0), 1e12);
  Done done;
  runner.start(spec, 1, &Done::on_done, &done);
  engine.run(SimTime::from_seconds(100));
  return done.finish_ns;
}

}  // namespace

TEST_CASE("collectives: ring all-reduce matches alpha-beta, other traffic only slows it", "[model][network]") {
  // n hosts on one switch, B = 1e9 B/s per direction, 1 us per link (a = 2 us per path).
  // Each step every host sends S/n to its neighbour: one flow per link direction.
  // T = 2(n-1) * (S/n / B + a).
  const int n = 8;
  const double s = 8e8, b = 1e9;
  const Topology topo = switch_hosts(n, b, 1000);
  CollectiveSpec spec;
  spec.bytes = s;
  spec.ranks = topo.hosts();
  const double expected_s = 2.0 * (n - 1) / n * s / b + 2.0 * (n - 1) * 2e-6;
  const std::int64_t t = run_collective(topo, spec);
  CHECK(static_cast<double>(t) == Approx(expected_s * 1e9).margin(2.0 * (n - 1)));  // 1 ns rounding per step
  CHECK(decompose(spec, topo).size() == 2u * (n - 1));
  // A competing flow on host 0 -> host 1 halves one link for the whole run: longer.
  const std::int64_t slowed = run_collective(topo, spec, true);
  CHECK(slowed > t);
  CHECK(static_cast<double>(slowed) >= 0.99 * (2.0 * (n - 1) * (s / n / (b / 2) + 2e-6)) * 1e9);
}

TEST_CASE("collectives: step counts and volumes of every algorithm", "[unit][network]") {
  const Topology topo = switch_hosts(8, 1e9, 0);
  CollectiveSpec spec;
  spec.bytes = 8e6;
  spec.ranks = topo.hosts();
  auto volume = [](const std::vector<std::vector<Send>>& steps) {
    double v = 0;
    for (const auto& st : steps)
      for (const Send& x : st) v += x.bytes;
    return v;
  };
  spec.kind = Collective::ReduceScatter;
  CHECK(decompose(spec, topo).size() == 7);
  CHECK(volume(decompose(spec, topo)) == Approx(7 * 8e6));  // each rank sends (n-1)/n S
  spec.kind = Collective::AllGather;
  CHECK(decompose(spec, topo).size() == 7);
  spec.kind = Collective::Broadcast;
  spec.root = 3;
  const auto bc = decompose(spec, topo);
  CHECK(bc.size() == 14);                   // 2n - 2 pipelined steps
  CHECK(bc[0].size() == 1);
  CHECK(bc[0][0].src == topo.hosts()[3]);   // starts at the root
  CHECK(volume(bc) == Approx(7 * 8e6));     // S crosses each of the n-1 hops
  spec.kind = Collective::AllToAll;
  const auto a2a = decompose(spec, topo);
  REQUIRE(a2a.size() == 1);
  CHECK(a2a[0].size() == 56);
  spec.kind = Collective::PointToPoint;
  CHECK(decompose(spec, topo).size() == 1);
  spec.kind = Collective::AllReduce;
  spec.algorithm = CollectiveAlgorithm::Tree;
  const auto tree = decompose(spec, topo);
  CHECK(tree.size() == 6);                  // depth 3: 3 levels up, 3 down
  CHECK(volume(tree) == Approx(2 * 2 * 7 * 4e6));  // 2 trees x (up + down) x 7 edges x S/2
  spec.calibrated = true;
  CHECK(volume(decompose(spec, topo)) == Approx(2 * 2 * 7 * 4e6 / busbw_efficiency(8e6)));
}

TEST_CASE("collectives: ring inside an NVSwitch node uses NVSwitch links", "[model][network]") {
  gcsim::models::GpuSpec a100;
  a100.pcie_gen = 4;
  a100.nvlink_bytes_per_s = 300e9;
  NetworkSpec spec;
  const Topology topo = build_topology(spec, {NodeGroup{"dgx", 1, 8, NodeInternalsSpec{}, &a100}});
  CollectiveSpec c;
  c.bytes = 1e9;
  for (int i = 0; i < 8; ++i) c.ranks.push_back(topo.gpu(0, i));
  for (const auto& step : decompose(c, topo))
    for (const Send& x : step)
      for (const LinkId l : topo.route(x.src, x.dst, 0)) CHECK(topo.links()[l].kind == LinkKind::NvSwitch);
  // 2(n-1)/n S/B + 2(n-1) * (2 hops x 100 ns).
  const double expected_ns = (2.0 * 7 / 8 * 1e9 / 300e9 + 14 * 200e-9) * 1e9;
  CHECK(static_cast<double>(run_collective(topo, c)) == Approx(expected_ns).margin(14));
}

TEST_CASE("collectives: hierarchical ring crosses nodes only between same local ranks", "[model][network]") {
  gcsim::models::GpuSpec a100;
  a100.pcie_gen = 4;
  a100.nvlink_bytes_per_s = 300e9;
  NetworkSpec spec;
  spec.fabric = Fabric::SingleSwitch;
  spec.link.bytes_per_s = 25e9;
  NodeInternalsSpec internals;
  internals.nic_count = 4;
  internals.nic_bytes_per_s = 25e9;
  internals.rdma = true;
  // One GPU per PCIe switch: GPU j and NIC j share switch j, so each GPU has one least-cost
  // path off the node (with two GPUs per switch, the ECMP hash could put two rings on one
  // NIC and the time below would depend on it).
  internals.gpus_per_pcie_switch = 1;
  const Topology topo = build_topology(spec, {NodeGroup{"dgx", 2, 4, internals, &a100}});
  CollectiveSpec c;
  c.algorithm = CollectiveAlgorithm::HierarchicalRing;
  c.bytes = 4e8;
  for (int node = 0; node < 2; ++node)
    for (int i = 0; i < 4; ++i) c.ranks.push_back(topo.gpu(node, i));
  const auto steps = decompose(c, topo);
  REQUIRE(steps.size() == 3 + 2 + 3);  // g-1 intra, 2(N-1) inter, g-1 intra
  for (std::size_t k = 0; k < steps.size(); ++k) {
    for (const Send& x : steps[k]) {
      const bool inter = topo.vertex(x.src).node != topo.vertex(x.dst).node;
      CHECK(inter == (k == 3 || k == 4));
      if (inter) {
        CHECK(topo.vertex(x.src).index == topo.vertex(x.dst).index);
        CHECK(x.bytes == Approx(4e8 / 8));  // S / (g N)
      } else {
        CHECK(x.bytes == Approx(4e8 / 4));  // S / g
      }
    }
  }
  // The time by hand, g = 4 GPUs per node, N = 2 nodes, S = 4e8 B; every flow of a step
  // has its links to itself, so each step is one latency plus one chunk at full rate:
  //  * intra-node steps (2(g-1) = 6: reduce-scatter, then all-gather): S/g = 1e8 B from
  //    GPU i to GPU i+1 over GPU -> NVSwitch -> GPU, 300 GB/s per direction, 2 x 100 ns:
  //    1e8 / 300e9 s = 333,333.3 ns + 200 ns;
  //  * inter-node steps (2(N-1) = 2): S/(gN) = 5e7 B from GPU j to GPU j of the other
  //    node over GPU -> PCIe switch j -> NIC j -> switch -> NIC j -> PCIe switch j -> GPU,
  //    bottleneck the NIC links at 25 GB/s, latency 4 PCIe hops x 200 ns + 2 x 1 us:
  //    5e7 / 25e9 s = 2,000,000 ns + 2,800 ns.
  // T = 6 x 333,533.3 + 2 x 2,002,800 = 6,006,800 ns. Tolerance: a transfer ends on the
  // next whole nanosecond, less than 1 ns later per step, so margin(6) (the run gives
  // 6,006,804: 333,333.3 -> 333,334 six times); a step of another shape (a shared NIC, a
  // PCIe detour) would move T by microseconds.
  const double expected_ns = 6 * (1e8 / 300e9 * 1e9 + 200) + 2 * (5e7 / 25e9 * 1e9 + 4 * 200 + 2 * 1000);
  CHECK(static_cast<double>(run_collective(topo, c)) == Approx(expected_ns).margin(6));
}

TEST_CASE("collectives: calibrated efficiency", "[unit][network]") {
  CHECK(busbw_efficiency(17179869184.0) == Approx(0.751).epsilon(0.01));
  CHECK(busbw_efficiency(HALF_SIZE_BYTES) == Approx(PEAK_EFFICIENCY / 2));
  CHECK(busbw_efficiency(1e6) < busbw_efficiency(1e8));
}
