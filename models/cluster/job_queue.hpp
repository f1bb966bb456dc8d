// The jobs waiting for GPUs: the queue policies see, in submit order (ties by job id), and
// the held queue of the teams a budget holds (releasing a team puts each of its jobs back
// in its submit-order place). A job that comes back after a stopped run takes its
// submit-order place again, so a requeued job keeps its priority.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/scheduler/scheduler.hpp"

namespace gcsim::models {

class JobQueue {
 public:
  explicit JobQueue(std::size_t teams);

  std::span<const QueuedJob> waiting() const { return waiting_; }
  std::span<const QueuedJob> held() const { return held_; }
  bool empty() const { return waiting_.empty() && held_.empty(); }
  bool team_held(int team) const {
    return team >= 0 && static_cast<std::size_t>(team) < held_teams_.size() && held_teams_[static_cast<std::size_t>(team)];
  }

  // A new arrival, at the back (arrivals come in submit order); held if its team is.
  void arrive(const QueuedJob& job);
  // A job back from a stopped run, at its submit-order place; held if its team is.
  void requeue(const QueuedJob& job);
  // Drops the waiting entries whose flag is set (placed this pass); flags has one per entry.
  void remove_waiting(std::span<const std::uint8_t> flags);
  // Moves the team's waiting jobs to the held queue, and back (to their submit-order
  // places) on release. InternalError for a team index past the workload's teams.
  void hold_team(int team);
  void release_team(int team);

 private:
  std::vector<QueuedJob> waiting_;
  std::vector<QueuedJob> held_;
  std::vector<std::uint8_t> held_teams_;
};

}  // namespace gcsim::models
