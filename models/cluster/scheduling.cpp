// The cluster's scheduling passes (see cluster.hpp and models/scheduler/scheduler.hpp).
// A pass runs at PRIORITY_SCHEDULE, once per instant however many arrivals, finishes, stops
// and holds asked for one, and at the wake-up times the policy asks for. The policy's
// decisions are all checked before any is applied; then placements start in order (each
// checked again against the capacity the earlier ones left), then preemptions stop their
// jobs, which puts them back in the queue and asks for another pass at the same instant
// (which sees the GPUs a losing preemption, or a save of 0 s, freed).
#include <algorithm>
#include <bit>
#include <cstdio>

#include "models/cluster/cluster.hpp"
#include "models/core/event_priorities.hpp"
#include "sim/check.hpp"
#include "sim/units.hpp"

namespace gcsim::models {

void Cluster::request_schedule() {
  if (schedule_pending_) return;
  schedule_pending_ = true;
  engine_.schedule_at<&Cluster::on_schedule>(engine_.now(), this, 0, PRIORITY_SCHEDULE);
}

void Cluster::on_wake(std::uint64_t) {
  wake_at_ = sim::SimTime::max();
  woken_ = true;
  request_schedule();
}

void Cluster::on_schedule(std::uint64_t) {
  schedule_pending_ = false;
  const bool woken = woken_;
  woken_ = false;
  // With nobody waiting there is nothing to place; a policy is still called at the
  // wake-up it asked for.
  if (queue_.waiting().empty() && !woken) {
    // Unread, the log is kept for the next pass to follow while it is shorter than the
    // nodes; past that, dropped: placement indexes notice the gap and compare node by node.
    if (alloc_.changes().nodes.size() > alloc_.nodes().size()) alloc_.drop_changes();
    return;
  }
  refresh_prices();
  running_view_.clear();
  running_nodes_.clear();
  if (policy_->wants_running_jobs()) build_running_view();
  ClusterView view{engine_.now(), types_, alloc_.view(), running_view_, running_nodes_, this, this};
  view.node_group = node_group_;
  view.changes = &alloc_.changes();
  view.recorded_node_sets = scenario_.workload.recorded_node_sets;
  if (shares_gpus_) view.gpu_room = alloc_.gpu_room();
  decisions_.clear();
  policy_->schedule(view, queue_.waiting(), decisions_);
  alloc_.drop_changes();  // the pass has seen them; what it starts and stops is logged for the next
  validate(decisions_);
  if (!decisions_.wake_at.is_max()) {
    if (!wake_at_.is_max()) engine_.cancel(wake_event_);
    wake_at_ = decisions_.wake_at;
    wake_event_ = engine_.schedule_at<&Cluster::on_wake>(wake_at_, this, 0, PRIORITY_SCHEDULE);
  }
  for (const Placement& p : decisions_.placements) {
    const QueuedJob entry = queue_.waiting()[p.job];
    queue_.remove_placed(p.job);
    start_job(jobs_[p.job], p, decisions_);
    policy_->run_started(entry, engine_.now());
  }
  for (const Preemption& p : decisions_.preemptions) preempt(jobs_[p.job], p);
}

void Cluster::validate(const Decisions& d) {
  const std::string& policy = scheduler_->policy;
  auto who = [&] { return "policy '" + policy + "'"; };
  const WaitingJobs& waiting = queue_.waiting();
  // Placements: of waiting jobs, each once (the rest is checked as each one starts).
  placed_.clear();
  for (const Placement& p : d.placements) {
    GCSIM_CHECK(waiting.contains(p.job), who() + " placed job " + std::to_string(p.job) + ", which is not waiting");
    placed_.push_back(p.job);
  }
  std::sort(placed_.begin(), placed_.end());
  const auto placed_twice = std::adjacent_find(placed_.begin(), placed_.end());
  GCSIM_CHECK(placed_twice == placed_.end(), who() + " placed job '" + jobs_[*placed_twice].name + "' twice in one pass");
  // Preemptions: of running jobs, each once, not already on their way out.
  preempt_ids_.clear();
  for (const Preemption& p : d.preemptions) {
    GCSIM_CHECK(p.job < jobs_.size(), who() + " preempted job " + std::to_string(p.job) + ", which does not exist");
    const Job& j = jobs_[p.job];
    GCSIM_CHECK(j.status == JobStatus::Running, who() + " preempted job '" + j.name + "', which is not running");
    GCSIM_CHECK(!j.stopping, who() + " preempted job '" + j.name + "', which is already stopping after a checkpoint");
    // A pass never takes back at one instant the room a pass gave at that instant: a run
    // that started now is no victim now. Without this a pass can preempt a job, place it
    // (or a job behind the one it made room for) in the room it freed, and preempt it
    // again, at one instant without end (docs/scheduling.md, "One
    // preemption per run and instant"). Every preemption at an instant stops
    // a run that started before it, so passes at one instant end.
    GCSIM_CHECK(j.run_start < engine_.now(), who() + " preempted job '" + j.name + "' at " +
                                                 std::to_string(engine_.now().seconds()) +
                                                 " s, the instant its run started: a pass gave it room and a pass "
                                                 "takes it back at one instant (a livelock)");
    preempt_ids_.push_back(p.job);
  }
  std::sort(preempt_ids_.begin(), preempt_ids_.end());
  const auto twice = std::adjacent_find(preempt_ids_.begin(), preempt_ids_.end());
  GCSIM_CHECK(twice == preempt_ids_.end(), who() + " preempted job '" + jobs_[*twice].name + "' twice in one pass");
  GCSIM_CHECK(d.wake_at > engine_.now(), who() + " asked to be woken at " + std::to_string(d.wake_at.seconds()) +
                                             " s, not after now (" + std::to_string(engine_.now().seconds()) + " s)");
}

// How the job stops is the scenario's (PreemptionSpec). A saving preemption with a given
// `save` is a pause of that length that keeps all the work; without one it is the job's
// ordinary last checkpoint, through its tier if it has one. A network-driven job (its steps
// are not checkpointed) and, by default, a job without checkpoints cannot save: they lose
// their run, as with `mode: lose`; unless the policy's default keeps its work
// (keep_without_checkpoint: las), a save and restore of no time.
void Cluster::preempt(Job& j, const Preemption& p) {
  const PreemptionSpec& how = scheduler_->preemption;
  j.preempt_reason = p.reason;
  j.preempted = true;
  j.extras_mut().preempted_at = engine_.now();
  j.preempt_saves = how.mode == PreemptionMode::Save && !j.driven && (how.save || j.checkpoint() || how.keep_without_checkpoint);
  if (!j.preempt_saves) {
    stop_job(j, StopReason::Preempted);
    guard_livelock();
  } else if (how.save) plan_stop_after_checkpoint(j, StopReason::Preempted, *how.save, true);
  else if (j.checkpoint()) plan_stop_after_checkpoint(j, StopReason::Preempted, j.checkpoint()->write_time, false);
  else plan_stop_after_checkpoint(j, StopReason::Preempted, sim::SimTime::zero(), true);  // the policy's default
}

// Under run_until: done a run ends when its last job does. Preemptions that lose their
// work can keep a set of jobs running and stopping for ever (las with `mode: lose`: each
// run is cut at the next round before the job is done; docs/scheduling.md, "las"): the run
// would go on to the horizon doing nothing useful. Without a completion or an arrival,
// the set of live jobs is fixed, so STALL_PER_JOB such preemptions per live job (and at
// least STALL_MIN) mean that this set is cycling, not progressing: the run ends there and
// run_simulation reports it as an error. A preemption that keeps its work always makes
// progress (the work left only shrinks), so the guard counts only those that lose it.
void Cluster::guard_livelock() {
  constexpr std::uint64_t STALL_MIN = 100;
  constexpr std::uint64_t STALL_PER_JOB = 10;
  if (scenario_.run_until != RunUntil::Done || ended_) return;
  const std::size_t waiting = queue_.waiting().size() + queue_.held().size();
  const std::uint64_t live = waiting + running_.size();
  if (++lost_preemptions_ < std::max(STALL_MIN, STALL_PER_JOB * live)) return;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(lost_preemptions_));
  stall_note_ = "no progress (a livelock): from " + units::format_duration_s(progress_at_.seconds()) + " to " +
                units::format_duration_s(engine_.now().seconds()) + " no job completed and none arrived, while " +
                buf + " preemptions by the policy lost their runs' work (" + std::to_string(waiting) +
                " jobs waiting, " + std::to_string(running_.size()) +
                " running). Preempted jobs without checkpoints lose their runs: give them checkpoints or "
                "`scheduler.preemption: {save: ..., restore: ...}`, or end at the horizon (run_until: horizon)";
  engine_.cancel(end_event_);
  end_event_ = engine_.schedule_at<&Cluster::on_end>(engine_.now(), this, 0, PRIORITY_END);
}

