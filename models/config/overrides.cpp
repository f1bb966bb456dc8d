// Scenario keys set by their dotted path (see overrides.hpp).
#include "models/config/overrides.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <memory>
#include <utility>

#include "models/config/scenario_keys.hpp"
#include "models/config/scheduler_variant.hpp"
#include "models/config/workload_reader.hpp"

namespace gcsim::models {

namespace {

bool key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

SourceMark at_column(const SourceMark& mark, std::size_t offset) {
  SourceMark m = mark;
  if (m.column > 0) m.column += static_cast<int>(offset);
  return m;
}

[[noreturn]] void bad_path(const SourceMark& mark, std::string_view path, std::size_t at, const std::string& why) {
  throw ConfigError(ErrorCode::Syntax, at_column(mark, at), std::string(path),
                    why + " (a key path is keys joined by '.', with [N] for the N-th item of a list: "
                          "cluster.node_types[0].count)");
}

// The reference's keys for the map at `path` ("cluster.node_types[3]" looks up
// "cluster.node_types[i]"), for a did-you-mean beside the keys the scenario has.
std::vector<std::string> reference_keys(const std::string& path) {
  std::string generic;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '[') {
      generic += "[i]";
      i = path.find(']', i);
      if (i == std::string::npos) break;
    } else {
      generic += path[i];
    }
  }
  std::vector<std::string> keys;
  for (const DocumentedSection& s : scenario_key_sections())
    if (s.section.path == generic)
      for (const config::KeySpec& k : s.section.keys) keys.emplace_back(k.name);
  return keys;
}

std::string path_text(const std::vector<PathSegment>& segments, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i)
    out = segments[i].is_index() ? config::join_index_path(out, segments[i].index) : config::join_key_path(out, segments[i].key);
  return out;
}

struct Applier {
  const Override& setting;
  const std::vector<PathSegment>& segments;

  [[noreturn]] void fail(ErrorCode code, std::size_t depth, const std::string& detail) const {
    throw ConfigError(code, setting.mark, path_text(segments, depth + 1), detail);
  }

  // `node` (null when the scenario has nothing there) with the setting applied below it;
  // `depth` segments lead to it.
  config::ConfigNode apply(const config::ConfigNode& node, std::size_t depth) const {
    const std::string here = path_text(segments, depth);
    if (depth == segments.size()) return rebased(setting.value, here);
    const PathSegment& seg = segments[depth];
    if (seg.is_index()) {
      if (!node.is_sequence())
        fail(ErrorCode::WrongType, depth,
             node.is_null() ? "'" + here + "' is not in the scenario, so it has no item [" + std::to_string(seg.index) + "]"
                            : "'" + here + "' is a " + std::string(node.kind_name()) + ", not a list, so it has no item [" +
                                  std::to_string(seg.index) + "]");
      if (seg.index >= node.size())
        fail(ErrorCode::OutOfRange, depth,
             "'" + here + "' has " + std::to_string(node.size()) + (node.size() == 1 ? " item" : " items") + ", so [" +
                 std::to_string(seg.index) + "] is past its end (items count from 0)");
      std::vector<config::ConfigNode> items;
      for (std::size_t i = 0; i < node.size(); ++i)
        items.push_back(i == seg.index ? apply(node.at(i), depth + 1) : node.at(i));
      return config::ConfigNode::make_sequence(std::move(items), node.mark(), here);
    }
    if (!node.is_null() && !node.is_map())
      fail(ErrorCode::WrongType, depth,
           "'" + here + "' is a " + std::string(node.kind_name()) + ", not a map, so it has no key '" + seg.key + "'");
    std::vector<std::pair<std::string, config::ConfigNode>> entries;
    std::vector<SourceMark> key_marks;
    bool found = false;
    if (node.is_map()) {
      const auto all = node.entries();
      for (std::size_t i = 0; i < all.size(); ++i) {
        const bool hit = all[i].first == seg.key;
        entries.emplace_back(std::string(all[i].first), hit ? apply(all[i].second, depth + 1) : all[i].second);
        key_marks.push_back(node.key_mark(i));
        found = found || hit;
      }
    }
    if (!found) {
      // A key the scenario leaves out: added, and its reader judges it. Only a list cannot
      // be reached through it (there is no item to set).
      if (depth + 1 < segments.size() && segments[depth + 1].is_index()) {
        const std::string missing = path_text(segments, depth + 1);
        const std::string item = "[" + std::to_string(segments[depth + 1].index) + "]";
        std::vector<std::string> candidates = reference_keys(here);
        // A key the reference knows is left out of this scenario: the list is set whole.
        if (std::find(candidates.begin(), candidates.end(), seg.key) != candidates.end())
          fail(ErrorCode::MissingKey, depth,
               "the scenario has no '" + missing + "', so it has no item " + item + " to set: give the whole list (--set '" +
                   missing + "=[...]')");
        if (node.is_map())
          for (const auto& entry : node.entries()) candidates.emplace_back(entry.first);
        const std::string guess = did_you_mean(seg.key, candidates);
        fail(ErrorCode::UnknownKey, depth,
             "the scenario has no '" + missing + "' to take item " + item + " of" +
                 (guess.empty() ? std::string() : " (did you mean '" + guess + "'?)"));
      }
      entries.emplace_back(seg.key, apply(config::ConfigNode(), depth + 1));
      key_marks.push_back(setting.mark);
    }
    const SourceMark mark = node.is_map() ? node.mark() : setting.mark;
    return config::ConfigNode::make_map(std::move(entries), std::move(key_marks), mark, here);
  }
};

