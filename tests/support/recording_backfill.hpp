// A backfill policy that records the first reservation each job was given (its start time):
// every reservation a pass holds, or only the first (EASY's head). Without the change log
// (`sees_changes` false) it cannot keep a plan or a reservation from an earlier pass and
// plans afresh at every pass: the reference the backfill tests compare kept plans with.
// Its placement strategy is the parameters' `placement`.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "models/scheduler/backfill.hpp"
#include "models/register_builtins.hpp"
#include "models/scheduler/placement.hpp"

namespace gcsim::test {

class RecordingBackfill final : public models::Scheduler {
 public:
  enum class Record { All, First };
  explicit RecordingBackfill(const models::BackfillParams& p, bool sees_changes = false, Record record = Record::All)
      : inner_(models::make_backfill(p, models::builtins().schedulers.make_placement(p.placement),
                                     models::builtins().schedulers.make_placement(p.placement))),
        sees_changes_(sees_changes),
        record_(record) {}
  void job_waiting(const models::QueuedJob& job) override { inner_->job_waiting(job); }
  void job_left(std::uint32_t job) override { inner_->job_left(job); }
  void run_started(const models::QueuedJob& job, sim::SimTime now) override { inner_->run_started(job, now); }
  void run_ended(std::uint32_t job, sim::SimTime now) override { inner_->run_ended(job, now); }
  void schedule(const models::ClusterView& cluster, const models::WaitingJobs& waiting,
                models::Decisions& out) override {
    models::ClusterView view = cluster;
    if (!sees_changes_) view.changes = nullptr;
    inner_->schedule(view, waiting, out);
    for (const auto& r : inner_->reservations()) {
      first_reserved->emplace(r.job, r.start);
      if (record_ == Record::First) break;
    }
  }
  std::shared_ptr<std::map<std::uint32_t, sim::SimTime>> first_reserved =
      std::make_shared<std::map<std::uint32_t, sim::SimTime>>();

 private:
  std::unique_ptr<models::BackfillBase> inner_;
  bool sees_changes_;
  Record record_;
};

// The change-log-blind reference.
using UnloggedBackfill = RecordingBackfill;

}  // namespace gcsim::test
