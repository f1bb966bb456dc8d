// Parsing of spot interruption and availability specs, the skypilot-spot trace reader, the
// advisor catalog and capacity profiles (see spot_spec.hpp and docs/spot.md).
//
// The trace reader is a small strict JSON reader for exactly the trace shape rather than
// the YAML loader: building a ConfigNode per value made a 20,158-value trace take 0.7 s
// (16,090 values plus as many prices: 1.6 s) in a debug build; this reader takes
// milliseconds and still names file:line:column in every error.
#include "models/spot/spot_spec.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

#include "models/core/limits.hpp"
#include "sim/config/csv.hpp"
#include "sim/check.hpp"
#include "sim/config/reader.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::models {
namespace {

using config::ConfigNode;
using config::MapReader;

constexpr int MAX_TRACE_VALUE = 1'000'000;

// ---------------------------------------------------------------------------------------
// A strict reader for {"metadata": {"gap_seconds": G}, "data": [...], "prices": [...]}.
class TraceReader {
 public:
  TraceReader(std::string file, const std::string& text) : file_(std::move(file)), text_(text) {}

  SpotTrace read() {
    SpotTrace trace;
    trace.file = file_;
    skip_ws();
    const SourceMark root = mark();
    bool has_metadata = false;
    bool has_data = false;
    bool has_prices = false;
    parse_object("", [&](const std::string& key, const SourceMark& key_mark) {
      if (key == "metadata") {
        once(has_metadata, key, key_mark);
        trace.gap = read_metadata();
      } else if (key == "data") {
        once(has_data, key, key_mark);
        read_data(trace.values);
      } else if (key == "prices") {
        // Some preemption traces carry the spot price per tick; we replay counts only.
        once(has_prices, key, key_mark);
        skip_number_list("prices");
      } else {
        unknown_key(key, key_mark, "", {"metadata", "data", "prices"});
      }
    });
    skip_ws();
    if (pos_ != text_.size()) fail(ErrorCode::Syntax, mark(), "", "unexpected text after the trace's closing '}'");
    if (!has_metadata) fail(ErrorCode::MissingKey, root, "metadata", "missing required key 'metadata'");
    if (!has_data) fail(ErrorCode::MissingKey, root, "data", "missing required key 'data'");
    // trace_profile works in raw nanoseconds up to the trace's length: it must be a time.
    if (trace.length().is_max())
      fail(ErrorCode::OutOfRange, root, "metadata.gap_seconds",
           "the trace's " + std::to_string(trace.values.size()) + " ticks of " +
               units::format_duration_s(trace.gap.seconds()) +
               " last beyond the simulated time range (about 292 years)");
    return trace;
  }

 private:
  [[noreturn]] void fail(ErrorCode code, const SourceMark& m, const std::string& path, std::string detail) const {
    throw ConfigError(code, m, path, std::move(detail));
  }
  SourceMark mark() const { return SourceMark{file_, line_, static_cast<int>(pos_ - line_start_) + 1}; }

