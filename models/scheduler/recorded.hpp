// The as-recorded replay's policy (`recorded`; docs/traces.md, "Modes"): every job starts
// at its recorded start (QueuedJob::recorded_start; at its arrival when it has none), never
// later for want of room, so the cluster's occupancy over time is the trace's. Where it goes:
// its recorded machine (QueuedJob::recorded_node) when it has one that is up and of a type
// it may use (a run recorded over several machines, the same GPUs on each: all of them,
// up, of one such type, each with its share of the GPUs); else best-fit (placement.hpp),
// honouring its GPU types and gpu_milli shares, on one node whenever a node of an eligible type has the GPUs; and when nothing has room
// (our packing is not the recorded scheduler's, and a recorded machine may be fuller in
// the replay than it was), over capacity (Placement::over_capacity): on the recorded
// machine, else on the up node of an eligible type with the most free GPUs. Such a run
// holds none of the node's GPUs but counts in its load and in the allocated GPUs, so the
// occupancy stays the trace's while GPU ownership stays exclusive; the runs placed so are
// counted and reported (settings(), the run summary). A job waits only when no node of
// its types is up at all (a market took them), and starts at the first pass after one is.
//
// `workload.trace.mode: as-recorded` makes this the run's policy whatever `scheduler:` says
// (scenario_loader.cpp); it may also be named (`policy: recorded`): every job then starts
// when it arrives, a replay without queueing. No keys.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/scheduler/placement.hpp"
#include "models/scheduler/scheduler.hpp"
#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::models {

// What the replay did, over the run.
struct RecordedCounts {
  std::uint64_t starts = 0;             // runs started
  std::uint64_t on_machine = 0;         // on their recorded machine, within its capacity
  std::uint64_t over_capacity = 0;      // placed over capacity (on their recorded machine or not)
  double over_capacity_gpu_s = 0;       // GPU-seconds of those runs (shares as shares; duration jobs)
  std::uint64_t machine_unusable = 0;   // recorded machine down, noticed or of a type the job may not use
  std::uint64_t late = 0;               // started after their recorded start (no node up, or a restart)
};

// best-fit (placement.hpp's rule), and for a run over capacity the least loaded up node,
// found through the strategy's index of nodes by free GPUs rather than a walk of all.
class ReplayPlacement final : public PlacementStrategy {
 public:
  // The up node of a type in `types` (bits) with the most free GPUs in the plan, the
  // earliest type's lowest on ties; -1 when no node of those types is up.
  int roomiest_up_node(std::uint64_t types) const;

 protected:
  NodeChoice choose_node(const QueuedJob& job) const override { return tightest_node(job); }
};

class RecordedScheduler final : public Scheduler {
 public:
  void job_waiting(const QueuedJob& job) override;
  void job_left(std::uint32_t job) override { (void)job; }  // its heap entry is dropped when due
  void schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) override;
  std::string settings() const override;
  const RecordedCounts& counts() const { return counts_; }

 private:
  struct Due {
    sim::SimTime at;
    std::uint32_t job;
  };
  // Places waiting job q due now; false when no node of its types is up.
  bool place(const ClusterView& cluster, const QueuedJob& q, Decisions& out);
  // One without a set of machines: on its recorded machine (`unusable` set when it has one
  // that cannot take it), else by best-fit; over capacity where nothing has room.
  bool place_alone(const ClusterView& cluster, const QueuedJob& q, Decisions& out, bool& unusable);
  bool place_over(const ClusterView& cluster, const QueuedJob& q, int node, Decisions& out);
  // A job recorded over several machines on their nodes (within their room, else over
  // capacity there); false when they cannot take it (not all up, of one type it may use,
  // with the GPUs per node), with nothing decided.
  bool place_on_machines(const ClusterView& cluster, const QueuedJob& q, Decisions& out);
  static bool later(const Due& a, const Due& b) { return a.at != b.at ? a.at > b.at : a.job > b.job; }

  std::vector<Due> due_;               // a min-heap by (start, id): the waiting jobs not yet due
  std::vector<std::uint8_t> in_heap_;  // by job id
  std::vector<std::uint32_t> blocked_; // due, but no node of their types was up
  std::vector<std::uint32_t> retry_;   // scratch
  std::vector<std::uint32_t> candidates_;  // scratch: nodes for a multi-node run over capacity
  std::vector<std::uint32_t> set_nodes_;   // scratch: a run's recorded machines' nodes
  ReplayPlacement fit_;
  RecordedCounts counts_;
};

struct RecordedParams {};

// The registry entry: register_builtins.cpp adds it with add_policy(recorded_policy()).
PolicyDef<RecordedParams> recorded_policy();

}  // namespace gcsim::models
