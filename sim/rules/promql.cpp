// A PromQL subset with Prometheus 2.42's semantics (see promql.hpp and docs/alerts.md).
#include "sim/rules/promql.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <unordered_map>

namespace gcsim::promql {

namespace {

enum class Kind { Number, Selector, Range, Call, Aggregate, Binary, Negate };
enum class MatchOp { Eq, Ne, Re, Nre };

struct Matcher {
  std::string name;
  MatchOp op = MatchOp::Eq;
  std::string value;
  std::regex re;  // Re, Nre: the value anchored at both ends, as PromQL anchors it
  bool matches(const std::string& v) const {
    switch (op) {
      case MatchOp::Eq: return v == value;
      case MatchOp::Ne: return v != value;
      case MatchOp::Re: return std::regex_match(v, re);
      case MatchOp::Nre: return !std::regex_match(v, re);
    }
    return false;
  }
};

bool is_comparison(const std::string& op) {
  return op == ">" || op == "<" || op == ">=" || op == "<=" || op == "==" || op == "!=";
}

// An operator, function or aggregation by code, found once when parsed.
enum class Op {
  None, Add, Sub, Mul, Div, Gt, Lt, Ge, Le, Eq, Ne,
  Rate, Increase, AvgOverTime, MaxOverTime, MinOverTime, SumOverTime,
  Avg, Sum, Min, Max, Count
};

Op op_code(const std::string& op) {
  static const std::pair<const char*, Op> CODES[] = {
      {"+", Op::Add}, {"-", Op::Sub}, {"*", Op::Mul}, {"/", Op::Div}, {">", Op::Gt}, {"<", Op::Lt},
      {">=", Op::Ge}, {"<=", Op::Le}, {"==", Op::Eq}, {"!=", Op::Ne}, {"rate", Op::Rate},
      {"increase", Op::Increase}, {"avg_over_time", Op::AvgOverTime}, {"max_over_time", Op::MaxOverTime},
      {"min_over_time", Op::MinOverTime}, {"sum_over_time", Op::SumOverTime}, {"avg", Op::Avg},
      {"sum", Op::Sum}, {"min", Op::Min}, {"max", Op::Max}, {"count", Op::Count}};
  for (const auto& [name, code] : CODES)
    if (op == name) return code;
  return Op::None;
}

bool is_comparison(Op op) {
  return op == Op::Gt || op == Op::Lt || op == Op::Ge || op == Op::Le || op == Op::Eq || op == Op::Ne;
}

}  // namespace

struct Node {
  Kind kind = Kind::Number;
  std::size_t column = 1;
  double number = 0;
  std::vector<Matcher> matchers;  // Selector (the name as a __name__ matcher)
  std::int64_t range_ms = 0;      // Range
  std::string op;                 // Call: the function; Aggregate: avg...; Binary: + > ...
  Op code = Op::None;             // op's code
  bool without = false;           // Aggregate: `without` (else `by`, or neither)
  bool grouped = false;           // Aggregate: a by/without clause was given
  std::vector<std::string> grouping;
  bool bool_modifier = false;     // Binary comparison with `bool`
  std::vector<std::unique_ptr<Node>> args;
  // Selector: the series it matches, found on the first evaluation over a series list.
  mutable const std::vector<Series>* matched_over = nullptr;
  mutable std::vector<const Series*> matched;
};

namespace {

// ---- Lexing and parsing ----------------------------------------------------------------

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }
bool ident_char(char c) { return ident_start(c) || std::isdigit(static_cast<unsigned char>(c)); }

const char* const AGGREGATIONS[] = {"avg", "sum", "min", "max", "count"};
const char* const RANGE_FUNCTIONS[] = {"rate", "increase", "avg_over_time", "max_over_time", "min_over_time",
                                       "sum_over_time"};

bool one_of(const std::string& s, const auto& list) {
  return std::any_of(std::begin(list), std::end(list), [&](const char* x) { return s == x; });
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  std::unique_ptr<Node> parse_all() {
    auto root = comparison();
    skip_space();
    if (pos_ < text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    if (root->kind == Kind::Range) fail_at(root->column, "a range vector ('[...]') can only be the argument of a function such as rate");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { fail_at(pos_ + 1, message); }
  [[noreturn]] static void fail_at(std::size_t column, const std::string& message) {
    throw ParseError(column, message);
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool peek(std::string_view s) {
    skip_space();
    return text_.substr(pos_, s.size()) == s;
  }
  bool accept(std::string_view s) {
    if (!peek(s)) return false;
    pos_ += s.size();
    return true;
  }
  void expect(std::string_view s) {
    if (!accept(s)) fail("expected '" + std::string(s) + "'");
  }
  std::string identifier() {
    skip_space();
    if (pos_ >= text_.size() || !ident_start(text_[pos_])) fail("expected a name");
    const std::size_t start = pos_;
    while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  // The identifier at the cursor without taking it ("" when there is none).
  std::string peek_identifier() {
    skip_space();
    std::size_t p = pos_;
    if (p >= text_.size() || !ident_start(text_[p])) return {};
    while (p < text_.size() && ident_char(text_[p])) ++p;
    return std::string(text_.substr(pos_, p - pos_));
  }

  std::unique_ptr<Node> make(Kind kind, std::size_t column) {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->column = column;
    return n;
  }

  std::unique_ptr<Node> binary(std::string op, std::size_t column, std::unique_ptr<Node> lhs, std::unique_ptr<Node> rhs,
                               bool with_bool) {
    for (const auto* side : {lhs.get(), rhs.get()})
      if (side->kind == Kind::Range)
        fail_at(side->column, "a range vector ('[...]') cannot be an operand of '" + op + "': use a function such as rate");
    if (is_comparison(op) && !with_bool && lhs->kind == Kind::Number && rhs->kind == Kind::Number)
      fail_at(column, "comparisons between numbers must use the bool modifier");
    auto n = make(Kind::Binary, column);
    n->op = std::move(op);
    n->code = op_code(n->op);
    n->bool_modifier = with_bool;
    n->args.push_back(std::move(lhs));
    n->args.push_back(std::move(rhs));
    return n;
  }

  std::unique_ptr<Node> comparison() {
    auto lhs = additive();
    for (;;) {
      skip_space();
      const std::size_t column = pos_ + 1;
      std::string op;
      for (const char* o : {">=", "<=", "==", "!=", ">", "<"})
        if (accept(o)) {
          op = o;
          break;
        }
      if (op.empty()) return lhs;
      const bool with_bool = peek_identifier() == "bool" && (identifier(), true);
      lhs = binary(op, column, std::move(lhs), additive(), with_bool);
    }
  }
  std::unique_ptr<Node> additive() {
    auto lhs = multiplicative();
    for (;;) {
      skip_space();
      const std::size_t column = pos_ + 1;
      if (accept("+")) lhs = binary("+", column, std::move(lhs), multiplicative(), false);
      else if (accept("-")) lhs = binary("-", column, std::move(lhs), multiplicative(), false);
      else return lhs;
    }
  }
  std::unique_ptr<Node> multiplicative() {
    auto lhs = unary();
    for (;;) {
      skip_space();
      const std::size_t column = pos_ + 1;
      if (accept("*")) lhs = binary("*", column, std::move(lhs), unary(), false);
      else if (accept("/")) lhs = binary("/", column, std::move(lhs), unary(), false);
      else return lhs;
    }
  }
  std::unique_ptr<Node> unary() {
    skip_space();
    const std::size_t column = pos_ + 1;
    if (accept("-")) {
      auto operand = unary();
      if (operand->kind == Kind::Number) {
        operand->number = -operand->number;
        return operand;
      }
      if (operand->kind == Kind::Range) fail_at(operand->column, "a range vector cannot be negated");
      auto n = make(Kind::Negate, column);
      n->args.push_back(std::move(operand));
      return n;
    }
    if (accept("+")) return unary();
    return primary();
  }

  std::unique_ptr<Node> primary() {
    skip_space();
    const std::size_t column = pos_ + 1;
    if (pos_ >= text_.size()) fail("expected an expression");
    const char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && pos_ + 1 < text_.size() &&
                                                        std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])))) {
      return number(column);
    }
    if (accept("(")) {
      auto inner = comparison();
      expect(")");
      return inner;
    }
    std::string name;
    if (c != '{') name = identifier();
    if (one_of(name, AGGREGATIONS)) return aggregation(name, column);
    if (peek("(")) {
      if (!one_of(name, RANGE_FUNCTIONS)) fail_at(column, "unknown or unsupported function '" + name + "' (docs/alerts.md lists what is covered)");
      expect("(");
      auto arg = comparison();
      expect(")");
      if (arg->kind != Kind::Range)
        fail_at(arg->column, "expected a range vector (e.g. metric[5m]) in the call of " + name);
      auto n = make(Kind::Call, column);
      n->op = name;
      n->code = op_code(name);
      n->args.push_back(std::move(arg));
      return n;
    }
    if (name == "by" || name == "without" || name == "bool") fail_at(column, "unexpected '" + name + "'");
    auto sel = make(Kind::Selector, column);
    if (!name.empty()) sel->matchers.push_back(Matcher{NAME_LABEL, MatchOp::Eq, name, {}});
    if (accept("{")) matchers(*sel);
    if (name.empty() && std::none_of(sel->matchers.begin(), sel->matchers.end(), [](const Matcher& m) {
          return m.op == MatchOp::Eq && !m.value.empty();
        }))
      fail_at(column, "a selector needs a metric name or a label matcher that is not empty");
    if (accept("[")) {
      skip_space();
      const std::size_t at = pos_;
      while (pos_ < text_.size() && text_[pos_] != ']') ++pos_;
      if (pos_ >= text_.size()) fail("expected ']'");
      std::string d(text_.substr(at, pos_ - at));
      while (!d.empty() && std::isspace(static_cast<unsigned char>(d.back()))) d.pop_back();
      ++pos_;
      std::int64_t ms = 0;
      try {
        ms = parse_duration_ms(d);
      } catch (const ParseError& e) {
        fail_at(at + 1, e.what());
      }
      if (ms <= 0) fail_at(at + 1, "a range must be longer than zero");
      auto range = make(Kind::Range, column);
      range->range_ms = ms;
      range->args.push_back(std::move(sel));
      return range;
    }
    return sel;
  }

