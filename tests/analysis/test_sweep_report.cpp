// A sweep's main effects (analysis/sweep_report.hpp), computed by hand on a 2 x 3 table.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "analysis/sweep_report.hpp"

using namespace gcsim::analysis;

TEST_CASE("a key's main effect is the range of the metric's means over its values, the others averaged", "[unit][sweep]") {
  SweepTable t;
  t.replications = 1;
  t.keys = {"a", "b"};
  t.metrics = {"total_cost_usd", "jct_mean_s"};
  // cost = 10 a + b (b = 0, 1, 5); jct = 100 / a, and NaN where b = 5 (nothing completed).
  for (const int a : {1, 2})
    for (const int b : {0, 1, 5}) {
      SweepTable::Point p;
      p.values = {std::to_string(a), std::to_string(b)};
      p.mean = {10.0 * a + b, b == 5 ? std::nan("") : 100.0 / a};
      p.sd = {0, 0};
      p.ci95 = {0, 0};
      t.points.push_back(p);
    }
  const auto e = main_effects(t);
  REQUIRE(e.size() == 2);
  CHECK(e[0].values == std::vector<std::string>{"1", "2"});
  CHECK(e[1].values == std::vector<std::string>{"0", "1", "5"});
  // a: cost means (10 + 11 + 15)/3 = 12 and (20 + 21 + 25)/3 = 22: range 10.
  CHECK(e[0].means[0][0] == Approx(12.0));
  CHECK(e[0].means[0][1] == Approx(22.0));
  CHECK(e[0].range[0] == Approx(10.0));
  // b: cost means 15, 16, 20: range 5.
  CHECK(e[1].range[0] == Approx(5.0));
  // jct: a moves it from 100 to 50 (the NaN points left out); b not at all, and b = 5 has none.
  CHECK(e[0].range[1] == Approx(50.0));
  CHECK(e[1].range[1] == Approx(0.0));
  CHECK(std::isnan(e[1].means[1][2]));
  // The text ranks the key that moves a figure most first.
  const std::string text = format_main_effects(t, e);
  CHECK(text.find("total_cost_usd:\n    a moves it by $10.00") != std::string::npos);
  CHECK(text.find("jct_mean_s:\n    a moves it by 50.0s") != std::string::npos);
  CHECK(text.find("5: n/a") != std::string::npos);
}
