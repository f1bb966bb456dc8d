// Metrics of one run from its trace (definitions in docs/analysis.md). One pass over the
// jobs plus one sort per distribution: fine for million-job traces.
#include "analysis/metrics.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>

#include "sim/check.hpp"
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

namespace {

// Sorts ascending, as std::sort does, in a few linear passes: a least-significant-digit
// radix sort on the doubles' bits, mapped so that unsigned order is numeric order (sign
// bit set: all bits flipped; else the sign bit set). Digits that every key shares (the
// exponent's top bits, mostly) are skipped. About 5 times std::sort's speed on a million
// waits, which mattered: analyze sorts four such samples (all jobs' and each team's).
// A NaN has no place in that order (std::sort's is unspecified): such a sample goes to
// std::sort. Equal values are equal bits, so the result is std::sort's bit for bit (but
// for -0 and 0, which it orders -0 first and std::sort either way).
void sort_doubles(std::vector<double>& values) {
  constexpr std::size_t SMALL = 256;  // below this, std::sort is as fast
  if (values.size() < SMALL || std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); })) {
    std::sort(values.begin(), values.end());
    return;
  }
  constexpr int DIGIT_BITS = 11;
  constexpr int DIGITS = (64 + DIGIT_BITS - 1) / DIGIT_BITS;
  constexpr std::size_t BUCKETS = std::size_t{1} << DIGIT_BITS;
  const std::size_t n = values.size();
  // Every key is written before it is read: no zeroing pass (a tenth of a million-job
  // summary's figures was the two buffers' memset).
  auto keys = std::make_unique_for_overwrite<std::uint64_t[]>(n);
  auto other = std::make_unique_for_overwrite<std::uint64_t[]>(n);
  std::vector<std::array<std::size_t, BUCKETS>> counts(DIGITS);
  for (auto& c : counts) c.fill(0);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t bits;
    std::memcpy(&bits, &values[i], sizeof bits);
    bits = (bits >> 63) != 0 ? ~bits : bits | (std::uint64_t{1} << 63);
    keys[i] = bits;
    for (int d = 0; d < DIGITS; ++d) ++counts[static_cast<std::size_t>(d)][(bits >> (d * DIGIT_BITS)) & (BUCKETS - 1)];
  }
  for (int d = 0; d < DIGITS; ++d) {
    std::array<std::size_t, BUCKETS>& count = counts[static_cast<std::size_t>(d)];
    const std::uint64_t shift = static_cast<std::uint64_t>(d * DIGIT_BITS);
    if (std::any_of(count.begin(), count.end(), [n](std::size_t c) { return c == n; })) continue;  // one digit: in order
    std::size_t offset = 0;
    for (std::size_t& c : count) offset += std::exchange(c, offset);
    for (std::size_t i = 0; i < n; ++i) other[count[(keys[i] >> shift) & (BUCKETS - 1)]++] = keys[i];
    keys.swap(other);
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t bits = keys[i];
    bits = (bits >> 63) != 0 ? bits & ~(std::uint64_t{1} << 63) : ~bits;
    std::memcpy(&values[i], &bits, sizeof bits);
  }
}

}  // namespace

Distribution summarize(std::vector<double>& values) {
  Distribution d;
  d.count = values.size();
  if (values.empty()) return d;
  sort_doubles(values);
  double sum = 0;
  for (double v : values) sum += v;
  d.mean = sum / static_cast<double>(values.size());
  d.p50 = percentile_sorted(values, 50);
  d.p95 = percentile_sorted(values, 95);
  d.p99 = percentile_sorted(values, 99);
  d.max = values.back();
  return d;
}

void StepIntegrals::add_step(double time_s, double allocated_gpus, std::int32_t total_gpus, double to_s) {
  const double from = std::max(time_s, 0.0);
  if (!(to_s > from)) return;
  allocated_gpu_s += allocated_gpus * (to_s - from);
  total_gpu_s += static_cast<double>(total_gpus) * (to_s - from);
  if (std::isnan(peak_at_s) || allocated_gpus > peak_allocated_gpus) {
    peak_allocated_gpus = allocated_gpus;
    peak_at_s = from;
  }
}

