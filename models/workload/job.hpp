// A job as the simulation runs it, in records owned by the parts that change them:
//   JobRequest     what was asked (from a JobSpec or a generator draw); set once, by the workload
//   JobRun         the current run: status, placement, progress (the Cluster and its NodeAllocator)
//   JobStats       times and totals over all runs, which accounting and the trace read
//   JobExtras      out of line, what few jobs have: a model, comm, a checkpoint plan, a
//                  deadline, an estimate; the step-time model's speed; what a stopped run or a
//                  checkpoint makes (interruptions, lost work), and the JobCheckpoint state
//                  (models/cluster/checkpoint_controller.hpp). A plain job (a duration or
//                  work, no model) that runs once never makes one: it is a Job of 200 bytes
//                  and its name (docs/engine.md, "A million jobs").
// A Job is the three records (the extras box in JobRequest), so observers read fields by
// name, and the rare ones through accessors (Job::interruptions(), JobRequest::training());
// a part that needs one record can take it alone. Jobs live in one vector indexed by id.
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

// Checkpoints (docs/spot.md): a checkpoint saves work_done() as ckpt_work, which a restart
// resumes from. A preemption's save (scheduler.preemption) is a last checkpoint too.
struct JobCheckpoint {
  static const JobCheckpoint NONE;  // what a job that never had one reads: all zero
  sim::SimTime ckpt_every;         // resolved at each start (Young/Daly for `optimal`)
  double ckpt_due_s = 0;           // progress_s at which the next checkpoint starts
  double progress_s = 0;           // seconds of progress in the current run (accrued once this record is made)
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

// What few jobs have, in one record out of line (JobRequest::extras()): a plain job (a
// duration or work, no model) never makes one, so that it keeps to its byte budget
// (docs/engine.md, "A million jobs"; tests/scenarios/test_job_memory.cpp). A job reads
// JobExtras::NONE until something is set (JobRequest::extras_mut() makes the record): what
// it was given beyond the plain keys, the step-time model's speed, and what only a stopped
// run or a checkpoint makes. Each field's default is what a job without it reads.
struct JobExtras {
  static const JobExtras NONE;
  // ---- Asked (set once, by the workload) ----
  const TrainingSpec* training = nullptr;  // model-described: work is samples at the step-time model's speed
  const CommSpec* comm = nullptr;          // duration job whose steps wait for collectives on the network
  const CheckpointSpec* checkpoint = nullptr;
  sim::SimTime deadline = sim::SimTime::max();  // submit + the job key `deadline`; max(): none
  sim::SimTime image_pull;                 // before progress, on every start
  // The user's estimate of its run time (key `estimate`): given, or its true length times
  // estimate_factor (drawn with the error, applied when its length is known, at arrival); NaN: none.
  double estimate_s = std::numeric_limits<double>::quiet_NaN();
  double estimate_factor = std::numeric_limits<double>::quiet_NaN();
  // As recorded in a trace (WorkloadSpec::recorded; the `recorded` policy): its wait from
  // submit to start in seconds, and its recorded machine's node; -1 when not known.
  std::int32_t recorded_wait_s = -1;
  std::int32_t recorded_node = -1;
  // A model-described job's run time alone on the fastest node type it may use, from the
  // step-time model at its first arrival (Cluster::job_alone_s; a plain job's is its
  // duration, or computed again from its FLOP: cheap); 0 before.
  double alone_s = 0;
  // ---- The current run ----
  // What the step-time model gave on the placement (model-described jobs; else 0).
  double samples_per_s = 0;
  double step_s = 0;
  int bottleneck = -1;             // models::Bottleneck, -1 when not modelled
  int checkpoints = 0;             // committed (over all runs)
  sim::SimTime overhead_until;     // end of the restore and image pull of the current run (set when it has one)
  sim::SimTime preempted_at;       // when the policy preempted the current (or last) run
  double stopped_work = 0;         // work_done() when the last stopped run ended, before the rollback
  // ---- Over all runs ----
  int interruptions = 0;           // runs ended before finishing: node loss, budget stop, preemption
  int preemptions = 0;             // of those, by the scheduling policy
  double lost_work = 0;            // work units redone because a run ended past its checkpoint
  double lost_gpu_s = 0;           // GPU-seconds of that work
  double stop_lost_gpu_s = 0;      // of lost_gpu_s, what the last stopped run lost
  double checkpoint_gpu_s = 0;     // GPU-seconds paused writing checkpoints
  double restart_gpu_s = 0;        // GPU-seconds restoring and pulling images
  // Its checkpoint state, out of line again: only a job that checkpoints or saves on
  // preemption has one (Job::ckpt()).
  Boxed<JobCheckpoint> ckpt;
};
inline const JobExtras JobExtras::NONE{};

struct JobRequest {
  std::uint32_t id = 0;
  int gpus = 1;
  std::string name;
  sim::SimTime submit;
  // Exactly one of these describes the work (has_duration): a measured duration, or FLOP at
  // a rate (efficiency); a model-described job has neither (extras().training). The two
  // share their bytes: a plain job keeps to its budget (tests/scenarios/test_job_memory.cpp).
  union {
    sim::SimTime duration{};
    double work_flop;
  };
  double efficiency = 0;           // work jobs'
  std::uint64_t eligible_types = 0;  // bit t set: node type t can hold this job
  // Its share of its GPU in thousandths: 1000 (whole GPUs), or less for a one-GPU job that
  // shares its GPU with other such jobs. GPU-seconds it holds count gpus x gpu_milli / 1000.
  std::int16_t gpu_milli = 1000;
  std::int16_t team = -1;                  // index into WorkloadSpec::teams
  std::int16_t priority = 0;               // its class (job key `priority`)
  // The two flags and the precision share one byte (bit-fields).
  bool has_duration : 1 = true;
  // A job without an end of its own (a service's replica, docs/serving.md): it is driven
  // (JobRun::driven), its `duration` only an estimate for the policies (the horizon), and it
  // runs until its owner ends it with Cluster::finish_job; stopped, it is queued again.
  bool open_ended : 1 = false;
  Precision precision : 4 = Precision::Fp32;  // work jobs' (Precision has 5 values)
  // Its status as a trace recorded it (Failed, Killed, ...): 0 for none, else 1 + its index
  // in WorkloadSpec::recorded_statuses; the trace's /jobs.recorded_status.
  std::uint8_t recorded_status = 0;

