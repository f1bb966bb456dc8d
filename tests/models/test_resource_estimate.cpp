// The resource estimate (models/config/resource_estimate.hpp): counts computed by hand, the
// network's vertices and links equal to what build_topology really builds, and refusals at
// the key that dominates, before anything is built (the hostile sizes below would need
// tens of GB to tens of TB).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "models/config/resource_estimate.hpp"
#include "models/topology/topology.hpp"
#include "support/scenario_support.hpp"

using gcsim::ErrorCode;
using gcsim::models::check_resources;
using gcsim::models::estimate_resources;
using gcsim::models::ResourceLimits;
using gcsim::test::config_error;
using gcsim::test::scenario_from_yaml;

namespace {

constexpr double GiB = 1024.0 * 1024 * 1024;

std::string scenario(const std::string& horizon, const std::string& node_types, const std::string& rest) {
  return "name: s\nhorizon: " + horizon + "\ncluster:\n  node_types:\n" + node_types + rest;
}

const std::string A100 =
    "    - {name: a, gpu: A100-40GB-SXM, gpus: 8, count: 3, price: {on_demand_per_hour: 32.77}}\n";
const std::string ONE_JOB = "workload:\n  jobs:\n    - {name: j, submit: 0h, gpus: 8, duration: 1h}\n";

// The real graph of the scenario's cluster and network.
gcsim::topology::Topology built(const gcsim::models::Scenario& s) {
  std::vector<gcsim::topology::NodeGroup> groups;
  for (const auto& t : s.cluster.node_types) groups.push_back({t.name, t.count, t.gpus, t.internals, &t.gpu});
  return gcsim::topology::build_topology(*s.network, groups);
}

}  // namespace

TEST_CASE("the estimate counts jobs, nodes, GPUs and events by hand", "[unit]") {
  const auto s = scenario_from_yaml(scenario("30d",
                                             A100 + "    - {name: b, gpu: T4, gpus: 1, count: 2, price: "
                                                    "{on_demand_per_hour: 0.5}}\n",
                                             "workload:\n  jobs:\n    - {name: j1, submit: 0h, gpus: 1, duration: 1h}\n"
                                             "    - {name: j2, submit: 1h, gpus: 8, duration: 2h}\n"
                                             "  generators:\n    - {name: g, count: 10, arrival: 1h, gpus: 1, "
                                             "duration: 1h}\n"));
  const auto e = estimate_resources(s);
  CHECK(e.jobs == 12);
  CHECK(e.nodes == 5);
  CHECK(e.gpus == 3 * 8 + 2 * 1);
  CHECK(e.links == 0);
  CHECK(e.routes == 0);
  CHECK(e.events == 12 * 4);  // four events a job (arrival, start, finish, a scheduling wake-up)
}

TEST_CASE("the estimate's network vertices and links are those build_topology makes", "[unit]") {
  const std::string fabrics[] = {
      "network: {fabric: single-switch}\n",
      "network: {fabric: leaf-spine, nodes_per_leaf: 2, spines: 3}\n",
      "network: {fabric: fat-tree, k: 4}\n",
  };
  for (const std::string& net : fabrics) {
    for (const std::string& internals : {std::string(), std::string(", nics: {count: 4}, gpus_per_pcie_switch: 4")}) {
      const std::string types = "    - {name: a, gpu: A100-40GB-SXM, gpus: 8, count: 3, price: {on_demand_per_hour: "
                                "32.77}" + internals + "}\n    - {name: b, gpu: T4, gpus: 1, count: 2, price: "
                                "{on_demand_per_hour: 0.5}}\n";
      const auto s = scenario_from_yaml(scenario("1d", types, net + ONE_JOB));
      const auto e = estimate_resources(s);
      const auto topo = built(s);
      INFO(net << internals);
      CHECK(e.vertices == static_cast<double>(topo.vertex_count()));
      CHECK(e.links == static_cast<double>(topo.links().size()));
    }
  }
}

TEST_CASE("a leaf-spine of 10^10 links is counted without building it", "[unit]") {
  const auto s = scenario_from_yaml(
      scenario("1d", A100, "network: {fabric: leaf-spine, nodes_per_leaf: 1, leaves: 100000, spines: 100000}\n" + ONE_JOB));
  const auto e = estimate_resources(s);
  // Per A100 node: 4 PCIe switches, 8 GPUs, 1 NIC, an NVSwitch: 4 + 8 + 1 + 8 cables; one
  // NIC cable to its leaf; 10^10 leaf-spine cables; two links per cable.
  CHECK(e.links == Approx(2 * (3 * 21 + 3 + 1e10)));
  const auto err = config_error([&] { check_resources(e, ResourceLimits{8 * GiB, 1e9}); });
  CHECK(err.code() == ErrorCode::Infeasible);
  CHECK(err.key_path() == "network.fabric");
  CHECK(err.detail().find("network fabric") != std::string::npos);
  CHECK(err.detail().find("--max-memory") != std::string::npos);
}

