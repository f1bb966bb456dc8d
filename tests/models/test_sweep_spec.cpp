// Sweep files (models/config/sweep_spec.hpp): grid, zip, random and Latin-hypercube
// expansion, and every bad sweep refused at its line and column.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "models/config/sweep_spec.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using gcsim::test::config_error;

namespace {

models::SweepSpec sweep(const std::string& yaml) { return models::read_sweep(config::load_yaml_string(yaml, "dir/s.yaml")); }

std::vector<std::vector<std::string>> values(const std::vector<models::SweepPoint>& points) {
  std::vector<std::vector<std::string>> out;
  for (const auto& p : points) out.push_back(p.values);
  return out;
}

}  // namespace

TEST_CASE("a grid is every combination, the last key fastest, and zip varies its lists together", "[unit][sweep]") {
  const models::SweepSpec s = sweep(R"(base: ../q.yaml
replications: 5
vary:
  grid:
    cluster.node_types[0].count: [2, 4]
    scheduler.policy: [fifo, sjf, {policy: backfill, mode: easy}]
  zip:
    seed: [1, 2]
    horizon: [1d, 2d]
metrics: [total_cost_usd, jct_mean_s]
)");
  CHECK(s.base == "dir/../q.yaml");  // relative to the sweep file
  CHECK(s.replications == 5);
  CHECK(models::sweep_keys(s) == std::vector<std::string>{"cluster.node_types[0].count", "scheduler.policy", "seed", "horizon"});
  const auto points = models::expand_sweep(s);
  REQUIRE(points.size() == 2 * 3 * 2);
  const auto v = values(points);
  CHECK(v[0] == std::vector<std::string>{"2", "fifo", "1", "1d"});
  CHECK(v[1] == std::vector<std::string>{"2", "fifo", "2", "2d"});
  CHECK(v[2] == std::vector<std::string>{"2", "sjf", "1", "1d"});
  CHECK(v[4] == std::vector<std::string>{"2", "{policy: backfill, mode: easy}", "1", "1d"});
  CHECK(v[6] == std::vector<std::string>{"4", "fifo", "1", "1d"});
  CHECK(v[11] == std::vector<std::string>{"4", "{policy: backfill, mode: easy}", "2", "2d"});
  // The settings carry the sweep file's positions: line 6 holds the policy list.
  CHECK(points[4].settings[1].value.is_map());
  CHECK(points[4].settings[1].value.mark().file == "dir/s.yaml");
  CHECK(points[4].settings[1].value.mark().line == 6);
  CHECK(points[0].settings[0].path == "cluster.node_types[0].count");
  REQUIRE(s.metrics.size() == 2);
  CHECK(s.metrics[1].first == "jct_mean_s");
  CHECK(s.metrics[1].second.line == 10);
}

TEST_CASE("random samples stay in range, repeat for a seed, and each range draws from its own stream", "[unit][sweep]") {
  const auto draw = [](const std::string& seed, const std::string& extra) {
    return models::expand_sweep(sweep("base: q.yaml\nvary:\n  random:\n    samples: 200\n    seed: " + seed +
                                      "\n    ranges:\n      cluster.node_types[0].count: [2, 5]\n"
                                      "      workload.generators[0].count: [0.5, 1.5]\n" + extra));
  };
  const auto a = draw("7", "");
  REQUIRE(a.size() == 200);
  std::set<std::string> counts;
  for (const auto& p : a) {
    counts.insert(p.values[0]);
    const double x = std::stod(p.values[1]);
    CHECK(x >= 0.5);
    CHECK(x < 1.5);
  }
  // Whole numbers 2..5 when both bounds are: all four of them in 200 draws (a miss has
  // probability 4 * (3/4)^200, about 1e-25).
  CHECK(counts == std::set<std::string>{"2", "3", "4", "5"});
  CHECK(values(draw("7", "")) == values(a));
  CHECK(values(draw("8", "")) != values(a));
  // A third range changes neither of the first two ranges' draws.
  const auto b = draw("7", "      seed: [0, 1000]\n");
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(b[i].values[0] == a[i].values[0]);
    CHECK(b[i].values[1] == a[i].values[1]);
  }
}

