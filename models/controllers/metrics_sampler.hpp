// Simulated GPU metrics (docs/metrics.md): per GPU, what NVIDIA's DCGM exporter would
// report (utilization, memory used, PCIe and NVLink bytes) and the GPU's share of its
// node's network traffic, as the run's models say they are. A run has a sampler when the
// scenario has `output: {metrics: {every: ...}}` and writes a trace
// (metrics_component() in models/builtin_parts.hpp, registered as "metrics": it makes
// the trace's /metrics table, which this package cannot, being below the trace's).
//
// Stored by change, not by sample: a /metrics row says that from its time on the series
// (node, gpu, job) has its values ("on"), or that the series ends ("off"). A series starts
// when a job starts on the GPU (job -1: the GPU idle while its node is up) and its values
// change when the job pauses (restore, image pull, staging, a checkpoint write) or its
// step time changes (contention on storage or the network). `gcsim metrics` expands the
// rows to one sample per `every` on export (analysis/metrics_series.hpp), so a month of
// 5,000 GPUs costs rows per change, not 172,800 per GPU.
//
// What it sees, it sees from signals (which GPUs a start, stop or node change touched,
// noted in flat vectors); what it records, it records from an event of its own at
// PRIORITY_METRICS, once every change of the instant is made (docs/engine.md,
// "Controllers"), never from inside a signal. A job's pauses (restore, image pull,
// staging, checkpoint writes) begin and end at times it can compute, and it looks again
// exactly then; a model-described job's step time may change with contention, so every
// `every` it looks again at the running model-described jobs and records those that
// changed.
#pragma once

#include <cstdint>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/coupling/model_speeds.hpp"
#include "models/run/component.hpp"
#include "sim/engine.hpp"

namespace gcsim::trace {
class Table;
}

namespace gcsim::models {

// One GPU's values for one job (or idle), per second; NaN where the run does not model the
// quantity for the job (docs/metrics.md, "What is not modelled").
struct GpuMetricValues {
  double util = 0;                   // share of the time a kernel runs, 0..1
  double fb_used_bytes = 0;          // memory used
  double pcie_tx_bytes_per_s = 0;    // GPU -> host (and -> NIC, GPUDirect RDMA)
  double pcie_rx_bytes_per_s = 0;    // host -> GPU
  double nvlink_tx_bytes_per_s = 0;  // NaN: the GPU has no NVLink
  double nvlink_rx_bytes_per_s = 0;
  double net_tx_bytes_per_s = 0;     // this GPU's traffic to other nodes
  double net_rx_bytes_per_s = 0;
  bool operator==(const GpuMetricValues& o) const;  // NaN equals NaN
};

// What one micro-step of a model-described job moves per GPU, bytes (from the step-time
// model's quantities, docs/metrics.md "How each metric is computed").
struct StepTraffic {
  double h2d_bytes = 0;        // input batch, host -> GPU over PCIe
  double intra_bytes = 0;      // collectives to GPUs of the same node (each way)
  double inter_bytes = 0;      // collectives to GPUs of other nodes (each way)
};
StepTraffic step_traffic(const TrainingSpec& job, int nodes);

class MetricsSampler final : public Controller {
 public:
  MetricsSampler(sim::Engine& engine, const Scenario& scenario, Cluster& cluster, const ModelSpeeds* speeds,
                 trace::Table& table, sim::SimTime every);
  void start() override;
  void finish(RunSummary& summary) override;

  // The values of running job `j` on one of its GPUs now (`traffic`: its step_traffic()).
  GpuMetricValues job_values(const Job& j, const StepTraffic& traffic) const;
  std::uint64_t rows() const { return rows_; }

 private:
  struct Pending {
    std::uint32_t job;
    std::uint32_t incarnation;
    bool on;
    std::uint32_t gpu_begin;  // its GPUs: gpu_list_[gpu_begin, gpu_begin + gpu_count)
    std::uint32_t gpu_count;
  };
  struct JobState {
    bool on = false;
    bool watched = false;              // in watch_
    std::uint32_t incarnation = 0;     // of the run whose series are on
    GpuMetricValues last;
    StepTraffic traffic;               // a model-described run's bytes per micro-step (fixed by its placement)
    sim::SimTime recheck = sim::SimTime::max();  // the next look scheduled (a pause's end or start)
  };

  void note_job(const Job& j, bool on);
  void note_node(std::uint32_t node);
  void request_flush();
  void on_flush(std::uint64_t);
  void on_tick(std::uint64_t);
  void on_recheck(std::uint64_t job);
  // Records the job's values when they changed (a new "on" row on each of its GPUs).
  void refresh(const Job& j);
  void write_job_rows(sim::SimTime t, const Job& j, bool on, const GpuMetricValues& v);
  void write_row(sim::SimTime t, std::uint32_t gpu, std::int64_t job, bool on, const GpuMetricValues& v);
  void reconcile_idle(std::uint32_t gpu);
  void schedule_recheck(const Job& j);
  JobState& state(std::uint32_t job);

  const Scenario& scenario_;
  Cluster& cluster_;
  const ModelSpeeds* speeds_;
  trace::Table& table_;
  sim::SimTime every_;
  std::vector<std::uint32_t> node_of_gpu_;   // by global GPU
  std::vector<std::uint32_t> gpu_jobs_;      // by global GPU: job series on it
  std::vector<std::uint8_t> idle_on_;        // by global GPU: its idle series is on
  std::vector<std::uint8_t> gpu_dirty_;      // by global GPU: in dirty_gpus_
  std::vector<std::uint32_t> dirty_gpus_;
  std::vector<Pending> pending_;
  std::vector<std::uint32_t> gpu_list_;
  std::vector<JobState> jobs_;
  std::vector<std::uint32_t> watch_;         // running model-described jobs (their step may change)
  std::vector<std::uint8_t> has_nvlink_;     // by node type
  bool flush_scheduled_ = false;
  std::uint64_t rows_ = 0;
};

}  // namespace gcsim::models
