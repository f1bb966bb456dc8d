// Shortest remaining time first, with preemption: waiting jobs are ordered as sjf's
// (length left, shortest first); when the first that does not fit has less time left
// than running jobs, the running jobs with the most time left (and more than it) are
// preempted, fewest first, until it would fit on what they and the pass's free capacity
// leave; then the same for the jobs after it in order, its room held for it, until one
// cannot get room (the round: ordered.hpp). A running job's time left is its length when
// it started less the time since (its starting speed: a job slowed by contention ranks as
// if it were not). How a
// preempted job saves and resumes is the scenario's `scheduler.preemption`; while
// preempted jobs are stopping, their GPUs count as free for the next decision, so one
// waiting job never preempts twice. Queueing theory: on one server with Poisson arrivals
// and free preemption this is SRPT, whose mean response time Schrage and Miller (1966)
// give (docs/scheduling.md).
//
// Keys (`scheduler:` with `policy: srtf`): placement, blocking, lengths (ordered.hpp).
#pragma once

#include <memory>
#include <vector>

#include "models/scheduler/ordered.hpp"
#include "models/scheduler/preempter.hpp"
#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::models {

class SrtfScheduler final : public OrderedScheduler {
 public:
  using OrderedScheduler::OrderedScheduler;
  void run_started(const QueuedJob& job, sim::SimTime now) override;
  void run_ended(std::uint32_t job, sim::SimTime now) override;

 protected:
  double order_key(const QueuedJob& job) const override { return job_length_s(job, params_.lengths); }
  bool start_round(const ClusterView& cluster, const Decisions& out) override;
  bool hold_room(const ClusterView& cluster, const QueuedJob& job, Decisions& out) override;
  void end_round() override { running_.end_round(); }

 private:
  // Running jobs, the most time left first: key -(expected end, s).
  Preempter running_;
};

struct SrtfParams : OrderedParams {};
PolicyDef<SrtfParams> srtf_policy();

}  // namespace gcsim::models
