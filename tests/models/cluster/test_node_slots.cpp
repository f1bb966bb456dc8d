// Node slots that come and go (Cluster::request_node, drain_node, release_node): phases and
// reasons, billing from the request to the release, drains that let jobs finish and drains
// with a deadline. The controller is a plain engine event at PRIORITY_CONTROL, as a real one
// acts. Every figure is computed by hand in the comments.
#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <vector>

#include "analysis/metrics.hpp"
#include "analysis/plots.hpp"
#include "analysis/report.hpp"
#include "analysis/trace_data.hpp"
#include "models/accounting/cost_meter.hpp"
#include "models/cluster/cluster.hpp"
#include "models/cluster/node_allocator.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/core/event_priorities.hpp"
#include "models/scheduler/fifo.hpp"
#include "models/pricing/ledger.hpp"
#include "models/coupling/model_speeds.hpp"
#include "models/trace/trace_recorder.hpp"
#include "sim/trace/table_writer.hpp"
#include "sim/engine.hpp"
#include "sim/check.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::NodePhase;
using models::NodeReason;
using sim::SimTime;

namespace {

using test::hours;
using test::minutes;

// One type, `n1`, one GPU a node at $3.60/h (a tenth of a cent a second), `count` nodes
// up; `billing` as the price block writes it. Without jobs, one of a minute on node 0 (a
// workload needs one).
std::string cluster_yaml(int count, const std::string& billing, const std::string& jobs) {
  return "name: slots\nhorizon: 10h\ncluster:\n  node_types:\n"
         "    - {name: n1, gpu: V100-SXM2-16GB, gpus: 1, count: " +
         std::to_string(count) + ", price: {on_demand_per_hour: 3.6" + (billing.empty() ? "" : ", billing: " + billing) +
         "}}\nworkload:\n  jobs:\n" + (jobs.empty() ? std::string("    - {name: Z, gpus: 1, duration: 1m}\n") : jobs);
}

// A cluster with its cost meter, and a controller whose actions are engine events at
// PRIORITY_CONTROL.
struct Run {
  models::Scenario scenario;
  sim::Engine engine;
  models::Ledger ledger;
  std::unique_ptr<models::Cluster> cluster;
  std::unique_ptr<models::CostMeter> costs;
  std::vector<std::function<void()>> actions;
  std::vector<models::NodeTransition> changes;

  // With a trace path, the run also writes a trace there (finish() commits it).
  std::unique_ptr<models::ModelSpeeds> speeds;
  std::unique_ptr<trace::TraceFile> file;
  std::unique_ptr<models::TraceRecorder> recorder;

  Run(const std::string& yaml, int slots, const std::string& trace_path = "") : scenario(test::scenario_from_yaml(yaml)) {
    scenario.cluster.node_types[0].max_count = slots;
    cluster = std::make_unique<models::Cluster>(engine, scenario, models::expand_workload(scenario, 0),
                                                std::make_unique<models::FifoScheduler>());
    speeds = std::make_unique<models::ModelSpeeds>(scenario, *cluster);
    costs = std::make_unique<models::CostMeter>(scenario, *cluster, ledger);
    cluster->node_changed.connect([this](const models::NodeTransition& t) { changes.push_back(t); });
    if (!trace_path.empty()) {
      file = trace::TraceFile::create(trace_path);
      recorder = std::make_unique<models::TraceRecorder>(*file, scenario, 0, 0, *cluster, *costs, *speeds, ledger, nullptr);
    }
  }
  void finish() {
    recorder->finish(0.0);
    file->commit();
  }
  void at(SimTime t, std::function<void()> f) {
    actions.push_back(std::move(f));
    engine.schedule_at<&Run::act>(t, this, actions.size() - 1, models::PRIORITY_CONTROL);
  }
  void act(std::uint64_t i) { actions[i](); }
  Run& run() {
    cluster->start();
    engine.run();
    return *this;
  }
  const models::Job& job(std::size_t i) const { return cluster->jobs()[i]; }
};

}  // namespace