  std::unique_ptr<Node> number(std::size_t column) {
    const char* begin = text_.data() + pos_;
    const char* end = text_.data() + text_.size();
    double v = 0;
    const auto [p, ec] = std::from_chars(begin, end, v);
    if (ec != std::errc{}) fail("not a number");
    pos_ += static_cast<std::size_t>(p - begin);
    if (pos_ < text_.size() && ident_start(text_[pos_]))
      fail_at(column, "a duration or name right after a number: ranges go in brackets, as metric[5m]");
    auto n = make(Kind::Number, column);
    n->number = v;
    return n;
  }

  void matchers(Node& sel) {
    if (accept("}")) return;
    for (;;) {
      skip_space();
      const std::size_t column = pos_ + 1;
      Matcher m;
      m.name = identifier();
      if (accept("=~")) m.op = MatchOp::Re;
      else if (accept("!~")) m.op = MatchOp::Nre;
      else if (accept("!=")) m.op = MatchOp::Ne;
      else if (accept("=")) m.op = MatchOp::Eq;
      else fail("expected =, !=, =~ or !~ after the label name");
      m.value = string_literal();
      if (m.op == MatchOp::Re || m.op == MatchOp::Nre) {
        try {
          m.re = std::regex(m.value, std::regex::ECMAScript);
        } catch (const std::regex_error&) {
          fail_at(column, "invalid regular expression '" + m.value + "'");
        }
      }
      sel.matchers.push_back(std::move(m));
      if (accept("}")) return;
      expect(",");
      if (accept("}")) return;  // a trailing comma
    }
  }

