// The data-side decisions of the plots (analysis/plot_scales.hpp): the colours of overlaid
// lines, when an axis goes logarithmic, tick steps on count and money axes, and log time ticks.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/plot_scales.hpp"

using namespace gcsim::analysis;

TEST_CASE("twelve strategies get twelve different colours, and sixty different line styles", "[unit][plot]") {
  std::set<std::string> colours;
  for (std::size_t i = 0; i < 12; ++i) {
    const std::string c = line_colour(i);
    CHECK(c.size() == 7);
    CHECK(c[0] == '#');
    colours.insert(c);
  }
  CHECK(colours.size() == 12);
  CHECK(LINE_COLOURS >= 12);
  std::set<std::pair<std::string, int>> styles;
  for (std::size_t i = 0; i < 60; ++i) styles.insert({line_colour(i), line_dash(i)});
  CHECK(styles.size() == 60);
}

TEST_CASE("a log axis when the positive values span more than a factor of 100", "[unit][plot]") {
  CHECK_FALSE(wants_log_axis({}));
  CHECK_FALSE(wants_log_axis({{0, 0, 0}}));
  CHECK_FALSE(wants_log_axis({{5}}));
  CHECK_FALSE(wants_log_axis({{1, 50}, {100}}));                 // exactly 100: linear
  CHECK(wants_log_axis({{1, 50}, {100.5}}));                     // across samples
  CHECK(wants_log_axis({{0, 0, 3, 600}}));                       // zeros take no part
  CHECK_FALSE(wants_log_axis({{0, 0, 300, 600}}));
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_FALSE(wants_log_axis({{-1e6, 1, 2, inf, std::nan("")}}));  // negatives, inf and NaN ignored
}

TEST_CASE("tick steps: 1, 2 or 5 x 10^k, never below one on a count axis", "[unit][plot]") {
  CHECK(tick_step(64, 5, true) == 20);
  CHECK(tick_step(2, 5, true) == 1);  // not 0.5: no half-GPU ticks
  CHECK(tick_step(2, 5, false) == 0.5);
  CHECK(tick_step(1, 6, true) == 1);
  CHECK(tick_step(800, 8, true) == 100);
  CHECK(tick_step(528568.32, 6, false) == 100000);
  CHECK(tick_step(0, 5, true) == 1);
  CHECK(tick_step(std::nan(""), 5, false) == 1);
}

TEST_CASE("money ticks carry thousands separators and reach the top", "[unit][plot]") {
  const std::vector<Tick> t = money_ticks(528568.32, 6);
  REQUIRE(t.size() == 7);
  CHECK(t[0].label == "$0");
  CHECK(t[1].label == "$100,000");
  CHECK(t[6].value == 600000);
  CHECK(t[6].label == "$600,000");
  const std::vector<Tick> small = money_ticks(1.2, 6);  // cents when the step is
  REQUIRE(small.size() == 7);
  CHECK(small[1].label == "$0.20");
}

TEST_CASE("count ticks are whole numbers, thousands separated", "[unit][plot]") {
  const std::vector<Tick> gpus = count_ticks(2, 5);  // a 2-GPU cluster: 0, 1, 2
  REQUIRE(gpus.size() == 3);
  for (std::size_t i = 0; i < gpus.size(); ++i) CHECK(gpus[i].value == static_cast<double>(i));
  CHECK(gpus[2].label == "2");
  const std::vector<Tick> jobs = count_ticks(4800, 5);
  REQUIRE(jobs.size() == 6);
  CHECK(jobs[5].label == "5,000");
}

TEST_CASE("a log time axis is ticked at durations people use", "[unit][plot]") {
  std::vector<std::string> labels;
  for (const Tick& t : log_time_ticks(30, 4 * 86400.0)) labels.push_back(t.label);
  CHECK(labels == std::vector<std::string>{"1m", "10m", "1h", "6h", "1d"});
  CHECK(log_time_ticks(60, 60).size() == 1);
}
