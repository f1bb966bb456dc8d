// The jobs waiting for GPUs, as policies see them (WaitingJobs: by id), and the held jobs
// of the teams a budget holds. Every job that joins or leaves the waiting set is told to
// the policy (Scheduler::job_waiting, job_left), which keeps its own order over them; a job
// back from a stopped run keeps its id, hence its submit-order place.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/scheduler/scheduler.hpp"

namespace gcsim::models {

class JobQueue {
 public:
  // `policy` is told of every change to the waiting jobs; it must outlive the queue.
  JobQueue(std::size_t teams, Scheduler& policy);

  const WaitingJobs& waiting() const { return waiting_; }
  std::span<const QueuedJob> held() const { return held_; }
  bool empty() const { return waiting_.empty() && held_.empty(); }
  bool team_held(int team) const {
    return team >= 0 && static_cast<std::size_t>(team) < held_teams_.size() && held_teams_[static_cast<std::size_t>(team)];
  }

  // A job that arrived or is back from a stopped run: waiting, or held if its team is.
  void add(const QueuedJob& job);
  // Room for `jobs` waiting jobs (WaitingJobs::reserve).
  void reserve(std::size_t jobs) { waiting_.reserve(jobs); }
  // A waiting job that was placed.
  void remove_placed(std::uint32_t job);
  // Moves the team's waiting jobs to the held queue, and back on release. InternalError
  // for a team index past the workload's teams.
  void hold_team(int team);
  void release_team(int team);

 private:
  Scheduler& policy_;
  WaitingJobs waiting_;
  std::vector<QueuedJob> held_;
  std::vector<std::uint8_t> held_teams_;
  std::vector<std::uint32_t> scratch_;
};

}  // namespace gcsim::models
