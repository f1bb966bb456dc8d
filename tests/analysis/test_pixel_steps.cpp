// Step functions reduced to pixel columns (analysis/pixel_steps.hpp), against cases worked
// out by hand: exact equalities, since a min or a max of the values given is one of them.

#include <catch2/catch.hpp>

#include <cstddef>
#include <vector>

#include "analysis/pixel_steps.hpp"

using namespace gcsim::analysis;

TEST_CASE("a constant total with 200,000 changes stays exactly constant", "[unit][plot]") {
  // 200,000 rows (a change of the allocated GPUs each time) at irregular times, the total
  // always 512 GPUs: every column is exactly 512, no dip at a column edge.
  std::vector<StepPoint> total;
  for (int i = 0; i < 200000; ++i) total.push_back({0.4321 * i + 1e-3 * (i % 7), 512.0});
  const double end_s = 0.4321 * 200000;
  const std::vector<PixelColumn> cols = reduce_steps_to_pixels(total, 0.0, end_s, 900);
  REQUIRE(cols.size() == 900);
  for (const PixelColumn& c : cols) {
    INFO(c.from_s);
    CHECK(c.has_value);
    CHECK(c.min == 512.0);
    CHECK(c.max == 512.0);
  }
}

TEST_CASE("a spike one tick long shows in its pixel and nowhere else", "[unit][plot]") {
  // 900 columns over an hour are 4 s wide; 12 GPUs for 1 ns at t = 1000 s: column 250.
  const std::vector<StepPoint> steps = {{0, 4}, {1000.0, 12}, {1000.0 + 1e-9, 4}};
  const std::vector<PixelColumn> cols = reduce_steps_to_pixels(steps, 0.0, 3600.0, 900);
  REQUIRE(cols.size() == 900);
  CHECK(cols[250].from_s == 1000.0);
  for (std::size_t k = 0; k < cols.size(); ++k) {
    INFO(k);
    CHECK(cols[k].has_value);
    CHECK(cols[k].min == 4.0);
    CHECK(cols[k].max == (k == 250 ? 12.0 : 4.0));
  }
}

TEST_CASE("pixel columns: empty and one-point series", "[unit][plot]") {
  CHECK(reduce_steps_to_pixels({}, 0.0, 100.0, 0).empty());
  CHECK(reduce_steps_to_pixels({{0, 1}}, 0.0, 0.0, 10).empty());    // no time span
  CHECK(reduce_steps_to_pixels({{0, 1}}, 10.0, 5.0, 10).empty());   // end before start
  const std::vector<PixelColumn> none = reduce_steps_to_pixels({}, 0.0, 100.0, 10);
  REQUIRE(none.size() == 10);
  for (const PixelColumn& c : none) CHECK_FALSE(c.has_value);
  // One step at t = 10 over [0, 100] in 10 columns: undefined in [0, 10), then 3 to the end.
  const std::vector<PixelColumn> one = reduce_steps_to_pixels({{10, 3}}, 0.0, 100.0, 10);
  REQUIRE(one.size() == 10);
  CHECK_FALSE(one[0].has_value);
  for (std::size_t k = 1; k < 10; ++k) {
    INFO(k);
    CHECK(one[k].has_value);
    CHECK(one[k].min == 3.0);
    CHECK(one[k].max == 3.0);
  }
}

