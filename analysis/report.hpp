// Human and machine summaries of one run: an aligned text report for people, and a flat
// JSON object for scripts and sweeps (numbers at full round-trip precision, NaN as null).
#pragma once

#include <string>
#include <string_view>

#include "analysis/metrics.hpp"
#include "analysis/trace_data.hpp"

namespace gcsim::analysis {

std::string format_report(const TraceData& trace, const Metrics& metrics);

// One JSON object: the run's identity (scenario, seed, replication, version) and every
// metric under the key names listed in docs/analysis.md. Ends with a newline.
std::string format_json(const Metrics& metrics, const TraceAttributes& attrs);

// A JSON string literal, quotes included: escapes quotes, backslashes and control
// characters, and replaces invalid UTF-8 with U+FFFD so the output is always valid JSON.
std::string json_quote(std::string_view text);

// A JSON number with the shortest text that reads back to the same double; null for NaN
// and infinities (JSON has neither).
std::string json_number(double value);

// "45.0s", "12m 5s", "1h 23m", "2d 3h 4m"; "n/a" for NaN.
std::string format_duration(double seconds);

// "$12,345.67"; "n/a" for NaN.
std::string format_usd(double usd);

}  // namespace gcsim::analysis
