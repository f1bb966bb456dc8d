// Placement strategies on hand-drawn clusters: each strategy's rule against the others, the
// gang rule they share, topology's leaves, FIFO taking its strategy from its parameters, and
// the free-GPU index against a brute-force scan.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/register_builtins.hpp"

#include "models/scheduler/fifo.hpp"
#include "models/scheduler/placement.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::ClusterView;
using models::Decisions;
using models::NodeTypeView;
using models::NodeView;
using models::QueuedJob;

namespace {

// One type of `count` nodes with `per` GPUs each, free GPUs as given.
struct HandCluster {
  std::vector<NodeTypeView> types;
  std::vector<NodeView> nodes;
  HandCluster(int per, std::vector<int> free) {
    types.push_back(NodeTypeView{per, static_cast<int>(free.size()), 0, 1.0});
    for (int f : free) nodes.push_back(NodeView{0, f});
  }
  ClusterView view() const { return {sim::SimTime::zero(), types, nodes}; }
};

QueuedJob job(std::uint32_t id, int gpus) { return QueuedJob{id, gpus, sim::SimTime::zero(), 1}; }

}  // namespace

TEST_CASE("best-fit takes the tightest node, first-fit the lowest-index one", "[unit][scheduler]") {
  // Three 8-GPU nodes with 8, 3 and 2 GPUs free. A 2-GPU job: best-fit -> node 2 (exactly
  // 2 free), first-fit -> node 0 (the first with >= 2). A 3-GPU job: best-fit -> node 1
  // (3 free; node 2 has too few), first-fit -> node 0.
  const HandCluster c(8, {8, 3, 2});
  for (const auto& [gpus, best, first] : std::vector<std::tuple<int, std::uint32_t, std::uint32_t>>{{2, 2, 0}, {3, 1, 0}}) {
    INFO(gpus << " GPUs");
    models::BestFitPlacement best_fit;
    models::FirstFitPlacement first_fit;
    Decisions b, f;
    const ClusterView view = c.view();  // the strategies keep a pointer to it until the next reset
    best_fit.reset(view);
    first_fit.reset(view);
    REQUIRE(best_fit.try_place(job(0, gpus), b));
    REQUIRE(first_fit.try_place(job(0, gpus), f));
    CHECK(b.nodes == std::vector<std::uint32_t>{best});
    CHECK(f.nodes == std::vector<std::uint32_t>{first});
  }
}

TEST_CASE("where the strategies part: first-fit fragments the node a later job needed", "[model][scheduler]") {
  // Two 4-GPU nodes, 4 and 2 GPUs free; the queue is a 2-GPU job then a 4-GPU job.
  // best-fit: the 2-GPU job fills node 1 exactly, the 4-GPU job takes node 0: both start.
  // first-fit: the 2-GPU job takes node 0, leaving 2 + 2 free: the 4-GPU job (one node's
  // worth, so no gang over two nodes) fits nowhere and strict FIFO stops there.
  const HandCluster c(4, {4, 2});
  const std::vector<QueuedJob> queue{job(0, 2), job(1, 4)};
  const ClusterView view = c.view();

  models::FifoScheduler best(std::make_unique<models::BestFitPlacement>());
  Decisions b;
  test::schedule_once(best, view, queue, b);
  REQUIRE(b.placements.size() == 2);
  CHECK(b.nodes == std::vector<std::uint32_t>{1, 0});

  models::FifoScheduler first(std::make_unique<models::FirstFitPlacement>());
  Decisions f;
  test::schedule_once(first, view, queue, f);
  REQUIRE(f.placements.size() == 1);
  CHECK(f.nodes == std::vector<std::uint32_t>{0});
}

TEST_CASE("both strategies gang a big job on whole free nodes of one type, lowest index first", "[unit][scheduler]") {
  // Four 4-GPU nodes, node 1 partly busy: an 8-GPU job takes nodes 0 and 2 (whole and
  // free), 4 GPUs each, under either strategy; a 16-GPU job fits on none.
  const HandCluster c(4, {4, 3, 4, 4});
  models::BestFitPlacement best_fit;
  models::FirstFitPlacement first_fit;
  const ClusterView view = c.view();
  for (models::PlacementStrategy* s : {static_cast<models::PlacementStrategy*>(&best_fit),
                                       static_cast<models::PlacementStrategy*>(&first_fit)}) {
    Decisions d;
    s->reset(view);
    REQUIRE(s->try_place(job(0, 8), d));
    REQUIRE(d.placements.size() == 1);
    CHECK(d.placements[0].count == 2);
    CHECK(d.placements[0].gpus_per_node == 4);
    CHECK(d.nodes == std::vector<std::uint32_t>{0, 2});
    CHECK_FALSE(s->try_place(job(1, 16), d));
    CHECK(d.placements.size() == 1);  // a refusal changes nothing
    CHECK(d.nodes.size() == 2);
  }
}

