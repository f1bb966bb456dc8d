// Simulated GPU metrics (see metrics_sampler.hpp; equations and sources in docs/metrics.md).
#include "models/controllers/metrics_sampler.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "models/core/event_priorities.hpp"
#include "models/workload/step_time.hpp"
#include "sim/check.hpp"
#include "sim/trace/table_writer.hpp"

namespace gcsim::models {
namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Bytes of one activation element relative to 16-bit ones, as the step-time model counts
// them (models/workload/step_time.cpp, element_scale).
double element_scale(Precision p) { return p == Precision::Fp32 || p == Precision::Tf32 ? 2.0 : 1.0; }

}  // namespace

bool GpuMetricValues::operator==(const GpuMetricValues& o) const {
  return same(util, o.util) && same(fb_used_bytes, o.fb_used_bytes) && same(pcie_tx_bytes_per_s, o.pcie_tx_bytes_per_s) &&
         same(pcie_rx_bytes_per_s, o.pcie_rx_bytes_per_s) && same(nvlink_tx_bytes_per_s, o.nvlink_tx_bytes_per_s) &&
         same(nvlink_rx_bytes_per_s, o.nvlink_rx_bytes_per_s) && same(net_tx_bytes_per_s, o.net_tx_bytes_per_s) &&
         same(net_rx_bytes_per_s, o.net_rx_bytes_per_s);
}

StepTraffic step_traffic(const TrainingSpec& job, int nodes) {
  const ModelFigures f = job.figures();
  const ParallelismSpec& par = job.parallel;
  const double b = job.batch_per_gpu;
  StepTraffic t;
  // The input batch each GPU receives per micro-step: decoded tensors, or the encoded files
  // when the GPU decodes (estimate_step's input_h2d).
  t.h2d_bytes = b * (job.decode == Decode::Gpu ? f.input_bytes : f.device_bytes);
  // Gradient all-reduce, once per optimizer step: a ring sends (and receives) 2(n-1)/n of
  // the buffer per rank (Patarasuk & Yuan 2009). Of a ring through a data-parallel group
  // laid out node by node, `nodes` of its n hops leave a node.
  const int dp = par.data;
  if (dp > 1) {
    const double sent = 2.0 * (dp - 1) / dp * gradient_sync_bytes(job) / job.grad_accum;
    const double cross = nodes > 1 ? std::min(1.0, static_cast<double>(nodes) / dp) : 0.0;
    t.intra_bytes += sent * (1 - cross);
    t.inter_bytes += sent * cross;
  }
  // Tensor parallelism inside a node: 4 all-reduces of a layer's output per layer
  // (Megatron-LM), as estimate_step counts them.
  if (par.tensor > 1 && job.model.transformer) {
    const double act = b * f.tokens * job.model.transformer->hidden * 2.0 * element_scale(job.precision);
    t.intra_bytes += 4.0 * job.model.transformer->layers / par.pipeline * 2.0 * (par.tensor - 1) / par.tensor * act;
  }
  return t;
}

MetricsSampler::MetricsSampler(sim::Engine& engine, const Scenario& scenario, Cluster& cluster, const ModelSpeeds* speeds,
                               trace::Table& table, sim::SimTime every)
    : Controller(engine, PRIORITY_METRICS), scenario_(scenario), cluster_(cluster), speeds_(speeds), table_(table),
      every_(every) {
  GCSIM_CHECK(every > sim::SimTime::zero(), "MetricsSampler: the interval must be > 0");
  const auto& nodes = cluster.nodes();
  for (std::uint32_t n = 0; n < nodes.size(); ++n)
    for (int g = 0; g < nodes[n].gpus; ++g) node_of_gpu_.push_back(n);
  const std::size_t gpus = node_of_gpu_.size();
  gpu_jobs_.assign(gpus, 0);
  idle_on_.assign(gpus, 0);
  gpu_dirty_.assign(gpus, 0);
  dirty_gpus_.reserve(gpus);
  pending_.reserve(gpus);
  gpu_list_.reserve(2 * gpus);
  jobs_.resize(cluster.jobs().size());
  watch_.reserve(cluster.jobs().size());
  for (const NodeTypeSpec& t : scenario.cluster.node_types) has_nvlink_.push_back(t.gpu.nvlink_bytes_per_s > 0 ? 1 : 0);

  cluster.job_started.connect(ORDER_METRICS, [this](const Job& j) { note_job(j, true); });
  cluster.job_finished.connect(ORDER_METRICS, [this](const Job& j) { note_job(j, false); });
  cluster.job_stopped.connect(ORDER_METRICS, [this](const Job& j) { note_job(j, false); });
  cluster.node_up.connect(ORDER_METRICS, [this](std::uint32_t n) { note_node(n); });
  cluster.node_down.connect(ORDER_METRICS, [this](std::uint32_t n) { note_node(n); });
}

