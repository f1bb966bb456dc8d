// The fast path of inline jobs (models/config/plain_jobs.hpp): a job map of only name,
// submit, gpus, duration and team is read straight from its entries, not through read_job.
// Each case writes the same jobs twice, once as they are and once with `priority: 0` added
// to every map (a key the fast path does not take, whose value is the default), so every
// job takes read_job there: the specs must be the same, and every bad job must fail with
// the same error at the same place.
#include <catch2/catch.hpp>

#include "support/scenario_support.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/config/plain_jobs.hpp"
#include "models/config/workload_reader.hpp"
#include "sim/config/config_node.hpp"
#include "sim/units.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::config::load_yaml_string;
using gcsim::test::config_error;

namespace {

const std::string HEAD =
    "name: plain-jobs\nhorizon: 200y\ncluster:\n  node_types:\n"
    "    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 2, price: {on_demand_per_hour: 32}}\n"
    "workload:\n  jobs:\n";
constexpr int FIRST_JOB_LINE = 8;

// The scenario with `jobs` (one flow map a line, each `{...}`), as written and with
// `priority: 0` added to every map.
std::pair<std::string, std::string> both(const std::vector<std::string>& jobs) {
  std::string plain = HEAD;
  std::string maps = HEAD;
  for (const std::string& j : jobs) {
    plain += "    - " + j + "\n";
    maps += "    - " + j.substr(0, j.size() - 1) + (j == "{}" ? "" : ", ") + "priority: 0}\n";
  }
  return {plain, maps};
}

// How many of the jobs the fast path took.
std::size_t plain_jobs(const std::string& scenario) {
  const gcsim::config::ConfigDocument doc = load_yaml_string(scenario, "s.yaml");
  gcsim::config::SourceResolver sources;
  return gcsim::models::read_workload(*doc.root.find("workload"), gcsim::test::bundled_catalogs().models, sources)
      .inline_plain_jobs;
}

}  // namespace

