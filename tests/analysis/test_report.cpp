// The report's resilience, category, pool and budget sections, on a hand-built run of an
// owned pool and a spot pool whose every figure is worked out below; and their absence
// from runs that have nothing to show in them.
//
// Run: 10 h (end_s = 36000 s). Two pools of one 8-GPU node each, both up the whole run.
//   own-a100 (owned): F = $10/h fixed, energy $2/h idle, $6/h busy; compared with
//     aws/p4d.24xlarge at $4 per GPU-hour.
//     busy 8 GPUs x 5 h = 40 GPU-h of 80 up -> utilization 50%;
//     cost = 10 h x (F + E(0.5)) = 10 x (10 + 2 + 0.5 x 4) = $140; per busy GPU-h 140 / 40 = $3.50
//     break-even u* = (F + E_idle) / (gpus c - (E_busy - E_idle)) = 12 / (32 - 4) = 3/7 = 42.9%
//     -> 50% is above it (and $3.50 < $4: owning is cheaper).
//   spot-p4d (spot, $12/h): busy 48 GPU-h of 80 -> 60%; cost 10 h x 12 = $120 (busy 6 h = $72,
//     idle 4 h = $48); per busy GPU-h 120 / 48 = $2.50.
//   total = 140 + 120 = $260.
// Ledger: compute_busy $72, compute_idle $48, ownership $140 (sum $260):
//   shares 72/260 = 27.7%, 48/260 = 18.5%, 140/260 = 53.8%.
// Jobs (GPU-hours; 8 GPUs each):
//   J1 own-a100, completed [0, 5 h): held 40, nothing lost.
//   J2 spot, team nlp: runs [0, 2 h), is interrupted (0.5 h of work lost = 4 GPU-h), runs again
//      [4 h, 6 h) and completes: held 32, lost 4, checkpoint 2, restart 2, 1 interruption.
//   J3 spot, submitted and started at 7 h, interrupted at 9 h without a checkpoint and not
//      restarted: status interrupted; held 16, lost 16, 1 interruption.
//   interruptions 2; jobs interrupted at the end 1;
//   held 88 = 40 + 32 + 16; lost 20 (22.7%); checkpoint 2 (2.3%); restart 2 (2.3%);
//   useful 88 - 20 - 2 - 2 = 64 (72.7%); checkpoint overhead 2 / 88 = 2.3%;
//   cost per useful GPU-hour 260 / 64 = $4.0625 -> "$4.06".
// Budget events: nlp alert at 30000 s (spent $80 of $100), limit reached at 32400 s (= 9h 0m,
//   spent $101.50, stop_new); vision: a period start only (limit $500).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>

#include "analysis/metrics.hpp"
#include "analysis/report.hpp"
#include "analysis/trace_data.hpp"
#include "support/python.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim::analysis;

