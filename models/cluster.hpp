// The cluster as the simulation runs it: nodes with free GPUs, the job queue, and the
// events that move jobs through it (arrival, start, checkpoint, interruption, finish, end
// of run). It asks the scheduling policy for decisions and applies them. Markets take nodes
// away and give them back through NodeEventSink (models/spot); budgets hold and stop a
// team's jobs. Accounting and tracing are observers: they subscribe to the signals below;
// the cluster never calls them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/scheduler/scheduler.hpp"
#include "models/spot/node_events.hpp"
#include "models/workload/job.hpp"
#include "sim/engine.hpp"
#include "sim/signal.hpp"

namespace gcsim::models {

struct NodeState {
  std::uint16_t type = 0;
  int gpus = 0;
  std::uint64_t busy_mask = 0;  // which of its (at most 64) GPUs are taken; free counts live in the scheduler's view
  bool up = true;               // placeable and billed (a market may take it down)
  bool noticed = false;         // up, but will be taken at down_at: no new jobs
  sim::SimTime up_since;
  sim::SimTime down_at;
  std::uint32_t first_gpu = 0;  // index of its GPU 0 in the cluster-wide GPU numbering
  double busy_gpu_s = 0;        // GPU-seconds of ended job runs on it
};

class Cluster final : public NodeEventSink {
 public:
  Cluster(sim::Engine& engine, const Scenario& scenario, std::vector<Job> jobs, std::unique_ptr<Scheduler> policy);

  // Schedules the first arrival and the end of the run. Call once, before Engine::run().
  void start();

  const std::vector<Job>& jobs() const { return jobs_; }
  const std::vector<NodeState>& nodes() const { return nodes_; }
  const std::vector<NodeTypeView>& types() const { return types_; }
  std::span<const std::uint32_t> nodes_of(const Job& j) const {
    return {held_nodes_.data() + j.nodes_offset, j.nodes_count};
  }
  int total_gpus() const { return total_gpus_; }
  int up_gpus() const { return up_gpus_; }  // GPUs of nodes that are up
  int allocated_gpus() const { return allocated_gpus_; }
  bool ended() const { return ended_; }

  // Changes a running job's speed (work units per second, > 0) from now on: its progress so
  // far is kept and its finish event moves accordingly.
  void set_rate(std::uint32_t job, double units_per_s);
  // set_rate for a model-described job, also recording the step-time figures behind the
  // new speed (Job::samples_per_s, step_s, bottleneck) so the trace shows the final ones.
  void set_model_speed(std::uint32_t job, double samples_per_s, double step_s, int bottleneck);
  // The job holds its GPUs but makes no progress for `delay` more (staging its data):
  // progress resumes at max(now, Job::progress_at) + delay and the finish event moves
  // accordingly. Not for driven jobs.
  void delay_progress(std::uint32_t job, sim::SimTime delay);
  // The job makes no progress until `at` (>= now; earlier or later than set before), for a
  // hold whose end is only predicted (staging that shares its source tier). Not for driven jobs.
  void hold_progress_until(std::uint32_t job, sim::SimTime at);
  // The speed a job gets on a node type when nothing else slows it down (work units per
  // second); for model-described jobs, the step-time model's samples per second.
  double nominal_rate(Job& job, int node_type) const;
  // Ends a job whose progress a driver runs (Job::comm): releases its nodes as a finish
  // event would. Call at the instant it finishes.
  void finish_job(std::uint32_t job);
  sim::SimTime end_time() const { return end_time_; }
  sim::SimTime now() const { return engine_.now(); }

  // NodeEventSink: a market takes nodes away and gives them back (see node_events.hpp). On
  // notice, a job that can write its checkpoint before the node goes does so and stops
  // (the SIGTERM handler); otherwise it runs on and, when the node goes, loses the work
  // since its last committed checkpoint. Either way it goes back to the queue.
  void notice(std::uint32_t node, sim::SimTime down_at) override;
  void down(std::uint32_t node) override;
  void up(std::uint32_t node) override;

  // The checkpoint write in progress now ends at `done_at` (>= now): its commit, and a
  // paused job's progress, move with it.
  void move_checkpoint_write(std::uint32_t job, sim::SimTime done_at);

