// Discretized two-dimensional least attained service (see las.hpp).
#include "models/scheduler/las.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/core/limits.hpp"

namespace gcsim::models {

namespace {
constexpr double ID_SPAN = 4294967296.0;  // job ids are below 2^32
// Seconds of simulated time are below 2^63 ns, about 9.2e9 s: a queue's waiting keys lie
// in [queue x TIME_SPAN, (queue + 1) x TIME_SPAN).
constexpr double TIME_SPAN = 1e10;
}  // namespace

namespace {
// The default thresholds of `queues` queues: 1, 10, 100, ... GPU-hours.
std::vector<double> default_thresholds(int queues) {
  std::vector<double> t;
  for (int k = 0; k + 1 < queues; ++k) t.push_back(3600.0 * std::pow(10.0, k));
  return t;
}
}  // namespace

LasScheduler::LasScheduler(std::unique_ptr<PlacementStrategy> placement, const LasParams& params)
    : OrderedScheduler(std::move(placement), params), params_las_(params) {
  if (params_las_.thresholds_gpu_s.size() + 1 != static_cast<std::size_t>(params_las_.queues))
    params_las_.thresholds_gpu_s = default_thresholds(params_las_.queues);
}

LasScheduler::State& LasScheduler::state(std::uint32_t job) {
  if (job >= states_.size()) states_.resize(std::max<std::size_t>(job + 1, states_.size() * 2));
  return states_[job];
}

int LasScheduler::queue_of(double gpu_s) const {
  const auto& t = params_las_.thresholds_gpu_s;
  return static_cast<int>(std::upper_bound(t.begin(), t.end(), gpu_s) - t.begin());
}

double LasScheduler::wait_key(const State& s) const {
  // A promoted job joins the first queue behind the jobs already there (a job entering a
  // queue goes to its tail, as in any multi-level feedback queue): by its submission it
  // would go ahead of every job submitted after it, and under overload the same promoted
  // jobs would hold the head of the first queue while jobs that never ran wait behind them.
  // Keys by submission keep the id order (ids are in submit order; ties go by id).
  return s.queue * TIME_SPAN + (s.queue == 0 && s.promoted_s >= 0 ? s.promoted_s : s.submit_s);
}

double LasScheduler::order_key(const QueuedJob& job) const {
  // Called from job_waiting, after the job's state was set.
  return wait_key(states_[job.job]);
}

void LasScheduler::job_waiting(const QueuedJob& job) {
  State& s = state(job.job);
  s.gpus = job.gpus;
  s.milli = static_cast<std::uint16_t>(job.gpu_milli);
  s.attained_gpu_s = job.attained_gpu_s;
  const double counted = std::max(0.0, job.attained_gpu_s - s.base_gpu_s);
  s.queue = static_cast<std::uint8_t>(queue_of(counted));
  s.submit_s = job.submit.seconds();
  if (s.queue > 0) s.promoted_s = -1;
  s.promote_at_s = -1;
  if (s.queue > 0 && params_las_.promote > 0) {
    s.promote_at_s = job.waiting_since.seconds() + params_las_.promote * counted / s.share();
    promotions_.push(Due{s.promote_at_s, job.job});
  }
  OrderedScheduler::job_waiting(job);
}

void LasScheduler::job_left(std::uint32_t job) {
  states_[job].promote_at_s = -1;  // a pending promotion is void
  OrderedScheduler::job_left(job);
}

double LasScheduler::victim_key(std::uint32_t job) const {
  return -(states_[job].queue * ID_SPAN + job);
}

void LasScheduler::run_started(const QueuedJob& job, sim::SimTime now) {
  State& s = state(job.job);
  s.start_s = now.seconds();
  s.attained_gpu_s = job.attained_gpu_s;
  s.running_pos = static_cast<std::uint32_t>(running_ids_.size());
  running_ids_.push_back(job.job);
  running_.running(job.job, job.gpus, victim_key(job.job));
}

void LasScheduler::run_ended(std::uint32_t job, sim::SimTime) {
  running_.ended(job);
  const std::uint32_t pos = states_[job].running_pos;
  const std::uint32_t moved = running_ids_.back();
  running_ids_[pos] = moved;
  states_[moved].running_pos = pos;
  running_ids_.pop_back();
}

void LasScheduler::promote_due(double now_s, const WaitingJobs& waiting) {
  while (!promotions_.empty() && promotions_.top().first <= now_s) {
    const auto [at_s, job] = promotions_.top();
    promotions_.pop();
    State& s = states_[job];
    if (s.promote_at_s != at_s || !waiting.contains(job)) continue;  // stale: it left, or joined again since
    s.promote_at_s = -1;
    s.base_gpu_s = s.attained_gpu_s;
    s.queue = 0;
    s.promoted_s = now_s;
    order_.rekey(job, wait_key(s));
  }
}

void LasScheduler::demote_running(double now_s) {
  for (std::uint32_t id : running_ids_) {
    State& s = states_[id];
    const double counted = s.attained_gpu_s + s.share() * (now_s - s.start_s) - s.base_gpu_s;
    const int q = queue_of(counted);
    if (q == s.queue) continue;
    s.queue = static_cast<std::uint8_t>(q);
    running_.running(id, s.gpus, victim_key(id));
  }
}

void LasScheduler::schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  const std::int64_t interval_ns = params_las_.interval.ns();
  const std::int64_t now_ns = cluster.now.ns();
  tick_ = now_ns % interval_ns == 0;
  const double now_s = cluster.now.seconds();
  promote_due(now_s, waiting);
  // Once per tick: the passes that follow at the same instant (after each preemption's
  // stop) would find the same queues, at a look at every running job each.
  if (tick_ && now_ns != demoted_at_ns_) {
    demote_running(now_s);
    demoted_at_ns_ = now_ns;
  }
  OrderedScheduler::schedule(cluster, waiting, out);
  // The next tick, while someone waits and someone runs, or starts now (nothing to decide
  // otherwise; an arrival or an end calls the policy anyway). The jobs placed by this pass
  // count: when the last run has just ended, they are the ones a later tick demotes and
  // preempts (without them, nothing would wake the policy before their runs end).
  // SimTime's sum saturates: a tick past the time range is never (max()).
  if (waiting.size() > out.placements.size() && (!running_ids_.empty() || !out.placements.empty()))
    out.wake_at = sim::SimTime::from_ns(now_ns / interval_ns * interval_ns) + params_las_.interval;
}

