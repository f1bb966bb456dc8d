// Shortest job first, without preemption: waiting jobs are ordered by length, shortest
// first (ties by submit time, then place in the workload); a running job runs to its end.
// The length is the job's true length, or the user's estimate (`lengths: estimate`),
// less the work it has saved. Blocking as fifo's (ordered.hpp). Queueing theory: on one
// server with Poisson arrivals this is the non-preemptive SJF discipline whose mean wait
// Phipps (1956) gives (docs/scheduling.md; tests/models/scheduler/test_queueing_policies.cpp).
//
// Keys (`scheduler:` with `policy: sjf`): placement, blocking, lengths (ordered.hpp).
#pragma once

#include <memory>

#include "models/scheduler/ordered.hpp"
#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::models {

class SjfScheduler final : public OrderedScheduler {
 public:
  using OrderedScheduler::OrderedScheduler;

 protected:
  double order_key(const QueuedJob& job) const override { return job_length_s(job, params_.lengths); }
};

struct SjfParams : OrderedParams {};
PolicyDef<SjfParams> sjf_policy();

}  // namespace gcsim::models