  void skip_ws() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        line_start_ = pos_ + 1;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        return;
      }
      ++pos_;
    }
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void expect(char c, const std::string& path) {
    skip_ws();
    if (peek() != c) {
      // Not the character itself: the trace may be any file a link points to (docs/units.md).
      const std::string got = pos_ < text_.size() ? "something else" : "the end of the file";
      fail(ErrorCode::Syntax, mark(), path, std::string("expected '") + c + "', got " + got);
    }
    ++pos_;
  }

  std::string parse_string(const std::string& path) {
    expect('"', path);
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\' || text_[pos_] == '\n')
        fail(ErrorCode::Syntax, mark(), path, "escapes and line breaks are not used in trace keys");
      out += text_[pos_++];
    }
    if (pos_ >= text_.size()) fail(ErrorCode::Syntax, mark(), path, "unterminated string");
    ++pos_;
    return out;
  }

  template <class OnKey>
  void parse_object(const std::string& path, OnKey on_key) {
    expect('{', path);
    skip_ws();
    if (peek() == '}') {
      ++pos_;
      return;
    }
    while (true) {
      skip_ws();
      const SourceMark key_mark = mark();
      const std::string key = parse_string(path);
      expect(':', path);
      skip_ws();
      on_key(key, key_mark);
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect('}', path);
      return;
    }
  }

  void once(bool& seen, const std::string& key, const SourceMark& m) const {
    if (seen) fail(ErrorCode::Duplicate, m, key, "a duplicate key");
    seen = true;
  }
  [[noreturn]] void unknown_key(const std::string& key, const SourceMark& m, const std::string& parent,
                                const std::vector<std::string>& known) const {
    // The key's text is not quoted, nor in the path: the trace may be any file.
    std::string detail = "an unknown key";
    const std::string s = did_you_mean(key, known);
    detail += s.empty() ? "; valid keys: " : "; did you mean '" + s + "'? valid keys: ";
    for (std::size_t i = 0; i < known.size(); ++i) detail += (i ? ", " : "") + known[i];
    fail(ErrorCode::UnknownKey, m, parent, detail);
  }

  // A JSON number's text at pos_ (not consumed past it); WrongType when the value is not one.
  std::string_view number_text(const std::string& path) {
    skip_ws();
    const std::size_t begin = pos_;
    std::size_t end = pos_;
    while (end < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[end])) || text_[end] == '-' ||
                                  text_[end] == '+' || text_[end] == '.' || text_[end] == 'e' || text_[end] == 'E'))
      ++end;
    if (end == begin) {
      if (begin >= text_.size()) fail(ErrorCode::Syntax, mark(), path, "expected a number, got the end of the file");
      const char c = text_[begin];
      if (c == '"' || c == '{' || c == '[' || std::isalpha(static_cast<unsigned char>(c)))
        fail(ErrorCode::WrongType, mark(), path, "expected a number");
      fail(ErrorCode::Syntax, mark(), path, "expected a number");
    }
    return std::string_view(text_).substr(begin, end - begin);
  }
  double parse_double(const std::string& path) {
    const SourceMark m = mark();
    const std::string_view t = number_text(path);
    double v = 0;
    if (!t.empty() && t.front() == '+') fail(ErrorCode::Syntax, m, path, "JSON numbers have no '+' sign");
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || ptr != t.data() + t.size() || !std::isfinite(v))
      fail(ErrorCode::WrongType, m, path, "expected a number (a finite JSON number)");
    pos_ += t.size();
    return v;
  }

  sim::SimTime read_metadata() {
    sim::SimTime gap;
    bool has_gap = false;
    const SourceMark m = mark();
    parse_object("metadata", [&](const std::string& key, const SourceMark& key_mark) {
      if (key != "gap_seconds") unknown_key(key, key_mark, "metadata", {"gap_seconds"});
      once(has_gap, "metadata.gap_seconds", key_mark);
      skip_ws();
      const SourceMark vm = mark();
      const double g = parse_double("metadata.gap_seconds");
      if (!(g > 0) || g > 1e9)
        fail(ErrorCode::OutOfRange, vm, "metadata.gap_seconds", "the gap between ticks must be a positive number of seconds");
      gap = sim::SimTime::from_seconds(g);
      if (gap < limits::MIN_TRACE_TICK)
        fail(ErrorCode::OutOfRange, vm, "metadata.gap_seconds",
             "the gap between ticks must be at least 1 second (providers publish capacity every few minutes at best)");
    });
    if (!has_gap) fail(ErrorCode::MissingKey, m, "metadata.gap_seconds", "missing required key 'gap_seconds'");
    return gap;
  }

  void read_data(std::vector<int>& values) {
    skip_ws();
    if (peek() != '[') fail(ErrorCode::WrongType, mark(), "data", "expected a list of instance counts");
    ++pos_;
    values.reserve(text_.size() / 3);
    skip_ws();
    if (peek() == ']') fail(ErrorCode::OutOfRange, mark(), "data", "the trace has no data");
    while (true) {
      const std::string path = "data[" + std::to_string(values.size()) + "]";
      skip_ws();
      const SourceMark m = mark();
      const double v = parse_double(path);
      if (v != std::floor(v)) fail(ErrorCode::WrongType, m, path, "an instance count must be an integer");
      if (v < 0 || v > MAX_TRACE_VALUE)
        fail(ErrorCode::OutOfRange, m, path, "an instance count must be between 0 and " + std::to_string(MAX_TRACE_VALUE));
      values.push_back(static_cast<int>(v));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(']', "data");
      break;
    }
    values.shrink_to_fit();
  }

  void skip_number_list(const std::string& key) {
    skip_ws();
    if (peek() != '[') fail(ErrorCode::WrongType, mark(), key, "expected a list of numbers");
    ++pos_;
    skip_ws();
    if (peek() == ']') {
      ++pos_;
      return;
    }
    for (std::size_t i = 0;; ++i) {
      (void)parse_double(key + "[" + std::to_string(i) + "]");
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(']', key);
      return;
    }
  }

  std::string file_;
  const std::string& text_;
  std::size_t pos_ = 0;
  std::size_t line_start_ = 0;
  int line_ = 1;
};

