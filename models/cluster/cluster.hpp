// The cluster as the simulation runs it: a façade over the parts that each keep one thing
//   NodeAllocator         nodes, who holds which GPU, the node view (node_allocator.hpp)
//   JobQueue              waiting and held jobs in submit order, team holds (job_queue.hpp)
//   CheckpointController  periodic and last checkpoints, commits (checkpoint_controller.hpp)
//   interruptions         node slots coming and going: a market's notice / down / up
//                         (NodeEventSink) and controllers' requests, drains and releases
//                         (interruptions.cpp)
// and of the job lifecycle it drives itself: arrival, start, progress, stop, finish, end
// of run. It asks the scheduling policy for decisions (models/scheduler/scheduler.hpp),
// checks them and applies them. Controllers (budgets) hold and stop a team's jobs from
// events of their own, never from inside one of the signals below (docs/engine.md,
// "Controllers"). Accounting and tracing are observers: they subscribe to the signals
// below; the cluster never calls them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/cluster/checkpoint_controller.hpp"
#include "models/cluster/job_queue.hpp"
#include "models/cluster/node_allocator.hpp"
#include "models/cluster/rate_provider.hpp"
#include "models/config/scenario.hpp"
#include "models/scheduler/scheduler.hpp"
#include "models/spot/node_events.hpp"
#include "models/workload/job.hpp"
#include "models/workload/job_source.hpp"
#include "sim/allocator.hpp"
#include "sim/engine.hpp"
#include "sim/signal.hpp"

namespace gcsim::models {

// Each node's leaf switch under `network` (ClusterView::node_group, for the topology
// placement): leaf-spine, node n / nodes_per_leaf; fat-tree, the edge switch of the node's
// first NIC (NICs take the edge ports in node order, k/2 to a switch, as build_topology
// attaches them); single-switch, 0 for every node. Empty for an explicit fabric (its
// switches have no levels to call one a leaf).
std::vector<std::uint32_t> node_groups(const ClusterSpec& cluster, const topology::NetworkSpec& network);

// The node types as policies see them, in the scenario's order: the Cluster's view is
// built from this, and `gcsim estimate` asks policies with it.
std::vector<NodeTypeView> node_type_views(const ClusterSpec& cluster);

class Cluster final : public NodeEventSink, public RunningJobs, public JobSpeeds {
 public:
  Cluster(sim::Engine& engine, const Scenario& scenario, std::vector<Job> jobs, std::unique_ptr<Scheduler> policy);
  // Streamed: the jobs are taken from `source` as the run reaches them (docs/engine.md,
  // "Jobs taken as they come"), each made at its predecessor's arrival and given the next id,
  // so jobs() holds the jobs that came (and the next one); a job submitted after the
  // horizon is never made (jobs_not_made() counts it). The source's jobs must be plain: no
  // model, no comm, no share of a GPU (their couplings and the GPU-room view are set up
  // from the jobs given when the run is built; streamable() in models/config/scenario.hpp).
  Cluster(sim::Engine& engine, const Scenario& scenario, std::unique_ptr<JobSource> source,
          std::unique_ptr<Scheduler> policy);

  // Schedules the first arrival and the end of the run. Call once, before Engine::run().
  void start();

  // A job that comes during the run (a streaming trace importer, a closed-loop or serving
  // workload; issues 31, 33): it gets the next id (jobs().size() before the call) and from
  // its submit time on is queued, scheduled, traced and billed as a job given up front.
  // request.submit >= now(); at now it arrives at once (queued for this instant's
  // scheduling pass), later at an arrival event of its own (PRIORITY_STATE). The caller
  // sets eligible_types (eligible_node_types()) and the spec pointers, which must outlive
  // the cluster. Call it from an event (a controller's, PRIORITY_CONTROL), never from
  // inside one of the signals below: jobs() may grow, so references to jobs are void
  // after it. Model-described jobs and jobs with `comm` are not yet accepted (their
  // couplings size their tables when built).
  std::uint32_t submit(JobRequest request);

  const std::vector<Job>& jobs() const { return jobs_; }
  // The workload's jobs submitted after the horizon that were never made (a streamed run
  // stops taking jobs there), or that the caller left out (add_jobs_not_made): they are in
  // no table of the trace, only counted (the root attribute jobs_after_horizon).
  std::size_t jobs_not_made() const { return jobs_not_made_; }
  void add_jobs_not_made(std::size_t n) { jobs_not_made_ += n; }
  const Scheduler& policy() const { return *policy_; }
  const std::vector<NodeState>& nodes() const { return alloc_.nodes(); }
  const std::vector<NodeTypeView>& types() const { return types_; }
  std::span<const std::uint32_t> nodes_of(const Job& j) const { return alloc_.nodes_of(j); }
  int total_gpus() const { return alloc_.total_gpus(); }
  int up_gpus() const { return alloc_.up_gpus(); }  // GPUs of nodes that are up
  double allocated_gpus() const { return alloc_.allocated_gpus(); }  // a shared GPU counts its jobs' shares
  bool ended() const { return ended_; }
  // Under run_until: done, the run was ended for want of progress: preemptions that lost
  // their work kept coming with no job completing and none arriving (a livelock; see
  // stall_note()). Empty: it was not.
  const std::string& stall_note() const { return stall_note_; }

