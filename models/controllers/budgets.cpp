// Budgets (see budgets.hpp).
#include "models/controllers/budgets.hpp"

#include <algorithm>
#include <memory>

#include "models/core/event_priorities.hpp"
#include "sim/check.hpp"

namespace gcsim::models {

BudgetWatcher::BudgetWatcher(sim::Engine& engine, const Scenario& scenario, Cluster& cluster, Ledger& ledger,
                             const CostMeter& costs)
    : Controller(engine, PRIORITY_CONTROL), scenario_(scenario), cluster_(cluster), costs_(costs),
      team_posted_usd_(scenario.workload.teams.size(), 0.0), running_(scenario.workload.teams.size()),
      budget_of_team_(scenario.workload.teams.size(), -1) {
  for (std::size_t b = 0; b < scenario.budgets.size(); ++b) {
    State s;
    s.team = scenario.workload.team_index(scenario.budgets[b].team);
    budget_of_team_[static_cast<std::size_t>(s.team)] = static_cast<int>(b);
    states_.push_back(s);
  }
  ledger.charged.connect(ORDER_BUDGETS, [this](const Charge& c) {
    if (c.job < 0) return;
    const int team = cluster_.jobs()[static_cast<std::size_t>(c.job)].team;
    if (team < 0) return;
    team_posted_usd_[static_cast<std::size_t>(team)] += c.usd;
    const int b = budget_of_team_[static_cast<std::size_t>(team)];
    // The posted part alone: a lower bound of the spend, enough to react at once.
    if (b >= 0) check(static_cast<std::size_t>(b), team_posted_usd_[static_cast<std::size_t>(team)]);
  });
  cluster.job_started.connect(ORDER_BUDGETS, [this](const Job& j) {
    if (j.team >= 0) running_[static_cast<std::size_t>(j.team)].push_back(j.id);
  });
  auto leave = [this](const Job& j) {
    if (j.team < 0) return;
    auto& r = running_[static_cast<std::size_t>(j.team)];
    auto it = std::find(r.begin(), r.end(), j.id);
    if (it != r.end()) {
      *it = r.back();
      r.pop_back();
    }
  };
  // Before the cost meter posts the run's charge? Order does not matter: a run leaves the
  // running set and its charge is posted at the same instant, and check() runs on both.
  cluster.job_finished.connect(ORDER_BUDGETS, leave);
  cluster.job_stopped.connect(ORDER_BUDGETS, leave);
}

void BudgetWatcher::start() {
  for (std::size_t b = 0; b < states_.size(); ++b) {
    const BudgetSpec& spec = scenario_.budgets[b];
    act_at<&BudgetWatcher::on_check>(spec.check_every, this, b);
    if (spec.period > sim::SimTime::zero())
      act_at<&BudgetWatcher::on_period>(spec.period, this, b);
  }
}

double BudgetWatcher::team_spend_usd(int team) const {
  double usd = team_posted_usd_[static_cast<std::size_t>(team)];
  for (std::uint32_t id : running_[static_cast<std::size_t>(team)])
    usd += costs_.running_cost_usd(cluster_.jobs()[id], engine_.now());
  return usd;
}

void BudgetWatcher::check(std::size_t b, double spent_total) {
  State& s = states_[b];
  const BudgetSpec& spec = scenario_.budgets[b];
  const double spent = spent_total - s.baseline_usd;
  if (spec.alert_fraction > 0 && !s.alerted && spent >= spec.alert_fraction * spec.limit_usd) {
    s.alerted = true;
    event.emit(BudgetEvent{engine_.now(), static_cast<int>(b), s.team, BudgetEventKind::Alert, spent, spec.limit_usd});
  }
  if (s.reached || spent < spec.limit_usd) return;
  s.reached = true;
  event.emit(BudgetEvent{engine_.now(), static_cast<int>(b), s.team, BudgetEventKind::LimitReached, spent, spec.limit_usd});
  // A controller acts through the engine, never from inside the signal that told it: this
  // may run inside the ledger's `charged`, itself inside the cluster's job_stopped while
  // Cluster::down walks a node's jobs. The hold runs once those are done, at this instant.
  if (spec.action != BudgetAction::Alert)
    act_at<&BudgetWatcher::on_limit>(engine_.now(), this, action_arg(b, s.period));
}

void BudgetWatcher::on_limit(std::uint64_t arg) {
  const std::size_t b = static_cast<std::size_t>(arg >> 32);
  GCSIM_CHECK(b < states_.size(),
              "a budget action for budget " + std::to_string(b) + " of " + std::to_string(states_.size()));
  const State& s = states_[b];
  // A period that began since the limit was reached releases the team: the hold is void.
  if (cluster_.ended() || s.period != static_cast<std::uint32_t>(arg)) return;
  // stop_instances stops the jobs as stop_running does; the autoscaler gives their nodes back.
  cluster_.hold_team(s.team, scenario_.budgets[b].action >= BudgetAction::StopRunning);
}

void BudgetWatcher::on_check(std::uint64_t b) {
  if (cluster_.ended()) return;
  check(b, team_spend_usd(states_[b].team));
  act_at<&BudgetWatcher::on_check>(engine_.now() + scenario_.budgets[b].check_every, this, b);
}

void BudgetWatcher::on_period(std::uint64_t b) {
  if (cluster_.ended()) return;
  State& s = states_[b];
  const double spend = team_spend_usd(s.team);
  const double spent = spend - s.baseline_usd;
  s.baseline_usd = spend;
  s.alerted = false;
  s.reached = false;
  ++s.period;
  cluster_.release_team(s.team);
  event.emit(BudgetEvent{engine_.now(), static_cast<int>(b), s.team, BudgetEventKind::PeriodStart, spent,
                         scenario_.budgets[b].limit_usd});
  act_at<&BudgetWatcher::on_period>(engine_.now() + scenario_.budgets[b].period, this, b);
}

ComponentEntry budgets_component() {
  return {"budgets", "team budgets (`budgets:`): alerts, holds and stops at a team's spend limit", BUILD_BUDGETS,
          [](RunContext& ctx) -> std::unique_ptr<Component> {
            if (ctx.scenario.budgets.empty()) return nullptr;
            auto b = std::make_unique<BudgetWatcher>(ctx.engine, ctx.scenario, ctx.cluster, ctx.ledger, *ctx.costs);
            ctx.budgets = b.get();
            return b;
          }};
}

}  // namespace gcsim::models
