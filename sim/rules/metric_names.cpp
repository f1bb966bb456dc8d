// The exported metric families (see metric_names.hpp).
#include "sim/rules/metric_names.hpp"

namespace gcsim::promql {

std::vector<std::string> exported_metric_names() {
  std::vector<std::string> out;
  for (const MetricFamily& f : METRIC_FAMILIES)
    out.push_back(std::string(f.name) + (f.type == "counter" ? "_total" : ""));
  return out;
}

}  // namespace gcsim::promql
