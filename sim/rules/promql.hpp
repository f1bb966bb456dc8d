// The part of PromQL that alerting rules over GPU metrics are written in, evaluated over
// series held in memory, with Prometheus 2.42's semantics (the `prometheus` package of
// Debian 12, whose `promtool test rules` checks gcsim's answers:
// tests/analysis/test_alert_rules.cpp). docs/alerts.md lists what is covered:
//   selectors        name{label="v", label!="v", label=~"re", label!~"re"}, name[5m]
//   functions        rate, increase, avg_over_time, max_over_time, min_over_time, sum_over_time
//   aggregations     avg, sum, min, max, count  (by (l, ...) | without (l, ...)), before or after
//   binary operators + - * / between vectors (one-to-one, on all labels but the name) and
//                    numbers; > < >= <= == != as filters (with `bool`: 0 or 1)
//   numbers and parentheses
// Anything else is a ParseError at its column: never a silently different meaning.
#pragma once

#include <bit>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gcsim::promql {

// The same double to the bit (a NaN equals itself, 0 and -0 differ): how a run of equal
// samples is told from the next.
inline bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

// Labels sorted by name; the metric name is the label "__name__", as in Prometheus.
using Labels = std::vector<std::pair<std::string, std::string>>;
inline constexpr const char* NAME_LABEL = "__name__";

// One series: its labels (with __name__) and its samples, timestamps in milliseconds,
// increasing.
struct Series {
  Labels labels;
  std::vector<std::int64_t> t_ms;
  std::vector<double> values;
};

struct Sample {
  Labels labels;
  double value = 0;
};
using Vector = std::vector<Sample>;

// A parse error: `column` counts from 1 in the expression's text.
class ParseError : public std::runtime_error {
 public:
  ParseError(std::size_t column, const std::string& message)
      : std::runtime_error(message), column_(column) {}
  std::size_t column() const { return column_; }

 private:
  std::size_t column_;
};

// An evaluation error (a vector matched many-to-one, a range vector where an instant
// vector is needed...): what Prometheus reports as an execution error.
class EvalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Node;

// A metric or label name an expression uses, at its selector's or aggregation's column:
// what a rules reader checks against the names the series have (metric_names.hpp).
struct NameUse {
  enum What : std::uint8_t { Metric, Label } what;
  std::string name;
  std::size_t column;
};

class Expr {
 public:
  // Parses `text`; throws ParseError.
  static Expr parse(std::string_view text);
  Expr(Expr&&) noexcept;
  Expr& operator=(Expr&&) noexcept;
  ~Expr();
  // The instant vector at `t_ms` over `series` (a number is a one-sample vector with no
  // labels). Instant selectors look back 5 minutes (Prometheus' default lookback delta).
  // It remembers which series each selector matches, by the vector's address: after the
  // vector given before is gone, call forget_series() before evaluating over another.
  Vector evaluate(const std::vector<Series>& series, std::int64_t t_ms) const;
  void forget_series() const;
  // How far back from an evaluation time its samples are read: its longest range, or the
  // lookback delta of an instant selector.
  std::int64_t lookback_ms() const;
  // The metric names its selectors ask for by equality (a name matched by a regular
  // expression is not listed), and the label names of its matchers and groupings.
  std::vector<NameUse> names_used() const;
  const std::string& text() const { return text_; }
  // Whether one of its selectors matches a series with these labels (with __name__).
  bool selects(const Labels& labels) const;
  // Whether one of its selectors may match a series named `name`: its __name__ matchers
  // (if any) accept the name, whatever the other labels.
  bool may_select_name(const std::string& name) const;

 private:
  friend class GridEvaluation;
  Expr(std::string text, std::unique_ptr<Node> root);
  std::string text_;
  std::unique_ptr<Node> root_;
};

// A series held by change: runs of equal samples on a regular grid of step_ms (the sample
// times are multiples of it), as the simulated metrics are (analysis/metrics_series.hpp).
struct Run {
  std::int64_t first_ms = 0;  // the first sample's time
  std::int64_t count = 0;     // samples at first_ms, first_ms + step_ms, ... (count of them)
  double value = 0;
};
struct RunSeries {
  Labels labels;          // with __name__, sorted
  std::vector<Run> runs;  // in time order, apart or touching; touching runs differ in value
};

// One sample of a GridEvaluation's result: its labels as an id of the evaluation's table.
struct IdSample {
  std::uint32_t labels = 0;
  double value = 0;
};

// An expression evaluated at t0, t0 + interval, t0 + 2 x interval, ... over series held by
// change, with the same answers as Expr::evaluate over their samples, bit for bit: a
// selector's value for a series is recomputed only at evaluations whose window [t - range,
// t] (or the 5-minute lookback) differs from the previous evaluation's, which on a grid is
// when a change of the series lies in (t - interval - range, t]; the operators above are
// recomputed only when one of those values changed. Labels are interned: compared and
// hashed as ids. interval_ms must be a multiple of step_ms; `expr` and `series` must outlive it.
class GridEvaluation {
 public:
  GridEvaluation(const Expr& expr, const std::vector<RunSeries>& series, std::int64_t step_ms, std::int64_t interval_ms);
  GridEvaluation(Expr&&, const std::vector<RunSeries>&, std::int64_t, std::int64_t) = delete;  // it keeps the nodes
  ~GridEvaluation();
  GridEvaluation(const GridEvaluation&) = delete;
  GridEvaluation& operator=(const GridEvaluation&) = delete;
  // The result at t_ms: the first call at any time, each next one at the previous +
  // interval. Returns false when the result is the previous call's (then result() is
  // unchanged). Throws EvalError as Expr::evaluate does.
  bool advance(std::int64_t t_ms);
  // The result, in Expr::evaluate's order (a number: one sample with no labels).
  const std::vector<IdSample>& result() const;
  const Labels& labels(std::uint32_t id) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Prometheus' lookback delta: an instant selector takes a series' latest sample no older
// than this.
inline constexpr std::int64_t LOOKBACK_MS = 5 * 60 * 1000;

// A duration in PromQL's notation ("5m", "1h30m", "90s", "250ms"), in milliseconds; throws
// ParseError (column 1) when it is not one.
std::int64_t parse_duration_ms(std::string_view text);

// A duration in that notation, hours the largest unit ("1h30m", "90s" as "1m30s", "250ms",
// "0s"); parse_duration_ms reads it back to `ms` (>= 0).
std::string format_duration_ms(std::int64_t ms);

// The labels as Prometheus prints them: name{a="x", b="y"} (or {a="x"} without a name).
std::string format_labels(const Labels& labels);

}  // namespace gcsim::promql
