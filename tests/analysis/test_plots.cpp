// Plots: three non-empty PNG files from gnuplot, for a small run, a large one (pixel- and
// quantile-reduced paths), a spot run whose jobs never waited and an empty one; no
// temporary files left behind. Smoke tests ([smoke]) check that the files are drawn, not
// what they show; what the plots are given to show (the interruptions marked, the note on
// the waiting-time plot) is checked by the [unit] cases. The pixel reduction itself:
// test_pixel_steps.cpp.

#include <catch2/catch.hpp>

#include "support/scenario_support.hpp"
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string_view>
#include <string>

#include "analysis/plots.hpp"
#include "models/trace/schema.hpp"
#include "sim/errors.hpp"

namespace fs = std::filesystem;
using namespace gcsim::analysis;

namespace {


bool is_png(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8] = {};
  in.read(magic, 8);
  return in && std::string(magic, 8) == "\x89PNG\r\n\x1a\n";
}

void check_plots(const TraceData& d) {
  gcsim::test::TempDir dir;
  const std::vector<std::string> paths = write_plots(d, dir.path().string());
  REQUIRE(paths.size() == 3);
  for (const std::string& p : paths) {
    INFO(p);
    CHECK(fs::path(p).parent_path() == dir.path());
    CHECK(fs::file_size(p) > 0);
    CHECK(is_png(p));
  }
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    INFO(entry.path());
    CHECK(entry.path().extension() == ".png");
    ++files;
  }
  CHECK(files == 3);
}

}  // namespace

TEST_CASE("plots of a small run are three PNG files", "[smoke][plot][.slow]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  TraceData d;
  d.attrs.scenario_name = "it's_small";  // a quote and an underscore in titles
  d.attrs.end_s = 36000;
  d.attrs.horizon_s = 36000;
  d.nodes = {{0, "g4", "A100", 4, 8.0, 0, 36000, 80.0}, {1, "g4", "A100", 4, 8.0, 0, 36000, 80.0}};
  d.jobs = {{1, "J1", 0, 0, 7200, 4, 4, "g4", 0, 1, 16.0, JobStatus::Completed, {}, {}},
            {2, "J2", 0, 1800, 12600, 2, 2, "g4", 1, 1, 12.0, JobStatus::Completed, {}, {}},
            {4, "J4", 7200, 12600, nan, 4, 4, "g4", 1, 1, 52.0, JobStatus::Running, {}, {}},
            {5, "J5", 30000, nan, nan, 8, 0, "", -1, 0, 0.0, JobStatus::NeverStarted, {}, {}}};
  d.utilization = {{0, 4, 8}, {1800, 6, 8}, {12600, 8, 8}, {21600, 4, 8}};
  check_plots(d);
}

TEST_CASE("plots of a large run are reduced before plotting", "[smoke][plot][.slow]") {
  TraceData d;
  d.attrs.end_s = 30 * 86400.0;
  d.nodes = {{0, "n", "H100", 8, 30.0, 0, d.attrs.end_s, 30.0 * 720}};
  const int jobs = 30000;
  for (int i = 0; i < jobs; ++i) {
    const double start = i * 80.0 + 10.0;  // steps in time order: each job ends before the next starts
    const double submit = std::max(0.0, start - (i % 97) * 10.0);
    d.jobs.push_back({i, "", submit, start, start + 60, 1, 1, "n", 0, 1, 0.5 / 60, JobStatus::Completed, {}, {}});
    d.utilization.push_back({start, 1, 8});
    d.utilization.push_back({start + 60, 0, 8});
  }
  check_plots(d);
}

namespace {

// A spot run over 10 h: two nodes (8 and 4 GPUs); node 1 could not be supplied at t = 0,
// node 0 is taken at 2 h (notice 2 min before) and comes back at 2.5 h, node 1 (up from
// 1 h) is taken at 6 h. Every job started at its submission.
TraceData spot_run() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  TraceData d;
  d.attrs.scenario_name = "spot";
  d.attrs.end_s = 36000;
  d.attrs.horizon_s = 36000;
  for (std::string_view k : gcsim::trace::schema::EVENT_KINDS) d.event_kind_labels.emplace_back(k);
  const auto kind = [](std::string_view name) {
    const auto& kinds = gcsim::trace::schema::EVENT_KINDS;
    return static_cast<std::uint8_t>(std::find(kinds.begin(), kinds.end(), name) - kinds.begin());
  };
  d.nodes = {{0, "p", "A100", 8, 6.0, 0, 36000, 57.0}, {1, "q", "A100", 4, 3.0, 3600, 21600, 15.0}};
  d.events = {{0, -1, 1, kind("node_down")},     {3600, -1, 1, kind("node_up")},
              {7080, -1, 0, kind("notice")},     {7200, 1, 0, kind("stop")},
              {7200, -1, 0, kind("node_down")},  {9000, -1, 0, kind("node_up")},
              {21600, -1, 1, kind("node_down")}, {36000, -1, -1, kind("end_of_run")}};
  d.jobs = {{1, "J1", 0, 0, nan, 8, 8, "p", 0, 1, 40.0, JobStatus::Running, {}, {}},
            {2, "J2", 3600, 3600, 7200, 4, 4, "q", 1, 1, 3.0, JobStatus::Completed, {}, {}}};
  d.utilization = {{0, 8, 8},     {3600, 12, 12}, {7200, 4, 4},
                   {9000, 12, 12}, {9000, 4, 12},  {21600, 0, 8}};
  return d;
}

}  // namespace

