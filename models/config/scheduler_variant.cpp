// Scheduler variants for `gcsim compare` (see scheduler_variant.hpp).
#include "models/config/scheduler_variant.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <utility>
#include <vector>

#include "models/config/scheduler_reader.hpp"
#include "sim/config/regular_file.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {

namespace {

// A double-quoted YAML scalar: YAML's double-quoted escapes include JSON's.
std::string quoted_scalar(const std::string& text) {
  std::string out = "\"";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7F) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\x%02X", c);
      out += escape;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

bool plain_key(const std::string& key) {
  if (key.empty()) return false;
  for (const char c : key)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
      return false;
  return key.front() != '-';
}

// A scalar as written: quoted ones stay quoted (text, not a number), plain ones plain, so
// the values read back as they were first read.
std::string scalar_text(const config::ConfigNode& node) {
  if (node.is_null()) return "~";
  return node.quoted() ? quoted_scalar(node.scalar()) : std::string(node.scalar());
}

void emit_block(const config::ConfigNode& node, std::size_t indent, std::string& out) {
  const std::string pad(indent, ' ');
  const auto value = [&](const config::ConfigNode& v) {
    if (v.is_map() && !v.entries().empty()) {
      out += "\n";
      emit_block(v, indent + 2, out);
    } else if (v.is_sequence() && v.size() > 0) {
      out += "\n";
      emit_block(v, indent + 2, out);
    } else if (v.is_map()) {
      out += " {}\n";
    } else if (v.is_sequence()) {
      out += " []\n";
    } else {
      out += " " + scalar_text(v) + "\n";
    }
  };
  if (node.is_map()) {
    for (const auto& [key, v] : node.entries()) {
      out += pad + (plain_key(key) ? std::string(key) : quoted_scalar(key)) + ":";
      value(v);
    }
  } else {
    for (const config::ConfigNode& item : node.items()) {
      out += pad + "-";
      value(item);
    }
  }
}

// ConfigErrors of a section read on its own, their key paths put under `scheduler.` (the
// section's nodes are rebased there; this covers errors that name no node's path).
[[noreturn]] void rethrow_under_scheduler(const ConfigError& e) {
  const std::string& path = e.key_path();
  if (path == "scheduler" || path.starts_with("scheduler.")) throw e;
  throw ConfigError(e.code(), e.mark(), path.empty() ? "scheduler" : config::join_key_path("scheduler", path), e.detail());
}

}  // namespace

config::ConfigNode rebased(const config::ConfigNode& node, const std::string& path) {
  if (node.is_map()) {
    const auto all = node.entries();
    std::vector<std::pair<std::string, config::ConfigNode>> entries;
    std::vector<SourceMark> key_marks;
    for (std::size_t i = 0; i < all.size(); ++i) {
      entries.emplace_back(std::string(all[i].first), rebased(all[i].second, config::join_key_path(path, all[i].first)));
      key_marks.push_back(node.key_mark(i));
    }
    return config::ConfigNode::make_map(std::move(entries), std::move(key_marks), node.mark(), path);
  }
  if (node.is_sequence()) {
    std::vector<config::ConfigNode> items;
    for (std::size_t i = 0; i < node.size(); ++i) items.push_back(rebased(node.at(i), config::join_index_path(path, i)));
    return config::ConfigNode::make_sequence(std::move(items), node.mark(), path);
  }
  if (node.is_scalar()) return config::ConfigNode::make_scalar(std::string(node.scalar()), node.quoted(), node.mark(), path);
  return config::ConfigNode::make_null(node.mark(), path);
}

