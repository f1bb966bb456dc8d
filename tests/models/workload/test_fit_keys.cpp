// The generator keys a fitted workload needs (docs/scenario-reference.md): an arrival rate
// by hour of the week (`rate`), empirical distributions (`dist: empirical`) and a team
// drawn from a choice. Each is checked against theory, and each bad input is refused with
// its code.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "models/config/distribution_reader.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/workload/distribution.hpp"
#include "models/workload/week_rate.hpp"
#include "sim/calendar.hpp"
#include "sim/config/config_node.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using gcsim::test::scenario_from_yaml;

namespace {

constexpr std::int64_t HOUR_NS = 3'600'000'000'000;

const char* HEAD = R"(name: t
seed: 7
horizon: 1000d
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 96, memory: 1152GiB, count: 2, price: {on_demand_per_hour: 32.77}}
workload:
  generators:
)";

std::string scenario(const std::string& generator) { return std::string(HEAD) + generator; }

ConfigError error_of(const std::string& generator) {
  INFO(generator);
  return test::config_error([&] { scenario_from_yaml(scenario(generator)); });
}

models::Distribution read_dist(const std::string& yaml, models::ValueKind kind = models::ValueKind::Duration) {
  const auto doc = config::load_yaml_string("d: " + yaml + "\n", "d.yaml");
  return models::read_distribution(*doc.root.find("d"), kind);
}

std::string list(const std::vector<double>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// The hour-of-week rates the tests use: busy working hours, a quiet night, nothing on
// Sunday night (0 from Sunday 00:00 to 06:00), and one hour at a different rate.
std::vector<double> week_rates() {
  std::vector<double> r(168);
  for (int h = 0; h < 168; ++h) {
    const int day = h / 24, hour = h % 24;
    r[static_cast<std::size_t>(h)] = (hour >= 9 && hour < 18 ? 6.0 : 1.5) * (day >= 5 ? 0.5 : 1.0);
    if (day == 6 && hour < 6) r[static_cast<std::size_t>(h)] = 0;
  }
  r[30] = 11;  // Tuesday 06:00-07:00
  return r;
}

}  // namespace

TEST_CASE("empirical: draws match the given quantiles, log-linear between positive ones", "[unit][distribution]") {
  // Knots at p = 0, 1/4, 1/2, 3/4, 1.
  const models::Distribution d = read_dist("{dist: empirical, quantiles: [1s, 2s, 10s, 100s, 10000s]}");
  REQUIRE(d.kind == models::Distribution::Kind::Empirical);
  CHECK(d.lowest() == 1);
  CHECK(d.highest() == 10000);
  CHECK(d.p1 == 10);  // the median, for summaries
  sim::RngStream rng(1, 0, "empirical");
  const int n = 200'000;
  std::vector<double> x(n);
  for (double& v : x) v = d.sample(rng);
  auto fraction_below = [&](double q) {
    return static_cast<double>(std::count_if(x.begin(), x.end(), [&](double v) { return v <= q; })) / n;
  };
  // P(X <= q_k) = k/4 exactly; the sample fraction's standard deviation is sqrt(p(1-p)/n),
  // at most 0.0011: 5 of them.
  const double tol = 5 * std::sqrt(0.25 / n);
  CHECK(fraction_below(2) == Approx(0.25).margin(tol));
  CHECK(fraction_below(10) == Approx(0.50).margin(tol));
  CHECK(fraction_below(100) == Approx(0.75).margin(tol));
  CHECK(*std::min_element(x.begin(), x.end()) >= 1);
  CHECK(*std::max_element(x.begin(), x.end()) <= 10000);
  // Log-linear: the geometric midpoint of [10, 100] (31.6) is at p = 0.625; a linear
  // interpolation would put it at p = 0.5 + 0.25 x 21.6/90 = 0.56.
  CHECK(fraction_below(std::sqrt(10.0 * 100.0)) == Approx(0.625).margin(tol));
  // Between a zero and a positive quantile: linear (0..10 over p 0..1/2: 5 at p = 1/4).
  const models::Distribution z = read_dist("{dist: empirical, quantiles: [0, 10, 20]}", models::ValueKind::Count);
  sim::RngStream rz(2, 0, "empirical");
  int below = 0;
  for (int i = 0; i < n; ++i) below += z.sample(rz) <= 5;
  CHECK(static_cast<double>(below) / n == Approx(0.25).margin(tol));
  // Equal neighbours: a point mass of their probability.
  const models::Distribution flat = read_dist("{dist: empirical, quantiles: [3s, 3s, 3s, 9s]}");
  sim::RngStream rf(3, 0, "empirical");
  int at3 = 0;
  for (int i = 0; i < n; ++i) at3 += flat.sample(rf) == 3;
  CHECK(static_cast<double>(at3) / n == Approx(2.0 / 3).margin(tol));
}

