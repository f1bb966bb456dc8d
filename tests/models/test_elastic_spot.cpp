// Elastic spot pools (docs/autoscaling.md, "Elastic spot pools"; models/spot/spot_market.hpp,
// ElasticSupply): `autoscale:` on a spot node type, the market's wanted size, scale-outs the
// market supplies only while it has capacity, fallback to another pool when it has none,
// scale-ins that are not interruptions. Whole runs of a cluster with its cost meter, the
// spot market and the autoscaler; each figure computed by hand in the comments.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "models/accounting/cost_meter.hpp"
#include "models/cluster/cluster.hpp"
#include "models/controllers/autoscaler.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/register_builtins.hpp"
#include "models/simulation.hpp"
#include "models/spot/spot_market.hpp"
#include "sim/engine.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::NodePhase;
using models::NodeReason;
using models::ScaleDirection;
using models::TriggerKind;
using sim::SimTime;

namespace {

using test::hours;
using test::minutes;

// A spot node type `s` of 8 V100s a node, `price` its price map's inside, `extra` keys
// (interruptions, availability, notice), `autoscale` its map's inside; `more` further node
// types (list items); the jobs as the workload's list items.
std::string spot_yaml(const std::string& price, const std::string& extra, const std::string& autoscale,
                      const std::string& jobs, const std::string& horizon = "10h", const std::string& more = "") {
  return "name: elastic-spot\nhorizon: " + horizon +
         "\ncluster:\n  node_types:\n    - name: s\n      gpu: V100-SXM2-16GB\n      gpus: 8\n      count: 0\n"
         "      market: spot\n      price: {" + price + "}\n" + extra + "      autoscale: {" + autoscale + "}\n" + more +
         "workload:\n  jobs:\n" + jobs;
}

std::string job(const std::string& name, int gpus, const std::string& duration, const std::string& submit) {
  return "    - {name: " + name + ", gpus: " + std::to_string(gpus) + ", duration: " + duration + ", submit: " + submit + "}\n";
}

// A cluster with its cost meter, the spot market (the cluster's ElasticSupply) and the
// autoscaler, run to the end; every node transition kept.
struct SpotRun {
  models::Scenario scenario;
  sim::Engine engine;
  models::Ledger ledger;
  std::unique_ptr<models::Cluster> cluster;
  std::unique_ptr<models::CostMeter> costs;
  std::unique_ptr<models::SpotMarket> market;
  std::unique_ptr<models::Autoscaler> scaler;
  std::vector<models::NodeTransition> transitions;
  std::vector<int> most;  // per node type: slots not released, at most

  explicit SpotRun(const std::string& yaml, std::uint64_t seed = 7) : scenario(test::scenario_from_yaml(yaml)) {
    cluster = std::make_unique<models::Cluster>(engine, scenario, models::expand_workload(scenario, 0),
                                                models::builtins().schedulers.make(scenario.scheduler));
    costs = std::make_unique<models::CostMeter>(scenario, *cluster, ledger);
    market = std::make_unique<models::SpotMarket>(engine, seed, 0, models::spot_pools(scenario), *cluster);
    cluster->set_supply(market.get());
    scaler = std::make_unique<models::Autoscaler>(engine, scenario, *cluster);
    most.assign(scenario.cluster.node_types.size(), 0);
    cluster->node_changed.connect([this](const models::NodeTransition& t) {
      transitions.push_back(t);
      std::vector<int> held(most.size(), 0);
      for (const auto& n : cluster->nodes()) held[n.type] += n.phase != NodePhase::Released;
      for (std::size_t i = 0; i < most.size(); ++i) most[i] = std::max(most[i], held[i]);
    });
    cluster->start();
    market->start();
    scaler->start();
    engine.run();
  }
  const std::vector<models::ScaleDecision>& decisions() const { return scaler->decisions(); }
  const models::Job& job(std::size_t i) const { return cluster->jobs()[i]; }
};

}  // namespace

