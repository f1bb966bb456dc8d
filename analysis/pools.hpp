// Elastic pools in a trace (docs/autoscaling.md): the autoscaler's /pool_sizes and
// /scale_decisions read back, each elastic pool's node-hours, cost, decisions and the
// waiting its scaling did not prevent, as a section of `gcsim analyze`, and a plot of
// demand, capacity and cost over time. A trace without those tables has no elastic pool:
// every function then returns nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/trace_data.hpp"

namespace gcsim::analysis {

struct PoolSizeRow {
  double time_s = 0;
  std::int32_t pool = 0;  // row of /pools
  std::int32_t slots = 0;
  std::int32_t provisioning = 0;
  std::int32_t up = 0;
  std::int32_t draining = 0;
  double held_gpus = 0;
  double busy_gpus = 0;
  double waiting_gpus = 0;
  double memory_used_bytes = 0;
};

struct ScaleDecisionRow {
  double time_s = 0;
  std::int32_t pool = 0;
  bool out = true;        // direction: out (nodes requested) or in (nodes drained)
  std::string trigger;    // its label
  double value = 0;
  std::int32_t nodes = 0;
  std::int32_t size_before = 0;
  std::int32_t size_after = 0;
};

struct ElasticPoolTables {
  std::vector<PoolSizeRow> sizes;          // in time order
  std::vector<ScaleDecisionRow> decisions;  // in time order
  bool empty() const { return sizes.empty() && decisions.empty(); }
};

// The tables of the trace at `path` (empty when it has none: no elastic pool).
ElasticPoolTables read_elastic_pools(const std::string& path);

struct ElasticPoolSummary {
  std::string name;
  std::int32_t slots = 0;
  std::int32_t fewest = 0, most = 0;  // nodes provisioning, up or draining, over the run
  int scale_outs = 0, scale_ins = 0;
  double node_hours = 0;  // billed time of its nodes (/nodes.up_time_s)
  double cost_usd = 0;    // its nodes' charges (/nodes.cost_usd)
  double gpu_hours_held = 0;
  // GPU-hours of demand that waited (waiting_gpus integrated over the run), and the part of
  // it while the pool was at its max (capacity it could not add); the rest waited below it:
  // a trigger's `for`, provisioning, cooldown, no rule that grows the pool for it, or (a spot
  // pool) no capacity in its market. A job that several pools could host counts in each.
  double waiting_gpu_hours = 0;
  double waiting_at_max_gpu_hours = 0;
};

// Per elastic pool, in /pools order, over [0, trace.attrs.end_s].
std::vector<ElasticPoolSummary> summarize_elastic_pools(const TraceData& trace, const ElasticPoolTables& tables);

// The report's "Elastic pools" section ("" without elastic pools).
std::string format_elastic_pools(const std::vector<ElasticPoolSummary>& pools);

// The summaries as a JSON array at nesting level `depth` (analysis/report.hpp's writers):
// one object per pool with the fields of ElasticPoolSummary.
std::string elastic_pools_json(const std::vector<ElasticPoolSummary>& pools, int depth);

// One plot per elastic pool, `dir`/pool_<name><suffix>.png: demand (GPUs held + waiting),
// capacity (GPUs of nodes up) and provisioned GPUs over time, with the pool's cost so far
// (its ledger charges as posted) on the right axis. Returns their paths (none without elastic pools).
std::vector<std::string> plot_elastic_pools(const TraceData& trace, const ElasticPoolTables& tables,
                                            const std::string& dir, const std::string& suffix = "");

}  // namespace gcsim::analysis
