// Finish-time fairness, Themis' rho (see finish_time_fair.hpp).
#include "models/scheduler/finish_time_fair.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "models/core/limits.hpp"

namespace gcsim::models {

namespace {
// A job of zero length would divide by zero; a nanosecond is below any length gcsim resolves.
constexpr double MIN_IDEAL_S = 1e-9;
}  // namespace

FinishTimeFairScheduler::FinishTimeFairScheduler(std::unique_ptr<PlacementStrategy> placement,
                                                 const FinishTimeFairParams& params)
    : OrderedScheduler(std::move(placement), params), params_ftf_(params) {}

FinishTimeFairScheduler::State& FinishTimeFairScheduler::state(std::uint32_t job) {
  if (job >= states_.size()) {
    states_.resize(std::max<std::size_t>(job + 1, states_.size() * 2));
    is_running_.resize(states_.size(), 0);
  }
  return states_[job];
}

double FinishTimeFairScheduler::rho(std::uint32_t job, double at_s) const {
  const State& s = states_[job];
  if (is_running_[job]) return (s.start_s - s.submit_s + s.remaining_s) / s.ideal_s;
  return (at_s - s.submit_s + s.remaining_s) / s.ideal_s;
}

double FinishTimeFairScheduler::order_key(const QueuedJob& job) const {
  // Called from job_waiting, after the job's state was set: its rho at the last tick,
  // negated (the order index puts smaller keys first).
  return -rho(job.job, sim::SimTime::from_ns(rank_ns_).seconds());
}

void FinishTimeFairScheduler::job_waiting(const QueuedJob& job) {
  State& s = state(job.job);
  if (s.ideal_s == 0) {  // first seen
    s.ideal_s = std::max(job.length_s, MIN_IDEAL_S);
  }
  s.submit_s = job.submit.seconds();
  s.remaining_s = job.length_s;
  is_running_[job.job] = 0;
  waiting_order_.insert(job.job, job.gpus);
  // A job keyed before the memo's blocked job would be visited first by the next pass.
  if (memo_.valid) {
    const double key = keys_.at(job.job, waiting_order_.time());
    if (!(memo_.key < key || (!(key < memo_.key) && memo_.blocked < job.job))) memo_.valid = false;
  }
}

void FinishTimeFairScheduler::job_left(std::uint32_t job) {
  waiting_order_.erase(job);
  if (!memo_.valid) return;
  const auto it = std::find(memo_.placed.begin(), memo_.placed.end(), job);
  if (it == memo_.placed.end()) {
    memo_.valid = false;  // (a budget held it, say)
    return;
  }
  *it = memo_.placed.back();
  memo_.placed.pop_back();
}

void FinishTimeFairScheduler::run_started(const QueuedJob& job, sim::SimTime now) {
  State& s = state(job.job);
  if (s.ideal_s == 0) {  // first seen
    s.ideal_s = std::max(job.length_s, MIN_IDEAL_S);
  }
  s.submit_s = job.submit.seconds();
  s.remaining_s = job.length_s;
  s.start_s = now.seconds();
  is_running_[job.job] = 1;
  ++running_count_;
  if (params_ftf_.preempt) running_.running(job.job, job.gpus, rho(job.job, s.start_s));
}

void FinishTimeFairScheduler::run_ended(std::uint32_t job, sim::SimTime) {
  if (params_ftf_.preempt) running_.ended(job);
  is_running_[job] = 0;
  --running_count_;
}

void FinishTimeFairScheduler::schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  const std::int64_t interval_ns = params_ftf_.interval.ns();
  const std::int64_t now_ns = cluster.now.ns();
  const std::int64_t tick_ns = now_ns / interval_ns * interval_ns;
  tick_ = now_ns == tick_ns;
  if (tick_ns != rank_ns_) {
    rank_ns_ = tick_ns;
    waiting_order_.set_time(sim::SimTime::from_ns(rank_ns_).seconds());
  }
  const std::size_t placed_from = out.placements.size();
  const std::size_t preempted_from = out.preemptions.size();
  if (repeat_last_pass(cluster, waiting, out)) {
    ++repeated_;
  } else {
    memo_.valid = false;
    any_blocked_ = false;
    pass(cluster, waiting, out, waiting_order_);
    remember_pass(cluster, out, placed_from, preempted_from);
  }
  // The next tick, while someone waits and someone runs or was just placed (only a
  // preemption could change anything then; an arrival or an end calls the policy anyway,
  // and re-keys if a tick passed). A request still pending for that tick stays pending.
  if (params_ftf_.preempt && waiting.size() > out.placements.size() && running_count_ + out.placements.size() > 0) {
    // SimTime's sum saturates: a tick past the time range is never (max()).
    const std::int64_t wake_ns = (sim::SimTime::from_ns(tick_ns) + params_ftf_.interval).ns();
    if (plain_ || wake_ns != asked_wake_ns_ || now_ns >= asked_wake_ns_) {
      out.wake_at = sim::SimTime::from_ns(wake_ns);
      asked_wake_ns_ = wake_ns;
    }
  }
}

