// A market's node events, the NodeEventSink side of the cluster (see node_events.hpp and
// docs/spot.md): on notice a job writes a last checkpoint if it fits before the node goes;
// when the node goes, each of its jobs stops and loses the work since its last commit.
#include <algorithm>

#include "models/cluster/cluster.hpp"

namespace gcsim::models {

template <class F>
void Cluster::for_each_job_on(std::uint32_t n, F&& f) {
  // The list is taken out of scratch_jobs_ while f runs, so that a call made from inside f
  // (through a signal) gets a list of its own instead of overwriting this one.
  std::vector<std::uint32_t> ids = std::move(scratch_jobs_);
  alloc_.jobs_on(n, ids);
  for (std::uint32_t id : ids) f(jobs_[id]);
  scratch_jobs_ = std::move(ids);
}

void Cluster::notice(std::uint32_t n, sim::SimTime down_at) {
  if (!alloc_.notice(n, down_at)) return;
  node_noticed.emit(n, down_at);
  const sim::SimTime now = engine_.now();
  for_each_job_on(n, [&](Job& j) {
    if (j.noticed) return;
    j.noticed = true;
    if (!j.checkpoint || j.driven || j.stopping) return;
    accrue(j);
    // A job that finishes before the node goes just finishes.
    const double left_s = std::max(0.0, j.progress.remaining) / j.progress.rate;
    if (std::max(now, j.progress.updated) + sim::SimTime::from_seconds(left_s) <= down_at) return;
    // Still restoring or pulling: there is nothing new to save yet.
    if (j.progress.updated > now && j.work_done() <= j.ckpt_work) return;
    if (now + j.checkpoint->write_time <= down_at) checkpoints_.begin_last(j, down_at, j.checkpoint->write_time, false);
  });
}

void Cluster::down(std::uint32_t n) {
  if (!alloc_.nodes()[n].up) return;
  // Re-checked for each job: an observer of an earlier job's stop may have stopped (or,
  // through a controller misusing a signal, otherwise moved) a later one already.
  for_each_job_on(n, [&](Job& j) {
    if (j.status == JobStatus::Running) stop_job(j, StopReason::NodeLoss);
  });
  alloc_.down(n);
  node_down.emit(n);
}

void Cluster::up(std::uint32_t n) {
  if (!alloc_.up(n, engine_.now())) return;
  node_up.emit(n);
  request_schedule();
}

}  // namespace gcsim::models