  std::string string_literal() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '"' && text_[pos_] != '\'')) fail("expected a quoted string");
    const char quote = text_[pos_++];
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      char c = text_[pos_++];
      if (c == '\\') {
        if (pos_ >= text_.size()) break;
        const char e = text_[pos_++];
        switch (e) {
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          case '\\': case '"': case '\'': c = e; break;
          default: fail_at(pos_ - 1, std::string("unsupported escape '\\") + e + "'");
        }
      }
      out.push_back(c);
    }
    if (pos_ >= text_.size()) fail("unterminated string");
    ++pos_;
    return out;
  }

  void grouping(Node& n) {
    const std::string word = identifier();
    n.grouped = true;
    n.without = word == "without";
    expect("(");
    if (!accept(")")) {
      for (;;) {
        n.grouping.push_back(identifier());
        if (accept(")")) break;
        expect(",");
      }
    }
  }

  std::unique_ptr<Node> aggregation(const std::string& op, std::size_t column) {
    auto n = make(Kind::Aggregate, column);
    n->op = op;
    n->code = op_code(op);
    const std::string next = peek_identifier();
    if (next == "by" || next == "without") grouping(*n);
    expect("(");
    auto arg = comparison();
    expect(")");
    if (arg->kind == Kind::Range) fail_at(arg->column, "expected an instant vector in the aggregation " + op + ", got a range vector");
    n->args.push_back(std::move(arg));
    const std::string after = peek_identifier();
    if (after == "by" || after == "without") {
      if (n->grouped) fail("a second by/without clause");
      grouping(*n);
    }
    return n;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

// ---- Evaluation --------------------------------------------------------------------------

struct Value {
  bool scalar = false;
  double number = 0;
  Vector vector;
};

Labels without_name(const Labels& l) {
  Labels out;
  out.reserve(l.size());
  for (const auto& kv : l)
    if (kv.first != NAME_LABEL) out.push_back(kv);
  return out;
}

const std::string* label_value(const Labels& l, const std::string& name) {
  for (const auto& kv : l)
    if (kv.first == name) return &kv.second;
  return nullptr;
}

const std::vector<const Series*>& matching(const Node& sel, const std::vector<Series>& all) {
  if (sel.matched_over != &all) {
    sel.matched.clear();
    for (const Series& s : all) {
      bool ok = true;
      for (const Matcher& m : sel.matchers) {
        const std::string* v = label_value(s.labels, m.name);
        if (!m.matches(v ? *v : std::string())) {
          ok = false;
          break;
        }
      }
      if (ok) sel.matched.push_back(&s);
    }
    sel.matched_over = &all;
  }
  return sel.matched;
}

double arith(Op op, double a, double b) {
  if (op == Op::Add) return a + b;
  if (op == Op::Sub) return a - b;
  if (op == Op::Mul) return a * b;
  return a / b;
}

bool compare(Op op, double a, double b) {
  if (op == Op::Gt) return a > b;
  if (op == Op::Lt) return a < b;
  if (op == Op::Ge) return a >= b;
  if (op == Op::Le) return a <= b;
  if (op == Op::Eq) return a == b;
  return a != b;
}

// Prometheus' extrapolatedRate for a counter (rate and increase treat every series as one:
// a fall is a reset), over the n samples t_ms[0..n), values[0..n) of the range.
std::optional<double> extrapolated_rate(const std::int64_t* t_ms, const double* values, std::size_t n,
                                        std::int64_t range_start, std::int64_t range_end, double range_s, bool is_rate) {
  if (n < 2) return std::nullopt;  // fewer than two samples
  const std::size_t last = n - 1;
  double result = values[last] - values[0];
  double previous = 0;
  for (std::size_t i = 0; i <= last; ++i) {
    if (values[i] < previous) result += previous;
    previous = values[i];
  }
  double to_start = static_cast<double>(t_ms[0] - range_start) / 1000;
  const double to_end = static_cast<double>(range_end - t_ms[last]) / 1000;
  const double sampled = static_cast<double>(t_ms[last] - t_ms[0]) / 1000;
  const double average = sampled / static_cast<double>(last);
  if (result > 0 && values[0] >= 0) {
    const double to_zero = sampled * (values[0] / result);
    if (to_zero < to_start) to_start = to_zero;
  }
  const double threshold = average * 1.1;
  double interval = sampled;
  interval += to_start < threshold ? to_start : average / 2;
  interval += to_end < threshold ? to_end : average / 2;
  result *= interval / sampled;
  if (is_rate) result /= range_s;
  return result;
}

// A range function (n >= 1 samples in [t - range, t]): the one computation behind
// Expr::evaluate and GridEvaluation.
std::optional<double> range_function(Op op, const std::int64_t* t_ms, const double* values,
                                     std::size_t n, std::int64_t t, std::int64_t range_ms) {
  if (op == Op::Rate || op == Op::Increase)
    return extrapolated_rate(t_ms, values, n, t - range_ms, t, static_cast<double>(range_ms) / 1000, op == Op::Rate);
  if (op == Op::AvgOverTime) {
    double mean = 0;
    double count = 0;
    for (std::size_t i = 0; i < n; ++i) {
      count += 1;
      mean += values[i] / count - mean / count;
    }
    return mean;
  }
  if (op == Op::SumOverTime) {
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += values[i];
    return sum;
  }
  double x = values[0];
  for (std::size_t i = 1; i < n; ++i) {
    const double y = values[i];
    if (op == Op::MaxOverTime ? (y > x || std::isnan(x)) : (y < x || std::isnan(x))) x = y;
  }
  return x;
}

// The same over the window's samples given as runs of equal values (count samples each,
// step_ms apart), without going through every sample where the result cannot change:
// avg_over_time's running mean, once it equals the run's value bit for bit (a finite
// value), stays it (value/count - mean/count is then +0, and mean is never -0 after a
// sample); min and max need a run's value once. The other functions go through the samples.
struct WindowRun {
  std::int64_t first_ms;
  std::int64_t count;
  double value;
};
std::optional<double> range_function_runs(Op op, const std::vector<WindowRun>& runs, std::int64_t step_ms, std::int64_t t,
                                          std::int64_t range_ms, std::vector<std::int64_t>& scratch_t,
                                          std::vector<double>& scratch_v) {
  if (runs.empty()) return std::nullopt;
  if (op == Op::AvgOverTime) {
    double mean = 0;
    double count = 0;
    for (const WindowRun& r : runs) {
      const double v = r.value;
      const bool settles = std::isfinite(v) && !(v == 0 && std::signbit(v));
      for (std::int64_t i = 0; i < r.count; ++i) {
        if (settles && std::memcmp(&mean, &v, sizeof v) == 0) {
          count += static_cast<double>(r.count - i);
          break;
        }
        count += 1;
        mean += v / count - mean / count;
      }
    }
    return mean;
  }
  if (op == Op::MaxOverTime || op == Op::MinOverTime) {
    double x = runs[0].value;
    for (std::size_t i = 1; i < runs.size(); ++i) {
      const double y = runs[i].value;
      if (op == Op::MaxOverTime ? (y > x || std::isnan(x)) : (y < x || std::isnan(x))) x = y;
    }
    return x;
  }
  scratch_t.clear();
  scratch_v.clear();
  for (const WindowRun& r : runs)
    for (std::int64_t i = 0; i < r.count; ++i) {
      scratch_t.push_back(r.first_ms + i * step_ms);
      scratch_v.push_back(r.value);
    }
  return range_function(op, scratch_t.data(), scratch_v.data(), scratch_t.size(), t, range_ms);
}

Value eval(const Node& n, const std::vector<Series>& all, std::int64_t t);

Vector eval_call(const Node& n, const std::vector<Series>& all, std::int64_t t) {
  const Node& range = *n.args[0];
  const Node& sel = *range.args[0];
  const std::int64_t start = t - range.range_ms;
  Vector out;
  for (const Series* s : matching(sel, all)) {
    // Samples in [t - range, t].
    const auto lo = std::lower_bound(s->t_ms.begin(), s->t_ms.end(), start);
    const auto hi = std::upper_bound(s->t_ms.begin(), s->t_ms.end(), t);
    if (lo >= hi) continue;
    const auto first = static_cast<std::size_t>(lo - s->t_ms.begin());
    const auto count = static_cast<std::size_t>(hi - lo);
    const std::optional<double> v =
        range_function(n.code, s->t_ms.data() + first, s->values.data() + first, count, t, range.range_ms);
    if (v) out.push_back(Sample{without_name(s->labels), *v});
  }
  return out;
}

Vector eval_aggregate(const Node& n, const Vector& in) {
  struct Group {
    Labels labels;
    double value = 0;
    double mean = 0;
    double count = 0;
  };
  std::map<Labels, Group> groups;
  for (const Sample& s : in) {
    Labels key;
    if (n.without) {
      for (const auto& kv : s.labels)
        if (kv.first != NAME_LABEL && std::find(n.grouping.begin(), n.grouping.end(), kv.first) == n.grouping.end())
          key.push_back(kv);
    } else {
      for (const auto& kv : s.labels)
        if (std::find(n.grouping.begin(), n.grouping.end(), kv.first) != n.grouping.end()) key.push_back(kv);
    }
    auto [it, fresh] = groups.try_emplace(key);
    Group& g = it->second;
    if (fresh) {
      g.labels = key;
      g.value = s.value;
      g.mean = s.value;
      g.count = 1;
      continue;
    }
    g.count += 1;
    if (n.code == Op::Sum) g.value += s.value;
    else if (n.code == Op::Max) { if (g.value < s.value || std::isnan(g.value)) g.value = s.value; }
    else if (n.code == Op::Min) { if (g.value > s.value || std::isnan(g.value)) g.value = s.value; }
    else if (n.code == Op::Avg) g.mean += s.value / g.count - g.mean / g.count;
  }
  Vector out;
  for (auto& [key, g] : groups) {
    double v = g.value;
    if (n.code == Op::Avg) v = g.mean;
    if (n.code == Op::Count) v = g.count;
    out.push_back(Sample{std::move(g.labels), v});
  }
  return out;
}

Vector eval_binary_vectors(const Node& n, const Vector& lhs, const Vector& rhs) {
  const bool comparison = is_comparison(n.code);
  std::map<Labels, const Sample*> right;
  for (const Sample& s : rhs) {
    if (!right.emplace(without_name(s.labels), &s).second)
      throw EvalError("found duplicate series for the match group " + format_labels(without_name(s.labels)) +
                      " on the right hand-side of the operation: many-to-many matching not allowed");
  }
  std::map<Labels, bool> seen;
  Vector out;
  for (const Sample& l : lhs) {
    Labels sig = without_name(l.labels);
    const auto it = right.find(sig);
    if (it == right.end()) continue;
    if (!seen.emplace(sig, true).second)
      throw EvalError("multiple matches for labels " + format_labels(sig) + ": many-to-one matching must be explicit");
    const double r = it->second->value;
    if (comparison) {
      const bool keep = compare(n.code, l.value, r);
      if (n.bool_modifier) out.push_back(Sample{sig, keep ? 1.0 : 0.0});
      else if (keep) out.push_back(l);
    } else {
      out.push_back(Sample{std::move(sig), arith(n.code, l.value, r)});
    }
  }
  return out;
}

Value eval(const Node& n, const std::vector<Series>& all, std::int64_t t) {
  switch (n.kind) {
    case Kind::Number: return Value{true, n.number, {}};
    case Kind::Range: throw EvalError("a range vector where an instant vector is needed");
    case Kind::Selector: {
      Value out;
      for (const Series* s : matching(n, all)) {
        const auto hi = std::upper_bound(s->t_ms.begin(), s->t_ms.end(), t);
        if (hi == s->t_ms.begin()) continue;
        const auto i = static_cast<std::size_t>(hi - s->t_ms.begin()) - 1;
        if (s->t_ms[i] < t - LOOKBACK_MS) continue;
        out.vector.push_back(Sample{s->labels, s->values[i]});
      }
      return out;
    }
    case Kind::Call: return Value{false, 0, eval_call(n, all, t)};
    case Kind::Aggregate: return Value{false, 0, eval_aggregate(n, eval(*n.args[0], all, t).vector)};
    case Kind::Negate: {
      Value v = eval(*n.args[0], all, t);
      v.number = -v.number;  // -(1 + 2): a number that the parser could not fold
      for (Sample& s : v.vector) {
        s.labels = without_name(s.labels);
        s.value = -s.value;
      }
      return v;
    }
    case Kind::Binary: {
      Value l = eval(*n.args[0], all, t);
      Value r = eval(*n.args[1], all, t);
      const bool comparison = is_comparison(n.code);
      if (l.scalar && r.scalar) {
        const double v = comparison ? (compare(n.code, l.number, r.number) ? 1.0 : 0.0) : arith(n.code, l.number, r.number);
        return Value{true, v, {}};
      }
      if (!l.scalar && !r.scalar) return Value{false, 0, eval_binary_vectors(n, l.vector, r.vector)};
      const bool swap = l.scalar;
      Vector& vec = swap ? r.vector : l.vector;
      const double k = swap ? l.number : r.number;
      Vector out;
      for (Sample& s : vec) {
        const double a = swap ? k : s.value;
        const double b = swap ? s.value : k;
        if (comparison) {
          const bool keep = compare(n.code, a, b);
          if (n.bool_modifier) out.push_back(Sample{without_name(s.labels), keep ? 1.0 : 0.0});
          else if (keep) out.push_back(std::move(s));
        } else {
          out.push_back(Sample{without_name(s.labels), arith(n.code, a, b)});
        }
      }
      return Value{false, 0, std::move(out)};
    }
  }
  return {};
}

}  // namespace

