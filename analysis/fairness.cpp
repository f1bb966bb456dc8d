// Fairness figures (see fairness.hpp).
#include "analysis/fairness.hpp"

#include <cmath>
#include <map>

#include "analysis/metrics.hpp"

namespace gcsim::analysis {

double jain_index(std::span<const double> x) {
  double sum = 0;
  double sum_squares = 0;
  for (double v : x) {
    sum += v;
    sum_squares += v * v;
  }
  if (x.empty() || !(sum_squares > 0)) return NOT_A_NUMBER;
  return sum * sum / (static_cast<double>(x.size()) * sum_squares);
}

double time_alone_s(const JobRecord& job) {
  if (job.status != JobStatus::Completed || job.gpus_held <= 0) return NOT_A_NUMBER;
  const ResilienceRecord& r = job.resilience;
  const double kept_gpu_s = r.gpu_s_held - r.gpu_s_lost - r.gpu_s_restart;
  if (!(kept_gpu_s > 0)) return NOT_A_NUMBER;
  return kept_gpu_s / job.gpu_share_held();
}

double finish_time_fairness(const JobRecord& job) {
  const double alone_s = time_alone_s(job);
  if (std::isnan(alone_s)) return NOT_A_NUMBER;
  return (job.end_s - job.submit_s) / alone_s;
}

double worst_finish_time_fairness(const TraceData& trace) {
  double worst = NOT_A_NUMBER;
  for (const JobRecord& j : trace.jobs) {
    const double rho = finish_time_fairness(j);
    if (!std::isnan(rho) && (std::isnan(worst) || rho > worst)) worst = rho;
  }
  return worst;
}

std::vector<TeamSlowdown> team_slowdowns(const TraceData& trace) {
  std::map<std::string, TeamSlowdown> by_team;
  for (const JobRecord& j : trace.jobs) {
    const double rho = finish_time_fairness(j);
    if (j.resilience.team.empty() || std::isnan(rho)) continue;
    TeamSlowdown& t = by_team[j.resilience.team];
    t.team = j.resilience.team;
    ++t.jobs;
    t.mean_slowdown += rho;  // the sum until divided below
  }
  std::vector<TeamSlowdown> out;
  for (auto& [name, t] : by_team) {
    t.mean_slowdown /= static_cast<double>(t.jobs);
    out.push_back(t);
  }
  return out;
}

double team_slowdown_jain(const TraceData& trace) {
  std::vector<double> x;
  for (const TeamSlowdown& t : team_slowdowns(trace)) x.push_back(t.mean_slowdown);
  return jain_index(x);
}

}  // namespace gcsim::analysis
