// The inter-node latency of the simulated metrics (docs/metrics.md,
// `gcsim_node_network_latency_seconds`): per node, the one-way latency a probe packet sent
// from the node to the other nodes of its multi-node jobs would see. A run has this
// sampler when it has a `network:` section and `output: {metrics: {every: ...}}` with a
// trace (network_latency_component() in models/builtin_parts.hpp, registered as
// "network-latency": it makes the trace's /node_latency table).
//
// The probe from node a to node b takes the path a flow takes between the job's first GPU
// on a and the same GPU on b (Topology::route, flow hash 0: one of the equal-cost paths,
// as one packet takes one). Its latency is, over the path's links l,
//   Σ_l ( latency_l + W_l ),  W_l = (P / C_l) · ρ_l / (1 − ρ_l)
// the link's own latency (what a zero-byte flow waits in the flow model, its alpha) plus
// the M/M/1 mean wait in queue of one packet of P = PROBE_PACKET_BYTES at a link of
// capacity C_l whose utilization is ρ_l (Kleinrock, Queueing Systems vol. 1, 1975, §3.2:
// W = ρ/(μ − λ) = (1/μ) · ρ/(1 − ρ), the service time 1/μ = P/C_l). ρ_l is the link's mean
// utilization over the sampling window (t_k − every, t_k]: the bytes the flow network says
// it carried in it (FlowNetwork::link_stats) over C_l · every, capped at RHO_CAP, since a
// max-min fluid model runs its bottlenecks at ρ = 1 where M/M/1 has no finite wait.
// The probe's own transmission (P / C_l per hop) is not added, as the flow model's
// latency phase does not add it: on an idle network the probe sees the path's latency.
//
// A node's value is the mean over the (job, peer node) pairs of its running jobs that span
// two nodes or more: every job that spans nodes, a plain one too (its own bytes may not be
// modelled, but the latency its nodes would see is the network's). Sampled at the grid
// instants t_k = k · every (after every change of the instant, at PRIORITY_METRICS), and
// stored by change: a row when a node's series starts, ends or its value changes, so a
// quiet network costs rows only where jobs start and end. A link's utilization needs the
// bytes it had carried at the window's start: the sampler reads only the links of the
// paths it probes, so a link it was not watching at t_{k−1} is read at t_k and gives a
// value from t_{k+1} on (a pair is probed once every link of its path has a whole window).
// A job's probes (N(N−1) for N nodes) are routed when it starts, and again when it
// restarts; an interval costs a visit per link of each probe's path.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/run/component.hpp"
#include "models/topology/link_id.hpp"
#include "sim/engine.hpp"

namespace gcsim::trace {
class Table;
}
namespace gcsim::network {
class FlowNetwork;
}
namespace gcsim::topology {
class Topology;
}

namespace gcsim::models {

// The probe: one packet of the largest InfiniBand MTU (InfiniBand Architecture
// Specification vol. 1: path MTUs of 256 to 4096 bytes; RoCE uses the same MTUs), as RDMA
// transfers of collectives are cut into MTU-sized packets.
inline constexpr double PROBE_PACKET_BYTES = 4096;
// The utilization at which a link's queueing wait is taken when the flow model loads it
// more (at ρ = 0.99 the wait is 99 packet times).
inline constexpr double RHO_CAP = 0.99;

// The M/M/1 mean wait in queue of one packet of `packet_bytes` at a link of `bytes_per_s`
// utilized `rho` (clamped to [0, RHO_CAP]).
double queueing_wait_s(double packet_bytes, double bytes_per_s, double rho);

class NetworkLatencySampler final : public Controller {
 public:
  NetworkLatencySampler(sim::Engine& engine, Cluster& cluster, const network::FlowNetwork& net,
                        const topology::Topology& topo, trace::Table& table, sim::SimTime every);
  void start() override;
  std::uint64_t rows() const { return rows_; }

 private:
  struct LinkWatch {
    std::int64_t tick = -1;  // the tick at which `bytes` was read (-1: never)
    double bytes = 0;        // what the link had carried then
    double wait_s = 0;       // its queueing wait over the window ending then; < 0: no whole window
  };
  // One probe of a running job: from node `from` over `path` (the topology's cached route,
  // valid for the topology's life), whose links' latencies sum to `latency`.
  struct Probe {
    std::uint32_t from;
    std::span<const topology::LinkId> path;
    sim::SimTime latency;
  };
  // A job that started on two nodes or more, with its probes for the run `incarnation`
  // (made again when it restarts, maybe elsewhere).
  struct Active {
    std::uint32_t job;
    std::uint32_t incarnation;
    std::vector<Probe> probes;
  };
  void on_tick(std::uint64_t);
  void make_probes(const Job& j, Active& a) const;
  // The queueing waits of the probe's path, or a negative number when a link of it has not
  // been watched for a whole window.
  double path_waits_s(std::span<const topology::LinkId> path);
  void write_row(std::uint32_t node, bool on, double latency_s);

  Cluster& cluster_;
  const network::FlowNetwork& net_;
  const topology::Topology& topo_;
  trace::Table& table_;
  sim::SimTime every_;
  std::int64_t tick_ = 0;
  std::vector<LinkWatch> links_;
  std::vector<Active> active_;            // jobs that started on two nodes or more (lazily pruned)
  std::vector<std::uint8_t> in_active_;   // by job
  std::vector<double> sum_s_;             // by node, this tick
  std::vector<std::uint32_t> pairs_;      // by node, this tick
  std::vector<std::uint32_t> touched_;    // nodes with pairs this tick
  std::vector<double> last_s_;            // by node: the value of its series (< 0: off)
  std::vector<std::uint32_t> on_;         // nodes whose series is on
  std::uint64_t rows_ = 0;
};

}  // namespace gcsim::models
