// A scenario run on the cluster model with on-demand accounting and no trace: engine,
// cluster (with the scenario's own policy), ledger and cost meter, run to the end at
// construction; for tests that read jobs, placements and costs by name.
#pragma once

#include <string>

#include <catch2/catch.hpp>

#include "models/accounting/cost_meter.hpp"
#include "models/cluster/cluster.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/register_builtins.hpp"
#include "sim/engine.hpp"
#include "support/scenario_support.hpp"

namespace gcsim::test {

struct ModelRun {
  models::Scenario scenario;
  sim::Engine engine;
  models::Cluster cluster;
  models::Ledger ledger;
  models::CostMeter costs;
  explicit ModelRun(const std::string& yaml)
      : scenario(scenario_from_yaml(yaml)),
        cluster(engine, scenario, models::expand_workload(scenario, 0), models::builtins().schedulers.make(scenario.scheduler)),
        costs(scenario, cluster, ledger) {
    cluster.start();
    engine.run();
  }
  const models::Job& job(const std::string& name) const {
    for (const auto& j : cluster.jobs())
      if (j.name == name) return j;
    FAIL("no job " << name);
    throw;
  }
};

}  // namespace gcsim::test
