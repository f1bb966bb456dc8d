// Team quotas and time-sharing windows on small cases worked out by hand: a cap holds and
// a strict pass passes over the job it holds back; an idle guarantee is held (lending off)
// or lent and reclaimed by preempting only teams above their own guarantee (lending on,
// reclaim: preempt), or waited for (reclaim: wait); a window that begins preempts a team
// over its new cap; caps and guarantees hold at every instant of a two-week run; and the
// keys' validation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "models/register_builtins.hpp"
#include "models/scheduler/scheduler_registry.hpp"
#include "support/scheduler_runs.hpp"

using namespace gcsim;

namespace {

std::string scenario(const std::string& scheduler, int gpus, const std::string& jobs, const std::string& horizon = "3d") {
  return test::one_node_scenario(scheduler, gpus, jobs, horizon);
}
using test::run_job_times;

}  // namespace

TEST_CASE("a team's cap holds, and a strict pass passes over the job it holds back", "[model][scheduler][quotas]") {
  // 8 GPUs; team a may hold 50% (4). A1 (a, 4) starts at 0 and fills a's cap; A2 (a, 2)
  // is held back, and B1 (b, 2), behind it in FIFO order, starts at 0 all the same. A2
  // starts when A1 ends, at 60m.
  const std::string jobs = "    - {name: A1, submit: 0m, gpus: 4, duration: 1h, team: a}\n"
                           "    - {name: A2, submit: 0m, gpus: 2, duration: 1h, team: a}\n"
                           "    - {name: B1, submit: 0m, gpus: 2, duration: 1h, team: b}\n";
  auto q = run_job_times(scenario("{policy: fifo, quotas: {windows: [{teams: {a: {max: 50%}}}]}}", 8, jobs));
  CHECK(q["A1"].start_min == Approx(0));
  CHECK(q["A2"].start_min == Approx(60));
  CHECK(q["B1"].start_min == Approx(0));
  // Without quotas all three start at 0.
  auto n = run_job_times(scenario("{policy: fifo}", 8, jobs));
  CHECK(n["A2"].start_min == Approx(0));
}

TEST_CASE("an idle guarantee is held without lending, lent and reclaimed with it", "[model][scheduler][quotas]") {
  // 8 GPUs; team a is guaranteed 50% (4). B1 and B2 (b, 4 GPUs, 2h) at 0; A1 (a, 4, 1h) at 30m.
  const std::string jobs = "    - {name: B1, submit: 0m, gpus: 4, duration: 2h, team: b}\n"
                           "    - {name: B2, submit: 0m, gpus: 4, duration: 2h, team: b}\n"
                           "    - {name: A1, submit: 30m, gpus: 4, duration: 1h, team: a}\n";
  const std::string windows = "windows: [{teams: {a: {min: 50%}}}]";
  SECTION("lending off: b never uses a's 4 GPUs; B2 waits for B1") {
    auto t = run_job_times(scenario("{policy: fifo, quotas: {lending: false, " + windows + "}}", 8, jobs));
    CHECK(t["B1"].start_min == Approx(0));
    CHECK(t["A1"].start_min == Approx(30));
    CHECK(t["A1"].end_min == Approx(90));
    // At 90m a's guarantee is idle again, and still b's 4 + 4 would exceed what it may hold.
    CHECK(t["B2"].start_min == Approx(120));
    CHECK(t["B2"].end_min == Approx(240));
  }
  SECTION("lending on, reclaim: preempt: B2 (the later of two started together) gives a its GPUs at 30m") {
    auto t = run_job_times(
        scenario("{policy: fifo, " + test::FREE_PREEMPTION + ", quotas: {" + windows + "}}", 8, jobs));
    CHECK(t["B1"].start_min == Approx(0));
    CHECK(t["B2"].start_min == Approx(0));
    CHECK(t["A1"].start_min == Approx(30));
    CHECK(t["A1"].end_min == Approx(90));
    CHECK(t["B1"].preemptions == 0);
    CHECK(t["B2"].preemptions == 1);
    // B2 ran 30m, resumes when A1 ends with 90m left.
    CHECK(t["B2"].end_min == Approx(180));
  }
  SECTION("lending on, reclaim: wait: A1 waits for the borrowers to end") {
    auto t = run_job_times(scenario("{policy: fifo, quotas: {reclaim: wait, " + windows + "}}", 8, jobs));
    CHECK(t["B2"].start_min == Approx(0));
    CHECK(t["B2"].preemptions == 0);
    CHECK(t["A1"].start_min == Approx(120));
  }
}

