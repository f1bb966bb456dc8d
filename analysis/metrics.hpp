// Summary metrics of one run, computed from a TraceData: cost split, GPU-hours,
// utilization, waiting and completion-time distributions, job counts. Definitions and
// formulas are in docs/analysis.md; every quantity is in USD, seconds or hours as its
// name says. Undefined quantities (no completed job, no GPU-hour) are NaN.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/trace_data.hpp"

namespace gcsim::analysis {

inline constexpr double NOT_A_NUMBER = std::numeric_limits<double>::quiet_NaN();

// The order reports list the ledger's categories in: compute, then capacity paid whether
// used or not, then storage. Not the trace's value order (trace::schema::LEDGER_CATEGORIES).
inline constexpr std::array<std::string_view, 7> CATEGORY_REPORT_ORDER = {
    "compute_busy", "compute_idle", "reserved", "ownership", "storage", "egress", "requests"};
static_assert(std::is_permutation(CATEGORY_REPORT_ORDER.begin(), CATEGORY_REPORT_ORDER.end(),
                                  trace::schema::LEDGER_CATEGORIES.begin(), trace::schema::LEDGER_CATEGORIES.end()),
              "every ledger category has a place in reports");
// The ledger categories the storage model posts (stored data, transfers, requests): the
// run summary's storage_cost_usd and Metrics::storage_cost_usd.
inline constexpr std::array<std::string_view, 3> STORAGE_CATEGORIES = {"storage", "egress", "requests"};
inline bool is_storage_category(std::string_view category) {
  return std::find(STORAGE_CATEGORIES.begin(), STORAGE_CATEGORIES.end(), category) != STORAGE_CATEGORIES.end();
}

// Mean and percentiles of a sample; NaN when the sample is empty.
struct Distribution {
  std::size_t count = 0;
  double mean = NOT_A_NUMBER;
  double p50 = NOT_A_NUMBER;
  double p95 = NOT_A_NUMBER;
  double p99 = NOT_A_NUMBER;
  double max = NOT_A_NUMBER;
};

// One team's jobs over the run (docs/analysis.md, "Teams"): every job that names it.
struct TeamMetrics {
  std::string team;
  std::int64_t jobs = 0;
  std::int64_t completed = 0;
  double gpu_hours_held = 0;       // Σ its jobs' gpu_s_held / 3600
  double gpu_hours_share = 0;      // gpu_hours_held / every job's (0 when none held any)
  std::int64_t preemptions = 0;    // rows of /preemptions of its jobs
  Distribution wait_s;             // its started jobs
  Distribution jct_s;              // its completed jobs
};

// One node pool (node type) over the run.
struct PoolMetrics {
  std::string name;
  std::string market;
  std::int32_t gpus = 0;              // GPUs in the pool (all nodes)
  double gpu_hours_up = 0;            // GPUs x time up (rented nodes: billed time)
  double gpu_hours_busy = 0;          // GPUs x time held by jobs
  double cost_usd = 0;
  double utilization = NOT_A_NUMBER;  // busy / up
  double cost_per_busy_gpu_hour_usd = NOT_A_NUMBER;
  // Owned and reserved pools: the break-even utilization against renting on demand (the
  // named alternative, or a reserved pool's own on-demand price; docs/pricing.md): paying
  // whether used or not is cheaper per delivered GPU-hour above it.
  std::string compare_to;
  double compare_usd_per_gpu_hour = NOT_A_NUMBER;
  double break_even_utilization = NOT_A_NUMBER;
  // Reserved pools: the commitment's term and every term overlapping the horizon, whole
  // (cost_usd is the horizon's share of it).
  double term_s = NOT_A_NUMBER;
  double commitment_usd = NOT_A_NUMBER;
};

// Whether any pool is paid for whether used or not (owned or reserved): billed to the
// horizon even when the run ends with its last job (docs/pricing.md).
bool has_committed_pools(const std::vector<PoolMetrics>& pools);

struct Metrics {
  double end_s = 0;  // integration window is [0, end_s]

