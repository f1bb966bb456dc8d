// Fairness between jobs and teams, for `gcsim compare` (docs/analysis.md, "Comparing
// strategies"): Jain's index over the teams' mean slowdowns, and Themis' finish-time
// fairness rho per job. Pure functions of a TraceData, so they are tested on hand-built
// traces (tests/analysis/test_fairness.cpp).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "analysis/trace_data.hpp"

namespace gcsim::analysis {

// Jain's index J = (sum x)^2 / (n sum x^2) (Jain, Chiu and Hawe, "A Quantitative Measure of
// Fairness and Discrimination for Resource Allocation in Shared Computer Systems", DEC
// TR-301, 1984): 1 when all x are equal, 1/n when one holds everything. NaN for an empty
// sample or one whose values are all 0.
double jain_index(std::span<const double> x);

// The time a completed job would have run alone on the cluster, from what the trace holds:
// (gpu_s_held - gpu_s_lost - gpu_s_restart) / gpus_held, the time its GPUs spent on work it
// kept and on its own checkpoint writes, without work redone, restores and image pulls. For
// a job that was never interrupted and pulls no image this is end - start. NaN for a job
// that did not complete or held no GPU-time.
double time_alone_s(const JobRecord& job);

// Themis' finish-time fairness rho_j = JCT_j / T_alone_j (Mahajan et al., "Themis: Fair and
// Efficient GPU Cluster Scheduling", NSDI 2020), JCT_j = end - submit; NaN where T_alone is.
double finish_time_fairness(const JobRecord& job);

// The largest rho over the completed jobs: how much longer than alone the worst-treated
// job took. NaN when no job completed.
double worst_finish_time_fairness(const TraceData& trace);

// One team's completed jobs: their mean slowdown, the mean of rho_j.
struct TeamSlowdown {
  std::string team;
  std::size_t jobs = 0;
  double mean_slowdown = 0;
};
// Per team named by a completed job, sorted by team name; jobs without a team are left out.
std::vector<TeamSlowdown> team_slowdowns(const TraceData& trace);

// Jain's index over team_slowdowns()' mean slowdowns: 1 when every team waits alike
// relative to its jobs' lengths. NaN when no completed job names a team.
double team_slowdown_jain(const TraceData& trace);

}  // namespace gcsim::analysis
