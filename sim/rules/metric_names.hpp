// The metric families a run's simulated GPU metrics are exported as (docs/metrics.md lists
// each with its exact meaning), named once here, below models/ and analysis/: the exporter
// (analysis/metrics_series.*) writes them, and alerting rules (a scenario's `alerts:`, a
// rules file given to `gcsim alerts` or `gcsim analyze --rules`) may name only them, so a
// misspelt metric is an error at its column, never a rule that silently never fires.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace gcsim::promql {

struct MetricFamily {
  std::string_view name;  // the family name (a counter's samples add "_total")
  std::string_view type;  // "gauge" or "counter"
  std::string_view unit;  // OpenMetrics unit ("" when the name does not end in one: DCGM's names)
  std::string_view help;
};

// In export order: NVIDIA DCGM exporter's names for the per-GPU gauges, gcsim's own for the
// node's network counters and latency.
inline constexpr std::array<MetricFamily, 9> METRIC_FAMILIES = {{
    {"DCGM_FI_DEV_GPU_UTIL", "gauge", "",
     "GPU utilization (in %): the share of the interval a kernel ran (gcsim: compute / step time)"},
    {"DCGM_FI_DEV_FB_USED", "gauge", "", "Framebuffer memory used (in MiB) (gcsim: the memory-fit model's need)"},
    {"DCGM_FI_PROF_PCIE_TX_BYTES", "gauge", "",
     "The rate of data transmitted over the PCIe bus, in bytes per second (gcsim: peer and GPUDirect traffic)"},
    {"DCGM_FI_PROF_PCIE_RX_BYTES", "gauge", "",
     "The rate of data received over the PCIe bus, in bytes per second (gcsim: input batches, peer and GPUDirect "
     "traffic)"},
    {"DCGM_FI_PROF_NVLINK_TX_BYTES", "gauge", "",
     "The rate of data transmitted over NVLink, in bytes per second (gcsim: collectives inside the node)"},
    {"DCGM_FI_PROF_NVLINK_RX_BYTES", "gauge", "",
     "The rate of data received over NVLink, in bytes per second (gcsim: collectives inside the node)"},
    {"gcsim_node_network_transmit_bytes", "counter", "bytes",
     "Bytes the node's GPUs sent to other nodes since the run's start (collectives of model-described jobs)"},
    {"gcsim_node_network_receive_bytes", "counter", "bytes",
     "Bytes the node's GPUs received from other nodes since the run's start (collectives of model-described jobs)"},
    {"gcsim_node_network_latency_seconds", "gauge", "seconds",
     "One-way latency a probe packet from the node to the other nodes of its multi-node jobs would see, mean over "
     "them: the path's link latencies plus M/M/1 queueing at each link's utilization over the interval"},
}};

// A family by its name, checked at compile time.
consteval const MetricFamily& metric_family(std::string_view name) {
  for (const MetricFamily& f : METRIC_FAMILIES)
    if (f.name == name) return f;
  throw "not a metric family";  // not a constant: a compile error
}

// The labels the exported series carry (docs/metrics.md): the GPU gauges all four (`job`
// while a job runs), the node series `node` and `pool`.
inline constexpr std::array<std::string_view, 4> METRIC_LABELS = {"node", "gpu", "pool", "job"};

// The metric names a rule may select: each family's name as its samples carry it (a
// counter's with "_total").
std::vector<std::string> exported_metric_names();

}  // namespace gcsim::promql
