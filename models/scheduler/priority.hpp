// Priority classes: waiting jobs in order of their class (job key `priority`, an integer,
// higher first), first in, first out inside a class (submit time, then place in the
// workload). With `preempt: true` (the default), when the first job in order does not
// fit, running jobs of strictly lower classes are preempted (reason `priority`): the
// lowest class first and, inside a class, the most recently submitted first, until it
// would fit, and then the same for the jobs after it in order, its room held for it,
// until one cannot get room (the round: ordered.hpp); a job never preempts one of its own
// class or a higher one, and nobody is preempted unless that makes room. This is
// Kubernetes' PriorityClass preemption (lowest priority victims first) and Slurm's
// PreemptType=preempt/qos with PreemptMode=REQUEUE;
// how a victim stops is the scenario's `scheduler.preemption`. Blocking as fifo's
// (ordered.hpp): with `strict`, the first class's head job holds every lower class.
//
// Keys (`scheduler:` with `policy: priority`): placement, blocking (ordered.hpp), and
//   preempt   bool   default `true`   preempt lower classes for the first waiting job
#pragma once

#include <memory>
#include <vector>

#include "models/scheduler/ordered.hpp"
#include "models/scheduler/preempter.hpp"
#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::models {

struct PriorityParams : OrderedParams {
  bool preempt = true;
};

class PriorityScheduler final : public OrderedScheduler {
 public:
  PriorityScheduler(std::unique_ptr<PlacementStrategy> placement, const PriorityParams& params)
      : OrderedScheduler(std::move(placement), params), preempt_(params.preempt) {}
  void run_started(const QueuedJob& job, sim::SimTime now) override;
  void run_ended(std::uint32_t job, sim::SimTime) override { running_.ended(job); }
  std::string settings() const override;

 protected:
  bool uses_lengths() const override { return false; }
  double order_key(const QueuedJob& job) const override { return -static_cast<double>(job.priority); }
  bool start_round(const ClusterView& cluster, const Decisions& out) override;
  bool hold_room(const ClusterView& cluster, const QueuedJob& job, Decisions& out) override;
  void end_round() override { running_.end_round(); }

 private:
  bool preempt_;
  // Running jobs, lowest class first, then latest submitted (highest job id) first.
  Preempter running_;
  std::vector<std::int16_t> class_;  // by job id, for running jobs
};

PolicyDef<PriorityParams> priority_policy();

}  // namespace gcsim::models
