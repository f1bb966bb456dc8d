// Model jobs' gradient synchronisation on the network (see model_traffic.hpp).
#include "models/coupling/model_traffic.hpp"

#include <algorithm>
#include <cmath>

#include "models/config/scenario.hpp"
#include "models/core/event_priorities.hpp"

namespace gcsim::network {

using models::PRIORITY_NETWORK_PROBE;

topology::Topology cluster_topology(const models::Scenario& scenario) {
  std::vector<topology::NodeGroup> groups;
  // Every slot gets its NICs (an elastic pool's beyond its count too): node ids are slots.
  for (const auto& t : scenario.cluster.node_types) groups.push_back({t.name, t.slots(), t.gpus, t.internals, &t.gpu});
  return topology::build_topology(*scenario.network, groups);
}

std::vector<std::vector<Send>> gradient_sync_phases(const models::TrainingSpec& t, std::vector<topology::Vertex> gpus,
                                                    const topology::Topology& topo) {
  gpus.resize(std::min(gpus.size(), static_cast<std::size_t>(t.gpus)));
  // Megatron-LM's rank layout: tensor-parallel ranks adjacent, then data, then pipeline
  // (rank = pipeline·(tensor·data) + data·tensor + tensor). Each (pipeline, tensor) pair is
  // one data-parallel group; all groups reduce at once.
  const int tp = t.parallel.tensor;
  const int dp = t.parallel.data;
  const int pp = t.parallel.pipeline;
  CollectiveSpec spec;
  spec.kind = Collective::AllReduce;
  spec.bytes = models::gradient_sync_bytes(t);
  spec.calibrated = true;  // NCCL's bus bandwidth for this message size, not link speed
  std::vector<std::vector<Send>> steps;
  for (int p = 0; p < pp; ++p)
    for (int r = 0; r < tp; ++r) {
      spec.ranks.clear();
      for (int d = 0; d < dp; ++d) {
        const auto rank = static_cast<std::size_t>(p * tp * dp + d * tp + r);
        if (rank < gpus.size()) spec.ranks.push_back(gpus[rank]);
      }
      bool spans_nodes = false;
      for (const auto v : spec.ranks) spans_nodes |= topo.vertex(v).node != topo.vertex(spec.ranks[0]).node;
      spec.algorithm = spans_nodes ? CollectiveAlgorithm::HierarchicalRing : CollectiveAlgorithm::Ring;
      auto phases = decompose(spec, topo);
      if (steps.size() < phases.size()) steps.resize(phases.size());
      for (std::size_t i = 0; i < phases.size(); ++i) steps[i].insert(steps[i].end(), phases[i].begin(), phases[i].end());
    }
  return steps;
}

double uncontended_s(const std::vector<std::vector<Send>>& steps, std::uint64_t tag, const topology::Topology& topo,
                     std::vector<std::uint32_t>& crossings, double* latency_out) {
  const auto& links = topo.links();
  double total_s = 0;
  double latency_total_s = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto& phase = steps[i];
    for (std::size_t k = 0; k < phase.size(); ++k)
      for (const LinkId l : topo.route(phase[k].src, phase[k].dst, collective_flow_hash(tag, i, k))) ++crossings[l];
    double phase_s = 0;
    double latency_s = 0;
    for (std::size_t k = 0; k < phase.size(); ++k) {
      const auto path = topo.route(phase[k].src, phase[k].dst, collective_flow_hash(tag, i, k));
      double rate = 0;
      for (const LinkId l : path) {
        const double share = links[l].bytes_per_s / crossings[l];
        rate = rate == 0 ? share : std::min(rate, share);
      }
      const double lat = topo.path_latency(path).seconds();
      latency_s = std::max(latency_s, lat);
      phase_s = std::max(phase_s, lat + (rate > 0 ? phase[k].bytes / rate : 0.0));
    }
    for (std::size_t k = 0; k < phase.size(); ++k)
      for (const LinkId l : topo.route(phase[k].src, phase[k].dst, collective_flow_hash(tag, i, k))) crossings[l] = 0;
    total_s += phase_s;
    latency_total_s += latency_s;
  }
  *latency_out = latency_total_s;
  return total_s;
}

double alone_all_reduce_s(const models::Scenario& scenario, const topology::Topology& topo, int node_type,
                          const models::TrainingSpec& job, int job_gpus) {
  if (job.parallel.data <= 1) return -1;
  const auto& types = scenario.cluster.node_types;
  int first = 0;
  for (int t = 0; t < node_type; ++t) first += types[static_cast<std::size_t>(t)].slots();
  const auto& type = types[static_cast<std::size_t>(node_type)];
  const int nodes = static_cast<int>(models::nodes_needed(type, job_gpus));
  const int per_node = nodes > 1 ? type.gpus : job_gpus;
  std::vector<topology::Vertex> gpus;
  for (int n = 0; n < nodes; ++n)
    for (int g = 0; g < per_node; ++g) gpus.push_back(topo.gpu(first + n, g));
  std::vector<std::uint32_t> crossings(topo.links().size(), 0);
  double latency_s = 0;
  // ECMP tag 0: in a run the job's id picks among equal-cost paths; uncontended, alone,
  // equal-cost paths give the same time unless their links differ.
  return uncontended_s(gradient_sync_phases(job, std::move(gpus), topo), 0, topo, crossings, &latency_s);
}

