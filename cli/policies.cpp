// `gcsim policies`: the scheduler registry, printed from itself (see commands.hpp).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "models/config/scheduler_reader.hpp"
#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::cli {

namespace {

std::string text(std::string_view s, std::string_view none = "") { return std::string(s.empty() ? none : s); }

void print_keys(const std::vector<config::KeySpec>& keys) {
  std::size_t w_key = 3, w_type = 4, w_default = 7, w_range = 5;
  for (const auto& k : keys) {
    w_key = std::max(w_key, k.name.size());
    w_type = std::max(w_type, k.type.size());
    w_default = std::max(w_default, text(k.default_value, k.required ? "required" : "-").size());
    w_range = std::max(w_range, text(k.range, "-").size());
  }
  const auto row = [&](std::string_view a, std::string_view b, std::string_view c, std::string_view d,
                       std::string_view e) {
    std::printf("    %-*s  %-*s  %-*s  %-*s  %s\n", static_cast<int>(w_key), std::string(a).c_str(),
                static_cast<int>(w_type), std::string(b).c_str(), static_cast<int>(w_default), std::string(c).c_str(),
                static_cast<int>(w_range), std::string(d).c_str(), std::string(e).c_str());
  };
  row("key", "type", "default", "range", "help");
  for (const auto& k : keys)
    row(k.name, k.type, text(k.default_value, k.required ? "required" : "-"), text(k.range, "-"), k.help);
}

}  // namespace

int cmd_policies(const models::SchedulerRegistry& registry) {
  std::printf("scheduling policies (scheduler: {policy: NAME, ...}):\n");
  for (const auto& [name, policy] : registry.policies()) {
    std::printf("\n  %s: %s\n", name.c_str(), policy.description.c_str());
    std::vector<config::KeySpec> keys = models::scheduler_common_keys();
    keys.insert(keys.end(), policy.keys.begin(), policy.keys.end());
    print_keys(keys);
  }
  std::printf("\nplacement strategies (scheduler: {placement: NAME}, for policies that take one):\n");
  for (const auto& [name, entry] : registry.placements().entries())
    std::printf("  %-10s  %s\n", name.c_str(), entry.description.c_str());
  return 0;
}

}  // namespace gcsim::cli
