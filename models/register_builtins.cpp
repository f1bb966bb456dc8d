// Fills the built-in registries (see register_builtins.hpp).
#include "models/register_builtins.hpp"

#include "models/autoscale_part.hpp"
#include "models/controllers/budgets.hpp"
#include "models/builtin_parts.hpp"
#include "models/recorded_part.hpp"
#include "models/scheduler/backfill.hpp"
#include "models/scheduler/cost_aware.hpp"
#include "models/scheduler/fair_share.hpp"
#include "models/scheduler/fifo.hpp"
#include "models/scheduler/finish_time_fair.hpp"
#include "models/scheduler/hetero.hpp"
#include "models/scheduler/las.hpp"
#include "models/scheduler/placement.hpp"
#include "models/scheduler/priority.hpp"
#include "models/scheduler/recorded.hpp"
#include "models/scheduler/sjf.hpp"
#include "models/scheduler/spot_fallback.hpp"
#include "models/scheduler/srtf.hpp"
#include "models/trace/service_tables.hpp"
#include "models/serving_part.hpp"

namespace gcsim::models {

void register_builtins(Builtins& b) {
  b.schedulers.add_placement("best-fit",
                             "one node with the fewest free GPUs that suffice (lowest index on ties), else whole free "
                             "nodes of one type",
                             [] { return std::make_unique<BestFitPlacement>(); });
  b.schedulers.add_placement("first-fit", "the lowest-index node with enough free GPUs, else whole free nodes of one type",
                             [] { return std::make_unique<FirstFitPlacement>(); });
  b.schedulers.add_placement("pack",
                             "the node left fullest, as a fraction of its GPUs (lowest index on ties), else whole free "
                             "nodes of the type that needs fewest",
                             [] { return std::make_unique<PackPlacement>(); });
  b.schedulers.add_placement("spread", "the node with the most free GPUs (lowest index on ties), else whole free nodes of one type",
                             [] { return std::make_unique<SpreadPlacement>(); });
  b.schedulers.add_placement("topology",
                             "one node as best-fit; whole free nodes of one leaf switch when one has enough, else of the "
                             "fewest leaves",
                             [] { return std::make_unique<TopologyPlacement>(); });
  b.schedulers.add_policy(fifo_policy());
  b.schedulers.add_policy(sjf_policy());
  b.schedulers.add_policy(srtf_policy());
  b.schedulers.add_policy(backfill_policy());
  b.schedulers.add_policy(las_policy());
  b.schedulers.add_policy(finish_time_fair_policy());
  b.schedulers.add_policy(priority_policy());
  b.schedulers.add_policy(fair_share_policy());
  b.schedulers.add_policy(hetero_policy());
  b.schedulers.add_policy(cost_aware_policy());
  b.schedulers.add_policy(spot_fallback_policy());
  b.schedulers.add_policy(recorded_policy());

  b.components.add(model_speeds_component());
  b.components.add(cost_meter_component());
  b.components.add(budgets_component());
  b.components.add(trace_component());
  b.components.add(spot_market_component());
  b.components.add(network_component());
  b.components.add(storage_component());
  b.components.add(recorded_replay_component());
  b.components.add(autoscaler_component());
  b.components.add(metrics_component());
  b.components.add(network_latency_component());
  b.components.add(service_tables_component());
  b.components.add(serving_component());
}

const Builtins& builtins() {
  static const Builtins instance = [] {
    Builtins b;
    register_builtins(b);
    return b;
  }();
  return instance;
}

}  // namespace gcsim::models
