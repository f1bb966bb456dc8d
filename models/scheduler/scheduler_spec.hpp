// The scheduling section's specs (`scheduler:`): the policy, how preempted jobs stop and
// the teams' quotas. Read by models/config/scheduler_reader (through the policy registry)
// and used by the policies themselves, so they live with the policies: the scheduler
// package needs nothing from models/config/ (docs/engine.md, "Layers").
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/calendar.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

struct SchedulerParams;  // models/scheduler/scheduler_registry.hpp

// How a preempted job stops (`scheduler.preemption`, common to every policy: policies say
// whom and why, the scenario says how; docs/scenario-reference.md, "Preemption").
enum class PreemptionMode : std::uint8_t {
  Save,  // hold the GPUs for `save`, keep all the work done, spend `restore` on the next start
  Lose,  // stop at once, losing the work since the last committed checkpoint
};

struct PreemptionSpec {
  PreemptionMode mode = PreemptionMode::Save;
  // Unset: the job's own checkpoint write (its ordinary last checkpoint, through its tier if
  // it has one); a job without a checkpoint then cannot save and loses its run. Set: a pause
  // of this length, no tier traffic, that keeps the work whatever the job's checkpoints.
  std::optional<sim::SimTime> save;
  // Unset: the job's checkpoint restore_time; a job without a checkpoint restores for as
  // long as its save took.
  std::optional<sim::SimTime> restore;
  // With `save` unset: a job without a checkpoint keeps all its work anyway, saved and
  // restored in no time, instead of losing its run. Set when the scenario gives no
  // `preemption` and the policy assumes preempted jobs resume from their progress (las:
  // Tiresias' checkpoint-based preemption; SchedulerRegistry::Policy::resumes_by_default).
  bool keep_without_checkpoint = false;
};

// Team quotas by the time of the week (`scheduler.quotas`; docs/scheduling.md, "Team quotas
// and time-sharing windows"): in each window, each team's guaranteed share of the cluster's
// GPUs and its cap, as fractions of them.
struct TeamShareSpec {
  double min = 0;  // guaranteed: its jobs may reclaim up to this share from other teams
  double max = 1;  // cap: it never holds more
};

struct QuotaWindowSpec {
  std::string name;
  sim::WeekCalendar when;
  std::vector<TeamShareSpec> teams;  // by team index (WorkloadSpec::teams); a team not named has {0, 1}
};

enum class ReclaimMode : std::uint8_t {
  Preempt,  // an owner below its guarantee preempts borrowers (as scheduler.preemption says)
  Wait,     // it waits for borrowers to finish
};

// A share of the cluster's `total_gpus` GPUs in whole GPUs, floor(share x N), with a guard
// so that 29% of 100 is 29: a window's guarantee G_T and cap C_T (read by the quotas and by
// the check that a job's team may ever start it).
inline std::int64_t quota_share_gpus(double share, std::int64_t total_gpus) {
  return static_cast<std::int64_t>(std::floor(share * static_cast<double>(total_gpus) + 1e-9));
}

struct QuotaSpec {
  std::vector<QuotaWindowSpec> windows;  // where several hold, the first listed wins; none: no quota
  bool lending = true;                   // idle guaranteed GPUs may run other teams' jobs
  ReclaimMode reclaim = ReclaimMode::Preempt;
};

// The `scheduler:` section (models/config/scheduler_reader.hpp): the policy's name and the
// parameters its registry entry parsed, immutable and shared by copies of the spec. Null
// params (a spec built by hand) mean the policy's defaults.
struct SchedulerSpec {
  std::string policy = "fifo";
  std::shared_ptr<const SchedulerParams> params;
  PreemptionSpec preemption;
  std::optional<QuotaSpec> quotas;
};

}  // namespace gcsim::models
