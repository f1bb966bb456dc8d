// The trace schema (models/trace/schema.hpp) against the model enums the recorder writes by
// value: each value's label in the schema is the model's own name for it.
#include <catch2/catch.hpp>

#include <string>

#include "models/pricing/ledger.hpp"
#include "models/pricing/price_spec.hpp"
#include "models/spot/node_events.hpp"
#include "models/trace/schema.hpp"
#include "models/trace/schema_tables.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
namespace schema = gcsim::trace::schema;

TEST_CASE("trace schema: enum labels are the models' names, in value order", "[unit][trace]") {
  SECTION("ledger categories") {
    REQUIRE(schema::LEDGER_CATEGORIES.size() == models::CHARGE_CATEGORIES);
    for (int c = 0; c < models::CHARGE_CATEGORIES; ++c)
      CHECK(schema::LEDGER_CATEGORIES[static_cast<std::size_t>(c)] ==
            models::charge_category_name(static_cast<models::ChargeCategory>(c)));
  }
  SECTION("markets") {
    REQUIRE(schema::MARKETS.size() == models::market_names().size());
    for (std::size_t m = 0; m < schema::MARKETS.size(); ++m) {
      CHECK(schema::MARKETS[m] == models::market_name(static_cast<models::Market>(m)));
      CHECK(schema::MARKETS[m] == models::market_names()[m]);
    }
  }
  SECTION("node states and reasons (models::NodePhase, NodeReason)") {
    using models::NodePhase;
    using models::NodeReason;
    const auto state = [](NodePhase p) { return schema::NODE_STATES[static_cast<std::size_t>(p)]; };
    const auto reason = [](NodeReason r) { return schema::NODE_REASONS[static_cast<std::size_t>(r)]; };
    CHECK(state(NodePhase::Provisioning) == "provisioning");
    CHECK(state(NodePhase::Up) == "up");
    CHECK(state(NodePhase::Draining) == "draining");
    CHECK(state(NodePhase::Down) == "down");
    CHECK(state(NodePhase::Released) == "released");
    CHECK(reason(NodeReason::Initial) == "initial");
    CHECK(reason(NodeReason::ScaleOut) == "scale_out");
    CHECK(reason(NodeReason::ScaleIn) == "scale_in");
    CHECK(reason(NodeReason::SpotInterruption) == "spot_interruption");
    CHECK(reason(NodeReason::SpotReplacement) == "spot_replacement");
    CHECK(reason(NodeReason::Availability) == "availability");
    CHECK(reason(NodeReason::Released) == "released");
  }
  SECTION("budget actions, as the loader reads them") {
    for (std::size_t a = 0; a < schema::BUDGET_ACTIONS.size(); ++a) {
      const std::string action(schema::BUDGET_ACTIONS[a]);
      INFO(action);
      const auto s = test::scenario_from_yaml(R"(name: t
horizon: 1h
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: a, submit: 0h, gpus: 8, duration: 1h, team: x}
budgets:
  - {team: x, limit: $10, action: )" + action + "}\n");
      REQUIRE(s.budgets.size() == 1);
      CHECK(static_cast<std::size_t>(s.budgets[0].action) == a);
    }
  }
}

TEST_CASE("trace schema: every table's columns reach the trace file as listed", "[unit][trace]") {
  for (const schema::Table* t : {&schema::EVENTS, &schema::UTILIZATION, &schema::LEDGER, &schema::BUDGET_EVENTS,
                                 &schema::JOBS, &schema::NODES, &schema::POOLS, &schema::INPUTS, &schema::LINKS, &schema::FLOWS,
                                 &schema::NODE_EVENTS, &schema::POOL_SIZES, &schema::SCALE_DECISIONS, &schema::SERVICES,
                                 &schema::SERVICE_SERIES, &schema::SERVICE_REQUESTS}) {
    INFO(t->name);
    const std::vector<trace::Column> columns = models::trace_columns(*t);
    REQUIRE(columns.size() == t->columns.size());
    for (std::size_t i = 0; i < columns.size(); ++i) {
      CHECK(columns[i].name == t->columns[i].name);
      const bool coded = t->columns[i].type == schema::Type::Code;
      // A coded column starts with its "none" label; the writer adds the run's names.
      CHECK(columns[i].enum_labels.size() == t->columns[i].labels.size() + (coded ? 1 : 0));
      if (coded) CHECK(columns[i].enum_labels[0] == schema::NONE_LABEL);
      CHECK((columns[i].type == trace::ColumnType::Enum8) == (t->columns[i].type == schema::Type::Enum8));
      CHECK((columns[i].type == trace::ColumnType::Enum) == coded);
    }
  }
  static_assert(schema::column(schema::JOBS, "gpu_s_restart") == "gpu_s_restart");
}