TEST_CASE("Slots beyond the count start released and are not billed", "[model][nodes]") {
  Run r(cluster_yaml(1, "", "    - {name: A, gpus: 1, duration: 1h}\n"), 3);
  const auto& nodes = r.cluster->nodes();
  REQUIRE(nodes.size() == 3);
  CHECK(nodes[0].phase == NodePhase::Up);
  CHECK(nodes[1].phase == NodePhase::Released);
  CHECK(nodes[2].phase == NodePhase::Released);
  CHECK(r.cluster->up_gpus() == 1);
  CHECK(r.cluster->released_slots(0) == 2);
  r.run();
  // Only node 0 was billed: 10 h at $3.60.
  CHECK(r.costs->node_cost_usd(0) == Approx(36.0));
  CHECK(r.costs->node_cost_usd(1) == 0.0);
  CHECK(r.costs->total_cost_usd() == Approx(36.0));
}

TEST_CASE("A node added and removed mid-run is billed from its request to its release", "[model][nodes]") {
  SECTION("per second, provisioning billed (the default)") {
    // Requested at 1h (5 min to come up), released at 3h: billed 2h x $3.60 = $7.20.
    Run r(cluster_yaml(1, "per_second", ""), 2);
    std::optional<std::uint32_t> got;
    r.at(hours(1), [&] { got = r.cluster->request_node(0, minutes(5)); });
    r.at(hours(3), [&] { CHECK(r.cluster->release_node(*got)); });
    r.run();
    REQUIRE(got == 1u);
    CHECK(r.costs->node_cost_usd(1) == Approx(7.20));
    CHECK(r.costs->node_up_s(1) == Approx(2 * 3600.0));
    REQUIRE(r.changes.size() == 3);
    CHECK(r.changes[0].time == hours(1));
    CHECK(r.changes[0].to == NodePhase::Provisioning);
    CHECK(r.changes[0].reason == NodeReason::ScaleOut);
    CHECK(r.changes[0].billed);
    CHECK(r.changes[1].time == hours(1) + minutes(5));
    CHECK(r.changes[1].to == NodePhase::Up);
    CHECK(r.changes[1].reason == NodeReason::ScaleOut);
    CHECK(r.changes[2].time == hours(3));
    CHECK(r.changes[2].to == NodePhase::Released);
    CHECK(r.changes[2].reason == NodeReason::Released);
    CHECK_FALSE(r.changes[2].billed);
    // The slot can be taken again.
    CHECK(r.cluster->released_slots(0) == 1);
  }
  SECTION("per second, provisioning not billed") {
    // Billed from 1h05 to 3h: 1h55 x $3.60 = $6.90.
    Run r(cluster_yaml(1, "per_second", ""), 2);
    r.at(hours(1), [&] { r.cluster->request_node(0, minutes(5), false); });
    r.at(hours(3), [&] { r.cluster->release_node(1); });
    r.run();
    CHECK(r.costs->node_cost_usd(1) == Approx(6.90));
    CHECK(r.changes[0].billed == false);
  }
  SECTION("per hour with a 2 h minimum: the minimum") {
    // Requested at 1h, released at 1h30: 30 min used, billed the 2 h minimum = $7.20.
    Run r(cluster_yaml(1, "{granularity: 1h, minimum: 2h}", ""), 2);
    r.at(hours(1), [&] { r.cluster->request_node(0, minutes(10)); });
    r.at(minutes(90), [&] { r.cluster->release_node(1); });
    r.run();
    CHECK(r.costs->node_cost_usd(1) == Approx(7.20));
    CHECK(r.costs->node_up_s(1) == Approx(1800.0));
  }
  SECTION("per hour with a 2 h minimum: rounded up to the hour") {
    // Requested at 1h, released at 3h10: 2h10 used, billed 3 h = $10.80.
    Run r(cluster_yaml(1, "{granularity: 1h, minimum: 2h}", ""), 2);
    r.at(hours(1), [&] { r.cluster->request_node(0, minutes(10)); });
    r.at(hours(3) + minutes(10), [&] { r.cluster->release_node(1); });
    r.run();
    CHECK(r.costs->node_cost_usd(1) == Approx(10.80));
  }
  SECTION("a request cancelled while provisioning is billed to the cancel") {
    // Requested at 1h with 30 min to come up, released at 1h10: 10 min, per second = $0.60.
    Run r(cluster_yaml(1, "per_second", ""), 2);
    r.at(hours(1), [&] { r.cluster->request_node(0, minutes(30)); });
    r.at(hours(1) + minutes(10), [&] { CHECK(r.cluster->release_node(1)); });
    r.run();
    CHECK(r.costs->node_cost_usd(1) == Approx(0.60));
    REQUIRE(r.changes.size() == 2);
    CHECK(r.changes[1].from == NodePhase::Provisioning);
    CHECK(r.changes[1].to == NodePhase::Released);
    CHECK(r.cluster->nodes()[1].phase == NodePhase::Released);  // the up event was cancelled
  }
  SECTION("a node still up at the end is billed to the end") {
    // Requested at 4h, never released: 6 h to the 10 h horizon = $21.60.
    Run r(cluster_yaml(1, "per_second", ""), 2);
    r.at(hours(4), [&] { r.cluster->request_node(0, SimTime::zero()); });
    r.run();
    CHECK(r.costs->node_cost_usd(1) == Approx(21.60));
    CHECK(r.changes.size() == 2);  // provisioning and up at the same instant
  }
}