MetricsSampler::JobState& MetricsSampler::state(std::uint32_t job) {
  if (job >= jobs_.size()) jobs_.resize(cluster_.jobs().size());  // a job submitted during the run
  return jobs_[job];
}

void MetricsSampler::start() {
  for (std::uint32_t n = 0; n < cluster_.nodes().size(); ++n) note_node(n);
  act_at<&MetricsSampler::on_tick>(every_, this);
}

void MetricsSampler::note_job(const Job& j, bool on) {
  // The GPUs now, while the signal names them: by the time the flush runs, a stopped job
  // may have started elsewhere.
  const auto begin = static_cast<std::uint32_t>(gpu_list_.size());
  const auto& nodes = cluster_.nodes();
  for (std::uint32_t n : cluster_.nodes_of(j))
    for (std::uint64_t m = j.gpu_mask; m != 0; m &= m - 1)
      gpu_list_.push_back(nodes[n].first_gpu + static_cast<std::uint32_t>(std::countr_zero(m)));
  pending_.push_back({j.id, j.incarnation, on, begin, static_cast<std::uint32_t>(gpu_list_.size()) - begin});
  request_flush();
}

void MetricsSampler::note_node(std::uint32_t node) {
  const NodeState& s = cluster_.nodes()[node];
  for (int g = 0; g < s.gpus; ++g) {
    const std::uint32_t gpu = s.first_gpu + static_cast<std::uint32_t>(g);
    if (!gpu_dirty_[gpu]) {
      gpu_dirty_[gpu] = 1;
      dirty_gpus_.push_back(gpu);
    }
  }
  request_flush();
}

void MetricsSampler::request_flush() {
  if (flush_scheduled_) return;
  flush_scheduled_ = true;
  act_at<&MetricsSampler::on_flush>(engine_.now(), this);
}

void MetricsSampler::write_row(sim::SimTime t, std::uint32_t gpu, std::int64_t job, bool on, const GpuMetricValues& v) {
  const std::uint32_t node = node_of_gpu_[gpu];
  table_.begin_row()
      .f64(0, t.seconds())
      .i32(1, static_cast<std::int32_t>(node))
      .i32(2, static_cast<std::int32_t>(gpu - cluster_.nodes()[node].first_gpu))
      .i64(3, job)
      .enum8(4, on ? 1 : 0)
      .f64(5, on ? v.util : NaN)
      .f64(6, on ? v.fb_used_bytes : NaN)
      .f64(7, on ? v.pcie_tx_bytes_per_s : NaN)
      .f64(8, on ? v.pcie_rx_bytes_per_s : NaN)
      .f64(9, on ? v.nvlink_tx_bytes_per_s : NaN)
      .f64(10, on ? v.nvlink_rx_bytes_per_s : NaN)
      .f64(11, on ? v.net_tx_bytes_per_s : NaN)
      .f64(12, on ? v.net_rx_bytes_per_s : NaN);
  ++rows_;
}