TEST_CASE("empirical: bad quantiles are refused", "[unit][distribution]") {
  auto code = [](const std::string& yaml) { return test::config_error([&] { read_dist(yaml); }).code(); };
  CHECK(code("{dist: empirical}") == ErrorCode::MissingKey);
  CHECK(code("{dist: empirical, quantiles: [1s]}") == ErrorCode::WrongType);
  CHECK(code("{dist: empirical, quantiles: 1s}") == ErrorCode::WrongType);
  CHECK(code("{dist: empirical, quantiles: [1s, 5s, 4s]}") == ErrorCode::OutOfRange);
  CHECK(code("{dist: empirical, quantiles: [1, 5]}") == ErrorCode::BadUnit);  // durations carry a unit
  CHECK(code("{dist: empirical, quantiles: [1s, 5s], mean: 2s}") == ErrorCode::Conflict);
  CHECK(code("{dist: empirical, quantiles: [1s, 5s], min: 2s}") == ErrorCode::Conflict);
  CHECK(code("{dist: lognormal, median: 1h, sigma: 1, quantiles: [1s, 2s]}") == ErrorCode::Conflict);
  // A generator's gpu_milli as an empirical distribution must stay inside 1..1000.
  CHECK(error_of("    - {name: g, count: 5, arrival: 1m, gpus: 1, duration: 1h, gpu_milli: {dist: empirical, quantiles: "
                 "[100, 2000]}}\n")
            .code() == ErrorCode::OutOfRange);
}

TEST_CASE("WeekRate::advance inverts the cumulative rate", "[unit][rate]") {
  std::vector<double> r(168, 0.0);
  r[5] = 2;  // Monday 05:00-06:00 only, 2 jobs/hour
  const models::WeekRate w = models::WeekRate::from_hours(r.data(), r.size());
  CHECK(w.per_week == 2);
  CHECK(w.advance(sim::SimTime::zero(), 1).ns() == 5 * HOUR_NS + HOUR_NS / 2);
  CHECK(w.advance(sim::SimTime::zero(), 2).ns() == 6 * HOUR_NS);  // the first time it is reached
  CHECK(w.advance(sim::SimTime::zero(), 2.5).ns() == sim::WEEK_NS + 5 * HOUR_NS + HOUR_NS / 4);
  CHECK(w.advance(sim::SimTime::from_ns(5 * HOUR_NS + HOUR_NS / 2), 0.5).ns() == 5 * HOUR_NS + 3 * HOUR_NS / 4);
  CHECK(w.advance(sim::SimTime::zero(), 2 * 1000 + 1).ns() == 1000 * sim::WEEK_NS + 5 * HOUR_NS + HOUR_NS / 2);
  CHECK(w.advance(sim::SimTime::from_ns(7), 0).ns() == 7);
  CHECK(w.expected_before(sim::SimTime::from_ns(3 * sim::WEEK_NS + 5 * HOUR_NS + HOUR_NS / 2)) == 7);
  CHECK(w.advance(sim::SimTime::max() - sim::SimTime::from_ns(HOUR_NS), 1e9).is_max());
  // 24 values repeat every day.
  std::vector<double> day(24, 1.0);
  const models::WeekRate d = models::WeekRate::from_hours(day.data(), day.size());
  CHECK(d.per_week == 168);
  CHECK(d.advance(sim::SimTime::zero(), 30).ns() == 30 * HOUR_NS);
}

TEST_CASE("rate: jobs per hour of the week match the rates over many weeks", "[model][rate]") {
  const std::vector<double> r = week_rates();
  double per_week = 0;
  for (const double v : r) per_week += v;
  const int weeks = 300;
  const auto count = static_cast<std::int64_t>(per_week * (weeks + 1));
  const models::Scenario s = scenario_from_yaml(scenario("    - {name: g, count: " + std::to_string(count) +
                                                         ", rate: {per_hour: " + list(r) + "}, gpus: 1, duration: 1h}\n"));
  REQUIRE(s.workload.generators[0].rate);
  const std::vector<models::Job> jobs = models::expand_workload(s, 0);
  REQUIRE(jobs.size() == static_cast<std::size_t>(count));
  REQUIRE(jobs.back().submit.ns() > weeks * sim::WEEK_NS);  // every bin of the first `weeks` weeks is complete
  std::array<double, 168> seen{};
  for (const models::Job& j : jobs)
    if (j.submit.ns() < weeks * sim::WEEK_NS) seen[static_cast<std::size_t>((j.submit.ns() % sim::WEEK_NS) / HOUR_NS)] += 1;
  // Poisson counts: mean = variance = rate x weeks. 4.5 standard deviations per bin
  // (168 bins: a chance of about 1e-3 that any bin of a correct sampler is outside).
  double chi2 = 0;
  for (std::size_t h = 0; h < 168; ++h) {
    const double expected = r[h] * weeks;
    INFO("hour of the week " << h);
    if (expected == 0) {
      CHECK(seen[h] == 0);
      continue;
    }
    CHECK(std::fabs(seen[h] - expected) <= 4.5 * std::sqrt(expected));
    chi2 += (seen[h] - expected) * (seen[h] - expected) / expected;
  }
  // 162 bins with a rate: chi-square with 162 degrees of freedom, mean 162, sd 18; 5 sd.
  CHECK(chi2 < 162 + 5 * 18);
  for (std::size_t i = 1; i < jobs.size(); ++i) REQUIRE(jobs[i - 1].submit <= jobs[i].submit);
}