TEST_CASE("pixel columns: edges, the last step and steps held for no time", "[unit][plot]") {
  SECTION("columns tile [start, end] exactly") {
    const std::vector<PixelColumn> cols = reduce_steps_to_pixels({{0, 1}}, 0.0, 100.0, 3);
    REQUIRE(cols.size() == 3);
    CHECK(cols.front().from_s == 0.0);
    CHECK(cols[0].to_s == cols[1].from_s);
    CHECK(cols[1].to_s == cols[2].from_s);
    CHECK(cols.back().to_s == 100.0);
  }
  SECTION("a step ending on a column edge stays out of the next column") {
    const std::vector<PixelColumn> cols = reduce_steps_to_pixels({{0, 1}, {10, 2}}, 0.0, 100.0, 10);
    CHECK(cols[0].min == 1.0);
    CHECK(cols[0].max == 1.0);
    CHECK(cols[1].min == 2.0);
    CHECK(cols[1].max == 2.0);
  }
  SECTION("the last step is held to the end") {
    const std::vector<PixelColumn> cols = reduce_steps_to_pixels({{0, 1}, {95, 7}}, 0.0, 100.0, 10);
    for (std::size_t k = 0; k < 9; ++k) CHECK(cols[k].max == 1.0);
    CHECK(cols[9].min == 1.0);
    CHECK(cols[9].max == 7.0);
  }
  SECTION("a step at the end itself, or replaced at its own time, is held for no time") {
    const std::vector<PixelColumn> at_end = reduce_steps_to_pixels({{0, 1}, {100, 9}}, 0.0, 100.0, 10);
    CHECK(at_end[9].max == 1.0);
    const std::vector<PixelColumn> replaced = reduce_steps_to_pixels({{0, 1}, {50, 9}, {50, 2}}, 0.0, 100.0, 10);
    CHECK(replaced[4].max == 1.0);
    CHECK(replaced[5].min == 2.0);
    CHECK(replaced[5].max == 2.0);
  }
  SECTION("steps before the start count from the start; those after the end not at all") {
    const std::vector<PixelColumn> cols = reduce_steps_to_pixels({{0, 5}, {150, 6}, {250, 8}}, 100.0, 200.0, 2);
    REQUIRE(cols.size() == 2);
    CHECK(cols[0].from_s == 100.0);
    CHECK(cols[0].min == 5.0);
    CHECK(cols[0].max == 5.0);
    CHECK(cols[1].min == 6.0);
    CHECK(cols[1].max == 6.0);
  }
}

TEST_CASE("instants counted per pixel column", "[unit][plot]") {
  // [0, 100] in 10 columns of 10 s; 100 itself is in the last column; out-of-range dropped.
  const std::vector<double> times = {55, 10, 12, 100, 150, -1};
  const std::vector<PixelMark> cols = marks_per_pixel(times, 0.0, 100.0, 10);
  REQUIRE(cols.size() == 3);
  CHECK(cols[0].from_s == 10.0);
  CHECK(cols[0].to_s == 20.0);
  CHECK(cols[0].count == 2);
  CHECK(cols[1].from_s == 50.0);
  CHECK(cols[1].count == 1);
  CHECK(cols[2].from_s == 90.0);
  CHECK(cols[2].to_s == 100.0);
  CHECK(cols[2].count == 1);
  CHECK(marks_per_pixel({}, 0.0, 100.0, 10).empty());
  CHECK(marks_per_pixel(times, 0.0, 0.0, 10).empty());
}

TEST_CASE("pixel columns: the time-weighted mean of each column", "[unit][plot]") {
  // Two columns of 10 s. Column 0: undefined for 2 s (the function starts at 2 s), then 4
  // for 3 s and 1 for 5 s: (4 x 3 + 1 x 5) / 8 over the 8 s it is defined.
  // Column 1: 1 for 5 s then 0 for 5 s: 0.5. A team's share flipping within a pixel reads as
  // its average, not as the max (1) of a barcode.
  const std::vector<StepPoint> steps = {{2, 4}, {5, 1}, {15, 0}};
  const std::vector<PixelColumn> cols = reduce_steps_to_pixels(steps, 0.0, 20.0, 2);
  REQUIRE(cols.size() == 2);
  CHECK(cols[0].mean == Approx(17.0 / 8.0));
  CHECK(cols[0].min == 1.0);
  CHECK(cols[0].max == 4.0);
  CHECK(cols[1].mean == Approx(0.5));
  // A constant is its own mean, exactly.
  const std::vector<PixelColumn> flat = reduce_steps_to_pixels({{0, 3}, {7.3, 3}}, 0.0, 20.0, 3);
  for (const PixelColumn& c : flat) CHECK(c.mean == 3.0);
}