// The round (ordered.hpp; docs/scheduling.md, "The round"), at ticks only: from the first
// job that does not fit, the waiting jobs in order each get room held for them, free or
// made by preempting running jobs of lower queues, until one cannot get any.
bool LasScheduler::start_round(const ClusterView& cluster, const Decisions& out) {
  if (!tick_) return false;
  running_.begin_round(cluster, out);
  return true;
}

bool LasScheduler::hold_room(const ClusterView& cluster, const QueuedJob& job, Decisions& out) {
  const int wq = states_[job.job].queue;
  return running_.hold_room(cluster, job, [&](std::uint32_t v) { return states_[v].queue > wq; },
                            PreemptReason::Quantum, out) != Preempter::Room::None;
}

void LasScheduler::end_round() { running_.end_round(); }

std::string LasScheduler::settings() const {
  std::string s = OrderedScheduler::settings() + ", queues: " + std::to_string(params_las_.thresholds_gpu_s.size() + 1);
  char buf[64];
  if (!params_las_.thresholds_gpu_s.empty()) s += ", thresholds:";
  for (double t : params_las_.thresholds_gpu_s) {
    std::snprintf(buf, sizeof buf, " %g GPU-h", t / 3600.0);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, ", promote: %g, interval: %g s", params_las_.promote, params_las_.interval.seconds());
  return s + buf;
}