Expr::Expr(std::string text, std::unique_ptr<Node> root) : text_(std::move(text)), root_(std::move(root)) {}
Expr::Expr(Expr&&) noexcept = default;
Expr& Expr::operator=(Expr&&) noexcept = default;
Expr::~Expr() = default;

Expr Expr::parse(std::string_view text) {
  Parser p(text);
  return Expr(std::string(text), p.parse_all());
}

namespace {
void forget(const Node& n) {
  n.matched_over = nullptr;
  n.matched.clear();
  for (const auto& a : n.args) forget(*a);
}
std::int64_t lookback(const Node& n) {
  std::int64_t most = n.kind == Kind::Selector ? LOOKBACK_MS : n.kind == Kind::Range ? n.range_ms : 0;
  if (n.kind == Kind::Range) return most;  // its selector reads the range only
  for (const auto& a : n.args) most = std::max(most, lookback(*a));
  return most;
}

bool selects_node(const Node& n, const Labels& labels) {
  if (n.kind == Kind::Selector)
    return std::all_of(n.matchers.begin(), n.matchers.end(), [&](const Matcher& m) {
      const std::string* v = label_value(labels, m.name);
      return m.matches(v ? *v : std::string());
    });
  return std::any_of(n.args.begin(), n.args.end(), [&](const auto& a) { return selects_node(*a, labels); });
}
bool may_select_name_node(const Node& n, const std::string& name) {
  if (n.kind == Kind::Selector)
    return std::all_of(n.matchers.begin(), n.matchers.end(),
                       [&](const Matcher& m) { return m.name != NAME_LABEL || m.matches(name); });
  return std::any_of(n.args.begin(), n.args.end(), [&](const auto& a) { return may_select_name_node(*a, name); });
}
void collect_names(const Node& n, std::vector<NameUse>& out) {
  if (n.kind == Kind::Selector)
    for (const Matcher& m : n.matchers) {
      if (m.name != NAME_LABEL)
        out.push_back({NameUse::Label, m.name, n.column});
      else if (m.op == MatchOp::Eq)
        out.push_back({NameUse::Metric, m.value, n.column});
    }
  for (const std::string& l : n.grouping) out.push_back({NameUse::Label, l, n.column});
  for (const auto& a : n.args) collect_names(*a, out);
}
}  // namespace

