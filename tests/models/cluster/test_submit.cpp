// Cluster::submit: a job that comes during the run is queued, started, finished, billed and
// signalled exactly as the same job given up front (issue 29, item 2).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <cstdio>
#include <vector>

#include "models/accounting/cost_meter.hpp"
#include "models/cluster/cluster.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/core/event_priorities.hpp"
#include "models/register_builtins.hpp"
#include "sim/engine.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using models::Job;
using models::JobStatus;

namespace {

// Two nodes of 4 GPUs at $8/h per node ($2 per GPU-hour), given back with the last job.
const std::string CLUSTER = R"(name: submit
horizon: 10h
run_until: done
cluster:
  node_types:
    - {name: n4, gpu: A100-40GB-SXM, gpus: 4, count: 2, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: A, submit: 0h, gpus: 4, duration: 2h}
    - {name: B, submit: 0h, gpus: 2, duration: 1h}
    - {name: C, submit: 30m, gpus: 8, duration: 1h}
    - {name: E, submit: 45m, gpus: 1, duration: 1h, team: t}
)";
const std::string D = "    - {name: D, submit: 1h, gpus: 1, duration: 30m, team: t}\n";

// One signal or one charge, with the job's name and id.
// Written as text, so that a difference shows in the failure message.
std::string row(const char* what, std::int64_t t_ns, const Job* job, std::int32_t node, double usd) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s t=%lld job=%s/%d node=%d usd=%.17g", what, static_cast<long long>(t_ns),
                job ? job->name.c_str() : "", job ? static_cast<int>(job->id) : -1, node, usd);
  return buf;
}
using Row = std::string;

// A run recording every job signal and every ledger charge in the order they came.
struct Recorded {
  models::Scenario scenario;
  sim::Engine engine;
  models::Cluster cluster;
  models::Ledger ledger;
  models::CostMeter costs;
  std::vector<Row> rows;
  std::vector<models::JobRequest> to_submit;
  explicit Recorded(const std::string& yaml)
      : scenario(test::scenario_from_yaml(yaml)),
        cluster(engine, scenario, models::expand_workload(scenario, 0), models::builtins().schedulers.make(scenario.scheduler)),
        costs(scenario, cluster, ledger) {
    auto log = [this](const char* what) {
      return [this, what](const Job& j) { rows.push_back(row(what, cluster.now().ns(), &j, -1, 0.0)); };
    };
    cluster.job_submitted.connect(log("submitted"));
    cluster.job_started.connect([this](const Job& j) {
      for (std::uint32_t n : cluster.nodes_of(j)) rows.push_back(row("started", cluster.now().ns(), &j, static_cast<std::int32_t>(n), 0.0));
    });
    cluster.job_finished.connect(log("finished"));
    cluster.job_stopped.connect(log("stopped"));
    ledger.charged.connect([this](const models::Charge& c) {
      rows.push_back(row("charge", c.time.ns(), c.job >= 0 ? &cluster.jobs()[static_cast<std::size_t>(c.job)] : nullptr,
                         c.node, c.usd));
    });
  }
  // Submits the next request of to_submit; an engine event at PRIORITY_CONTROL, as a controller's.
  void fire(std::uint64_t i) { submitted_id = cluster.submit(to_submit[i]); }
  std::uint32_t submitted_id = 0;
  // Ends a driven job; an engine event at PRIORITY_CONTROL, as its owner's.
  void end_job(std::uint64_t id) { cluster.finish_job(static_cast<std::uint32_t>(id)); }
  void run() {
    cluster.start();
    engine.run();
  }
  const Job& job(const std::string& name) const {
    for (const auto& j : cluster.jobs())
      if (j.name == name) return j;
    FAIL("no job " << name);
    throw;
  }
};

// D's request as the workload reader and expansion make it up front.
models::JobRequest request_of_d() {
  const models::Scenario s = test::scenario_from_yaml(CLUSTER + D);
  for (const Job& j : models::expand_workload(s, 0))
    if (j.name == "D") return static_cast<const models::JobRequest&>(j);
  FAIL("no D");
  throw;
}

}  // namespace