namespace {
const config::KeySpec LAS_KEYS[] = {
    PLACEMENT_KEY, BLOCKING_KEY,
    {.name = "queues", .type = "integer", .default_value = "`2`, or one more than `thresholds`",
     .help = "how many priority queues attained service is split into", .kind = config::KeyKind::Integer, .min = 1,
     .max = 16},
    {.name = "thresholds", .type = "list of GPU-time (durations: `1h` = one GPU-hour)",
     .default_value = "`1h`, `10h`, `100h`, ... (`queues` - 1 of them)", .range = "increasing, > 0",
     .help = "the attained service (GPUs x time run) at which a job moves down to the next queue"},
    {.name = "promote", .type = "number",
     .help = "a job that has waited this many times its counted run time goes back to the first queue; 0: never",
     .kind = config::KeyKind::Number, .min = 0, .max = 1e9, .has_default = true, .default_number = 10},
    {.name = "interval", .type = "duration", .help = "the round: demotions and preemptions happen at its multiples",
     .kind = config::KeyKind::Duration, .min = static_cast<double>(limits::MIN_POLICY_ROUND.ns()), .has_default = true,
     .default_number = 300e9},
};

void read_las(config::MapReader& map, const PolicyContext&, LasParams& p) {
  const config::ConfigNode* queues = map.where("queues");
  const config::ConfigNode* thresholds = map.optional("thresholds");
  if (thresholds) {
    if (!thresholds->is_sequence()) thresholds->fail(ErrorCode::WrongType, "thresholds must be a list of GPU-times (e.g. [1h, 10h])");
    p.thresholds_gpu_s.clear();
    for (const config::ConfigNode& t : thresholds->items()) {
      const double s = config::read_duration(t).seconds();
      if (!(s > 0)) t.fail(ErrorCode::OutOfRange, "a threshold must be > 0");
      if (!p.thresholds_gpu_s.empty() && !(s > p.thresholds_gpu_s.back()))
        t.fail(ErrorCode::OutOfRange, "thresholds must increase");
      p.thresholds_gpu_s.push_back(s);
    }
    if (p.thresholds_gpu_s.empty()) thresholds->fail(ErrorCode::OutOfRange, "give at least one threshold (or queues: 1)");
    if (p.thresholds_gpu_s.size() > 15) thresholds->fail(ErrorCode::OutOfRange, "at most 15 thresholds (16 queues)");
  }
  if (thresholds) p.queues = static_cast<int>(p.thresholds_gpu_s.size()) + 1;
  if (queues) {
    const auto n = static_cast<std::size_t>(map.need<std::int64_t>("queues"));
    if (thresholds && n != p.thresholds_gpu_s.size() + 1)
      queues->fail(ErrorCode::Conflict, "queues: " + std::to_string(n) + " needs " + std::to_string(n - 1) +
                                            " thresholds; " + std::to_string(p.thresholds_gpu_s.size()) + " are given");
    p.queues = static_cast<int>(n);
  }
  p.promote = map.value<double>("promote");
  p.interval_mark = map.node().mark();
  p.interval = map.value<sim::SimTime>("interval");
  if (const config::ConfigNode* n = map.where("interval")) {
    p.interval_key = n->path();
    p.interval_mark = n->mark();
  }
}
}  // namespace

PolicyDef<LasParams> las_policy() {
  PolicyDef<LasParams> def = ordered_policy_def<LasScheduler, LasParams>(
      "las", "least attained service (Tiresias' discretized 2D-LAS): queues by GPU-time run, preempts on a round",
      LAS_KEYS, false, read_las);
  // Tiresias' LAS preempts by checkpoint and restart: a preempted job resumes from its
  // progress. Losing the run instead livelocks a saturated cluster (docs/scheduling.md).
  def.resumes_by_default = true;
  return def;
}

}  // namespace gcsim::models