bool Expr::selects(const Labels& labels) const { return selects_node(*root_, labels); }
bool Expr::may_select_name(const std::string& name) const { return may_select_name_node(*root_, name); }

void Expr::forget_series() const { forget(*root_); }
std::int64_t Expr::lookback_ms() const { return lookback(*root_); }
std::vector<NameUse> Expr::names_used() const {
  std::vector<NameUse> out;
  collect_names(*root_, out);
  return out;
}

Vector Expr::evaluate(const std::vector<Series>& series, std::int64_t t_ms) const {
  Value v = eval(*root_, series, t_ms);
  if (v.scalar) return {Sample{{}, v.number}};
  return std::move(v.vector);
}


// ---- Evaluation over series held by change (GridEvaluation) ----------------------------

namespace {

constexpr std::uint32_t NO_ID = std::numeric_limits<std::uint32_t>::max();

struct LabelsHash {
  std::size_t operator()(const Labels& l) const noexcept {
    std::size_t h = 0xcbf29ce484222325ull;
    for (const auto& [k, v] : l) {
      h = (h ^ std::hash<std::string>{}(k)) * 0x100000001b3ull;
      h = (h ^ std::hash<std::string>{}(v)) * 0x100000001b3ull;
    }
    return h;
  }
};

// Label sets interned once: an evaluation compares and hashes them as ids.
class LabelTable {
 public:
  std::uint32_t intern(Labels l) {
    auto [it, fresh] = ids_.try_emplace(std::move(l), static_cast<std::uint32_t>(sets_.size()));
    if (fresh) {
      sets_.push_back(&it->first);
      no_name_.push_back(NO_ID);
    }
    return it->second;
  }
  const Labels& get(std::uint32_t id) const { return *sets_[id]; }
  std::uint32_t strip_name(std::uint32_t id) {
    if (no_name_[id] == NO_ID) {
      const std::uint32_t stripped = intern(without_name(*sets_[id]));
      no_name_[id] = stripped;
    }
    return no_name_[id];
  }
  std::size_t size() const { return sets_.size(); }

