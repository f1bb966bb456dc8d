// Sweep files: reading and expanding into points (see sweep_spec.hpp).
#include "models/config/sweep_spec.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <utility>

#include "sim/config/reader.hpp"
#include "sim/rng.hpp"
#include "sim/units.hpp"

namespace gcsim::models {

namespace {

using config::ConfigNode;

// A value as one line of text, for tables: scalars as written, maps and lists in flow style.
std::string flow_text(const ConfigNode& node) {
  if (node.is_null()) return "~";
  if (node.is_scalar()) return std::string(node.scalar());
  std::string out;
  if (node.is_sequence()) {
    out = "[";
    for (std::size_t i = 0; i < node.size(); ++i) out += (i > 0 ? ", " : "") + flow_text(node.at(i));
    return out + "]";
  }
  out = "{";
  bool first = true;
  for (const auto& [key, value] : node.entries()) {
    out += (first ? "" : ", ") + std::string(key) + ": " + flow_text(value);
    first = false;
  }
  return out + "}";
}

// The entries of a map of key paths (grid, zip, ranges), each path checked for syntax
// at the key and for a repeat across the whole `vary` section.
template <class F>
void read_paths(const ConfigNode& map, std::vector<std::string>& seen, F&& each) {
  if (!map.is_map() || map.entries().empty())
    map.fail(ErrorCode::WrongType, "a map of key paths (cluster.node_types[0].count: ...), at least one");
  const auto all = map.entries();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::string path(all[i].first);
    const SourceMark mark = map.key_mark(i);
    parse_key_path(path, mark);
    if (std::find(seen.begin(), seen.end(), path) != seen.end())
      throw ConfigError(ErrorCode::Duplicate, mark, map.path(), "'" + path + "' is varied twice in this sweep");
    seen.push_back(path);
    each(path, mark, all[i].second);
  }
}

std::vector<SweepAxis> read_axes(const ConfigNode& map, std::vector<std::string>& seen) {
  std::vector<SweepAxis> axes;
  read_paths(map, seen, [&](const std::string& path, const SourceMark& mark, const ConfigNode& values) {
    if (!values.is_sequence() || values.size() == 0)
      values.fail(ErrorCode::WrongType, "the values of '" + path + "': a list of one or more ([2, 4, 8])");
    SweepAxis axis{path, mark, {}};
    for (const ConfigNode& v : values.items()) axis.values.push_back(v);
    axes.push_back(std::move(axis));
  });
  return axes;
}

bool integer_text(std::string_view text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && end == text.data() + text.size();
}

double number_of(const ConfigNode& node, const std::string& path) {
  if (!node.is_scalar()) node.fail(ErrorCode::WrongType, "a bound of '" + path + "' is a number");
  const std::string text = node.scalar();
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    node.fail(ErrorCode::WrongType, "a bound of '" + path + "' is a plain number (2, 0.5, 1e3), got '" + text + "'");
  return v;
}

SweepSample read_sample(const ConfigNode& node, std::vector<std::string>& seen) {
  config::MapReader r(node, SWEEP_SAMPLE_KEYS);
  SweepSample s;
  s.samples = r.value<std::int64_t>("samples");
  s.seed = static_cast<std::uint64_t>(r.value<std::int64_t>("seed"));
  read_paths(r.required("ranges"), seen, [&](const std::string& path, const SourceMark& mark, const ConfigNode& bounds) {
    if (!bounds.is_sequence() || bounds.size() != 2)
      bounds.fail(ErrorCode::WrongType, "the range of '" + path + "': [min, max]");
    SweepRange range{path, mark, number_of(bounds.at(0), path), number_of(bounds.at(1), path), false};
    if (range.min > range.max)
      bounds.fail(ErrorCode::OutOfRange, "the range of '" + path + "' runs from its min to its max: min is above max");
    range.integer = integer_text(bounds.at(0).scalar()) && integer_text(bounds.at(1).scalar());
    s.ranges.push_back(std::move(range));
  });
  r.finish();
  return s;
}

// A drawn value as text: a whole number, or the shortest text that reads back the same double.
std::string number_text(double v, bool integer) {
  return integer ? std::to_string(static_cast<std::int64_t>(v)) : units::shortest_text(v);
}

// u in [0, 1) onto the range: whole numbers min..max each with probability 1 / (max - min + 1).
double scale(const SweepRange& r, double u) {
  if (!r.integer) return r.min + u * (r.max - r.min);
  const double v = r.min + std::floor(u * (r.max - r.min + 1));
  return std::min(v, r.max);
}

// samples x ranges values in [0, 1): each range from its own stream.
std::vector<std::vector<double>> draw(const SweepSample& s, bool latin) {
  const auto n = static_cast<std::size_t>(s.samples);
  std::vector<std::vector<double>> u(s.ranges.size(), std::vector<double>(n));
  for (std::size_t k = 0; k < s.ranges.size(); ++k) {
    sim::RngStream rng(s.seed, 0, (latin ? "sweep.latin_hypercube." : "sweep.random.") + s.ranges[k].path);
    if (!latin) {
      for (double& x : u[k]) x = rng.uniform01();
      continue;
    }
    // One sample in each of n equal strata, the strata in a random order (Fisher-Yates).
    std::vector<std::size_t> stratum(n);
    for (std::size_t i = 0; i < n; ++i) stratum[i] = i;
    for (std::size_t i = n; i > 1; --i) std::swap(stratum[i - 1], stratum[rng.uniform_int(i)]);
    for (std::size_t i = 0; i < n; ++i) u[k][i] = (static_cast<double>(stratum[i]) + rng.uniform01()) / static_cast<double>(n);
  }
  return u;
}

}  // namespace