namespace {

// `NAME` or `NAME:{...}` as a scheduler map: the policy key first, then the flow map's
// entries, every node marked in the argument's own columns.
config::ConfigNode inline_section(const std::string& argument) {
  const std::string label = "--policy '" + argument + "'";
  const std::size_t colon = argument.find(':');
  const std::string name = argument.substr(0, colon);
  const config::ConfigNode policy = config::ConfigNode::make_scalar(name, false, SourceMark{label, 1, 1}, "policy");
  if (name.empty()) policy.fail(ErrorCode::MissingKey, "name a policy: NAME or NAME:{key: value, ...}");
  // A scheduler section written as one flow map, as in a scenario: say the forms --policy takes.
  if (const std::size_t first = name.find_first_not_of(" \t"); first != std::string::npos && name[first] == '{')
    policy.fail(ErrorCode::WrongType,
                "the policy comes first, then its keys: NAME:{key: value, ...} (e.g. 'backfill:{mode: conservative}'), "
                "or the whole scheduler map in a file: --policy @FILE");
  std::vector<std::pair<std::string, config::ConfigNode>> entries{{"policy", policy}};
  std::vector<SourceMark> key_marks{SourceMark{label, 1, 1}};
  if (colon != std::string::npos) {
    const std::string after = argument.substr(colon + 1);
    if (after.find_first_not_of(" \t") == std::string::npos)
      policy.fail(ErrorCode::WrongType, "after 'NAME:' comes a YAML flow map of the policy's keys, {key: value, ...}");
    // Spaces in place of "NAME:" keep the parser's columns those of the argument.
    const config::ConfigDocument doc = config::load_yaml_string(std::string(colon + 1, ' ') + after, label);
    if (!doc.root.is_map())
      doc.root.fail(ErrorCode::WrongType, "after 'NAME:' comes a YAML flow map of the policy's keys, {key: value, ...}");
    for (std::size_t i = 0; i < doc.root.entries().size(); ++i) {
      const auto& entry = doc.root.entries()[i];
      if (entry.first == "policy")
        entry.second.fail(ErrorCode::Conflict, "the policy is the NAME before ':'; the map holds its other keys");
      entries.push_back(entry);
      key_marks.push_back(doc.root.key_mark(i));
    }
  }
  return config::ConfigNode::make_map(std::move(entries), std::move(key_marks), SourceMark{label, 1, 1}, "");
}

// A policy file holds a scheduler section: a few keys, at most a list of windows.
constexpr std::uint64_t MAX_POLICY_FILE_BYTES = 16u * 1024u * 1024u;

// `@FILE`'s scheduler map (bare, or under `scheduler:`), without its `label:`, which goes
// to `label` when the file gives one.
config::ConfigNode file_section(const std::string& argument, std::string& label) {
  const std::string path = argument.substr(1);
  // The argument's column 2 is where the path would start.
  if (path.empty())
    throw ConfigError(ErrorCode::FileNotFound, SourceMark{"--policy '" + argument + "'", 1, 2}, "--policy",
                      "name the policy file after '@' (--policy @FILE)");
  const config::ConfigDocument doc =
      config::load_yaml_string(config::read_regular_file(path, MAX_POLICY_FILE_BYTES, "policy file"), path);
  const config::ConfigNode& root = doc.root;
  const char* shape = "a --policy @FILE holds a scheduler map ({policy: NAME, ...}), bare or under 'scheduler:', "
                      "and an optional 'label:'";
  if (!root.is_map()) root.fail(ErrorCode::WrongType, shape);
  const config::ConfigNode* wrapped = root.find("scheduler");
  const config::ConfigNode* label_node = root.find("label");
  if (label_node != nullptr) {
    const std::string text = label_node->scalar();
    if (text.empty() || text.size() > MAX_VARIANT_LABEL_BYTES)
      label_node->fail(ErrorCode::OutOfRange, "a label is 1 to " + std::to_string(MAX_VARIANT_LABEL_BYTES) +
                                                  " bytes long, got " + std::to_string(text.size()));
    for (const char c : text)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F)
        label_node->fail(ErrorCode::OutOfRange, "a label has no control characters (it names a column of the table)");
    label = text;
  }
  if (wrapped != nullptr) {
    const auto all = root.entries();
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i].first != "scheduler" && all[i].first != "label")
        throw ConfigError(ErrorCode::UnknownKey, root.key_mark(i), std::string(all[i].first),
                          "unknown key '" + all[i].first + "' beside 'scheduler:'; valid keys: scheduler, label");
    if (!wrapped->is_map()) wrapped->fail(ErrorCode::WrongType, shape);
    return *wrapped;
  }
  if (label_node == nullptr) return root;
  // The bare map less its label.
  std::vector<std::pair<std::string, config::ConfigNode>> entries;
  std::vector<SourceMark> key_marks;
  const auto all = root.entries();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].first == "label") continue;
    entries.emplace_back(std::string(all[i].first), all[i].second);
    key_marks.push_back(root.key_mark(i));
  }
  return config::ConfigNode::make_map(std::move(entries), std::move(key_marks), root.mark(), "");
}

}  // namespace

SchedulerVariant read_scheduler_variant(const std::string& argument, const SchedulerRegistry& registry) {
  SchedulerVariant v;
  v.argument = argument;
  v.label = argument;
  config::ConfigNode section;
  if (argument.starts_with("@")) {
    std::string label;
    section = file_section(argument, label);
    v.label_is_stem = label.empty();
    v.label = label.empty() ? std::filesystem::path(argument.substr(1)).stem().string() : label;
    if (v.label.empty()) v.label = argument;  // a stem-less path ("@dir/.") cannot be read anyway
  }
  try {
    if (!argument.starts_with("@")) section = inline_section(argument);
    section = rebased(section, "scheduler");
    // No horizon here: the scenario with this section put in is loaded before it runs, and
    // that load bounds the preemption's times by its horizon.
    v.spec = read_scheduler(&section, registry, sim::SimTime::zero());
  } catch (const ConfigError& e) {
    rethrow_under_scheduler(e);
  }
  v.yaml = block_yaml(section, 2);
  v.section = std::move(section);
  return v;
}

void distinct_labels(std::vector<SchedulerVariant>& variants) {
  std::vector<std::string> labels;
  for (const SchedulerVariant& v : variants) labels.push_back(v.label);
  for (SchedulerVariant& v : variants)
    if (v.label_is_stem && std::count(labels.begin(), labels.end(), v.label) > 1) {
      v.label = v.argument;
      v.label_is_stem = false;
    }
}

std::string block_yaml(const config::ConfigNode& node, std::size_t indent) {
  std::string out;
  emit_block(node, indent, out);
  return out;
}

config::ConfigDocument with_scheduler_section(const config::ConfigDocument& scenario, const SchedulerVariant& variant) {
  const config::ConfigNode& root = scenario.root;
  if (!root.is_map()) root.fail(ErrorCode::WrongType, "a scenario is a map of keys (name, horizon, cluster, workload...)");
  const auto all = root.entries();
  std::vector<std::pair<std::string, config::ConfigNode>> entries;
  std::vector<SourceMark> key_marks;
  bool replaced = false;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const bool scheduler = all[i].first == "scheduler";
    entries.emplace_back(std::string(all[i].first), scheduler ? variant.section : all[i].second);
    key_marks.push_back(root.key_mark(i));
    replaced = replaced || scheduler;
  }
  if (!replaced) {
    // Not written in the scenario: the key has no position of its own (line 0).
    entries.emplace_back("scheduler", variant.section);
    key_marks.push_back(SourceMark{scenario.file, 0, 0});
  }
  config::ConfigDocument out;
  out.file = scenario.file;
  out.root = config::ConfigNode::make_map(std::move(entries), std::move(key_marks), root.mark(), "");
  out.text = block_yaml(out.root, 0);
  return out;
}

}  // namespace gcsim::models
