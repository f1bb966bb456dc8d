// gcsim compare's per-team rows: one row per team and team figure below the table, the
// best of each wait and JCT row marked, n/a where a strategy's runs have no job of the
// team, and the same figures under each variant's "teams" in the JSON.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "analysis/strategy_comparison.hpp"

using namespace gcsim::analysis;

namespace {

std::string line_with(const std::string& text, const std::string& label) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (line.find(label) != std::string::npos) return line;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return "";
}

StrategyResult variant(const std::string& label, std::vector<std::pair<std::string, TeamFigures>> teams) {
  StrategyFigures figures;
  figures.fill(1.0);
  return StrategyResult{label, "  policy: fifo\n", {figures}, {std::move(teams)}, {}};
}

}  // namespace

TEST_CASE("compare's table and JSON have a row per team figure, the lower wait marked", "[unit][compare]") {
  // x: team a waits 10 min (JCT 1 h, 25% of the GPU-hours), team b 2 min; y: a waits 5 min,
  // and no job of b ran.
  const std::vector<StrategyResult> variants = {
      variant("x", {{"a", {600, 3600, 0.25}}, {"b", {120, 1800, 0.75}}}),
      variant("y", {{"a", {300, 3600, 1.0}}}),
  };
  const ComparisonHeader header{"s", "s.yaml", 1, 1};
  const std::string table = format_strategy_table(header, variants);
  INFO(table);
  CHECK(table.find("\n  teams\n") != std::string::npos);
  const std::string a_wait = line_with(table, "a: wait mean");
  CHECK(a_wait.find("10m 0s ") != std::string::npos);
  CHECK(a_wait.find("5m 0s*") != std::string::npos);
  // Equal JCTs: nothing marked. Shares are not ranked.
  CHECK(line_with(table, "a: JCT mean").find('*') == std::string::npos);
  CHECK(line_with(table, "a: GPU-hour share").find("25.0%") != std::string::npos);
  CHECK(line_with(table, "a: GPU-hour share").find('*') == std::string::npos);
  // b: only x has it.
  const std::string b_wait = line_with(table, "b: wait mean");
  CHECK(b_wait.find("n/a") != std::string::npos);
  CHECK(b_wait.find("2m 0s") != std::string::npos);

  const std::string json = format_strategy_json(header, variants);
  INFO(json);
  CHECK(json.find("\"teams\": {\n        \"a\": {\n          \"wait_mean_s\": {\n            \"mean\": 600,") !=
        std::string::npos);
  CHECK(json.find("\"gpu_hours_share\": {\n            \"mean\": 0.75,") != std::string::npos);
}
