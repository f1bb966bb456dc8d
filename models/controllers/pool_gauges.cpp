// Pool figures (see pool_gauges.hpp).
#include "models/controllers/pool_gauges.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "models/core/event_priorities.hpp"
#include "models/workload/memory_fit.hpp"

namespace gcsim::models {

PoolGauges::PoolGauges(const Scenario& scenario, Cluster& cluster, const ModelSpeeds* speeds)
    : scenario_(scenario), cluster_(cluster), speeds_(speeds), pools_(scenario.cluster.node_types.size()),
      runs_(cluster.jobs().size()), waiting_(cluster.jobs().size(), 0) {
  // Sized for the jobs given up front: only a job submitted during the run grows them.
  for (std::size_t t = 0; t < pools_.size(); ++t) pools_[t].gpu_memory_bytes = scenario.cluster.node_types[t].gpu.memory_bytes;
  for (const NodeState& n : cluster.nodes()) {
    Pool& p = pools_[n.type];
    switch (n.phase) {
      case NodePhase::Provisioning: ++p.provisioning; break;
      case NodePhase::Up: ++p.up; break;
      case NodePhase::Draining: ++p.draining; break;
      default: break;
    }
    if (n.up) p.up_gpus += n.gpus;
  }
  cluster.job_submitted.connect(ORDER_EXTENSIONS, [this](const Job& j) { add_waiting(j, 1); });
  cluster.job_started.connect(ORDER_EXTENSIONS, [this](const Job& j) {
    add_waiting(j, -1);
    run_started(j);
  });
  cluster.job_finished.connect(ORDER_EXTENSIONS, [this](const Job& j) { run_ended(j); });
  cluster.job_stopped.connect(ORDER_EXTENSIONS, [this](const Job& j) {
    run_ended(j);
    if (j.status == JobStatus::Queued) add_waiting(j, 1);
  });
  cluster.node_changed.connect(ORDER_EXTENSIONS, [this](const NodeTransition& t) { node_changed(t); });
  cluster.team_hold_changed.connect(ORDER_EXTENSIONS, [this](int team, bool held) { team_hold_changed(team, held); });
}

void PoolGauges::team_hold_changed(int team, bool held) {
  // A held job is not demand: no pool may run it until its team is released (a budget's new
  // period), so it leaves the waiting figures while held and comes back when released.
  if (held) {
    for (const QueuedJob& q : cluster_.held_jobs())
      if (q.team == team) add_waiting(cluster_.jobs()[q.job], -1);
  } else {
    for (const QueuedJob& q : cluster_.waiting_jobs().all())
      if (q.team == team) add_waiting(cluster_.jobs()[q.job], 1);
  }
}

std::size_t PoolGauges::track_pair(int a, int b) {
  pairs_.push_back(Pair{(std::uint64_t{1} << a) | (std::uint64_t{1} << b), 0.0});
  return pairs_.size() - 1;
}

double PoolGauges::gpu_utilization(int type) const {
  const Pool& p = pool(type);
  return p.up_gpus > 0 ? std::min(1.0, p.busy_gpus / p.up_gpus) : 0.0;
}

double PoolGauges::gpu_memory(int type) const {
  const Pool& p = pool(type);
  return p.up_gpus > 0 && p.gpu_memory_bytes > 0 ? std::min(1.0, p.memory_used_bytes / (p.up_gpus * p.gpu_memory_bytes))
                                                 : 0.0;
}

double PoolGauges::job_memory_per_gpu_bytes(const Job& j, int type) const {
  const GpuSpec& gpu = scenario_.cluster.node_types[static_cast<std::size_t>(type)].gpu;
  if (j.training()) {
    const double need = speeds_ && speeds_->memory_per_gpu_bytes(j.id) > 0 ? speeds_->memory_per_gpu_bytes(j.id)
                                                                          : check_memory_fit(*j.training(), gpu).need.total();
    return std::min(gpu.memory_bytes, need);
  }
  return gpu.memory_bytes * (j.gpu_milli / 1000.0);
}

double PoolGauges::job_compute_share(const Job& j) const {
  // As analysis/metrics.cpp weighs a job's held GPU-time: compute_s / step_time_s, clamped.
  if (!j.training() || !speeds_ || !(j.step_s() > 0)) return 1.0;
  const StepEstimate* e = speeds_->estimate(j.id);
  return e && std::isfinite(e->compute_s) ? std::clamp(e->compute_s / j.step_s(), 0.0, 1.0) : 1.0;
}

void PoolGauges::add_waiting(const Job& j, double sign) {
  if (j.id >= waiting_.size()) waiting_.resize(std::size_t{j.id} + 1, 0);
  const bool counted = waiting_[j.id] != 0;
  if ((sign > 0) == counted) return;  // already counted, or never was
  if (sign > 0 && cluster_.team_held(j.team)) return;  // held: counted when its team is released
  waiting_[j.id] = sign > 0;
  const double gpus = sign * j.gpus * (j.gpu_milli / 1000.0);
  for (std::uint64_t m = j.eligible_types; m != 0; m &= m - 1) {
    const auto t = static_cast<std::size_t>(std::countr_zero(m));
    if (t < pools_.size()) pools_[t].waiting_gpus += gpus;
  }
  for (Pair& p : pairs_)
    if ((j.eligible_types & p.mask) == p.mask) p.waiting_gpus += gpus;
}

void PoolGauges::run_started(const Job& j) {
  if (j.id >= runs_.size()) runs_.resize(std::size_t{j.id} + 1);
  Run& r = runs_[j.id];
  const auto nodes = cluster_.nodes_of(j);
  if (j.over_capacity || nodes.empty()) return;
  r.type = cluster_.nodes()[nodes[0]].type;
  r.held_gpus = j.gpu_share_held();
  r.busy_gpus = r.held_gpus * job_compute_share(j);
  r.memory_bytes = j.gpus_held() * job_memory_per_gpu_bytes(j, r.type);
  Pool& p = pools_[static_cast<std::size_t>(r.type)];
  p.held_gpus += r.held_gpus;
  p.busy_gpus += r.busy_gpus;
  p.memory_used_bytes += r.memory_bytes;
}

void PoolGauges::run_ended(const Job& j) {
  if (j.id >= runs_.size()) return;
  Run& r = runs_[j.id];
  if (r.type < 0) return;
  Pool& p = pools_[static_cast<std::size_t>(r.type)];
  p.held_gpus = std::max(0.0, p.held_gpus - r.held_gpus);
  p.busy_gpus = std::max(0.0, p.busy_gpus - r.busy_gpus);
  p.memory_used_bytes = std::max(0.0, p.memory_used_bytes - r.memory_bytes);
  r = Run{};
}

void PoolGauges::node_changed(const NodeTransition& t) {
  const NodeState& n = cluster_.nodes()[t.node];
  Pool& p = pools_[n.type];
  const auto count = [&](NodePhase phase, int d) {
    switch (phase) {
      case NodePhase::Provisioning: p.provisioning += d; break;
      case NodePhase::Up: p.up += d; break;
      case NodePhase::Draining: p.draining += d; break;
      default: break;
    }
  };
  count(t.from, -1);
  count(t.to, +1);
  const bool was_up = t.from == NodePhase::Up || t.from == NodePhase::Draining;
  const bool is_up = t.to == NodePhase::Up || t.to == NodePhase::Draining;
  if (was_up != is_up) p.up_gpus += is_up ? n.gpus : -n.gpus;
}

}  // namespace gcsim::models