namespace {

constexpr double NAN_S = std::numeric_limits<double>::quiet_NaN();

ResilienceRecord resilience(const std::string& team, int interruptions, double held_h, double lost_h, double ckpt_h,
                            double restart_h) {
  return {team, interruptions, 0, held_h * 3600, lost_h * 3600, ckpt_h * 3600, restart_h * 3600};
}

TraceData owned_and_spot() {
  TraceData d;
  d.attrs.scenario_name = "owned-and-spot";
  d.attrs.horizon_s = 36000;
  d.attrs.end_s = 36000;
  d.pools = {{"own-a100", "owned", "A100", 8, 1, 0, 10.0, 2.0, 6.0, "aws/p4d.24xlarge", 4.0},
             {"spot-p4d", "spot", "A100", 8, 1, 32.77, 0, 0, 0, "", NAN_S}};
  d.nodes = {{0, "own-a100", "A100", 8, 0, 0, 36000, 140.0, "owned", 36000, 8 * 5 * 3600.0, 0},
             {1, "spot-p4d", "A100", 8, 12.0, 0, 36000, 120.0, "spot", 36000, 8 * 6 * 3600.0, 2}};
  d.jobs = {
      {1, "J1", 0, 0, 18000, 8, 8, "own-a100", 0, 1, 70.0, JobStatus::Completed, ModelRecord(), resilience("vision", 0, 40, 0, 0, 0)},
      {2, "J2", 0, 0, 21600, 8, 8, "spot-p4d", 1, 1, 48.0, JobStatus::Completed, ModelRecord(), resilience("nlp", 1, 32, 4, 2, 2)},
      {3, "J3", 25200, 25200, NAN_S, 8, 8, "spot-p4d", 1, 1, 24.0, JobStatus::Interrupted, ModelRecord(),
       resilience("nlp", 1, 16, 16, 0, 0)},
  };
  // 0: J1 + J2 | 2 h: J1 | 4 h: J1 + J2 | 5 h: J2 | 6 h: none | 7 h: J3 | 9 h: none  (88 GPU-h)
  d.utilization = {{0, 16, 16}, {7200, 8, 16}, {14400, 16, 16}, {18000, 8, 16},
                   {21600, 0, 16}, {25200, 8, 16}, {32400, 0, 16}};
  d.ledger = {{21600, 1, 1, 2, "compute_busy", 72.0, true},
              {36000, 1, 1, -1, "compute_idle", 48.0, false},
              {36000, 0, 0, -1, "ownership", 140.0, false}};
  d.budget_events = {{0, "vision", "period_start", 0, 500, "alert"},
                     {30000, "nlp", "alert", 80, 100, "stop_new"},
                     {32400, "nlp", "limit_reached", 101.5, 100, "stop_new"}};
  return d;
}

// A line of the report that starts with `label` (after the indent), or "" if none.
std::string line_of(const std::string& text, const std::string& label) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (line.rfind("  " + label, 0) == 0) return line;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return "";
}

}  // namespace

TEST_CASE("metrics of the owned-and-spot run match the hand computation", "[model]") {
  const TraceData d = owned_and_spot();
  const Metrics m = compute_metrics(d);
  CHECK(m.total_cost_usd == Approx(260));
  CHECK(m.gpu_hours_delivered == Approx(88));
  CHECK(m.gpu_hours_held == Approx(88));
  CHECK(m.gpu_hours_useful == Approx(64));
  CHECK(checkpoint_overhead_share(m) == Approx(2.0 / 88));
  CHECK(m.cost_per_useful_gpu_hour_usd == Approx(260.0 / 64));
  CHECK(m.interruptions == 2);
  CHECK(m.jobs_interrupted == 1);
  REQUIRE(m.pools.size() == 2);
  CHECK(m.pools[0].break_even_utilization == Approx(3.0 / 7));
  CHECK(m.pools[0].utilization == Approx(0.5));
  CHECK(m.pools[0].cost_per_busy_gpu_hour_usd == Approx(3.5));
  CHECK(m.pools[1].utilization == Approx(0.6));
  CHECK(m.pools[1].cost_per_busy_gpu_hour_usd == Approx(2.5));

  const std::vector<TeamBudget> teams = team_budgets(d);
  REQUIRE(teams.size() == 2);
  CHECK(teams[0].team == "nlp");  // sorted by name
  CHECK(teams[0].alerts == 1);
  CHECK(teams[0].limits_reached == 1);
  CHECK(teams[0].limit_usd == 100);
  CHECK(teams[0].max_spent_usd == 101.5);
  CHECK(teams[0].first_limit_s == 32400);
  CHECK(teams[0].action == "stop_new");
  CHECK(teams[1].team == "vision");
  CHECK(teams[1].limits_reached == 0);
  CHECK(std::isnan(teams[1].first_limit_s));
  CHECK(teams[1].limit_usd == 500);
  CHECK(std::isnan(checkpoint_overhead_share(Metrics{})));
}