 private:
  std::unordered_map<Labels, std::uint32_t, LabelsHash> ids_;  // nodes: the keys do not move
  std::vector<const Labels*> sets_;
  std::vector<std::uint32_t> no_name_;
};

template <class T>
T& grown(std::vector<T>& v, std::size_t i, T fill) {
  if (i >= v.size()) v.resize(std::max(i + 1, v.size() * 2), fill);
  return v[i];
}

// A selector (or a range function over one): its value for each matched series, kept
// between evaluations and recomputed only while a change of the series is in its window.
struct Leaf {
  const Node* call = nullptr;  // the range function, or nullptr for an instant selector
  const Node* selector = nullptr;
  std::int64_t window_ms = 0;  // the range, or the lookback delta
  std::vector<std::uint32_t> series;  // the matched series, in the series' order
  std::vector<std::uint32_t> out_id;  // by matched series: its result's labels
  std::vector<double> value;
  std::vector<std::uint8_t> present;
  std::vector<std::uint8_t> in_dirty;
  std::vector<std::int64_t> dirty_until;  // recompute at evaluations before this time
  std::vector<std::pair<std::int64_t, std::uint32_t>> changes;  // (time, matched series), sorted
  std::size_t next_change = 0;
  std::vector<std::uint32_t> dirty;
  std::vector<std::uint32_t> present_list;  // matched series with a value, sorted
  std::vector<IdSample> out;
};

struct ENode {
  const Node* node = nullptr;
  std::vector<ENode> kids;
  std::size_t leaf = std::numeric_limits<std::size_t>::max();
  bool scalar = false;
  double number = 0;
  std::vector<IdSample> out;
  std::uint64_t epoch = 0;
  // Aggregate: the group (slot) of each input label id; the slots' labels and order.
  std::vector<std::uint32_t> slot_of;
  std::vector<std::uint32_t> slot_labels;
  std::unordered_map<std::uint32_t, std::uint32_t> slot_by_labels;
  std::vector<double> acc_value, acc_mean, acc_count;
  std::vector<std::uint64_t> acc_epoch;
  std::vector<std::uint32_t> rank;
  bool ranks_stale = false;
  std::vector<std::uint32_t> touched;
  // Binary between vectors: the right side by match signature.
  std::vector<std::uint64_t> right_epoch, seen_epoch;
  std::vector<double> right_value;
};

}  // namespace

struct GridEvaluation::Impl {
  Impl(const std::vector<RunSeries>& s, std::int64_t step, std::int64_t interval)
      : series(s), step_ms(step), interval_ms(interval) {}
  const std::vector<RunSeries>& series;
  std::int64_t step_ms;
  std::int64_t interval_ms;
  LabelTable table;
  std::vector<Leaf> leaves;
  ENode root;
  bool started = false;
  std::vector<IdSample> result;
  std::vector<WindowRun> window;
  std::vector<std::int64_t> scratch_t;
  std::vector<double> scratch_v;

  ENode build(const Node& n) {
    ENode e;
    e.node = &n;
    if (n.kind == Kind::Selector || n.kind == Kind::Call) {
      e.leaf = leaves.size();
      leaves.push_back(make_leaf(n));
      return e;
    }
    for (const auto& a : n.args) e.kids.push_back(build(*a));
    return e;
  }

  Leaf make_leaf(const Node& n) {
    Leaf leaf;
    if (n.kind == Kind::Call) {
      leaf.call = &n;
      leaf.selector = n.args[0]->args[0].get();
      leaf.window_ms = n.args[0]->range_ms;
    } else {
      leaf.selector = &n;
      leaf.window_ms = LOOKBACK_MS;
    }
    for (std::size_t i = 0; i < series.size(); ++i) {
      const RunSeries& s = series[i];
      if (!selects_node(*leaf.selector, s.labels)) continue;
      const auto m = static_cast<std::uint32_t>(leaf.series.size());
      leaf.series.push_back(static_cast<std::uint32_t>(i));
      leaf.out_id.push_back(table.intern(leaf.call ? without_name(s.labels) : s.labels));
      // A change: a run's first sample, and the first missing sample after a run.
      for (std::size_t r = 0; r < s.runs.size(); ++r) {
        leaf.changes.emplace_back(s.runs[r].first_ms, m);
        const std::int64_t end = s.runs[r].first_ms + s.runs[r].count * step_ms;
        if (r + 1 == s.runs.size() || s.runs[r + 1].first_ms != end) leaf.changes.emplace_back(end, m);
      }
    }
    const std::size_t n_matched = leaf.series.size();
    leaf.value.assign(n_matched, 0.0);
    leaf.present.assign(n_matched, 0);
    leaf.in_dirty.assign(n_matched, 0);
    leaf.dirty_until.assign(n_matched, std::numeric_limits<std::int64_t>::min());
    std::sort(leaf.changes.begin(), leaf.changes.end());
    return leaf;
  }

  // The series' value at t, as Expr::evaluate computes it from its samples.
  std::optional<double> leaf_value(const Leaf& leaf, const RunSeries& s, std::int64_t t) {
    const std::vector<Run>& runs = s.runs;
    const auto last_of = [&](const Run& r) { return r.first_ms + (r.count - 1) * step_ms; };
    if (!leaf.call) {
      // The latest sample at or before t, if no older than the lookback delta.
      auto it = std::upper_bound(runs.begin(), runs.end(), t, [](std::int64_t x, const Run& r) { return x < r.first_ms; });
      if (it == runs.begin()) return std::nullopt;
      --it;
      const std::int64_t latest = std::min(last_of(*it), it->first_ms + (t - it->first_ms) / step_ms * step_ms);
      if (latest < t - LOOKBACK_MS) return std::nullopt;
      return it->value;
    }
    const std::int64_t start = t - leaf.window_ms;
    window.clear();
    auto it = std::lower_bound(runs.begin(), runs.end(), start,
                               [&](const Run& r, std::int64_t x) { return last_of(r) < x; });
    for (; it != runs.end() && it->first_ms <= t; ++it) {
      const std::int64_t i0 = it->first_ms >= start ? 0 : (start - it->first_ms + step_ms - 1) / step_ms;
      const std::int64_t i1 = std::min(it->count - 1, (t - it->first_ms) / step_ms);
      if (i1 >= i0) window.push_back(WindowRun{it->first_ms + i0 * step_ms, i1 - i0 + 1, it->value});
    }
    return range_function_runs(leaf.call->code, window, step_ms, t, leaf.window_ms, scratch_t, scratch_v);
  }

