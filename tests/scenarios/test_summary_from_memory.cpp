// The run's figures from memory (docs/engine.md, "The summary from memory"): a trace's
// tables copied into a MemoryTrace as the file is written (trace::TeeTrace) read back to the
// same records as the file does; a MemoryTrace read once hands each column out once;
// coded name columns (schema 5) keep every name, past 256 of them; /ledger, /preemptions and
// /utilization folded into their sums as they are written give the figures their rows give.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "analysis/metrics.hpp"
#include "analysis/summary_trace.hpp"
#include "analysis/trace_data.hpp"
#include "models/register_builtins.hpp"
#include "models/simulation.hpp"
#include "sim/errors.hpp"
#include "sim/trace/memory_trace.hpp"
#include "sim/trace/tee_trace.hpp"
#include "sim/trace/trace_reader.hpp"
#include "support/scenario_support.hpp"

namespace {

using gcsim::analysis::TraceData;
using gcsim::analysis::TraceParts;
namespace analysis = gcsim::analysis;
namespace models = gcsim::models;
namespace trace = gcsim::trace;

// Three node types; teams t0..t(n-1), one job each (of 1 to 8 GPUs), a few never started.
std::string teams_yaml(int teams) {
  std::string y = R"(name: teams
seed: 5
horizon: 20h
cluster:
  node_types:
    - {name: small, gpu: A100-40GB-SXM, gpus: 2, count: 2, price: {on_demand_per_hour: 8}}
    - {name: big, gpu: H100-SXM, gpus: 8, count: 2, price: {on_demand_per_hour: 98}}
    - {name: unused, gpu: H100-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 98}}
workload:
  jobs:
)";
  for (int i = 0; i < teams; ++i)
    y += "    - {name: job-" + std::to_string(i) + ", submit: " + std::to_string(i % 50) + "m, gpus: " +
         std::to_string(1 << (i % 4)) + ", duration: " + std::to_string(10 + i % 7) + "h, team: t" + std::to_string(i) + "}\n";
  y += "    - {name: no-team, gpus: 1, duration: 1h}\n";
  return y;
}

void same_jobs(const TraceData& a, const TraceData& b) {
  REQUIRE(a.jobs.size() == b.jobs.size());
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    INFO("job " << i);
    CHECK(a.jobs[i].name == b.jobs[i].name);
    CHECK(a.jobs[i].node_type == b.jobs[i].node_type);
    CHECK(a.jobs[i].resilience.team == b.jobs[i].resilience.team);
    CHECK(a.jobs[i].model.bottleneck == b.jobs[i].model.bottleneck);
    CHECK(a.jobs[i].status == b.jobs[i].status);
    CHECK(a.jobs[i].cost_usd == b.jobs[i].cost_usd);
  }
}

}  // namespace

TEST_CASE("a run's tables copied to memory read back as the file does, with 300 teams in a coded column",
          "[scenario][trace]") {
  gcsim::test::TempDir dir;
  const models::Scenario s = gcsim::test::scenario_from_yaml(teams_yaml(300));
  const std::string path = dir.file("teams.h5");
  trace::MemoryTrace memory(path);
  const TraceParts parts{.events = false};
  models::run_simulation_to(s, models::builtins().schedulers, path, {}, memory,
                            [parts](const std::string& t) { return analysis::read_by_read_trace(t, parts); });
  memory.read_once();
  const TraceData from_memory = analysis::read_trace(memory, path, parts);
  const TraceData from_file = analysis::read_trace(path);

  same_jobs(from_memory, from_file);
  CHECK(from_memory.events.empty());    // not asked for: not kept
  CHECK_FALSE(from_file.events.empty());
  // Each team named once, past the 256 codes of one byte; the job without a team has none.
  CHECK(gcsim::test::job_named(from_file, "job-299").resilience.team == "t299");
  CHECK(gcsim::test::job_named(from_file, "job-0").resilience.team == "t0");
  CHECK(gcsim::test::job_named(from_file, "no-team").resilience.team.empty());
  // A job that started has its node type's name; one never started (16 jobs of 8 GPUs
  // queue on the two big nodes) has none.
  CHECK(gcsim::test::job_named(from_file, "job-0").node_type == "small");
  bool some_never_started = false;
  for (const auto& j : from_file.jobs)
    if (j.status == analysis::JobStatus::NeverStarted) {
      some_never_started = true;
      CHECK(j.node_type.empty());
    }
  CHECK(some_never_started);
  // The figures of the summary are the same numbers either way.
  const analysis::Metrics a = analysis::compute_metrics(from_memory);
  const analysis::Metrics b = analysis::compute_metrics(from_file);
  CHECK(a.total_cost_usd == b.total_cost_usd);
  CHECK(a.busy_cost_usd == b.busy_cost_usd);
  CHECK(a.gpu_utilization == b.gpu_utilization);
  CHECK(a.wait_s.mean == b.wait_s.mean);
  CHECK(a.wait_s.p95 == b.wait_s.p95);
  CHECK(a.jobs_completed == b.jobs_completed);

  // In the file: a uint16 enum (301 labels: "n/a" and 300 teams), value 0 "n/a".
  const auto reader = trace::TraceReader::open(path);
  const std::vector<std::string> labels = reader->enum_labels("jobs", "team");
  REQUIRE(labels.size() == 301);
  CHECK(labels[0] == "n/a");
  // The workload's teams in its order (sorted by name): t0, t1, t10, t100, ..., t99.
  CHECK(labels[1] == "t0");
  CHECK(labels[2] == "t1");
  CHECK(labels[3] == "t10");
  CHECK(labels[300] == "t99");
  CHECK(reader->enum_labels("jobs", "node_type") == std::vector<std::string>{"n/a", "small", "big", "unused"});
}