TEST_CASE("the report shows categories, interruptions, pools and budgets with hand-computed figures", "[model]") {
  const TraceData d = owned_and_spot();
  const std::string r = format_report(d, compute_metrics(d));
  INFO(r);
  CHECK_THAT(r, Catch::Contains("\nCost by category (ledger)\n"));
  CHECK_THAT(line_of(r, "compute_busy"), Catch::Contains("$72.00") && Catch::Contains("27.7%"));
  CHECK_THAT(line_of(r, "compute_idle"), Catch::Contains("$48.00") && Catch::Contains("18.5%"));
  CHECK_THAT(line_of(r, "ownership"), Catch::Contains("$140.00") && Catch::Contains("53.8%"));
  CHECK_THAT(line_of(r, "ledger total"), Catch::Contains("$260.00"));

  CHECK_THAT(r, Catch::Contains("\nInterruptions and checkpoints\n"));
  CHECK_THAT(line_of(r, "interruptions"), Catch::EndsWith(" 2  (runs stopped before finishing)"));
  CHECK_THAT(line_of(r, "jobs interrupted at end"), Catch::EndsWith(" 1"));
  CHECK_THAT(line_of(r, "GPU-hours held"), Catch::EndsWith(" 88.0"));
  CHECK_THAT(line_of(r, "  lost (redone)"), Catch::EndsWith(" 20.0  22.7%"));
  CHECK_THAT(line_of(r, "  checkpoint writes"), Catch::EndsWith(" 2.0  2.3%"));
  CHECK_THAT(line_of(r, "  restore / image pull"), Catch::EndsWith(" 2.0  2.3%"));
  CHECK_THAT(line_of(r, "  useful"), Catch::EndsWith(" 64.0  72.7%"));
  CHECK_THAT(line_of(r, "checkpoint overhead"), Catch::Contains(" 2.3%  of GPU-hours held"));
  CHECK_THAT(line_of(r, "per useful GPU-hour"), Catch::Contains(" $4.06  "));

  CHECK_THAT(r, Catch::Contains("\nPools\n"));
  const std::string owned = line_of(r, "own-a100");
  CHECK_THAT(owned, Catch::Contains("owned") && Catch::Contains(" 8 ") && Catch::Contains("50.0%") &&
                        Catch::Contains("$140.00") && Catch::Contains("$3.50"));
  CHECK_THAT(owned, Catch::EndsWith("42.9% (3,754 h a year) vs aws/p4d.24xlarge at $4.00/GPU-h: above (owning is cheaper)"));
  const std::string spot = line_of(r, "spot-p4d");
  CHECK_THAT(spot, Catch::Contains("spot") && Catch::Contains("60.0%") && Catch::Contains("$120.00") &&
                       Catch::EndsWith("$2.50"));

  // Teams: nlp's two jobs held 48 of the 88 GPU-hours every job held (54.5%), vision's one
  // 40 (45.5%); each completed job waited 0 s, nlp's ran 6 h and vision's 5 h.
  CHECK_THAT(r, Catch::Contains("\nTeams\n"));
  const std::string teams = r.substr(r.find("\nTeams\n"));
  CHECK_THAT(line_of(teams, "nlp"), Catch::Contains("  2          1        48.0   54.5%") && Catch::EndsWith("6h 0m          0"));
  CHECK_THAT(line_of(teams, "vision"), Catch::Contains("  1          1        40.0   45.5%") &&
                                           Catch::EndsWith("5h 0m          0"));

  CHECK_THAT(r, Catch::Contains("\nBudgets\n"));
  const std::string budgets = r.substr(r.find("\nBudgets\n"));
  CHECK_THAT(line_of(budgets, "nlp"), Catch::Contains(" 1       1 ") && Catch::Contains("$100.00") &&
                                          Catch::Contains("$101.50") && Catch::EndsWith("9h 0m (stop_new)"));
  CHECK_THAT(line_of(budgets, "vision"), Catch::Contains(" 0       0 ") && Catch::Contains("$500.00") &&
                                             Catch::EndsWith("$0.00"));
}