namespace {
[[noreturn]] void throw_out_of_order(std::size_t row, double time_s) {
  throw Error("utilization rows out of time order at row " + std::to_string(row) + " (t = " + std::to_string(time_s) +
              " s)");
}
}  // namespace

StepIntegrals integrate_utilization(const std::vector<UtilizationSample>& samples, double end_s) {
  StepIntegrals out;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (i > 0 && samples[i].time_s < samples[i - 1].time_s) throw_out_of_order(i, samples[i].time_s);
    const double to = std::min(i + 1 < samples.size() ? samples[i + 1].time_s : end_s, end_s);
    out.add_step(samples[i].time_s, samples[i].allocated_gpus, samples[i].total_gpus, to);
  }
  return out;
}

void UtilizationFold::add(double time_s, double allocated_gpus, std::int32_t total_gpus) {
  if (rows_ > 0) {
    if (time_s < last_time_s_) throw_out_of_order(rows_, time_s);
    closed_.add_step(last_time_s_, last_allocated_, last_total_, std::min(time_s, clip_s_));
  }
  last_time_s_ = time_s;
  last_allocated_ = allocated_gpus;
  last_total_ = total_gpus;
  ++rows_;
}

StepIntegrals UtilizationFold::integrals(double end_s) const {
  StepIntegrals out = closed_;
  if (rows_ == 0) return out;
  // Every step but the last was closed at the next row's time: integrate_utilization's
  // min(next, end_s) is that time only if it is not past end_s (rows are in time order, so
  // the last row's time is the latest).
  if (rows_ > 1 && std::min(last_time_s_, clip_s_) > end_s)
    throw InternalError("utilization rows folded past the end of the run (row at " + std::to_string(last_time_s_) +
                        " s, end " + std::to_string(end_s) + " s)");
  out.add_step(last_time_s_, last_allocated_, last_total_, end_s);
  return out;
}

std::size_t LedgerTotals::category_index(std::string_view category) {
  // The few categories in a short list, found by name from the last one matched.
  if (last_ >= by_category.size() || by_category[last_].name != category) {
    last_ = 0;
    while (last_ < by_category.size() && by_category[last_].name != category) ++last_;
    if (last_ == by_category.size()) by_category.push_back({std::string(category), is_storage_category(category), 0.0});
  }
  return last_;
}

void LedgerTotals::add_at(std::size_t k, double usd, bool busy) {
  ++rows;
  total_usd += usd;
  if (busy) busy_usd += usd;
  if (by_category[k].storage) storage_usd += usd;
  by_category[k].usd += usd;
}

void PreemptionTotals::add(std::int64_t job, double save_gpu_s, double restore_gpu_s, double lost_gpu_s) {
  ++rows;
  save_gpu_h += save_gpu_s / 3600.0;
  restore_gpu_h += restore_gpu_s / 3600.0;
  lost_gpu_h += lost_gpu_s / 3600.0;
  if (job < 0) return;
  const auto id = static_cast<std::size_t>(job);
  if (id >= by_job.size()) by_job.resize(std::max(id + 1, 2 * by_job.size()), 0);
  ++by_job[id];
}

LedgerTotals ledger_totals(const std::vector<ChargeRecord>& ledger) {
  LedgerTotals t;
  for (const ChargeRecord& c : ledger) t.add(c.category, c.usd, c.busy);
  return t;
}

PreemptionTotals preemption_totals(const std::vector<PreemptionRecord>& preemptions) {
  PreemptionTotals t;
  for (const PreemptionRecord& p : preemptions) t.add(p.job, p.save_gpu_s, p.restore_gpu_s, p.lost_gpu_s);
  return t;
}

namespace {
std::vector<TeamMetrics> team_metrics(const TraceData& trace, const PreemptionTotals& preempted, const Metrics* all);
}  // namespace