TEST_CASE("reclaim preempts only teams above their own guarantee, newest first", "[model][scheduler][quotas]") {
  // 8 GPUs; a is guaranteed 50% (4), b 25% (2); c none. C2 (c, 2) and C1 (c, 4) start at 0,
  // B1 (b, 2) at 10m: the node is full. A1 (a, 4) at 30m reclaims 4 GPUs. The newest run is
  // B1's, but b holds no more than its guarantee; of c's two runs (both from 0) the later
  // submitted, C1, goes first and frees enough. C1 then waits: the GPUs freed when A1 ends
  // at 90m are its again (a has nothing waiting), and it ends 90m later.
  const std::string jobs = "    - {name: C2, submit: 0m, gpus: 2, duration: 2h, team: c}\n"
                           "    - {name: C1, submit: 0m, gpus: 4, duration: 2h, team: c}\n"
                           "    - {name: B1, submit: 10m, gpus: 2, duration: 2h, team: b}\n"
                           "    - {name: A1, submit: 30m, gpus: 4, duration: 1h, team: a}\n";
  auto t = run_job_times(scenario("{policy: fifo, " + test::FREE_PREEMPTION +
                                      ", quotas: {windows: [{teams: {a: 50%, b: {min: 25%}}}]}}",
                                  8, jobs));
  CHECK(t["A1"].start_min == Approx(30));
  CHECK(t["A1"].end_min == Approx(90));
  CHECK(t["B1"].preemptions == 0);
  CHECK(t["B1"].end_min == Approx(130));
  CHECK(t["C2"].preemptions == 0);
  CHECK(t["C1"].preemptions == 1);
  CHECK(t["C1"].end_min == Approx(180));
}

TEST_CASE("a window that begins preempts a team over its new cap, which waits for the window's end",
          "[model][scheduler][quotas]") {
  // t = 0 is Monday 00:00. Weekdays 09:00-18:00 team a may hold 25% (2 of 8). A1 (a, 8 GPUs,
  // 2h) starts Monday 08:00 outside the window; at 09:00 a holds 8 > 2 and A1 is preempted
  // (free preemption); it may not start again in the window (8 > 2) and resumes at 18:00
  // with 1h left: it ends at 19:00.
  const std::string jobs = "    - {name: A1, submit: 8h, gpus: 8, duration: 2h, team: a}\n";
  auto t = run_job_times(scenario("{policy: fifo, " + test::FREE_PREEMPTION +
                                      ", quotas: {windows: [{name: day, days: weekdays, hours: 09:00-18:00, "
                                      "teams: {a: {max: 25%}}}]}}",
                                  8, jobs));
  CHECK(t["A1"].start_min == Approx(8 * 60));
  CHECK(t["A1"].preemptions == 1);
  CHECK(t["A1"].end_min == Approx(19 * 60));
  // On a Saturday the window does not hold: submitted at Saturday 08:00, it runs through.
  const std::string saturday = "    - {name: A1, submit: 128h, gpus: 8, duration: 2h, team: a}\n";
  auto s = run_job_times(scenario("{policy: fifo, " + test::FREE_PREEMPTION +
                                      ", quotas: {windows: [{name: day, days: weekdays, hours: 09:00-18:00, "
                                      "teams: {a: {max: 25%}}}]}}",
                                  8, saturday, "10d"));
  CHECK(s["A1"].preemptions == 0);
  CHECK(s["A1"].end_min == Approx(130 * 60));
}

