// Every map a scenario may hold, with its self-describing key table: the top level and
// each section's maps, as their readers declare them. Printed by docs checks and tools;
// tests/config/test_scenario_keys_docs.cpp checks each against the reference table in the
// doc named here.
#pragma once

#include <string_view>
#include <vector>

#include "sim/config/key_table.hpp"

namespace gcsim::models {

inline constexpr config::KeySpec TOP_LEVEL_KEYS[] = {
    {"name", "text (no `/`)", "", true, "", "the scenario's name; names the trace file by default"},
    {.name = "seed", .type = "integer", .help = "the root of every random stream",
     .kind = config::KeyKind::Integer, .min = 0, .has_default = true, .default_number = 0},
    {.name = "horizon", .type = "duration", .required = true, .help = "the longest simulated time",
     .kind = config::KeyKind::Duration, .min = 1},
    {"run_until", "`done` | `horizon`", "`horizon`", false, "", "whether the run ends at the horizon or with the last job"},
    {"catalogs", "map", "", false, "", "extra catalog files"},
    {"cluster", "map", "the trace's machines (a `workload.trace` with a machine list)", false, "", "the hardware"},
    {"network", "map", "", false, "", "the fabric between nodes (network.md)"},
    {"storage", "map", "", false, "", "storage tiers (storage.md)"},
    {"scheduler", "map", "`fifo`", false, "", "the scheduling policy"},
    {"workload", "map", "", true, "", "the jobs"},
    {"budgets", "list of maps", "", false, "", "spending limits per team"},
    {"output", "map", "", false, "", "output file names"},
    {"alerts", "list of rules, or map", "", false, "", "alerting rules over the simulated GPU metrics (alerts.md)"},
};

// One map's keys and the document whose table lists them (a path under docs/).
struct DocumentedSection {
  config::KeySection section;
  std::string_view doc;
};

// Every KeySection the loader reads, in the order of the reference.
std::vector<DocumentedSection> scenario_key_sections();

}  // namespace gcsim::models