TEST_CASE("elastic spot: a pool scales 0 -> 2 -> 0 around two jobs, billed at the spot price by hand",
          "[model][autoscale][spot]") {
  // Two 8-GPU jobs submitted at 1h for 1h each, on an empty spot pool of 8-GPU nodes at a
  // fixed spot price of $1.20/h, billed per second, provisioning billed (no provider).
  // 1h00: 16 GPUs wait; waiting_gpus >= 8 holds from 1h00; for 5m -> decision at 1h05:
  //   by 2 = two nodes (the market has capacity: no availability limit, no interruptions).
  // 1h09: both up (4 min provisioning); the jobs run 1h09 -> 2h09.
  // 2h09: both idle; idle for 30m -> 2h39: both drained (released at once, idle).
  // Bill: 2 nodes x (2h39 - 1h05 = 94 min) x $1.20/h = 2 x 1.88 = $3.76.
  SpotRun r(spot_yaml("on_demand_per_hour: 3, spot_per_hour: 1.2, billing: per_second", "",
                      "min: 0, max: 4, scale_out: {when: waiting_gpus >= 8, for: 5m, by: 2}, "
                      "scale_in: {when: idle, for: 30m, by: 2}, provisioning: 4m",
                      job("A", 8, "1h", "1h") + job("B", 8, "1h", "1h")));
  REQUIRE(r.decisions().size() == 2);
  CHECK(r.decisions()[0].time == hours(1) + minutes(5));
  CHECK(r.decisions()[0].direction == ScaleDirection::Out);
  CHECK(r.decisions()[0].trigger == TriggerKind::WaitingGpus);
  CHECK(r.decisions()[0].nodes == 2);
  CHECK(r.decisions()[0].size_after == 2);
  CHECK(r.decisions()[1].time == hours(2) + minutes(39));
  CHECK(r.decisions()[1].direction == ScaleDirection::In);
  CHECK(r.decisions()[1].nodes == 2);
  CHECK(r.decisions()[1].size_after == 0);
  CHECK(r.job(0).run_start == hours(1) + minutes(9));
  CHECK(r.job(1).run_start == hours(1) + minutes(9));
  CHECK(r.costs->total_cost_usd() == Approx(2 * 94.0 / 60 * 1.2));
  CHECK(r.market->wanted_nodes(0) == 0);
  CHECK(r.market->counters(0).scale_outs == 2);
  CHECK(r.market->counters(0).given_back == 2);
  CHECK(r.most[0] == 2);

  SECTION("the scale-in is recorded as a scale-in, not an interruption, and not replaced") {
    int scale_in = 0;
    for (const auto& t : r.transitions) {
      CHECK(t.reason != NodeReason::SpotInterruption);
      CHECK(t.reason != NodeReason::SpotReplacement);
      if (t.reason == NodeReason::ScaleIn && t.to == NodePhase::Released) {
        ++scale_in;
        CHECK(t.time == hours(2) + minutes(39));
      }
    }
    CHECK(scale_in == 2);
    // Nothing happens to the pool after the scale-in: its slots stay released to the end.
    CHECK(r.transitions.back().time == hours(2) + minutes(39));
    for (const auto& n : r.cluster->nodes()) CHECK(n.phase == NodePhase::Released);
    CHECK(r.market->counters(0).interruptions == 0);
    CHECK(r.market->counters(0).replacements == 0);
  }
}

TEST_CASE("elastic spot: scaled-in slots are the market's no more, even with a high interruption rate",
          "[model][autoscale][spot]") {
  // As above but the nodes are interrupted at 6 per node-hour (mean life 10 min) with no
  // notice: the jobs are interrupted and restarted on replacements, the pool scales in at
  // the end; after its last scale-in no slot of the pool changes again (no interruption,
  // no replacement of a slot given back) and nothing is billed after it.
  SpotRun r(spot_yaml("on_demand_per_hour: 3, spot_per_hour: 1.2, billing: per_second",
                      "      interruptions: {process: poisson, rate: 6/h}\n      notice: 0s\n",
                      "min: 0, max: 2, scale_out: {when: waiting_gpus >= 8, by: 2}, scale_in: {when: idle, for: 30m, by: 2}, "
                      "provisioning: 1m",
                      job("A", 8, "5m", "1h") + job("B", 8, "5m", "1h"), "20h"));
  SimTime last_in = SimTime::zero();
  for (const auto& d : r.decisions())
    if (d.direction == ScaleDirection::In) last_in = d.time;
  REQUIRE(last_in > SimTime::zero());
  CHECK(r.cluster->jobs()[0].status == models::JobStatus::Completed);
  CHECK(r.cluster->jobs()[1].status == models::JobStatus::Completed);
  for (const auto& t : r.transitions) {
    CHECK(t.time <= last_in);
    if (t.reason == NodeReason::ScaleIn) CHECK(t.from != NodePhase::Down);
  }
  for (const auto& n : r.cluster->nodes()) CHECK(n.phase == NodePhase::Released);
  CHECK(r.market->wanted_nodes(0) == 0);
}