namespace {

// Each team's GPUs held and jobs waiting after every instant of the trace, from its
// events (one-node jobs only: one start, finish or stop row per run).
struct TeamState {
  int held = 0;
  int waiting = 0;
};
std::map<double, std::map<std::string, TeamState>> team_states(const analysis::TraceData& t) {
  std::map<std::string, TeamState> now;
  std::map<double, std::map<std::string, TeamState>> out;
  const auto label = [&](const analysis::EventRecord& e) { return t.event_kind_labels[e.kind]; };
  for (const analysis::EventRecord& e : t.events) {
    if (e.job < 0) continue;
    const analysis::JobRecord& j = t.jobs[static_cast<std::size_t>(e.job)];
    TeamState& s = now[j.resilience.team];
    const std::string kind = label(e);
    if (kind == "submit") ++s.waiting;
    if (kind == "start") {
      --s.waiting;
      s.held += j.gpus;
    }
    if (kind == "finish") s.held -= j.gpus;
    if (kind == "stop") {
      s.held -= j.gpus;
      ++s.waiting;
    }
    out[e.time_s] = now;  // the last row of an instant leaves its state
  }
  return out;
}

// 32 GPUs (4 nodes of 8); 1-GPU jobs, so a guarantee is never kept from its owner by the
// shape of the free GPUs. Weekdays 09:00-18:00: research guaranteed 50% (16), capped at 75%
// (24), quant capped at 25% (8); weekday nights: quant guaranteed 50%. Weekends: no quota.
// Both teams submit all week, more than the cluster serves. `policy` is the scheduler map's
// start ("policy: fifo\n  blocking: skip").
std::string instants_scenario(const std::string& policy, const std::string& horizon, int jobs_per_team) {
  return "name: quota-instants\nseed: 11\nhorizon: " + horizon +
         "\ncluster:\n  node_types:\n"
         "    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 4, price: {on_demand_per_hour: 1}}\n"
         "scheduler:\n  " + policy + "\n  preemption: {save: 0s, restore: 0s}\n"
         "  quotas:\n    windows:\n"
         "      - {name: day, days: weekdays, hours: 09:00-18:00, teams: {research: {min: 50%, max: 75%}, quant: {max: 25%}}}\n"
         "      - {name: night, days: weekdays, hours: 18:00-09:00, teams: {quant: 50%}}\n"
         "workload:\n  generators:\n"
         "    - {name: r, team: research, count: " + std::to_string(jobs_per_team) +
         ", arrival: {dist: exponential, mean: 12m}, gpus: 1, duration: {dist: lognormal, median: 3h, sigma: 0.8, max: 1d}}\n"
         "    - {name: q, team: quant, count: " + std::to_string(jobs_per_team) +
         ", arrival: {dist: exponential, mean: 12m}, gpus: 1, duration: {dist: lognormal, median: 3h, sigma: 0.8, max: 1d}}\n";
}

struct InstantChecks {
  int instants = 0, research_waiting_in_day = 0, quant_waiting_at_night = 0;
};

// Replays the trace and REQUIREs the caps and guarantees of instants_scenario() after every instant.
InstantChecks check_instants(const analysis::TraceData& t) {
  // Which window holds at t (s from Monday 00:00): 0 none, 1 day, 2 night. The night
  // window starts on weekdays, so Friday 18:00 to Saturday 09:00 is night, and Monday
  // 00:00-09:00 is Sunday's night: no window.
  const auto window = [](double s) {
    const double week = std::fmod(s, 7 * 86400.0);
    const int day = static_cast<int>(week / 86400);
    const double hour = std::fmod(week, 86400.0) / 3600;
    if (day < 5 && hour >= 9 && hour < 18) return 1;
    if ((day < 5 && hour >= 18) || (day >= 1 && day <= 5 && hour < 9)) return 2;
    return 0;
  };
  InstantChecks c;
  int& checked = c.instants;
  int& research_waiting_in_day = c.research_waiting_in_day;
  int& quant_waiting_at_night = c.quant_waiting_at_night;
  for (const auto& [time, teams] : team_states(t)) {
    const int w = window(time);
    const TeamState research = teams.count("research") ? teams.at("research") : TeamState{};
    const TeamState quant = teams.count("quant") ? teams.at("quant") : TeamState{};
    ++checked;
    if (w == 1) {
      REQUIRE(research.held <= 24);
      REQUIRE(quant.held <= 8);
      if (research.waiting > 0) {
        ++research_waiting_in_day;
        REQUIRE(research.held >= 16);
      }
    }
    if (w == 2 && quant.waiting > 0) {
      ++quant_waiting_at_night;
      REQUIRE(quant.held >= 16);
    }
  }
  return c;
}

}  // namespace

