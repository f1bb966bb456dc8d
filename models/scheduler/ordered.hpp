// What the ordering policies share (fifo, sjf, srtf; docs/scheduling.md): an order over
// waiting jobs kept as they come and go (order_index.hpp), a placement strategy, and how
// a job that does not fit blocks the ones behind it:
//   strict  the first job in order that does not fit holds everyone behind it (the
//           default: what a batch scheduler without backfill does, and gcsim's FIFO);
//   skip    every job that fits starts, in order (Kubernetes' and most research
//           simulators' FIFO and SJF); big jobs may starve behind a stream of small ones.
// A pass visits jobs from the first in order and stops as soon as nothing more can start
// (strict: at the first that does not fit; skip: when no size class left fits), so its
// cost does not grow with the number of waiting jobs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "models/scheduler/order_index.hpp"
#include "models/scheduler/placement.hpp"
#include "models/scheduler/scheduler.hpp"
#include "models/scheduler/scheduler_registry.hpp"
#include "sim/config/key_table.hpp"
#include "sim/config/reader.hpp"

namespace gcsim::models {

enum class Blocking : std::uint8_t { Strict, Skip };
// Which length sjf, srtf and backfill rank jobs by.
enum class Lengths : std::uint8_t {
  True,      // the job's true length (QueuedJob::length_s)
  Estimate,  // the user's estimate where the job has one (QueuedJob::estimated_remaining_s), else its true length
};

// A job's length as `lengths` says, in seconds.
inline double job_length_s(const QueuedJob& q, Lengths lengths) {
  return lengths == Lengths::Estimate && q.estimated_remaining_s == q.estimated_remaining_s ? q.estimated_remaining_s
                                                                                              : q.length_s;
}

struct OrderedParams {
  std::string placement = "best-fit";
  Blocking blocking = Blocking::Strict;
  Lengths lengths = Lengths::True;
};

class OrderedScheduler : public Scheduler {
 public:
  OrderedScheduler(std::unique_ptr<PlacementStrategy> placement, const OrderedParams& params)
      : placement_(std::move(placement)), params_(params) {}
  void job_waiting(const QueuedJob& job) override { order_.insert(job.job, job.gpus, order_key(job)); }
  void job_left(std::uint32_t job) override { order_.erase(job); }
  void schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) override;
  std::string settings() const override;

 protected:
  // Whether the policy ranks by length (its settings then name the lengths).
  virtual bool uses_lengths() const { return true; }
  // The job's place in the order: smaller first, ties by job id (submit order).
  virtual double order_key(const QueuedJob& job) const = 0;
  // Places `job` now (appending to `out`), or returns false: the placement strategy's
  // choice, unless the policy also chooses the node type (type_choice.hpp).
  virtual bool place(const ClusterView& cluster, const QueuedJob& job, Decisions& out) {
    (void)cluster;
    return placement_->try_place(job, out);
  }
  // True when place() may leave a job waiting although some eligible type has room (a
  // skipping pass then cannot conclude that no job as big fits).
  virtual bool chooses_types() const { return false; }
  // After the placements of a pass: a preempting policy adds its preemptions. `blocked`
  // is the first job in order that did not fit (none: every waiting job was placed).
  virtual void after_placing(const ClusterView& cluster, const WaitingJobs& waiting, const std::uint32_t* blocked,
                             Decisions& out) {
    (void)cluster;
    (void)waiting;
    (void)blocked;
    (void)out;
  }

  // A round: when the first job in order does not fit, a preempting policy goes on past
  // it, holding room for it and the waiting jobs after it, in order, free or made by
  // preemption, until one cannot get room (docs/scheduling.md, "The round"). The jobs
  // held for start when their room is free, in later passes. Under strict blocking the
  // pass's scan goes on into the round; under skip the round follows the scan, over the
  // jobs it did not place. start_round says whether this pass has one (`out`: the
  // placements so far); hold_room takes each job from the first that did not fit on (its
  // team's quota permitting) and returns false to end the round; end_round closes it.
  // after_placing follows, round or not (a policy with a round makes no room there).
  virtual bool start_round(const ClusterView& cluster, const Decisions& out) {
    (void)cluster;
    (void)out;
    return false;
  }
  virtual bool hold_room(const ClusterView& cluster, const QueuedJob& job, Decisions& out) {
    (void)cluster;
    (void)job;
    (void)out;
    return false;
  }
  virtual void end_round() {}

  // The pass over `order`: order_, or a policy's own index with OrderIndex's scan().
  template <class Index>
  void pass(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out, Index& order);

  std::unique_ptr<PlacementStrategy> placement_;
  OrderedParams params_;
  OrderIndex<double> order_;
  ClassFitMemo may_fit_;  // skip: whether a class may fit now
  std::vector<std::uint8_t> placed_now_;  // skip with a round: by job id, placed by this pass
};

