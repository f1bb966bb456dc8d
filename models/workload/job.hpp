// A job as the simulation runs it, in records owned by the parts that change them:
//   JobRequest     what was asked (from a JobSpec or a generator draw); set once, by the workload
//   JobRun         the current run: status, placement, progress (the Cluster and its NodeAllocator)
//   JobCheckpoint  checkpoint state of the run (models/cluster/checkpoint_controller.hpp),
//                  out of line: only a job that checkpoints or saves on preemption has one
//                  (Job::ckpt() reads zeros for the others, Job::ckpt_mut() makes it)
//   JobStats       times and totals over all runs, which accounting and the trace read
// A Job is the three others and its checkpoint box, so observers read fields by name; a
// part that needs one record can take it alone. Jobs live in one vector indexed by id.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "models/gpu/gpu_spec.hpp"
#include "models/workload/boxed.hpp"
#include "models/workload/checkpoint_spec.hpp"
#include "models/workload/comm_spec.hpp"
#include "models/workload/stop_reason.hpp"
#include "models/workload/training.hpp"
#include "sim/activity.hpp"
#include "sim/engine.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

// Interrupted: it ran, lost its nodes (spot interruption, budget stop) and was not running
// when the run ended.
enum class JobStatus : std::uint8_t { Completed = 0, Running = 1, NeverStarted = 2, Interrupted = 3, Queued = 4, Future = 5 };

struct JobRequest {
  std::uint32_t id = 0;
  // As recorded in a trace (WorkloadSpec::recorded; the `recorded` policy): its wait from
  // submit to start in seconds, and its recorded machine's node; -1 when not known.
  std::int32_t recorded_wait_s = -1;
  std::string name;
  sim::SimTime submit;
  sim::SimTime deadline = sim::SimTime::max();  // submit + the job key `deadline`; max(): none
  int gpus = 1;
  // Its share of its GPU in thousandths: 1000 (whole GPUs), or less for a one-GPU job that
  // shares its GPU with other such jobs. GPU-seconds it holds count gpus x gpu_milli / 1000.
  std::int16_t gpu_milli = 1000;
  bool shares_gpu() const { return gpu_milli < 1000; }
  // Exactly one of these describes the work: a measured duration, or FLOP at a rate.
  // The two flags share one byte (bit-fields), beside the precision: a Job keeps to its
  // byte budget (tests/scenarios/test_job_memory.cpp).
  bool has_duration : 1 = true;
  // A job without an end of its own (a service's replica, docs/serving.md): it is driven
  // (JobRun::driven), its `duration` only an estimate for the policies (the horizon), and it
  // runs until its owner ends it with Cluster::finish_job; stopped, it is queued again.
  bool open_ended : 1 = false;
  Precision precision = Precision::Fp32;   // work jobs' (one byte, beside the flags)
  sim::SimTime duration;
  double work_flop = 0;
  double efficiency = 0;
  std::uint64_t eligible_types = 0;  // bit t set: node type t can hold this job
  const TrainingSpec* training = nullptr;  // model-described: work is samples at the step-time model's speed
  const CommSpec* comm = nullptr;          // duration job whose steps wait for collectives on the network
  const CheckpointSpec* checkpoint = nullptr;
  sim::SimTime image_pull;                 // before progress, on every start
  std::int16_t team = -1;                  // index into WorkloadSpec::teams
  std::int16_t priority = 0;               // its class (job key `priority`)
  std::int32_t recorded_node = -1;         // with recorded_wait_s
  // The user's estimate of its run time (key `estimate`): given, or its true length times
  // estimate_factor (drawn with the error, applied when its length is known, at arrival); NaN: none.
  double estimate_s = std::numeric_limits<double>::quiet_NaN();
  double estimate_factor = std::numeric_limits<double>::quiet_NaN();
  // All its work, in its units: samples (model-described), seconds (duration) or FLOP.
  double total_work() const {
    return training ? training->total_samples : has_duration ? duration.seconds() : work_flop;
  }
  // Its run time alone on the fastest node type it may use, set when it first arrives
  // (QueuedJob::length_s); 0 before.
  double alone_s = 0;
};

struct JobRun {
  // Fields are grouped by size (8-, 4-, then 1-byte ones), so that a Job carries no padding
  // between them: a million jobs are held at once (docs/engine.md, "A million jobs").
  sim::SimTime run_start;          // start of the current (or last) run on nodes
  std::uint64_t gpu_mask = 0;      // which GPUs (bit = local index) it holds on each node
  // Progress, in work units: seconds of runtime for a duration job, FLOP for a work job,
  // samples for a model-described one. The current run's compute is an activity
  // (sim/activity.hpp) like a flow or a storage read: the work left, the rate from
  // `progress.updated` on (in the future while the run restores, pulls or stages), and its
  // finish event. Models that change its speed (contention, a slower placement) call
  // Cluster::set_rate, which moves the finish event, so run time follows the modelled speed.
  double work_total = 0;
  sim::Activity progress;          // remaining = work_total - work done (checkpointed work included)
  double work_done() const { return work_total - progress.remaining; }
  // Work done by t, at the current rate, without booking it (a view changes nothing).
  double work_done_at(sim::SimTime t) const { return work_total - progress.remaining_at(t); }
  // What the step-time model gave on the placement (model-described jobs; else 0).
  double samples_per_s = 0;
  double step_s = 0;
  double progress_s = 0;           // seconds of progress in the current run
  sim::SimTime overhead_until;     // end of the restore and image pull of the current run
  sim::SimTime preempted_at;       // when the policy preempted the current (or last) run
  double stopped_work = 0;         // work_done() when the last stopped run ended, before the rollback