TEST_CASE("rate: 24 values are every day alike, and scale multiplies exactly", "[model][rate]") {
  std::vector<double> day(24);
  for (int h = 0; h < 24; ++h) day[static_cast<std::size_t>(h)] = 1 + h % 5;
  std::vector<double> week(168), doubled(24);
  for (int h = 0; h < 168; ++h) week[static_cast<std::size_t>(h)] = day[static_cast<std::size_t>(h % 24)];
  for (int h = 0; h < 24; ++h) doubled[static_cast<std::size_t>(h)] = 2 * day[static_cast<std::size_t>(h)];
  auto submits = [](const std::string& rate) {
    const models::Scenario s =
        scenario_from_yaml(scenario("    - {name: g, count: 2000, rate: " + rate + ", gpus: 1, duration: 1h}\n"));
    std::vector<std::int64_t> t;
    for (const models::Job& j : models::expand_workload(s, 0)) t.push_back(j.submit.ns());
    return t;
  };
  const auto a = submits("{per_hour: " + list(day) + "}");
  CHECK(a == submits("{per_hour: " + list(week) + "}"));
  CHECK(submits("{per_hour: " + list(doubled) + "}") == submits("{per_hour: " + list(day) + ", scale: 2}"));
  // A shared profile through an alias, each generator its share.
  const models::Scenario s = scenario_from_yaml(scenario(
      "    - {name: a, count: 10, rate: {per_hour: &p " + list(day) + ", scale: 0.25}, gpus: 1, duration: 1h}\n"
      "    - {name: b, count: 10, rate: {per_hour: *p, scale: 0.75}, gpus: 1, duration: 1h}\n"));
  CHECK(s.workload.generators[0].rate->per_week == Approx(0.25 * 7 * 70));
  CHECK(s.workload.generators[1].rate->per_week == Approx(0.75 * 7 * 70));
}

TEST_CASE("rate: bad rates and conflicts are refused", "[unit][rate]") {
  const std::string tail = ", gpus: 1, duration: 1h}\n";
  const std::string ok = list(std::vector<double>(24, 1.0));
  CHECK(error_of("    - {name: g, count: 5, rate: {per_hour: [1, 2, 3]}" + tail).code() == ErrorCode::WrongType);
  CHECK(error_of("    - {name: g, count: 5, rate: {per_hour: 3}" + tail).code() == ErrorCode::WrongType);
  CHECK(error_of("    - {name: g, count: 5, rate: {per_hour: " + list(std::vector<double>(24, 0.0)) + "}" + tail).code() ==
        ErrorCode::OutOfRange);
  std::vector<double> negative(168, 1.0);
  negative[100] = -1;
  CHECK(error_of("    - {name: g, count: 5, rate: {per_hour: " + list(negative) + "}" + tail).code() == ErrorCode::OutOfRange);
  CHECK(error_of("    - {name: g, count: 5, rate: {per_hour: " + ok + ", scale: 0}" + tail).code() == ErrorCode::OutOfRange);
  CHECK(error_of("    - {name: g, count: 5, rate: {per_hour: " + ok + ", per_day: 3}" + tail).code() == ErrorCode::UnknownKey);
  CHECK(error_of("    - {name: g, count: 5, rate: {scale: 2}" + tail).code() == ErrorCode::MissingKey);
  const ConfigError both = error_of("    - {name: g, count: 5, arrival: 1m, rate: {per_hour: " + ok + "}" + tail);
  CHECK(both.code() == ErrorCode::Conflict);
  CHECK(both.key_path() == "workload.generators[0].rate");
  const ConfigError active =
      error_of("    - {name: g, count: 5, rate: {per_hour: " + ok + "}, active: {days: weekdays}" + tail);
  CHECK(active.code() == ErrorCode::Conflict);
  CHECK(active.key_path() == "workload.generators[0].active");
  const ConfigError neither = error_of("    - {name: g, count: 5" + tail);
  CHECK(neither.code() == ErrorCode::MissingKey);
  CHECK(neither.key_path() == "workload.generators[0]");
}