// ---------------------------------------------------------------------------------------
// Parsing helpers.

const std::vector<std::string>& process_names() {
  static const std::vector<std::string> names{"none", "poisson", "weibull", "trace", "price"};
  return names;
}

InterruptionProcess process_of(const std::string& name) {
  if (name == "poisson") return InterruptionProcess::Poisson;
  if (name == "weibull") return InterruptionProcess::Weibull;
  if (name == "trace") return InterruptionProcess::Trace;
  if (name == "price") return InterruptionProcess::Price;
  return InterruptionProcess::None;
}

// Which process each process-specific key belongs to.
struct KeyOwner {
  std::string_view key;
  InterruptionProcess process;
};
constexpr KeyOwner KEY_OWNERS[] = {
    {"rate", InterruptionProcess::Poisson},  {"advisor", InterruptionProcess::Poisson},
    {"shape", InterruptionProcess::Weibull}, {"scale", InterruptionProcess::Weibull},
    {"file", InterruptionProcess::Trace},    {"start", InterruptionProcess::Trace},
    {"loop", InterruptionProcess::Trace},
};

struct TraceRef {
  CapacityProfile profile;
  std::string file;
  sim::SimTime start;
  bool loop = false;
};

// {file, start, loop} of a map already opened by `r`.
TraceRef read_trace_ref(MapReader& r, config::SourceResolver& sources) {
  TraceRef ref;
  const ConfigNode& file_node = r.required("file");
  ref.file = config::SourceResolver::resolve(file_node.mark().file, config::read_string(file_node));
  const SpotTrace trace = parse_spot_trace(ref.file, sources.read(file_node, "trace file"));
  ref.start = r.value<sim::SimTime>("start");
  if (const ConfigNode* s = r.where("start")) {
    if (ref.start >= trace.length())
      s->fail(ErrorCode::OutOfRange, "start must lie within the trace, which lasts " +
                                         std::to_string(trace.length().seconds()) + " s");
  }
  ref.loop = r.value<bool>("loop");
  ref.profile = trace_profile(trace, ref.start, ref.loop);
  return ref;
}

CorrelatedSpec parse_correlated(const ConfigNode& node) {
  MapReader r(node, CORRELATED_KEYS);
  CorrelatedSpec c;
  c.rate_per_s = r.need<double>("rate");
  c.fraction = r.need<double>("fraction");
  return c;
}

double advisor_rate(const ConfigNode& node, const SpotAdvisor* advisor) {
  if (advisor == nullptr)
    node.fail(ErrorCode::UnknownName, "no spot advisor catalog is loaded (scenarios/catalog/aws_spot_advisor_gpu.csv)");
  MapReader r(node, ADVISOR_KEYS);
  const ConfigNode& region_node = r.required("region");
  const ConfigNode& instance_node = r.required("instance");
  const std::string region = config::read_string(region_node);
  const std::string instance = config::read_string(instance_node);
  if (const AdvisorEntry* e = advisor->find(region, instance)) return advisor_band_rate_per_s(e->band);
  std::vector<std::string> regions;
  std::vector<std::string> instances;
  for (const AdvisorEntry& e : advisor->entries()) {
    if (std::find(regions.begin(), regions.end(), e.region) == regions.end()) regions.push_back(e.region);
    if (e.region == region) instances.push_back(e.instance);
  }
  if (instances.empty()) {
    const std::string s = did_you_mean(region, regions);
    region_node.fail(ErrorCode::UnknownName, "the spot advisor lists no region '" + region + "'" +
                                                 (s.empty() ? std::string() : "; did you mean '" + s + "'?"));
  }
  const std::string s = did_you_mean(instance, instances);
  instance_node.fail(ErrorCode::UnknownName, "the spot advisor lists no '" + instance + "' in " + region +
                                                 (s.empty() ? std::string() : "; did you mean '" + s + "'?"));
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Traces

SpotTrace parse_spot_trace(const std::string& path, const std::string& text) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ConfigError(ErrorCode::EmptyFile, SourceMark{path, 0, 0}, "", "the trace file is empty");
  return TraceReader(path, text).read();
}

