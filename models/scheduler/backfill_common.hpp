// What the two backfilling policies share (docs/scheduling.md, "Backfilling"): their keys'
// values, the reservation they report, and a base that holds the two placement strategies
// (one for the pass, one for plans), the release schedule (running jobs by expected end,
// backfill_releases.hpp) and the availability profile (free GPUs per node over time, which
// both plan their reservations on, availability_profile.hpp). EASY is in backfill_easy.*, conservative in backfill_conservative*.
// Times are SimTime (integer nanoseconds) throughout: a span of `length` seconds from t
// ends at t + SimTime::from_seconds(length), as the cluster ends a run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "models/scheduler/availability_profile.hpp"
#include "models/scheduler/backfill_releases.hpp"
#include "models/scheduler/ordered.hpp"
#include "models/scheduler/placement.hpp"
#include "models/scheduler/scheduler.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

enum class BackfillMode : std::uint8_t { Easy, Conservative };

struct BackfillParams {
  std::string placement = "best-fit";
  Lengths lengths = Lengths::True;
  BackfillMode mode = BackfillMode::Easy;
  int depth = 100;  // waiting jobs a pass examines behind the first that does not fit
};

// A reservation made in the last pass: the job and the time it would start. EASY, and
// conservative with the change log, also give its nodes, reservation_nodes()[first,
// first + count), and the GPUs it takes on each (for tests).
struct BackfillReservation {
  std::uint32_t job = 0;
  sim::SimTime start;
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  int gpus_per_node = 0;
};

class BackfillBase : public Scheduler {
 public:
  using Reservation = BackfillReservation;
  // `now` and `plan` are two instances of the same placement strategy: one places jobs on
  // the free capacity of the pass, the other plans on capacity in the future.
  BackfillBase(std::unique_ptr<PlacementStrategy> now, std::unique_ptr<PlacementStrategy> plan,
               const BackfillParams& params)
      : now_(std::move(now)), plan_(std::move(plan)), params_(params) {}
  // With false, every cache the policy keeps from pass to pass (and every shortcut that
  // rests on one) is off: each pass plans as if it saw the cluster for the first time. The
  // decisions must be the same (tests/models/scheduler/test_backfill_caches.cpp).
  virtual void use_caches(bool on) = 0;
  // The reservations of the last pass (EASY: the head's, if planned; conservative: every
  // reserved job's, in order), valid until the next pass.
  virtual const std::vector<Reservation>& reservations() const = 0;
  virtual const std::vector<std::uint32_t>& reservation_nodes() const { return no_nodes_; }

 protected:
  // A span of time in which a job holds GPUs on some nodes (a run, or a reservation).
  struct Hold {
    sim::SimTime start;
    sim::SimTime end;
    std::uint32_t first = 0;  // its nodes, in a list the user names
    std::uint32_t count = 0;
    int gpus_per_node = 0;
    int gpu = -1;  // a share of a GPU: its local index, and the thousandths
    int gpu_milli = 1000;
    std::uint64_t gpu_mask = 0;  // Placement::gpu_mask
  };
  sim::SimTime length_of(const QueuedJob& q) const {
    return sim::SimTime::from_seconds(job_length_s(q, params_.lengths));
  }
  // The end of a span of `length` from t as the cluster ends a run: at the nanosecond
  // ("never", max(), stays never).
  static sim::SimTime span_end(sim::SimTime t, sim::SimTime length) { return t + length; }
  // Undoes out's last placement on now_ (a job that would have delayed a reservation).
  void undo_last(Decisions& out) {
    const Placement p = out.placements.back();
    now_->give_back(RunningPlace{p.node_type, std::span<const std::uint32_t>(out.nodes).subspan(p.first, p.count),
                                 p.gpus_per_node, false, p.gpu, p.gpu_milli, p.gpu_mask});
    out.nodes.resize(p.first);
    out.placements.pop_back();
  }

  std::unique_ptr<PlacementStrategy> now_;
  std::unique_ptr<PlacementStrategy> plan_;
  BackfillParams params_;
  ReleaseSchedule running_;  // running jobs by expected end
  AvailabilityProfile profile_;  // free GPUs per node now and in a plan
  mutable std::vector<Reservation> reservations_;
  Decisions plan_out_;

 private:
  std::vector<std::uint32_t> no_nodes_;
};

}  // namespace gcsim::models
