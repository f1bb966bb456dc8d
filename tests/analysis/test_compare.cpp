// The comparison table and its JSON on two hand-built 10-hour runs of the same three jobs
// (8 GPUs each; J1 5 h and J2 4 h of work submitted at 0, J3 2 h submitted at 7 h):
//
// A "owned+spot": an owned 8-GPU node ($140) and a spot one ($12/h x 10 h = $120): total $260.
//   Ledger compute_busy $72, compute_idle $48, ownership $140.
//   J1 [0, 5 h) completes (JCT 5 h); J2 is interrupted at 2 h, runs again [4 h, 6 h) and
//   completes at 6 h (JCT 6 h; lost 4, checkpoint 2, restart 2 GPU-h); J3 runs [7 h, 9 h) and
//   is interrupted for good (lost 16 GPU-h). Held 40 + 32 + 16 = 88 GPU-h = delivered.
//   interruptions 2; lost 20; checkpoint 2; useful 88 - 20 - 2 - 2 = 64;
//   per useful GPU-h 260 / 64 = $4.0625 -> $4.06; per completed job 260 / 2 = $130.00;
//   JCT 18000, 21600 s: mean 19800 s = 5h 30m; p95 h = 0.95: 18000 + 0.95 x 3600 = 21420 s = 5h 57m;
//   makespan 6 h - 0 = 6h 0m; jobs 2 / 3.
// B "on-demand": two 8-GPU nodes at $10/h, up 10 h: total $200; the jobs run uninterrupted.
//   Ledger compute_busy 88 GPU-h x $1.25 = $110, compute_idle $90.
//   JCT 18000, 14400, 7200 s (J3 7 h -> 9 h): mean 13200 s = 3h 40m;
//   p95 h = 2 x 0.95 = 1.9: 14400 + 0.9 x 3600 = 17640 s = 4h 54m; makespan 9 h - 0 = 9h 0m;
//   useful 88; per useful GPU-h 200 / 88 = $2.27; per completed job 200 / 3 = $66.67; jobs 3 / 3.
// Both: delivered 88 of 160 GPU-h = 55.0%; every job starts when submitted: mean wait 0.0s.
// Lowest (marked) where lower is better: total B, mean JCT B, p95 JCT B, makespan A,
// interruptions B, lost B, checkpoint B, per useful GPU-h B, per completed job B; mean wait
// ties (no mark); category rows are a breakdown (never marked).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "analysis/compare.hpp"
#include "analysis/file_names.hpp"
#include "analysis/overlay_plots.hpp"
#include "analysis/report.hpp"
#include "support/python.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim::analysis;

