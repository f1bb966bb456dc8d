// A run composed of registered parts (models/run/component.hpp): the registry, the order in
// which parts see a signal (declared, not by subscription), the priorities' one header and
// docs/engine.md's tables of it, and a policy given as a run option over a shared scenario.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/config/scenario_loader.hpp"
#include "models/core/event_priorities.hpp"
#include "models/pricing/ledger.hpp"
#include "models/register_builtins.hpp"
#include "models/run/component.hpp"
#include "models/simulation.hpp"
#include "sim/check.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

// A part that only observes: it logs its name at each job start and the ledger's busy
// total at each job finish, into the test's containers (the part goes with the run).
class Probe final : public models::Component {
 public:
  Probe(models::RunContext& ctx, std::string name, int order, std::vector<std::string>& log,
        std::map<std::string, double>& busy_at_finish)
      : name_(std::move(name)), log_(log), busy_at_finish_(busy_at_finish) {
    ctx.cluster.job_started.connect(order, [this](const models::Job& j) { log_.push_back(name_ + ":" + j.name); });
    ctx.cluster.job_finished.connect(order, [this, &ctx](const models::Job& j) {
      busy_at_finish_[j.name] = ctx.ledger.busy_usd();
    });
  }

 private:
  std::string name_;
  std::vector<std::string>& log_;
  std::map<std::string, double>& busy_at_finish_;
};

// Two jobs on one node of 8 GPUs at $8/h: a GPU-hour of a 1-GPU job is $1.
const char* TWO_JOBS = R"(name: parts
horizon: 10h
run_until: done
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: A, submit: 0h, gpus: 1, duration: 1h}
    - {name: B, submit: 0h, gpus: 1, duration: 2h}
)";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("Two parts subscribed in the opposite order see a signal in their declared order", "[model][components]") {
  const models::Scenario s = test::scenario_from_yaml(TWO_JOBS);
  std::vector<std::string> log;
  std::map<std::string, double> late, early;  // busy USD at each job's finish, as each probe saw it
  models::RunOptions o;
  // Built (and subscribed) first, but ordered after the other.
  o.components.push_back([&](models::RunContext& ctx) -> std::unique_ptr<models::Component> {
    return std::make_unique<Probe>(ctx, "late", models::ORDER_COSTS + 1, log, late);
  });
  o.components.push_back([&](models::RunContext& ctx) -> std::unique_ptr<models::Component> {
    return std::make_unique<Probe>(ctx, "early", models::ORDER_COSTS - 1, log, early);
  });
  o.components.push_back([](models::RunContext&) { return std::unique_ptr<models::Component>(); });  // not needed
  const models::RunSummary r = models::run_simulation(s, models::builtins().schedulers, nullptr, o);
  CHECK(r.jobs_completed == 2);
  // Both jobs start at 0 in one pass (A first, by submission order).
  CHECK(log == std::vector<std::string>{"early:A", "late:A", "early:B", "late:B"});
  // The cost meter (ORDER_COSTS) posts a finished run's charge between the two: the early
  // probe sees the ledger before A's $1 (1 GPU x 1h x $8/h / 8), the late one after it.
  REQUIRE(early.size() == 2);
  REQUIRE(late.size() == 2);
  CHECK(early.at("A") == Approx(0.0).margin(1e-12));
  CHECK(late.at("A") == Approx(1.0).epsilon(1e-12));
  // B: $1 of A posted before it; B's own $2 only after the cost meter.
  CHECK(early.at("B") == Approx(1.0).epsilon(1e-12));
  CHECK(late.at("B") == Approx(3.0).epsilon(1e-12));
}

TEST_CASE("The component registry: built-in parts by name, in build order", "[unit][components]") {
  const models::ComponentRegistry& reg = models::builtins().components;
  CHECK(reg.build_order() == std::vector<std::string>{"model-speeds", "cost-meter", "budgets", "trace", "spot-market",
                                                      "network", "storage", "service-tables", "autoscaler", "metrics", "network-latency",
                                                      "recorded-replay", "services"});
  REQUIRE(reg.find("budgets") != nullptr);
  CHECK_FALSE(reg.find("budgets")->description.empty());
  REQUIRE(reg.find("autoscaler") != nullptr);
  CHECK(reg.find("autoscaler")->description.find("autoscale") != std::string::npos);

  models::ComponentRegistry mine;
  const auto none = [](models::RunContext&) { return std::unique_ptr<models::Component>(); };
  mine.add({"b", "second", 20, none});
  mine.add({"a", "first", 10, none});
  mine.add({"c", "tie with b, by name after it", 20, none});
  CHECK(mine.build_order() == std::vector<std::string>{"a", "b", "c"});
  CHECK(mine.names() == std::vector<std::string>{"a", "b", "c"});
  // A name twice, or no factory, is a bug in whoever registers: InternalError.
  REQUIRE_THROWS_AS(mine.add({"a", "again", 5, none}), InternalError);
  REQUIRE_THROWS_AS(mine.add({"d", "no factory", 5, {}}), InternalError);
}