TEST_CASE("A requested node takes jobs once it is up", "[model][nodes]") {
  // Two 1-GPU jobs of 2 h at 0 on one node: B waits for A. A second node requested at 30 min
  // (15 min to come up) starts B at 45 min, so B ends at 2h45 instead of 4h.
  Run r(cluster_yaml(1, "", "    - {name: A, gpus: 1, duration: 2h}\n    - {name: B, gpus: 1, duration: 2h}\n"), 2);
  r.at(minutes(30), [&] { r.cluster->request_node(0, minutes(15)); });
  r.run();
  CHECK(r.job(1).start == minutes(45));
  CHECK(r.job(1).end == hours(2) + minutes(45));
  CHECK(r.cluster->nodes_of(r.job(1))[0] == 1u);
}

TEST_CASE("No slot left: request_node says so and changes nothing", "[model][nodes]") {
  Run r(cluster_yaml(1, "", ""), 2);
  std::optional<std::uint32_t> first, second;
  r.at(hours(1), [&] {
    first = r.cluster->request_node(0, minutes(1));
    second = r.cluster->request_node(0, minutes(1));
  });
  r.run();
  CHECK(first == 1u);
  CHECK_FALSE(second.has_value());
  CHECK(r.changes.size() == 2);
}

TEST_CASE("A drained node's job finishes, then the node is released, with no interruption", "[model][nodes]") {
  // A (5 h) runs on node 0 from 0. Drained at 2h without deadline: A runs on and ends at 5h,
  // when node 0 is released. B, submitted at 3h, cannot start on the draining node; a node
  // requested at 3h (no delay) takes it. Node 0 is billed 0-5h: $18.
  Run r(cluster_yaml(1, "per_second",
                     "    - {name: A, gpus: 1, duration: 5h}\n    - {name: B, gpus: 1, duration: 1h, submit: 3h}\n"),
        2);
  r.at(hours(2), [&] { CHECK(r.cluster->drain_node(0)); });
  r.at(hours(3), [&] {
    CHECK(r.cluster->nodes()[0].phase == NodePhase::Draining);
    r.cluster->request_node(0, SimTime::zero());
  });
  r.run();
  const models::Job& A = r.job(0);
  CHECK(A.status == models::JobStatus::Completed);
  CHECK(A.end == hours(5));
  CHECK(A.interruptions() == 0);
  CHECK(A.stop_reason == models::StopReason::None);
  CHECK(r.job(1).start == hours(3));
  CHECK(r.cluster->nodes_of(r.job(1))[0] == 1u);
  CHECK(r.cluster->nodes()[0].phase == NodePhase::Released);
  CHECK(r.cluster->nodes()[0].reason == NodeReason::ScaleIn);
  CHECK(r.costs->node_cost_usd(0) == Approx(18.0));
  // Node 0: draining at 2h, released at 5h, both scale-in.
  std::vector<models::NodeTransition> n0;
  for (const auto& t : r.changes)
    if (t.node == 0) n0.push_back(t);
  REQUIRE(n0.size() == 2);
  CHECK(n0[0].to == NodePhase::Draining);
  CHECK(n0[0].reason == NodeReason::ScaleIn);
  CHECK(n0[1].time == hours(5));
  CHECK(n0[1].to == NodePhase::Released);
  CHECK(n0[1].reason == NodeReason::ScaleIn);
}

