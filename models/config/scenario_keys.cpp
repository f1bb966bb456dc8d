// The scenario's key sections (see scenario_keys.hpp).
#include "models/config/scenario_keys.hpp"

#include "models/config/alerts_reader.hpp"
#include "models/config/autoscale_reader.hpp"
#include "models/config/budget_reader.hpp"
#include "models/config/catalogs_reader.hpp"
#include "models/config/cluster_reader.hpp"
#include "models/config/distribution_reader.hpp"
#include "models/config/output_reader.hpp"
#include "models/config/scheduler_reader.hpp"
#include "models/config/service_reader.hpp"
#include "models/config/workload_reader.hpp"
#include "models/importers/trace_import.hpp"
#include "models/pricing/billing.hpp"
#include "models/pricing/price_spec.hpp"
#include "models/pricing/tco.hpp"
#include "models/spot/spot_spec.hpp"
#include "models/storage/storage_spec.hpp"
#include "models/topology/topology_spec.hpp"
#include "models/workload/training.hpp"

namespace gcsim::models {

std::vector<DocumentedSection> scenario_key_sections() {
  constexpr std::string_view REFERENCE = "scenario-reference.md";
  return {
      {{"", TOP_LEVEL_KEYS}, REFERENCE},
      {{"catalogs", CATALOGS_KEYS}, REFERENCE},
      {{"cluster", CLUSTER_KEYS}, REFERENCE},
      {{"cluster.node_types[i]", NODE_TYPE_KEYS}, REFERENCE},
      {{"workload", WORKLOAD_KEYS}, REFERENCE},
      {{"workload.jobs[i]", JOB_KEYS}, REFERENCE},
      {{"workload.jobs[i].model", INLINE_MODEL_KEYS}, REFERENCE},
      {{"workload.jobs[i].model.transformer", TRANSFORMER_KEYS}, REFERENCE},
      {{"workload.jobs[i].dataset", DATASET_KEYS}, "step-time.md"},
      {{"workload.jobs[i].parallelism", PARALLELISM_KEYS}, "step-time.md"},
      {{"checkpoint", CHECKPOINT_KEYS}, REFERENCE},
      {{"comm", COMM_KEYS}, "network.md"},
      {{"workload.generators[i]", GENERATOR_KEYS}, REFERENCE},
      {{"workload.services[i]", SERVICE_KEYS}, REFERENCE},
      {{"workload.services[i].requests", SERVICE_REQUEST_KEYS}, REFERENCE},
      {{"workload.services[i].requests.profile", SERVICE_PROFILE_KEYS}, REFERENCE},
      {{"workload.services[i].requests.profile.windows[i]", SERVICE_PROFILE_WINDOW_KEYS}, REFERENCE},
      {{"workload.services[i].batching", SERVICE_BATCHING_KEYS}, REFERENCE},
      {{"workload.services[i].replicas", SERVICE_REPLICA_KEYS}, REFERENCE},
      {{"workload.services[i].replicas.autoscale", SERVICE_AUTOSCALE_KEYS}, REFERENCE},
      {{"workload.services[i].slo", SERVICE_SLO_KEYS}, REFERENCE},
      {{"workload.services[i].cold_start", SERVICE_COLD_START_KEYS}, REFERENCE},
      {{"workload.services[i].cold_start.image", SERVICE_COLD_START_IMAGE_KEYS}, REFERENCE},
      {{"workload.services[i].cold_start.model", SERVICE_COLD_START_MODEL_KEYS}, REFERENCE},
      {{"workload.trace", TRACE_KEYS}, REFERENCE},
      {{"workload.generators[i].active", ACTIVE_KEYS}, REFERENCE},
      {{"workload.generators[i].rate", RATE_KEYS}, REFERENCE},
      {{"workload.generators[i].team", TEAM_CHOICE_KEYS}, REFERENCE},
      {{"estimate", ESTIMATE_KEYS}, REFERENCE},
      {{"distribution", DISTRIBUTION_KEYS}, REFERENCE},
      {{"budgets", BUDGET_KEYS}, REFERENCE},
      {{"output", OUTPUT_KEYS}, REFERENCE},
      {{"output.metrics", METRICS_KEYS}, REFERENCE},
      {{"alerts", ALERTS_KEYS}, "alerts.md"},
      {{"scheduler.preemption", PREEMPTION_KEYS}, REFERENCE},
      {{"scheduler.quotas", QUOTA_KEYS}, REFERENCE},
      {{"scheduler.quotas.windows[i]", QUOTA_WINDOW_KEYS}, REFERENCE},
      {{"scheduler.quotas.windows[i].teams.<team>", TEAM_SHARE_KEYS}, REFERENCE},
      {{"storage", STORAGE_KEYS}, "storage.md"},
      {{"storage.tiers[i]", STORAGE_TIER_KEYS}, "storage.md"},
      {{"storage.tiers[i].retrieval", RETRIEVAL_KEYS}, "storage.md"},
      {{"network", topology::NETWORK_KEYS}, "network.md"},
      {{"network(fabric: single-switch)", topology::SINGLE_SWITCH_KEYS}, "network.md"},
      {{"network(fabric: leaf-spine)", topology::LEAF_SPINE_KEYS}, "network.md"},
      {{"network(fabric: fat-tree)", topology::FAT_TREE_KEYS}, "network.md"},
      {{"network(fabric: explicit)", topology::EXPLICIT_KEYS}, "network.md"},
      {{"network.link", topology::FABRIC_LINK_KEYS}, "network.md"},
      {{"network.links[i]", topology::EXPLICIT_LINK_KEYS}, REFERENCE},
      {{"network.routes[i]", topology::ROUTE_KEYS}, REFERENCE},
      {{"cluster.node_types[i].pcie", topology::PCIE_KEYS}, "network.md"},
      {{"cluster.node_types[i].nvlink", topology::NVLINK_KEYS}, "network.md"},
      {{"cluster.node_types[i].nics", topology::NIC_KEYS}, "network.md"},
      {{"cluster.node_types[i].price", PRICE_KEYS}, "pricing.md"},
      {{"cluster.node_types[i].price.reserved", RESERVED_KEYS}, "pricing.md"},
      {{"cluster.node_types[i].price.spot_profile", PRICE_PROFILE_KEYS}, "pricing.md"},
      {{"cluster.node_types[i].price.spot_profile.points[i]", PRICE_POINT_KEYS}, "pricing.md"},
      {{"cluster.node_types[i].price.billing", BILLING_KEYS}, REFERENCE},
      {{"cluster.node_types[i].ownership", OWNERSHIP_KEYS}, "pricing.md"},
      {{"cluster.node_types[i].interruptions", INTERRUPTION_KEYS}, "spot.md"},
      {{"cluster.node_types[i].interruptions.advisor", ADVISOR_KEYS}, "spot.md"},
      {{"cluster.node_types[i].interruptions.correlated", CORRELATED_KEYS}, "spot.md"},
      {{"cluster.node_types[i].availability", AVAILABILITY_KEYS}, "spot.md"},
      {{"cluster.node_types[i].availability.windows[i]", AVAILABILITY_WINDOW_KEYS}, "spot.md"},
      {{"cluster.node_types[i].autoscale", AUTOSCALE_KEYS}, REFERENCE},
      {{"cluster.node_types[i].autoscale.scale_out", SCALE_RULE_KEYS}, REFERENCE},
      {{"cluster.node_types[i].autoscale.scale_in", SCALE_RULE_KEYS}, REFERENCE},
      {{"cluster.node_types[i].autoscale.schedule[i]", SCHEDULE_WINDOW_KEYS}, REFERENCE},
  };
}

}  // namespace gcsim::models