namespace {

constexpr double NAN_S = std::numeric_limits<double>::quiet_NaN();

ResilienceRecord resilience(int interruptions, double held_h, double lost_h, double ckpt_h, double restart_h) {
  return {"team", interruptions, 0, held_h * 3600, lost_h * 3600, ckpt_h * 3600, restart_h * 3600};
}

TraceData run_a() {
  TraceData d;
  d.attrs.scenario_name = "owned+spot";
  d.attrs.seed = 7;
  d.attrs.horizon_s = d.attrs.end_s = 36000;
  d.pools = {{"own", "owned", "A100", 8, 1, 0, 10.0, 2.0, 6.0, "aws/p4d.24xlarge", 4.0},
             {"spot", "spot", "A100", 8, 1, 32.77, 0, 0, 0, "", NAN_S}};
  d.nodes = {{0, "own", "A100", 8, 0, 0, 36000, 140.0, "owned", 36000, 40 * 3600.0, 0},
             {1, "spot", "A100", 8, 12.0, 0, 36000, 120.0, "spot", 36000, 48 * 3600.0, 2}};
  d.jobs = {{1, "J1", 0, 0, 18000, 8, 8, "own", 0, 1, 70.0, JobStatus::Completed, ModelRecord(), resilience(0, 40, 0, 0, 0)},
            {2, "J2", 0, 0, 21600, 8, 8, "spot", 1, 1, 48.0, JobStatus::Completed, ModelRecord(), resilience(1, 32, 4, 2, 2)},
            {3, "J3", 25200, 25200, NAN_S, 8, 8, "spot", 1, 1, 24.0, JobStatus::Interrupted, ModelRecord(),
             resilience(1, 16, 16, 0, 0)}};
  d.utilization = {{0, 16, 16}, {7200, 8, 16}, {14400, 16, 16}, {18000, 8, 16},
                   {21600, 0, 16}, {25200, 8, 16}, {32400, 0, 16}};
  d.ledger = {{0, 1, 1, 2, "compute_busy", 72.0, true},
              {0, 1, 1, -1, "compute_idle", 48.0, false},
              {0, 0, 0, -1, "ownership", 140.0, false}};
  return d;
}

TraceData run_b() {
  TraceData d;
  d.attrs.scenario_name = "on-demand";
  d.attrs.seed = 7;
  d.attrs.horizon_s = d.attrs.end_s = 36000;
  d.pools = {{"od", "on_demand", "A100", 8, 2, 10.0, 0, 0, 0, "", NAN_S}};
  d.nodes = {{0, "od", "A100", 8, 10.0, 0, 36000, 100.0, "on_demand", 36000, 56 * 3600.0, 0},
             {1, "od", "A100", 8, 10.0, 0, 36000, 100.0, "on_demand", 36000, 32 * 3600.0, 0}};
  d.jobs = {{1, "J1", 0, 0, 18000, 8, 8, "od", 0, 1, 50.0, JobStatus::Completed, ModelRecord(), resilience(0, 40, 0, 0, 0)},
            {2, "J2", 0, 0, 14400, 8, 8, "od", 1, 1, 40.0, JobStatus::Completed, ModelRecord(), resilience(0, 32, 0, 0, 0)},
            {3, "J3", 25200, 25200, 32400, 8, 8, "od", 0, 1, 20.0, JobStatus::Completed, ModelRecord(), resilience(0, 16, 0, 0, 0)}};
  d.utilization = {{0, 16, 16}, {14400, 8, 16}, {18000, 0, 16}, {25200, 8, 16}, {32400, 0, 16}};
  d.ledger = {{0, 0, -1, -1, "compute_busy", 110.0, true}, {0, 0, -1, -1, "compute_idle", 90.0, false}};
  return d;
}

std::vector<ComparedRun> two_runs() { return {compared_run("runs/a.h5", run_a()), compared_run("runs/b.h5", run_b())}; }

// The cells of the table row labelled `label`: the label, then one cell per run (marks kept).
std::vector<std::string> row(const std::string& table, const std::string& label) {
  std::size_t at = table.find("\n  " + label + "  ");
  if (at == std::string::npos) return {};
  const std::string line = table.substr(at + 1, table.find('\n', at + 1) - at - 1);
  std::vector<std::string> cells;
  std::size_t i = line.find_first_not_of(' ');  // cells are separated by two or more blanks
  while (i < line.size()) {
    std::size_t end = line.find("  ", i);
    if (end == std::string::npos) end = line.size();
    cells.push_back(line.substr(i, end - i));
    i = line.find_first_not_of(' ', end);
    if (i == std::string::npos) break;
  }
  return cells;
}

using Cells = std::vector<std::string>;

}  // namespace

TEST_CASE("the comparison table has a column per run and marks the lowest where lower is better", "[model]") {
  const std::string t = format_comparison(two_runs());
  INFO(t);
  CHECK_THAT(t, Catch::StartsWith("gcsim comparison of 2 runs\n"));
  CHECK_THAT(t, Catch::Contains("owned+spot                runs/a.h5  (seed 7, replication 0, 10h 0m)"));
  CHECK(row(t, "total cost") == Cells{"total cost", "$260.00", "$200.00*"});
  CHECK(row(t, "  compute_busy") == Cells{"compute_busy", "$72.00", "$110.00"});
  CHECK(row(t, "  compute_idle") == Cells{"compute_idle", "$48.00", "$90.00"});
  CHECK(row(t, "  ownership") == Cells{"ownership", "$140.00", "$0.00"});
  CHECK(row(t, "GPU-hours delivered") == Cells{"GPU-hours delivered", "88.0", "88.0"});
  CHECK(row(t, "GPU-hours useful") == Cells{"GPU-hours useful", "64.0", "88.0"});
  CHECK(row(t, "GPUs allocated") == Cells{"GPUs allocated", "55.0%", "55.0%"});
  CHECK(row(t, "jobs completed / total") == Cells{"jobs completed / total", "2 / 3", "3 / 3"});
  CHECK(row(t, "mean wait") == Cells{"mean wait", "0.0s", "0.0s"});
  CHECK(row(t, "mean JCT") == Cells{"mean JCT", "5h 30m", "3h 40m*"});
  CHECK(row(t, "p95 JCT") == Cells{"p95 JCT", "5h 57m", "4h 54m*"});
  CHECK(row(t, "makespan") == Cells{"makespan", "6h 0m*", "9h 0m"});
  CHECK(row(t, "interruptions") == Cells{"interruptions", "2", "0*"});
  CHECK(row(t, "lost GPU-hours") == Cells{"lost GPU-hours", "20.0", "0.0*"});
  CHECK(row(t, "checkpoint GPU-hours") == Cells{"checkpoint GPU-hours", "2.0", "0.0*"});
  CHECK(row(t, "cost per useful GPU-hour") == Cells{"cost per useful GPU-hour", "$4.06", "$2.27*"});
  CHECK(row(t, "cost per completed job") == Cells{"cost per completed job", "$130.00", "$66.67*"});
  CHECK_THAT(t, Catch::EndsWith("\n  * lowest in its row, where lower is better\n"));
  // The category rows come in ledger order, between the total and the GPU-hours.
  CHECK(t.find("compute_busy") < t.find("compute_idle"));
  CHECK(t.find("compute_idle") < t.find("ownership"));
  CHECK(t.find("ownership") < t.find("GPU-hours delivered"));
  // Columns are aligned: every value of a column ends at the same offset.
  const std::size_t header = t.find("\n  ", t.find("\n\n")) + 1;
  const std::string header_line = t.substr(header, t.find('\n', header) - header);
  CHECK(header_line.find("owned+spot") != std::string::npos);
  CHECK(header_line.size() == std::string("  ").size() + 26 + 2 + 12 + 1 + 2 + 12);  // trailing blank trimmed
}