TEST_CASE("caps and guarantees hold at every instant of their windows over two weeks", "[model][scheduler][quotas]") {
  test::TempDir dir("quota-instants");
  const InstantChecks c = check_instants(test::run_yaml(instants_scenario("policy: fifo\n  blocking: skip", "14d", 1500), dir));
  // The checks did run, in both windows, with jobs waiting.
  CHECK(c.instants > 1000);
  CHECK(c.research_waiting_in_day > 100);
  CHECK(c.quant_waiting_at_night > 100);
}

TEST_CASE("caps and guarantees hold at every instant under every policy", "[model][scheduler][quotas]") {
  // The same checks over one week, for each built-in policy with its defaults (and
  // conservative backfill): the quotas
  // wrap whichever policy orders the jobs, and a policy's own preemptions (srtf, las,
  // priority, finish-time-fair) do not break them.
  std::vector<std::string> policies{"policy: backfill\n  mode: conservative"};
  for (const auto& [name, policy] : models::builtins().schedulers.policies())
    if (name != "recorded") policies.push_back("policy: " + name);  // refuses quotas (test_as_recorded.cpp)
  for (const std::string& policy : policies) {
    INFO(policy);
    test::TempDir dir("quota-policy");
    const InstantChecks c = check_instants(test::run_yaml(instants_scenario(policy, "7d", 600), dir));
    CHECK(c.research_waiting_in_day > 10);
    CHECK(c.quant_waiting_at_night > 10);
  }
}

TEST_CASE("quota keys are validated with the place of the error", "[model][scheduler][quotas][config]") {
  const std::string jobs = "    - {name: A1, submit: 0m, gpus: 1, duration: 1h, team: research}\n";
  const auto error = [&](const std::string& quotas) {
    return test::config_error([&] { test::scenario_from_yaml(scenario("{policy: fifo, quotas: " + quotas + "}", 8, jobs)); });
  };
  CHECK(error("{windows: [{teams: {reserch: 50%}}]}").code() == ErrorCode::UnknownName);
  CHECK(std::string(error("{windows: [{teams: {reserch: 50%}}]}").what()).find("did you mean 'research'") != std::string::npos);
  CHECK(error("{windows: [{teams: {research: {min: 80%, max: 50%}}}]}").code() == ErrorCode::OutOfRange);
  CHECK(error("{windows: [{days: weekdayz, teams: {research: 50%}}]}").code() == ErrorCode::UnknownName);
  CHECK(std::string(error("{windows: [{days: weekdayz, teams: {research: 50%}}]}").what()).find("did you mean 'weekdays'") !=
        std::string::npos);
  CHECK(error("{windows: [{hours: 9am-5pm, teams: {research: 50%}}]}").code() == ErrorCode::WrongType);
  CHECK(error("{windows: [{hours: 09:00-25:00, teams: {research: 50%}}]}").code() == ErrorCode::OutOfRange);
  CHECK(error("{windows: [{days: [mon, mon-wed], teams: {research: 50%}}]}").code() == ErrorCode::Duplicate);
  CHECK(error("{windows: [{teams: {}}]}").code() == ErrorCode::MissingKey);
  CHECK(error("{windows: []}").code() == ErrorCode::MissingKey);
  CHECK(error("{windowz: []}").code() == ErrorCode::UnknownKey);
  CHECK(error("{windows: [{name: x, teams: {research: 5%}}, {name: x, teams: {research: 5%}}]}").code() ==
        ErrorCode::Duplicate);
  CHECK(error("{reclaim: never, windows: [{teams: {research: 5%}}]}").code() == ErrorCode::UnknownName);
  // Two teams' guarantees over 100%: one more team is needed.
  const std::string two = jobs + "    - {name: B1, submit: 0m, gpus: 1, duration: 1h, team: quant}\n";
  const ConfigError over = test::config_error([&] {
    test::scenario_from_yaml(
        scenario("{policy: fifo, quotas: {windows: [{teams: {research: 60%, quant: {min: 50%}}}]}}", 8, two));
  });
  CHECK(over.code() == ErrorCode::OutOfRange);
  CHECK(std::string(over.what()).find("110%") != std::string::npos);
}