TEST_CASE("an owned pool below its break-even, or one that never breaks even, says so", "[model]") {
  TraceData d = owned_and_spot();
  // Busy 8 x 2 h = 16 GPU-h of 80: utilization 20% < 42.9%.
  d.nodes[0].busy_gpu_s = 8 * 2 * 3600.0;
  CHECK_THAT(line_of(format_report(d, compute_metrics(d)), "own-a100"),
             Catch::Contains("20.0%") && Catch::EndsWith(": below (renting is cheaper)"));
  // Against $0.25 per GPU-hour: 8 x 0.25 = $2/h is less than the $4/h of extra energy -> never.
  d.pools[0].compare_usd_per_gpu_hour = 0.25;
  CHECK_THAT(line_of(format_report(d, compute_metrics(d)), "own-a100"),
             Catch::EndsWith("never vs aws/p4d.24xlarge at $0.25/GPU-h"));
}

TEST_CASE("runs with nothing to show keep the new sections out of the report", "[model]") {
  TraceData d = owned_and_spot();
  SECTION("a schema-1-like trace: no ledger, pools, resilience or budgets") {
    d.ledger.clear();
    d.pools.clear();
    d.budget_events.clear();
    for (JobRecord& j : d.jobs) {
      j.resilience = {};
      if (j.status == JobStatus::Interrupted) j.status = JobStatus::Running;
    }
  }
  SECTION("an on-demand-only run: busy / idle charges and one on-demand pool") {
    d.ledger = {{36000, 0, 0, -1, "compute_busy", 100.0, true}, {36000, 0, 0, -1, "compute_idle", 160.0, false}};
    d.pools = {{"od", "on_demand", "A100", 8, 2, 13.0, 0, 0, 0, "", NAN_S}};
    for (NodeRecord& n : d.nodes) n.node_type = "od";
    d.budget_events.clear();
    for (JobRecord& j : d.jobs) {
      j.resilience.interruptions = 0;
      j.resilience.gpu_s_lost = 0;
      j.resilience.gpu_s_checkpoint = 0;
      j.resilience.gpu_s_restart = 600;  // image pulls alone are no reason for the section
      if (j.status == JobStatus::Interrupted) j.status = JobStatus::Completed;
    }
  }
  const std::string r = format_report(d, compute_metrics(d));
  INFO(r);
  CHECK_THAT(r, !Catch::Contains("Cost by category"));
  CHECK_THAT(r, !Catch::Contains("Interruptions and checkpoints"));
  CHECK_THAT(r, !Catch::Contains("\nPools\n"));
  CHECK_THAT(r, !Catch::Contains("\nBudgets\n"));
  CHECK_THAT(r, Catch::Contains("\nJobs\n"));  // the base report is still all there
}

TEST_CASE("two on-demand pools are worth a pool section", "[model]") {
  TraceData d = owned_and_spot();
  d.pools[0].market = "on_demand";
  d.pools[1].market = "on_demand";
  CHECK_THAT(format_report(d, compute_metrics(d)), Catch::Contains("\nPools\n"));
}