  // Brings the leaf to t; true when a value or its presence changed.
  bool update(Leaf& leaf, std::int64_t t) {
    while (leaf.next_change < leaf.changes.size() && leaf.changes[leaf.next_change].first <= t) {
      const auto [c, m] = leaf.changes[leaf.next_change++];
      // Evaluations at t with c <= t < c + window + interval see the change in their window
      // and not in the previous one's.
      leaf.dirty_until[m] = std::max(leaf.dirty_until[m], c + leaf.window_ms + interval_ms);
      if (!leaf.in_dirty[m]) {
        leaf.in_dirty[m] = 1;
        leaf.dirty.push_back(m);
      }
    }
    bool changed = false;
    for (std::size_t k = 0; k < leaf.dirty.size();) {
      const std::uint32_t m = leaf.dirty[k];
      const std::optional<double> v = leaf_value(leaf, series[leaf.series[m]], t);
      const bool was = leaf.present[m] != 0;
      if (v.has_value() != was || (v && !same_bits(*v, leaf.value[m]))) {
        changed = true;
        if (v.has_value() != was) {
          auto pos = std::lower_bound(leaf.present_list.begin(), leaf.present_list.end(), m);
          if (v) leaf.present_list.insert(pos, m);
          else leaf.present_list.erase(pos);
        }
        leaf.present[m] = v ? 1 : 0;
        leaf.value[m] = v ? *v : 0.0;
      }
      if (leaf.dirty_until[m] <= t + interval_ms) {
        leaf.in_dirty[m] = 0;
        leaf.dirty[k] = leaf.dirty.back();
        leaf.dirty.pop_back();
      } else {
        ++k;
      }
    }
    if (changed) {
      leaf.out.clear();
      for (std::uint32_t m : leaf.present_list) leaf.out.push_back(IdSample{leaf.out_id[m], leaf.value[m]});
    }
    return changed;
  }

  void eval(ENode& e) {
    const Node& n = *e.node;
    if (e.leaf != std::numeric_limits<std::size_t>::max()) return;  // brought up to date by update()
    switch (n.kind) {
      case Kind::Number:
        e.scalar = true;
        e.number = n.number;
        return;
      case Kind::Range: throw EvalError("a range vector where an instant vector is needed");
      case Kind::Selector:
      case Kind::Call: return;
      case Kind::Aggregate: {
        ENode& in = e.kids[0];
        eval(in);
        aggregate(e, in.scalar ? std::vector<IdSample>{} : vector_of(in));
        return;
      }
      case Kind::Negate: {
        ENode& in = e.kids[0];
        eval(in);
        e.scalar = in.scalar;
        e.number = -in.number;
        e.out.clear();
        if (!in.scalar)
          for (const IdSample& s : vector_of(in)) e.out.push_back(IdSample{table.strip_name(s.labels), -s.value});
        return;
      }
      case Kind::Binary: binary(e); return;
    }
  }

  const std::vector<IdSample>& vector_of(const ENode& e) const {
    return e.leaf != std::numeric_limits<std::size_t>::max() ? leaves[e.leaf].out : e.out;
  }

  void aggregate(ENode& e, const std::vector<IdSample>& in) {
    const Node& n = *e.node;
    ++e.epoch;
    e.touched.clear();
    for (const IdSample& s : in) {
      std::uint32_t& slot_ref = grown(e.slot_of, s.labels, NO_ID);
      if (slot_ref == NO_ID) {
        Labels key;
        for (const auto& kv : table.get(s.labels)) {
          const bool listed = std::find(n.grouping.begin(), n.grouping.end(), kv.first) != n.grouping.end();
          if (n.without ? (kv.first != NAME_LABEL && !listed) : listed) key.push_back(kv);
        }
        const std::uint32_t id = table.intern(std::move(key));
        auto [it, fresh] = e.slot_by_labels.try_emplace(id, static_cast<std::uint32_t>(e.slot_labels.size()));
        if (fresh) {
          e.slot_labels.push_back(id);
          e.acc_value.push_back(0);
          e.acc_mean.push_back(0);
          e.acc_count.push_back(0);
          e.acc_epoch.push_back(0);
          e.ranks_stale = true;
        }
        e.slot_of[s.labels] = it->second;  // slot_ref may have moved: table.intern does not touch slot_of
      }
      const std::uint32_t slot = e.slot_of[s.labels];
      if (e.acc_epoch[slot] != e.epoch) {
        e.acc_epoch[slot] = e.epoch;
        e.acc_value[slot] = s.value;
        e.acc_mean[slot] = s.value;
        e.acc_count[slot] = 1;
        e.touched.push_back(slot);
        continue;
      }
      double& value = e.acc_value[slot];
      double& mean = e.acc_mean[slot];
      double& count = e.acc_count[slot];
      count += 1;
      if (n.code == Op::Sum) value += s.value;
      else if (n.code == Op::Max) { if (value < s.value || std::isnan(value)) value = s.value; }
      else if (n.code == Op::Min) { if (value > s.value || std::isnan(value)) value = s.value; }
      else if (n.code == Op::Avg) mean += s.value / count - mean / count;
    }
    if (e.ranks_stale) {
      // The groups in the order of their labels, as Expr::evaluate's std::map gives them.
      std::vector<std::uint32_t> order(e.slot_labels.size());
      for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return table.get(e.slot_labels[a]) < table.get(e.slot_labels[b]);
      });
      e.rank.assign(order.size(), 0);
      for (std::uint32_t i = 0; i < order.size(); ++i) e.rank[order[i]] = i;
      e.ranks_stale = false;
    }
    std::sort(e.touched.begin(), e.touched.end(), [&](std::uint32_t a, std::uint32_t b) { return e.rank[a] < e.rank[b]; });
    e.scalar = false;
    e.out.clear();
    for (std::uint32_t slot : e.touched) {
      double v = e.acc_value[slot];
      if (n.code == Op::Avg) v = e.acc_mean[slot];
      if (n.code == Op::Count) v = e.acc_count[slot];
      e.out.push_back(IdSample{e.slot_labels[slot], v});
    }
  }

  void binary(ENode& e) {
    const Node& n = *e.node;
    ENode& l = e.kids[0];
    ENode& r = e.kids[1];
    eval(l);
    eval(r);
    const bool comparison = is_comparison(n.code);
    e.out.clear();
    if (l.scalar && r.scalar) {
      e.scalar = true;
      e.number = comparison ? (compare(n.code, l.number, r.number) ? 1.0 : 0.0) : arith(n.code, l.number, r.number);
      return;
    }
    e.scalar = false;
    if (!l.scalar && !r.scalar) {
      ++e.epoch;
      for (const IdSample& s : vector_of(r)) {
        const std::uint32_t sig = table.strip_name(s.labels);
        std::uint64_t& mark = grown(e.right_epoch, sig, std::uint64_t{0});
        if (mark == e.epoch)
          throw EvalError("found duplicate series for the match group " + format_labels(table.get(sig)) +
                          " on the right hand-side of the operation: many-to-many matching not allowed");
        mark = e.epoch;
        grown(e.right_value, sig, 0.0) = s.value;
      }
      for (const IdSample& s : vector_of(l)) {
        const std::uint32_t sig = table.strip_name(s.labels);
        if (grown(e.right_epoch, sig, std::uint64_t{0}) != e.epoch) continue;
        std::uint64_t& seen = grown(e.seen_epoch, sig, std::uint64_t{0});
        if (seen == e.epoch)
          throw EvalError("multiple matches for labels " + format_labels(table.get(sig)) +
                          ": many-to-one matching must be explicit");
        seen = e.epoch;
        const double rv = e.right_value[sig];
        if (comparison) {
          const bool keep = compare(n.code, s.value, rv);
          if (n.bool_modifier) e.out.push_back(IdSample{sig, keep ? 1.0 : 0.0});
          else if (keep) e.out.push_back(s);
        } else {
          e.out.push_back(IdSample{sig, arith(n.code, s.value, rv)});
        }
      }
      return;
    }
    const bool swap = l.scalar;
    const ENode& vec = swap ? r : l;
    const double k = swap ? l.number : r.number;
    for (const IdSample& s : vector_of(vec)) {
      const double a = swap ? k : s.value;
      const double b = swap ? s.value : k;
      if (comparison) {
        const bool keep = compare(n.code, a, b);
        if (n.bool_modifier) e.out.push_back(IdSample{table.strip_name(s.labels), keep ? 1.0 : 0.0});
        else if (keep) e.out.push_back(s);
      } else {
        e.out.push_back(IdSample{table.strip_name(s.labels), arith(n.code, a, b)});
      }
    }
  }
};