CapacityProfile trace_profile(const SpotTrace& trace, sim::SimTime start, bool loop) {
  const std::int64_t gap = trace.gap.ns();
  const std::int64_t n = static_cast<std::int64_t>(trace.values.size());
  const std::int64_t length = gap * n;
  GCSIM_CHECK(n > 0 && start >= sim::SimTime::zero() && start.ns() < length,
              "trace start " + std::to_string(start.ns()) + " ns outside a trace of " + std::to_string(length) + " ns");
  const std::int64_t k0 = start.ns() / gap;
  std::vector<CapacityPoint> points{{sim::SimTime::zero(), trace.values[static_cast<std::size_t>(k0)]}};
  auto push = [&](std::int64_t at_ns, int value) {
    if (value != points.back().value) points.push_back({sim::SimTime::from_ns(at_ns), value});
  };
  for (std::int64_t k = k0 + 1; k < n; ++k) push(k * gap - start.ns(), trace.values[static_cast<std::size_t>(k)]);
  if (!loop) return CapacityProfile(std::move(points), sim::SimTime::zero());
  // The next lap: ticks 0..k0 again, after the trace's end (a tick at exactly `length` is
  // the next period's first point, already point 0).
  for (std::int64_t k = 0; k <= k0; ++k) {
    const std::int64_t at = length - start.ns() + k * gap;
    if (at < length) push(at, trace.values[static_cast<std::size_t>(k)]);
  }
  return CapacityProfile(std::move(points), sim::SimTime::from_ns(length));
}

std::string_view interruption_process_name(InterruptionProcess p) {
  switch (p) {
    case InterruptionProcess::None: return "none";
    case InterruptionProcess::Poisson: return "poisson";
    case InterruptionProcess::Weibull: return "weibull";
    case InterruptionProcess::Trace: return "trace";
    case InterruptionProcess::Price: return "price";
  }
  return "unknown";
}

// ---------------------------------------------------------------------------------------
// Advisor

double advisor_band_monthly_probability(int band) {
  static constexpr double P[ADVISOR_BANDS] = {0.025, 0.075, 0.125, 0.175, 0.225};
  GCSIM_CHECK(band >= 0 && band < ADVISOR_BANDS, "advisor band " + std::to_string(band));
  return P[band];
}

double advisor_band_rate_per_s(int band) {
  return -std::log1p(-advisor_band_monthly_probability(band)) / (static_cast<double>(units::HOURS_PER_MONTH) * 3600.0);
}