  bool shares_gpu() const { return gpu_milli < 1000; }
  // What few jobs have (JobExtras): NONE until extras_mut() makes the record.
  const JobExtras& extras() const { return extras_ ? *extras_ : JobExtras::NONE; }
  JobExtras& extras_mut() { return extras_ ? *extras_ : extras_.emplace(); }
  bool has_extras() const { return extras_.has_value(); }
  const TrainingSpec* training() const { return extras_ ? extras_->training : nullptr; }
  const CommSpec* comm() const { return extras_ ? extras_->comm : nullptr; }
  const CheckpointSpec* checkpoint() const { return extras_ ? extras_->checkpoint : nullptr; }
  sim::SimTime deadline() const { return extras().deadline; }
  sim::SimTime image_pull() const { return extras().image_pull; }
  double estimate_s() const { return extras().estimate_s; }
  double estimate_factor() const { return extras().estimate_factor; }
  std::int32_t recorded_wait_s() const { return extras().recorded_wait_s; }
  std::int32_t recorded_node() const { return extras().recorded_node; }
  // All its work, in its units: samples (model-described), seconds (duration) or FLOP.
  double total_work() const {
    const TrainingSpec* t = training();
    return t ? t->total_samples : has_duration ? duration.seconds() : work_flop;
  }

 private:
  Boxed<JobExtras> extras_;
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
  // Its total, Job::work_total(), is the job's total_work() once it has started.
  sim::Activity progress;          // remaining = work_total() - work done (checkpointed work included)

