// A backfill policy that never sees the cluster's change log, so it cannot keep a plan or a
// reservation from an earlier pass and plans afresh at every pass: the reference that the
// backfill tests compare the kept plans with. It records the first reservation each job
// was given (start time, s).
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "models/scheduler/backfill.hpp"
#include "models/scheduler/placement.hpp"

namespace gcsim::test {

class UnloggedBackfill final : public models::Scheduler {
 public:
  explicit UnloggedBackfill(const models::BackfillParams& p)
      : inner_(std::make_unique<models::BestFitPlacement>(), std::make_unique<models::BestFitPlacement>(), p) {}
  void job_waiting(const models::QueuedJob& job) override { inner_.job_waiting(job); }
  void job_left(std::uint32_t job) override { inner_.job_left(job); }
  void run_started(const models::QueuedJob& job, sim::SimTime now) override { inner_.run_started(job, now); }
  void run_ended(std::uint32_t job, sim::SimTime now) override { inner_.run_ended(job, now); }
  void schedule(const models::ClusterView& cluster, const models::WaitingJobs& waiting,
                models::Decisions& out) override {
    models::ClusterView unlogged = cluster;
    unlogged.changes = nullptr;
    inner_.schedule(unlogged, waiting, out);
    for (const auto& r : inner_.reservations()) first_reserved_s->emplace(r.job, r.start_s);
  }
  std::shared_ptr<std::map<std::uint32_t, double>> first_reserved_s = std::make_shared<std::map<std::uint32_t, double>>();

 private:
  models::BackfillScheduler inner_;
};

}  // namespace gcsim::test