bool FinishTimeFairScheduler::repeat_last_pass(const ClusterView& cluster, const WaitingJobs& waiting,
                                               const Decisions& out) {
  if (!memo_.valid || plain_ || tick_ || memo_.rank_ns != rank_ns_ || !memo_.placed.empty() ||
      params_.blocking != Blocking::Strict || cluster.admission != nullptr || cluster.changes == nullptr ||
      !out.placements.empty() || !out.preemptions.empty())
    return false;
  placement_->reset(cluster);  // (it follows the change log pass by pass: this one's entries are read)
  const std::uint64_t node_changes = cluster.changes->total();
  if (node_changes == memo_.node_changes) return true;
  // The capacity changed (runs ended, nodes came or went), not the order: the blocked job
  // is still the first the pass would visit. While it does not fit, the pass places
  // nothing; once it fits, the pass runs (and resets the placement, dropping this try).
  if (placement_->reserve(waiting[memo_.blocked])) return false;
  memo_.node_changes = node_changes;
  return true;
}

void FinishTimeFairScheduler::remember_pass(const ClusterView& cluster, const Decisions& out, std::size_t placed_from,
                                            std::size_t preempted_from) {
  if (plain_ || !any_blocked_ || params_.blocking != Blocking::Strict || cluster.admission != nullptr ||
      cluster.changes == nullptr || placed_from != 0 || out.preemptions.size() != preempted_from)
    return;
  memo_.valid = true;
  memo_.blocked = last_blocked_;
  memo_.key = keys_.at(last_blocked_, waiting_order_.time());
  memo_.rank_ns = rank_ns_;
  memo_.node_changes = cluster.changes->total();
  memo_.placed.clear();
  for (const Placement& p : out.placements) {
    memo_.node_changes += p.count;  // the cluster logs each node of a run it starts
    memo_.placed.push_back(p.job);
  }
}

void FinishTimeFairScheduler::after_placing(const ClusterView& cluster, const WaitingJobs& waiting,
                                            const std::uint32_t* blocked, Decisions& out) {
  (void)cluster;
  (void)waiting;
  (void)out;
  any_blocked_ = blocked != nullptr;
  if (blocked != nullptr) last_blocked_ = *blocked;
}

// The round (ordered.hpp; docs/scheduling.md, "The round"), at ticks: from the first job
// that does not fit, each waiting job in order gets room held for it, free or made by
// preempting running jobs of lower rho, until one cannot get any.
bool FinishTimeFairScheduler::start_round(const ClusterView& cluster, const Decisions& out) {
  if (!params_ftf_.preempt || !tick_) return false;
  running_.begin_round(cluster, out);
  return true;
}

bool FinishTimeFairScheduler::hold_room(const ClusterView& cluster, const QueuedJob& job, Decisions& out) {
  const double rho_w = rho(job.job, cluster.now.seconds());
  return running_.hold_room(cluster, job, [&](std::uint32_t id) { return running_.key(id) < rho_w; },
                            PreemptReason::Quantum, out) != Preempter::Room::None;
}

std::string FinishTimeFairScheduler::settings() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, ", interval: %g s, preempt: %s", params_ftf_.interval.seconds(),
                params_ftf_.preempt ? "true" : "false");
  return OrderedScheduler::settings() + buf;
}

namespace {
const config::KeySpec FINISH_TIME_FAIR_KEYS[] = {
    PLACEMENT_KEY, BLOCKING_KEY,
    {.name = "interval", .type = "duration",
     .help = "the round: the waiting order is recomputed, and preemptions happen, at its multiples",
     .kind = config::KeyKind::Duration, .min = static_cast<double>(limits::MIN_POLICY_ROUND.ns()), .has_default = true,
     .default_number = 300e9},
    {.name = "preempt", .type = "bool",
     .help = "at a round, the waiting jobs that do not fit, in order, preempt running jobs of lower rho (lowest first)",
     .kind = config::KeyKind::Bool, .has_default = true, .default_number = 1},
};

FinishTimeFairParams read_finish_time_fair(config::MapReader& map, const SchedulerRegistry& registry,
                                           const PolicyContext&) {
  FinishTimeFairParams p;
  static_cast<OrderedParams&>(p) = read_ordered_params(map, registry, false);
  p.interval_mark = map.node().mark();
  p.interval = map.value<sim::SimTime>("interval");
  if (const config::ConfigNode* n = map.where("interval")) {
    p.interval_key = n->path();
    p.interval_mark = n->mark();
  }
  p.preempt = map.value<bool>("preempt");
  return p;
}
}  // namespace

PolicyDef<FinishTimeFairParams> finish_time_fair_policy() {
  return {
      .name = "finish-time-fair",
      .description = "finish-time fairness (Themis' rho: finish time shared / alone), worst first; recomputed and "
                     "preempting on a round",
      .keys = FINISH_TIME_FAIR_KEYS,
      .parse = read_finish_time_fair,
      .make = [](const FinishTimeFairParams& p, const SchedulerRegistry& registry) -> std::unique_ptr<Scheduler> {
        return std::make_unique<FinishTimeFairScheduler>(registry.make_placement(p.placement), p);
      },
  };
}

}  // namespace gcsim::models
