// Room for a waiting job made by preempting running jobs, as srtf, priority and las do
// (docs/scheduling.md, "Preemption"). The policy keeps its running jobs here in its victim
// order (the first is preempted first) and says, job by job in that order, whether it may
// preempt it for the waiting one; a `false` ends the search (no later job may be taken
// either, the order being the policy's). Victims are taken until the waiting job would
// fit on what they and the pass's free capacity leave; if it would not fit even then,
// nobody is preempted. Jobs preempted here count as freeing their GPUs until their run
// ends, so one waiting job never preempts twice for the same room, and a victim is never
// chosen twice. Nothing allocates once warm.
#pragma once

#include <cstdint>
#include <vector>

#include "models/scheduler/order_index.hpp"
#include "models/scheduler/placement.hpp"
#include "models/scheduler/scheduler.hpp"

namespace gcsim::models {

class Preempter {
 public:
  // A run started (`key`: its place in the victim order, smaller first), or its key changed.
  void running(std::uint32_t job, int gpus, double key) {
    if (order_.contains(job)) order_.erase(job);
    order_.insert(job, gpus, key);
  }
  // Its run ended (finished or stopped).
  void ended(std::uint32_t job);
  bool is_running(std::uint32_t job) const { return order_.contains(job); }
  double key(std::uint32_t job) const { return order_.key(job); }
  // Preempted here and still stopping.
  bool is_preempted(std::uint32_t job) const { return job < is_preempted_.size() && is_preempted_[job]; }

  // Appends preemptions to `out` that make room for waiting job `w` on `placement` (reset
  // for this pass), choosing victims in order while may_preempt(id) holds; returns whether
  // it preempted. Room already coming from jobs stopping for an earlier decision counts
  // first: then nothing is preempted. Uses `placement` as scratch.
  template <class MayPreempt>
  bool make_room(const ClusterView& cluster, PlacementStrategy& placement, const QueuedJob& w, MayPreempt&& may_preempt,
                 PreemptReason reason, Decisions& out) {
    if (cluster.running_jobs == nullptr) return false;
    for (std::uint32_t id : preempted_) placement.give_back(cluster.running_jobs->where(id));
    if (placement.could_fit(w.gpus) && placement.reserve(w)) return false;
    victims_.clear();
    bool fits = false;
    order_.scan([](int) { return true; }, [&](std::uint32_t id, bool) {
      if (is_preempted(id)) return Visit::Next;
      if (!may_preempt(id)) return Visit::Stop;
      const RunningPlace place = cluster.running_jobs->where(id);
      if (place.stopping) return Visit::Next;  // stopping for another reason (a notice, a budget)
      placement.give_back(place);
      victims_.push_back(id);
      fits = placement.could_fit(w.gpus) && placement.reserve(w);
      return fits ? Visit::Stop : Visit::Next;
    });
    if (!fits) return false;
    for (std::uint32_t id : victims_) {
      out.preemptions.push_back(Preemption{.job = id, .reason = reason});
      if (id >= is_preempted_.size()) is_preempted_.resize(std::max<std::size_t>(id + 1, is_preempted_.size() * 2), 0);
      is_preempted_[id] = 1;
      preempted_.push_back(id);
    }
    return true;
  }

 private:
  OrderIndex<double> order_;
  std::vector<std::uint32_t> preempted_;   // preempted here, still stopping
  std::vector<std::uint8_t> is_preempted_;  // by job id
  std::vector<std::uint32_t> victims_;      // scratch
};

}  // namespace gcsim::models