TEST_CASE("a Latin-hypercube sample puts one point in each of n strata of every range", "[unit][sweep]") {
  const int n = 50;
  const auto points = models::expand_sweep(sweep("base: q.yaml\nvary:\n  latin_hypercube:\n    samples: " + std::to_string(n) +
                                                 "\n    seed: 3\n    ranges:\n      a: [0.0, 10.0]\n      b: [100.0, 200.0]\n"));
  REQUIRE(points.size() == static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < 2; ++k) {
    const double lo = k == 0 ? 0 : 100, hi = k == 0 ? 10 : 200;
    std::set<int> strata;
    for (const auto& p : points) strata.insert(static_cast<int>(std::floor((std::stod(p.values[k]) - lo) / (hi - lo) * n)));
    CHECK(strata.size() == static_cast<std::size_t>(n));  // every stratum once
    CHECK(*strata.begin() == 0);
    CHECK(*strata.rbegin() == n - 1);
  }
  // A plain random sample of 50 almost surely leaves strata empty (the chance it does not
  // is 50!/50^50, about 3e-21): the check above tells the two apart.
  const auto random = models::expand_sweep(sweep("base: q.yaml\nvary:\n  random:\n    samples: 50\n    seed: 3\n"
                                                 "    ranges:\n      b: [100.0, 200.0]\n"));
  std::set<int> strata;
  for (const auto& p : random) strata.insert(static_cast<int>(std::floor((std::stod(p.values[0]) - 100) / 100 * n)));
  CHECK(strata.size() < static_cast<std::size_t>(n));
}

TEST_CASE("a bad sweep file is refused at its line and column", "[unit][sweep]") {
  const auto error_of = [](const std::string& yaml) { return config_error([&] { sweep(yaml); }); };
  ConfigError e = error_of("base: q.yaml\nvary:\n  zip:\n    a: [1, 2]\n    b: [1, 2, 3]\n");
  CHECK(e.code() == ErrorCode::Conflict);
  CHECK(e.mark().line == 5);
  CHECK_THAT(e.detail(), Catch::Contains("'b' has 3 values, 'a' 2"));

  e = error_of("base: q.yaml\nvary:\n  grid: {a: [1]}\n  zip: {a: [2]}\n");
  CHECK(e.code() == ErrorCode::Duplicate);
  CHECK(e.mark().line == 4);

  e = error_of("base: q.yaml\nvary:\n  grid:\n    a..b: [1]\n");
  CHECK(e.code() == ErrorCode::Syntax);
  CHECK(e.mark().line == 4);
  CHECK(e.mark().column == 7);  // the second '.'

  CHECK(error_of("base: q.yaml\nvary:\n  grid: {a: []}\n").code() == ErrorCode::WrongType);
  CHECK(error_of("base: q.yaml\nvary:\n  grid: {a: 3}\n").code() == ErrorCode::WrongType);
  e = error_of("base: q.yaml\nvary:\n  gird: {a: [1]}\n");
  CHECK(e.code() == ErrorCode::UnknownKey);
  CHECK_THAT(e.detail(), Catch::Contains("did you mean 'grid'"));
  CHECK(error_of("base: q.yaml\nvary: {}\n").code() == ErrorCode::MissingKey);
  CHECK(error_of("vary:\n  grid: {a: [1]}\n").code() == ErrorCode::MissingKey);
  e = error_of("base: q.yaml\nvary:\n  random: {samples: 3, ranges: {a: [5, 1]}}\n");
  CHECK(e.code() == ErrorCode::OutOfRange);
  CHECK(error_of("base: q.yaml\nvary:\n  random: {samples: 3, ranges: {a: [1, 2h]}}\n").code() == ErrorCode::WrongType);
  CHECK(error_of("base: q.yaml\nvary:\n  random: {samples: 0, ranges: {a: [1, 2]}}\n").code() == ErrorCode::OutOfRange);
  CHECK(error_of("base: q.yaml\nreplications: 0\nvary:\n  grid: {a: [1]}\n").code() == ErrorCode::OutOfRange);
  // Adaptive replications: max below min, a missing rule, a bad fraction.
  e = error_of("base: q.yaml\nreplications: {min: 5, max: 3, until: {metric: m, ci95_relative: 0.1}}\nvary:\n  grid: {a: [1]}\n");
  CHECK(e.code() == ErrorCode::OutOfRange);
  CHECK_THAT(e.detail(), Catch::Contains("max (3) is below min (5)"));
  CHECK(error_of("base: q.yaml\nreplications: {min: 5, max: 30}\nvary:\n  grid: {a: [1]}\n").code() == ErrorCode::MissingKey);
  CHECK(error_of("base: q.yaml\nreplications: {min: 5, max: 30, until: {metric: m, ci95_relative: 0}}\nvary:\n  grid: {a: [1]}\n")
            .code() == ErrorCode::OutOfRange);
  const models::SweepSpec adaptive =
      sweep("base: q.yaml\nreplications: {min: 5, max: 30, until: {metric: m, ci95_relative: 0.02}}\nvary:\n  grid: {a: [1]}\n");
  CHECK(adaptive.replications == 5);
  CHECK(adaptive.max_replications == 30);
  REQUIRE(adaptive.until);
  CHECK(adaptive.until->metric == "m");
  CHECK(adaptive.until->ci95_relative == 0.02);
  CHECK(adaptive.until->mark.line == 2);
  e = error_of("base: q.yaml\nvary:\n  grid: {a: [1]}\nmetrics: [jct_mean_s, jct_mean_s]\n");
  CHECK(e.code() == ErrorCode::Duplicate);
  // Too many points: refused at `vary` before anything is built.
  e = config_error([] {
    models::expand_sweep(sweep("base: q.yaml\nvary:\n  random: {samples: 1000000, ranges: {a: [1, 2]}}\n"
                               "  latin_hypercube: {samples: 1000, ranges: {b: [1, 2]}}\n"));
  });
  CHECK(e.code() == ErrorCode::OutOfRange);
  CHECK(e.mark().line == 3);
}