TEST_CASE("the JSON summary carries the new figures under their keys", "[unit]") {
  const TraceData d = owned_and_spot();
  const std::string j = format_json(compute_metrics(d), d.attrs, team_budgets(d));
  INFO(j);
  CHECK_THAT(j, Catch::Contains("\n  \"interruptions\": 2,\n"));
  CHECK_THAT(j, Catch::Contains("\n  \"jobs_interrupted\": 1,\n"));
  CHECK_THAT(j, Catch::Contains("\n  \"gpu_hours_held\": 88,\n"));
  CHECK_THAT(j, Catch::Contains("\n  \"gpu_hours_lost\": 20,\n"));
  CHECK_THAT(j, Catch::Contains("\n  \"gpu_hours_checkpoint\": 2,\n"));
  CHECK_THAT(j, Catch::Contains("\n  \"gpu_hours_restart\": 2,\n"));
  CHECK_THAT(j, Catch::Contains("\n  \"gpu_hours_useful\": 64,\n"));
  CHECK_THAT(j, Catch::Contains("\n  \"checkpoint_overhead_share\": " + json_number(2.0 / 88) + ",\n"));
  CHECK_THAT(j, Catch::Contains("\n  \"cost_per_useful_gpu_hour_usd\": 4.0625,\n"));  // exact in binary
  CHECK_THAT(j, Catch::Contains("\"cost_by_category_usd\": {\n    \"compute_busy\": 72,\n    \"compute_idle\": 48,\n"
                                "    \"ownership\": 140\n  },\n"));
  CHECK_THAT(j, Catch::Contains("\"pools\": [\n    {\n      \"name\": \"own-a100\",\n      \"market\": \"owned\",\n"));
  CHECK_THAT(j, Catch::Contains("\"break_even_utilization\": " + json_number(12.0 / 28) + ",\n"));
  CHECK_THAT(j, Catch::Contains("\"above_break_even\": true\n"));
  CHECK_THAT(j, Catch::Contains("\"above_break_even\": null\n"));  // the spot pool has none
  CHECK_THAT(j, Catch::Contains("\"compare_usd_per_gpu_hour\": null,"));
  CHECK_THAT(j, Catch::Contains("\n  \"budget_alerts\": 1,\n  \"budget_limits_reached\": 1,\n"));
  CHECK_THAT(j, Catch::Contains("\"team\": \"nlp\",\n      \"alerts\": 1,\n      \"limits_reached\": 1,\n"
                                "      \"limit_usd\": 100,\n      \"max_spent_usd\": 101.5,\n"
                                "      \"first_limit_s\": 32400,\n      \"action\": \"stop_new\"\n    },"));
  CHECK(j.substr(j.size() - 4) == "]\n}\n");

  // Empty collections stay valid JSON.
  const std::string empty = format_json(compute_metrics(TraceData{}), TraceAttributes{});
  CHECK_THAT(empty, Catch::Contains("\"cost_by_category_usd\": {},\n"));
  CHECK_THAT(empty, Catch::Contains("\"pools\": [],\n"));
  CHECK_THAT(empty, Catch::Contains("\"budgets\": []\n}\n"));
  CHECK_THAT(empty, Catch::Contains("\"cost_per_useful_gpu_hour_usd\": null,"));
  CHECK_THAT(empty, Catch::Contains("\"checkpoint_overhead_share\": null,"));
}

TEST_CASE("the JSON summary parses with Python's json module", "[unit]") {
  if (!gcsim::test::python_with("json")) return;
  gcsim::test::TempDir dir("report-json");
  const TraceData d = owned_and_spot();
  std::ofstream(dir.file("run.json")) << format_json(compute_metrics(d), d.attrs, team_budgets(d));
  std::ofstream(dir.file("check.py")) << R"(import json, sys
d = json.load(open(sys.argv[1]))
assert d["interruptions"] == 2 and d["gpu_hours_useful"] == 64, d
assert d["cost_by_category_usd"] == {"compute_busy": 72, "compute_idle": 48, "ownership": 140}
assert [p["name"] for p in d["pools"]] == ["own-a100", "spot-p4d"]
assert d["pools"][0]["above_break_even"] is True and d["pools"][1]["above_break_even"] is None
assert abs(d["pools"][0]["break_even_utilization"] - 3 / 7) < 1e-12
assert [t["team"] for t in d["budgets"]] == ["nlp", "vision"] and d["budgets"][1]["first_limit_s"] is None
)";
  const std::string cmd = "/usr/bin/python3 " + dir.file("check.py") + " " + dir.file("run.json");
  CHECK(std::system(cmd.c_str()) == 0);
}
