// Fair share between teams, on attained GPU-time with decay (Slurm's fair-share factor,
// docs/scheduling.md "fair-share"). Each team t has a weight w_t (`weights`, default 1;
// jobs without a team form one group of weight 1) and a usage U_t: the GPU-seconds its
// jobs have held, each second's worth halved every `half_life` (Slurm's
// PriorityDecayHalfLife), so U_t(t) = integral of gpus_t(s) 2^(-(t - s) / half_life) ds.
// Slurm's factor F_t = 2^(-(U_t / sum U) / (w_t / sum w)) is larger the further a team is
// below its share; ranking by it is ranking by U_t / w_t, smallest first, which is what
// a pass does: it takes the waiting jobs of the team with the smallest U_t / w_t (ties:
// fewest running GPUs per weight, then the oldest waiting job), first in, first out
// inside a team; after each start the team's running GPUs change and the ranking is taken
// again, so in a pass that starts many jobs (time 0) GPUs go to teams in proportion to
// their weights. Under saturation each team's usage converges to its weight's share.
// Blocking as fifo's (ordered.hpp): with `strict`, the first team's first job that does
// not fit holds every job; with `skip`, a team whose jobs do not fit is passed over.
// No preemption.
//
// Keys (`scheduler:` with `policy: fair-share`): placement, blocking (ordered.hpp), and
//   weights     map team -> number > 0   default 1 each   the teams' shares
//   half_life   duration > 0             default `7d`     how fast past usage is forgotten
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/scheduler/order_index.hpp"
#include "models/scheduler/ordered.hpp"
#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::models {

struct FairShareParams : OrderedParams {
  std::vector<double> weight_by_team;  // by team index (WorkloadSpec::teams); missing: 1
  std::vector<std::string> team_names;  // for settings()
  sim::SimTime half_life = sim::SimTime::from_seconds(7 * 86400.0);
};

class FairShareScheduler final : public Scheduler {
 public:
  FairShareScheduler(std::unique_ptr<PlacementStrategy> placement, const FairShareParams& params);
  void job_waiting(const QueuedJob& job) override;
  void job_left(std::uint32_t job) override;
  void run_started(const QueuedJob& job, sim::SimTime now) override;
  void run_ended(std::uint32_t job, sim::SimTime now) override;
  void schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) override;
  std::string settings() const override;

  // Team `team`'s (-1: no team) decayed usage in GPU-seconds at `now` (tests, reports).
  double usage_gpu_s(int team, sim::SimTime now) const;

 private:
  struct Group {
    std::unique_ptr<OrderIndex<double>> waiting;
    double weight = 1;
    double usage_gpu_s = 0;  // at usage_at_s
    double usage_at_s = 0;
    double running_gpus = 0;  // a share of a GPU counts as its share
  };
  Group& group(int team);
  void advance(Group& g, double now_s) const;
  double decayed(const Group& g, double now_s) const;

  std::unique_ptr<PlacementStrategy> placement_;
  FairShareParams params_;
  OrderIndex<double>::Slots slots_;  // shared by the groups' waiting indexes
  std::vector<Group> groups_;        // by team + 1 (0: no team)
  std::vector<std::int32_t> group_of_;  // by job id: its group while running or waiting
  std::vector<double> gpus_of_;         // by job id, while running (shares as shares)
  struct Rank {
    double usage_per_weight;
    double running_per_weight;
    std::uint32_t head;
    std::uint32_t group;
  };
  std::vector<Rank> ranks_;            // scratch
  std::vector<std::uint8_t> placed_;   // by job id: placed in this pass
};

PolicyDef<FairShareParams> fair_share_policy();

}  // namespace gcsim::models