TEST_CASE("an idle cluster's placement is the policy's own strategy's", "[unit][scheduler]") {
  // Two types: 4-GPU nodes then 2-GPU nodes. A 2-GPU job alone on the idle cluster:
  // best-fit picks a 2-GPU node (type 1, exact fit), first-fit the first 4-GPU node (type 0).
  const std::vector<NodeTypeView> types{{4, 1, 0, 1.0}, {2, 1, 1, 1.0}};
  models::FifoScheduler best(std::make_unique<models::BestFitPlacement>());
  models::FifoScheduler first(std::make_unique<models::FirstFitPlacement>());
  const QueuedJob j{0, 2, sim::SimTime::zero(), 0b11};
  CHECK(models::node_type_on_idle_cluster(types, j, best) == 1);
  CHECK(models::node_type_on_idle_cluster(types, j, first) == 0);
  CHECK(models::node_type_on_idle_cluster(types, QueuedJob{0, 8, sim::SimTime::zero(), 0b10}, best) == -1);
}

namespace {

// Types of (gpus per node, free GPUs of each node), in order.
struct MixedCluster {
  std::vector<NodeTypeView> types;
  std::vector<NodeView> nodes;
  explicit MixedCluster(const std::vector<std::pair<int, std::vector<int>>>& spec) {
    std::uint32_t first = 0;
    for (const auto& [per, free] : spec) {
      types.push_back(NodeTypeView{per, static_cast<int>(free.size()), first, 1.0});
      for (int f : free) nodes.push_back(NodeView{static_cast<std::uint16_t>(types.size() - 1), f});
      first += static_cast<std::uint32_t>(free.size());
    }
  }
};

std::unique_ptr<models::PlacementStrategy> make_strategy(const std::string& name) {
  return models::builtins().schedulers.make_placement(name);
}

// The nodes a strategy gives `gpus` GPUs of job 0 on `view` (empty: it does not fit).
std::vector<std::uint32_t> chosen(const std::string& strategy, const ClusterView& view, int gpus,
                                  std::uint64_t eligible = ~std::uint64_t{0}) {
  const auto s = make_strategy(strategy);
  s->reset(view);
  Decisions d;
  if (!s->try_place(QueuedJob{0, gpus, sim::SimTime::zero(), eligible}, d)) return {};
  return d.nodes;
}

}  // namespace

TEST_CASE("each strategy picks its own node for a one-node job", "[unit][scheduler]") {
  // Type 0: 4-GPU nodes 0 (4 free) and 1 (2 free); type 1: 16-GPU nodes 2 (3 free) and 3
  // (16 free). A 1-GPU job, either type:
  //   first-fit: node 0, the lowest index with room;
  //   best-fit:  node 1, the fewest free GPUs (2);
  //   pack:      node 2, the fullest after placing: (3-1)/16 = 0.125 left, against node 1's
  //              (2-1)/4 = 0.25, node 0's 3/4 and node 3's 15/16;
  //   spread:    node 3, the most free GPUs (16);
  //   topology:  without leaf groups, best-fit's node 1.
  const MixedCluster c({{4, {4, 2}}, {16, {3, 16}}});
  const ClusterView view{sim::SimTime::zero(), c.types, c.nodes};
  CHECK(chosen("first-fit", view, 1) == std::vector<std::uint32_t>{0});
  CHECK(chosen("best-fit", view, 1) == std::vector<std::uint32_t>{1});
  CHECK(chosen("pack", view, 1) == std::vector<std::uint32_t>{2});
  CHECK(chosen("spread", view, 1) == std::vector<std::uint32_t>{3});
  CHECK(chosen("topology", view, 1) == std::vector<std::uint32_t>{1});
  // Ties go to the lowest index: two 8-GPU nodes with 5 free each, a 2-GPU job.
  const MixedCluster tie({{8, {5, 5}}});
  const ClusterView tie_view{sim::SimTime::zero(), tie.types, tie.nodes};
  for (const char* s : {"first-fit", "best-fit", "pack", "spread", "topology"}) {
    INFO(s);
    CHECK(chosen(s, tie_view, 2) == std::vector<std::uint32_t>{0});
  }
}