Metrics compute_metrics(const TraceData& trace) {
  Metrics m;
  m.end_s = trace.attrs.end_s;

  // Every charge is in the ledger (node bills and charges of no node, such as storage);
  // traces without one (schema 1) have only node bills. The sums come from the rows, or from
  // the run's fold of them (TraceData::ledger_totals): the same arithmetic in the same order.
  const LedgerTotals ledger = trace.ledger_totals ? *trace.ledger_totals : ledger_totals(trace.ledger);
  if (ledger.rows > 0) {
    m.total_cost_usd = ledger.total_usd;
    m.busy_cost_usd = ledger.busy_usd;
    m.storage_cost_usd = ledger.storage_usd;
  } else {
    for (const NodeRecord& n : trace.nodes) m.total_cost_usd += n.cost_usd;
    for (const JobRecord& j : trace.jobs) m.busy_cost_usd += j.cost_usd;
  }

  // One pass over the jobs for every figure (each sum still in job order, so the same
  // numbers as one loop per figure); a pass over a million records costs as much as the
  // arithmetic of all of them.
  std::vector<double> waits;
  std::vector<double> jcts;
  waits.reserve(trace.jobs.size());
  jcts.reserve(trace.jobs.size());
  double first_submit_s = std::numeric_limits<double>::infinity();
  double last_end_s = -std::numeric_limits<double>::infinity();
  // The share of a job's GPU-time in which its kernels run (1 for jobs without a model).
  const auto compute_fraction = [](const JobRecord& j) {
    const ModelRecord& r = j.model;
    return std::isfinite(r.compute_s) && r.step_time_s > 0 ? std::clamp(r.compute_s / r.step_time_s, 0.0, 1.0) : 1.0;
  };
  double busy_gpu_s = 0, useful_gpu_s = 0, progress_gpu_s = 0;
  std::map<std::string, double> by_bottleneck;
  double exposed_h = 0, input_h = 0, breakdown_h = 0;
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
    const ResilienceRecord& r = j.resilience;
    m.interruptions += r.interruptions;
    m.gpu_hours_held += r.gpu_s_held / 3600.0;
    if (j.gpu_milli < 1000) {
      ++m.jobs_sharing_gpu;
      m.share_gpu_hours_held += r.gpu_s_held / 3600.0;
    }
    m.gpu_hours_lost += r.gpu_s_lost / 3600.0;
    m.gpu_hours_checkpoint += r.gpu_s_checkpoint / 3600.0;
    m.gpu_hours_restart += r.gpu_s_restart / 3600.0;
    if (std::isfinite(j.start_s)) waits.push_back(j.start_s - j.submit_s);
    if (j.status == JobStatus::Completed && std::isfinite(j.end_s)) {
      jcts.push_back(j.end_s - j.submit_s);
      last_end_s = std::max(last_end_s, j.end_s);
    }

    const double f = compute_fraction(j);
    // Lost work ran its kernels too (it is redone); checkpoint writes and restores are pauses.
    const double running = std::max(0.0, r.gpu_s_held - r.gpu_s_checkpoint - r.gpu_s_restart);
    const double kept = std::max(0.0, running - r.gpu_s_lost);
    busy_gpu_s += f * running;
    useful_gpu_s += f * kept;
    progress_gpu_s += kept;

    if (!std::isfinite(j.model.samples)) continue;
    m.samples_total += j.model.samples;
    if (!std::isfinite(j.start_s)) continue;
    const double until = j.status == JobStatus::Completed ? j.end_s : m.end_s;
    const double gpu_h = j.gpu_share_held() * (until - j.start_s) / 3600.0;
    m.model_gpu_hours += gpu_h;
    by_bottleneck[j.model.bottleneck.empty() ? "unknown" : j.model.bottleneck] += gpu_h;
    const ModelRecord& mr = j.model;
    if (std::isfinite(mr.comm_exposed_s) && std::isfinite(mr.compute_s) && mr.step_time_s > 0) {
      // The GPU's own time: compute + exposed communication (the bubble and tensor-parallel
      // traffic are inside comm_exposed_s or negligible here); what the input adds beyond it
      // is waiting for data.
      const double gpu_s = mr.compute_s + mr.comm_exposed_s;
      exposed_h += gpu_h * std::min(1.0, mr.comm_exposed_s / mr.step_time_s);
      input_h += gpu_h * std::clamp((mr.input_s - gpu_s) / mr.step_time_s, 0.0, 1.0);
      breakdown_h += gpu_h;
    }
  }
  // Jobs after the horizon are counted, not listed (schema 6): older traces list them.
  m.jobs_submitted_after_horizon += trace.attrs.jobs_after_horizon;
  m.jobs_total = static_cast<std::int64_t>(trace.jobs.size()) + trace.attrs.jobs_after_horizon;
  const PreemptionTotals preempted = trace.preemption_totals ? *trace.preemption_totals : preemption_totals(trace.preemptions);
  m.preemptions = preempted.rows;
  m.gpu_hours_preempt_save = preempted.save_gpu_h;
  m.gpu_hours_preempt_restore = preempted.restore_gpu_h;
  m.gpu_hours_preempt_lost = preempted.lost_gpu_h;
  m.idle_cost_usd = m.total_cost_usd - m.busy_cost_usd - m.storage_cost_usd;
  if (m.jobs_completed > 0) m.cost_per_completed_job_usd = m.total_cost_usd / static_cast<double>(m.jobs_completed);
  m.makespan_s = jcts.empty() ? 0.0 : last_end_s - first_submit_s;
  if (!jcts.empty()) m.last_completion_s = last_end_s;

  const StepIntegrals gpu_s = trace.utilization_fold ? trace.utilization_fold->integrals(m.end_s)
                                                    : integrate_utilization(trace.utilization, m.end_s);
  m.gpu_hours_delivered = gpu_s.allocated_gpu_s / 3600.0;
  m.gpu_hours_provisioned = gpu_s.total_gpu_s / 3600.0;
  if (m.gpu_hours_delivered > 0) m.cost_per_gpu_hour_usd = m.total_cost_usd / m.gpu_hours_delivered;
  if (gpu_s.total_gpu_s > 0) m.gpu_utilization = gpu_s.allocated_gpu_s / gpu_s.total_gpu_s;
  if (m.end_s > 0) m.mean_allocated_gpus = gpu_s.allocated_gpu_s / m.end_s;
  m.peak_allocated_gpus = gpu_s.peak_allocated_gpus;
  m.peak_allocated_at_s = gpu_s.peak_at_s;
  m.gpu_hours_busy = busy_gpu_s / 3600.0;
  if (gpu_s.total_gpu_s > 0) m.gpu_busy_share = busy_gpu_s / gpu_s.total_gpu_s;

  if (breakdown_h > 0) {
    m.comm_exposed_share = exposed_h / breakdown_h;
    m.input_wait_share = input_h / breakdown_h;
  }
  if (m.model_gpu_hours > 0) m.goodput_samples_per_gpu_hour = m.samples_total / m.model_gpu_hours;
  m.bottleneck_gpu_hours.assign(by_bottleneck.begin(), by_bottleneck.end());

  m.gpu_hours_useful = useful_gpu_s / 3600.0;
  m.gpu_hours_waiting = (progress_gpu_s - useful_gpu_s) / 3600.0;
  if (m.gpu_hours_useful > 0) m.cost_per_useful_gpu_hour_usd = m.total_cost_usd / m.gpu_hours_useful;

  for (std::string_view name : CATEGORY_REPORT_ORDER)
    for (const LedgerTotals::Category& c : ledger.by_category)
      if (c.name == name) m.cost_by_category_usd.emplace_back(name, c.usd);

  m.pools = pool_metrics(trace);
  for (const BudgetEventRecord& e : trace.budget_events) {
    m.budget_alerts += e.kind == "alert";
    m.budget_limits_reached += e.kind == "limit_reached";
  }

  m.wait_s = summarize(waits);
  m.jct_s = summarize(jcts);
  m.teams = team_metrics(trace, preempted, &m);
  return m;
}