  int node_type = -1;
  std::uint32_t nodes_offset = 0;  // into the allocator's list of held nodes (Cluster::nodes_of)
  std::uint32_t nodes_count = 0;
  int gpus_per_node_held = 0;      // GPUs held on each of its nodes
  int bottleneck = -1;             // models::Bottleneck, -1 when not modelled
  std::uint32_t incarnation = 0;   // bumped at every start and stop: stale events ignore themselves
  // The GPUs it holds (or a share of), counted whole: the GPU-seconds it holds are
  // Job::gpu_share_held() per second.
  int gpus_held() const { return gpus_per_node_held * static_cast<int>(nodes_count); }

  JobStatus status = JobStatus::Future;
  bool started_once = false;
  // Placed over capacity (Placement::over_capacity): it holds no GPU of its nodes (gpu_mask
  // 0) but counts in their load and in the allocated GPUs.
  bool over_capacity = false;
  bool driven = false;             // a driver (not a finish event) ends it: Cluster::finish_job
  bool noticed = false;            // a node it holds will be taken
  bool stopping = false;           // writing a last checkpoint before it stops (JobCheckpoint)
  // The last (or, while a planned stop waits for its last checkpoint, the coming) stop's cause.
  StopReason stop_reason = StopReason::None;
  PreemptReason preempt_reason = PreemptReason::Unspecified;  // when stop_reason is Preempted
  // The policy preempted the current (or last) run at preempted_at; preempt_saves: it saves
  // its work before it stops (scheduler.preemption), else it stopped at once, losing it.
  bool preempted = false;
  bool preempt_saves = false;
};

// Checkpoints (docs/spot.md): a checkpoint saves work_done() as ckpt_work, which a restart
// resumes from. A preemption's save (scheduler.preemption) is a last checkpoint too.
struct JobCheckpoint {
  static const JobCheckpoint NONE;  // what a job that never had one reads: all zero
  sim::SimTime ckpt_every;         // resolved at each start (Young/Daly for `optimal`)
  double ckpt_due_s = 0;           // progress_s at which the next checkpoint starts
  double ckpt_work = 0;            // work saved by the last committed checkpoint
  double pending_ckpt_work = 0;    // work a checkpoint being written will save
  sim::SimTime last_ckpt_done_at;  // when the last checkpoint before a stop is committed
  sim::SimTime write_until;        // end of the checkpoint write (pause) in progress
  sim::SimTime ckpt_done_at;       // when the write in progress commits
  sim::EventId ckpt_event;         // its commit event
  bool last_is_save = false;       // that last checkpoint is a preemption's `save`: no tier, always kept
  sim::SimTime restore_time;       // what the next start spends restoring ckpt_work (set at each stop)
  sim::SimTime run_restore;        // what the current (or last) run's start spent restoring
  double run_start_work = 0;       // ckpt_work when the current (or last) run started
};
inline const JobCheckpoint JobCheckpoint::NONE{};

struct JobStats {
  sim::SimTime start;              // first start
  sim::SimTime end;
  int interruptions = 0;           // runs ended before finishing: node loss, budget stop, preemption
  int preemptions = 0;             // of those, by the scheduling policy
  int checkpoints = 0;             // committed
  double lost_work = 0;            // work units redone because a run ended past its checkpoint
  double lost_gpu_s = 0;           // GPU-seconds of that work
  double stop_lost_gpu_s = 0;      // of lost_gpu_s, what the last stopped run lost
  double checkpoint_gpu_s = 0;     // GPU-seconds paused writing checkpoints
  double restart_gpu_s = 0;        // GPU-seconds restoring and pulling images
  double held_gpu_s = 0;           // GPU-seconds held over all runs (ended runs)
};

struct Job : JobRequest, JobRun, JobStats {
  // GPUs held, counting a shared GPU by the job's share of it: GPU-seconds per second.
  double gpu_share_held() const { return gpus_held() * (gpu_milli / 1000.0); }
  // Its checkpoint state: JobCheckpoint::NONE until something checkpoints it (a plain job
  // never carries those 90-odd bytes: docs/engine.md, "A million jobs").
  const JobCheckpoint& ckpt() const { return ckpt_state ? *ckpt_state : JobCheckpoint::NONE; }
  JobCheckpoint& ckpt_mut() { return ckpt_state ? *ckpt_state : ckpt_state.emplace(); }
  bool has_ckpt() const { return ckpt_state.has_value(); }
  Boxed<JobCheckpoint> ckpt_state;
};

}  // namespace gcsim::models