TEST_CASE("a MemoryTrace read once hands each column out once, and a TeeTrace copies only the tables it picks",
          "[unit][trace]") {
  trace::MemoryTrace file("file");
  trace::MemoryTrace copy("copy");
  trace::TeeTrace tee(file, copy, [](const std::string& t) { return t == "kept"; });
  auto& kept = tee.add_table("kept", {{"x", trace::ColumnType::F64}, {"who", trace::ColumnType::Enum, {"n/a", "a", "b"}}});
  auto& left = tee.add_table("left", {{"y", trace::ColumnType::I32}});
  kept.reserve(2);
  kept.begin_row().f64(0, 1.5).enum_value(1, 2);
  kept.begin_row().f64(0, 2.5).enum_value(1, 0);
  left.begin_row().i32(0, 7);
  tee.set_attribute("a", std::int64_t{3});
  tee.commit();
  CHECK(file.has_table("kept"));
  CHECK(file.has_table("left"));
  CHECK(copy.has_table("kept"));
  CHECK_FALSE(copy.has_table("left"));
  CHECK(copy.attribute_int("a") == 3);
  CHECK(copy.column_f64("kept", "x") == std::vector<double>{1.5, 2.5});
  CHECK(copy.column_int("kept", "who") == std::vector<std::int64_t>{2, 0});
  // An Enum value without a label is a programming error, as for Enum8.
  trace::MemoryTrace other("other");
  auto& t = other.add_table("t", {{"who", trace::ColumnType::Enum, {"n/a", "a"}}});
  t.begin_row();
  CHECK_THROWS_AS(t.enum_value(0, 2), std::logic_error);

  copy.read_once();
  CHECK(copy.column_f64("kept", "x") == std::vector<double>{1.5, 2.5});
  CHECK_THROWS_AS(copy.column_f64("kept", "x"), gcsim::Error);  // handed out already
  CHECK(copy.column_int("kept", "who") == std::vector<std::int64_t>{2, 0});
  // The file side reads as often as asked.
  CHECK(file.column_int("left", "y") == std::vector<std::int64_t>{7});
  CHECK(file.column_int("left", "y") == std::vector<std::int64_t>{7});

  // A DiscardTrace keeps nothing and counts rows.
  trace::DiscardTrace none;
  auto& d = none.add_table("d", {{"x", trace::ColumnType::F64}});
  d.begin_row().f64(0, 1);
  CHECK(d.rows() == 1);
}

TEST_CASE("output.events false leaves /events out of the trace, and every figure stays", "[scenario][trace]") {
  gcsim::test::TempDir dir;
  const std::string with = teams_yaml(20);
  std::string without = with;
  without.replace(without.find("name: teams"), 11, "name: quiet");
  without += "output: {events: false}\n";
  const TraceData a = gcsim::test::run_yaml(with, dir);
  const TraceData b = gcsim::test::run_yaml(without, dir);
  CHECK(a.has_events);
  CHECK_FALSE(a.events.empty());
  CHECK_FALSE(b.has_events);
  CHECK(b.events.empty());
  CHECK_FALSE(trace::TraceReader::open(dir.file("quiet.h5"))->has_table("events"));
  same_jobs(a, b);
  const analysis::Metrics ma = analysis::compute_metrics(a);
  const analysis::Metrics mb = analysis::compute_metrics(b);
  CHECK(ma.total_cost_usd == mb.total_cost_usd);
  CHECK(ma.gpu_utilization == mb.gpu_utilization);
  CHECK(ma.jct_s.mean == mb.jct_s.mean);
}