  // The source of model-described jobs' starting speeds (ModelSpeeds registers itself).
  // Required before a model-described job starts.
  void set_rate_provider(RateProvider& rates) { rates_ = &rates; }
  // The scheduler section this run's policy came from (RunOptions::scheduler: a policy
  // sweep shares one Scenario); default the scenario's own. Set before start().
  void set_scheduler_spec(const SchedulerSpec& spec) { scheduler_ = &spec; }
  const SchedulerSpec& scheduler_spec() const { return *scheduler_; }
  // Changes a running job's speed (work units per second, > 0) from now on: its progress so
  // far is kept and its finish event moves accordingly.
  void set_rate(std::uint32_t job, double units_per_s);
  // set_rate for a model-described job, also recording the step-time figures behind the
  // new speed (Job::samples_per_s, step_s, bottleneck) so the trace shows the final ones.
  void set_model_speed(std::uint32_t job, const ModelSpeed& speed);
  // The job holds its GPUs but makes no progress for `delay` more (staging its data):
  // progress resumes at max(now, Job::progress.updated) + delay and the finish event moves
  // accordingly. Not for driven jobs.
  void delay_progress(std::uint32_t job, sim::SimTime delay);
  // The job makes no progress until `at` (>= now; earlier or later than set before), for a
  // hold whose end is only predicted (staging that shares its source tier). Not for driven jobs.
  void hold_progress_until(std::uint32_t job, sim::SimTime at);
  // Ends a job whose progress a driver runs (Job::comm, or JobRequest::open_ended: a
  // service's replica): releases its nodes as a finish event would, billed and traced as
  // any finish. Call at the instant it finishes, from an event of the caller's.
  void finish_job(std::uint32_t job);
  sim::SimTime end_time() const { return end_time_; }
  sim::SimTime now() const { return engine_.now(); }

  // NodeEventSink: a market takes nodes away and gives them back (see node_events.hpp). On
  // notice, a job that can write its checkpoint before the node goes does so and stops
  // (the SIGTERM handler); otherwise it runs on and, when the node goes, loses the work
  // since its last committed checkpoint. Either way it goes back to the queue.
  void notice(std::uint32_t node, sim::SimTime down_at) override;
  void down(std::uint32_t node, NodeReason why) override;
  void provisioning(std::uint32_t node, NodeReason why) override;
  void up(std::uint32_t node, NodeReason why) override;

  // Controllers (autoscalers): node slots that come and go, from an event of their own at
  // PRIORITY_CONTROL, never from inside a signal (docs/engine.md, "Nodes that come and go").
  // The slots of a type are fixed when the cluster is built (NodeTypeSpec::slots()). The
  // slots of a spot type are the market's: they come and go through its ElasticSupply
  // (set_supply; InternalError without one), which supplies them only while it has capacity.
  //
  // Takes the lowest released slot of `type`: provisioning for `provisioning`, then up
  // (reason scale_out); billed from now when bill_provisioning (a launched instance is billed
  // while it boots), else from when it is up. nullopt when the type has no released slot,
  // or for a spot type when its market has no capacity now (spot_supply() is 0): the market
  // provisions it, for its pool's own delay (the reader makes the two one).
  std::optional<std::uint32_t> request_node(int type, sim::SimTime provisioning, bool bill_provisioning = true);
  // Scale-in: the node takes no new jobs (draining); it is released when its last job ends,
  // or at `deadline`, when the jobs still on it stop (StopReason::NodeReleased; not an
  // interruption). A job with checkpoints that would not finish by then writes a last one
  // ending at the deadline (as on a market's notice, but it computes until it must write);
  // others lose the work since their last checkpoint. A node without jobs is released at
  // once. False (nothing changes) unless the node is up.
  bool drain_node(std::uint32_t node, sim::SimTime deadline = sim::SimTime::max());
  // Gives the node back now: its jobs stop (StopReason::NodeReleased), a request still
  // provisioning is cancelled. False unless it is provisioning, up or draining.
  bool release_node(std::uint32_t node);
  // Released slots of `type` left for request_node.
  int released_slots(int type) const;
  // The market of spot types' elastic pools (the spot market part sets it; not owned).
  void set_supply(ElasticSupply* supply) { supply_ = supply; }
  // Nodes request_node could take for `type` now: its released slots, and for a spot type no
  // more than its market can supply now (ElasticSupply::supply_now).
  int spot_supply(int type) const;
  // For a spot type, the first time after now its market's supply may rise (max(): never,
  // and for other types).
  sim::SimTime next_supply_change(int type) const;