TEST_CASE("plain_duration reads a duration as read_duration does", "[unit]") {
  using gcsim::models::detail::plain_duration;
  // Every text here, fast (digits and one letter) or not: the general parser's nanoseconds,
  // or false where it refuses the text or the value is below the minimum.
  const std::vector<std::string> texts{
      "0",     "0s",      "1s",   "2h",    "10m",   "90s",       "7d",        "3w",
      "1y",    "292y",    "293y", "007m",  "1.5h",  "1h30m",     "2 hours",   "250ms",
      "1e3s",  "-1h",     "+1h",  "6",     "abc",   "5x",        "1h30",      "30m1h",
      "",      "h",       "1hh",  "1 h",   "1H",    "999999999999999999s",  // 18 digits: overflows
      "106751d", "106752d", "9223372036s", "9223372037s", "15250w", "15251w", "0000000000000000001s",
      "1.5h",  "0.5s",    "2885.821s", "1048.697s", "0.000000001s", "0.0000000004s", "0.0000000005s",
      "106751.99d", "106752.5d", "1.5y", "292.4y", "12.h", ".5h", "1.2.3s", "007.5m", "1.5 h", "1.5e3s",
      "-1.5h", "1.5hh", "1h30.5m", "99999999999999999999.5s", "12345678901234567890123.5s"};
  for (const std::int64_t min_ns : {std::int64_t{0}, std::int64_t{1}, std::int64_t{3'600'000'000'000}}) {
    for (const std::string& text : texts) {
      INFO(text << " at least " << min_ns);
      bool general_ok = true;
      std::int64_t general_ns = 0;
      try {
        general_ns = gcsim::units::parse_duration_ns(text);
      } catch (const gcsim::units::UnitError&) {
        general_ok = false;
      }
      gcsim::sim::SimTime fast = gcsim::sim::SimTime::from_ns(-42);
      const bool fast_ok = plain_duration(text, min_ns, fast);
      CHECK(fast_ok == (general_ok && general_ns >= min_ns));
      if (fast_ok) CHECK(fast.ns() == general_ns);
    }
  }
  // By hand: the fast path's units.
  gcsim::sim::SimTime t;
  REQUIRE(plain_duration("2h", 0, t));
  CHECK(t.ns() == 7'200'000'000'000);
  REQUIRE(plain_duration("3w", 0, t));
  CHECK(t.ns() == 3 * 604'800'000'000'000);
  REQUIRE(plain_duration("292y", 0, t));
  CHECK(t.ns() == 292 * 31'536'000'000'000'000);
  CHECK_FALSE(plain_duration("293y", 0, t));  // beyond int64 nanoseconds
  REQUIRE(plain_duration("1048.697s", 0, t));
  CHECK(t.ns() == 1'048'697'000'000);
  REQUIRE(plain_duration("1.5h", 0, t));
  CHECK(t.ns() == 5'400'000'000'000);
  REQUIRE(plain_duration("0.0000000005s", 0, t));  // half a nanosecond rounds away from zero
  CHECK(t.ns() == 1);
  CHECK_FALSE(plain_duration("0s", 1, t));
}

TEST_CASE("inline plain jobs read as the same jobs through read_job", "[unit]") {
  const std::vector<std::string> jobs{
      "{name: a, submit: 0s, gpus: 1, duration: 1h, team: t1}",
      "{submit: 10m, gpus: 2, duration: 30m}",            // no name: job-1; no team
      "{name: c, gpus: 8, duration: 1.5h, team: t2}",     // no submit: 0
      "{name: d, submit: 1d, gpus: 007, duration: 90s, team: t1}",  // leading zeros
      "{name: f, submit: 5m, gpus: +3, duration: 1h, team: t1}",    // a sign: read_job
      "{name: \"h i\", submit: 1h, gpus: 1, duration: 1h, team: \"t 4\"}",  // quoted names
      "{name: j.k-l_m, submit: 1.25h, gpus: 2, duration: 1e3s, team: t2}",
      "{name: n, submit: 1d2h, gpus: 1, duration: 1ms, team: t1}",
      "{name: o, submit: 7m, gpus: 16, duration: 3h, team: t0}",
      "{name: p, submit: 0, gpus: 4, duration: \"2h\"}",  // a quoted duration: read_job
      "{name: 12, submit: 100y, gpus: 1, duration: 2w, team: t1}",
      "{name: r, submit: 2 hours, gpus: 1, duration: 1d6h30m15s, team: t2}",
      "{gpus: 1, name: s, duration: 5m, team: t0, submit: 3m}",  // any key order
  };
  const auto [plain, maps] = both(jobs);
  const auto a = gcsim::test::scenario_from_yaml(plain, "s.yaml");
  const auto b = gcsim::test::scenario_from_yaml(maps, "s.yaml");
  REQUIRE(a.workload.jobs.size() == jobs.size());
  REQUIRE(b.workload.jobs.size() == jobs.size());
  CHECK(a.workload.teams == b.workload.teams);
  CHECK(a.workload.teams == std::vector<std::string>{"t 4", "t0", "t1", "t2"});
  CHECK(a.workload.jobs_mark.line == b.workload.jobs_mark.line);
  CHECK(a.workload.jobs_mark.column == b.workload.jobs_mark.column);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    INFO(jobs[i]);
    gcsim::test::check_same_plain_job(a.workload.jobs[i], b.workload.jobs[i]);
  }
  // By hand.
  const auto& j = a.workload.jobs;
  CHECK(j[1].name == "job-1");
  CHECK(j[1].team == -1);
  CHECK(j[1].submit.ns() == 600'000'000'000);
  CHECK(j[2].duration->ns() == 5'400'000'000'000);
  CHECK(j[3].gpus == 7);
  CHECK(j[5].name == "h i");
  CHECK(j[5].team == 0);  // "t 4", first in sorted order
  CHECK(j[7].submit.ns() == 93'600'000'000'000);
  CHECK(j[6].duration->ns() == 1'000'000'000'000);
  CHECK(j[9].duration->ns() == 7'200'000'000'000);
  CHECK(j[10].name == "12");
  CHECK(j[10].submit.ns() == 100 * 31'536'000'000'000'000);
  CHECK(j[10].duration->ns() == 2 * 604'800'000'000'000);
  CHECK(j[11].duration->ns() == (30 * 3600 + 30 * 60 + 15) * 1'000'000'000LL);
  CHECK(j[12].name == "s");
  CHECK(j[12].submit.ns() == 180'000'000'000);
  // The fast path took all but the sign (+3) and the quoted duration; of the maps with
  // `priority`, none.
  CHECK(plain_jobs(plain) == jobs.size() - 2);
  CHECK(plain_jobs(maps) == 0);
}

TEST_CASE("a bad inline plain job fails as through read_job, at the same place", "[unit]") {
  const std::vector<std::string> bad{
      "{name: b, gpus: 0, duration: 1h}",          // gpus below 1
      "{name: b, gpus: 1.5, duration: 1h}",        // not an integer
      "{name: b, gpus: 2000000, duration: 1h}",    // above 2^20
      "{name: b, gpus: \"8\", duration: 1h}",      // a quoted number
      "{name: b, gpus: x, duration: 1h}",
      "{name: b, gpus: ~, duration: 1h}",          // gpus null: missing
      "{name: b, gpus: [1], duration: 1h}",        // a list
      "{name: b, duration: 1h}",                   // gpus missing
      "{name: b, gpus: 1, duration: 0s}",          // duration below 1 ns
      "{name: b, gpus: 1, duration: abc}",
      "{name: b, gpus: 1, duration: 5x}",
      "{name: b, gpus: 1, duration: 3600}",        // no unit
      "{name: b, gpus: 1, duration: 1h30}",
      "{name: b, gpus: 1, duration: 300y}",        // too long: the fast path overflows
      "{name: b, gpus: 1}",                        // duration missing
      "{name: b, gpus: 1, duration: ~}",
      "{name: b, submit: -1h, gpus: 1, duration: 1h}",  // before 0
      "{name: b, submit: soon, gpus: 1, duration: 1h}",
      "{name: b, submit: 30m1h, gpus: 1, duration: 1h}",
      "{name: b, submit: \"5\", gpus: 1, duration: 1h}",
      "{name: b/c, gpus: 1, duration: 1h}",        // a name with '/'
      "{name: \"\", gpus: 1, duration: 1h}",       // an empty name
      "{name: [b], gpus: 1, duration: 1h}",
      "{name: b, gpus: 1, duration: 1h, team: t\\1}",  // a team with '\'
      "{name: b, gpus: 1, duration: 1h, team: {x: 1}}",
      "{name: a, gpus: 1, duration: 1h}",          // a name used twice
      "{name: " + std::string(300, 'n') + ", gpus: 1, duration: 1h}",  // a name too long
      "{name: b, gpus: 17, duration: 1h}",         // no node holds 17 GPUs (resolve step)
      "{name: b, gpuz: 1, duration: 1h}",          // an unknown key
      "{}",
  };
  for (const std::string& job : bad) {
    INFO(job);
    const auto [plain, maps] = both({"{name: a, gpus: 1, duration: 1h}", job, "{name: z, gpus: 1, duration: 1h}"});
    const ConfigError e1 = config_error([&] { gcsim::test::scenario_from_yaml(plain, "s.yaml"); });
    const ConfigError e2 = config_error([&] { gcsim::test::scenario_from_yaml(maps, "s.yaml"); });
    CHECK(e1.code() == e2.code());
    CHECK(e1.mark().line == FIRST_JOB_LINE + 1);
    CHECK(e1.mark().line == e2.mark().line);
    CHECK(e1.mark().column == e2.mark().column);
    CHECK(e1.key_path().rfind("workload.jobs[1]", 0) == 0);
    CHECK(e1.key_path() == e2.key_path());
    CHECK(e1.detail() == e2.detail());
  }
}

// A job's name is checked once the next job is read (plain_jobs.hpp; workload_reader.cpp):
// the first error in the file is still the one reported.
TEST_CASE("the first bad inline job is reported, a name used twice or another error", "[unit]") {
  SECTION("a name used twice before a bad job") {
    const auto [plain, maps] = both({"{name: a, gpus: 1, duration: 1h}", "{name: a, gpus: 1, duration: 1h}",
                                     "{name: c, gpus: 0, duration: 1h}"});
    for (const std::string& s : {plain, maps}) {
      const ConfigError e = config_error([&] { gcsim::test::scenario_from_yaml(s, "s.yaml"); });
      CHECK(e.code() == ErrorCode::Duplicate);
      CHECK(e.mark().line == FIRST_JOB_LINE + 1);
      CHECK(e.mark().column == 7);
      CHECK(e.key_path() == "workload.jobs[1]");
      CHECK(e.detail() == "job name 'a' is used twice");
    }
  }
  SECTION("a bad job before a name used twice") {
    const auto [plain, maps] = both({"{name: a, gpus: 1, duration: 1h}", "{name: b, gpus: 0, duration: 1h}",
                                     "{name: a, gpus: 1, duration: 1h}"});
    for (const std::string& s : {plain, maps}) {
      const ConfigError e = config_error([&] { gcsim::test::scenario_from_yaml(s, "s.yaml"); });
      CHECK(e.code() == ErrorCode::OutOfRange);
      CHECK(e.mark().line == FIRST_JOB_LINE + 1);
      CHECK(e.key_path() == "workload.jobs[1].gpus");
    }
  }
  SECTION("the last job's name used twice") {
    const auto [plain, maps] = both({"{name: a, gpus: 1, duration: 1h}", "{name: b, gpus: 1, duration: 1h}",
                                     "{name: b, gpus: 1, duration: 1h}"});
    for (const std::string& s : {plain, maps}) {
      const ConfigError e = config_error([&] { gcsim::test::scenario_from_yaml(s, "s.yaml"); });
      CHECK(e.code() == ErrorCode::Duplicate);
      CHECK(e.mark().line == FIRST_JOB_LINE + 2);
      CHECK(e.key_path() == "workload.jobs[2]");
    }
  }
  SECTION("many jobs, the name table grown past its first size, one name used twice") {
    std::vector<std::string> jobs;
    for (int i = 0; i < 3000; ++i) jobs.push_back("{name: j" + std::to_string(i) + ", gpus: 1, duration: 1h}");
    jobs.push_back("{name: j1234, gpus: 1, duration: 1h}");
    const ConfigError e = config_error([&] { gcsim::test::scenario_from_yaml(both(jobs).first, "s.yaml"); });
    CHECK(e.code() == ErrorCode::Duplicate);
    CHECK(e.mark().line == FIRST_JOB_LINE + 3000);
    CHECK(e.key_path() == "workload.jobs[3000]");
    jobs.pop_back();
    CHECK(gcsim::test::scenario_from_yaml(both(jobs).first, "s.yaml").workload.jobs.size() == 3000);
  }
}

TEST_CASE("a team's index is its place among the sorted teams, in runs and interleaved", "[unit]") {
  const auto [plain, maps] = both({"{name: a, gpus: 1, duration: 1h, team: z}", "{name: b, gpus: 1, duration: 1h, team: z}",
                                   "{name: c, gpus: 1, duration: 1h, team: m}", "{name: d, gpus: 1, duration: 1h}",
                                   "{name: e, gpus: 1, duration: 1h, team: z}", "{name: f, gpus: 1, duration: 1h, team: a}",
                                   "{name: g, gpus: 1, duration: 1h, team: m}"});
  for (const std::string& s : {plain, maps}) {
    const auto sc = gcsim::test::scenario_from_yaml(s, "s.yaml");
    CHECK(sc.workload.teams == std::vector<std::string>{"a", "m", "z"});
    std::vector<int> teams;
    for (const auto& j : sc.workload.jobs) teams.push_back(j.team);
    CHECK(teams == std::vector<int>{2, 2, 1, -1, 2, 0, 1});
  }
  // More teams than TeamNames looks through one by one (8), so they are indexed: 20 teams,
  // t00..t19, first seen in the order t19, t18, ..., t00, then each again in a shuffled order.
  std::vector<std::string> jobs;
  std::vector<int> expected;
  for (int k = 19; k >= 0; --k) {
    jobs.push_back("{name: a" + std::to_string(k) + ", gpus: 1, duration: 1h, team: t" + (k < 10 ? "0" : "") +
                   std::to_string(k) + "}");
    expected.push_back(k);
  }
  for (int n = 0; n < 40; ++n) {
    const int k = (n * 7) % 20;
    jobs.push_back("{name: b" + std::to_string(n) + ", gpus: 1, duration: 1h, team: t" + (k < 10 ? "0" : "") +
                   std::to_string(k) + "}");
    expected.push_back(k);
  }
  const auto [plain20, maps20] = both(jobs);
  for (const std::string& s : {plain20, maps20}) {
    const auto sc = gcsim::test::scenario_from_yaml(s, "s.yaml");
    REQUIRE(sc.workload.teams.size() == 20);
    CHECK(sc.workload.teams.front() == "t00");
    CHECK(sc.workload.teams.back() == "t19");
    std::vector<int> teams;
    for (const auto& j : sc.workload.jobs) teams.push_back(j.team);
    CHECK(teams == expected);
  }
}
