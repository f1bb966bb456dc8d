// Scheduler variants for `gcsim compare` (see scheduler_variant.hpp).
#include "models/config/scheduler_variant.hpp"

#include <cstdio>
#include <utility>
#include <vector>

#include "models/config/scheduler_reader.hpp"
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
// section's paths start at its own keys).
[[noreturn]] void rethrow_under_scheduler(const ConfigError& e) {
  const std::string& path = e.key_path();
  if (path == "scheduler" || path.starts_with("scheduler.")) throw e;
  throw ConfigError(e.code(), e.mark(), path.empty() ? "scheduler" : config::join_key_path("scheduler", path), e.detail());
}

// `NAME` or `NAME:{...}` as a scheduler map: the policy key first, then the flow map's
// entries, every node marked in the argument's own columns.
config::ConfigNode inline_section(const std::string& argument) {
  const std::string label = "--policy '" + argument + "'";
  const std::size_t colon = argument.find(':');
  const std::string name = argument.substr(0, colon);
  const config::ConfigNode policy = config::ConfigNode::make_scalar(name, false, SourceMark{label, 1, 1}, "policy");
  if (name.empty()) policy.fail(ErrorCode::MissingKey, "name a policy: NAME or NAME:{key: value, ...}");
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

}  // namespace

SchedulerVariant read_scheduler_variant(const std::string& argument, const SchedulerRegistry& registry) {
  SchedulerVariant v;
  v.argument = argument;
  config::ConfigNode section;
  if (argument.starts_with("@")) {
    config::ConfigDocument doc;
    try {
      doc = config::load_yaml_file(argument.substr(1));
    } catch (const ConfigError& e) {
      if (e.code() != ErrorCode::FileNotFound) throw;
      throw ConfigError(e.code(), e.mark(), "--policy", e.detail());
    }
    const config::ConfigNode* root = &doc.root;
    if (root->is_map() && root->entries().size() == 1 && root->entries()[0].first == "scheduler")
      root = &root->entries()[0].second;
    if (!root->is_map())
      root->fail(ErrorCode::WrongType, "a --policy @FILE holds a scheduler map ({policy: NAME, ...}), bare or under 'scheduler:'");
    section = *root;
  }
  try {
    if (!argument.starts_with("@")) section = inline_section(argument);
    // No horizon here: the scenario with this section put in is loaded before it runs, and
    // that load bounds the preemption's times by its horizon.
    v.spec = read_scheduler(&section, registry, sim::SimTime::zero());
  } catch (const ConfigError& e) {
    rethrow_under_scheduler(e);
  }
  v.yaml = block_yaml(section, 2);
  return v;
}

std::string block_yaml(const config::ConfigNode& node, std::size_t indent) {
  std::string out;
  emit_block(node, indent, out);
  return out;
}

std::string with_scheduler_section(const config::ConfigDocument& scenario, const SchedulerVariant& variant) {
  const config::ConfigNode& root = scenario.root;
  const auto entries = root.entries();
  // Where each top-level entry starts, as a line; the lines must rise and each key sit in
  // column 1, or the entries cannot be told apart by lines.
  std::vector<int> first_lines;
  std::size_t scheduler = entries.size();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const SourceMark key = root.key_mark(i);
    if (key.column != 1 || (!first_lines.empty() && key.line <= first_lines.back()))
      throw Error("gcsim compare: '" + scenario.file +
                  "': the top level must be a block map, one key per line from column 1, to replace its scheduler section");
    first_lines.push_back(key.line);
    if (entries[i].first == "scheduler") scheduler = i;
  }
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < scenario.text.size();) {
    const std::size_t end = scenario.text.find('\n', at);
    const std::size_t next = end == std::string::npos ? scenario.text.size() : end + 1;
    lines.push_back(scenario.text.substr(at, next - at));
    at = next;
  }
  if (!lines.empty() && lines.back().back() != '\n') lines.back() += '\n';
  const std::string section = "scheduler:\n" + variant.yaml;
  std::string out;
  if (scheduler == entries.size()) {
    for (const std::string& l : lines) out += l;
    return out + section;
  }
  const std::size_t from = static_cast<std::size_t>(first_lines[scheduler] - 1);
  std::size_t to = scheduler + 1 < entries.size() ? static_cast<std::size_t>(first_lines[scheduler + 1] - 1) : lines.size();
  // Comments and blank lines just above the next key stay: they belong to it.
  const auto blank_or_comment = [](const std::string& line) {
    const std::size_t first = line.find_first_not_of(" \t\r\n");
    return first == std::string::npos || line[first] == '#';
  };
  while (to > from + 1 && blank_or_comment(lines[to - 1])) --to;
  for (std::size_t i = 0; i < from; ++i) out += lines[i];
  out += section;
  for (std::size_t i = to; i < lines.size(); ++i) out += lines[i];
  return out;
}

}  // namespace gcsim::models