  // The checkpoint write in progress now ends at `done_at` (>= now): its commit, and a
  // paused job's progress, move with it.
  void move_checkpoint_write(std::uint32_t job, sim::SimTime done_at);

  // Budgets: hold a team's queued jobs (and, with stop_running, stop its running ones after
  // a checkpoint) until release_team. For controllers, from an event of their own.
  void hold_team(int team, bool stop_running);
  void release_team(int team);
  bool team_held(int team) const { return queue_.team_held(team); }
  // The queued jobs: those waiting for GPUs, and those a team hold keeps out of the policy's
  // sight (held by a budget until release_team).
  const WaitingJobs& waiting_jobs() const { return queue_.waiting(); }
  std::span<const QueuedJob> held_jobs() const { return queue_.held(); }
  // RunningJobs: where a running job runs, for policies.
  RunningPlace where(std::uint32_t job) const override;
  double time_left_alone_s(std::uint32_t job, int type) const override;

  // Signals, in the order things happen at one instant.
  sim::Signal<const Job&> job_submitted;
  sim::Signal<const Job&> job_started;  // every run, restarts too; Job::gpu_mask names its GPUs on each node
  sim::Signal<const Job&> job_finished;
  // A run ended without finishing (interruption, budget stop, preemption: Job::stop_reason):
  // the job left its nodes (nodes_of still names them) and is queued or held again.
  // Job::lost_work says what the last run lost. Emitted before the job's nodes go down.
  sim::Signal<const Job&> job_stopped;
  sim::Signal<const Job&> checkpoint_written;  // committed at now; Job::ckpt_work is what it saved
  sim::Signal<const Job&> restore_started;     // a restart began restoring its checkpoint (after job_started)
  // A checkpoint write to a storage tier began (CheckpointSpec::tier set); it is expected
  // to end at Job::ckpt_done_at. The storage model moves that with move_checkpoint_write as
  // the tier's bandwidth is shared.
  sim::Signal<const Job&> checkpoint_started;
  sim::Signal<std::uint32_t, sim::SimTime> node_noticed;  // a market's notice (draining)
  sim::Signal<std::uint32_t> node_down;  // an up or draining node went down or was released
  sim::Signal<std::uint32_t> node_up;
  // Every change of a slot's phase, with its reason: emitted right after the change, before
  // the node_noticed, node_down or node_up of the same change (and after its jobs' stops).
  sim::Signal<const NodeTransition&> node_changed;
  // A team was held (true: its queued jobs moved to held_jobs(), before its running ones are
  // stopped) or released (false: they are back in waiting_jobs(), before the scheduling pass
  // it asks for). Demand figures leave held jobs out (PoolGauges).
  sim::Signal<int, bool> team_hold_changed;
  sim::Signal<sim::SimTime> run_ended;  // jobs still running/queued have their final status

 private:
  friend class CheckpointController;

  // Lifecycle.
  void on_arrival(std::uint64_t job);          // a job given up front; schedules the next one's
  void on_submitted_arrival(std::uint64_t job);  // a job given to submit() for a later time
  void on_streamed_arrival(std::uint64_t job);   // a job taken from the source; takes the next
  // Takes the source's next job, made and given the next id, and schedules its arrival;
  // false (and the source is done) when none is left by the horizon.
  bool take_from_source();
  void arrive(Job& j);
  // Jobs after the horizon never come, made or not: under run_until: done such a run is
  // not done before the horizon (as when they were given and never arrived).
  bool no_more_arrivals() const {
    return next_arrival_ >= upfront_jobs_ && pending_submits_ == 0 && source_ == nullptr && jobs_not_made_ == 0;
  }
  void on_finish(std::uint64_t job);
  void on_end(std::uint64_t);
  void start_job(Job& job, const Placement& p, const Decisions& d);
  void stop_job(Job& job, StopReason why);  // ends its run now; back to the queue (or held)
  QueuedJob queue_entry(const Job& j) const;
  void add_running(const Job& j);
  void remove_running(const Job& j);
  void requeue(const Job& j) { queue_.add(queue_entry(j)); }
  // A job's run time alone on the fastest node type it may use (QueuedJob::length_s): its
  // duration, or its work at its best rate; a model-described job's is kept from its first
  // arrival (JobExtras::alone_s). alone_s computes it.
  double job_alone_s(const Job& j) const;
  double alone_s(const Job& j) const;
  double alone_rate(const Job& j, std::size_t type) const;  // work per second alone on a node type
  // alone_rate of model jobs by job * types + type, NaN until asked (time_left_alone_s);
  // empty unless a policy asks.
  mutable std::vector<double> model_rate_;
  // Progress.
  double start_rate(Job& j);
  void schedule_finish(Job& job);
  void accrue(Job& job);
  // Scheduling passes (scheduling.cpp).
  void request_schedule();
  void on_schedule(std::uint64_t);
  void on_wake(std::uint64_t);
  void build_running_view();
  void refresh_prices();
  // InternalError naming the policy for an invalid decision; flags the placed entries in placed_.
  void validate(const Decisions& d);
  void preempt(Job& j, const Preemption& p);
  void guard_livelock();  // after a preemption that lost its work
  // A stop planned for a time (a budget's or a policy's, after a last checkpoint).
  void on_planned_stop(std::uint64_t arg);
  // Writes a last checkpoint taking `write` (a preemption's `save` when `is_save`: no tier
  // traffic, kept whatever the job's checkpoints) and ends the run when it is committed.
  void plan_stop_after_checkpoint(Job& j, StopReason why, sim::SimTime write, bool is_save);

