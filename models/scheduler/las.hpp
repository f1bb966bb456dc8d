// Least attained service, discretized in two dimensions (Tiresias: Gu et al., NSDI 2019).
// A job's attained service is GPUs x time run (GPU-seconds); `queues` priority queues
// split it at `thresholds`: a job is in queue k (0 first) while its service counted so far
// is at least thresholds[k-1] and below thresholds[k]. Waiting jobs are ordered by queue,
// first in, first out inside a queue (submit time, then place in the workload; a promoted
// job by the time of its promotion, behind the jobs that came before it). Decisions
// that preempt are taken on a round of `interval` (ticks at multiples of it from time 0;
// Tiresias' and Gavel's round length): at each tick, running jobs are put in the queue of
// the service they have attained by then (a running job is demoted when it crosses a
// threshold), and from the first waiting job that does not fit, the round takes the
// waiting jobs in order: each gets room held for it, free or made by preempting running
// jobs of strictly lower queues (higher index), the lowest queue first and, inside it, the
// most recently submitted first (reason `quantum`), until one cannot get room; they start
// when their victims have stopped. Between ticks jobs start only in free capacity. Against
// starvation (Tiresias' promotion), a waiting job that has waited `promote` times its
// counted run time (counted service / GPUs) goes back to the first queue, its counted
// service starting again from zero. `promote: 0` never
// promotes. Blocking as fifo's (ordered.hpp). A preempted job resumes from its progress,
// as Tiresias assumes: with no `scheduler.preemption` map a job without a checkpoint keeps
// its work (PolicyDef::resumes_by_default) instead of losing its run.
//
// Keys (`scheduler:` with `policy: las`): placement, blocking (ordered.hpp), and
//   queues       integer 1..16                  default 2 (or one more than thresholds)
//   thresholds   list of GPU-time, increasing   default 1h, 10h, 100h, ...: GPU-hours (queues - 1 of them)
//   promote      number >= 0                    default 10
//   interval     duration >= 1s                 default 5m
#pragma once

#include <memory>
#include <queue>
#include <vector>

#include "models/scheduler/ordered.hpp"
#include "models/scheduler/preempter.hpp"
#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::models {

struct LasParams : OrderedParams {
  int queues = 2;
  std::vector<double> thresholds_gpu_s;  // queues - 1 of them, increasing; none given: 1, 10, 100 ... GPU-hours
  double promote = 10;                   // 0: never
  sim::SimTime interval = sim::SimTime::from_seconds(300);
  // Where `interval` is set: its key path and mark, or none (the default, blamed at the map).
  std::string interval_key;
  SourceMark interval_mark;
  std::optional<PolicyRound> round() const {
    return PolicyRound{interval, interval_key.empty() ? "scheduler" : interval_key, interval_mark};
  }
};

class LasScheduler final : public OrderedScheduler {
 public:
  LasScheduler(std::unique_ptr<PlacementStrategy> placement, const LasParams& params);
  void job_waiting(const QueuedJob& job) override;
  void job_left(std::uint32_t job) override;
  void run_started(const QueuedJob& job, sim::SimTime now) override;
  void run_ended(std::uint32_t job, sim::SimTime now) override;
  void schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) override;
  std::string settings() const override;

  // The queue of `gpu_s` GPU-seconds of counted service.
  int queue_of(double gpu_s) const;

 protected:
  bool uses_lengths() const override { return false; }
  double order_key(const QueuedJob& job) const override;
  bool start_round(const ClusterView& cluster, const Decisions& out) override;
  bool hold_room(const ClusterView& cluster, const QueuedJob& job, Decisions& out) override;
  void end_round() override;

 private:
  // One cache line a job: a saturated run looks a job's state up at every start, stop,
  // promotion and demotion, among a million jobs (docs/scheduling.md, "Where a saturated
  // million-job run's time goes").
  struct alignas(64) State {
    double base_gpu_s = 0;      // attained service not counted (before its last promotion)
    double attained_gpu_s = 0;  // at the start of its run (running) or its last join (waiting)
    double start_s = 0;         // start of its run (running)
    double promote_at_s = -1;   // when a waiting job is promoted; < 0: never
    double promoted_s = -1;     // when it was last promoted (its place in the first queue); < 0: not since
    double submit_s = 0;
    int gpus = 0;
    std::uint32_t running_pos = 0;
    std::uint16_t milli = 1000;  // thousandths of each GPU it holds (QueuedJob::gpu_milli)
    std::uint8_t queue = 0;      // its queue as last set
    // GPUs it holds, a share of a GPU as its share (attained service per second).
    double share() const { return gpus * (milli / 1000.0); }
  };
  static_assert(sizeof(State) == 64, "a job's state is one cache line");
  State& state(std::uint32_t job);
  void promote_due(double now_s, const WaitingJobs& waiting);
  void demote_running(double now_s);
  double victim_key(std::uint32_t job) const;
  // Its place in the waiting order: its queue, then when it entered that queue as the
  // order counts it (its promotion for a promoted job, else its submission).
  double wait_key(const State& s) const;

  LasParams params_las_;
  std::vector<State> states_;         // by job id
  std::vector<std::uint32_t> running_ids_;
  Preempter running_;                 // victim order: lowest queue first, then latest submitted
  using Due = std::pair<double, std::uint32_t>;
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> promotions_;  // (time, job), stale ones skipped
  bool tick_ = false;                 // this pass is on a tick
  std::int64_t demoted_at_ns_ = -1;   // the tick running jobs were last put in their queues at
};

PolicyDef<LasParams> las_policy();

}  // namespace gcsim::models