// Issue 27.19: a cap that keeps a job out at every time of the week (1% of 16 GPUs is 0 GPUs,
// for a 16-GPU job, in an always-on window) validated, and the job waited forever.
TEST_CASE("a job its team's caps keep out at every time of the week is infeasible", "[model][scheduler][quotas][config]") {
  const auto load = [&](const std::string& quotas, const std::string& jobs) {
    return test::scenario_from_yaml(scenario("{policy: fifo, quotas: " + quotas + "}", 16, jobs));
  };
  const auto error = [&](const std::string& quotas, const std::string& jobs) {
    return test::config_error([&] { load(quotas, jobs); });
  };
  const std::string big = "    - {name: A1, submit: 0m, gpus: 16, duration: 1h, team: a}\n";
  const ConfigError always = error("{windows: [{teams: {a: {max: 1%}}}]}", big);
  CHECK(always.code() == ErrorCode::Infeasible);
  CHECK(always.key_path() == "workload.jobs[0].gpus");
  CHECK(std::string(always.what()).find("caps it at 0 GPUs") != std::string::npos);
  // 50% of 16 everywhere: an 8-GPU job may start, a 9-GPU one never.
  CHECK_NOTHROW(load("{windows: [{teams: {a: {max: 50%}}}]}", "    - {gpus: 8, duration: 1h, team: a}\n"));
  CHECK(error("{windows: [{teams: {a: {max: 50%}}}]}", "    - {gpus: 9, duration: 1h, team: a}\n").code() ==
        ErrorCode::Infeasible);
  // The largest cap over the week counts: 100% at weekends, or no window at all at night.
  CHECK_NOTHROW(load("{windows: [{days: weekdays, teams: {a: {max: 1%}}}, {days: [sat, sun], teams: {a: 100%}}]}", big));
  CHECK_NOTHROW(load("{windows: [{hours: 09:00-18:00, teams: {a: {max: 1%}}}]}", big));
  // Windows that cover the week between them, each capping the team, are one cap; a later
  // window shadowed by an earlier one everywhere gives nothing.
  const ConfigError split = error(
      "{windows: [{name: day, hours: 08:00-20:00, teams: {a: {max: 25%}}}, {name: night, hours: 20:00-08:00, "
      "teams: {a: {max: 50%}}}, {name: shadowed, teams: {a: 100%}}]}",
      "    - {gpus: 9, duration: 1h, team: a}\n");
  CHECK(split.code() == ErrorCode::Infeasible);
  CHECK(std::string(split.what()).find("window 'night'") != std::string::npos);
  // Other teams and jobs without a team are not capped by a's window.
  CHECK_NOTHROW(load("{windows: [{teams: {a: {max: 50%}}}]}",
                     "    - {gpus: 8, duration: 1h, team: a}\n    - {gpus: 16, duration: 1h, team: b}\n"
                     "    - {gpus: 16, duration: 1h}\n"));
  // A generator's largest job counts as a written job does.
  const ConfigError generated = test::config_error([&] {
    test::scenario_from_yaml(test::one_node_scenario("{policy: fifo, quotas: {windows: [{teams: {a: {max: 25%}}}]}}", 16,
                                                     "    - {gpus: 1, duration: 1h, team: a}\n", "3d") +
                             "  generators:\n    - {name: g, count: 5, arrival: 1h, gpus: {choice: [1, 8]}, duration: 1h, "
                             "team: a}\n");
  });
  CHECK(generated.code() == ErrorCode::Infeasible);
}
