// The `cluster:` section: its node types, each with its hardware (GPU from the catalog or a
// catalog instance), count, market, price, ownership, spot pool and internals. The key
// tables are the reference for docs/scenario-reference.md (`cluster`, `cluster.node_types[i]`).
#pragma once

#include <string>

#include "models/config/catalogs_reader.hpp"
#include "models/config/cluster_spec.hpp"
#include "models/topology/topology_spec.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"

namespace gcsim::models {

inline constexpr config::KeySpec CLUSTER_KEYS[] = {
    {"node_types", "list of maps", "", true, "1..64 items", "the node types, below"},
};

inline constexpr config::KeySpec NODE_TYPE_KEYS[] = {
    {"name", "text, unique", "", true, "", "the node type's name; also names its spot random streams"},
    {"instance", "catalog reference `provider/type`", "", false, "",
     "the catalog entry that supplies gpu, gpus, cpu_cores, memory, provider, prices, billing and spot notice"},
    {"provider", "name", "the instance's provider, else none", false, "",
     "selects the default billing rule and the default spot notice"},
    {"gpu", "GPU catalog name or alias", "the instance's GPU", false, "", "the GPU of every node"},
    {.name = "gpus", .type = "integer", .default_value = "the instance's", .help = "GPUs per node",
     .kind = config::KeyKind::Integer, .min = 1, .max = 64},
    {.name = "cpu_cores", .type = "integer", .default_value = "the instance's vCPUs ÷ 2, else 0",
     .help = "physical host CPU cores per node (not threads)", .kind = config::KeyKind::Integer, .min = 1, .max = 1 << 20},
    {.name = "memory", .type = "bytes", .default_value = "the instance's, else 0", .help = "host memory per node",
     .kind = config::KeyKind::Bytes},
    {.name = "count", .type = "integer", .required = true, .range = "at least 1 without `autoscale`",
     .help = "how many nodes of this type (with `autoscale`: at the start)", .kind = config::KeyKind::Integer, .min = 0,
     .max = 1 << 20},
    {"market", "`on_demand` | `spot` | `reserved` | `owned`", "`on_demand`", false, "", "how its nodes are paid for"},
    {"price", "map", "the instance's prices and billing", false, "", "prices per market and the billing rule"},
    {"ownership", "map", "", false, "", "an owned pool's costs (market: owned only)"},
    {"compare_to", "catalog reference", "none (reserved: the pool's own on-demand price)", false, "", "the on-demand alternative for an owned or reserved pool's break-even"},
    {"interruptions", "map", "never interrupted (`process: none`)", false, "", "how a spot pool's nodes are interrupted"},
    {"availability", "map", "always `count` nodes", false, "", "how many nodes a spot pool can supply over time"},
    {.name = "notice", .type = "duration",
     .default_value = "the instance's `spot_notice`, else the provider's (`aws` 2 min, `gcp` and `azure` 30 s), else `0s`",
     .help = "warning before a spot node is taken", .kind = config::KeyKind::Duration, .min = 0},
    {.name = "provisioning", .type = "duration", .help = "time from a replacement being granted to its node being up (elastic: also a scale-out's)",
     .kind = config::KeyKind::Duration, .min = 0, .has_default = true, .default_number = 0},
    {"autoscale", "map", "none (a fixed size)", false, "", "an elastic pool: see autoscaling.md and below"},
    {"pcie", "see network.md", "from the GPU", false, "", "the node's PCIe generation"},
    {"nvlink", "see network.md", "from the GPU", false, "", "the node's NVLink/NVSwitch"},
    {"nics", "see network.md", "from the GPU", false, "", "the node's NICs (without it: the instance row's network, else one 100 Gb/s NIC)"},
    topology::GPUS_PER_PCIE_SWITCH_KEY,
};

// Reads `cluster:` (node types, prices through pricing/price_spec, spot pools through
// spot/spot_spec). Trace and price files are read through `sources`. Values derived
// from other sections or from model equations are left to the resolve step.
ClusterSpec read_cluster(const config::ConfigNode& node, const Catalogs& catalogs, config::SourceResolver& sources);

}  // namespace gcsim::models