TEST_CASE("A drain with a deadline stops the job for the drain, not as an interruption", "[model][nodes]") {
  // A (5 h, no checkpoints) on node 0; drained at 1h with a 2h deadline: stopped at 2h
  // (NodeReleased), its 2 h of work lost; node 0 released at 2h. A node requested at 2h (no
  // delay) reruns A from scratch: 2h-7h.
  Run r(cluster_yaml(1, "per_second", "    - {name: A, gpus: 1, duration: 5h}\n"), 2);
  double first_session = 0;  // node 0's charges posted at its release
  r.ledger.charged.connect([&](const models::Charge& c) {
    if (c.node == 0 && c.time == hours(2)) first_session += c.usd;
  });
  r.at(hours(1), [&] { CHECK(r.cluster->drain_node(0, hours(2))); });
  r.at(hours(2), [&] { r.cluster->request_node(0, SimTime::zero()); });
  r.run();
  const models::Job& A = r.job(0);
  CHECK(A.stop_reason == models::StopReason::NodeReleased);
  CHECK(A.lost_gpu_s() == Approx(2 * 3600.0));
  CHECK(A.run_start == hours(2));
  CHECK(A.end == hours(7));
  CHECK(A.status == models::JobStatus::Completed);
  // The request took the lowest released slot, node 0 itself: released and requested again
  // at 2h, billed in two sessions, 0-2h and 2h-10h ($36 in all).
  CHECK(r.cluster->nodes_of(A)[0] == 0u);
  REQUIRE(r.changes.size() == 4);
  CHECK(r.changes[0].to == NodePhase::Draining);
  CHECK(r.changes[1].time == hours(2));
  CHECK(r.changes[1].to == NodePhase::Released);
  CHECK(r.changes[1].reason == NodeReason::ScaleIn);
  CHECK(r.changes[2].to == NodePhase::Provisioning);
  CHECK(r.changes[3].to == NodePhase::Up);
  CHECK(r.costs->node_cost_usd(0) == Approx(36.0));
  CHECK(first_session == Approx(7.20));
}

TEST_CASE("A drain with a deadline lets a job with checkpoints save its work first", "[model][nodes]") {
  // A: 5 h of work, a 3 min checkpoint after every hour of progress (restore 3 min). Run 1:
  // compute 0-1h, write 1h-1h03 (saves 1h), compute 1h03-2h03, write 2h03-2h06 (saves 2h),
  // compute from 2h06. Drained at 1h30 with a 3h deadline: the last checkpoint starts at
  // 2h57 (work 2h51m) and commits at 3h, when A stops (NodeReleased) losing nothing. A node
  // requested at 3h takes it: restore 3h-3h03, 2h09m of work left with checkpoints after its
  // 3rd and 4th hour (two writes, 6 min): it ends at 3h03 + 2h09 + 6m = 5h18.
  Run r(cluster_yaml(1, "per_second",
                     "    - {name: A, gpus: 1, duration: 5h, checkpoint: {every: 1h, write_time: 3m, restore_time: 3m}}\n"),
        2);
  r.at(minutes(90), [&] { CHECK(r.cluster->drain_node(0, hours(3))); });
  r.at(hours(3), [&] {
    CHECK(r.cluster->nodes()[0].phase == NodePhase::Released);
    r.cluster->request_node(0, SimTime::zero());
  });
  r.run();
  const models::Job& A = r.job(0);
  CHECK(A.stop_reason == models::StopReason::NodeReleased);
  CHECK(A.lost_gpu_s() == Approx(0.0).margin(1e-6));
  CHECK(A.run_start == hours(3));
  CHECK(A.end == hours(5) + minutes(18));
  CHECK(A.checkpoints() == 2 + 1 + 2);
}