  // InternalError unless the job is running (what: the operation, for the message).
  void check_running(const Job& job, const char* what) const;
  Job* live(std::uint64_t arg);               // the job an event names, if still in the same run
  static std::uint64_t event_arg(const Job& j) { return std::uint64_t{j.id} << 32 | j.incarnation; }
  // Calls f on each job holding GPUs of node n, each once, in GPU order; collected first
  // because f may release them.
  template <class F>
  void for_each_job_on(std::uint32_t node, F&& f);
  // Moves node n to `to` and tells the observers (node_changed). False when it does not apply.
  bool move_node(std::uint32_t n, NodePhase to, NodeReason why, bool billed = false,
                 sim::SimTime down_at = sim::SimTime::max());
  // Stops the jobs on node n (why) and takes it out of service (to: down or released).
  void take_node(std::uint32_t n, NodePhase to, NodeReason why, StopReason stop);
  void on_provisioned(std::uint64_t node);
  void on_drain_deadline(std::uint64_t node);
  void on_drain_checkpoint(std::uint64_t job);  // a job's last checkpoint before its node's drain deadline
  // A draining (scale-in) node whose last job ended is released.
  void release_if_drained(std::uint32_t n);
  void release_drained_nodes_of(const Job& j);

  sim::Engine& engine_;
  const Scenario& scenario_;
  const SchedulerSpec* scheduler_ = &scenario_.scheduler;
  std::vector<Job> jobs_;
  sim::PrefaultAhead jobs_ahead_;  // jobs_'s next pages, as a source's jobs are taken (take_from_source)
  std::unique_ptr<Scheduler> policy_;
  RateProvider* rates_ = nullptr;
  ElasticSupply* supply_ = nullptr;
  NodeAllocator alloc_;
  JobQueue queue_;
  CheckpointController checkpoints_;
  std::vector<NodeTypeView> types_;
  std::vector<std::uint32_t> node_group_;    // ClusterView::node_group (node_groups())
  std::vector<RunningJob> running_view_;     // scratch: running jobs, for policies that want them
  std::vector<std::uint32_t> running_nodes_;
  std::vector<std::uint32_t> scratch_jobs_;
  Decisions decisions_;
  std::vector<std::uint32_t> placed_;  // scratch: the jobs a pass places
  std::vector<std::uint32_t> preempt_ids_;  // scratch: the jobs a pass preempts
  std::size_t next_arrival_ = 0;
  std::size_t upfront_jobs_ = 0;      // jobs given to the constructor, in submit order: ids 0..upfront_jobs_-1
  std::unique_ptr<JobSource> source_;  // streamed: where the next jobs come from; null once it is done
  std::size_t jobs_not_made_ = 0;
  std::size_t pending_submits_ = 0;   // submitted jobs whose arrival event is still to come
  std::vector<std::uint32_t> running_;       // ids of running jobs (unordered)
  std::vector<std::int32_t> running_pos_;    // by job id: index into running_, -1 when not running
  bool schedule_pending_ = false;
  bool shares_gpus_ = false;          // some job shares a GPU: the view carries ClusterView::gpu_room
  bool woken_ = false;                // this pass is a wake-up the policy asked for
  bool ended_ = false;
  // The livelock guard (run_until: done): preemptions that lost work since the last
  // completion or arrival, and since when.
  std::uint64_t lost_preemptions_ = 0;
  sim::SimTime progress_at_;
  std::string stall_note_;
  sim::SimTime end_time_;
  sim::EventId end_event_;
  sim::SimTime wake_at_ = sim::SimTime::max();
  sim::EventId wake_event_;
  std::vector<sim::EventId> node_event_;  // per slot: its provisioning's end or its drain's deadline
  std::int64_t taking_node_ = -1;         // the node take_node is stopping the jobs of
};

}  // namespace gcsim::models