TEST_CASE("A run context hands each random stream out once, and a controller's priority lies between state and end",
          "[unit][components]") {
  const models::Scenario s = test::scenario_from_yaml(TWO_JOBS);
  bool checked = false;
  models::RunOptions o;
  o.seed = 11;
  o.replication = 2;
  o.components.push_back([&](models::RunContext& ctx) -> std::unique_ptr<models::Component> {
    CHECK(ctx.seed == 11);
    CHECK(ctx.replication == 2);
    CHECK(ctx.costs != nullptr);
    CHECK(ctx.speeds != nullptr);
    CHECK(ctx.budgets == nullptr);   // no budgets: section
    CHECK(ctx.recorder == nullptr);  // no trace
    CHECK(ctx.trace == nullptr);
    CHECK(&ctx.scheduler == &ctx.scenario.scheduler);
    // The stream is the one (seed, replication, name) gives.
    sim::RngStream mine = ctx.stream("probe");
    sim::RngStream same(11, 2, "probe");
    CHECK(mine.next_u64() == same.next_u64());
    REQUIRE_THROWS_AS(ctx.stream("probe"), InternalError);
    REQUIRE_NOTHROW(ctx.stream("probe2"));
    struct Bad : models::Controller {
      Bad(sim::Engine& e, int p) : Controller(e, p) {}
    };
    REQUIRE_THROWS_AS(Bad(ctx.engine, models::PRIORITY_STATE), InternalError);
    REQUIRE_THROWS_AS(Bad(ctx.engine, models::PRIORITY_END), InternalError);
    REQUIRE_NOTHROW(Bad(ctx.engine, models::PRIORITY_CONTROL));
    checked = true;
    return nullptr;
  });
  models::run_simulation(s, models::builtins().schedulers, nullptr, o);
  CHECK(checked);
}

TEST_CASE("Event priorities and observer orders are defined in one header, and docs/engine.md lists each",
          "[unit][components][docs]") {
  const std::string root = GCSIM_SOURCE_DIR;
  const std::string doc = read_text(root + "/docs/engine.md");
  REQUIRE_FALSE(doc.empty());
  // Each constant has a table row "| value | `NAME` | ...": the value as written in the header.
  const auto documented = [&](std::string_view name, int value) {
    const std::string v = value < 0 ? "−" + std::to_string(-value) : std::to_string(value);  // the docs' minus sign
    const std::regex row("\\n\\| " + v + " \\| `" + std::string(name) + "` \\|");
    return std::regex_search(doc, row);
  };
  for (const auto& p : models::EVENT_PRIORITIES) {
    INFO(p.name);
    CHECK(documented(p.name, p.value));
  }
  for (const auto& p : models::OBSERVER_ORDERS) {
    INFO(p.name);
    CHECK(documented(p.name, p.value));
  }
  // And no documented row names a constant the header does not have.
  const std::regex any_row("\\n\\| [−0-9]+ \\| `((PRIORITY|ORDER)_[A-Z_]+)` \\|");
  std::size_t rows = 0;
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), any_row); it != std::sregex_iterator(); ++it, ++rows) {
    const std::string name = (*it)[1];
    bool known = false;
    for (const auto& p : models::EVENT_PRIORITIES) known |= p.name == name;
    for (const auto& p : models::OBSERVER_ORDERS) known |= p.name == name;
    INFO(name);
    CHECK(known);
  }
  CHECK(rows == std::size(models::EVENT_PRIORITIES) + std::size(models::OBSERVER_ORDERS));

  // The header's list names every constant it defines...
  const std::string header = read_text(root + "/models/core/event_priorities.hpp");
  const std::regex defined("inline constexpr int ((PRIORITY|ORDER)_[A-Z_]+) = ");
  std::size_t defs = 0;
  for (auto it = std::sregex_iterator(header.begin(), header.end(), defined); it != std::sregex_iterator(); ++it) {
    ++defs;
    const std::string name = (*it)[1];
    bool listed = false;
    for (const auto& p : models::EVENT_PRIORITIES) listed |= p.name == name;
    for (const auto& p : models::OBSERVER_ORDERS) listed |= p.name == name;
    INFO(name);
    CHECK(listed);
  }
  CHECK(defs == std::size(models::EVENT_PRIORITIES) + std::size(models::OBSERVER_ORDERS));
  // ...and no other file under models/ gives a priority a number of its own.
  const std::regex elsewhere("constexpr int (PRIORITY|ORDER)_[A-Z_]+ = -?[0-9]");
  for (const auto& e : std::filesystem::recursive_directory_iterator(root + "/models")) {
    const std::string path = e.path().string();
    if (!e.is_regular_file() || path.ends_with("event_priorities.hpp")) continue;
    if (!path.ends_with(".hpp") && !path.ends_with(".cpp")) continue;
    INFO(path);
    CHECK_FALSE(std::regex_search(read_text(path), elsewhere));
  }
}

