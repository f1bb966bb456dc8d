// The series gcsim compare's overlaid plots draw, on a hand-built trace: the queue length
// and a team's GPUs over time follow each job's state through its events.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "analysis/overlay_plots.hpp"

using namespace gcsim::analysis;

namespace {

std::vector<std::string> labels() {
  return {"submit", "start", "finish", "end_of_run", "stop", "checkpoint", "notice", "node_down", "node_up", "restore"};
}

EventRecord event(double t, std::int64_t job, std::uint8_t kind) { return {t, job, 0, kind}; }

// A (team x, 2 GPUs): submitted 0, runs [10, 20), stopped, runs [30, 40). B (team y, 16 GPUs
// on two nodes, so two rows per start and finish): submitted 5, runs [50, 60).
TraceData two_jobs() {
  TraceData t;
  t.event_kind_labels = labels();
  JobRecord a;
  a.job_id = 0;
  a.gpus = a.gpus_held = 2;
  a.resilience.team = "x";
  JobRecord b;
  b.job_id = 1;
  b.gpus = b.gpus_held = 16;
  b.resilience.team = "y";
  t.jobs = {a, b};
  t.events = {event(0, 0, 0),  event(5, 1, 0),  event(10, 0, 1), event(20, 0, 4), event(30, 0, 1),
              event(40, 0, 2), event(50, 1, 1), event(50, 1, 1), event(60, 1, 2), event(60, 1, 2)};
  return t;
}

}  // namespace

TEST_CASE("Queue length: submitted, not running, not finished, a stopped job waits again", "[unit][analysis]") {
  const std::vector<StepPoint> q = queue_length_steps(two_jobs());
  // 0: A waits (1); 5: B too (2); 10: A runs (1); 20: A stopped (2); 30: A runs (1); 50: B runs (0).
  const std::vector<std::pair<double, double>> expected{{0, 1}, {5, 2}, {10, 1}, {20, 2}, {30, 1}, {50, 0}};
  REQUIRE(q.size() == expected.size());
  for (std::size_t i = 0; i < q.size(); ++i) {
    CHECK(q[i].time_s == expected[i].first);
    CHECK(q[i].value == expected[i].second);
  }
}

TEST_CASE("A team's GPUs: held while running, one change per job whatever its node rows", "[unit][analysis]") {
  const TraceData t = two_jobs();
  const std::vector<StepPoint> x = team_gpu_steps(t, "x");
  const std::vector<std::pair<double, double>> ex{{0, 0}, {10, 2}, {20, 0}, {30, 2}, {40, 0}};
  REQUIRE(x.size() == ex.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    CHECK(x[i].time_s == ex[i].first);
    CHECK(x[i].value == ex[i].second);
  }
  const std::vector<StepPoint> y = team_gpu_steps(t, "y");
  REQUIRE(y.size() == 3);
  CHECK(y[1].time_s == 50);
  CHECK(y[1].value == 16);
  CHECK(y[2].value == 0);
  CHECK(trace_teams(t) == std::vector<std::string>{"x", "y"});
  CHECK(file_name_part("fifo:{placement: first-fit}") == "fifo__placement__first-fit_");
  CHECK(file_name_part("") == "_");
}