TEST_CASE("A drain of an idle node releases it at once, and a second drain or release does nothing", "[model][nodes]") {
  Run r(cluster_yaml(2, "per_second", ""), 2);
  r.at(hours(1), [&] {
    CHECK(r.cluster->drain_node(1));
    CHECK(r.cluster->nodes()[1].phase == NodePhase::Released);
    CHECK_FALSE(r.cluster->drain_node(1));
    CHECK_FALSE(r.cluster->release_node(1));
  });
  r.run();
  CHECK(r.costs->node_cost_usd(1) == Approx(3.60));
  CHECK(r.cluster->up_gpus() == 1);
}

TEST_CASE("Releasing a busy node stops its jobs with the release reason", "[model][nodes]") {
  Run r(cluster_yaml(1, "per_second", "    - {name: A, gpus: 1, duration: 5h}\n"), 1);
  r.at(hours(1), [&] { CHECK(r.cluster->release_node(0)); });
  r.run();
  const models::Job& A = r.job(0);
  CHECK(A.stop_reason == models::StopReason::NodeReleased);
  CHECK(A.status == models::JobStatus::Interrupted);  // never ran again: no node left
  CHECK(r.costs->node_cost_usd(0) == Approx(3.60));
}

TEST_CASE("The node API refuses what it cannot do", "[model][nodes]") {
  Run r(cluster_yaml(1, "", ""), 2);
  CHECK_THROWS_AS(r.cluster->request_node(1, SimTime::zero()), InternalError);
  CHECK_THROWS_AS(r.cluster->request_node(0, SimTime::zero() - minutes(1)), InternalError);
  CHECK_THROWS_AS(r.cluster->drain_node(5), InternalError);
  CHECK_FALSE(r.cluster->release_node(1));  // released already
  CHECK_FALSE(r.cluster->drain_node(1));
}

TEST_CASE("NodeAllocator: a slot's phases and what policies see", "[unit][nodes]") {
  models::Scenario s = test::scenario_from_yaml(cluster_yaml(1, "", ""));
  s.cluster.node_types[0].max_count = 2;
  models::NodeAllocator a(s.cluster);
  const SimTime t = hours(1);
  CHECK(a.view()[1].status == models::NodeStatus::Down);
  CHECK(a.gpu_room()[1] == 0);
  CHECK_FALSE(a.transition(1, NodePhase::Up, NodeReason::ScaleOut, t));  // request it first
  CHECK_FALSE(a.transition(1, NodePhase::Draining, NodeReason::ScaleIn, t));
  CHECK(a.transition(1, NodePhase::Provisioning, NodeReason::ScaleOut, t, true));
  CHECK(a.nodes()[1].billed);
  CHECK(a.view()[1].status == models::NodeStatus::Down);
  CHECK(a.up_gpus() == 1);
  CHECK(a.transition(1, NodePhase::Up, NodeReason::ScaleOut, t));
  CHECK(a.view()[1].status == models::NodeStatus::Up);
  CHECK(a.view()[1].gpus_free == 1);
  CHECK(a.gpu_room()[1] == 1000);
  CHECK(a.up_gpus() == 2);
  CHECK(a.transition(1, NodePhase::Draining, NodeReason::ScaleIn, t, true, hours(2)));
  CHECK(a.view()[1].status == models::NodeStatus::Noticed);
  CHECK(a.view()[1].gpus_free == 0);
  CHECK(a.up_gpus() == 2);  // draining nodes are up (and billed)
  CHECK_FALSE(a.transition(1, NodePhase::Up, NodeReason::ScaleOut, t));  // no undrain
  CHECK(a.transition(1, NodePhase::Released, NodeReason::ScaleIn, t));
  CHECK_FALSE(a.nodes()[1].billed);
  CHECK(a.up_gpus() == 1);
  CHECK_FALSE(a.transition(1, NodePhase::Down, NodeReason::Availability, t));  // a released slot is not down
  CHECK(a.released_slot(0) == 1);
}

