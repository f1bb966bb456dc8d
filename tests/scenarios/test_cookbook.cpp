// `gcsim cookbook` (cli/cookbook.cpp, docs/cookbook.md) on a fixture recipe whose figures
// are known by hand (tests/fixtures/cookbook/two-jobs: two 8-GPU jobs of 6 h on one node
// or two at $10 an hour: mean JCT 9 h or 6 h, $120 either way): the numbers taken from a
// JSON standard output, a JSON file and a CSV file; the README block and the index
// written; `check` passing, then failing once a figure is moved beyond its tolerance; and
// a bad recipe reported at its file:line:column with exit code 2.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "support/scenario_support.hpp"

using gcsim::test::has;
using gcsim::test::read_bytes;
using gcsim::test::run_gcsim;
using gcsim::test::write_file;

namespace {

namespace fs = std::filesystem;

// A copy of the fixture recipe in `dir`/two-jobs (write rewrites its README).
std::string copy_fixture(const gcsim::test::TempDir& dir) {
  const fs::path to = dir.path() / "two-jobs";
  fs::copy(GCSIM_SOURCE_DIR "/tests/fixtures/cookbook/two-jobs", to, fs::copy_options::recursive);
  return to.string();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("cookbook: write fills the README block and the index from the commands' figures", "[scenario][cookbook]") {
  gcsim::test::TempDir dir("cookbook-write");
  const std::string recipe = copy_fixture(dir);
  const std::string index = dir.file("index.md");
  const auto w = run_gcsim("cookbook write " + recipe + " --index " + index + " -j 1");
  INFO(w.output);
  REQUIRE(w.code == 0);
  const std::string readme = read_bytes(recipe + "/README.md");
  INFO(readme);
  // 6 h / 9 h - 1 from the sweep's CSV; $120 from compare's standard output; 9 h / 3 h from
  // compare.json (the mean wait of b's 6 h and a's 0 h).
  CHECK(has(readme, "| mean JCT, two nodes against one | -33.3% | ±0.5 pp |"));
  CHECK(has(readme, "| cost, one node | $120.00 | ±1% |"));
  CHECK(has(readme, "| mean JCT over mean wait, one node | 3.00× | ±0× |"));
  CHECK(has(readme, "gcsim sweep sweep.yaml -o out/sw -q --no-plots -j 1"));
  CHECK(has(readme, "gcsim cookbook run scenarios/cookbook/two-jobs"));
  const std::string idx = read_bytes(index);
  INFO(idx);
  CHECK(has(idx, "| A second node halves the wait at no extra cost. | test fixture | a second node: JCT -33.3%, cost $120.00 | "
                 "two equal jobs. | [two-jobs](two-jobs/README.md) |"));

  // Unchanged figures: check passes, and write rewrites nothing.
  const auto c = run_gcsim("cookbook check " + recipe + " --index " + index + " -j 1");
  INFO(c.output);
  CHECK(c.code == 0);
  CHECK(has(c.output, "ok two-jobs"));
  const auto again = run_gcsim("cookbook write " + recipe + " --index " + index);
  CHECK(has(again.output, "unchanged"));
  CHECK(read_bytes(recipe + "/README.md") == readme);
}

TEST_CASE("cookbook: check fails when a README's figure is beyond its tolerance, keeps one within it", "[scenario][cookbook]") {
  gcsim::test::TempDir dir("cookbook-check");
  const std::string recipe = copy_fixture(dir);
  REQUIRE(run_gcsim("cookbook write " + recipe).code == 0);
  const std::string readme = read_bytes(recipe + "/README.md");

  SECTION("0.3 pp off, within the 0.5 pp tolerance: kept as written") {
    write_file(recipe + "/README.md", replaced(readme, "| -33.3% |", "| -33.6% |"));
    const auto c = run_gcsim("cookbook check " + recipe);
    INFO(c.output);
    CHECK(c.code == 0);
  }
  SECTION("3.3 pp off: fails, naming the figure, both values and the tolerance") {
    write_file(recipe + "/README.md", replaced(readme, "| -33.3% |", "| -30.0% |"));
    const auto c = run_gcsim("cookbook check " + recipe);
    INFO(c.output);
    CHECK(c.code == 1);
    CHECK(has(c.output, "FAILED two-jobs"));
    CHECK(has(c.output, "mean JCT, two nodes against one: README -30.0%, gcsim now -33.3% (tolerance ±0.5 pp)"));
  }
  SECTION("$121.50 against $120.00 (1.25%): beyond the relative 1%") {
    write_file(recipe + "/README.md", replaced(readme, "| $120.00 |", "| $121.50 |"));
    CHECK(run_gcsim("cookbook check " + recipe).code == 1);
  }
  SECTION("a label changed in recipe.yaml: the block is stale") {
    const std::string yaml = read_bytes(recipe + "/recipe.yaml");
    write_file(recipe + "/recipe.yaml", replaced(yaml, "label: cost, one node", "label: cost on one node"));
    const auto c = run_gcsim("cookbook check " + recipe);
    INFO(c.output);
    CHECK(c.code == 1);
    CHECK(has(c.output, "stale"));
  }
  SECTION("the index out of step with the READMEs") {
    const std::string index = dir.file("index.md");
    REQUIRE(run_gcsim("cookbook write " + recipe + " --index " + index).code == 0);
    write_file(index, replaced(read_bytes(index), "-33.3%", "-40.0%"));
    const auto c = run_gcsim("cookbook check " + recipe + " --index " + index);
    INFO(c.output);
    CHECK(c.code == 1);
    CHECK(has(c.output, "the index is stale"));
  }
}

TEST_CASE("cookbook: a bad recipe is an error at its file:line:column, exit code 2", "[scenario][cookbook]") {
  gcsim::test::TempDir dir("cookbook-bad");
  const std::string recipe = copy_fixture(dir);
  const std::string yaml = read_bytes(recipe + "/recipe.yaml");
  auto fails_with = [&](const std::string& from, const std::string& to, const std::string& message) {
    write_file(recipe + "/recipe.yaml", replaced(yaml, from, to));
    const auto c = run_gcsim("cookbook run " + recipe);
    INFO(c.output);
    CHECK(c.code == 2);
    CHECK(has(c.output, message));
  };
  SECTION("an unknown key") {
    fails_with("    tolerance: 1%", "    tolerence: 1%", "did you mean 'tolerance'?");
    CHECK(has(run_gcsim("cookbook run " + recipe).output, "recipe.yaml:28:5"));
  }
  SECTION("a reference to no step") {
    fails_with("at: \"cmp:/", "at: \"cpm:/", "no step 'cpm'; did you mean 'cmp'?");
  }
  SECTION("a pointer to no key") {
    fails_with("total_cost_usd/mean", "total_cost/mean", "no key 'total_cost' in /variants/label=fifo/figures");
  }
  SECTION("a selection that matches no element") {
    fails_with("label=fifo", "label=lifo", "no element of /variants of step 'cmp''s output has label=lifo; there: label=fifo");
  }
  SECTION("an answer naming no result") {
    fails_with("cost {cost}", "cost {costs}", "no result 'costs'");
  }
  SECTION("a step whose command fails: its command and its error") {
    fails_with("[validate, s.yaml]", "[validate, missing.yaml]", "step 'quiet': `gcsim validate missing.yaml` exited with 2");
  }
  SECTION("a README without its results block (check)") {
    write_file(recipe + "/README.md", "# no block\n");
    const auto c = run_gcsim("cookbook check " + recipe);
    CHECK(c.code == 2);
    CHECK(has(c.output, "no results block"));
  }
}

TEST_CASE("cookbook: run -o keeps the steps' files and draws the figures", "[scenario][cookbook]") {
  gcsim::test::TempDir dir("cookbook-run-o");
  const auto r = run_gcsim("cookbook run " + std::string(GCSIM_SOURCE_DIR) + "/tests/fixtures/cookbook/two-jobs -o " +
                           dir.file("out"));
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(has(r.output, "mean JCT, two nodes against one    -33.3%"));
  CHECK(has(r.output, "a second node: JCT -33.3%, cost $120.00"));
  CHECK(fs::file_size(dir.file("out/two-jobs/figures.png")) > 1000);
  CHECK(fs::exists(dir.file("out/two-jobs/sw/sweep.csv")));    // the sweep's own folder, {out}/sw
  CHECK(fs::exists(dir.file("out/two-jobs/cmp/compare.json")));
  CHECK(has(read_bytes(dir.file("out/two-jobs/cmp.stdout")), "\"label\": \"fifo\""));
}
