// Why a job's run ended without finishing, and why a policy preempted it: recorded on the
// job (Job::stop_reason, Job::preempt_reason) and named in the scheduler contract's
// decisions, so both the workload and the scheduler include this header, and it includes
// nothing of either.
#pragma once

#include <cstdint>

namespace gcsim::models {

// Why a run ended without finishing.
enum class StopReason : std::uint8_t {
  None,       // not stopped (yet)
  NodeLoss,   // a node it held went down
  Budget,     // a budget stopped its team
  Preempted,  // the scheduling policy preempted it (Job::preempt_reason says why)
  NodeReleased,  // a controller released a node it held, or drained it past the deadline (not an interruption)
};

// Why a policy preempts (recorded on the job: Job::preempt_reason).
enum class PreemptReason : std::uint8_t {
  Unspecified,
  Priority,   // a job of higher priority needs the GPUs
  Quantum,    // its time slice ended (LAS, round-robin)
  FairShare,  // its team is over its share
  Cost,       // cheaper capacity elsewhere, or a price rose
  Deadline,   // another job would miss its deadline
  Shorter,    // a job with less time left needs the GPUs (SRTF)
  Reclaim,    // its team borrowed GPUs that their owner's team wants back (quotas)
  QuotaCap,   // its team is over its cap in a quota window that began
};

}  // namespace gcsim::models
