// A run that takes its jobs as it reaches them (Cluster's streamed mode, JobStream) writes the
// same trace as one given every job before it, and makes no job submitted after the horizon
// (docs/engine.md, "Jobs taken as they come"; issue 29, item 3).
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "analysis/trace_data.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/coupling/job_stream.hpp"
#include "models/register_builtins.hpp"
#include "models/simulation.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

// Written jobs out of submit order and tied with generated ones, two generators (one with
// office hours, one capped by `end`), estimates drawn for written and generated jobs (sjf
// ranks by them), a checkpoint plan and deadlines; the horizon cuts the workload: the
// `late` job and the office generator's jobs after 3 days are never submitted.
const std::string SCENARIO = R"(name: streamed
seed: 5
horizon: 3d
run_until: horizon
cluster:
  node_types:
    - {name: a, gpu: A100-40GB-SXM, gpus: 8, count: 2, price: {on_demand_per_hour: 16}}
scheduler: {policy: sjf, lengths: estimate}
workload:
  jobs:
    - {name: w2, submit: 2h, gpus: 4, duration: 3h, estimate: {error: lognormal, sigma: 0.5}}
    - {name: w0, submit: 0h, gpus: 8, duration: 5h}
    - {name: w1, submit: 1h, gpus: 2, duration: 1h, estimate: 30m}
    - {name: tie, submit: 2h, gpus: 1, duration: 2h, deadline: 6h}
    - {name: late, submit: 4d, gpus: 1, duration: 1h}
  generators:
    - name: office
      count: 400
      arrival: {dist: exponential, mean: 20m}
      active: {days: weekdays, hours: 09:00-18:00}
      gpus: {choice: [1, 2, 4]}
      duration: {dist: lognormal, median: 1h, sigma: 1}
      estimate: {error: lognormal, sigma: 0.7}
      team: research
    - name: batch
      count: 1000
      end: 2d
      arrival: 1h
      gpus: 8
      duration: {dist: uniform, min: 30m, max: 4h}
      checkpoint: {every: 30m, write_time: 1m, restore_time: 2m}
      deadline: 1d
      team: prod
)";

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

models::RunSummary run_to(const models::Scenario& s, const std::string& path, bool stream) {
  models::RunOptions o;
  o.fixed_wall_clock_s = 0.0;
  o.stream_jobs = stream;
  return models::run_simulation_to(s, models::builtins().schedulers, path, o);
}

}  // namespace

TEST_CASE("a streamed run writes the trace of a run given its jobs up front, byte for byte", "[model][stream]") {
  const models::Scenario s = test::scenario_from_yaml(SCENARIO);
  REQUIRE(models::streamable(s));
  test::TempDir dir("streamed");
  const models::RunSummary up = run_to(s, dir.file("up.h5"), false);
  const models::RunSummary st = run_to(s, dir.file("st.h5"), true);
  const std::string a = file_bytes(dir.file("up.h5")), b = file_bytes(dir.file("st.h5"));
  REQUIRE(a.size() > 10000);
  CHECK(a == b);
  // The workload: 5 written + 400 office + 47 batch jobs (1 h to 47 h, hourly; `end: 2d`
  // stops the 48th, at 48 h): 452. By the horizon (72 h): every batch job, the four written
  // before it, and the office jobs that arrived by then; the rest only counted.
  const std::vector<models::Job> all = models::expand_workload(s, s.seed, 0);
  REQUIRE(all.size() == 452);
  std::size_t by_horizon = 0;
  for (const models::Job& j : all) by_horizon += j.submit <= s.horizon;
  CHECK(by_horizon < 452 - 100);  // office hours: about 27 a weekday of 9 h, not 400 in 3 days
  for (const models::RunSummary* r : {&up, &st}) {
    CHECK(r->jobs_total == 452);
    CHECK(r->jobs_submitted_after_horizon == 452 - by_horizon);
  }
  const analysis::TraceData t = analysis::read_trace(dir.file("st.h5"));
  CHECK(t.jobs.size() == by_horizon);
  CHECK(t.attrs.jobs_after_horizon == static_cast<std::int64_t>(452 - by_horizon));
  for (const analysis::JobRecord& j : t.jobs) CHECK(j.submit_s <= 3 * 86400.0);
}