namespace {

// The rows of the first table after `heading` in docs/sweeps.md: key -> (type, default).
std::map<std::string, std::pair<std::string, std::string>> doc_table(const std::string& heading) {
  std::ifstream in(GCSIM_SOURCE_DIR "/docs/sweeps.md");
  std::string line;
  bool found = false, in_table = false;
  std::map<std::string, std::pair<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    if (!found) {
      found = line == heading;
      continue;
    }
    if (line.starts_with("| `")) {
      in_table = true;
      std::vector<std::string> cells;
      std::stringstream ss(line.substr(1));
      for (std::string cell; std::getline(ss, cell, '|');) {
        const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
        cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
      }
      REQUIRE(cells.size() >= 5);
      rows[cells[0].substr(1, cells[0].size() - 2)] = {cells[2], cells[3]};
    } else if (in_table && !line.starts_with("|")) {
      break;
    }
  }
  INFO(heading);
  REQUIRE(found);
  return rows;
}

void check_docs(const std::string& heading, gcsim::config::KeyTable keys) {
  const auto rows = doc_table(heading);
  INFO(heading);
  CHECK(rows.size() == keys.size());
  for (const gcsim::config::KeySpec& k : keys) {
    INFO(heading << ": " << k.name);
    const auto it = rows.find(std::string(k.name));
    REQUIRE(it != rows.end());
    CHECK(it->second.second == gcsim::config::default_text(k));
    CHECK_THAT(it->second.first, Catch::Contains(gcsim::config::range_text(k)));
  }
}

}  // namespace

TEST_CASE("docs/sweeps.md lists every sweep key with its default and range", "[unit][sweep][docs]") {
  check_docs("## The sweep file", models::SWEEP_KEYS);
  check_docs("### `vary`", models::SWEEP_VARY_KEYS);
  check_docs("### `random` and `latin_hypercube`", models::SWEEP_SAMPLE_KEYS);
  check_docs("### Adaptive replications", models::SWEEP_ADAPTIVE_KEYS);
  check_docs("| key of `until` | required | type | default | meaning |", models::SWEEP_UNTIL_KEYS);
}