void Cluster::refresh_prices() {
  const sim::SimTime now = engine_.now();
  for (std::size_t t = 0; t < types_.size(); ++t) {
    const NodeTypeSpec& nt = scenario_.cluster.node_types[t];
    types_[t].usd_per_gpu_hour_now = nt.price.usd_per_hour_at(now) / nt.gpus;
  }
}

void Cluster::build_running_view() {
  const sim::SimTime now = engine_.now();
  for (std::uint32_t id : running_) {
    const Job& j = jobs_[id];
    RunningJob r;
    static_cast<QueuedJob&>(r) = queue_entry(j);
    const double run_s = (now - j.run_start).seconds();
    r.attained_gpu_s = j.held_gpu_s + run_s * j.gpu_share_held();
    if (j.driven) {
      r.remaining_s = UNKNOWN;
    } else {
      // Progress to now, without booking it (a view changes nothing).
      const double left = j.progress.remaining_at(now);
      r.remaining_s = j.has_duration && !j.training() ? left : left / j.progress.rate;
    }
    r.node_type = j.node_type;
    r.first = static_cast<std::uint32_t>(running_nodes_.size());
    r.count = j.nodes_count;
    r.gpus_per_node = j.gpus_per_node_held;
    if (j.shares_gpu() && j.gpu_mask != 0) r.gpu = std::countr_zero(j.gpu_mask);
    r.since = j.run_start;
    r.stopping = j.stopping;
    const auto nodes = alloc_.nodes_of(j);
    running_nodes_.insert(running_nodes_.end(), nodes.begin(), nodes.end());
    running_view_.push_back(r);
  }
  // In job id order, whatever order the runs started and ended in.
  std::sort(running_view_.begin(), running_view_.end(),
            [](const RunningJob& a, const RunningJob& b) { return a.job < b.job; });
}

}  // namespace gcsim::models
