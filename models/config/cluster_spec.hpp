// The cluster as a scenario describes it: its node types (hardware, count, market, spot
// pool, internals) and the spec-level feasibility predicate the loader and the workload
// expansion share. Built by scenario_loader, part of the validated Scenario (scenario.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/config/autoscale_spec.hpp"
#include "models/gpu/gpu_spec.hpp"
#include "models/pricing/price_spec.hpp"
#include "models/pricing/tco.hpp"
#include "models/spot/spot_spec.hpp"
#include "models/topology/topology_spec.hpp"
#include "models/workload/training.hpp"
#include "sim/errors.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

// A spot pool's market (docs/spot.md): how its nodes are interrupted, when it can supply
// nodes, the notice before a node goes and the time to bring a replacement up.
struct SpotPoolConfig {
  InterruptionSpec interruptions;
  AvailabilitySpec availability;
  sim::SimTime notice;
  sim::SimTime provisioning;
};

struct NodeTypeSpec {
  std::string name;
  std::string instance;        // the catalog instance it names ("aws/p4d.24xlarge"), or ""
  std::string provider;        // billing and notice defaults; "" for none
  GpuSpec gpu;                 // resolved from the catalog
  int gpus = 0;                // per node
  int cpu_cores = 0;
  double memory_bytes = 0;
  int count = 0;               // nodes of this type at the start
  // Slots of this type: the most nodes of it at once, count at least. Slots beyond count
  // start released, for a controller to request at run time (Cluster::request_node); the
  // nodes of a type keep contiguous ids (ClusterView), so the slots are fixed when the
  // cluster is built. Set by the parts that scale (0: count).
  int max_count = 0;
  int slots() const { return max_count > count ? max_count : count; }
  PriceSpec price;             // market, prices, billing (models/pricing/price_spec.hpp)
  std::optional<OwnershipSpec> ownership;  // owned pools
  std::string compare_to;      // owned: the cloud alternative for break-even ("aws/p4d.24xlarge")
  double compare_usd_per_gpu_hour = 0;     // its on-demand price per GPU-hour (0 when none)
  std::optional<SpotPoolConfig> spot;      // spot pools
  std::optional<AutoscaleSpec> autoscale;  // elastic pools (max_count = autoscale->max)
  // Mean interruptions per node-second of its market (0: never interrupted); what
  // `checkpoint: {every: optimal}` plans for.
  double interruption_rate_per_s = 0;
  topology::NodeInternalsSpec internals;  // PCIe, NVLink, NICs (resolved against the GPU)
  SourceMark mark;
  std::string path;            // "cluster.node_types[0]"
};

// The most GPUs a cluster may hold in all: the cluster numbers its GPUs with 32-bit ids
// and counts them in an int (models/cluster/node_allocator.hpp).
inline constexpr std::int64_t MAX_TOTAL_GPUS = 2'147'483'647;

struct ClusterSpec {
  std::vector<NodeTypeSpec> node_types;
  // Summed in 64 bits: 64 node types of up to 2^20 nodes of 64 GPUs reach 2^32 GPUs,
  // beyond an int (the reader refuses more than MAX_TOTAL_GPUS, but validate prints these).
  std::int64_t total_gpus() const;
  std::int64_t total_nodes() const;
};

// What one whole node of the pool costs per hour at busy fraction `busy` (0..1) by its
// market's rules (docs/pricing.md): on demand its price, spot the price at `at`, reserved the
// effective price of its term, owned F + E(busy) (tco.hpp). Runs bill by it, estimates too.
double node_usd_per_hour(const NodeTypeSpec& type, double busy, sim::SimTime at = sim::SimTime::zero());

// Nodes of the type a job of `gpus` GPUs takes: one when it fits on a node, else whole nodes.
long nodes_needed(const NodeTypeSpec& type, int gpus);

// Why a node type can never hold a job (the checks of eligible_node_types, in that order).
// Nodes: more nodes than its slots (an elastic pool at its max).
enum class Ineligible : std::uint8_t { None, Precision, Memory, Nodes };
Ineligible ineligibility(const NodeTypeSpec& type, int gpus, const Precision* precision, const TrainingSpec* training);

// Node types (bit per type index) that can ever hold a job of `gpus` GPUs: enough GPUs on
// one node or enough whole nodes of the type; for jobs with a precision, a GPU that has it;
// for model-described jobs, GPU memory that fits the model (models/workload/memory_fit.hpp).
std::uint64_t eligible_node_types(const ClusterSpec& cluster, int gpus, const Precision* precision,
                                  const TrainingSpec* training = nullptr);

// Why no node type can ever hold a job of `gpus` GPUs (in `precision`, when given): the
// sentence of an `infeasible` error, listing the cluster's node types.
std::string infeasible_message(const ClusterSpec& cluster, int gpus, const Precision* precision);

// Why no node type can hold a model-described job: the memory fit on the largest GPU that
// supports its precision says what it needs and what would fit (" On <GPU>: ..."); empty
// when memory is not the reason.
std::string memory_fit_hint(const ClusterSpec& cluster, const TrainingSpec& training);

}  // namespace gcsim::models