TEST_CASE("pack takes the type that needs the fewest whole nodes for a big job", "[unit][scheduler]") {
  // Type 0: four whole free 4-GPU nodes; type 1: two whole free 8-GPU nodes. A 16-GPU job:
  // best-fit and spread take the first type with room, nodes 0-3 (four nodes); pack the
  // two 8-GPU nodes 4 and 5.
  const MixedCluster c({{4, {4, 4, 4, 4}}, {8, {8, 8}}});
  const ClusterView view{sim::SimTime::zero(), c.types, c.nodes};
  CHECK(chosen("best-fit", view, 16) == std::vector<std::uint32_t>{0, 1, 2, 3});
  CHECK(chosen("spread", view, 16) == std::vector<std::uint32_t>{0, 1, 2, 3});
  CHECK(chosen("pack", view, 16) == std::vector<std::uint32_t>{4, 5});
}

TEST_CASE("topology keeps a multi-node job inside one leaf, else the fewest leaves", "[unit][scheduler]") {
  // Six 4-GPU nodes, two to a leaf (groups 0 0 1 1 2 2), node 0 partly busy. An 8-GPU job
  // (two whole nodes): best-fit takes the lowest-index pair 1, 2, which spans leaves 0 and
  // 1; topology takes leaf 1's nodes 2 and 3 (leaves 1 and 2 both have two; the lower wins).
  const std::vector<std::uint32_t> group{0, 0, 1, 1, 2, 2};
  const MixedCluster c({{4, {3, 4, 4, 4, 4, 4}}});
  ClusterView view{sim::SimTime::zero(), c.types, c.nodes};
  view.node_group = group;
  CHECK(chosen("best-fit", view, 8) == std::vector<std::uint32_t>{1, 2});
  CHECK(chosen("topology", view, 8) == std::vector<std::uint32_t>{2, 3});
  // The tightest leaf that suffices: with node 2 busy, leaf 0 holds one whole node, leaf 1
  // one, leaf 2 two: a 4-GPU... one-node job is best-fit's; a 2-node job goes to leaf 2.
  const MixedCluster c2({{4, {4, 3, 3, 4, 4, 4}}});
  ClusterView view2{sim::SimTime::zero(), c2.types, c2.nodes};
  view2.node_group = group;
  CHECK(chosen("topology", view2, 8) == std::vector<std::uint32_t>{4, 5});
  // No leaf has three: eight nodes, leaves of two, whole free nodes 0 | 2 | 4 5 | 7. A
  // 12-GPU job (three nodes): best-fit takes 0, 2, 4 (three leaves); topology leaf 2's two
  // and one more from the lowest of the leaves with one (leaf 0): 0, 4, 5 (two leaves).
  const std::vector<std::uint32_t> group8{0, 0, 1, 1, 2, 2, 3, 3};
  const MixedCluster c3({{4, {4, 3, 4, 3, 4, 4, 3, 4}}});
  ClusterView view3{sim::SimTime::zero(), c3.types, c3.nodes};
  view3.node_group = group8;
  CHECK(chosen("best-fit", view3, 12) == std::vector<std::uint32_t>{0, 2, 4});
  CHECK(chosen("topology", view3, 12) == std::vector<std::uint32_t>{0, 4, 5});
  CHECK(chosen("topology", view3, 24).empty());  // six nodes: only five are whole and free
}

TEST_CASE("pack leaves more whole nodes free than spread under the same jobs", "[model][scheduler]") {
  // Four idle 4-GPU nodes and four 1-GPU jobs in one pass: pack puts all four on node 0
  // (three nodes stay whole: a 4-GPU job still fits); spread puts one on each node (none
  // stays whole: it does not).
  const MixedCluster c({{4, {4, 4, 4, 4}}});
  const ClusterView view{sim::SimTime::zero(), c.types, c.nodes};
  const std::vector<QueuedJob> queue{job(0, 1), job(1, 1), job(2, 1), job(3, 1)};
  const auto whole_left = [&](const std::string& name) {
    models::FifoScheduler fifo(make_strategy(name));
    Decisions d;
    test::schedule_once(fifo, view, queue, d);
    REQUIRE(d.placements.size() == 4);
    std::vector<int> free{4, 4, 4, 4};
    for (std::uint32_t n : d.nodes) --free[n];
    return std::count(free.begin(), free.end(), 4);
  };
  CHECK(whole_left("pack") == 3);
  CHECK(whole_left("spread") == 0);
}