TEST_CASE("ties are marked together, and runs without a figure are left out of the marking", "[model]") {
  std::vector<ComparedRun> runs = two_runs();
  runs.push_back(compared_run("runs/c.h5", run_b()));
  runs[2].attrs.scenario_name = "on-demand-again";
  const std::string t = format_comparison(runs);
  INFO(t);
  CHECK(row(t, "total cost") == Cells{"total cost", "$260.00", "$200.00*", "$200.00*"});

  // A schema-1 trace has no interruption columns: n/a, and one defined value is no contest.
  std::vector<ComparedRun> old = two_runs();
  old[1].attrs.trace_schema = 1;
  old[1].metrics.cost_by_category_usd.clear();  // schema 1 has no ledger either
  const std::string o = format_comparison(old);
  INFO(o);
  CHECK(row(o, "interruptions") == Cells{"interruptions", "2", "n/a"});
  CHECK(row(o, "cost per useful GPU-hour") == Cells{"cost per useful GPU-hour", "$4.06", "n/a"});
  CHECK(row(o, "  compute_busy") == Cells{"compute_busy", "$72.00", "n/a"});
  CHECK(row(o, "total cost") == Cells{"total cost", "$260.00", "$200.00*"});
}

TEST_CASE("column headers are scenario names, made unique by file name, then by path", "[unit]") {
  std::vector<ComparedRun> runs = two_runs();
  CHECK(comparison_labels(runs) == Cells{"owned+spot", "on-demand"});
  runs[1].attrs.scenario_name = "owned+spot";
  CHECK(comparison_labels(runs) == Cells{"owned+spot (a.h5)", "owned+spot (b.h5)"});
  runs[1].trace_path = "other/a.h5";
  CHECK(comparison_labels(runs) == Cells{"owned+spot (runs/a.h5)", "owned+spot (other/a.h5)"});
  runs[0].attrs.scenario_name.clear();
  CHECK(comparison_labels(runs) == Cells{"a.h5", "owned+spot"});
  // A header wider than the values widens its column.
  runs = two_runs();
  runs[0].attrs.scenario_name = "a-rather-long-scenario-name";
  const std::string t = format_comparison(runs);
  CHECK_THAT(t, Catch::Contains("  a-rather-long-scenario-name      on-demand\n"));
  CHECK(row(t, "total cost") == Cells{"total cost", "$260.00", "$200.00*"});
}

