// Shortest remaining time first (see srtf.hpp).
#include "models/scheduler/srtf.hpp"

namespace gcsim::models {

void SrtfScheduler::run_started(const QueuedJob& job, sim::SimTime now) {
  running_.running(job.job, job.gpus, -(now.seconds() + job_length_s(job, params_.lengths)));
}

void SrtfScheduler::run_ended(std::uint32_t job, sim::SimTime) { running_.ended(job); }

// The round (ordered.hpp; docs/scheduling.md, "The round"): from the first job that does
// not fit, each waiting job in order gets room held for it, free or made by preempting
// running jobs with more time left than its length, until one cannot get any.
bool SrtfScheduler::start_round(const ClusterView& cluster, const Decisions& out) {
  running_.begin_round(cluster, out);
  return true;
}

bool SrtfScheduler::hold_room(const ClusterView& cluster, const QueuedJob& job, Decisions& out) {
  const double need_s = job_length_s(job, params_.lengths);
  const double now_s = cluster.now.seconds();
  // Victims by most time left (-key - now); only those with more left than the job's length.
  return running_.hold_room(cluster, job, [&](std::uint32_t id) { return -running_.key(id) - now_s > need_s; },
                            PreemptReason::Shorter, out) != Preempter::Room::None;
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
