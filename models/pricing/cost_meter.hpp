// On-demand billing of a fixed cluster, as an observer of the cluster's signals.
//   node cost = price_usd_per_hour x ceil(provisioned seconds) / 3600  (billed per second)
//   job cost  = price_usd_per_hour / gpus_per_node x GPUs held x seconds held / 3600
// A job's share is exact (not rounded): the rounding of the node bill falls to idle cost,
// so busy <= total always holds and idle = total - busy.
#pragma once

#include <vector>

#include "models/cluster.hpp"

namespace gcsim::models {

class CostMeter {
 public:
  // Subscribes to the cluster's signals; both must outlive the run.
  CostMeter(const Scenario& scenario, Cluster& cluster);

  double job_cost_usd(std::uint32_t job) const { return job_cost_usd_[job]; }
  double node_cost_usd(std::uint32_t node) const { return node_cost_usd_[node]; }
  double total_cost_usd() const;
  double busy_cost_usd() const;

  static double node_bill_usd(double usd_per_hour, double seconds);

 private:
  void charge_job(const Job& job, sim::SimTime until);

  const Scenario& scenario_;
  const Cluster& cluster_;
  std::vector<double> job_cost_usd_;
  std::vector<double> node_cost_usd_;
};

}  // namespace gcsim::models