TEST_CASE("a generator of 100 million jobs is refused at its count", "[unit]") {
  // Every 10 ms: all 10^8 come within 11.6 days, inside the horizon.
  const auto s = scenario_from_yaml(scenario(
      "30d", A100,
      "workload:\n  generators:\n    - {name: flood, count: 100000000, arrival: 10ms, gpus: 1, duration: 1h}\n"));
  const auto e = estimate_resources(s);
  CHECK(e.jobs == 1e8);
  const auto err = config_error([&] { check_resources(e, ResourceLimits{8 * GiB, 1e12}); });
  CHECK(err.key_path() == "workload.generators[0].count");
  CHECK(err.mark().line == 8);
  // The same scenario with a tenth of the jobs fits: the limit is what refuses.
  const auto small = scenario_from_yaml(scenario(
      "30d", A100, "workload:\n  generators:\n    - {name: g, count: 10000, arrival: 1s, gpus: 1, duration: 1h}\n"));
  CHECK_NOTHROW(check_resources(estimate_resources(small), ResourceLimits{8 * GiB, 1e9}));
}

TEST_CASE("the estimate counts the generated jobs a streamed run makes by the horizon", "[unit]") {
  // A run that takes its jobs as it reaches them never makes those after the horizon
  // (docs/engine.md, "Jobs taken as they come"): 10^8 jobs a second apart over one day
  // make 86,400, and the estimate allows 6 sqrt(86,400) + 10 = 1,774 more (rounded up).
  const std::string flood = "workload:\n  generators:\n    - {name: flood, count: 100000000, arrival: ";
  const auto day = scenario_from_yaml(scenario("1d", A100, flood + "{dist: exponential, mean: 1s}, gpus: 1, duration: 1h}\n"));
  REQUIRE(gcsim::models::streamable(day));
  const auto e = estimate_resources(day);
  CHECK(e.jobs == std::ceil(86400 + 6 * std::sqrt(86400.0) + 10));
  CHECK_NOTHROW(check_resources(e, ResourceLimits{1 * GiB, 1e9}));
  // By the mean of the times between arrivals: uniform 1-3 s (2 s), a choice (1.5 s); a
  // start and an end shorten the span; a lognormal truncated from above (its mean lower
  // than the untruncated one) and a rate by hour keep the whole count.
  CHECK(estimate_resources(scenario_from_yaml(scenario("1d", A100, flood + "{dist: uniform, min: 1s, max: 3s}, gpus: 1, duration: 1h}\n"))).jobs ==
        std::ceil(43200 + 6 * std::sqrt(43200.0) + 10));
  CHECK(estimate_resources(scenario_from_yaml(scenario("1d", A100, flood + "{choice: [1s, 2s]}, gpus: 1, duration: 1h}\n"))).jobs ==
        std::ceil(57600 + 6 * std::sqrt(57600.0) + 10));
  CHECK(estimate_resources(scenario_from_yaml(scenario("1d", A100, flood + "1s, start: 6h, end: 12h, gpus: 1, duration: 1h}\n"))).jobs ==
        std::ceil(21600 + 6 * std::sqrt(21600.0) + 10));
  CHECK(estimate_resources(scenario_from_yaml(scenario("1d", A100, flood + "{dist: lognormal, median: 1s, sigma: 1, max: 1h}, gpus: 1, duration: 1h}\n"))).jobs == 1e8);
  // A run given its jobs up front (a share of a GPU is not streamed) makes them all.
  const auto shared = scenario_from_yaml(scenario("1d", A100, flood + "1s, gpus: 1, gpu_milli: 500, duration: 1h}\n"));
  REQUIRE_FALSE(gcsim::models::streamable(shared));
  CHECK(estimate_resources(shared).jobs == 1e8);
}

