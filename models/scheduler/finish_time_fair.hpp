// Finish-time fairness (Themis: Mahajan et al., "Themis: Fair and Efficient GPU Cluster
// Scheduling", NSDI 2020). A job's finish-time fairness is rho = T_shared / T_ideal: the
// time from its submission to its (estimated) finish in the shared cluster against the time
// it would take alone. gcsim's T_ideal is the job's length alone on its fastest eligible
// node type when it first joined the queue (QueuedJob::length_s then): Themis' T_ideal is
// that length times the average contention N over the job's life, and at one instant a
// common N scales every job's rho alike, so it does not change the order; the per-job
// average contention is not modelled. For a waiting job rho(t) = (t - submit + remaining
// alone) / T_ideal, growing at 1/T_ideal while it waits; for a running job the remaining
// time shrinks as fast as time passes (at its starting speed), so its rho is constant:
// (start - submit + remaining alone at start) / T_ideal.
//
// The policy gives GPUs to the worst (highest) rho first. rho changes with time, so the
// order over waiting jobs is recomputed on a round of `interval` (ticks at multiples from
// time 0, as las): at the first pass at or after a tick every waiting job is re-keyed with
// its rho at that tick; between rounds the order is that of the last tick, jobs joining
// since keyed with their rho extrapolated to that tick (so all keys are compared at one
// instant). A waiting job's rho grows along a straight line, so the order is kept in a
// DriftingOrderIndex (drifting_order_index.hpp): a pass visits jobs in the exact order of
// their rho at the tick without re-keying every waiting job at each round (which cost
// O(n) per round: two thirds of the policy's time in a saturated cluster). With `preempt: true` (Themis reallocates its leases every
// round), at a tick the first waiting job that does not fit, W, preempts running jobs whose
// rho is strictly below W's, the lowest (best off) first, until W fits (reason `quantum`:
// their lease ended); then the jobs after W in order each the same, W's room held for it,
// until one cannot get room (the round: ordered.hpp).
// Ties in rho go by job id (submit order). Themis' auction (partial allocations bid by
// each app's placement preferences) and its fairness knob f are not modelled: whole jobs
// are placed by the placement strategy. Blocking as fifo's (ordered.hpp).
//
// Keys (`scheduler:` with `policy: finish-time-fair`): placement, blocking (ordered.hpp), and
//   interval     duration >= 1s   default 5m
//   preempt      bool             default true
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/scheduler/drifting_order_index.hpp"
#include "models/scheduler/ordered.hpp"
#include "models/scheduler/preempter.hpp"
#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::models {

struct FinishTimeFairParams : OrderedParams {
  sim::SimTime interval = sim::SimTime::from_seconds(300);
  bool preempt = true;
  // Where `interval` is set: its key path and mark, or none (the default, blamed at the map).
  std::string interval_key;
  SourceMark interval_mark;
  // Ticks only when it preempts: without, the order is re-keyed at the passes that happen anyway.
  std::optional<PolicyRound> round() const {
    if (!preempt) return std::nullopt;
    return PolicyRound{interval, interval_key.empty() ? "scheduler" : interval_key, interval_mark};
  }
};

