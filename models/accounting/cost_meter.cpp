// Compute billing (see cost_meter.hpp).
#include "models/accounting/cost_meter.hpp"

#include <algorithm>
#include <cmath>

#include "models/core/event_priorities.hpp"
#include "models/pricing/billing.hpp"

namespace gcsim::models {

namespace {

bool rented(Market m) { return m == Market::OnDemand || m == Market::Spot; }

ChargeCategory category_of(Market m, bool busy) {
  switch (m) {
    case Market::Reserved: return ChargeCategory::Reserved;
    case Market::Owned: return ChargeCategory::Ownership;
    default: return busy ? ChargeCategory::ComputeBusy : ChargeCategory::ComputeIdle;
  }
}

}  // namespace

CostMeter::CostMeter(const Scenario& scenario, Cluster& cluster, Ledger& ledger)
    : scenario_(scenario), cluster_(cluster), ledger_(ledger), job_cost_usd_(cluster.jobs().size(), 0.0),
      node_cost_usd_(cluster.nodes().size(), 0.0), node_up_s_(cluster.nodes().size(), 0.0),
      session_start_(cluster.nodes().size(), sim::SimTime::zero()), session_busy_usd_(cluster.nodes().size(), 0.0) {
  billed_.reserve(cluster.nodes().size());
  for (const NodeState& node : cluster.nodes()) billed_.push_back(node.billed);
  ledger.charged.connect(ORDER_COSTS, [this](const Charge& c) {
    if (c.job >= 0) job_cost_usd_[static_cast<std::size_t>(c.job)] += c.usd;
    if (c.node >= 0) node_cost_usd_[static_cast<std::size_t>(c.node)] += c.usd;
  });
  // A job submitted during the run (Cluster::submit) arrives before anything is charged to it.
  cluster.job_submitted.connect(ORDER_COSTS, [this](const Job& j) {
    if (j.id >= job_cost_usd_.size()) job_cost_usd_.resize(std::size_t{j.id} + 1, 0.0);
  });
  cluster.job_finished.connect(ORDER_COSTS, [this](const Job& j) { charge_run(j, j.end); });
  cluster.job_stopped.connect(ORDER_COSTS, [this](const Job& j) { charge_run(j, cluster_.now()); });
  // A session runs while the node is billed: from its request (or from when it is up, for
  // a request that does not bill provisioning, and a market's replacement) to its release
  // or loss.
  cluster.node_changed.connect(ORDER_COSTS, [this](const NodeTransition& t) {
    if (t.billed == billed_[t.node]) return;
    billed_[t.node] = t.billed;
    if (t.billed) {
      session_start_[t.node] = t.time;
      session_busy_usd_[t.node] = 0;
    } else {
      close_session(t.node, t.time);
    }
  });
  cluster.run_ended.connect(ORDER_COSTS, [this](sim::SimTime end) {
    for (const Job& j : cluster_.jobs())
      if (j.status == JobStatus::Running) charge_run(j, end);
    // Rented nodes are given back when the run ends; owned and reserved ones are paid for
    // the whole horizon whatever run_until says (the tail is idle).
    const auto& nodes = cluster_.nodes();
    for (std::uint32_t n = 0; n < nodes.size(); ++n) {
      if (!billed_[n]) continue;
      const Market m = scenario_.cluster.node_types[nodes[n].type].price.market;
      close_session(n, rented(m) ? end : std::max(end, scenario_.horizon));
    }
  });
}

double CostMeter::busy_usd(std::uint32_t node, sim::SimTime from, sim::SimTime to) const {
  const NodeTypeSpec& t = scenario_.cluster.node_types[cluster_.nodes()[node].type];
  if (t.price.market == Market::Spot) return cost_usd(t.price.spot_profile, from, to);
  return node_usd_per_hour(t, 1.0) * (to - from).seconds() / 3600.0;
}

double CostMeter::running_cost_usd(const Job& j, sim::SimTime now) const {
  // A run over capacity (the as-recorded replay's) holds no GPU: it pays nothing, so the
  // bill stays the nodes' own.
  if (j.status != JobStatus::Running || j.over_capacity) return 0;
  double usd = 0;
  for (std::uint32_t n : cluster_.nodes_of(j)) {
    const double share = j.gpus_per_node_held * (j.gpu_milli / 1000.0) / cluster_.nodes()[n].gpus;
    usd += busy_usd(n, j.run_start, now) * share;
  }
  return usd;
}

void CostMeter::charge_run(const Job& j, sim::SimTime until) {
  if (j.over_capacity) return;  // holds no GPU (running_cost_usd)
  for (std::uint32_t n : cluster_.nodes_of(j)) {
    const NodeTypeSpec& t = scenario_.cluster.node_types[cluster_.nodes()[n].type];
    // A job sharing a GPU pays its share of it (gpu_milli / 1000).
    const double share = j.gpus_per_node_held * (j.gpu_milli / 1000.0) / t.gpus;
    const double usd = busy_usd(n, j.run_start, until) * share;
    session_busy_usd_[n] += usd;
    ledger_.post(Charge{until, static_cast<std::int32_t>(cluster_.nodes()[n].type), static_cast<std::int32_t>(n),
                        static_cast<std::int32_t>(j.id), category_of(t.price.market, true), usd, true});
  }
}

void CostMeter::close_session(std::uint32_t n, sim::SimTime at) {
  const NodeTypeSpec& t = scenario_.cluster.node_types[cluster_.nodes()[n].type];
  const sim::SimTime used = at - session_start_[n];
  node_up_s_[n] += used.seconds();
  double bill = 0;
  if (rented(t.price.market)) {
    // The billed time's rounding (and minimum) at the last price the node ran at (a price
    // that changes at `at` itself, as a price-driven interruption's does, was never paid).
    const sim::SimTime billed = billed_time(t.price.billing, used);
    const double rounding_h = (billed - used).seconds() / 3600.0;
    const sim::SimTime last = at > session_start_[n] ? at - sim::SimTime::from_ns(1) : at;
    if (t.price.market == Market::Spot)
      bill = cost_usd(t.price.spot_profile, session_start_[n], at) + rounding_h * t.price.spot_profile.value_at(last);
    else
      bill = t.price.on_demand_usd_per_hour * billed.seconds() / 3600.0;
  } else {
    // Fixed costs and idle power for all of it; the jobs' shares already paid the busy rate.
    const double idle_rate = node_usd_per_hour(t, 0.0);
    const double busy_rate = node_usd_per_hour(t, 1.0);
    // busy share s of the session: the jobs paid busy_rate * s * h; the rest is idle_rate.
    const double h = used.seconds() / 3600.0;
    const double busy_node_h = busy_rate > 0 ? session_busy_usd_[n] / busy_rate : 0.0;
    bill = session_busy_usd_[n] + idle_rate * std::max(0.0, h - busy_node_h);
  }
  const double idle = std::max(0.0, bill - session_busy_usd_[n]);
  ledger_.post(Charge{at, static_cast<std::int32_t>(cluster_.nodes()[n].type), static_cast<std::int32_t>(n), -1,
                      category_of(t.price.market, false), idle, false});
  session_busy_usd_[n] = 0;
  session_start_[n] = at;
}

}  // namespace gcsim::models