TEST_CASE("event storms are refused at the key that makes them", "[unit]") {
  SECTION("a budget checked every second for 200 years") {
    const auto s = scenario_from_yaml(scenario(
        "73000d", A100,
        "workload:\n  jobs:\n    - {name: j, submit: 0h, gpus: 8, duration: 1h, team: t}\n"
        "budgets:\n  - {team: t, limit: 1000, check_every: 1s}\n"));
    const auto e = estimate_resources(s);
    CHECK(e.events == Approx(73000.0 * 86400 + 4));
    const auto err = config_error([&] { check_resources(e, ResourceLimits{8 * GiB, 1e9}); });
    CHECK(err.key_path() == "budgets[0].check_every");
    CHECK(err.detail().find("--max-events") != std::string::npos);
    CHECK(err.detail().find("6.31e+09 events") != std::string::npos);
  }
  // Rates and windows at their own limits (docs/units.md, "Limits: time and numbers":
  // at most 60 interruptions per node-hour, windows at least a minute).
  SECTION("spot interruptions at 60 per node-hour over a year") {
    const auto s = scenario_from_yaml(scenario(
        "365d",
        "    - {name: a, gpu: A100-40GB-SXM, gpus: 8, count: 1000, market: spot, "
        "price: {on_demand_per_hour: 32.77, spot_per_hour: 10}, interruptions: {process: poisson, rate: 60/h}}\n",
        ONE_JOB));
    const auto e = estimate_resources(s);
    // 60/h x 1000 nodes x 8760 h x 12 events per interruption.
    CHECK(e.events == Approx(60.0 * 1000 * 8760 * 12 + 4));
    const auto err = config_error([&] { check_resources(e, ResourceLimits{8 * GiB, 1e9}); });
    CHECK(err.key_path() == "cluster.node_types[0].interruptions");
  }
  SECTION("spot availability windows every minute for 100 years, over a limit of 1e8 events") {
    const auto s = scenario_from_yaml(scenario(
        "36500d",
        "    - {name: a, gpu: A100-40GB-SXM, gpus: 8, count: 4, market: spot, price: {on_demand_per_hour: 32.77, "
        "spot_per_hour: 10}, availability: {windows: [{every: 1m, from: 0s, to: 30s, available: 100%}], "
        "otherwise: 0%}}\n",
        ONE_JOB));
    const auto e = estimate_resources(s);
    CHECK(e.events == Approx(2 * 36500.0 * 1440 + 4));  // the window opens and closes every minute
    const auto err = config_error([&] { check_resources(e, ResourceLimits{8 * GiB, 1e8}); });
    CHECK(err.key_path() == "cluster.node_types[0].availability");
  }
}

TEST_CASE("parts of one kind in one list are blamed together when together they are the largest", "[unit]") {
  const std::string gen = "arrival: 1s, gpus: 1, duration: 1h}\n";
  const auto s = scenario_from_yaml(scenario("30d", A100,
                                             "workload:\n  generators:\n"
                                             "    - {name: a, count: 1000000, " + gen +
                                             "    - {name: b, count: 2000000, " + gen +
                                             "    - {name: c, count: 1000000, " + gen));
  const auto err = config_error([&] { check_resources(estimate_resources(s), ResourceLimits{1 * GiB, 1e9}); });
  CHECK(err.key_path() == "workload.generators");
  CHECK(err.mark().line == 8);  // the first generator
  CHECK(err.detail().find("workload.generators (3 entries; the largest, workload.generators[1].count, ") !=
        std::string::npos);
  // One generator alone is blamed by its own key.
  const auto one = scenario_from_yaml(
      scenario("30d", A100, "workload:\n  generators:\n    - {name: a, count: 4000000, " + gen));
  CHECK(config_error([&] { check_resources(estimate_resources(one), ResourceLimits{1 * GiB, 1e9}); }).key_path() ==
        "workload.generators[0].count");
}

TEST_CASE("the estimate counts a policy's rounds and the preemptions they may make", "[unit][limits]") {
  // las and finish-time-fair tick every `interval` while jobs wait (two events a round),
  // and preempt at most each running job once a round (two events and 450 B each): here
  // 30 days of 1 s rounds, and two jobs of a day. Before: 8 events, and nothing to blame.
  for (const std::string policy : {"las", "finish-time-fair"}) {
    const auto s = scenario_from_yaml(
        scenario("30d", "    - {name: p, gpu: A100-40GB-SXM, gpus: 1, count: 1, price: {on_demand_per_hour: 1}}\n",
                 "scheduler: {policy: " + policy +
                     ", interval: 1s}\nworkload:\n  jobs:\n    - {name: a, gpus: 1, duration: 1d}\n"
                     "    - {name: b, gpus: 1, duration: 1d}\n"));
    const auto e = estimate_resources(s);
    INFO(policy);
    const double rounds = 30 * 86400.0, preemptions = 2 * 86400.0;
    CHECK(e.events == 2 * 4 + 2 * rounds + 2 * preemptions);
    const auto err = config_error([&] { check_resources(e, ResourceLimits{8 * GiB, 1e6}); });
    CHECK(err.code() == ErrorCode::Infeasible);
    CHECK(err.key_path() == "scheduler.interval");
    CHECK(err.mark().line == 6);
  }
  // The default interval (5m) is blamed at the scheduler map; finish-time-fair without
  // preemption has no round to count.
  const auto defaults = scenario_from_yaml(scenario("290y", A100, "scheduler: {policy: las}\n" + ONE_JOB));
  const auto e = estimate_resources(defaults);
  CHECK(e.events == 4 + 2 * std::ceil(290 * 365 * 86400.0 / 300) + 2 * 12);
  CHECK(config_error([&] { check_resources(e, ResourceLimits{8 * GiB, 1e6}); }).key_path() == "scheduler");
  const auto no_preempt =
      scenario_from_yaml(scenario("30d", A100, "scheduler: {policy: finish-time-fair, preempt: false}\n" + ONE_JOB));
  CHECK(estimate_resources(no_preempt).events == 4);
}