GridEvaluation::GridEvaluation(const Expr& expr, const std::vector<RunSeries>& series, std::int64_t step_ms,
                               std::int64_t interval_ms)
    : impl_(std::make_unique<Impl>(series, step_ms, interval_ms)) {
  if (step_ms <= 0 || interval_ms <= 0 || interval_ms % step_ms != 0)
    throw EvalError("GridEvaluation: the evaluation interval must be a multiple of the sample step");
  impl_->root = impl_->build(*expr.root_);
}

GridEvaluation::~GridEvaluation() = default;

bool GridEvaluation::advance(std::int64_t t_ms) {
  Impl& im = *impl_;
  bool changed = !im.started;
  for (Leaf& leaf : im.leaves) changed = im.update(leaf, t_ms) || changed;
  im.started = true;
  if (!changed) return false;
  im.eval(im.root);
  im.result.clear();
  if (im.root.scalar) im.result.push_back(IdSample{im.table.intern({}), im.root.number});
  else im.result = im.vector_of(im.root);
  return true;
}

const std::vector<IdSample>& GridEvaluation::result() const { return impl_->result; }
const Labels& GridEvaluation::labels(std::uint32_t id) const { return impl_->table.get(id); }

std::int64_t parse_duration_ms(std::string_view text) {
  static const std::pair<const char*, std::int64_t> UNITS[] = {
      {"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}, {"d", 86'400'000}, {"w", 604'800'000}, {"y", 31'536'000'000}};
  if (text.empty()) throw ParseError(1, "expected a duration such as 5m");
  std::int64_t total = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == start) throw ParseError(1, "not a duration: '" + std::string(text) + "' (write e.g. 5m, 1h30m, 90s)");
    std::int64_t n = 0;
    std::from_chars(text.data() + start, text.data() + i, n);
    std::int64_t unit = 0;
    for (const auto& [name, ms] : UNITS) {
      const std::string_view u(name);
      if (text.substr(i, u.size()) == u && !(u == "m" && text.substr(i, 2) == "ms")) {
        unit = ms;
        i += u.size();
        break;
      }
    }
    if (unit == 0) throw ParseError(1, "not a duration: '" + std::string(text) + "' (units: ms, s, m, h, d, w, y)");
    if (n > std::numeric_limits<std::int64_t>::max() / unit / 2) throw ParseError(1, "duration too long: '" + std::string(text) + "'");
    total += n * unit;
  }
  return total;
}

std::string format_duration_ms(std::int64_t ms) {
  if (ms <= 0) return "0s";
  std::string out;
  for (const auto& [unit, size] : {std::pair{"h", 3'600'000LL}, std::pair{"m", 60'000LL}, std::pair{"s", 1'000LL},
                                   std::pair{"ms", 1LL}}) {
    if (ms >= size) out += std::to_string(ms / size) + unit;
    ms %= size;
  }
  return out;
}

std::string format_labels(const Labels& labels) {
  std::string name;
  std::string body;
  for (const auto& [k, v] : labels) {
    if (k == NAME_LABEL) {
      name = v;
      continue;
    }
    if (!body.empty()) body += ", ";
    body += k + "=\"";
    for (char c : v) {
      if (c == '"' || c == '\\') body.push_back('\\');
      body.push_back(c);
    }
    body += '"';
  }
  return name + "{" + body + "}";
}

}  // namespace gcsim::promql
