// The waiting and held queues (see job_queue.hpp).
#include "models/cluster/job_queue.hpp"

#include <algorithm>
#include <string>

#include "sim/check.hpp"

namespace gcsim::models {

namespace {
void insert_in_submit_order(std::vector<QueuedJob>& q, const QueuedJob& entry) {
  auto at = std::upper_bound(q.begin(), q.end(), entry, [](const QueuedJob& a, const QueuedJob& b) {
    return a.submit < b.submit || (a.submit == b.submit && a.job < b.job);
  });
  q.insert(at, entry);
}
}  // namespace

JobQueue::JobQueue(std::size_t teams) : held_teams_(teams, 0) { waiting_.reserve(1024); }

void JobQueue::arrive(const QueuedJob& job) { (team_held(job.team) ? held_ : waiting_).push_back(job); }

void JobQueue::requeue(const QueuedJob& job) { insert_in_submit_order(team_held(job.team) ? held_ : waiting_, job); }

void JobQueue::remove_waiting(std::span<const std::uint8_t> flags) {
  GCSIM_CHECK(flags.size() == waiting_.size(), "JobQueue: " + std::to_string(flags.size()) + " flags for " +
                                                   std::to_string(waiting_.size()) + " waiting jobs");
  std::size_t w = 0;
  for (std::size_t r = 0; r < waiting_.size(); ++r)
    if (!flags[r]) waiting_[w++] = waiting_[r];
  waiting_.resize(w);
}

void JobQueue::hold_team(int team) {
  GCSIM_CHECK(team >= 0 && static_cast<std::size_t>(team) < held_teams_.size(), "hold_team: no team " + std::to_string(team));
  held_teams_[static_cast<std::size_t>(team)] = 1;
  std::size_t w = 0;
  for (std::size_t r = 0; r < waiting_.size(); ++r) {
    if (waiting_[r].team == team) held_.push_back(waiting_[r]);
    else waiting_[w++] = waiting_[r];
  }
  waiting_.resize(w);
}

void JobQueue::release_team(int team) {
  if (!team_held(team)) return;
  held_teams_[static_cast<std::size_t>(team)] = 0;
  std::size_t w = 0;
  for (std::size_t r = 0; r < held_.size(); ++r) {
    if (held_[r].team == team) insert_in_submit_order(waiting_, held_[r]);
    else held_[w++] = held_[r];
  }
  held_.resize(w);
}

}  // namespace gcsim::models