TEST_CASE("elastic spot: an interruption is replaced after provisioning when capacity returns, billed by hand",
          "[model][autoscale][spot]") {
  // One 8-GPU job of 2h (no checkpoints) submitted at 1h on an empty pool (max 1) whose
  // price is $1/h but $5/h from 2h00 to 2h30, above the bid of $2/h: the market has no
  // capacity then (process: price). No notice; provisioning 4m, billed (no provider) for a
  // scale-out, not for the market's replacement (billed from up, as today).
  // 1h00: waiting 8 >= 8 (no `for`): one node requested; billed from 1h00; up 1h04; the
  //       job starts at 1h04.
  // 2h00: the price rises above the bid: the node goes down (spot_interruption); the job
  //       loses the 56 min since its start (8 GPUs); the pool still wants the node: its
  //       slot waits for capacity. The autoscaler's scale-out holds, but the market has no
  //       capacity: unmet, no decision; it asks again at 2h30, when capacity may return.
  // 2h30: capacity returns: the market provisions a replacement (spot_replacement), up at
  //       2h34; the job restarts at 2h34 and runs 2h to 4h34.
  // 4h34: idle; idle for 30m -> 5h04: drained and released (scale_in).
  // Bill: 1h00 -> 2h00 at $1/h = $1.00; 2h34 -> 5h04 at $1/h = $2.50; total $3.50.
  SpotRun r(spot_yaml("on_demand_per_hour: 3, max_per_hour: 2, billing: per_second, "
                      "spot_profile: {points: [{at: 0h, price: 1}, {at: 2h, price: 5}, {at: 2h30m, price: 1}]}",
                      "      interruptions: {process: price}\n      notice: 0s\n",
                      "min: 0, max: 1, scale_out: {when: waiting_gpus >= 8}, scale_in: {when: idle, for: 30m}, "
                      "provisioning: 4m",
                      job("A", 8, "2h", "1h")));
  REQUIRE(r.decisions().size() == 2);
  CHECK(r.decisions()[0].time == hours(1));
  CHECK(r.decisions()[0].direction == ScaleDirection::Out);
  CHECK(r.decisions()[1].time == hours(5) + minutes(4));
  CHECK(r.decisions()[1].direction == ScaleDirection::In);
  CHECK(r.scaler->unmet(0) >= 1);
  const models::Job& a = r.job(0);
  CHECK(a.interruptions() == 1);
  CHECK(a.lost_work() == Approx(56 * 60.0));
  CHECK(a.run_start == hours(2) + minutes(34));
  CHECK(a.status == models::JobStatus::Completed);
  // The slot's story: scale_out (provisioning, up), interruption (draining: the notice of 0s;
  // down), replacement (provisioning, up), scale-in (draining, released).
  std::vector<std::pair<NodePhase, NodeReason>> story;
  for (const auto& t : r.transitions) story.emplace_back(t.to, t.reason);
  const std::vector<std::pair<NodePhase, NodeReason>> expected = {
      {NodePhase::Provisioning, NodeReason::ScaleOut},       {NodePhase::Up, NodeReason::ScaleOut},
      {NodePhase::Draining, NodeReason::SpotInterruption},   {NodePhase::Down, NodeReason::SpotInterruption},
      {NodePhase::Provisioning, NodeReason::SpotReplacement}, {NodePhase::Up, NodeReason::SpotReplacement},
      {NodePhase::Draining, NodeReason::ScaleIn},            {NodePhase::Released, NodeReason::ScaleIn}};
  CHECK(story == expected);
  CHECK(r.transitions[4].time == hours(2) + minutes(30));
  CHECK(r.transitions[5].time == hours(2) + minutes(34));
  CHECK(r.costs->total_cost_usd() == Approx(3.50));
  CHECK(r.market->counters(0).interruptions == 1);
  CHECK(r.market->counters(0).replacements == 1);
}

