// The waiting and held jobs (see job_queue.hpp).
#include "models/cluster/job_queue.hpp"

#include <algorithm>
#include <string>

#include "sim/check.hpp"

namespace gcsim::models {

JobQueue::JobQueue(std::size_t teams, Scheduler& policy) : policy_(policy), held_teams_(teams, 0) {}

void JobQueue::add(const QueuedJob& job) {
  if (team_held(job.team)) {
    held_.push_back(job);
    return;
  }
  waiting_.add(job);
  policy_.job_waiting(job);
}

void JobQueue::remove_placed(std::uint32_t job) {
  waiting_.remove(job);
  policy_.job_left(job);
}

void JobQueue::hold_team(int team) {
  GCSIM_CHECK(team >= 0 && static_cast<std::size_t>(team) < held_teams_.size(), "hold_team: no team " + std::to_string(team));
  held_teams_[static_cast<std::size_t>(team)] = 1;
  // In submit order, so the held queue and the policy see the same order every run.
  waiting_.in_submit_order(scratch_);
  for (std::uint32_t id : scratch_) {
    const QueuedJob& q = waiting_[id];
    if (q.team != team) continue;
    held_.push_back(q);
    waiting_.remove(id);
    policy_.job_left(id);
  }
}

void JobQueue::release_team(int team) {
  if (!team_held(team)) return;
  held_teams_[static_cast<std::size_t>(team)] = 0;
  std::sort(held_.begin(), held_.end(), [](const QueuedJob& a, const QueuedJob& b) { return a.job < b.job; });
  std::size_t w = 0;
  for (std::size_t r = 0; r < held_.size(); ++r) {
    if (held_[r].team == team) {
      waiting_.add(held_[r]);
      policy_.job_waiting(held_[r]);
    } else {
      held_[w++] = held_[r];
    }
  }
  held_.resize(w);
}

}  // namespace gcsim::models