  // Budgets: hold a team's queued jobs (and, with stop_running, stop its running ones after
  // a checkpoint) until release_team.
  void hold_team(int team, bool stop_running);
  void release_team(int team);
  bool team_held(int team) const { return team >= 0 && static_cast<std::size_t>(team) < held_teams_.size() && held_teams_[static_cast<std::size_t>(team)]; }

  // Signals, in the order things happen at one instant.
  sim::Signal<const Job&> job_submitted;
  sim::Signal<const Job&> job_started;  // every run, restarts too; Job::gpu_mask names its GPUs on each node
  sim::Signal<const Job&> job_finished;
  // A run ended without finishing (interruption, budget stop): the job left its nodes
  // (nodes_of still names them) and is queued or held again. Job::lost_work says what the
  // last run lost. Emitted before the job's nodes go down.
  sim::Signal<const Job&> job_stopped;
  sim::Signal<const Job&> checkpoint_written;  // committed at now; Job::ckpt_work is what it saved
  sim::Signal<const Job&> restore_started;     // a restart began restoring its checkpoint (after job_started)
  // A checkpoint write to a storage tier began (CheckpointSpec::tier set); it is expected
  // to end at Job::ckpt_done_at. The storage model moves that with move_checkpoint_write as
  // the tier's bandwidth is shared.
  sim::Signal<const Job&> checkpoint_started;
  sim::Signal<std::uint32_t, sim::SimTime> node_noticed;
  sim::Signal<std::uint32_t> node_down;
  sim::Signal<std::uint32_t> node_up;
  sim::Signal<sim::SimTime> run_ended;  // jobs still running/queued have their final status

 private:
  void on_arrival(std::uint64_t job);
  void on_finish(std::uint64_t job);
  void on_schedule(std::uint64_t);
  void on_end(std::uint64_t);
  void request_schedule();
  void start_job(Job& job, const Placement& p, const Decisions& d);
  void schedule_finish(Job& job);
  void accrue(Job& job);
  void release_nodes(Job& job);
  void refresh_view(std::uint32_t node);
  void stop_job(Job& job);                    // ends its run now; back to the queue (or held)
  void enqueue(const Job& job);               // into queue_ or held_, in submit order
  void schedule_checkpoint(Job& job);
  void begin_last_checkpoint(Job& job, sim::SimTime stop_at);
  void on_checkpoint(std::uint64_t arg);
  void on_checkpoint_done(std::uint64_t arg);
  void on_last_checkpoint_done(std::uint64_t arg);
  void commit_last_checkpoint(Job& job);
  void on_budget_stop(std::uint64_t arg);
  Job* live(std::uint64_t arg);               // the job an event names, if still in the same run
  static std::uint64_t event_arg(const Job& j) { return std::uint64_t{j.id} << 32 | j.incarnation; }
  template <class F>
  void for_each_job_on(std::uint32_t node, F&& f);

  sim::Engine& engine_;
  const Scenario& scenario_;
  std::vector<Job> jobs_;
  std::unique_ptr<Scheduler> policy_;
  std::vector<NodeTypeView> types_;
  std::vector<NodeState> nodes_;
  std::vector<NodeView> view_nodes_;  // what policies see; kept current at every start and finish
  std::vector<QueuedJob> queue_;
  std::vector<QueuedJob> held_;              // queued jobs of held teams
  std::vector<std::uint8_t> held_teams_;
  std::vector<std::uint32_t> gpu_job_;       // per GPU (NodeState::first_gpu + local): job id, or NO_JOB
  std::vector<std::uint32_t> scratch_jobs_;
  std::vector<std::uint32_t> held_nodes_;
  Decisions decisions_;
  std::vector<std::uint8_t> placed_;  // scratch: queue entries placed this pass
  std::size_t next_arrival_ = 0;
  std::size_t running_ = 0;
  int total_gpus_ = 0;
  int up_gpus_ = 0;
  int allocated_gpus_ = 0;
  bool schedule_pending_ = false;
  bool ended_ = false;
  sim::SimTime end_time_;
  sim::EventId end_event_;
};

}  // namespace gcsim::models