TEST_CASE("The trace tells a scale-in from an interruption", "[model][nodes][trace]") {
  // Node 1 requested at 1h (10 min), A (3 h, submitted at 1h) runs on node 0, B (submitted at
  // 1h05) on node 1 from 1h10; node 1 drained at 2h and released when B ends at 3h10.
  test::TempDir dir("node-slots");
  const std::string path = dir.file("slots.h5");
  Run r(cluster_yaml(1, "per_second",
                     "    - {name: A, gpus: 1, duration: 3h, submit: 1h}\n"
                     "    - {name: B, gpus: 1, duration: 2h, submit: 1h5m}\n"),
        3, path);
  r.at(hours(1), [&] { r.cluster->request_node(0, minutes(10)); });
  r.at(hours(2), [&] { r.cluster->drain_node(1); });
  r.run();
  r.finish();
  const analysis::TraceData t = analysis::read_trace(path);
  REQUIRE(t.has_node_events);
  // Three slots at the start (up, released, released), then node 1's four changes.
  struct Row {
    double time_s;
    std::int32_t node;
    std::string state, reason;
    bool billed;
    bool operator==(const Row&) const = default;
  };
  std::vector<Row> rows;
  for (const auto& e : t.node_events) rows.push_back({e.time_s, e.node, e.state, e.reason, e.billed});
  const std::vector<Row> expected{{0, 0, "up", "initial", true},
                                  {0, 1, "released", "initial", false},
                                  {0, 2, "released", "initial", false},
                                  {3600, 1, "provisioning", "scale_out", true},
                                  {4200, 1, "up", "scale_out", true},
                                  {7200, 1, "draining", "scale_in", true},
                                  {11400, 1, "released", "scale_in", false}};
  CHECK(rows == expected);
  // /events has node 1's node_down at 3h10, yet no interruption anywhere.
  bool down_row = false;
  for (const auto& e : t.events) down_row |= analysis::event_kind_label(t, e) == "node_down" && e.node == 1 && e.time_s == 11400;
  CHECK(down_row);
  for (const auto& n : t.nodes) CHECK(n.interruptions == 0);
  CHECK(analysis::spot_interruptions(t).empty());
  // Node 1 billed 1h-3h10 = 2h10 at $3.60 = $7.80; its /nodes row says so.
  CHECK(t.nodes[1].cost_usd == Approx(7.80));
  CHECK(t.nodes[1].up_time_s == Approx(7800.0));
  CHECK(t.nodes[1].up_s == Approx(4200.0));
  CHECK(t.nodes[1].down_s == Approx(11400.0));
  CHECK(std::isnan(t.nodes[2].up_s));
  CHECK(t.nodes[2].cost_usd == 0.0);
  const analysis::Metrics m = analysis::compute_metrics(t);
  CHECK(m.interruptions == 0);
  const std::string report = analysis::format_report(t, m);
  CHECK_THAT(report, Catch::Contains("Nodes that came and went"));
  CHECK_THAT(report, Catch::Contains("requested (scale-out)"));
}

TEST_CASE("Without /node_events, analysis counts node_down rows after the start as interruptions", "[unit][nodes][trace]") {
  // An older trace: the fallback reads /events.
  analysis::TraceData t;
  t.event_kind_labels = {"submit", "start", "finish", "end_of_run", "stop", "checkpoint", "notice", "node_down", "node_up"};
  t.nodes.push_back({});
  t.nodes[0].gpus = 8;
  t.events.push_back({0.0, -1, 0, 7});     // down from the start: not counted
  t.events.push_back({100.0, -1, 0, 7});   // counted
  t.events.push_back({200.0, -1, 0, 8});
  const auto taken = analysis::spot_interruptions(t);
  REQUIRE(taken.size() == 1);
  CHECK(taken[0].time_s == 100.0);
  CHECK(taken[0].gpus == 8);
  // With the table, its reasons decide, whatever /events says.
  t.has_node_events = true;
  t.node_events.push_back({100.0, 0, "released", "scale_in", false});
  CHECK(analysis::spot_interruptions(t).empty());
  t.node_events.push_back({300.0, 0, "down", "spot_interruption", false});
  REQUIRE(analysis::spot_interruptions(t).size() == 1);
  CHECK(analysis::spot_interruptions(t)[0].time_s == 300.0);
}
