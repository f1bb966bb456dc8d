// Human and machine summaries of one run: an aligned text report for people, and a JSON
// object for scripts and sweeps (numbers at full round-trip precision, NaN as null).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/metrics.hpp"
#include "analysis/trace_data.hpp"
#include "sim/units.hpp"

namespace gcsim::analysis {

// The sections that need them (cost by category, interruptions and checkpoints, pools,
// budgets) appear only when the run has something to show in them (docs/analysis.md).
std::string format_report(const TraceData& trace, const Metrics& metrics);

// One JSON object: the run's identity (scenario, seed, replication, version) and every
// metric under the key names listed in docs/analysis.md; `budgets` (team_budgets()) fills
// the "budgets" array. Ends with a newline.
std::string format_json(const Metrics& metrics, const TraceAttributes& attrs,
                        std::span<const TeamBudget> budgets = {});

// A JSON object built key by key, indented two spaces per level; `depth` is its own
// nesting level (0 at the top). finish() gives "{}" or "{\n ... \n<indent>}", no newline.
class JsonObject {
 public:
  explicit JsonObject(int depth = 0) : depth_(depth) {}
  void number(const std::string& key, double value);
  void integer(const std::string& key, std::int64_t value);
  void string(const std::string& key, std::string_view value);
  void boolean_or_null(const std::string& key, int value);  // 1 true, 0 false, < 0 null
  void raw(const std::string& key, const std::string& json);  // an already formatted value
  int depth() const { return depth_; }
  std::string finish() const;

 private:
  void key(const std::string& k);
  std::string out_;
  int depth_ = 0;
  bool first_ = true;
};

// A JSON array of already formatted values, at nesting level `depth`: "[]" when empty.
std::string json_array(const std::vector<std::string>& items, int depth);

// Every metric key of format_json() after the identity keys, appended to `object`.
void append_metrics_json(JsonObject& object, const Metrics& metrics, std::span<const TeamBudget> budgets);
// The run's identity (scenario file, version, seed, replication, schema, horizon, end, wall
// clock), the keys the single-run and comparison JSON share.
void append_run_json(JsonObject& object, const TraceAttributes& attrs, const Metrics& metrics);

// A JSON string literal, quotes included: escapes quotes, backslashes and control
// characters, and replaces invalid UTF-8 with U+FFFD so the output is always valid JSON.
std::string json_quote(std::string_view text);

// A JSON number with the shortest text that reads back to the same double; null for NaN
// and infinities (JSON has neither).
std::string json_number(double value);

// "45.0s", "12m 5s", "1h 23m", "2d 3h 4m"; "n/a" for NaN.
std::string format_duration(double seconds);

// "$12,345.67"; "n/a" for NaN: the one money format (sim/units.hpp).
using units::format_usd;

// "1,234" (decimals 0) or "1,234.5" (decimals 1); "n/a" for NaN and infinities.
std::string format_count(double value, int decimals);

// 0.305 -> "30.5%"; "n/a" for NaN and infinities.
std::string format_percent(double fraction);

// Text columns: `s` padded with spaces to `width` characters, left- or right-aligned
// (bytes, so UTF-8 labels pad short); longer text is left whole.
std::string pad_right(std::string s, std::size_t width);
std::string pad_left(const std::string& s, std::size_t width);

}  // namespace gcsim::analysis
