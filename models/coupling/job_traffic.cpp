// Jobs on the network (see job_traffic.hpp).
#include "models/coupling/job_traffic.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/core/event_priorities.hpp"

namespace gcsim::network {

namespace {
Collective collective_of(const std::string& name) {
  if (name == "reduce_scatter") return Collective::ReduceScatter;
  if (name == "allgather") return Collective::AllGather;
  if (name == "broadcast") return Collective::Broadcast;
  if (name == "alltoall") return Collective::AllToAll;
  return Collective::AllReduce;
}
}  // namespace

JobTraffic::JobTraffic(sim::Engine& engine, models::Cluster& cluster, CollectiveRunner& runner,
                       const topology::Topology& topo)
    : engine_(engine), cluster_(cluster), runner_(runner), topo_(topo), runs_(cluster.jobs().size()) {
  cluster.job_started.connect(models::ORDER_NETWORK, [this](const models::Job& j) {
    if (j.comm()) on_start(j);
  });
  // A run that loses its nodes stops sending; a restart begins again from the first step.
  cluster.job_stopped.connect(models::ORDER_NETWORK, [this](const models::Job& j) {
    if (j.comm()) on_stop(j);
  });
}

void JobTraffic::on_stop(const models::Job& j) {
  Run& run = runs_[j.id];
  engine_.cancel(run.next);
  if (run.in_flight) runner_.cancel(run.slot);
  run.in_flight = false;
}

void JobTraffic::on_start(const models::Job& j) {
  const models::CommSpec& c = *j.comm();
  // Real steps, and the simulated steps that stand for them (each covering N/S real
  // steps' compute and bytes; the header says how their latency is kept).
  // ceil(duration / every), without the sum that overflows for durations near 292 years.
  const std::int64_t whole = j.duration.ns() / c.every.ns();
  const std::int64_t real = std::max<std::int64_t>(1, whole + (j.duration.ns() % c.every.ns() != 0 ? 1 : 0));
  const std::int64_t simulated = std::min(real, c.simulated_steps);
  Run& run = runs_[j.id];
  run.steps = simulated;
  run.steps_left = simulated;
  CollectiveSpec collective;
  collective.kind = collective_of(c.collective);
  collective.bytes = c.bytes * static_cast<double>(real) / static_cast<double>(simulated);
  for (std::uint32_t node : cluster_.nodes_of(j))
    for (int g = 0; g < 64; ++g)
      if (j.gpu_mask >> g & 1) collective.ranks.push_back(topo_.gpu(static_cast<int>(node), g));
  collective.algorithm = c.algorithm == "tree"   ? CollectiveAlgorithm::Tree
                         : j.nodes_count > 1     ? CollectiveAlgorithm::HierarchicalRing
                                                 : CollectiveAlgorithm::Ring;
  run.phases = decompose(collective, topo_);
  // L: each phase waits for its flows' path latencies before its bytes move (the runner
  // routes send k of phase i with collective_flow_hash(job, i, k), as here).
  std::int64_t latency_ns = 0;
  for (std::size_t i = 0; i < run.phases.size(); ++i) {
    std::int64_t phase_ns = 0;
    for (std::size_t k = 0; k < run.phases[i].size(); ++k) {
      const Send& s = run.phases[i][k];
      phase_ns = std::max(phase_ns, topo_.path_latency(topo_.route(s.src, s.dst, collective_flow_hash(j.id, i, k))).ns());
    }
    latency_ns += phase_ns;
  }
  run.wait_ns = static_cast<__int128>(j.duration.ns()) + static_cast<__int128>(real - simulated) * latency_ns;
  run.next = engine_.schedule_after<&JobTraffic::on_compute_done>(wait_before(run, 0), this, j.id);
}

sim::SimTime JobTraffic::wait_before(const Run& run, std::int64_t step) {
  const __int128 ns = (step + 1) * run.wait_ns / run.steps - step * run.wait_ns / run.steps;
  return ns >= std::numeric_limits<std::int64_t>::max() ? sim::SimTime::max()
                                                         : sim::SimTime::from_ns(static_cast<std::int64_t>(ns));
}

void JobTraffic::on_compute_done(std::uint64_t job) {
  Run& run = runs_[job];
  run.in_flight = true;
  run.slot = runner_.start(run.phases, job, &JobTraffic::on_collective_done, this);
}

void JobTraffic::on_collective_done(void* self, std::uint64_t job, sim::SimTime) {
  auto* t = static_cast<JobTraffic*>(self);
  Run& run = t->runs_[job];
  run.in_flight = false;
  if (--run.steps_left > 0) {
    run.next = t->engine_.schedule_after<&JobTraffic::on_compute_done>(wait_before(run, run.steps - run.steps_left), t, job);
    return;
  }
  // End through an event: the collective may complete inside the network's advance.
  run.next = t->engine_.schedule_after<&JobTraffic::on_finish>(sim::SimTime::zero(), t, job);
}

}  // namespace gcsim::network
