// A controller added to gcsim as a later capability would be: its own code and one
// registration, nothing else (issue 29, item 1). "hold-on-arrival" holds a team the moment
// one of its jobs arrives, acting through an event at its declared priority. Where that
// priority falls among the instant's events decides the outcome: before the scheduling
// pass (PRIORITY_CONTROL) the hold applies to the pass and the job never starts; after it
// (PRIORITY_SCHEDULE + 2) the job has already started and runs to its end.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/core/event_priorities.hpp"
#include "models/register_builtins.hpp"
#include "models/run/component.hpp"
#include "models/simulation.hpp"
#include "sim/trace/memory_trace.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

struct Action {
  double at_s;
  int priority;
  models::JobStatus status;  // the arriving job's, when the action ran
};

class HoldOnArrival final : public models::Controller {
 public:
  HoldOnArrival(models::RunContext& ctx, int priority, int team, std::vector<Action>& log)
      : Controller(ctx.engine, priority), cluster_(ctx.cluster), team_(team), log_(log) {
    ctx.cluster.job_submitted.connect(models::ORDER_EXTENSIONS, [this](const models::Job& j) {
      // Never act inside the signal: schedule the action at this instant.
      if (j.team == team_) act_at<&HoldOnArrival::on_act>(engine_.now(), this, j.id);
    });
  }

 private:
  void on_act(std::uint64_t job) {
    log_.push_back({engine_.now().seconds(), priority(), cluster_.jobs()[job].status});
    cluster_.hold_team(team_, false);
  }
  models::Cluster& cluster_;
  int team_;
  std::vector<Action>& log_;
};

// One node of 8 GPUs; B (team u) at 0 for 1h, A (team t) arrives at 1h for 2h.
const char* SCENARIO = R"(name: plugin
horizon: 10h
run_until: done
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: B, submit: 0h, gpus: 1, duration: 1h, team: u}
    - {name: A, submit: 1h, gpus: 1, duration: 2h, team: t}
)";

}  // namespace

TEST_CASE("A controller registered by name acts through the engine at its declared priority",
          "[model][components]") {
  const models::Scenario s = test::scenario_from_yaml(SCENARIO);
  const int team = s.workload.team_index("t");
  REQUIRE(team >= 0);

  for (const int priority : {models::PRIORITY_CONTROL, models::PRIORITY_SCHEDULE + 2}) {
    INFO("priority " << priority);
    std::vector<Action> log;
    // The registration: the built-in parts plus this one, by name.
    models::Builtins parts;
    models::register_builtins(parts);
    parts.components.add({"hold-on-arrival", "holds team t when one of its jobs arrives", models::BUILD_EXTENSIONS,
                          [&](models::RunContext& ctx) -> std::unique_ptr<models::Component> {
                            return std::make_unique<HoldOnArrival>(ctx, priority, team, log);
                          }});
    REQUIRE(parts.components.find("hold-on-arrival") != nullptr);
    models::RunOptions o;
    o.parts = &parts.components;
    const models::RunSummary r = models::run_simulation(s, models::builtins().schedulers, nullptr, o);

    // One action, at A's arrival (1h), at the controller's priority.
    REQUIRE(log.size() == 1);
    CHECK(log[0].at_s == 3600.0);
    CHECK(log[0].priority == priority);
    CHECK(r.jobs_total == 2);
    if (priority < models::PRIORITY_SCHEDULE) {
      // Before the pass: A is still queued, the hold applies, A never starts. B ends at 1h;
      // the run waits for A to the 10h horizon.
      CHECK(log[0].status == models::JobStatus::Queued);
      CHECK(r.jobs_completed == 1);
      CHECK(r.jobs_never_started == 1);
      CHECK(r.end_s == 36000.0);
    } else {
      // After the pass: A started at 1h; a hold without stop_running leaves it running to 3h.
      CHECK(log[0].status == models::JobStatus::Running);
      CHECK(r.jobs_completed == 2);
      CHECK(r.jobs_never_started == 0);
      CHECK(r.end_s == 3 * 3600.0);
    }
  }
}

namespace {
// A part built before the trace recorder (so finished after it) that posts a charge when
// it finishes: the recorder has written its rows by then, so the charge could never reach
// the trace.
class LateCharge final : public models::Component {
 public:
  explicit LateCharge(models::RunContext& ctx) : ledger_(ctx.ledger) {}
  void finish(models::RunSummary&) override {
    models::Charge c;
    c.usd = 1.0;
    ledger_.post(c);
  }

 private:
  models::Ledger& ledger_;
};
}  // namespace

TEST_CASE("A row recorded after the trace is finished is an internal error, never a row lost", "[model][components]") {
  const models::Scenario s = test::scenario_from_yaml(SCENARIO);
  models::Builtins parts;
  models::register_builtins(parts);
  parts.components.add({"late-charge", "posts a charge as it finishes", models::BUILD_TRACE - 1,
                        [](models::RunContext& ctx) -> std::unique_ptr<models::Component> {
                          return std::make_unique<LateCharge>(ctx);
                        }});
  models::RunOptions o;
  o.parts = &parts.components;
  trace::MemoryTrace trace("late");
  CHECK_THROWS_WITH(models::run_simulation(s, models::builtins().schedulers, &trace, o),
                    Catch::Contains("a charge recorded after the trace was finished"));
  // Without a trace nothing records the charge: the run ends as usual.
  CHECK(models::run_simulation(s, models::builtins().schedulers, nullptr, o).jobs_completed == 2);
}
