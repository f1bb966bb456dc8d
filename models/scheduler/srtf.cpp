// Shortest remaining time first (see srtf.hpp).
#include "models/scheduler/srtf.hpp"

#include <algorithm>

namespace gcsim::models {

void SrtfScheduler::run_started(const QueuedJob& job, sim::SimTime now) {
  running_.insert(job.job, job.gpus, -(now.seconds() + job_length_s(job, params_.lengths)));
}

void SrtfScheduler::run_ended(std::uint32_t job) {
  running_.erase(job);
  if (job < is_preempted_.size() && is_preempted_[job]) {
    is_preempted_[job] = 0;
    preempted_.erase(std::find(preempted_.begin(), preempted_.end(), job));
  }
}

void SrtfScheduler::after_placing(const ClusterView& cluster, const WaitingJobs& waiting, const std::uint32_t* blocked,
                                  Decisions& out) {
  if (blocked == nullptr || cluster.running_jobs == nullptr) return;
  const QueuedJob& w = waiting[*blocked];
  const double need_s = job_length_s(w, params_.lengths);
  const double now_s = cluster.now.seconds();
  // Room already coming from jobs stopping for an earlier decision: wait for it.
  for (std::uint32_t id : preempted_) placement_->give_back(cluster.running_jobs->where(id));
  if (placement_->could_fit(w.gpus) && placement_->reserve(w)) return;
  victims_.clear();
  bool fits = false;
  running_.scan([](int) { return true; }, [&](std::uint32_t id, bool) {
    if (id < is_preempted_.size() && is_preempted_[id]) return Visit::Next;
    const double left_s = -running_.key(id) - now_s;
    if (!(left_s > need_s)) return Visit::Stop;  // the rest have less time left still
    const RunningPlace place = cluster.running_jobs->where(id);
    if (place.stopping) return Visit::Next;  // stopping for another reason (a notice, a budget)
    placement_->give_back(place);
    victims_.push_back(id);
    fits = placement_->could_fit(w.gpus) && placement_->reserve(w);
    return fits ? Visit::Stop : Visit::Next;
  });
  if (!fits) return;
  for (std::uint32_t id : victims_) {
    out.preemptions.push_back(Preemption{.job = id, .reason = PreemptReason::Shorter});
    if (id >= is_preempted_.size()) is_preempted_.resize(std::max<std::size_t>(id + 1, is_preempted_.size() * 2), 0);
    is_preempted_[id] = 1;
    preempted_.push_back(id);
  }
}

namespace {
const config::KeySpec SRTF_KEYS[] = {PLACEMENT_KEY, BLOCKING_KEY, LENGTHS_KEY};
}  // namespace

PolicyDef<SrtfParams> srtf_policy() {
  return ordered_policy_def<SrtfScheduler, SrtfParams>(
      "srtf", "shortest remaining time first: preempts the jobs with the most time left for a shorter one",
      SRTF_KEYS, true);
}

}  // namespace gcsim::models