TEST_CASE("end: a generator stops at its end, its count a cap", "[model][rate]") {
  // 10 jobs/hour every hour for 100 h: a Poisson count of mean 1000 (sd 31.6), all before
  // the end; the cap of 5000 is not reached.
  const models::Scenario s = scenario_from_yaml(
      scenario("    - {name: g, count: 5000, end: 100h, rate: {per_hour: " + list(std::vector<double>(24, 10.0)) +
               "}, gpus: 1, duration: 1h}\n"));
  const std::vector<models::Job> jobs = models::expand_workload(s, 0);
  CHECK(std::fabs(static_cast<double>(jobs.size()) - 1000) <= 5 * 31.7);
  CHECK(jobs.back().submit < sim::hours(100));
  // The same draws as without the end, cut there.
  const models::Scenario open = scenario_from_yaml(
      scenario("    - {name: g, count: 5000, rate: {per_hour: " + list(std::vector<double>(24, 10.0)) +
               "}, gpus: 1, duration: 1h}\n"));
  const std::vector<models::Job> all = models::expand_workload(open, 0);
  REQUIRE(all.size() == 5000);
  CHECK(all[jobs.size()].submit >= sim::hours(100));
  CHECK(all[jobs.size() - 1].submit == jobs.back().submit);
  // With arrival: the same; the count still caps.
  CHECK(models::expand_workload(scenario_from_yaml(scenario("    - {name: g, count: 7, end: 100h, arrival: 1h, gpus: 1, "
                                                            "duration: 1h}\n")),
                                0)
            .size() == 7);
  CHECK(models::expand_workload(scenario_from_yaml(scenario("    - {name: g, count: 700, end: 100h, arrival: 1h, gpus: 1, "
                                                            "duration: 1h}\n")),
                                0)
            .size() == 99);  // 1 h, 2 h, ..., 99 h: the 100th is at the end
  CHECK(error_of("    - {name: g, count: 5, start: 2h, end: 1h, arrival: 1m, gpus: 1, duration: 1h}\n").code() ==
        ErrorCode::OutOfRange);
}

TEST_CASE("team: a choice draws each job's team with its weight, from its own stream", "[model][team-choice]") {
  const std::string body = "arrival: {dist: exponential, mean: 1m}, gpus: {choice: [1, 2, 4]}, "
                           "duration: {dist: lognormal, median: 1h, sigma: 1}";
  const models::Scenario s = scenario_from_yaml(
      scenario("    - {name: g, count: 40000, " + body + ", team: {choice: [b-team, a-team], weights: [1, 3]}}\n") +
      "budgets:\n  - {team: a-team, limit: $1000, period: 30d}\n");
  CHECK(s.workload.teams == std::vector<std::string>{"a-team", "b-team"});
  const std::vector<models::Job> jobs = models::expand_workload(s, 0);
  double a = 0;
  for (const models::Job& j : jobs) {
    REQUIRE(j.team >= 0);
    a += s.workload.team_name(j.team) == "a-team";
  }
  // Binomial(40000, 3/4): standard deviation sqrt(n p (1-p)) = 86.6; 5 of them.
  CHECK(std::fabs(a - 30000) <= 5 * 86.6);
  // The other draws are those of the same generator with a single team.
  const models::Scenario single = scenario_from_yaml(scenario("    - {name: g, count: 40000, " + body + ", team: a-team}\n"));
  const std::vector<models::Job> same = models::expand_workload(single, 0);
  REQUIRE(same.size() == jobs.size());
  for (std::size_t i = 0; i < jobs.size(); i += 997) {
    CHECK(same[i].submit == jobs[i].submit);
    CHECK(same[i].gpus == jobs[i].gpus);
    CHECK(same[i].duration == jobs[i].duration);
  }
}

TEST_CASE("team: a bad choice is refused", "[unit][team-choice]") {
  const std::string g = "    - {name: g, count: 5, arrival: 1m, gpus: 1, duration: 1h, team: ";
  CHECK(error_of(g + "{choice: []}}\n").code() == ErrorCode::WrongType);
  CHECK(error_of(g + "{choice: [a, a]}}\n").code() == ErrorCode::Duplicate);
  CHECK(error_of(g + "{choice: [a, b], weights: [1]}}\n").code() == ErrorCode::Conflict);
  CHECK(error_of(g + "{choice: [a, b], weights: [0, 0]}}\n").code() == ErrorCode::OutOfRange);
  CHECK(error_of(g + "{choice: [a, b], weights: [1, -1]}}\n").code() == ErrorCode::OutOfRange);
  CHECK(error_of(g + "{choise: [a]}}\n").code() == ErrorCode::UnknownKey);
  CHECK(error_of(g + "{weights: [1]}}\n").code() == ErrorCode::MissingKey);
}