ModelTraffic::ModelTraffic(sim::Engine& engine, models::Cluster& cluster, models::ModelSpeeds& speeds,
                           CollectiveRunner& runner, const topology::Topology& topo)
    : engine_(engine), cluster_(cluster), speeds_(speeds), runner_(runner), topo_(topo) {
  slot_of_.assign(cluster.jobs().size(), -1);
  for (const models::Job& j : cluster.jobs())
    if (j.training() && j.training()->parallel.data > 1) {
      slot_of_[j.id] = static_cast<std::int32_t>(runs_.size());
      runs_.emplace_back();
    }
  crossings_.assign(topo.links().size(), 0);
  cluster.job_started.connect(models::ORDER_MODEL_TRAFFIC, [this](const models::Job& j) {
    if (j.id < slot_of_.size() && slot_of_[j.id] >= 0) on_start(j);  // a job made later has no model
  });
  cluster.job_finished.connect(models::ORDER_MODEL_TRAFFIC, [this](const models::Job& j) {
    if (j.id < slot_of_.size() && slot_of_[j.id] >= 0) on_finish(j);
  });
  cluster.job_stopped.connect(models::ORDER_MODEL_TRAFFIC, [this](const models::Job& j) {
    if (j.id < slot_of_.size() && slot_of_[j.id] >= 0) on_finish(j);
  });
}

void ModelTraffic::on_start(const models::Job& j) {
  const models::TrainingSpec& t = *j.training();
  Run& run = runs_[static_cast<std::size_t>(slot_of_[j.id])];
  // The job's GPUs in rank order: node by node, local index within a node.
  std::vector<topology::Vertex> gpus;
  for (const std::uint32_t node : cluster_.nodes_of(j))
    for (int g = 0; g < 64; ++g)
      if (j.gpu_mask >> g & 1) gpus.push_back(topo_.gpu(static_cast<int>(node), g));
  run.steps = gradient_sync_phases(t, std::move(gpus), topo_);

  const double per_step_samples = static_cast<double>(t.batch_per_gpu) * t.parallel.data * t.grad_accum;
  const double optimizer_steps = std::max(1.0, std::ceil(t.total_samples / per_step_samples));
  run.scale = std::max(1.0, std::ceil(optimizer_steps / static_cast<double>(PROBES)));
  const double alone_s = uncontended_s(run.steps, j.id, topo_, crossings_, &run.latency_s);
  for (auto& phase : run.steps)
    for (Send& s : phase) s.bytes *= run.scale;
  run.in_flight = false;
  speeds_.set_all_reduce_s(j.id, alone_s);
  run.next = engine_.schedule_at<&ModelTraffic::on_probe>(engine_.now(), this, j.id, PRIORITY_NETWORK_PROBE);
}

void ModelTraffic::on_probe(std::uint64_t job) {
  Run& run = runs_[static_cast<std::size_t>(slot_of_[job])];
  const models::Job& j = cluster_.jobs()[job];
  if (j.status != models::JobStatus::Running) return;
  // A job still staging its data computes nothing yet: no gradients to send.
  if (j.progress.updated > engine_.now()) {
    run.next = engine_.schedule_at<&ModelTraffic::on_probe>(j.progress.updated, this, job, PRIORITY_NETWORK_PROBE);
    return;
  }
  run.in_flight = true;
  run.sent = engine_.now();
  ++probes_sent_;
  const std::uint32_t id = runner_.start(run.steps, job, &ModelTraffic::on_probe_done, this);
  if (run.in_flight) run.collective = id;
}

void ModelTraffic::on_probe_done(void* self, std::uint64_t job, sim::SimTime finish) {
  auto* m = static_cast<ModelTraffic*>(self);
  Run& run = m->runs_[static_cast<std::size_t>(m->slot_of_[job])];
  run.in_flight = false;
  const double probe_s = (finish - run.sent).seconds();
  const double per_step_s = std::max(0.0, probe_s - run.latency_s) / run.scale + std::min(probe_s, run.latency_s);
  m->speeds_.set_all_reduce_s(static_cast<std::uint32_t>(job), per_step_s);
  // The next probe k optimizer steps after this one was sent, at the job's new step time.
  const models::Job& j = m->cluster_.jobs()[job];
  const double period_s = run.scale * j.training()->grad_accum * m->speeds_.estimate(j.id)->step_s;
  const sim::SimTime gap = sim::SimTime::from_seconds(std::max(0.0, period_s - probe_s));
  run.next = m->engine_.schedule_after<&ModelTraffic::on_probe>(gap, m, job, PRIORITY_NETWORK_PROBE);
}

void ModelTraffic::on_finish(const models::Job& j) {
  Run& run = runs_[static_cast<std::size_t>(slot_of_[j.id])];
  if (run.in_flight) runner_.cancel(run.collective);
  run.in_flight = false;
  engine_.cancel(run.next);
}

}  // namespace gcsim::network