TEST_CASE("A policy given as a run option over a shared scenario runs as if the scenario named it",
          "[model][components][sweep]") {
  // One node of 8 GPUs: L (8 GPUs, 3h) at 0 holds it; S1 (8 GPUs, 2h) at 1m and S2 (8
  // GPUs, 1h) at 2m wait. FIFO runs S1 then S2 (S1 ends at 5h, S2 at 6h); SJF runs S2
  // first (S2 ends at 4h, S1 at 6h).
  const std::string jobs = R"(workload:
  jobs:
    - {name: L, submit: 0s, gpus: 8, duration: 3h}
    - {name: S1, submit: 1m, gpus: 8, duration: 2h}
    - {name: S2, submit: 2m, gpus: 8, duration: 1h}
)";
  const std::string head = R"(name: shared
horizon: 10h
run_until: done
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 8}}
)";
  const auto fifo = std::make_shared<const models::Scenario>(test::scenario_from_yaml(head + "scheduler: {policy: fifo}\n" + jobs));
  const models::Scenario sjf = test::scenario_from_yaml(head + "scheduler: {policy: sjf}\n" + jobs);

  const auto ends = [](const models::Scenario& s, const models::RunOptions& base) {
    std::map<std::string, double> end_h;
    models::RunOptions o = base;
    o.components.push_back([&end_h](models::RunContext& ctx) -> std::unique_ptr<models::Component> {
      ctx.cluster.job_finished.connect(models::ORDER_EXTENSIONS,
                                       [&end_h](const models::Job& j) { end_h[j.name] = j.end.seconds() / 3600; });
      return nullptr;  // observes through its connection; nothing to start or finish
    });
    models::run_simulation(s, models::builtins().schedulers, nullptr, o);
    return end_h;
  };
  const auto as_fifo = ends(*fifo, {});
  CHECK(as_fifo.at("S1") == Approx(5.0));
  CHECK(as_fifo.at("S2") == Approx(6.0));
  models::RunOptions with_sjf;
  with_sjf.scheduler = std::make_shared<const models::SchedulerChoice>(models::SchedulerChoice{sjf.scheduler, sjf.source_text});
  const auto as_sjf = ends(*fifo, with_sjf);
  CHECK(as_sjf == ends(sjf, {}));
  CHECK(as_sjf.at("S2") == Approx(4.0));
  CHECK(as_sjf.at("S1") == Approx(6.0));
  CHECK(fifo->scheduler.policy == "fifo");  // the shared scenario is unchanged

  // A trace needs the variant's scenario text (so that gcsim rerun reruns the variant).
  test::TempDir dir("shared-policy");
  models::RunOptions no_text;
  no_text.scheduler = std::make_shared<const models::SchedulerChoice>(models::SchedulerChoice{sjf.scheduler, ""});
  REQUIRE_THROWS_AS(models::run_simulation_to(*fifo, models::builtins().schedulers, dir.file("t.h5"), no_text),
                    InternalError);
  CHECK_FALSE(std::filesystem::exists(dir.file("t.h5")));
}