// Without a cluster section a trace's machine list is the cluster (docs/traces.md), made
// as the trace is read. A setting into it (`cluster.node_types[0].count=...`) needs it as a
// section: `root` with the section the machine list makes written in, before `workload`,
// as the scenario would write it (the trace's files are read for it, and again when the
// scenario loads). The scenario is then one with a cluster section: its text, which a trace
// embeds, holds the section, and a recorded machine keeps its node by its kind's type name
// (scenario_loader.cpp). Without a trace there is nothing to write in (the setting adds
// the key, and the reader judges the section); a trace without a machine list is refused.
config::ConfigNode with_trace_cluster(const config::ConfigNode& root, const Override& setting) {
  const config::ConfigNode* workload = root.find("workload");
  const config::ConfigNode* trace = workload != nullptr && workload->is_map() ? workload->find("trace") : nullptr;
  if (trace == nullptr) return root;
  config::SourceResolver sources;
  const std::shared_ptr<const config::ConfigNode> cluster = trace_machines_cluster(*trace, sources);
  if (!cluster)
    throw ConfigError(ErrorCode::MissingKey, setting.mark, "cluster",
                      "the scenario has no cluster section and its trace gives no machine list (`nodes:` for "
                      "alibaba-pai-2023, `machines:` for alibaba-pai-2020 and philly): there is no cluster to set a key "
                      "in. Add a cluster section, or give a whole one: --set 'cluster={node_types: [...]}'");
  std::vector<std::pair<std::string, config::ConfigNode>> entries;
  std::vector<SourceMark> key_marks;
  const auto all = root.entries();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].first == "workload") {
      entries.emplace_back("cluster", *cluster);
      key_marks.push_back(cluster->mark());
    }
    entries.emplace_back(std::string(all[i].first), all[i].second);
    key_marks.push_back(root.key_mark(i));
  }
  return config::ConfigNode::make_map(std::move(entries), std::move(key_marks), root.mark(), "");
}

}  // namespace

std::vector<PathSegment> parse_key_path(std::string_view path, const SourceMark& mark) {
  std::vector<PathSegment> segments;
  if (path.empty()) bad_path(mark, path, 0, "an empty key path");
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '[') {
      if (segments.empty()) bad_path(mark, path, i, "a key path starts with a key, not an index");
      const std::size_t close = path.find(']', i);
      if (close == std::string_view::npos) bad_path(mark, path, i, "'[' without its ']'");
      const std::string_view digits = path.substr(i + 1, close - i - 1);
      std::uint64_t index = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
      if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
          index > std::numeric_limits<std::uint32_t>::max())
        bad_path(mark, path, i + 1, "an index is a whole number from 0 to 4294967295, got '" + std::string(digits) + "'");
      segments.push_back({"", static_cast<std::size_t>(index)});
      i = close + 1;
      if (i < path.size() && path[i] != '.' && path[i] != '[')
        bad_path(mark, path, i, "after ']' comes '.', '[' or the end");
      if (i < path.size() && path[i] == '.') {
        ++i;
        if (i == path.size()) bad_path(mark, path, i, "a key path ends with a key or an index, not '.'");
      }
      continue;
    }
    std::size_t end = i;
    while (end < path.size() && key_char(path[end])) ++end;
    if (end == i)
      bad_path(mark, path, i,
               path[i] == '.' ? std::string("an empty key") : "a key is letters, digits, '_' and '-', got '" + std::string(1, path[i]) + "'");
    segments.push_back({std::string(path.substr(i, end - i)), 0});
    i = end;
    if (i < path.size()) {
      if (path[i] == '.') {
        ++i;
        if (i == path.size()) bad_path(mark, path, i, "a key path ends with a key or an index, not '.'");
      } else if (path[i] != '[') {
        bad_path(mark, path, i, "a key is letters, digits, '_' and '-', got '" + std::string(1, path[i]) + "'");
      }
    }
  }
  return segments;
}

Override read_set_argument(const std::string& argument) {
  const std::string label = "--set '" + argument + "'";
  const SourceMark start{label, 1, 1};
  const std::size_t eq = argument.find('=');
  if (eq == std::string::npos)
    throw ConfigError(ErrorCode::Syntax, start, "--set", "a setting is PATH=VALUE (--set cluster.node_types[0].count=8)");
  Override o;
  o.path = argument.substr(0, eq);
  o.mark = start;
  parse_key_path(o.path, o.mark);
  const std::string value = argument.substr(eq + 1);
  if (value.find_first_not_of(" \t") == std::string::npos)
    throw ConfigError(ErrorCode::MissingKey, at_column(start, eq + 1), o.path,
                      "give a value after '=' (YAML: 8, sjf, \"text\", {key: value}, [a, b]; ~ for null)");
  // Spaces in place of "PATH=" keep the parser's columns those of the argument.
  o.value = config::load_yaml_string(std::string(eq + 1, ' ') + value, label).root;
  return o;
}

config::ConfigDocument with_overrides(const config::ConfigDocument& scenario, std::span<const Override> overrides) {
  config::ConfigDocument out;
  out.file = scenario.file;
  out.root = scenario.root;
  out.text = scenario.text;
  if (overrides.empty()) return out;
  if (!out.root.is_map())
    out.root.fail(ErrorCode::WrongType, "a scenario is a map of keys (name, horizon, cluster, workload...)");
  for (const Override& o : overrides) {
    const std::vector<PathSegment> segments = parse_key_path(o.path, o.mark);
    if (segments.size() > 1 && segments[0].key == "cluster" && out.root.find("cluster") == nullptr)
      out.root = with_trace_cluster(out.root, o);
    out.root = Applier{o, segments}.apply(out.root, 0);
  }
  out.text = block_yaml(out.root, 0);
  return out;
}

}  // namespace gcsim::models
