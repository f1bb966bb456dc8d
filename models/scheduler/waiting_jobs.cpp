// The waiting jobs by id (see WaitingJobs in scheduler.hpp).
#include <algorithm>
#include <string>

#include "models/scheduler/scheduler.hpp"
#include "sim/check.hpp"

namespace gcsim::models {

void WaitingJobs::in_submit_order(std::vector<std::uint32_t>& out) const {
  out.clear();
  for (const QueuedJob& q : jobs_) out.push_back(q.job);
  // Jobs are numbered in submit order (ties by their place in the workload).
  std::sort(out.begin(), out.end());
}

void WaitingJobs::add(const QueuedJob& job) {
  if (job.job >= slot_.size()) slot_.resize(std::max<std::size_t>(job.job + 1, slot_.size() * 2), -1);
  GCSIM_CHECK(slot_[job.job] < 0, "waiting jobs: job " + std::to_string(job.job) + " is already waiting");
  slot_[job.job] = static_cast<std::int32_t>(jobs_.size());
  jobs_.push_back(job);
  most_ = std::max(most_, jobs_.size());
  jobs_ahead_.advance(jobs_.data(), jobs_.size() * sizeof(QueuedJob), jobs_.capacity() * sizeof(QueuedJob));
}

void WaitingJobs::remove(std::uint32_t job) {
  GCSIM_CHECK(contains(job), "waiting jobs: job " + std::to_string(job) + " is not waiting");
  const auto at = static_cast<std::size_t>(slot_[job]);
  jobs_[at] = jobs_.back();
  slot_[jobs_[at].job] = static_cast<std::int32_t>(at);
  jobs_.pop_back();
  slot_[job] = -1;
  // A queue that has emptied gives a large buffer back: at the end of a saturated run its
  // room for hundreds of thousands of entries (130 MB for a million jobs under las) would
  // otherwise be held while the trace is written. Refilled, it grows again, in as many
  // steps as the first time: rare next to the adds that fill it.
  // The most held, not the capacity: room reserved up front (reserve) and barely used is
  // kept, so a queue that empties at its first start does not lose it.
  if (jobs_.empty() && most_ > RELEASE_ENTRIES) {
    std::vector<QueuedJob>().swap(jobs_);
    most_ = 0;
  }
}

}  // namespace gcsim::models
