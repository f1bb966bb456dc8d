// A scenario's cluster run with a scheduler the test builds, and with the scenario's spot
// market wired as run_simulation wires it (interruptions and replacements happen), run to
// the end at construction; for tests that compare two schedulers on the same jobs.
#pragma once

#include <memory>

#include "models/cluster/cluster.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/simulation.hpp"
#include "models/spot/spot_market.hpp"
#include "sim/engine.hpp"

namespace gcsim::test {

struct ClusterRun {
  sim::Engine engine;
  std::unique_ptr<models::Cluster> cluster;
  std::unique_ptr<models::SpotMarket> market;  // none without spot pools
  ClusterRun(const models::Scenario& s, std::unique_ptr<models::Scheduler> policy) {
    cluster = std::make_unique<models::Cluster>(engine, s, models::expand_workload(s, 0), std::move(policy));
    if (std::vector<models::SpotPoolSpec> pools = models::spot_pools(s); !pools.empty()) {
      market = std::make_unique<models::SpotMarket>(engine, s.seed, 0, std::move(pools), *cluster);
      market->start();
    }
    cluster->start();
    engine.run();
  }
};

}  // namespace gcsim::test
