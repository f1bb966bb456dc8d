// The `budgets:` section reader (see budget_reader.hpp).
#include "models/config/budget_reader.hpp"

#include <set>

#include "models/core/limits.hpp"
#include "models/config/reader_common.hpp"
#include "sim/config/reader.hpp"

namespace gcsim::models {

using config::ConfigNode;
using config::MapReader;

namespace {

BudgetSpec read_budget(const ConfigNode& n) {
  MapReader r(n, BUDGET_KEYS);
  BudgetSpec b;
  b.mark = n.mark();
  b.path = n.path();
  b.team = read_name(r.required("team"));
  b.limit_usd = r.value<double>("limit");
  if (const auto p = r.get<sim::SimTime>("period")) b.period = *p;
  if (const ConfigNode* a = r.optional("action")) {
    const std::string action = config::read_enum(*a, {"alert", "stop_new", "stop_running", "stop_instances"});
    b.action = action == "alert"          ? BudgetAction::Alert
               : action == "stop_new"     ? BudgetAction::StopNew
               : action == "stop_running" ? BudgetAction::StopRunning
                                          : BudgetAction::StopInstances;
  }
  if (const auto f = r.get<double>("alert_at")) b.alert_fraction = *f;
  b.check_every = r.value<sim::SimTime>("check_every");
  return b;
}

}  // namespace

std::vector<BudgetSpec> read_budgets(const ConfigNode& node) {
  if (!node.is_sequence()) node.fail(ErrorCode::WrongType, "budgets must be a list");
  std::vector<BudgetSpec> budgets;
  std::set<std::string> seen;
  for (const auto& b : node.items()) {
    budgets.push_back(read_budget(b));
    if (!seen.insert(budgets.back().team).second)
      b.find("team")->fail(ErrorCode::Duplicate, "team '" + budgets.back().team + "' has two budgets");
  }
  return budgets;
}

}  // namespace gcsim::models
