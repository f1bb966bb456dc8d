// Shortest remaining time first (see srtf.hpp).
#include "models/scheduler/srtf.hpp"

namespace gcsim::models {

void SrtfScheduler::run_started(const QueuedJob& job, sim::SimTime now) {
  running_.running(job.job, job.gpus, -(now.seconds() + job_length_s(job, params_.lengths)));
}

void SrtfScheduler::run_ended(std::uint32_t job, sim::SimTime) { running_.ended(job); }

void SrtfScheduler::after_placing(const ClusterView& cluster, const WaitingJobs& waiting, const std::uint32_t* blocked,
                                  Decisions& out) {
  if (blocked == nullptr) return;
  const QueuedJob& w = waiting[*blocked];
  const double need_s = job_length_s(w, params_.lengths);
  const double now_s = cluster.now.seconds();
  // Victims by most time left (-key - now); only those with more left than w's length.
  running_.make_room(cluster, w, [&](std::uint32_t id) { return -running_.key(id) - now_s > need_s; },
                     PreemptReason::Shorter, out);
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
