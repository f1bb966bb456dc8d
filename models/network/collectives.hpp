// Collective operations decomposed into the flows they really send, in phases, run on the
// FlowNetwork over the Topology. Each phase (step) starts when every flow of the previous
// one has arrived, so on uniform links of bandwidth B and per-path latency a:
//   ring all-reduce      2(n-1) steps of S/n:  T = 2(n-1)/n * S/B + 2(n-1) a
//   ring reduce-scatter, all-gather   (n-1) steps of S/n: T = (n-1)/n * S/B + (n-1) a
//   broadcast (pipelined ring, n chunks)  2n-2 steps of S/n
//   tree all-reduce (NCCL's double binary tree, each tree half the data): reduce up the
//     depth d = ceil(log2 n) levels, then broadcast down: 2d steps of S/2 per tree
//   all-to-all           1 step, every rank sends S/n to every other rank
//   point-to-point       1 flow of S from ranks[0] to ranks[1]
//   hierarchical ring all-reduce: intra-node ring reduce-scatter (g-1 steps of S/g), an
//     inter-node ring all-reduce among the ranks with the same local index (2(N-1) steps
//     of S/(gN)), intra-node ring all-gather (g-1 steps of S/g)
// (Thakur, Rabenseifner & Gropp, "Optimization of collective communication operations in
// MPICH", IJHPCA 2005; NCCL docs, "Collective operations"; Sanders, Speck & Traeff, "Two-tree
// algorithms for full bandwidth broadcast, reduction and scan", Parallel Computing 2009).
// With other traffic on the links, steps can only take longer.
//
// Calibration: real NCCL reaches a bus bandwidth below link speed, more so for small
// messages. busbw_efficiency(S) = PEAK_EFFICIENCY * S / (S + HALF_SIZE_BYTES), fitted on
// nccl-tests all_reduce_perf on 8xA100 NVSwitch nodes (docs/network.md). With
// `calibrated = true` every flow of a collective carries bytes / efficiency(S), so the
// achieved bus bandwidth follows the fit.
#pragma once

#include <cstdint>
#include <vector>

#include "models/network/flow_network.hpp"
#include "models/topology/topology.hpp"
#include "sim/engine.hpp"
#include "sim/time.hpp"

namespace gcsim::network {

enum class Collective { AllReduce, ReduceScatter, AllGather, Broadcast, AllToAll, PointToPoint };
enum class CollectiveAlgorithm { Ring, Tree, HierarchicalRing };

inline constexpr double PEAK_EFFICIENCY = 0.751;
inline constexpr double HALF_SIZE_BYTES = 15.4e6;
double busbw_efficiency(double bytes);

struct CollectiveSpec {
  Collective kind = Collective::AllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
  double bytes = 0;                       // S: the buffer each rank reduces / the message
  std::vector<topology::Vertex> ranks;    // GPU vertices in rank order (n >= 1)
  int root = 0;                           // broadcast root (index into ranks)
  bool calibrated = false;
};

struct Send {
  topology::Vertex src, dst;
  double bytes;
};

// The ECMP hash of send `index` of phase `step` of a collective run with `tag`: which of
// the equal-cost paths it takes (Topology::route). Public so that a caller can predict a
// collective's paths.
inline std::uint64_t collective_flow_hash(std::uint64_t tag, std::size_t step, std::size_t index) {
  return tag * 0x9e3779b97f4a7c15ULL ^ (static_cast<std::uint64_t>(step) << 20) ^ index;
}

// The phases of a collective: steps[k] are the sends of step k, all concurrent.
std::vector<std::vector<Send>> decompose(const CollectiveSpec& spec, const topology::Topology& topo);

class CollectiveRunner {
 public:
  using DoneFn = void (*)(void* context, std::uint64_t tag, sim::SimTime finish);

  CollectiveRunner(sim::Engine& engine, FlowNetwork& net, const topology::Topology& topo)
      : engine_(engine), net_(net), topo_(topo) {}
  CollectiveRunner(const CollectiveRunner&) = delete;
  CollectiveRunner& operator=(const CollectiveRunner&) = delete;

  // Starts a collective now; fn(context, tag, finish) is called when its last flow ends
  // (at once, from inside start(), when there is nothing to send). Returns the run's slot,
  // valid for cancel() until fn is called.
  std::uint32_t start(const CollectiveSpec& spec, std::uint64_t tag, DoneFn fn, void* context);
  // The same with phases decomposed once by the caller: a caller repeating one collective
  // keeps them, and a reused slot copies them into storage it already has, so steady-state
  // repetitions allocate nothing.
  std::uint32_t start(const std::vector<std::vector<Send>>& steps, std::uint64_t tag, DoneFn fn, void* context);
  // Stops a running collective: the flows of its current phase are removed from the
  // network and fn is never called.
  void cancel(std::uint32_t run);
  std::size_t running() const { return running_; }

 private:
  struct Run {
    std::vector<std::vector<Send>> steps;
    std::vector<FlowId> flows;  // the current phase's
    std::size_t step = 0;
    std::size_t pending = 0;
    std::uint64_t tag = 0;
    DoneFn fn = nullptr;
    void* context = nullptr;
    bool live = false;
  };
  static void on_flow_done(void* context, const FlowDone& done);
  std::uint32_t take_run();
  void launch(std::uint32_t run, std::uint64_t tag, DoneFn fn, void* context);
  void start_step(std::uint32_t run);

  sim::Engine& engine_;
  FlowNetwork& net_;
  const topology::Topology& topo_;
  std::vector<Run> runs_;
  std::vector<std::uint32_t> free_runs_;
  std::size_t running_ = 0;
};

}  // namespace gcsim::network