DominantBottleneck dominant_bottleneck(const Metrics& m) {
  if (!(m.model_gpu_hours > 0)) return {};
  for (const auto& [name, hours] : m.bottleneck_gpu_hours)
    if (hours > 0.5 * m.model_gpu_hours) return {name, hours / m.model_gpu_hours};
  return {};
}

namespace {

// Per team; `all`, when given, is the waits and JCTs of every job (Metrics::wait_s,
// jct_s): a team that every job names has the same samples, so they are not sorted again.
std::vector<TeamMetrics> team_metrics(const TraceData& trace, const PreemptionTotals& preempted, const Metrics* all) {
  // One pass over the jobs for the counts and sums, and one for the samples of the teams
  // that need them. Teams are numbered as they first appear, found by name from the last
  // one matched (jobs come in runs of one team) and otherwise in a map; their figures are
  // put in name order at the end. Each sum is still in job order.
  std::vector<TeamMetrics> found;
  std::map<std::string_view, std::size_t> index;
  // By job id (/preemptions names jobs by id) and by row.
  std::int64_t max_id = -1;
  for (const JobRecord& j : trace.jobs) max_id = std::max(max_id, j.job_id);
  std::vector<int> team_of_job(static_cast<std::size_t>(max_id + 1), -1);
  std::vector<int> team_of_row(trace.jobs.size(), -1);
  double held_all = 0;
  std::size_t last = 0;
  for (std::size_t k = 0; k < trace.jobs.size(); ++k) {
    const JobRecord& j = trace.jobs[k];
    held_all += j.resilience.gpu_s_held / 3600.0;
    const std::string& team = j.resilience.team;
    if (team.empty()) continue;
    if (last >= found.size() || found[last].team != team) {
      const auto [it, added] = index.try_emplace(team, found.size());
      if (added) found.emplace_back().team = team;
      last = it->second;
    }
    const std::size_t i = last;
    team_of_row[k] = static_cast<int>(i);
    if (j.job_id >= 0) team_of_job[static_cast<std::size_t>(j.job_id)] = static_cast<int>(i);
    TeamMetrics& t = found[i];
    ++t.jobs;
    t.gpu_hours_held += j.resilience.gpu_s_held / 3600.0;
    if (j.status == JobStatus::Completed && std::isfinite(j.end_s)) ++t.completed;
  }
  for (std::size_t id = 0; id < preempted.by_job.size() && id < team_of_job.size(); ++id)
    if (team_of_job[id] >= 0) found[static_cast<std::size_t>(team_of_job[id])].preemptions += preempted.by_job[id];

  // A team every job names has the run's samples (in the same order): already summarized.
  const auto has_every_job = [&](const TeamMetrics& t) {
    return all != nullptr && t.jobs == static_cast<std::int64_t>(trace.jobs.size());
  };
  std::vector<std::vector<double>> waits(found.size()), jcts(found.size());
  if (!std::all_of(found.begin(), found.end(), has_every_job)) {
    for (std::size_t i = 0; i < found.size(); ++i) {
      waits[i].reserve(static_cast<std::size_t>(found[i].jobs));
      jcts[i].reserve(static_cast<std::size_t>(found[i].completed));
    }
    for (std::size_t k = 0; k < trace.jobs.size(); ++k) {
      if (team_of_row[k] < 0) continue;
      const JobRecord& j = trace.jobs[k];
      const auto i = static_cast<std::size_t>(team_of_row[k]);
      if (std::isfinite(j.start_s)) waits[i].push_back(j.start_s - j.submit_s);
      if (j.status == JobStatus::Completed && std::isfinite(j.end_s)) jcts[i].push_back(j.end_s - j.submit_s);
    }
  }
  std::vector<TeamMetrics> teams;
  teams.reserve(found.size());
  for (const auto& [name, i] : index) {  // by name
    TeamMetrics& t = teams.emplace_back(std::move(found[i]));
    t.gpu_hours_share = held_all > 0 ? t.gpu_hours_held / held_all : 0;
    if (has_every_job(t)) {
      t.wait_s = all->wait_s;
      t.jct_s = all->jct_s;
    } else {
      t.wait_s = summarize(waits[i]);
      t.jct_s = summarize(jcts[i]);
    }
  }
  return teams;
}

}  // namespace

std::vector<TeamMetrics> team_metrics(const TraceData& trace) {
  return team_metrics(trace, trace.preemption_totals ? *trace.preemption_totals : preemption_totals(trace.preemptions), nullptr);
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