SweepSpec read_sweep_file(const std::string& path) { return read_sweep(config::load_yaml_file(path)); }

SweepSpec read_sweep(const config::ConfigDocument& document) {
  const ConfigNode& root = document.root;
  if (!root.is_map()) root.fail(ErrorCode::WrongType, "a sweep file is a map: base, replications, vary, metrics");
  config::MapReader r(root, SWEEP_KEYS);
  SweepSpec s;
  s.file = document.file;
  const ConfigNode& base = r.required("base");
  const std::string base_text = base.scalar();
  if (base_text.empty()) base.fail(ErrorCode::MissingKey, "name the base scenario file");
  const std::filesystem::path base_path(base_text);
  s.base = base_path.is_absolute() ? base_text : (std::filesystem::path(document.file).parent_path() / base_path).string();
  s.base_mark = base.mark();
  if (const ConfigNode* reps = r.optional("replications")) {
    if (reps->is_map()) {
      config::MapReader a(*reps, SWEEP_ADAPTIVE_KEYS);
      s.replications = a.value<std::int64_t>("min");
      s.max_replications = a.value<std::int64_t>("max");
      if (s.max_replications < s.replications)
        a.where("max")->fail(ErrorCode::OutOfRange, "max (" + std::to_string(s.max_replications) + ") is below min (" +
                                                        std::to_string(s.replications) + ")");
      config::MapReader u(a.required("until"), SWEEP_UNTIL_KEYS);
      SweepStopRule rule;
      const ConfigNode& metric = u.required("metric");
      rule.metric = metric.scalar();
      rule.mark = metric.mark();
      rule.ci95_relative = u.value<double>("ci95_relative");
      u.finish();
      a.finish();
      s.until = std::move(rule);
    } else {
      s.replications = config::read_key_int(*reps, SWEEP_REPLICATION_COUNT);
      s.max_replications = s.replications;
    }
  }
  std::vector<std::string> seen;
  {
    const ConfigNode& vary = r.required("vary");
    s.vary_mark = vary.mark();
    config::MapReader v(vary, SWEEP_VARY_KEYS);
    if (const ConfigNode* grid = v.optional("grid")) s.grid = read_axes(*grid, seen);
    if (const ConfigNode* zip = v.optional("zip")) {
      s.zip = read_axes(*zip, seen);
      for (const SweepAxis& a : s.zip)
        if (a.values.size() != s.zip.front().values.size())
          throw ConfigError(ErrorCode::Conflict, a.mark, "vary.zip." + a.path,
                            "zip's lists are varied together, so they have one length: '" + a.path + "' has " +
                                std::to_string(a.values.size()) + " values, '" + s.zip.front().path + "' " +
                                std::to_string(s.zip.front().values.size()));
    }
    if (const ConfigNode* random = v.optional("random")) s.random = read_sample(*random, seen);
    if (const ConfigNode* lhs = v.optional("latin_hypercube")) s.latin_hypercube = read_sample(*lhs, seen);
    v.finish();
    if (seen.empty()) vary.fail(ErrorCode::MissingKey, "vary at least one key: grid, zip, random or latin_hypercube");
  }
  if (const ConfigNode* metrics = r.optional("metrics")) {
    if (!metrics->is_sequence() || metrics->size() == 0)
      metrics->fail(ErrorCode::WrongType, "a list of figure names ([total_cost_usd, jct_mean_s])");
    for (const ConfigNode& m : metrics->items()) {
      const std::string name = m.scalar();
      for (const auto& [earlier, mark] : s.metrics)
        if (earlier == name) m.fail(ErrorCode::Duplicate, "'" + name + "' is listed twice");
      s.metrics.emplace_back(name, m.mark());
    }
  }
  r.finish();
  return s;
}

