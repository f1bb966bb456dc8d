// `gcsim keys`: every map a scenario may hold, with its keys' types, defaults, ranges and
// help, printed from the same key tables the readers read through (see commands.hpp).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "models/config/scenario_keys.hpp"
#include "models/config/scheduler_reader.hpp"
#include "models/scheduler/scheduler_registry.hpp"
#include "sim/errors.hpp"

namespace gcsim::cli {

namespace {

std::string or_text(std::string s, std::string_view none) { return s.empty() ? std::string(none) : s; }

// A section and its keys, for printing.
struct Listed {
  std::string path;
  std::vector<config::KeySpec> keys;
};

std::vector<Listed> all_sections(const models::SchedulerRegistry& registry) {
  std::vector<Listed> out;
  for (const auto& s : models::scenario_key_sections())
    out.push_back({std::string(s.section.path), {s.section.keys.begin(), s.section.keys.end()}});
  out.push_back({"scheduler", models::scheduler_common_keys()});
  for (const auto& [name, policy] : registry.policies())
    out.push_back({"scheduler(policy: " + name + ")", {policy.keys.begin(), policy.keys.end()}});
  return out;
}

}  // namespace

void print_key_table(const std::vector<config::KeySpec>& keys) {
  std::size_t w_key = 3, w_type = 4, w_default = 7, w_range = 5;
  for (const auto& k : keys) {
    w_key = std::max(w_key, k.name.size());
    w_type = std::max(w_type, k.type.size());
    w_default = std::max(w_default, or_text(config::default_text(k), k.required ? "required" : "-").size());
    w_range = std::max(w_range, or_text(config::range_text(k), "-").size());
  }
  const auto row = [&](std::string_view a, std::string_view b, std::string_view c, std::string_view d,
                       std::string_view e) {
    std::printf("    %-*s  %-*s  %-*s  %-*s  %s\n", static_cast<int>(w_key), std::string(a).c_str(),
                static_cast<int>(w_type), std::string(b).c_str(), static_cast<int>(w_default), std::string(c).c_str(),
                static_cast<int>(w_range), std::string(d).c_str(), std::string(e).c_str());
  };
  row("key", "type", "default", "range", "help");
  for (const auto& k : keys)
    row(k.name, k.type, or_text(config::default_text(k), k.required ? "required" : "-"),
        or_text(config::range_text(k), "-"), k.help);
}

int cmd_keys(const models::SchedulerRegistry& registry, const std::string& section) {
  const std::vector<Listed> sections = all_sections(registry);
  bool first = true;
  for (const Listed& s : sections) {
    if (!section.empty() && s.path != section) continue;
    std::printf("%s%s:\n", first ? "" : "\n", s.path.empty() ? "(top level)" : s.path.c_str());
    print_key_table(s.keys);
    first = false;
  }
  if (!first) return 0;
  std::vector<std::string> names;
  for (const Listed& s : sections) names.push_back(s.path);
  const std::string guess = did_you_mean(section, names);
  std::cerr << "gcsim keys: unknown section '" << section << "'"
            << (guess.empty() ? "" : "; did you mean '" + guess + "'?") << " (gcsim keys lists them all)\n";
  return 2;
}

}  // namespace gcsim::cli