  int node_type = -1;
  std::uint32_t nodes_offset = 0;  // into the allocator's list of held nodes (Cluster::nodes_of)
  std::uint32_t nodes_count = 0;
  int gpus_per_node_held = 0;      // GPUs held on each of its nodes
  std::uint32_t incarnation = 0;   // bumped at every start and stop: stale events ignore themselves
  // The GPUs it holds (or a share of), counted whole: the GPU-seconds it holds are
  // Job::gpu_share_held() per second.
  int gpus_held() const { return gpus_per_node_held * static_cast<int>(nodes_count); }

  JobStatus status = JobStatus::Future;
  // The last (or, while a planned stop waits for its last checkpoint, the coming) stop's cause.
  StopReason stop_reason = StopReason::None;
  PreemptReason preempt_reason = PreemptReason::Unspecified;  // when stop_reason is Preempted
  // The flags, one byte of bits.
  bool started_once : 1 = false;
  // Placed over capacity (Placement::over_capacity): it holds no GPU of its nodes (gpu_mask
  // 0) but counts in their load and in the allocated GPUs.
  bool over_capacity : 1 = false;
  bool driven : 1 = false;         // a driver (not a finish event) ends it: Cluster::finish_job
  bool noticed : 1 = false;        // a node it holds will be taken
  bool stopping : 1 = false;       // writing a last checkpoint before it stops (JobCheckpoint)
  // The policy preempted the current (or last) run at preempted_at; preempt_saves: it saves
  // its work before it stops (scheduler.preemption), else it stopped at once, losing it.
  bool preempted : 1 = false;
  bool preempt_saves : 1 = false;
};

struct JobStats {
  sim::SimTime start;              // first start
  sim::SimTime end;
  double held_gpu_s = 0;           // GPU-seconds held over all runs (ended runs)
  // The others (interruptions, lost work, checkpoint and restart GPU-seconds) are in
  // JobExtras: a plain job that runs once has none (Job::interruptions() and so on).
};

struct Job : JobRequest, JobRun, JobStats {
  // GPUs held, counting a shared GPU by the job's share of it: GPU-seconds per second.
  double gpu_share_held() const { return gpus_held() * (gpu_milli / 1000.0); }
  // All its work once it has started (0 before: nothing of it is counted yet).
  double work_total() const { return started_once ? total_work() : 0.0; }
  double work_done() const { return work_total() - progress.remaining; }
  // Work done by t, at the current rate, without booking it (a view changes nothing).
  double work_done_at(sim::SimTime t) const { return work_total() - progress.remaining_at(t); }
  // Its checkpoint state: JobCheckpoint::NONE until something checkpoints it (a plain job
  // never carries those 100-odd bytes: docs/engine.md, "A million jobs").
  const JobCheckpoint& ckpt() const {
    const JobExtras& e = extras();
    return e.ckpt ? *e.ckpt : JobCheckpoint::NONE;
  }
  JobCheckpoint& ckpt_mut() {
    JobExtras& e = extras_mut();
    return e.ckpt ? *e.ckpt : e.ckpt.emplace();
  }
  bool has_ckpt() const { return has_extras() && extras().ckpt.has_value(); }
  // The run's and the stats' fields that few jobs have (JobExtras), read as zeros without.
  double samples_per_s() const { return extras().samples_per_s; }
  double step_s() const { return extras().step_s; }
  int bottleneck() const { return extras().bottleneck; }
  sim::SimTime overhead_until() const { return extras().overhead_until; }
  sim::SimTime preempted_at() const { return extras().preempted_at; }
  double stopped_work() const { return extras().stopped_work; }
  int interruptions() const { return extras().interruptions; }
  int preemptions() const { return extras().preemptions; }
  int checkpoints() const { return extras().checkpoints; }
  double lost_work() const { return extras().lost_work; }
  double lost_gpu_s() const { return extras().lost_gpu_s; }
  double stop_lost_gpu_s() const { return extras().stop_lost_gpu_s; }
  double checkpoint_gpu_s() const { return extras().checkpoint_gpu_s; }
  double restart_gpu_s() const { return extras().restart_gpu_s; }
};

}  // namespace gcsim::models