TEST_CASE("the comparison JSON lists each run with its trace, scenario and metrics", "[unit]") {
  const std::string j = format_comparison_json(two_runs());
  INFO(j);
  CHECK_THAT(j, Catch::StartsWith("{\n  \"runs\": [\n    {\n      \"trace\": \"runs/a.h5\",\n"
                                  "      \"scenario\": \"owned+spot\",\n      \"label\": \"owned+spot\",\n"));
  CHECK_THAT(j, Catch::Contains("\n    {\n      \"trace\": \"runs/b.h5\",\n      \"scenario\": \"on-demand\",\n"));
  CHECK_THAT(j, Catch::Contains("\n      \"total_cost_usd\": 260,\n"));
  CHECK_THAT(j, Catch::Contains("\n      \"total_cost_usd\": 200,\n"));
  CHECK_THAT(j, Catch::Contains("\n      \"cost_per_useful_gpu_hour_usd\": 4.0625,\n"));
  CHECK_THAT(j, Catch::Contains("\n      \"gpu_hours_lost\": 20,\n"));
  CHECK_THAT(j, Catch::Contains("\"cost_by_category_usd\": {\n        \"compute_busy\": 110,\n"
                                "        \"compute_idle\": 90\n      },\n"));
  CHECK(j.substr(j.size() - 12) == "    }\n  ]\n}\n");

  if (!gcsim::test::python_with("json")) return;
  gcsim::test::TempDir dir("compare-json");
  std::ofstream(dir.file("runs.json")) << j;
  std::ofstream(dir.file("check.py")) << R"(import json, sys
d = json.load(open(sys.argv[1]))
runs = d["runs"]
assert [r["trace"] for r in runs] == ["runs/a.h5", "runs/b.h5"], runs
assert [r["scenario"] for r in runs] == ["owned+spot", "on-demand"]
assert runs[0]["interruptions"] == 2 and runs[1]["interruptions"] == 0
assert runs[0]["pools"][0]["above_break_even"] is True
assert abs(runs[1]["cost_per_completed_job_usd"] - 200 / 3) < 1e-9
)";
  const std::string cmd = "/usr/bin/python3 " + dir.file("check.py") + " " + dir.file("runs.json");
  CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("file names from labels and team names are safe, bounded, unique and the same every time", "[unit]") {
  using Names = std::vector<std::string>;
  CHECK(file_name_part("fifo:{placement: first-fit}") == "fifo__placement__first-fit_");
  CHECK(file_name_part("") == "_");
  // Names that clash once made safe: a name that is safe as it is keeps it.
  CHECK(unique_file_name_parts({"ml team", "ml_team", "ml?team"}) == Names{"ml_team-2", "ml_team", "ml_team-3"});
  CHECK(unique_file_name_parts({"a", "a", "a-2"}) == Names{"a", "a-3", "a-2"});
  // Letter case does not tell files apart on every file system.
  CHECK(unique_file_name_parts({"ML", "ml"}) == Names{"ML", "ml-2"});
  // Long text is cut, and what the cut makes equal is told apart.
  const std::string long_a = std::string(150, 'x') + "a";
  const std::string long_b = std::string(150, 'x') + "b";
  const Names cut = unique_file_name_parts({long_a, long_b});
  CHECK(cut == Names{std::string(MAX_FILE_NAME_PART_BYTES, 'x'), std::string(MAX_FILE_NAME_PART_BYTES, 'x') + "-2"});
  CHECK(team_plot_names({"ml team", "ml?team", "ml_team"}) ==
        Names{"team_share-ml_team-2", "team_share-ml_team-3", "team_share-ml_team"});
  CHECK(overlay_plot_names({"a"}) == Names{"jct_cdf", "wait_cdf", "gpus_allocated", "queue_length", "team_share-a"});
}

TEST_CASE("the comparison counts jobs submitted after the horizon apart from jobs that never started", "[model]") {
  // B gets a job submitted at 11 h, after its 10 h horizon (the run ended before it came);
  // A's interrupted J3 started, so neither run has a job that came and never ran.
  TraceData b = run_b();
  b.jobs.push_back({4, "J4", 39600, NAN_S, NAN_S, 8, 0, "", -1, 0, 0.0, JobStatus::NeverStarted, ModelRecord(),
                    resilience(0, 0, 0, 0, 0)});
  const std::vector<ComparedRun> runs = {compared_run("runs/a.h5", run_a()), compared_run("runs/b.h5", b)};
  const std::string t = format_comparison(runs);
  INFO(t);
  CHECK(row(t, "jobs completed / total") == Cells{"jobs completed / total", "2 / 3", "3 / 4"});
  CHECK(row(t, "jobs never started") == Cells{"jobs never started", "0", "0"});
  CHECK(row(t, "submitted after horizon") == Cells{"submitted after horizon", "0", "1"});
  CHECK(runs[1].metrics.jobs_never_started == 0);
  CHECK(runs[1].metrics.jobs_submitted_after_horizon == 1);
  CHECK(runs[1].metrics.wait_s.count == 3);
  // Without such jobs (and none that never started) neither row is shown.
  CHECK(row(format_comparison(two_runs()), "jobs never started").empty());
}