TEST_CASE("elastic spot: no capacity sends the demand to the fallback pool, in the window only",
          "[model][autoscale][spot]") {
  // Spot pool s (max 2) has no capacity from 2h to 4h (availability 0%); it falls back to
  // the on-demand pool o (max 2). Both: waiting_gpus >= 8 (no `for`), by 4, idle 10m,
  // provisioning 4m. 8-GPU jobs of 30 min:
  //   A at 1h: s has capacity: s scales out by 1 (waiting_gpus), A runs 1h04 -> 1h34 on s.
  //   B1, B2, B3 at 3h: s has none (unmet): the 24 GPUs spill to o, which scales out by
  //     min(4, max 2) = 2 nodes with the trigger `fallback`; B1, B2 run 3h04 -> 3h34 on o,
  //     B3 at 3h34 -> 4h04 (o at its max; s still without capacity).
  //   C1, C2 at 5h: s has capacity again: s scales out by 2 (waiting_gpus); nothing spills
  //     (s is not at its max before the decision, and 16 - 2 x 8 = 0 after).
  const std::string both =
      "min: 0, max: 2, scale_out: {when: waiting_gpus >= 8, by: 4}, scale_in: {when: idle, for: 10m}, provisioning: 4m";
  const std::string od = "    - name: o\n      gpu: V100-SXM2-16GB\n      gpus: 8\n      count: 0\n"
                         "      price: {on_demand_per_hour: 3}\n      autoscale: {" + both + "}\n";
  const std::string jobs = job("A", 8, "30m", "1h") + job("B1", 8, "30m", "3h") + job("B2", 8, "30m", "3h") +
                           job("B3", 8, "30m", "3h") + job("C1", 8, "30m", "5h") + job("C2", 8, "30m", "5h");
  SpotRun r(spot_yaml("spot_per_hour: 1", "      availability: {windows: [{every: 1d, from: 2h, to: 4h, available: 0%}]}\n",
                      both + ", fallback: o", jobs, "10h", od));
  int s_out = 0, o_out = 0;
  for (const auto& d : r.decisions()) {
    if (d.direction != ScaleDirection::Out) continue;
    if (d.pool == 1) {
      ++o_out;
      CHECK(d.trigger == TriggerKind::Fallback);
      CHECK(d.time >= hours(2));
      CHECK(d.time < hours(4));
      CHECK(d.time == hours(3));
      CHECK(d.nodes == 2);
    } else {
      ++s_out;
      CHECK(d.trigger == TriggerKind::WaitingGpus);
      CHECK((d.time < hours(2) || d.time >= hours(4)));
    }
  }
  CHECK(s_out == 2);
  CHECK(o_out == 1);
  CHECK(r.scaler->unmet(0) >= 1);
  CHECK(r.most[0] <= 2);
  CHECK(r.most[1] == 2);
  CHECK(r.job(0).run_start == hours(1) + minutes(4));
  CHECK(r.job(1).run_start == hours(3) + minutes(4));
  CHECK(r.job(3).run_start == hours(3) + minutes(34));
  CHECK(r.job(4).run_start == hours(5) + minutes(4));
  for (std::size_t i = 1; i <= 3; ++i) CHECK(r.cluster->nodes()[r.cluster->nodes_of(r.job(i)).front()].type == 1);
}

TEST_CASE("elastic spot: an unmet request is asked again when capacity returns, not before", "[model][autoscale][spot]") {
  // No capacity from 2h to 4h, no fallback; one 8-GPU job of 1h at 3h; waiting_gpus >= 8
  // with no `for`, provisioning 4m. 3h00: the trigger holds, the market has no capacity:
  // unmet (counted once: no other evaluation of the pool until capacity may return). 4h00:
  // the window ends, the pool's wake-up finds capacity: one node, up at 4h04; the job runs
  // 4h04 -> 5h04. No decision between 3h and 4h.
  SpotRun r(spot_yaml("spot_per_hour: 1", "      availability: {windows: [{every: 1d, from: 2h, to: 4h, available: 0%}]}\n",
                      "min: 0, max: 2, scale_out: {when: waiting_gpus >= 8}, scale_in: {when: idle, for: 10m}, provisioning: 4m",
                      job("A", 8, "1h", "3h")));
  REQUIRE(r.decisions().size() == 2);
  CHECK(r.decisions()[0].time == hours(4));
  CHECK(r.decisions()[0].direction == ScaleDirection::Out);
  CHECK(r.decisions()[0].nodes == 1);
  CHECK(r.decisions()[1].time == hours(5) + minutes(14));
  CHECK(r.decisions()[1].direction == ScaleDirection::In);
  CHECK(r.scaler->unmet(0) == 1);
  CHECK(r.job(0).run_start == hours(4) + minutes(4));
}