void MetricsSampler::on_flush(std::uint64_t) {
  flush_scheduled_ = false;
  const auto& jobs = cluster_.jobs();
  for (const Pending& p : pending_) {
    JobState& s = state(p.job);
    const Job& j = jobs[p.job];
    if (!p.on) {
      if (!s.on) continue;  // its run started and ended within one instant: no series
      s.on = false;
      for (std::uint32_t i = p.gpu_begin; i < p.gpu_begin + p.gpu_count; ++i) {
        const std::uint32_t g = gpu_list_[i];
        write_row(engine_.now(), g, p.job, false, s.last);
        --gpu_jobs_[g];
        if (!gpu_dirty_[g]) {
          gpu_dirty_[g] = 1;
          dirty_gpus_.push_back(g);
        }
      }
      continue;
    }
    // A run that has ended (or been replaced by a later one) by now has no series.
    if (j.status != JobStatus::Running || j.incarnation != p.incarnation) continue;
    s.on = true;
    s.incarnation = p.incarnation;
    if (j.training()) s.traffic = step_traffic(*j.training(), static_cast<int>(j.nodes_count));
    s.last = job_values(j, s.traffic);
    s.recheck = sim::SimTime::max();
    for (std::uint32_t i = p.gpu_begin; i < p.gpu_begin + p.gpu_count; ++i) {
      const std::uint32_t g = gpu_list_[i];
      write_row(engine_.now(), g, p.job, true, s.last);
      ++gpu_jobs_[g];
      if (!gpu_dirty_[g]) {
        gpu_dirty_[g] = 1;
        dirty_gpus_.push_back(g);
      }
    }
    if (!s.watched && j.training()) {
      s.watched = true;
      watch_.push_back(p.job);
    }
    schedule_recheck(j);
  }
  pending_.clear();
  gpu_list_.clear();
  for (std::uint32_t g : dirty_gpus_) {
    gpu_dirty_[g] = 0;
    reconcile_idle(g);
  }
  dirty_gpus_.clear();
}

void MetricsSampler::reconcile_idle(std::uint32_t gpu) {
  const bool want = cluster_.nodes()[node_of_gpu_[gpu]].up && gpu_jobs_[gpu] == 0;
  if (want == static_cast<bool>(idle_on_[gpu])) return;
  idle_on_[gpu] = want ? 1 : 0;
  GpuMetricValues idle;
  if (!has_nvlink_[cluster_.nodes()[node_of_gpu_[gpu]].type]) idle.nvlink_tx_bytes_per_s = idle.nvlink_rx_bytes_per_s = NaN;
  write_row(engine_.now(), gpu, -1, want, idle);
}

GpuMetricValues MetricsSampler::job_values(const Job& j, const StepTraffic& t) const {
  GpuMetricValues v;
  const double share = j.gpu_milli / 1000.0;
  // Restoring, pulling its image, staging its data or writing a checkpoint: it holds its
  // GPUs and memory, and runs no kernel (as `gcsim analyze` counts busy time).
  const bool paused = j.progress.updated > engine_.now();
  const StepEstimate* e = j.training() && speeds_ ? speeds_->estimate(j.id) : nullptr;
  if (!e) {
    // A plain job: its kernels run all the time it computes; nothing else is modelled.
    v.util = paused ? 0.0 : share;
    v.fb_used_bytes = v.pcie_tx_bytes_per_s = v.pcie_rx_bytes_per_s = NaN;
    v.nvlink_tx_bytes_per_s = v.nvlink_rx_bytes_per_s = v.net_tx_bytes_per_s = v.net_rx_bytes_per_s = NaN;
    return v;
  }
  const bool nvlink = has_nvlink_[static_cast<std::size_t>(j.node_type)] != 0;
  const double mem = speeds_->memory_per_gpu_bytes(j.id);
  v.fb_used_bytes = mem > 0 ? mem : NaN;
  const bool running = !paused && e->step_s > 0;
  v.util = running ? share * std::clamp(e->compute_s / e->step_s, 0.0, 1.0) : 0.0;
  if (!running) {
    if (!nvlink) v.nvlink_tx_bytes_per_s = v.nvlink_rx_bytes_per_s = NaN;
    return v;
  }
  const double per_s = 1.0 / e->step_s;
  const double pcie_peer = nvlink ? 0.0 : t.intra_bytes;  // GPUs without NVLink talk over PCIe
  v.pcie_rx_bytes_per_s = (t.h2d_bytes + pcie_peer + t.inter_bytes) * per_s;
  v.pcie_tx_bytes_per_s = (pcie_peer + t.inter_bytes) * per_s;  // the NIC reads the GPU (GPUDirect RDMA)
  v.nvlink_tx_bytes_per_s = v.nvlink_rx_bytes_per_s = nvlink ? t.intra_bytes * per_s : NaN;
  v.net_tx_bytes_per_s = v.net_rx_bytes_per_s = t.inter_bytes * per_s;
  return v;
}

