// The checkpoint state machine (see checkpoint_controller.hpp). Interval: Young/Daly
// (models/workload/checkpoint_interval.hpp). Its events run at PRIORITY_STATE and name a
// run (Cluster::event_arg): an event of an ended run finds it gone and does nothing.
#include "models/cluster/checkpoint_controller.hpp"

#include <algorithm>

#include "models/cluster/cluster.hpp"
#include "models/core/event_priorities.hpp"
#include "models/workload/checkpoint_interval.hpp"
#include "sim/check.hpp"

namespace gcsim::models {

namespace {
// Work within this of the total counts as done (float noise of rate x time).
constexpr double DONE_TOLERANCE = 1e-9;
}  // namespace

CheckpointController::CheckpointController(sim::Engine& engine, const Scenario& scenario, Cluster& cluster)
    : engine_(engine), scenario_(scenario), cluster_(cluster) {}

void CheckpointController::on_run_started(Job& j) {
  if (!j.checkpoint()) return;
  JobCheckpoint& k = j.ckpt_mut();
  const CheckpointSpec& c = *j.checkpoint();
  if (c.optimal) {
    // Young/Daly for the pool it runs on: its nodes' interruption rates add up.
    const double rate = scenario_.cluster.node_types[static_cast<std::size_t>(j.node_type)].interruption_rate_per_s *
                        static_cast<double>(j.nodes_count);
    // At least a second: a free (zero-time) write would otherwise ask for checkpoints
    // without end at one instant.
    k.ckpt_every = rate > 0 ? std::max(sim::seconds(1), sim::SimTime::from_seconds(
                                                           daly_interval_s(c.write_time.seconds(), 1.0 / rate)))
                            : sim::SimTime::max();
  } else {
    k.ckpt_every = c.every;
  }
  if (k.ckpt_every.is_max()) return;
  k.ckpt_due_s = k.progress_s + k.ckpt_every.seconds();
  engine_.schedule_at<&CheckpointController::on_checkpoint>(
      std::max(engine_.now(), j.progress.updated).saturating_add(k.ckpt_every), this, Cluster::event_arg(j), PRIORITY_STATE);
}

void CheckpointController::on_checkpoint(std::uint64_t arg) {
  Job* jp = cluster_.live(arg);
  if (!jp || jp->stopping) return;
  Job& j = *jp;
  JobCheckpoint& k = j.ckpt_mut();
  cluster_.accrue(j);
  if (j.work_done() >= j.work_total() * (1 - DONE_TOLERANCE)) return;  // finishing now: nothing to save
  // Progress was delayed (staging, contention, an earlier pause): come back when due.
  const double short_s = k.ckpt_due_s - k.progress_s;
  if (short_s > 1e-9) {
    engine_.schedule_at<&CheckpointController::on_checkpoint>(
        std::max(engine_.now(), j.progress.updated) + sim::SimTime::from_seconds(short_s), this, arg, PRIORITY_STATE);
    return;
  }
  const CheckpointSpec& c = *j.checkpoint();
  k.pending_ckpt_work = j.work_done();
  k.ckpt_due_s = k.progress_s + k.ckpt_every.seconds();
  if (c.pause) {
    cluster_.delay_progress(j.id, c.write_time);
    j.extras_mut().checkpoint_gpu_s += c.write_time.seconds() * j.gpu_share_held();
    k.write_until = engine_.now() + c.write_time;
  }
  k.ckpt_done_at = engine_.now() + c.write_time;
  k.ckpt_event = engine_.schedule_at<&CheckpointController::on_checkpoint_done>(k.ckpt_done_at, this, arg, PRIORITY_STATE);
  if (!c.tier.empty()) cluster_.checkpoint_started.emit(j);
}

void CheckpointController::move_write(Job& j, sim::SimTime done_at) {
  GCSIM_CHECK(j.checkpoint() && done_at >= engine_.now(),
              "move_checkpoint_write: job '" + j.name + "' has no checkpoints or the time is past");
  JobCheckpoint& k = j.ckpt_mut();
  // A preemption's save lasts what the scenario says: a periodic write it cut short, whose
  // transfer goes on until the run stops, does not move it.
  if (done_at == k.ckpt_done_at || (j.stopping && k.last_is_save)) return;
  const double gpus = j.gpu_share_held();
  if (j.stopping) {
    // A last checkpoint: progress stays stopped until the run ends either way.
    j.extras_mut().checkpoint_gpu_s += (done_at - k.last_ckpt_done_at).seconds() * gpus;
    k.last_ckpt_done_at = done_at;
    k.write_until = done_at;
    engine_.cancel(k.ckpt_event);
    k.ckpt_event = engine_.schedule_at<&CheckpointController::on_last_checkpoint_done>(done_at, this, Cluster::event_arg(j),
                                                                                      PRIORITY_STATE);
  } else {
    if (j.checkpoint()->pause) {
      j.extras_mut().checkpoint_gpu_s += (done_at - k.ckpt_done_at).seconds() * gpus;
      k.write_until = done_at;
      cluster_.hold_progress_until(j.id, done_at);
    }
    engine_.cancel(k.ckpt_event);
    k.ckpt_event = engine_.schedule_at<&CheckpointController::on_checkpoint_done>(done_at, this, Cluster::event_arg(j),
                                                                                 PRIORITY_STATE);
  }
  k.ckpt_done_at = done_at;
}

void CheckpointController::on_checkpoint_done(std::uint64_t arg) {
  Job* jp = cluster_.live(arg);
  if (!jp || jp->stopping) return;
  Job& j = *jp;
  JobCheckpoint& k = j.ckpt_mut();
  k.ckpt_work = k.pending_ckpt_work;
  ++j.extras_mut().checkpoints;
  cluster_.checkpoint_written.emit(j);
  cluster_.accrue(j);
  const double wait_s = std::max(0.0, k.ckpt_due_s - k.progress_s);
  engine_.schedule_at<&CheckpointController::on_checkpoint>(
      std::max(engine_.now(), j.progress.updated) + sim::SimTime::from_seconds(wait_s), this, arg, PRIORITY_STATE);
}

void CheckpointController::begin_last(Job& j, sim::SimTime stop_at, sim::SimTime write, bool is_save) {
  cluster_.accrue(j);
  JobCheckpoint& k = j.ckpt_mut();
  j.stopping = true;
  k.last_is_save = is_save;
  k.pending_ckpt_work = j.work_done();
  const sim::SimTime now = engine_.now();
  // No progress from now on: the run ends at stop_at.
  j.progress.updated = std::max(now, j.progress.updated);
  cluster_.delay_progress(j.id, std::max(stop_at, j.progress.updated) - j.progress.updated + sim::SimTime::from_ns(1));
  // The write, and the wait after it until the run ends, are checkpoint time (on_run_stopped
  // adds the wait); a regular write this one cuts short counts only to now.
  if (k.write_until > now) j.extras_mut().checkpoint_gpu_s -= (k.write_until - now).seconds() * j.gpu_share_held();
  j.extras_mut().checkpoint_gpu_s += write.seconds() * j.gpu_share_held();
  k.last_ckpt_done_at = now + write;
  k.write_until = k.last_ckpt_done_at;
  k.ckpt_done_at = k.last_ckpt_done_at;
  engine_.cancel(k.ckpt_event);  // a regular write in progress is abandoned
  k.ckpt_event = engine_.schedule_at<&CheckpointController::on_last_checkpoint_done>(
      k.last_ckpt_done_at, this, Cluster::event_arg(j), PRIORITY_STATE);
  if (!is_save && !j.checkpoint()->tier.empty()) cluster_.checkpoint_started.emit(j);
}

void CheckpointController::on_last_checkpoint_done(std::uint64_t arg) {
  if (Job* j = cluster_.live(arg)) commit_last(*j);
}

void CheckpointController::commit_last(Job& j) {
  if (!j.stopping || j.ckpt().ckpt_work == j.ckpt().pending_ckpt_work) return;
  JobCheckpoint& k = j.ckpt_mut();
  k.ckpt_work = k.pending_ckpt_work;
  ++j.extras_mut().checkpoints;
  cluster_.checkpoint_written.emit(j);
}

double CheckpointController::on_run_stopped(Job& j) {
  const sim::SimTime now = engine_.now();
  const JobCheckpoint& k = j.ckpt();
  // A last checkpoint that completes at this very instant counts.
  if (j.stopping && now >= k.last_ckpt_done_at) commit_last(j);
  // A write counted whole when it began counts only to now; after a last checkpoint, the
  // wait for the stop counts as checkpoint time (the GPUs are held, making no progress,
  // because of the stop).
  if (k.write_until > now) j.extras_mut().checkpoint_gpu_s -= (k.write_until - now).seconds() * j.gpu_share_held();
  if (j.stopping && now > k.last_ckpt_done_at) j.extras_mut().checkpoint_gpu_s += (now - k.last_ckpt_done_at).seconds() * j.gpu_share_held();
  // A preemption's save, committed, keeps all the work to the preemption.
  if (j.stopping && k.last_is_save && now >= k.last_ckpt_done_at) return std::min(k.ckpt_work, j.work_done());
  // Work past the last committed checkpoint is lost; a job without checkpoints loses all.
  if (!j.checkpoint()) return 0.0;
  // A checkpoint on the node's own NVMe does not outlive the run: the next one starts
  // elsewhere (or on a replacement) without it.
  if (!j.checkpoint()->tier.empty() && scenario_.storage &&
      scenario_.storage->find(j.checkpoint()->tier)->kind == TierKind::LocalNvme)
    return 0.0;
  return std::min(k.ckpt_work, j.work_done());
}

}  // namespace gcsim::models