TEST_CASE("a run's /ledger, /preemptions and /utilization folded as they are written give every figure their rows give",
          "[scenario][trace]") {
  // Least attained service on two nodes, 80 jobs of 1 to 8 GPUs in three teams, with
  // preemptions, and idle and busy compute charges.
  const std::string yaml = gcsim::test::las_preemptions_yaml("fold", 80);
  gcsim::test::TempDir dir;
  const models::Scenario s = gcsim::test::scenario_from_yaml(yaml);
  const std::string path = dir.file("fold.h5");
  // As gcsim run reads it without plots: no detail columns kept, /utilization folded.
  const TraceParts parts{.events = false, .details = false, .requests = true, .utilization = false};
  analysis::SummaryTrace summary(path, parts);
  models::run_simulation_to(s, models::builtins().schedulers, path, {}, summary,
                            [parts](const std::string& t) { return analysis::read_by_read_trace(t, parts); });
  const TraceData folded = summary.read();
  CHECK_THROWS_AS(summary.read(), std::logic_error);  // read once
  const TraceData rows = analysis::read_trace(path);

  // No rows kept; the sums are those of the file's rows, bit for bit.
  CHECK(folded.ledger.empty());
  CHECK(folded.preemptions.empty());
  REQUIRE(folded.ledger_totals);
  REQUIRE(folded.preemption_totals);
  REQUIRE(rows.preemptions.size() > 10);
  const analysis::LedgerTotals want = analysis::ledger_totals(rows.ledger);
  CHECK(folded.ledger_totals->rows == rows.ledger.size());
  CHECK(folded.ledger_totals->total_usd == want.total_usd);
  CHECK(folded.ledger_totals->busy_usd == want.busy_usd);
  REQUIRE(folded.ledger_totals->by_category.size() == 2);  // compute_busy and compute_idle
  CHECK(folded.preemption_totals->rows == static_cast<std::int64_t>(rows.preemptions.size()));
  CHECK(folded.utilization.empty());
  REQUIRE(folded.utilization_fold);
  REQUIRE(rows.utilization.size() > 100);
  CHECK(folded.utilization_fold->rows() == rows.utilization.size());
  // The file read with /utilization folded as it is read gives the same integrals.
  const TraceData read_folded = analysis::read_trace(path, parts);
  CHECK(read_folded.utilization.empty());
  REQUIRE(read_folded.utilization_fold);

  const analysis::Metrics a = analysis::compute_metrics(folded);
  const analysis::Metrics b = analysis::compute_metrics(rows);
  CHECK(a.total_cost_usd > 0);
  CHECK(a.busy_cost_usd > 0);
  CHECK(a.total_cost_usd == b.total_cost_usd);
  CHECK(a.busy_cost_usd == b.busy_cost_usd);
  CHECK(a.idle_cost_usd == b.idle_cost_usd);
  CHECK(a.storage_cost_usd == b.storage_cost_usd);
  CHECK(a.cost_by_category_usd == b.cost_by_category_usd);
  CHECK(a.preemptions == static_cast<std::int64_t>(rows.preemptions.size()));
  CHECK(a.preemptions == b.preemptions);
  CHECK(a.gpu_hours_preempt_save == b.gpu_hours_preempt_save);
  CHECK(a.gpu_hours_preempt_restore == b.gpu_hours_preempt_restore);
  CHECK(a.gpu_hours_preempt_lost == b.gpu_hours_preempt_lost);
  REQUIRE(a.teams.size() == 3);
  REQUIRE(b.teams.size() == 3);
  std::int64_t team_preemptions = 0;
  for (std::size_t i = 0; i < a.teams.size(); ++i) {
    CHECK(a.teams[i].team == b.teams[i].team);
    CHECK(a.teams[i].preemptions == b.teams[i].preemptions);
    team_preemptions += a.teams[i].preemptions;
  }
  CHECK(team_preemptions == a.preemptions);  // every job has a team
  CHECK(a.wait_s.mean == b.wait_s.mean);
  CHECK(a.jct_s.mean == b.jct_s.mean);
  CHECK(a.gpu_utilization > 0);
  // The figures of /utilization: the same from its rows, from the run's fold and from the
  // file's rows folded as they are read.
  const analysis::Metrics c = analysis::compute_metrics(read_folded);
  using M = analysis::Metrics;
  for (double M::*figure : {&M::gpu_utilization, &M::gpu_hours_delivered, &M::gpu_hours_provisioned, &M::gpu_busy_share,
                            &M::mean_allocated_gpus, &M::peak_allocated_gpus, &M::peak_allocated_at_s}) {
    CHECK(a.*figure == b.*figure);
    CHECK(c.*figure == b.*figure);
  }
  // The jobs' detail columns were not kept: the records have their defaults there.
  REQUIRE(folded.jobs.size() == rows.jobs.size());
  CHECK(folded.jobs[0].name.empty());
  CHECK_FALSE(rows.jobs[0].name.empty());
  CHECK(folded.jobs[0].submit_s == rows.jobs[0].submit_s);
}
