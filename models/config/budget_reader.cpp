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
  b.limit_usd = config::read_usd(r.required("limit"));
  if (!(b.limit_usd > 0)) n.find("limit")->fail(ErrorCode::OutOfRange, "a budget's limit must be more than $0");
  if (const ConfigNode* p = r.optional("period")) b.period = config::read_duration(*p, limits::MIN_BUDGET_PERIOD);
  if (const ConfigNode* a = r.optional("action")) {
    const std::string action = config::read_enum(*a, {"alert", "stop_new", "stop_running"});
    b.action = action == "alert" ? BudgetAction::Alert : action == "stop_new" ? BudgetAction::StopNew : BudgetAction::StopRunning;
  }
  if (const ConfigNode* f = r.optional("alert_at")) {
    b.alert_fraction = config::read_fraction(*f);
    if (!(b.alert_fraction > 0 && b.alert_fraction <= 1)) f->fail(ErrorCode::OutOfRange, "alert_at is a share of the limit, in (0, 100%]");
  }
  if (const ConfigNode* c = r.optional("check_every")) b.check_every = config::read_duration(*c, sim::seconds(1));
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