namespace {

// Brute force over `free` (a plan's free GPUs by node): the nodes `rule` gives the job, as
// placement.hpp states the rules (0 best-fit, 1 first-fit, 2 spread); empty: none.
std::vector<std::uint32_t> by_scan(const MixedCluster& c, const std::vector<int>& free, int rule, int gpus,
                                   std::uint64_t eligible) {
  int pick = -1;
  for (std::uint32_t n = 0; n < free.size(); ++n) {
    const std::size_t t = c.nodes[n].type;
    if (!(eligible >> t & 1) || gpus > c.types[t].gpus_per_node || free[n] < gpus) continue;
    const bool better = pick < 0 || (rule == 0 && free[n] < free[static_cast<std::size_t>(pick)]) ||
                        (rule == 2 && free[n] > free[static_cast<std::size_t>(pick)]);
    if (better) pick = static_cast<int>(n);
  }
  if (pick >= 0) return {static_cast<std::uint32_t>(pick)};
  for (std::size_t t = 0; t < c.types.size(); ++t) {
    const int per = c.types[t].gpus_per_node;
    if (!(eligible >> t & 1) || gpus <= per) continue;
    std::vector<std::uint32_t> whole;
    for (std::uint32_t n = c.types[t].first_node; n < c.types[t].first_node + static_cast<std::uint32_t>(c.types[t].count); ++n)
      if (free[n] == per && static_cast<int>(whole.size()) < (gpus + per - 1) / per) whole.push_back(n);
    if (static_cast<int>(whole.size()) == (gpus + per - 1) / per) return whole;
  }
  return {};
}

}  // namespace

TEST_CASE("the free-GPU index follows the cluster's change log as a full scan would", "[unit][scheduler]") {
  // A random walk over 200 8-GPU nodes then 100 4-GPU nodes (five words of the bitsets):
  // between passes nodes gain and lose GPUs, logged as the cluster logs them; in a pass
  // each strategy places a few jobs (1 to 12 GPUs, random eligible types) on its overlay,
  // and now and then gives a placement back. Best-fit, first-fit and spread follow the
  // log (spread skips a pass now and then, so it must notice the gap and rebuild); a
  // second best-fit sees views without a log (rebuilt each pass). Every choice must be
  // the brute-force scan's.
  MixedCluster c({{8, std::vector<int>(200, 8)}, {4, std::vector<int>(100, 4)}});
  models::NodeChanges log;
  const std::vector<std::string> names{"best-fit", "first-fit", "spread", "best-fit"};
  const std::vector<int> rules{0, 1, 2, 0};
  std::vector<std::unique_ptr<models::PlacementStrategy>> strategies;
  for (const std::string& n : names) strategies.push_back(make_strategy(n));
  std::uint64_t x = 12345;
  const auto next = [&](std::uint64_t m) {  // a 64-bit LCG (Knuth's MMIX constants), high bits
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return (x >> 33) % m;
  };
  int placed = 0;
  for (int pass = 0; pass < 300; ++pass) {
    for (int k = static_cast<int>(next(8)); k > 0; --k) {
      const auto n = static_cast<std::uint32_t>(next(c.nodes.size()));
      const int per = c.types[c.nodes[n].type].gpus_per_node;
      c.nodes[n].gpus_free = next(4) == 0 ? per : static_cast<int>(next(static_cast<std::uint64_t>(per) + 1));
      log.nodes.push_back(n);
    }
    ClusterView view{sim::SimTime::zero(), c.types, c.nodes};
    view.changes = &log;
    const ClusterView plain{sim::SimTime::zero(), c.types, c.nodes};
    for (std::size_t s = 0; s < strategies.size(); ++s) {
      if (s == 2 && pass % 7 == 3) continue;
      strategies[s]->reset(s == 3 ? plain : view);
      std::vector<int> free;
      for (const NodeView& n : c.nodes) free.push_back(n.gpus_free);
      for (int j = 0; j < 6; ++j) {
        const int gpus = 1 + static_cast<int>(next(12));
        const std::uint64_t eligible = 1 + next(3);
        const std::vector<std::uint32_t> want = by_scan(c, free, rules[s], gpus, eligible);
        Decisions d;
        const bool ok = strategies[s]->try_place(QueuedJob{0, gpus, sim::SimTime::zero(), eligible}, d);
        INFO(names[s] << ", pass " << pass << ", " << gpus << " GPUs, types " << eligible);
        CHECK(ok == !want.empty());
        CHECK(d.nodes == want);
        if (!ok) continue;
        ++placed;
        const models::Placement& p = d.placements[0];
        for (std::uint32_t n : d.nodes) free[n] -= p.gpus_per_node;
        if (next(3) == 0) {  // a plan that assumes it ends again
          strategies[s]->give_back(models::RunningPlace{p.node_type, d.nodes, p.gpus_per_node});
          for (std::uint32_t n : d.nodes) free[n] += p.gpus_per_node;
        }
      }
    }
    // The cluster drops the log the pass has seen.
    log.dropped += log.nodes.size();
    log.nodes.clear();
  }
  CHECK(placed > 1000);  // the walk places most jobs: the index is exercised, not just refusals
}