TEST_CASE("elastic spot: same seed, same decisions and node story", "[model][autoscale][spot]") {
  std::string jobs;
  for (int i = 0; i < 12; ++i) jobs += job("J" + std::to_string(i), 8 * (1 + i % 2), "90m", std::to_string(40 * i) + "m");
  const std::string yaml = spot_yaml("spot_per_hour: 1, billing: per_second",
                                     "      interruptions: {process: poisson, rate: 0.5/h}\n"
                                     "      availability: {windows: [{every: 1d, from: 3h, to: 5h, available: 50%}]}\n",
                                     "min: 0, max: 4, scale_out: {when: waiting_gpus >= 8, for: 5m}, "
                                     "scale_in: {when: idle, for: 10m}, cooldown: 5m, provisioning: 3m",
                                     jobs, "20h");
  SpotRun a(yaml, 11), b(yaml, 11);
  REQUIRE(a.decisions().size() == b.decisions().size());
  REQUIRE(a.decisions().size() > 2);
  for (std::size_t i = 0; i < a.decisions().size(); ++i) {
    CHECK(a.decisions()[i].time == b.decisions()[i].time);
    CHECK(a.decisions()[i].nodes == b.decisions()[i].nodes);
    CHECK(a.decisions()[i].direction == b.decisions()[i].direction);
  }
  REQUIRE(a.transitions.size() == b.transitions.size());
  for (std::size_t i = 0; i < a.transitions.size(); ++i) {
    CHECK(a.transitions[i].time == b.transitions[i].time);
    CHECK(a.transitions[i].node == b.transitions[i].node);
    CHECK(a.transitions[i].reason == b.transitions[i].reason);
  }
  CHECK(a.costs->total_cost_usd() == b.costs->total_cost_usd());
  CHECK(a.market->counters(0).interruptions > 0);
}

TEST_CASE("elastic spot: the reader", "[unit][autoscale][spot]") {
  const std::string jobs = job("A", 8, "1h", "0");
  SECTION("one provisioning delay: either key gives it") {
    const auto s = test::scenario_from_yaml(
        spot_yaml("spot_per_hour: 1", "", "max: 2, scale_in: {when: idle}, provisioning: 5m", jobs));
    CHECK(s.cluster.node_types[0].spot->provisioning == minutes(5));
    CHECK(s.cluster.node_types[0].autoscale->provisioning == minutes(5));
    const auto t = test::scenario_from_yaml(
        spot_yaml("spot_per_hour: 1", "      provisioning: 3m\n", "max: 2, scale_in: {when: idle}", jobs));
    CHECK(t.cluster.node_types[0].spot->provisioning == minutes(3));
    CHECK(t.cluster.node_types[0].autoscale->provisioning == minutes(3));
  }
  SECTION("two different delays: a conflict at autoscale.provisioning's line and column") {
    const auto e = test::config_error([&] {
      test::scenario_from_yaml(
          spot_yaml("spot_per_hour: 1", "      provisioning: 3m\n", "max: 2, scale_in: {when: idle}, provisioning: 5m", jobs));
    });
    CHECK(e.code() == ErrorCode::Conflict);
    CHECK(e.key_path() == "cluster.node_types[0].autoscale.provisioning");
    // Line 12 (after the node type's own `provisioning: 3m`), the value `5m`: "      autoscale: {"
    // takes columns 1..18, "max: 2, scale_in: {when: idle}, " 19..50, "provisioning: " 51..64.
    CHECK(e.mark().line == 12);
    CHECK(e.mark().column == 65);
  }
  SECTION("a bad key: its line and column, and a suggestion") {
    const auto e = test::config_error([&] {
      test::scenario_from_yaml(spot_yaml("spot_per_hour: 1", "", "max: 2, scale_in: {when: idle}, fallbak: s", jobs));
    });
    CHECK(e.code() == ErrorCode::UnknownKey);
    // Line 11, the key `fallbak` at column 51 (as above).
    CHECK(e.mark().line == 11);
    CHECK(e.mark().column == 51);
    CHECK(std::string(e.what()).find("fallback") != std::string::npos);
  }
}
