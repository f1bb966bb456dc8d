// Compute billing as an observer of the cluster: every node's bill by its market, posted to
// the cost ledger (models/pricing/ledger.hpp) as it becomes known (docs/pricing.md,
// "Billing in a run").
//
//   rented (on demand, spot): a node is billed from when it comes up (or is requested, for a
//     controller's request that bills provisioning: Cluster::request_node) to when it goes
//     down or is released (or the run ends), at its market's price (a spot price may change: the integral of the
//     profile), on the billed time of its billing rule (granularity, minimum); the rounding
//     is billed at the last price the node ran at.
//   reserved: the effective hourly price (upfront spread over the term, plus recurring) for
//     every hour of the run, used or not.
//   owned: F + E(u) per hour (models/pricing/tco.hpp): fixed costs and idle power always,
//     busy power for the GPUs jobs hold.
// A job's run is charged when it ends (finish, interruption, budget stop, end of run), one
// charge per node it held: its GPUs' share of the node's price over the run (rented:
// ComputeBusy; reserved and owned: their category, busy). What a node's bill holds beyond
// its jobs' shares is posted when its session closes (ComputeIdle, or the category with
// busy = false), so busy + idle = the bill exactly.
#pragma once

#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/pricing/ledger.hpp"

namespace gcsim::models {

class CostMeter {
 public:
  // Subscribes to the cluster's signals and the ledger; all must outlive the run.
  CostMeter(const Scenario& scenario, Cluster& cluster, Ledger& ledger);

  // Charges posted so far that name the job / the node (all categories).
  double job_cost_usd(std::uint32_t job) const { return job_cost_usd_[job]; }
  double node_cost_usd(std::uint32_t node) const { return node_cost_usd_[node]; }
  double node_up_s(std::uint32_t node) const { return node_up_s_[node]; }  // billed seconds, before rounding
  double total_cost_usd() const { return ledger_.total_usd(); }
  double busy_cost_usd() const { return ledger_.busy_usd(); }
  const Ledger& ledger() const { return ledger_; }

  // What a running job's current run has cost so far and is not yet posted (budgets).
  double running_cost_usd(const Job& job, sim::SimTime now) const;

 private:
  // A node's price per hour when its share is used by jobs, integrated over [from, to).
  double busy_usd(std::uint32_t node, sim::SimTime from, sim::SimTime to) const;
  void charge_run(const Job& job, sim::SimTime until);
  void close_session(std::uint32_t node, sim::SimTime at);

  const Scenario& scenario_;
  const Cluster& cluster_;
  Ledger& ledger_;
  std::vector<double> job_cost_usd_;
  std::vector<double> node_cost_usd_;
  std::vector<double> node_up_s_;
  std::vector<sim::SimTime> session_start_;  // per node; valid while up
  std::vector<double> session_busy_usd_;      // job shares posted in the open session
  std::vector<char> billed_;                  // per node: a session is open
};

}  // namespace gcsim::models