std::vector<std::string> sweep_keys(const SweepSpec& spec) {
  std::vector<std::string> keys;
  for (const SweepAxis& a : spec.grid) keys.push_back(a.path);
  for (const SweepAxis& a : spec.zip) keys.push_back(a.path);
  for (const auto* sample : {&spec.random, &spec.latin_hypercube})
    if (*sample)
      for (const SweepRange& r : (*sample)->ranges) keys.push_back(r.path);
  return keys;
}

std::vector<SweepPoint> expand_sweep(const SweepSpec& spec) {
  // Each block's rows: a list of (setting, text) per row.
  using Row = std::vector<std::pair<Override, std::string>>;
  // The count first, so that a sweep too large is refused before anything is built.
  double total = 1;
  for (const SweepAxis& a : spec.grid) total *= static_cast<double>(a.values.size());
  if (!spec.zip.empty()) total *= static_cast<double>(spec.zip.front().values.size());
  for (const auto* sample : {&spec.random, &spec.latin_hypercube})
    if (*sample) total *= static_cast<double>((*sample)->samples);
  if (total > static_cast<double>(MAX_SWEEP_POINTS))
    throw ConfigError(ErrorCode::OutOfRange, spec.vary_mark, "vary",
                      "the sweep has " + number_text(total, total < 9e15) + " points; at most " +
                          std::to_string(MAX_SWEEP_POINTS));
  std::vector<std::vector<Row>> blocks;
  if (!spec.grid.empty()) {
    std::vector<Row> rows(1);
    for (const SweepAxis& a : spec.grid) {
      std::vector<Row> next;
      for (const Row& row : rows)
        for (const ConfigNode& v : a.values) {
          Row r = row;
          r.emplace_back(Override{a.path, a.mark, v}, flow_text(v));
          next.push_back(std::move(r));
        }
      rows = std::move(next);
    }
    blocks.push_back(std::move(rows));
  }
  if (!spec.zip.empty()) {
    std::vector<Row> rows(spec.zip.front().values.size());
    for (const SweepAxis& a : spec.zip)
      for (std::size_t i = 0; i < rows.size(); ++i) rows[i].emplace_back(Override{a.path, a.mark, a.values[i]}, flow_text(a.values[i]));
    blocks.push_back(std::move(rows));
  }
  for (const bool latin : {false, true}) {
    const std::optional<SweepSample>& sample = latin ? spec.latin_hypercube : spec.random;
    if (!sample) continue;
    const std::vector<std::vector<double>> u = draw(*sample, latin);
    std::vector<Row> rows(static_cast<std::size_t>(sample->samples));
    for (std::size_t k = 0; k < sample->ranges.size(); ++k) {
      const SweepRange& range = sample->ranges[k];
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const std::string text = number_text(scale(range, u[k][i]), range.integer);
        rows[i].emplace_back(Override{range.path, range.mark, ConfigNode::make_scalar(text, false, range.mark, range.path)}, text);
      }
    }
    blocks.push_back(std::move(rows));
  }
  std::vector<SweepPoint> points(1);
  for (const auto& block : blocks) {
    std::vector<SweepPoint> next;
    next.reserve(points.size() * block.size());
    for (const SweepPoint& p : points)
      for (const Row& row : block) {
        SweepPoint q = p;
        for (const auto& [setting, text] : row) {
          q.settings.push_back(setting);
          q.values.push_back(text);
        }
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

}  // namespace gcsim::models