TEST_CASE("leaf groups come from the network's fabric", "[unit][scheduler]") {
  // Five nodes: three of one type with 2 NICs each, then two with 1.
  models::ClusterSpec cluster;
  cluster.node_types.resize(2);
  cluster.node_types[0].count = 3;
  cluster.node_types[0].internals.nic_count = 2;
  cluster.node_types[1].count = 2;
  topology::NetworkSpec net;
  net.fabric = topology::Fabric::LeafSpine;
  net.nodes_per_leaf = 2;
  CHECK(models::node_groups(cluster, net) == std::vector<std::uint32_t>{0, 0, 1, 1, 2});
  // k = 4: two ports to an edge switch; NIC ports 0-1, 2-3, 4-5, 6, 7: first NICs at 0, 2,
  // 4, 6, 7 -> edges 0, 1, 2, 3, 3.
  net.fabric = topology::Fabric::FatTree;
  net.k = 4;
  CHECK(models::node_groups(cluster, net) == std::vector<std::uint32_t>{0, 1, 2, 3, 3});
  net.fabric = topology::Fabric::SingleSwitch;
  CHECK(models::node_groups(cluster, net) == std::vector<std::uint32_t>{0, 0, 0, 0, 0});
  net.fabric = topology::Fabric::Explicit;
  CHECK(models::node_groups(cluster, net).empty());
}

TEST_CASE("a run places a two-node job inside one leaf of its leaf-spine fabric under topology", "[model][scheduler]") {
  // Four 8-GPU nodes, two to a leaf (leaves: nodes 0 1 | 2 3). A (8 GPUs) starts at 0 on
  // node 0 under every strategy; B (16 GPUs, from 1 min) needs two whole nodes: best-fit
  // takes the lowest free pair 1, 2 (two leaves), topology leaf 1's nodes 2, 3, under every
  // policy that takes `placement`. Without the network section topology has no leaves and
  // takes best-fit's pair.
  const std::string cluster = R"(name: leaves
horizon: 1d
cluster:
  node_types:
    - {name: n, gpu: A100-80GB-SXM, gpus: 8, count: 4, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: A, submit: 0s, gpus: 8, duration: 2h}
    - {name: B, submit: 1m, gpus: 16, duration: 1h}
)";
  const std::string network = "network: {fabric: leaf-spine, nodes_per_leaf: 2, spines: 1}\n";
  const test::TempDir dir("placement-leaves");
  int runs = 0;
  for (const char* policy : {"fifo", "sjf", "srtf", "backfill"})
    for (const auto& [placement, with_network, first] :
         std::vector<std::tuple<std::string, bool, int>>{{"best-fit", true, 1}, {"topology", true, 2}, {"topology", false, 1}}) {
      INFO(policy << ", " << placement << (with_network ? ", leaf-spine" : ", no network"));
      const std::string yaml = cluster + (with_network ? network : "") + "scheduler: {policy: " + policy +
                               ", placement: " + placement + "}\n";
      const auto t = test::run_to_trace(test::scenario_from_yaml(yaml), dir.file("run" + std::to_string(runs++) + ".h5"));
      REQUIRE(t.jobs.size() == 2);
      CHECK(t.jobs[0].first_node == 0);
      CHECK(t.jobs[1].nodes == 2);
      CHECK(t.jobs[1].first_node == first);
    }
  CHECK(runs == 12);
}
