// Placement strategies on hand-drawn clusters: best-fit against first-fit, the gang rule
// both share, and FIFO taking its strategy from its parameters.
#include <catch2/catch.hpp>

#include <vector>

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