SpotAdvisor SpotAdvisor::parse(const std::string& csv_path, const std::string& text) {
  static const char* const LABELS[ADVISOR_BANDS] = {"<5%", "5-10%", "10-15%", "15-20%", ">20%"};
  static const std::string HEADER =
      "region,instance_type,savings_vs_ondemand_pct,interruption_band_index,interruption_frequency_label";
  SpotAdvisor a;
  a.file_ = csv_path;
  std::set<std::pair<std::string, std::string>> seen;
  std::istringstream in(text);
  config::csv::Reader reader(in, csv_path, true);
  config::csv::Row row;
  bool header_seen = false;
  while (reader.next(row)) {
    const int line_no = row.line;
    auto fail = [&](ErrorCode code, int column, std::string detail) {
      config::csv::fail(code, csv_path, line_no, column, "", detail);
    };
    const std::vector<config::csv::Field>& fields = row.fields;
    if (!header_seen) {
      std::string names;
      for (const config::csv::Field& field : fields) names += (names.empty() ? "" : ",") + field.text;
      if (names != HEADER) fail(ErrorCode::Syntax, 1, "expected the header '" + HEADER + "'");
      header_seen = true;
      continue;
    }
    if (fields.size() != 5)
      fail(ErrorCode::Syntax, fields.back().column, "expected 5 fields, got " + std::to_string(fields.size()));
    std::vector<std::string> f;
    for (const config::csv::Field& field : fields) f.push_back(field.text);
    auto integer = [&](std::size_t i, int lo, int hi) {
      int v = 0;
      const auto [ptr, ec] = std::from_chars(f[i].data(), f[i].data() + f[i].size(), v);
      if (ec != std::errc() || ptr != f[i].data() + f[i].size() || f[i].empty())
        fail(ErrorCode::WrongType, fields[i].column, "expected an integer, got '" + f[i] + "'");
      if (v < lo || v > hi)
        fail(ErrorCode::OutOfRange, fields[i].column, "'" + f[i] + "' must be between " + std::to_string(lo) + " and " +
                                                          std::to_string(hi));
      return v;
    };
    AdvisorEntry e;
    e.region = f[0];
    e.instance = f[1];
    if (e.region.empty() || e.instance.empty()) fail(ErrorCode::Syntax, 1, "empty region or instance type");
    e.savings_pct = integer(2, -100, 100);  // negative: spot above on-demand (ca-central-1 p5.48xlarge)
    e.band = integer(3, 0, ADVISOR_BANDS - 1);
    if (f[4] != LABELS[e.band])
      fail(ErrorCode::Conflict, fields[4].column, "band " + std::to_string(e.band) + " is '" + LABELS[e.band] + "', not '" +
                                             f[4] + "'");
    if (!seen.insert({e.region, e.instance}).second)
      fail(ErrorCode::Duplicate, 1, e.region + " " + e.instance + " is listed twice");
    a.entries_.push_back(std::move(e));
  }
  if (!header_seen) throw ConfigError(ErrorCode::EmptyFile, SourceMark{csv_path, 0, 0}, "", "the advisor file is empty");
  return a;
}

const AdvisorEntry* SpotAdvisor::find(std::string_view region, std::string_view instance) const {
  for (const AdvisorEntry& e : entries_)
    if (e.region == region && e.instance == instance) return &e;
  return nullptr;
}

double SpotAdvisor::advisor_rate_per_s(std::string_view region, std::string_view instance) const {
  const AdvisorEntry* e = find(region, instance);
  if (e == nullptr)
    throw ConfigError(ErrorCode::UnknownName, SourceMark{file_, 0, 0}, "",
                      "the spot advisor lists no '" + std::string(instance) + "' in '" + std::string(region) + "'");
  return advisor_band_rate_per_s(e->band);
}

// ---------------------------------------------------------------------------------------
// Interruptions

InterruptionSpec parse_interruptions(const ConfigNode& node, config::SourceResolver& sources, const SpotAdvisor* advisor) {
  MapReader r(node, INTERRUPTION_KEYS);
  InterruptionSpec s;
  s.process = process_of(config::read_enum(r.required("process"), process_names()));
  for (const KeyOwner& o : KEY_OWNERS) {
    const ConfigNode* v = node.find(o.key);
    if (v != nullptr && o.process != s.process)
      v->fail(ErrorCode::Conflict, "'" + std::string(o.key) + "' applies to process " +
                                       std::string(interruption_process_name(o.process)) + ", not " +
                                       std::string(interruption_process_name(s.process)));
  }
  switch (s.process) {
    case InterruptionProcess::Poisson: {
      const ConfigNode* rate = r.where("rate");
      const ConfigNode* adv = r.optional("advisor");
      if (rate != nullptr && adv != nullptr) adv->fail(ErrorCode::Conflict, "give rate or advisor, not both");
      if (rate != nullptr) {
        s.rate_per_s = *r.get<double>("rate");
      } else if (adv != nullptr) {
        s.rate_per_s = advisor_rate(*adv, advisor);
      } else {
        throw ConfigError(ErrorCode::MissingKey, node.mark(), config::join_key_path(node.path(), "rate"),
                          "a poisson process needs a rate (0.05/h) or an advisor: {region, instance}");
      }
      break;
    }
    case InterruptionProcess::Weibull:
      s.weibull_shape = r.need<double>("shape");
      // The scale is about the mean time between interruptions: the rate's floor, inverted.
      s.weibull_scale = r.need<sim::SimTime>("scale");
      break;
    case InterruptionProcess::Trace: {
      TraceRef ref = read_trace_ref(r, sources);
      s.trace = std::move(ref.profile);
      s.trace_file = std::move(ref.file);
      s.trace_start = ref.start;
      s.loop = ref.loop;
      break;
    }
    case InterruptionProcess::Price:
    case InterruptionProcess::None: break;
  }
  if (const ConfigNode* c = r.optional("correlated")) s.correlated = parse_correlated(*c);
  r.finish();
  return s;
}