TEST_CASE("spot interruptions: each node_down after t = 0, with the node's GPUs", "[unit][plot]") {
  const std::vector<Interruption> taken = spot_interruptions(spot_run());
  REQUIRE(taken.size() == 2);  // not the node missing from t = 0
  CHECK(taken[0].time_s == 7200.0);
  CHECK(taken[0].gpus == 8);
  CHECK(taken[1].time_s == 21600.0);
  CHECK(taken[1].gpus == 4);
  CHECK(spot_interruptions(TraceData{}).empty());
}

TEST_CASE("the waiting-time plot says when no job waited", "[unit][plot]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  TraceData d = spot_run();
  CHECK(wait_plot_note(d) == "no job waited");
  d.jobs.push_back({3, "J3", 30000, nan, nan, 8, 0, "", -1, 0, 0.0, JobStatus::NeverStarted, {}, {}});
  CHECK(wait_plot_note(d) == "no started job waited");
  d.jobs[1].start_s = 3601;  // one second of waiting: the CDF is drawn
  CHECK(wait_plot_note(d).empty());
  CHECK(wait_plot_note(TraceData{}) == "no job started");
  d.jobs = {d.jobs[2]};
  CHECK(wait_plot_note(d) == "no job started");
}

TEST_CASE("plots of a spot run whose jobs never waited", "[smoke][plot][.slow]") { check_plots(spot_run()); }

TEST_CASE("plots of an empty run still draw", "[smoke][plot][.slow]") {
  TraceData d;
  check_plots(d);
}

TEST_CASE("plots need an existing directory", "[unit][plot]") {
  CHECK_THROWS_AS(write_plots(TraceData{}, "/nonexistent/gcsim/plots"), gcsim::Error);
}

TEST_CASE("gnuplot_text: one quoted string whatever the text holds", "[unit][plot]") {
  CHECK(gnuplot_text("plain") == "'plain'");
  CHECK(gnuplot_text("it's") == "'it''s'");
  // A newline would end `set title` and start a command of the text's choosing.
  CHECK(gnuplot_text("a\nsystem 'x'\r") == "'a?system ''x''?'");
  CHECK(gnuplot_text(std::string("n\0l\x7f\t", 5)) == "'n?l?" "?'");
  // Valid UTF-8 is kept; a stray continuation byte, an overlong form and a surrogate are not.
  CHECK(gnuplot_text("caf\xc3\xa9 \xe2\x82\xac") == "'caf\xc3\xa9 \xe2\x82\xac'");
  CHECK(gnuplot_text("\x80x\xc0\xafy\xed\xa0\x80") == "'?x?" "?y?" "?" "?'");
  // At most 200 characters (a multi-byte character counts as one).
  const std::string long_text(300, 'a');
  CHECK(gnuplot_text(long_text) == "'" + std::string(200, 'a') + "...'");
  std::string euros;
  for (int i = 0; i < 250; ++i) euros += "\xe2\x82\xac";
  CHECK(gnuplot_text(euros).size() == 1 + 200 * 3 + 3 + 1);
}

TEST_CASE("a trace's scenario name cannot run commands through the plot script", "[smoke][plot][security]") {
  gcsim::test::TempDir dir;
  const fs::path planted = dir.path() / "planted";
  TraceData d;
  // What a crafted trace may hold in its scenario_name attribute: a newline, then a gnuplot
  // command that runs a shell command (double quotes: single ones would be doubled).
  d.attrs.scenario_name = "x\nsystem \"touch " + planted.string() + "\"\nset title \"";
  d.attrs.end_s = 3600;
  d.attrs.horizon_s = 3600;
  d.nodes = {{0, "g4", "A100", 4, 8.0, 0, 3600, 8.0}};
  d.jobs = {{1, "J1", 0, 0, 1800, 4, 4, "g4", 0, 1, 4.0, JobStatus::Completed, {}, {}}};
  d.utilization = {{0, 4, 4}, {1800, 0, 4}};
  const fs::path out = dir.path() / "plots";
  fs::create_directory(out);
  const std::vector<std::string> paths = write_plots(d, out.string());
  CHECK(paths.size() == 3);
  CHECK_FALSE(fs::exists(planted));
}