TEST_CASE("under run_until: done a run with jobs after the horizon ends at the horizon, made or not", "[model][stream]") {
  // A (1 h) and B (2 h) finish by 2 h; C, submitted at 5 d, is after the 1-day horizon. The
  // workload is never done, so the run bills to the horizon: 24 h x $8 on one 8-GPU node,
  // whether C is never made (streamed) or left out (up front).
  const std::string yaml = R"(name: done
horizon: 1d
run_until: done
cluster:
  node_types:
    - {name: a, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: A, submit: 0h, gpus: 4, duration: 1h}
    - {name: B, submit: 0h, gpus: 4, duration: 2h}
    - {name: C, submit: 5d, gpus: 4, duration: 1h}
)";
  const models::Scenario s = test::scenario_from_yaml(yaml);
  test::TempDir dir("streamed-done");
  for (const bool stream : {true, false}) {
    const models::RunSummary r = run_to(s, dir.file(stream ? "st.h5" : "up.h5"), stream);
    CHECK(r.end_s == 86400);
    CHECK(r.total_cost_usd == Approx(24 * 8.0));
    CHECK(r.jobs_completed == 2);
    CHECK(r.jobs_submitted_after_horizon == 1);
  }
  // Without C the workload is done at 2 h, and the nodes are given back then.
  const models::Scenario two = test::scenario_from_yaml(yaml.substr(0, yaml.find("    - {name: C")));
  const models::RunSummary r = run_to(two, dir.file("two.h5"), true);
  CHECK(r.end_s == 7200);
  CHECK(r.total_cost_usd == Approx(2 * 8.0));
}

TEST_CASE("a stream gives the jobs in submit order, ties in the order of appearance", "[model][stream]") {
  const models::Scenario s = test::scenario_from_yaml(SCENARIO);
  models::JobStream stream(s, s.seed, 0);
  CHECK(stream.bound() == 5 + 400 + 1000);  // `end` caps the batch generator below its count
  std::vector<std::string> first;
  models::Job j;
  for (int k = 0; k < 6 && stream.next(j); ++k) first.push_back(j.name);
  // w0 at 0 h; w1 and batch-0001 at 1 h (written first); w2 and tie at 2 h, in file order,
  // then batch-0002 (the office generator starts Monday 09:00 plus a draw: later).
  CHECK(first == std::vector<std::string>{"w0", "w1", "batch-0001", "w2", "tie", "batch-0002"});
  // What is left, counted without being made: the same as the jobs made from here.
  models::JobStream again(s, s.seed, 0);
  for (int k = 0; k < 6; ++k) again.next(j);
  std::size_t made = 0;
  while (again.next(j)) ++made;
  CHECK(stream.count_rest() == made);
  CHECK(made == 452 - 6);
  CHECK_FALSE(stream.next(j));
}

TEST_CASE("what a run cannot take as it goes is given up front", "[model][stream]") {
  const std::string base = R"(name: s
horizon: 1d
cluster:
  node_types:
    - {name: a, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 16}}
workload:
)";
  CHECK(models::streamable(test::scenario_from_yaml(base + "  jobs:\n    - {name: a, gpus: 1, duration: 1h}\n")));
  // A share of a GPU: the cluster follows GPU rooms only when some job given to it shares.
  CHECK_FALSE(models::streamable(
      test::scenario_from_yaml(base + "  jobs:\n    - {name: a, gpus: 1, gpu_milli: 500, duration: 1h}\n")));
  CHECK_FALSE(models::streamable(test::scenario_from_yaml(
      base + "  generators:\n    - {name: g, count: 2, arrival: 1h, gpus: 1, gpu_milli: 250, duration: 1h}\n")));
}
