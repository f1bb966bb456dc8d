// The inter-node latency of the simulated metrics (see network_latency.hpp; equations and
// sources in docs/metrics.md, "How each metric is computed").
#include "models/controllers/network_latency.hpp"

#include <algorithm>
#include <bit>
#include <limits>

#include "models/core/event_priorities.hpp"
#include "models/network/flow_network.hpp"
#include "models/topology/topology.hpp"
#include "sim/check.hpp"
#include "sim/trace/table_writer.hpp"

namespace gcsim::models {

double queueing_wait_s(double packet_bytes, double bytes_per_s, double rho) {
  const double r = std::clamp(rho, 0.0, RHO_CAP);
  return packet_bytes / bytes_per_s * r / (1.0 - r);
}

NetworkLatencySampler::NetworkLatencySampler(sim::Engine& engine, Cluster& cluster, const network::FlowNetwork& net,
                                             const topology::Topology& topo, trace::Table& table, sim::SimTime every)
    : Controller(engine, PRIORITY_METRICS), cluster_(cluster), net_(net), topo_(topo), table_(table), every_(every) {
  GCSIM_CHECK(every > sim::SimTime::zero(), "NetworkLatencySampler: the interval must be > 0");
  links_.resize(net.link_count());
  cluster.job_started.connect(ORDER_METRICS, [this](const Job& j) {
    if (j.nodes_count < 2 || j.gpu_mask == 0) return;
    if (j.id >= in_active_.size()) in_active_.resize(cluster_.jobs().size(), 0);
    if (in_active_[j.id]) return;
    in_active_[j.id] = 1;
    active_.push_back({j.id, 0, {}});
    make_probes(j, active_.back());
  });
}

void NetworkLatencySampler::start() { act_at<&NetworkLatencySampler::on_tick>(every_, this); }

void NetworkLatencySampler::make_probes(const Job& j, Active& a) const {
  a.incarnation = j.incarnation;
  a.probes.clear();
  const auto on = cluster_.nodes_of(j);
  const auto topo_nodes = static_cast<std::uint32_t>(topo_.node_count());
  const int local = std::countr_zero(j.gpu_mask);
  for (const std::uint32_t from : on) {
    if (from >= topo_nodes || local >= topo_.gpus_in_node(static_cast<int>(from))) continue;
    for (const std::uint32_t to : on) {
      if (to == from || to >= topo_nodes || local >= topo_.gpus_in_node(static_cast<int>(to))) continue;
      const topology::Vertex src = topo_.gpu(static_cast<int>(from), local), dst = topo_.gpu(static_cast<int>(to), local);
      // An explicit fabric may leave two nodes unconnected: a plain job over them sends
      // nothing, and no probe goes there either (route() would throw).
      if (topo_.path_count(src, dst) == 0) continue;
      const auto path = topo_.route(src, dst, 0);
      // The links' latencies summed in whole ns, exact (2.8 us reads 2.8e-06, not a sum's
      // 2.7999999999999994e-06).
      a.probes.push_back({from, path, topo_.path_latency(path)});
    }
  }
}

double NetworkLatencySampler::path_waits_s(std::span<const topology::LinkId> path) {
  const sim::SimTime now = engine_.now();
  double waits_s = 0;
  bool whole = true;
  for (const topology::LinkId l : path) {
    LinkWatch& w = links_[l];
    if (w.tick != tick_) {
      // First read of the link at this tick: its utilization over (t_{k-1}, t_k] when it was
      // read at t_{k-1}, else none yet.
      const double bytes = net_.link_stats(l, now).bytes;
      const double capacity = net_.link_capacity(l);
      if (w.tick == tick_ - 1) {
        const double rho = (bytes - w.bytes) / (capacity * every_.seconds());
        w.wait_s = queueing_wait_s(PROBE_PACKET_BYTES, capacity, rho);
      } else {
        w.wait_s = -1;
      }
      w.bytes = bytes;
      w.tick = tick_;
    }
    if (w.wait_s < 0) whole = false;  // read on, so that every link of the path starts its window now
    waits_s += w.wait_s;
  }
  return whole ? waits_s : -1.0;
}

void NetworkLatencySampler::on_tick(std::uint64_t) {
  if (cluster_.ended()) return;
  ++tick_;
  const std::size_t nodes = cluster_.nodes().size();
  if (sum_s_.size() < nodes) {
    sum_s_.resize(nodes, 0.0);
    pairs_.resize(nodes, 0);
    last_s_.resize(nodes, -1.0);
  }
  const auto& jobs = cluster_.jobs();
  for (std::size_t i = 0; i < active_.size();) {
    Active& a = active_[i];
    const Job& j = jobs[a.job];
    if (j.status != JobStatus::Running) {
      in_active_[j.id] = 0;
      a = std::move(active_.back());
      active_.pop_back();
      continue;
    }
    ++i;
    if (j.incarnation != a.incarnation) make_probes(j, a);  // it restarted since: its nodes may differ
    for (const Probe& p : a.probes) {
      const double waits = path_waits_s(p.path);
      if (waits < 0) continue;
      if (pairs_[p.from] == 0) touched_.push_back(p.from);
      sum_s_[p.from] += p.latency.seconds() + waits;
      ++pairs_[p.from];
    }
  }
  // Series that end: on before, no pair probed now.
  for (std::size_t i = 0; i < on_.size();) {
    const std::uint32_t n = on_[i];
    if (pairs_[n] > 0) {
      ++i;
      continue;
    }
    write_row(n, false, 0.0);
    last_s_[n] = -1.0;
    on_[i] = on_.back();
    on_.pop_back();
  }
  // Series that start or change, in node order (the rows of one instant, deterministic
  // and easy to read).
  std::sort(touched_.begin(), touched_.end());
  for (const std::uint32_t n : touched_) {
    const double v = sum_s_[n] / pairs_[n];
    if (last_s_[n] < 0) on_.push_back(n);
    if (v != last_s_[n]) write_row(n, true, v);
    last_s_[n] = v;
    sum_s_[n] = 0;
    pairs_[n] = 0;
  }
  touched_.clear();
  act_at<&NetworkLatencySampler::on_tick>(engine_.now() + every_, this);
}

void NetworkLatencySampler::write_row(std::uint32_t node, bool on, double latency_s) {
  table_.begin_row()
      .f64(0, engine_.now().seconds())
      .i32(1, static_cast<std::int32_t>(node))
      .enum8(2, on ? 1 : 0)
      .f64(3, on ? latency_s : std::numeric_limits<double>::quiet_NaN());
  ++rows_;
}

}  // namespace gcsim::models