// ---------------------------------------------------------------------------------------
// Availability

int nodes_of_fraction(double fraction, int count) {
  const int n = static_cast<int>(std::floor(fraction * count + 1e-9));
  return std::clamp(n, 0, count);
}

int AvailabilitySpec::capacity_at(sim::SimTime t, int count) const {
  if (!profile.empty()) return std::min(count, profile.value_at(t));
  for (const AvailabilityWindow& w : windows) {
    const std::int64_t every = w.every.ns();
    const std::int64_t phase = (((t - w.from).ns() % every) + every) % every;
    if (phase < (w.to - w.from).ns()) return nodes_of_fraction(w.available_fraction, count);
  }
  return windows.empty() ? count : nodes_of_fraction(otherwise_fraction, count);
}

sim::SimTime AvailabilitySpec::next_change_after(sim::SimTime t) const {
  if (!profile.empty()) return profile.next_change_after(t);
  sim::SimTime next = sim::SimTime::max();
  for (const AvailabilityWindow& w : windows) {
    const std::int64_t every = w.every.ns();
    const std::int64_t width = (w.to - w.from).ns();
    const std::int64_t phase = (((t - w.from).ns() % every) + every) % every;
    const std::int64_t to_open = every - phase;                                  // next `from`
    const std::int64_t to_close = phase < width ? width - phase : every - phase + width;  // next `to`
    next = std::min(next, t.saturating_add(sim::SimTime::from_ns(std::min(to_open, to_close))));
  }
  return next;
}

AvailabilitySpec parse_availability(const ConfigNode& node, config::SourceResolver& sources) {
  MapReader r(node, AVAILABILITY_KEYS);
  AvailabilitySpec s;
  const ConfigNode* windows = r.optional("windows");
  const ConfigNode* file = node.is_map() ? node.find("file") : nullptr;
  if (windows != nullptr && file != nullptr) file->fail(ErrorCode::Conflict, "give windows or file, not both");
  if (windows == nullptr && file == nullptr)
    throw ConfigError(ErrorCode::MissingKey, node.mark(), config::join_key_path(node.path(), "windows"),
                      "availability needs windows: [...] or a trace file: F");
  if (file != nullptr) {
    if (const ConfigNode* v = node.find("otherwise"))
      v->fail(ErrorCode::Conflict, "'otherwise' goes with windows, not a file");
    TraceRef ref = read_trace_ref(r, sources);
    s.profile = std::move(ref.profile);
    s.trace_file = std::move(ref.file);
    r.finish();
    return s;
  }
  for (const char* k : {"start", "loop"})
    if (const ConfigNode* v = node.find(k))
      v->fail(ErrorCode::Conflict, "'" + std::string(k) + "' goes with a trace file, not windows");
  if (!windows->is_sequence() || windows->size() == 0)
    windows->fail(ErrorCode::WrongType, "windows must be a non-empty list of {every, from, to, available}");
  for (const ConfigNode& wn : windows->items()) {
    MapReader wr(wn, AVAILABILITY_WINDOW_KEYS);
    AvailabilityWindow w;
    w.every = wr.need<sim::SimTime>("every");
    w.from = wr.need<sim::SimTime>("from");
    if (w.from >= w.every) wr.where("from")->fail(ErrorCode::OutOfRange, "from must lie within the period (before every)");
    w.to = wr.need<sim::SimTime>("to");
    const ConfigNode& to = *wr.where("to");
    if (w.to <= w.from) to.fail(ErrorCode::OutOfRange, "to must come after from");
    if (w.to - w.from > w.every) to.fail(ErrorCode::OutOfRange, "a window cannot be longer than its period");
    w.available_fraction = wr.need<double>("available");
    s.windows.push_back(w);
  }
  s.otherwise_fraction = r.value<double>("otherwise");
  r.finish();
  return s;
}

}  // namespace gcsim::models