TEST_CASE("a job submitted mid-run by an event runs as the same job given up front", "[model][cluster]") {
  // Up front. A (4 GPUs, 0-2h) on node 0, B (2 GPUs, 0-1h) on node 1, C (8 GPUs) waits for
  // both whole nodes: 2h-3h. D (1 GPU, 30m) arrives at 1h but strict FIFO keeps it behind C:
  // 3h-3h30, as E (45m, also behind C) 3h-4h. Nodes 2 x $8 x 4h = $64; D's bill
  // 1 GPU x 0.5h x $2 = $1.
  Recorded given(CLUSTER + D);
  given.run();
  const Job& d0 = given.job("D");
  REQUIRE(d0.status == JobStatus::Completed);
  CHECK(d0.start == sim::hours(3));
  CHECK(d0.end == sim::hours(3) + sim::minutes(30));
  CHECK(given.costs.job_cost_usd(d0.id) == Approx(1.0).epsilon(1e-12));
  CHECK(given.costs.total_cost_usd() == Approx(64.0).epsilon(1e-12));
  CHECK(given.cluster.end_time() == sim::hours(4));

  const models::JobRequest d = request_of_d();
  // Submitted at its own submit time (arrives at once, in this instant's scheduling pass),
  // or earlier for a later time (an arrival event of its own).
  for (const sim::SimTime at : {sim::hours(1), sim::minutes(10)}) {
    DYNAMIC_SECTION("submitted at " << at.seconds() << " s") {
      Recorded late(CLUSTER);
      late.to_submit.push_back(d);
      late.engine.schedule_at<&Recorded::fire>(at, &late, 0, models::PRIORITY_CONTROL);
      late.run();
      REQUIRE(late.cluster.jobs().size() == 5);
      // The id is the next free one, 4 (after A, B, C, E), as up front, where ids follow
      // submit order. (Policies break ties, and FIFO orders, by id: a job submitted
      // during the run before an up-front job still to come would rank after it;
      // docs/engine.md, "Jobs that come during the run".)
      CHECK(late.submitted_id == 4);
      CHECK(d0.id == 4);
      const Job& d1 = late.job("D");
      CHECK(d1.status == JobStatus::Completed);
      CHECK(d1.start == d0.start);
      CHECK(d1.end == d0.end);
      CHECK(d1.team == d0.team);
      CHECK(late.costs.job_cost_usd(d1.id) == given.costs.job_cost_usd(d0.id));
      CHECK(late.costs.total_cost_usd() == given.costs.total_cost_usd());
      CHECK(late.cluster.end_time() == given.cluster.end_time());
      // The same signals and charges, in the same order, at the same instants, with the same ids.
      CHECK(late.rows == given.rows);
      for (const char* name : {"A", "B", "C", "E"}) {
        CHECK(late.job(name).start == given.job(name).start);
        CHECK(late.job(name).end == given.job(name).end);
      }
    }
  }
}

TEST_CASE("a job submitted for later keeps a run_until: done run going until it arrives", "[model][cluster]") {
  // Submitted at 1h for 9h59m. With run_until: done the run would end when E finishes at
  // 4h, but the pending arrival keeps it going: D starts at 9h59m and is still running at
  // the 10h horizon.
  Recorded late(CLUSTER);
  models::JobRequest d = request_of_d();
  d.submit = sim::hours(10) - sim::minutes(1);
  late.to_submit.push_back(d);
  late.engine.schedule_at<&Recorded::fire>(sim::hours(1), &late, 0, models::PRIORITY_CONTROL);
  late.run();
  const Job& d1 = late.job("D");
  CHECK(d1.start == sim::hours(10) - sim::minutes(1));
  CHECK(d1.status == JobStatus::Running);
  CHECK(late.cluster.end_time() == sim::hours(10));
  // Nodes bill to the horizon: 2 x $8 x 10h; D held 1 GPU for its last minute: $2/60.
  CHECK(late.costs.total_cost_usd() == Approx(160.0).epsilon(1e-12));
  CHECK(late.costs.job_cost_usd(d1.id) == Approx(2.0 / 60).epsilon(1e-12));
}

TEST_CASE("submit refuses a time in the past and a run that has ended", "[unit][cluster]") {
  Recorded late(CLUSTER);
  models::JobRequest d = request_of_d();
  late.to_submit.push_back(d);  // for 1h, submitted at 2h
  late.engine.schedule_at<&Recorded::fire>(sim::hours(2), &late, 0, models::PRIORITY_CONTROL);
  CHECK_THROWS_AS(late.run(), InternalError);
}

TEST_CASE("an open-ended job (a service's replica) runs until its owner ends it, billed as any job", "[model][cluster]") {
  // D as above, open-ended: submitted at 1h, it starts at 3h behind C (strict FIFO), runs
  // past its 30m `duration` (only an estimate) and ends at 6h when its owner calls
  // finish_job: 1 GPU x 3h x $2 = $6, and with run_until: done the run ends then (6h), not
  // when E ends (4h).
  models::JobRequest d = request_of_d();
  d.open_ended = true;
  Recorded r(CLUSTER);
  r.to_submit.push_back(d);
  r.engine.schedule_at<&Recorded::fire>(sim::hours(1), &r, 0, models::PRIORITY_CONTROL);
  r.engine.schedule_at<&Recorded::end_job>(sim::hours(6), &r, 4, models::PRIORITY_CONTROL);
  r.run();
  const Job& j = r.job("D");
  CHECK(j.driven);
  CHECK(j.status == JobStatus::Completed);
  CHECK(j.start == sim::hours(3));
  CHECK(j.end == sim::hours(6));
  CHECK(r.costs.job_cost_usd(j.id) == Approx(6.0).epsilon(1e-12));
  CHECK(r.cluster.end_time() == sim::hours(6));
  CHECK(std::count(r.rows.begin(), r.rows.end(), row("finished", sim::hours(6).ns(), &j, -1, 0.0)) == 1);
}