template <class Index>
void OrderedScheduler::pass(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out, Index& order) {
  placement_->reset(cluster);
  std::uint32_t blocked = 0;
  bool any_blocked = false;
  // The first job in order that does not fit (the one a preempting policy makes room for).
  const auto blocks = [&](std::uint32_t id) {
    if (any_blocked) return;
    blocked = id;
    any_blocked = true;
  };
  if (params_.blocking == Blocking::Strict) {
    bool round = false;
    order.scan([](int) { return true; }, [&](std::uint32_t id, bool) {
      const QueuedJob& q = waiting[id];
      if (round) {
        if (held_by_quota(cluster, q)) return Visit::Next;
        return hold_room(cluster, q, out) ? Visit::Next : Visit::Stop;
      }
      if (place(cluster, q, out) || held_by_quota(cluster, q)) return Visit::Next;
      blocks(id);
      round = start_round(cluster, out);
      return round && hold_room(cluster, q, out) ? Visit::Next : Visit::Stop;
    });
    if (round) end_round();
  } else {
    // A job that may run on every node type and does not fit: no job as big fits either
    // (capacity only shrinks during a pass).
    const std::uint64_t all_types = cluster.types.size() >= 64 ? ~std::uint64_t{0}
                                                                : (std::uint64_t{1} << cluster.types.size()) - 1;
    int too_big = std::numeric_limits<int>::max();
    may_fit_.changed();
    order.scan([&](int gpus) { return may_fit_(gpus, [&](int g) { return g < too_big && placement_->could_fit(g); }); },
               [&](std::uint32_t id, bool fits) {
                 const QueuedJob& q = waiting[id];
                 if (fits && q.gpus < too_big && place(cluster, q, out)) {
                   may_fit_.changed();
                   return Visit::Next;
                 }
                 if (held_by_quota(cluster, q)) return Visit::Next;  // its team's limit, not the capacity
                 blocks(id);
                 // (A share that does not fit says nothing of smaller shares.)
                 if (fits && !chooses_types() && q.gpu_milli >= 1000 && (q.eligible_types & all_types) == all_types &&
                     q.gpus < too_big) {
                   too_big = q.gpus;
                   may_fit_.changed();
                 }
                 return Visit::Next;
               });
    // The round, over the jobs from the first that did not fit that the scan did not place.
    if (any_blocked && start_round(cluster, out)) {
      for (const Placement& p : out.placements) {
        if (p.job >= placed_now_.size())
          placed_now_.resize(std::max<std::size_t>(p.job + 1, 2 * placed_now_.size()), 0);
        placed_now_[p.job] = 1;
      }
      bool reached = false;
      order.scan([](int) { return true; }, [&](std::uint32_t id, bool) {
        reached = reached || id == blocked;
        if (!reached || (id < placed_now_.size() && placed_now_[id])) return Visit::Next;
        const QueuedJob& q = waiting[id];
        if (held_by_quota(cluster, q)) return Visit::Next;
        return hold_room(cluster, q, out) ? Visit::Next : Visit::Stop;
      });
      end_round();
      for (const Placement& p : out.placements) placed_now_[p.job] = 0;
    }
  }
  after_placing(cluster, waiting, any_blocked ? &blocked : nullptr, out);
}

// The keys every ordering policy has, and their parser.
extern const config::KeySpec PLACEMENT_KEY;
extern const config::KeySpec BLOCKING_KEY;
extern const config::KeySpec LENGTHS_KEY;
// Reads placement, blocking and (with_lengths) lengths from the policy's map.
OrderedParams read_ordered_params(config::MapReader& map, const SchedulerRegistry& registry, bool with_lengths);

// The registry entry of an ordering policy `Policy` (constructed from its placement
// strategy and its Params, an OrderedParams), whose keys are `keys`: placement, blocking
// and, when it ranks by length, lengths, read here; and the policy's own keys, read by
// read_own(map, context, params) after them.
template <class Policy, class Params, class ReadOwn>
PolicyDef<Params> ordered_policy_def(std::string name, std::string description, config::KeyTable keys,
                                     bool with_lengths, ReadOwn read_own) {
  return {
      .name = std::move(name),
      .description = std::move(description),
      .keys = keys,
      .parse = [with_lengths, read_own](config::MapReader& map, const SchedulerRegistry& registry,
                                        const PolicyContext& context) {
        Params p;
        static_cast<OrderedParams&>(p) = read_ordered_params(map, registry, with_lengths);
        read_own(map, context, p);
        return p;
      },
      .make = [](const Params& p, const SchedulerRegistry& registry) -> std::unique_ptr<Scheduler> {
        return std::make_unique<Policy>(registry.make_placement(p.placement), p);
      },
  };
}

// The same for a policy with no keys of its own.
template <class Policy, class Params>
PolicyDef<Params> ordered_policy_def(std::string name, std::string description, config::KeyTable keys,
                                     bool with_lengths) {
  return ordered_policy_def<Policy, Params>(std::move(name), std::move(description), keys, with_lengths,
                                            [](config::MapReader&, const PolicyContext&, Params&) {});
}

}  // namespace gcsim::models
