// What a validated scenario will need to run: jobs, nodes, network vertices, links and
// routes, events and bytes of memory, estimated from the specs before anything is built,
// and checked against limits (--max-memory, --max-events), so that a scenario too large
// for the machine is refused at load with the key that makes it so, instead of ending in
// an allocation failure or running for days. `validate` prints the estimate; `run`,
// `rerun`, `estimate` and `flows` check it before building anything (docs/units.md,
// "Limits: memory, events and files").
//
// The per-item byte costs are measured (max RSS of runs at two sizes, the difference over
// the difference in items; see the constants in resource_estimate.cpp), so the estimate is
// of the peak resident memory of `gcsim run`, including reading the trace back for the
// summary. Event counts are of the events the engine handles: per job, per interruption,
// per budget check, per change point of a spot or price profile.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/topology/topology_spec.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {

// The default limit on events: generous (a run of 1e9 events takes tens of minutes).
inline constexpr double DEFAULT_MAX_EVENTS = 1e9;

struct ResourceLimits {
  double max_memory_bytes = 0;  // > 0
  double max_events = DEFAULT_MAX_EVENTS;
};

// limits.max_events as the most events a run may handle (RunOptions::max_events).
std::uint64_t event_limit(const ResourceLimits& limits);

// This machine's physical memory (sysconf), in bytes; 0 when unknown.
double physical_memory_bytes();
// What this process may use: the physical memory, lowered to the address-space limit
// (`ulimit -v`) and to the memory limit of the cgroup a container sees as its own
// (/sys/fs/cgroup/memory.max, or memory/memory.limit_in_bytes), when set; 0 when unknown.
double usable_memory_bytes();
// Half of the usable memory (4 GiB when it is unknown) and DEFAULT_MAX_EVENTS.
ResourceLimits default_resource_limits();

// One part of a scenario that needs memory or events: a key and where it is written.
struct ResourcePart {
  std::string list;  // the list it is an entry of ("cluster.node_types"), or "" for none
  std::string path;  // "workload.generators[0].count", "cluster.node_types[1].count", "network.fabric"
  SourceMark mark;
  std::string what;  // "jobs", "nodes and their GPUs", "links", "budget checks"...
  double bytes = 0;
  double events = 0;
};

// Counts are doubles: the sizes refused here (10^10 links) overflow 32-bit counts.
struct ResourceEstimate {
  double jobs = 0;
  double nodes = 0;
  double gpus = 0;
  double vertices = 0;  // network graph: GPUs, PCIe switches, CPUs, NICs, switches, hosts
  double links = 0;     // network link resources (two per full-duplex cable)
  double routes = 0;    // explicit routes
  double events = 0;
  double bytes = 0;     // peak resident memory, including the process's baseline
  std::vector<ResourcePart> parts;
};

// The estimate for running `s` (models/simulation.hpp).
ResourceEstimate estimate_resources(const Scenario& s);
// The same under `scheduler` in place of the scenario's own section (a policy run as a run
// option over a shared scenario: gcsim compare's variants). Only the policy's rounds
// depend on it.
ResourceEstimate estimate_resources(const Scenario& s, const SchedulerSpec& scheduler);
// The estimate for `gcsim flows` over `net` alone (its hosts, no cluster nodes), with
// `flows` rows to replay.
ResourceEstimate estimate_flow_replay(const topology::NetworkSpec& net, double flows);

// Throws ConfigError(Infeasible) at the part that contributes most when the estimate
// exceeds a limit; the message gives the estimate, the part's share and the limit. Parts
// of one kind in one list (the nodes of each node type) count together: when they are
// the largest, the refusal is at the list ("cluster.node_types"), naming its largest entry.
void check_resources(const ResourceEstimate& e, const ResourceLimits& limits);

// One line: "needs about 1,200 jobs, 16 nodes, 128 GPUs, 0 links, 0 routes, 7,300 events,
// 31.4 MiB of memory (limits 7.7 GiB, 1e+09 events)".
std::string format_estimate(const ResourceEstimate& e, const ResourceLimits& limits);

}  // namespace gcsim::models
