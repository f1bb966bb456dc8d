// Budgets per team (docs/pricing.md, "Budgets"), as an observer of the ledger and the
// cluster, like a budget-watcher script polling the bill. A team's spend is every charge
// that names one of its jobs, plus what its running jobs have cost so far and is not yet
// posted; a period's spend is the spend since the period began. Checked at every posted
// charge of the team (posted part only, cheap) and every `check_every` (in full). At the
// limit: alert (an event), stop_new (hold the team's queued jobs) or stop_running (also stop
// its running jobs after a checkpoint) until the next period begins.
//
// A controller, not only an observer: it acts on the cluster, and it does so from an event
// of its own at the instant it saw the limit (its priority, PRIORITY_CONTROL,
// models/core/event_priorities.hpp), never from inside the ledger's or the cluster's signals
// (docs/engine.md, "Controllers"). A run has one when the scenario has `budgets:`
// (budgets_component(), registered as "budgets").
#pragma once

#include <cstdint>
#include <vector>

#include "models/accounting/cost_meter.hpp"
#include "models/cluster/cluster.hpp"
#include "models/pricing/ledger.hpp"
#include "models/run/component.hpp"
#include "sim/engine.hpp"
#include "sim/signal.hpp"

namespace gcsim::models {

enum class BudgetEventKind : std::uint8_t { Alert = 0, LimitReached = 1, PeriodStart = 2 };

struct BudgetEvent {
  sim::SimTime time;
  int budget = 0;   // index into Scenario::budgets
  int team = 0;     // index into WorkloadSpec::teams
  BudgetEventKind kind = BudgetEventKind::Alert;
  double spent_usd = 0;  // in the current period, when it happened
  double limit_usd = 0;
};

class BudgetWatcher final : public Controller {
 public:
  BudgetWatcher(sim::Engine& engine, const Scenario& scenario, Cluster& cluster, Ledger& ledger,
                const CostMeter& costs);
  // Schedules the periodic checks and period starts. Call once, before Engine::run().
  void start() override;

  // The team's spend since the start of the run, at now.
  double team_spend_usd(int team) const;

  sim::Signal<const BudgetEvent&> event;

 private:
  void on_check(std::uint64_t budget);
  void on_period(std::uint64_t budget);
  void on_limit(std::uint64_t arg);  // the action of a reached limit: hold (and stop) the team
  static std::uint64_t action_arg(std::size_t budget, std::uint32_t period) {
    return std::uint64_t{budget} << 32 | period;
  }
  void check(std::size_t budget, double spent_total);

  struct State {
    int team = -1;
    double baseline_usd = 0;  // team spend when the period began
    bool alerted = false;
    bool reached = false;
    std::uint32_t period = 0;  // periods begun: an action of an earlier one is void
  };

  const Scenario& scenario_;
  Cluster& cluster_;
  const CostMeter& costs_;
  std::vector<State> states_;
  std::vector<double> team_posted_usd_;
  std::vector<std::vector<std::uint32_t>> running_;  // per team: ids of running jobs
  std::vector<int> budget_of_team_;                  // -1 for teams without a budget
};

// The registry entry: a BudgetWatcher for a scenario with budgets.
ComponentEntry budgets_component();

}  // namespace gcsim::models
