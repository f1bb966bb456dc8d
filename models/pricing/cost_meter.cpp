// On-demand billing (see cost_meter.hpp).
#include "models/pricing/cost_meter.hpp"

#include <cmath>

namespace gcsim::models {

CostMeter::CostMeter(const Scenario& scenario, Cluster& cluster)
    : scenario_(scenario), cluster_(cluster), job_cost_usd_(cluster.jobs().size(), 0.0),
      node_cost_usd_(cluster.nodes().size(), 0.0) {
  cluster.job_finished.connect([this](const Job& j) { charge_job(j, j.end); });
  cluster.run_ended.connect([this](sim::SimTime end) {
    for (const Job& j : cluster_.jobs())
      if (j.status == JobStatus::Running) charge_job(j, end);
    const auto& nodes = cluster_.nodes();
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      const double price = scenario_.cluster.node_types[nodes[n].type].price.on_demand_usd_per_hour;
      node_cost_usd_[n] = node_bill_usd(price, end.seconds());
    }
  });
}

double CostMeter::node_bill_usd(double usd_per_hour, double seconds) {
  // Per-second billing: a started second is a billed second. The small tolerance keeps
  // a whole number of seconds that picked up float noise from being rounded up.
  const double billed = std::ceil(seconds - 1e-9);
  return usd_per_hour * std::max(0.0, billed) / 3600.0;
}

void CostMeter::charge_job(const Job& j, sim::SimTime until) {
  const auto& type = scenario_.cluster.node_types[static_cast<std::size_t>(j.node_type)];
  const double per_gpu_hour = type.price.on_demand_usd_per_hour / type.gpus;
  job_cost_usd_[j.id] = per_gpu_hour * j.gpus_held() * (until - j.start).seconds() / 3600.0;
}

double CostMeter::total_cost_usd() const {
  double s = 0;
  for (double c : node_cost_usd_) s += c;
  return s;
}

double CostMeter::busy_cost_usd() const {
  double s = 0;
  for (double c : job_cost_usd_) s += c;
  return s;
}

}  // namespace gcsim::models
