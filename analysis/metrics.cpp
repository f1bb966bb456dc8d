// Metrics of one run from its trace (definitions in docs/analysis.md). One pass over the
// jobs plus one sort per distribution: fine for million-job traces.
#include "analysis/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>

#include "sim/errors.hpp"

namespace gcsim::analysis {

double percentile_sorted(std::span<const double> sorted, double p) {
  if (sorted.empty()) return NOT_A_NUMBER;
  const double h = static_cast<double>(sorted.size() - 1) * std::clamp(p, 0.0, 100.0) / 100.0;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = h - static_cast<double>(lo);
  // numpy's form: exact at order statistics, and no inf - inf when both neighbours are equal.
  return frac == 0.0 ? sorted[lo] : sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

Distribution summarize(std::vector<double>& values) {
  Distribution d;
  d.count = values.size();
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  d.mean = sum / static_cast<double>(values.size());
  d.p50 = percentile_sorted(values, 50);
  d.p95 = percentile_sorted(values, 95);
  d.p99 = percentile_sorted(values, 99);
  d.max = values.back();
  return d;
}

StepIntegrals integrate_utilization(const std::vector<UtilizationSample>& samples, double end_s) {
  StepIntegrals out;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (i > 0 && samples[i].time_s < samples[i - 1].time_s) {
      throw Error("utilization rows out of time order at row " + std::to_string(i) + " (t = " +
                  std::to_string(samples[i].time_s) + " s)");
    }
    const double from = std::max(samples[i].time_s, 0.0);
    const double to = std::min(i + 1 < samples.size() ? samples[i + 1].time_s : end_s, end_s);
    if (!(to > from)) continue;
    out.allocated_gpu_s += samples[i].allocated_gpus * (to - from);
    out.total_gpu_s += static_cast<double>(samples[i].total_gpus) * (to - from);
  }
  return out;
}

Metrics compute_metrics(const TraceData& trace) {
  Metrics m;
  m.end_s = trace.attrs.end_s;

  // Every charge is in the ledger (node bills and charges of no node, such as storage);
  // traces without one (schema 1) have only node bills.
  if (!trace.ledger.empty()) {
    for (const ChargeRecord& c : trace.ledger) {
      m.total_cost_usd += c.usd;
      if (c.busy) m.busy_cost_usd += c.usd;
      if (is_storage_category(c.category)) m.storage_cost_usd += c.usd;
    }
  } else {
    for (const NodeRecord& n : trace.nodes) m.total_cost_usd += n.cost_usd;
    for (const JobRecord& j : trace.jobs) m.busy_cost_usd += j.cost_usd;
  }

  std::vector<double> waits;
  std::vector<double> jcts;
  double first_submit_s = std::numeric_limits<double>::infinity();
  double last_end_s = -std::numeric_limits<double>::infinity();
  for (const JobRecord& j : trace.jobs) {
    first_submit_s = std::min(first_submit_s, j.submit_s);
    switch (j.status) {
      case JobStatus::Completed: ++m.jobs_completed; break;
      case JobStatus::Running: ++m.jobs_running; break;
      case JobStatus::NeverStarted:
        ++(j.submit_s > trace.attrs.horizon_s ? m.jobs_submitted_after_horizon : m.jobs_never_started);
        break;
      case JobStatus::Interrupted: ++m.jobs_interrupted; break;
    }
    m.interruptions += j.resilience.interruptions;
    m.gpu_hours_held += j.resilience.gpu_s_held / 3600.0;
    if (j.gpu_milli < 1000) {
      ++m.jobs_sharing_gpu;
      m.share_gpu_hours_held += j.resilience.gpu_s_held / 3600.0;
    }
    m.gpu_hours_lost += j.resilience.gpu_s_lost / 3600.0;
    m.gpu_hours_checkpoint += j.resilience.gpu_s_checkpoint / 3600.0;
    m.gpu_hours_restart += j.resilience.gpu_s_restart / 3600.0;
    if (std::isfinite(j.start_s)) waits.push_back(j.start_s - j.submit_s);
    if (j.status == JobStatus::Completed && std::isfinite(j.end_s)) {
      jcts.push_back(j.end_s - j.submit_s);
      last_end_s = std::max(last_end_s, j.end_s);
    }
  }
  m.jobs_total = static_cast<std::int64_t>(trace.jobs.size());
  m.preemptions = static_cast<std::int64_t>(trace.preemptions.size());
  for (const PreemptionRecord& p : trace.preemptions) {
    m.gpu_hours_preempt_save += p.save_gpu_s / 3600.0;
    m.gpu_hours_preempt_restore += p.restore_gpu_s / 3600.0;
    m.gpu_hours_preempt_lost += p.lost_gpu_s / 3600.0;
  }
  m.idle_cost_usd = m.total_cost_usd - m.busy_cost_usd - m.storage_cost_usd;
  if (m.jobs_completed > 0) m.cost_per_completed_job_usd = m.total_cost_usd / static_cast<double>(m.jobs_completed);
  m.makespan_s = jcts.empty() ? 0.0 : last_end_s - first_submit_s;
  if (!jcts.empty()) m.last_completion_s = last_end_s;

  const StepIntegrals gpu_s = integrate_utilization(trace.utilization, m.end_s);
  m.gpu_hours_delivered = gpu_s.allocated_gpu_s / 3600.0;
  m.gpu_hours_provisioned = gpu_s.total_gpu_s / 3600.0;
  if (m.gpu_hours_delivered > 0) m.cost_per_gpu_hour_usd = m.total_cost_usd / m.gpu_hours_delivered;
  if (gpu_s.total_gpu_s > 0) m.gpu_utilization = gpu_s.allocated_gpu_s / gpu_s.total_gpu_s;

  // The share of a job's GPU-time in which its kernels run (1 for jobs without a model).
  const auto compute_fraction = [](const JobRecord& j) {
    const ModelRecord& r = j.model;
    return std::isfinite(r.compute_s) && r.step_time_s > 0 ? std::clamp(r.compute_s / r.step_time_s, 0.0, 1.0) : 1.0;
  };
  double busy_gpu_s = 0, useful_gpu_s = 0, progress_gpu_s = 0;
  for (const JobRecord& j : trace.jobs) {
    const ResilienceRecord& r = j.resilience;
    const double f = compute_fraction(j);
    // Lost work ran its kernels too (it is redone); checkpoint writes and restores are pauses.
    const double running = std::max(0.0, r.gpu_s_held - r.gpu_s_checkpoint - r.gpu_s_restart);
    const double kept = std::max(0.0, running - r.gpu_s_lost);
    busy_gpu_s += f * running;
    useful_gpu_s += f * kept;
    progress_gpu_s += kept;
  }
  m.gpu_hours_busy = busy_gpu_s / 3600.0;
  if (gpu_s.total_gpu_s > 0) m.gpu_busy_share = busy_gpu_s / gpu_s.total_gpu_s;

  std::map<std::string, double> by_bottleneck;
  double exposed_h = 0, input_h = 0, breakdown_h = 0;
  for (const JobRecord& j : trace.jobs) {
    if (!std::isfinite(j.model.samples)) continue;
    m.samples_total += j.model.samples;
    if (!std::isfinite(j.start_s)) continue;
    const double until = j.status == JobStatus::Completed ? j.end_s : m.end_s;
    const double gpu_h = j.gpu_share_held() * (until - j.start_s) / 3600.0;
    m.model_gpu_hours += gpu_h;
    by_bottleneck[j.model.bottleneck.empty() ? "unknown" : j.model.bottleneck] += gpu_h;
    const ModelRecord& r = j.model;
    if (std::isfinite(r.comm_exposed_s) && std::isfinite(r.compute_s) && r.step_time_s > 0) {
      // The GPU's own time: compute + exposed communication (the bubble and tensor-parallel
      // traffic are inside comm_exposed_s or negligible here); what the input adds beyond it
      // is waiting for data.
      const double gpu_s = r.compute_s + r.comm_exposed_s;
      exposed_h += gpu_h * std::min(1.0, r.comm_exposed_s / r.step_time_s);
      input_h += gpu_h * std::clamp((r.input_s - gpu_s) / r.step_time_s, 0.0, 1.0);
      breakdown_h += gpu_h;
    }
  }
  if (breakdown_h > 0) {
    m.comm_exposed_share = exposed_h / breakdown_h;
    m.input_wait_share = input_h / breakdown_h;
  }
  if (m.model_gpu_hours > 0) m.goodput_samples_per_gpu_hour = m.samples_total / m.model_gpu_hours;
  m.bottleneck_gpu_hours.assign(by_bottleneck.begin(), by_bottleneck.end());

  m.gpu_hours_useful = useful_gpu_s / 3600.0;
  m.gpu_hours_waiting = (progress_gpu_s - useful_gpu_s) / 3600.0;
  if (m.gpu_hours_useful > 0) m.cost_per_useful_gpu_hour_usd = m.total_cost_usd / m.gpu_hours_useful;

  if (!trace.ledger.empty()) {
    std::map<std::string, double, std::less<>> by_category;
    for (const ChargeRecord& c : trace.ledger) by_category[c.category] += c.usd;
    for (std::string_view name : CATEGORY_REPORT_ORDER)
      if (auto it = by_category.find(name); it != by_category.end()) m.cost_by_category_usd.emplace_back(name, it->second);
  }

  m.pools = pool_metrics(trace);
  for (const BudgetEventRecord& e : trace.budget_events) {
    m.budget_alerts += e.kind == "alert";
    m.budget_limits_reached += e.kind == "limit_reached";
  }

  m.wait_s = summarize(waits);
  m.jct_s = summarize(jcts);
  m.teams = team_metrics(trace);
  return m;
}

DominantBottleneck dominant_bottleneck(const Metrics& m) {
  if (!(m.model_gpu_hours > 0)) return {};
  for (const auto& [name, hours] : m.bottleneck_gpu_hours)
    if (hours > 0.5 * m.model_gpu_hours) return {name, hours / m.model_gpu_hours};
  return {};
}

std::vector<TeamMetrics> team_metrics(const TraceData& trace) {
  std::map<std::string, std::size_t> index;
  for (const JobRecord& j : trace.jobs)
    if (!j.resilience.team.empty()) index.emplace(j.resilience.team, 0);
  std::vector<TeamMetrics> teams;
  for (auto& [name, i] : index) {
    i = teams.size();
    teams.emplace_back();
    teams.back().team = name;
  }
  if (teams.empty()) return teams;
  std::vector<std::vector<double>> waits(teams.size()), jcts(teams.size());
  // By job id (/preemptions names jobs by id).
  std::int64_t max_id = -1;
  for (const JobRecord& j : trace.jobs) max_id = std::max(max_id, j.job_id);
  std::vector<int> team_of_job(static_cast<std::size_t>(max_id + 1), -1);
  double held_all = 0;
  for (std::size_t k = 0; k < trace.jobs.size(); ++k) {
    const JobRecord& j = trace.jobs[k];
    held_all += j.resilience.gpu_s_held / 3600.0;
    if (j.resilience.team.empty()) continue;
    const std::size_t i = index.at(j.resilience.team);
    if (j.job_id >= 0) team_of_job[static_cast<std::size_t>(j.job_id)] = static_cast<int>(i);
    TeamMetrics& t = teams[i];
    ++t.jobs;
    t.gpu_hours_held += j.resilience.gpu_s_held / 3600.0;
    if (std::isfinite(j.start_s)) waits[i].push_back(j.start_s - j.submit_s);
    if (j.status == JobStatus::Completed && std::isfinite(j.end_s)) {
      ++t.completed;
      jcts[i].push_back(j.end_s - j.submit_s);
    }
  }
  for (const PreemptionRecord& p : trace.preemptions)
    if (p.job >= 0 && static_cast<std::size_t>(p.job) < team_of_job.size() && team_of_job[static_cast<std::size_t>(p.job)] >= 0)
      ++teams[static_cast<std::size_t>(team_of_job[static_cast<std::size_t>(p.job)])].preemptions;
  for (std::size_t i = 0; i < teams.size(); ++i) {
    teams[i].gpu_hours_share = held_all > 0 ? teams[i].gpu_hours_held / held_all : 0;
    teams[i].wait_s = summarize(waits[i]);
    teams[i].jct_s = summarize(jcts[i]);
  }
  return teams;
}

bool has_committed_pools(const std::vector<PoolMetrics>& pools) {
  return std::any_of(pools.begin(), pools.end(), [](const PoolMetrics& p) { return p.market == "owned" || p.market == "reserved"; });
}

std::vector<PoolMetrics> pool_metrics(const TraceData& trace) {
  std::vector<PoolMetrics> out;
  for (const PoolRecord& p : trace.pools) {
    PoolMetrics pm;
    pm.name = p.name;
    pm.market = p.market;
    for (const NodeRecord& n : trace.nodes) {
      if (n.node_type != p.name) continue;
      pm.gpus += n.gpus;
      pm.gpu_hours_up += n.up_time_s * n.gpus / 3600.0;
      pm.gpu_hours_busy += n.busy_gpu_s / 3600.0;
      pm.cost_usd += n.cost_usd;
    }
    if (pm.gpu_hours_up > 0) pm.utilization = pm.gpu_hours_busy / pm.gpu_hours_up;
    if (pm.gpu_hours_busy > 0) pm.cost_per_busy_gpu_hour_usd = pm.cost_usd / pm.gpu_hours_busy;
    if (p.market == "owned" && std::isfinite(p.compare_usd_per_gpu_hour)) {
      pm.compare_to = p.compare_to;
      pm.compare_usd_per_gpu_hour = p.compare_usd_per_gpu_hour;
      // u* = (F + E_idle) / (gpus c - (E_busy - E_idle)) per node (docs/pricing.md).
      const double denom = p.gpus_per_node * p.compare_usd_per_gpu_hour - (p.energy_busy_usd_per_hour - p.energy_idle_usd_per_hour);
      pm.break_even_utilization = denom > 0 ? (p.fixed_usd_per_hour + p.energy_idle_usd_per_hour) / denom
                                            : std::numeric_limits<double>::infinity();
    }
    if (p.market == "reserved") {
      pm.term_s = p.term_s;
      pm.commitment_usd = p.commitment_usd;
      if (std::isfinite(p.compare_usd_per_gpu_hour) && p.compare_usd_per_gpu_hour > 0) {
        // Reserved r per node-hour, always; on demand c per GPU-hour, only when used:
        // u* = r / (gpus c) (1 y at $19.22/h vs $32.77/h: 58.7%, 5,138 h a year).
        pm.compare_to = p.compare_to;
        pm.compare_usd_per_gpu_hour = p.compare_usd_per_gpu_hour;
        pm.break_even_utilization = p.fixed_usd_per_hour / (p.gpus_per_node * p.compare_usd_per_gpu_hour);
      }
    }
    out.push_back(std::move(pm));
  }
  return out;
}

std::vector<TeamBudget> team_budgets(const TraceData& trace) {
  std::map<std::string, TeamBudget> by_team;
  for (const BudgetEventRecord& e : trace.budget_events) {
    TeamBudget& t = by_team[e.team];
    t.team = e.team;
    t.alerts += e.kind == "alert";
    if (e.kind == "limit_reached") {
      ++t.limits_reached;
      if (!(t.first_limit_s <= e.time_s)) t.first_limit_s = e.time_s;  // NaN compares false
    }
    if (std::isfinite(e.limit_usd) && e.limit_usd > 0) t.limit_usd = e.limit_usd;
    if (std::isfinite(e.spent_usd) && !(t.max_spent_usd >= e.spent_usd)) t.max_spent_usd = e.spent_usd;
    if (!e.action.empty()) t.action = e.action;
  }
  std::vector<TeamBudget> out;
  out.reserve(by_team.size());
  for (auto& [name, t] : by_team) out.push_back(std::move(t));
  return out;
}

double checkpoint_overhead_share(const Metrics& m) {
  return m.gpu_hours_held > 0 ? m.gpu_hours_checkpoint / m.gpu_hours_held : NOT_A_NUMBER;
}

}  // namespace gcsim::analysis
