// gcsim plan's candidates and the guide's five scores (docs/plan.md, "The five scores"):
// those a simulation measures, computed from the candidates' runs, and the provider
// attributes each with its source, as the human table and the JSON show them.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/report.hpp"
#include "cli/plan_catalog.hpp"
#include "models/config/overrides.hpp"

namespace gcsim::cli {

struct PlanCandidate {
  std::string instance;  // provider/type, or provider/type@zone for a zone's spot price
  std::string market;    // on-demand | spot | reserved
  int nodes = 1;
  std::string provider, instance_type;
  double network_bytes_per_s = 0;  // per node, from the catalog (0: not given)
  // The exposed gradient communication's share of the model-described jobs' GPU time on
  // this fleet, by the step-time model (NaN: no model-described job).
  double comm_share = NAN;
  double spot_rate_per_h = 0;      // spot only
  std::string spot_rate_source;
  std::vector<std::vector<models::Override>> settings;  // one per run (spot: per replication)
  std::string excluded;  // why it cannot run the workload ("" when it can)
  // Over the replications that succeeded.
  double time_s = 0, cost_usd = 0, time_min_s = 0, time_max_s = 0, cost_min_usd = 0, cost_max_usd = 0;
  double interruptions = 0, gpu_hours_lost = 0;  // means
  bool finishes = false;  // every job completed in every replication
  bool over_budget = false;
  bool frontier = false;
  std::string label() const { return instance + " " + market + " x" + std::to_string(nodes); }
};

// The measured scores of a candidate (docs/plan.md, "The five scores"), NaN where they do
// not apply: hardware, the fastest listed time over this candidate's; network, its time on
// the instance's fewest nodes against its own, per node (1 = linear scaling); interruption
// handling, its time beyond the same instance and nodes on demand (the time to recover).
struct MeasuredScores {
  double relative_speed = NAN;
  double scaling_efficiency = NAN;
  int scaling_from_nodes = 0;
  double interruption_delay_s = NAN;
};

// Every listed candidate's (`order`: the candidates that finish within the budget), by index
// into `candidates`; the others keep NaN.
std::vector<MeasuredScores> measure_scores(const std::vector<PlanCandidate>& candidates, const std::vector<std::size_t>& order);

// `measured` and `attributes` (each {value, source}) of one entry.
void append_scores_json(analysis::JsonObject& entry, const PlanCandidate& c, const MeasuredScores& scores,
                        const std::vector<ProviderAttribute>& attributes);

// The scores under the plan's table: one row per listed candidate, then each provider's
// attributes with their sources.
void print_scores(const std::vector<PlanCandidate>& candidates, const std::vector<std::size_t>& order,
                  const std::vector<MeasuredScores>& measured, const std::vector<ProviderAttribute>& attributes);

}  // namespace gcsim::cli