  double total_cost_usd = 0;              // sum of /ledger (schema 1: of node cost_usd)
  // total = busy + idle + storage, one meaning each, the same as the run summary's:
  double busy_cost_usd = 0;     // capacity jobs held: the ledger's busy charges (schema 1: sum of job cost_usd)
  double idle_cost_usd = 0;     // capacity nobody held: total - busy - storage
  double storage_cost_usd = 0;  // stored data, transfers and requests (the ledger's storage, egress, requests)
  double cost_per_completed_job_usd = NOT_A_NUMBER;  // total / jobs_completed
  double gpu_hours_delivered = 0;         // integral of allocated GPUs over [0, end_s], in hours
  double gpu_hours_provisioned = 0;       // integral of total GPUs over [0, end_s], in hours
  double cost_per_gpu_hour_usd = NOT_A_NUMBER;     // total / gpu_hours_delivered
  double gpu_utilization = NOT_A_NUMBER;           // allocated share: delivered / provisioned, 0..1
  // GPUs held by jobs (shares counted: gpus x gpu_milli / 1000), time-weighted over
  // [0, end_s] (delivered GPU-seconds / end_s), and the most held at once (the largest
  // /utilization value that holds for some time in [0, end_s]) with when it first did.
  double mean_allocated_gpus = 0;
  double peak_allocated_gpus = 0;
  double peak_allocated_at_s = NOT_A_NUMBER;
  // Busy share: GPU-time a kernel runs (as nvidia-smi's utilization shows it) / provisioned.
  // A model job's GPUs compute compute_s of each step_time_s: input waits and exposed
  // communication lower it; other jobs count as computing all the time they hold GPUs.
  double gpu_hours_busy = 0;
  double gpu_busy_share = NOT_A_NUMBER;

  Distribution wait_s;  // start - submit, over started jobs (completed and running)
  Distribution jct_s;   // end - submit, over completed jobs
  double makespan_s = 0;  // last completion - first submission; 0 if nothing completed
  double last_completion_s = NOT_A_NUMBER;  // when the last completed job ended; NaN if none did

  std::int64_t jobs_total = 0;
  std::int64_t jobs_completed = 0;
  std::int64_t jobs_running = 0;
  std::int64_t jobs_never_started = 0;  // submitted by the horizon, never started
  // Status never_started with submit_s after the horizon: the run ended before they came
  // (generated arrivals), so they neither waited nor starved (docs/analysis.md).
  std::int64_t jobs_submitted_after_horizon = 0;
  // Jobs that ask for a share of one GPU (gpu_milli < 1000) and the GPU-hours they held
  // (shares counted as shares: part of gpu_hours_held).
  std::int64_t jobs_sharing_gpu = 0;
  double share_gpu_hours_held = 0;
  // Model-described jobs (docs/step-time.md): useful samples and where their GPU time went.
  double samples_total = 0;                 // samples processed by model-described jobs
  double model_gpu_hours = 0;               // GPU-hours those jobs held
  double goodput_samples_per_gpu_hour = NOT_A_NUMBER;  // samples_total / model_gpu_hours
  std::vector<std::pair<std::string, double>> bottleneck_gpu_hours;  // by bottleneck name, sorted
  // Shares of their step time, weighted by GPU-hours held (traces with the breakdown only):
  double comm_exposed_share = NOT_A_NUMBER;  // exposed gradient all-reduce / step time
  double input_wait_share = NOT_A_NUMBER;    // max(0, input - GPU time) / step time: GPUs waiting for data

