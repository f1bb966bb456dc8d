// The release schedule of the backfilling policies (docs/scheduling.md, "Backfilling"): the
// running jobs by expected end (SimTime, soonest first; equal ends by job id), and, for
// conservative backfilling, the runs on up nodes read from it in that order only as far as
// a search needed (a list kept from pass to pass while runs end when expected: those ended
// leave from the front, runs started where the list reaches their end join `fresh`).
// Slurm's backfill plugin walks its running jobs by end time the same way.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "models/scheduler/order_index.hpp"
#include "models/scheduler/scheduler.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

class ReleaseSchedule {
 public:
  void add(std::uint32_t job, int gpus, sim::SimTime end) { index_.insert(job, gpus, end); }
  void remove(std::uint32_t job) { index_.erase(job); }
  bool contains(std::uint32_t job) const { return index_.contains(job); }
  sim::SimTime end_of(std::uint32_t job) const { return index_.key(job); }
  // Visits the running jobs by expected end: visit(job, end) returns Visit::Stop to end.
  template <class F>
  void scan(F&& visit) const {
    index_.scan([](int) { return true; },
                [&](std::uint32_t id, bool, const sim::SimTime& end) { return visit(id, end); });
  }
  // Whether `job` is expected to end strictly before every other running job.
  bool first_to_end(std::uint32_t job) const;
  // Whether every node of a run is up: a job on a noticed or down node gives no placeable
  // GPUs back when it ends.
  static bool on_up_nodes(const ClusterView& cluster, std::span<const std::uint32_t> nodes) {
    return std::all_of(nodes.begin(), nodes.end(),
                       [&](std::uint32_t n) { return cluster.nodes[n].status == NodeStatus::Up; });
  }

  // The runs on up nodes by expected end, read from the index as far as needed.
  struct Release {
    sim::SimTime end;
    std::uint32_t first = 0;  // node(first) .. node(first + count - 1)
    std::uint32_t count = 0;
    int gpus_per_node = 0;
  };
  struct List {
    std::vector<Release> read;   // read from the index, by end: every run ending by `horizon`
    std::vector<Release> fresh;  // runs started since `read` was merged, by end (a few)
    std::size_t read_from = 0;   // read[..read_from): ended
    std::size_t fresh_from = 0;  // fresh[..fresh_from): ended
    sim::SimTime horizon = sim::SimTime::min();
    bool complete = false;  // every run is read
  };
  List& list() { return list_; }
  const List& list() const { return list_; }
  std::uint32_t node(std::uint32_t k) const { return nodes_[k]; }
  // Reads about `count` more runs into list().read; false when none was left.
  bool extend(const ClusterView& cluster, std::size_t count);
  // A run started since: into list().fresh at its place by end (its end is within the horizon).
  const Release& add_fresh(sim::SimTime end, const RunningPlace& place);
  void clear_list();
  // Drops the ended releases and the nodes no list refers to; with `merge`, fresh joins read.
  void compact(bool merge);
  // compact() when fresh holds more than a few, or when the nodes are mostly of ended runs.
  void tidy();

 private:
  void push(std::vector<Release>& list, sim::SimTime end, const RunningPlace& place);
  OrderIndex<sim::SimTime> index_;
  List list_;
  std::vector<std::uint32_t> nodes_;  // both lists' nodes
  std::vector<std::uint32_t> nodes_spare_;
};

}  // namespace gcsim::models