void MetricsSampler::write_job_rows(sim::SimTime t, const Job& j, bool on, const GpuMetricValues& v) {
  const auto& nodes = cluster_.nodes();
  for (std::uint32_t n : cluster_.nodes_of(j))
    for (std::uint64_t m = j.gpu_mask; m != 0; m &= m - 1)
      write_row(t, nodes[n].first_gpu + static_cast<std::uint32_t>(std::countr_zero(m)), j.id, on, v);
}

void MetricsSampler::refresh(const Job& j) {
  JobState& s = state(j.id);
  const GpuMetricValues v = job_values(j, s.traffic);
  if (!(v == s.last)) {
    s.last = v;
    write_job_rows(engine_.now(), j, true, v);
  }
  schedule_recheck(j);
}

void MetricsSampler::schedule_recheck(const Job& j) {
  // Values of a job change at known times: where a pause ends, and where its next
  // checkpoint write (pausing it) begins: when its progress reaches ckpt_due_s, as the
  // checkpoint controller schedules it (progress_s accrues from progress.updated on). Look
  // again exactly then; a prediction that a delay made early is made again then.
  JobState& s = state(j.id);
  const sim::SimTime now = engine_.now();
  sim::SimTime at = sim::SimTime::max();
  if (j.progress.updated > now) {
    at = j.progress.updated;
  } else if (j.checkpoint() && j.checkpoint()->pause && j.ckpt().ckpt_every > sim::SimTime::zero() && !j.ckpt().ckpt_every.is_max()) {
    const double due_s = j.ckpt().ckpt_due_s - j.ckpt().progress_s;
    const double left_s = (scenario_.horizon - now).seconds();
    if (due_s > 0 && due_s <= left_s) at = std::max(j.progress.updated + sim::SimTime::from_seconds(due_s), now + sim::SimTime::from_ns(1000000));
  }
  if (at == sim::SimTime::max() || at > scenario_.horizon) return;
  if (s.recheck > now && s.recheck <= at) return;  // one already due no later
  s.recheck = at;
  act_at<&MetricsSampler::on_recheck>(at, this, (std::uint64_t{j.id} << 32) | j.incarnation);
}

void MetricsSampler::on_recheck(std::uint64_t arg) {
  const auto id = static_cast<std::uint32_t>(arg >> 32);
  const Job& j = cluster_.jobs()[id];
  JobState& s = state(id);
  if (!s.on || j.status != JobStatus::Running || j.incarnation != static_cast<std::uint32_t>(arg)) return;
  if (s.recheck == engine_.now()) s.recheck = sim::SimTime::max();
  refresh(j);
}

void MetricsSampler::on_tick(std::uint64_t) {
  if (cluster_.ended()) return;
  const auto& jobs = cluster_.jobs();
  for (std::size_t i = 0; i < watch_.size();) {
    const std::uint32_t id = watch_[i];
    JobState& s = state(id);
    const Job& j = jobs[id];
    if (!s.on || j.status != JobStatus::Running || j.incarnation != s.incarnation) {
      s.watched = false;
      watch_[i] = watch_.back();
      watch_.pop_back();
      continue;
    }
    refresh(j);
    ++i;
  }
  act_at<&MetricsSampler::on_tick>(engine_.now() + every_, this);
}

void MetricsSampler::finish(RunSummary& /*summary*/) {
  // Every series still on ends with the run.
  if (!pending_.empty() || !dirty_gpus_.empty()) on_flush(0);
  const auto& jobs = cluster_.jobs();
  for (std::uint32_t id = 0; id < jobs_.size(); ++id) {
    JobState& s = jobs_[id];
    if (!s.on) continue;
    s.on = false;
    write_job_rows(cluster_.end_time(), jobs[id], false, s.last);
  }
  for (std::uint32_t g = 0; g < idle_on_.size(); ++g)
    if (idle_on_[g]) {
      idle_on_[g] = 0;
      write_row(cluster_.end_time(), g, -1, false, GpuMetricValues{});
    }
}

}  // namespace gcsim::models