  // Interruptions and checkpoints (docs/checkpoints.md). GPU-hours of all jobs' runs.
  std::int64_t jobs_interrupted = 0;  // interrupted and not running at the end
  std::int64_t interruptions = 0;     // runs that ended without finishing
  double gpu_hours_held = 0;
  double gpu_hours_lost = 0;          // work redone
  double gpu_hours_checkpoint = 0;    // paused writing checkpoints
  double gpu_hours_restart = 0;       // restoring, pulling images
  // Work kept, in the job's own units: the GPU-time the kept work takes at the job's
  // compute-bound speed (model jobs: (held - lost - checkpoint - restart) x compute_s /
  // step_time_s; other jobs: that GPU-time itself). Slower storage does not make it grow.
  double gpu_hours_useful = 0;
  double gpu_hours_waiting = 0;       // held - lost - checkpoint - restart - useful: input and communication waits
  double cost_per_useful_gpu_hour_usd = NOT_A_NUMBER;  // total / useful
  // Preemptions by the scheduling policy (/preemptions; docs/analysis.md). Their GPU-hours
  // are parts of the checkpoint, restart and lost GPU-hours above, not added to them.
  std::int64_t preemptions = 0;
  double gpu_hours_preempt_save = 0;     // held, making no progress, saving before the stop
  double gpu_hours_preempt_restore = 0;  // held, making no progress, restoring after the restart
  double gpu_hours_preempt_lost = 0;     // work the preemptions lost (redone)
  // The ledger by category, in CATEGORY_REPORT_ORDER; categories without a charge are left
  // out, and the whole is empty for traces without a ledger.
  std::vector<std::pair<std::string, double>> cost_by_category_usd;
  std::vector<PoolMetrics> pools;
  std::int64_t budget_alerts = 0;
  std::int64_t budget_limits_reached = 0;
  // Per team named by a job, sorted by name; empty when no job names one. Jobs without a
  // team are left out.
  std::vector<TeamMetrics> teams;
};

// One team's budget over the run, from /budget_events (docs/checkpoints.md, Budgets).
struct TeamBudget {
  std::string team;
  std::int64_t alerts = 0;
  std::int64_t limits_reached = 0;
  double limit_usd = NOT_A_NUMBER;       // the limit named by its latest event
  double max_spent_usd = NOT_A_NUMBER;   // the largest spend any event recorded
  double first_limit_s = NOT_A_NUMBER;   // when a limit was first reached
  std::string action;                    // what the limit does (alert, stop_new, stop_running, stop_instances)
};

// The bottleneck that bounds most (over half) of the model-described jobs' GPU-hours, from
// Metrics::bottleneck_gpu_hours, with its share of them; an empty name when none does (or
// there are no such jobs). The run summary names it; the report lists every bottleneck.
struct DominantBottleneck {
  std::string name;
  double share = NOT_A_NUMBER;
};
DominantBottleneck dominant_bottleneck(const Metrics& metrics);

// Throws gcsim::Error if the utilization rows are not in time order.
Metrics compute_metrics(const TraceData& trace);
// Per pool, from /pools and /nodes (empty for traces without /pools).
std::vector<PoolMetrics> pool_metrics(const TraceData& trace);

// The sums of a ledger's or a preemption table's rows, in row order (TraceData::ledger_totals).
LedgerTotals ledger_totals(const std::vector<ChargeRecord>& ledger);
PreemptionTotals preemption_totals(const std::vector<PreemptionRecord>& preemptions);

// Per team named by a job, sorted by team name (Metrics::teams).
std::vector<TeamMetrics> team_metrics(const TraceData& trace);

// Per team with any budget event, sorted by team name (empty without /budget_events).
std::vector<TeamBudget> team_budgets(const TraceData& trace);
// gpu_hours_checkpoint / gpu_hours_held: the share of held GPU-time spent paused writing
// checkpoints; NaN when nothing was held.
double checkpoint_overhead_share(const Metrics& metrics);

// The p-th percentile (p in [0, 100]) of an ascending sample by linear interpolation
// between order statistics: rank h = (n - 1) p / 100, x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]),
// which is numpy.percentile's default ("linear"). NaN for an empty sample.
double percentile_sorted(std::span<const double> sorted, double p);

// Sorts `values` in place and summarizes them.
Distribution summarize(std::vector<double>& values);

// Integral over [0, end_s] of /utilization's step function (StepIntegrals, in
// trace_data.hpp), rows in time order. Used for GPU-seconds; public for tests and plots.
StepIntegrals integrate_utilization(const std::vector<UtilizationSample>& samples, double end_s);

}  // namespace gcsim::analysis