class FinishTimeFairScheduler final : public OrderedScheduler {
 public:
  FinishTimeFairScheduler(std::unique_ptr<PlacementStrategy> placement, const FinishTimeFairParams& params);
  void job_waiting(const QueuedJob& job) override;
  void job_left(std::uint32_t job) override;
  void run_started(const QueuedJob& job, sim::SimTime now) override;
  void run_ended(std::uint32_t job, sim::SimTime now) override;
  void schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) override;
  std::string settings() const override;

  // Job `job`'s rho at time `at_s` (seconds) as the policy last estimated it: waiting, from
  // its remaining length when it joined; running, its constant rho. For tests.
  double rho(std::uint32_t job, double at_s) const;
  // For tests: every pass runs in full and asks for its wake-up again, as before the pass
  // memo (the reference the memo is compared with).
  void plain_passes(bool on) { plain_ = on; }
  // Passes repeated without a scan so far (for tests).
  std::uint64_t repeated_passes() const { return repeated_; }

 protected:
  bool uses_lengths() const override { return false; }
  double order_key(const QueuedJob& job) const override;
  void after_placing(const ClusterView& cluster, const WaitingJobs& waiting, const std::uint32_t* blocked,
                     Decisions& out) override;
  bool start_round(const ClusterView& cluster, const Decisions& out) override;
  bool hold_room(const ClusterView& cluster, const QueuedJob& job, Decisions& out) override;
  void end_round() override { running_.end_round(); }

 private:
  // 32 bytes, aligned: the re-keying at a round reads one per waiting job, in no order, and
  // one cache line each (docs/scheduling.md, "Speed").
  struct alignas(32) State {
    double ideal_s = 0;      // T_ideal: its length alone when it first joined (> 0 once seen)
    double submit_s = 0;
    double remaining_s = 0;  // its length alone left, when it last joined or started
    double start_s = 0;      // start of its run (running)
  };
  State& state(std::uint32_t job);
  // A waiting job's key in waiting_order_: -rho at t, falling at 1/T_ideal.
  struct WaitingKeys {
    const std::vector<State>* states;
    double at(std::uint32_t job, double t) const {
      const State& s = (*states)[job];
      return -((t - s.submit_s + s.remaining_s) / s.ideal_s);
    }
    double slope(std::uint32_t job) const { return -1.0 / (*states)[job].ideal_s; }
  };

  FinishTimeFairParams params_ftf_;
  std::vector<State> states_;  // by job id
  std::vector<std::uint8_t> is_running_;  // by job id
  WaitingKeys keys_{&states_};
  DriftingOrderIndex<WaitingKeys> waiting_order_{keys_};  // worst rho first (order_ is unused)
  Preempter running_;          // victim order: lowest rho first
  std::int64_t rank_ns_ = 0;   // the tick the waiting order was last computed at
  bool tick_ = false;          // this pass is on a tick
  std::size_t running_count_ = 0;
  // The wake-up last asked for (a tick), pending while now is before it: asking again for
  // the same tick would only make the cluster cancel and re-file the same event.
  std::int64_t asked_wake_ns_ = -1;
  // A strict pass that ended at job `blocked` (it did not fit) is repeated, without a scan,
  // while the order before `blocked` is unchanged: the same round (the order is the one of
  // the same instant), no tick (a tick may preempt), no quotas, every job that left the
  // waiting jobs one the pass placed, and every job that joined since keyed after
  // `blocked`. The jobs before `blocked` in order were all placed then, so the next pass
  // visits `blocked` first: if the cluster's change log grew by exactly the nodes of the
  // pass's own placements, on the same capacity; otherwise (runs ended, say) it is tried on
  // the new capacity, and while it does not fit the pass places nothing. On a saturated
  // cluster most arrivals, and ends that free too little for the blocked job, are such passes.
  struct PassMemo {
    bool valid = false;
    std::uint32_t blocked = 0;
    double key = 0;                     // blocked's key at the round's instant
    std::int64_t rank_ns = 0;
    std::uint64_t node_changes = 0;     // the change log's entries the memo accounts for
    std::vector<std::uint32_t> placed;  // placed by the pass, not yet gone from the waiting jobs
  };
  PassMemo memo_;
  bool plain_ = false;
  std::uint64_t repeated_ = 0;
  std::uint32_t last_blocked_ = 0;   // the pass's first job that did not fit (after_placing)
  bool any_blocked_ = false;
  bool repeat_last_pass(const ClusterView& cluster, const WaitingJobs& waiting, const Decisions& out);
  void remember_pass(const ClusterView& cluster, const Decisions& out, std::size_t placed_from,
                     std::size_t preempted_from);
};

PolicyDef<FinishTimeFairParams> finish_time_fair_policy();

}  // namespace gcsim::models
