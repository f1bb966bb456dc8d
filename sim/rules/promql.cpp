// A PromQL subset with Prometheus 2.42's semantics (see promql.hpp and docs/alerts.md).
#include "sim/rules/promql.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <regex>

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

}  // namespace

struct Node {
  Kind kind = Kind::Number;
  std::size_t column = 1;
  double number = 0;
  std::vector<Matcher> matchers;  // Selector (the name as a __name__ matcher)
  std::int64_t range_ms = 0;      // Range
  std::string op;                 // Call: the function; Aggregate: avg...; Binary: + > ...
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

double arith(const std::string& op, double a, double b) {
  if (op == "+") return a + b;
  if (op == "-") return a - b;
  if (op == "*") return a * b;
  return a / b;
}

bool compare(const std::string& op, double a, double b) {
  if (op == ">") return a > b;
  if (op == "<") return a < b;
  if (op == ">=") return a >= b;
  if (op == "<=") return a <= b;
  if (op == "==") return a == b;
  return a != b;
}

// Prometheus' extrapolatedRate for a counter (rate and increase treat every series as one:
// a fall is a reset).
std::optional<double> extrapolated_rate(const Series& s, std::size_t first, std::size_t last, std::int64_t range_start,
                                        std::int64_t range_end, double range_s, bool is_rate) {
  if (last < first + 1) return std::nullopt;  // fewer than two samples
  double result = s.values[last] - s.values[first];
  double previous = 0;
  for (std::size_t i = first; i <= last; ++i) {
    if (s.values[i] < previous) result += previous;
    previous = s.values[i];
  }
  double to_start = static_cast<double>(s.t_ms[first] - range_start) / 1000;
  const double to_end = static_cast<double>(range_end - s.t_ms[last]) / 1000;
  const double sampled = static_cast<double>(s.t_ms[last] - s.t_ms[first]) / 1000;
  const double average = sampled / static_cast<double>(last - first);
  if (result > 0 && s.values[first] >= 0) {
    const double to_zero = sampled * (s.values[first] / result);
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
    const auto last = static_cast<std::size_t>(hi - s->t_ms.begin()) - 1;
    std::optional<double> v;
    if (n.op == "rate" || n.op == "increase") {
      v = extrapolated_rate(*s, first, last, start, t, static_cast<double>(range.range_ms) / 1000, n.op == "rate");
    } else if (n.op == "avg_over_time") {
      double mean = 0;
      double count = 0;
      for (std::size_t i = first; i <= last; ++i) {
        count += 1;
        mean += s->values[i] / count - mean / count;
      }
      v = mean;
    } else if (n.op == "sum_over_time") {
      double sum = 0;
      for (std::size_t i = first; i <= last; ++i) sum += s->values[i];
      v = sum;
    } else {
      double x = s->values[first];
      for (std::size_t i = first + 1; i <= last; ++i) {
        const double y = s->values[i];
        if (n.op == "max_over_time" ? (y > x || std::isnan(x)) : (y < x || std::isnan(x))) x = y;
      }
      v = x;
    }
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
    if (n.op == "sum") g.value += s.value;
    else if (n.op == "max") { if (g.value < s.value || std::isnan(g.value)) g.value = s.value; }
    else if (n.op == "min") { if (g.value > s.value || std::isnan(g.value)) g.value = s.value; }
    else if (n.op == "avg") g.mean += s.value / g.count - g.mean / g.count;
  }
  Vector out;
  for (auto& [key, g] : groups) {
    double v = g.value;
    if (n.op == "avg") v = g.mean;
    if (n.op == "count") v = g.count;
    out.push_back(Sample{std::move(g.labels), v});
  }
  return out;
}

Vector eval_binary_vectors(const Node& n, const Vector& lhs, const Vector& rhs) {
  const bool comparison = is_comparison(n.op);
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
      const bool keep = compare(n.op, l.value, r);
      if (n.bool_modifier) out.push_back(Sample{sig, keep ? 1.0 : 0.0});
      else if (keep) out.push_back(l);
    } else {
      out.push_back(Sample{std::move(sig), arith(n.op, l.value, r)});
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
      for (Sample& s : v.vector) {
        s.labels = without_name(s.labels);
        s.value = -s.value;
      }
      return v;
    }
    case Kind::Binary: {
      Value l = eval(*n.args[0], all, t);
      Value r = eval(*n.args[1], all, t);
      const bool comparison = is_comparison(n.op);
      if (l.scalar && r.scalar) {
        const double v = comparison ? (compare(n.op, l.number, r.number) ? 1.0 : 0.0) : arith(n.op, l.number, r.number);
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
          const bool keep = compare(n.op, a, b);
          if (n.bool_modifier) out.push_back(Sample{without_name(s.labels), keep ? 1.0 : 0.0});
          else if (keep) out.push_back(std::move(s));
        } else {
          out.push_back(Sample{without_name(s.labels), arith(n.op, a, b)});
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
