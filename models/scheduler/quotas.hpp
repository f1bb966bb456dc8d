// Team quotas by the time of the week, around any policy (docs/scheduling.md, "Team quotas
// and time-sharing windows"). In the window in force (the first listed that holds now;
// none: no quota), team T has a guaranteed share G_T and a cap C_T of the cluster's GPUs
// (floor(share x GPUs)). Its use U_T is the GPUs its running jobs asked for, stopping ones
// included (they hold their GPUs until they stop). A waiting job of T with g GPUs is
// admitted when
//   U_T + g <= C_T                                  (the cap), and
//   g <= free GPUs - sum over other teams o of R_o   (what others are guaranteed),
// where R_o = max(0, G_o - U_o) when lending is off, and with lending (the default) only
// what o would use now: max(0, min(G_o - U_o, GPUs of o's waiting jobs)). Idle guaranteed
// GPUs are thus lent to other teams, and reclaimed when their owner's jobs wait: at each
// pass a team below its guarantee whose first waiting job (in submit order) that fits in
// what its guarantee leaves, G_T - U_T, cannot be placed preempts running jobs of teams
// above their own guarantee, the most recently started first, until that job would fit
// (reclaim: preempt, the default; reclaim: wait never preempts); a run started at this
// instant is never a victim (docs/scheduling.md, "One preemption per run and instant"). A team over its cap
// (its window just began) has its most recently started jobs preempted until it is within
// it. How a preempted job stops is scheduler.preemption's; while it saves, its GPUs still
// count, so a cap holds at every instant with `save: 0s` or `mode: lose`, and from the end
// of the save otherwise.
//
// The quotas wrap the scenario's policy (SchedulerRegistry::make): the policy sees the
// same jobs and the same view, with ClusterView::admission set, so its placements go
// through the admission test (PlacementStrategy::try_place) and a strict pass passes over
// a job the quotas hold back instead of blocking on it. The wrapper asks to be called at
// every change of window, and passes the policy's own wake-ups on.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/scheduler/scheduler_spec.hpp"
#include "models/scheduler/order_index.hpp"
#include "models/scheduler/placement.hpp"
#include "models/scheduler/scheduler.hpp"

namespace gcsim::models {

class QuotaScheduler final : public Scheduler, private Admission {
 public:
  // `placement`: scratch for reclaim's plans (any strategy: it only asks whether a job fits).
  QuotaScheduler(std::unique_ptr<Scheduler> inner, QuotaSpec spec, std::unique_ptr<PlacementStrategy> placement);

  void job_waiting(const QueuedJob& job) override;
  void job_left(std::uint32_t job) override;
  void run_started(const QueuedJob& job, sim::SimTime now) override;
  void run_ended(std::uint32_t job, sim::SimTime now) override;
  void schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) override;
  std::string settings() const override;
  bool wants_running_jobs() const override { return inner_->wants_running_jobs(); }

 private:
  bool admits(const QueuedJob& job) const override;
  // Brings taken_ and free_gpus_ up to the placements in *pass_ (decided so far).
  void sync() const;

  // GPU amounts are in thousandths of a GPU (a job sharing a GPU counts its share).
  using Milli = std::int64_t;
  static Milli milli_of(const QueuedJob& job) { return static_cast<Milli>(job.gpus) * job.gpu_milli; }
  struct Limits {
    Milli guaranteed = 0;
    Milli cap = 0;
  };
  std::size_t slot(int team) const {
    return team < 0 || static_cast<std::size_t>(team) >= teams_ ? teams_ : static_cast<std::size_t>(team);
  }
  void enter_window(const ClusterView& cluster);
  Milli reserved(std::size_t team) const;  // R_team in this pass
  void reclaim(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out);
  void enforce_caps(const ClusterView& cluster, Decisions& out);
  // Preempts running jobs of other teams above their guarantee, newest first, until job
  // `w` fits (given back in `placement_`); false (nothing preempted) when it would not.
  bool make_room(const ClusterView& cluster, const QueuedJob& w, Decisions& out);
  bool preempting(std::uint32_t job) const { return job < victim_.size() && victim_[job] == 1; }
  void mark_victim(std::uint32_t job, PreemptReason reason, Decisions& out);

  std::unique_ptr<Scheduler> inner_;
  QuotaSpec spec_;
  std::unique_ptr<PlacementStrategy> placement_;
  std::size_t teams_ = 0;  // slots: one per team, then one for jobs without a team

  // By job id: team slot and GPUs of a waiting or running job.
  std::vector<std::int16_t> team_of_;
  std::vector<Milli> gpus_of_;
  std::vector<Milli> used_;            // by slot: U
  std::vector<Milli> waiting_gpus_;    // by slot: GPUs of its waiting jobs
  OrderIndex<double>::Slots waiting_slots_;
  std::vector<std::unique_ptr<OrderIndex<double>>> waiting_;  // by slot, in submit order (key: id)
  // Every running job, newest first: key (-start, -id).
  OrderIndex<std::pair<std::int64_t, std::int64_t>> running_;
  std::vector<std::uint8_t> victim_;  // by job id: 1 preempted here, still running; 2 the policy's, this pass
  std::vector<Milli> stopping_gpus_;  // by slot: GPUs of its jobs preempted here, still running
  std::vector<std::uint32_t> mine_;   // the jobs preempted here, still running

  // The window and its limits.
  int window_ = -1;
  sim::SimTime window_until_ = sim::SimTime::min();  // the next change of window; min(): not yet computed
  int total_gpus_ = 0;
  std::vector<Limits> limits_;  // by slot

  // The pass: its decisions, and what their placements take, counted up to synced_.
  const Decisions* pass_ = nullptr;
  std::size_t first_placement_ = 0;     // the placements before it were not the policy's
  mutable std::size_t synced_ = 0;
  mutable std::vector<Milli> taken_;    // by slot: GPUs placed in this pass
  mutable Milli free_gpus_ = 0;         // free GPUs of up nodes (and unheld shares), less this pass's placements
  Milli free_at_start_ = 0;
  ClusterView view_;
  sim::SimTime inner_wake_ = sim::SimTime::max();
  std::vector<std::uint32_t> victims_;  // scratch
  std::vector<Milli> victim_gpus_;      // scratch, by slot
};

}  // namespace gcsim::models
