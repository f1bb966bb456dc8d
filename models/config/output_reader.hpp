// The `output:` section: the trace's file name and the optional /flows table. That flows
// need a network section is checked in the resolve step.
#pragma once

#include <string>

#include "models/config/scenario.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"

namespace gcsim::models {

inline constexpr config::KeySpec OUTPUT_KEYS[] = {
    {"trace", "file name (no `/`)", "`<name>.h5`", false, "", "the trace's file name inside the output folder"},
    {"flows", "bool", "`false`", false, "", "also write the /flows table, one row per network flow"},
};

// `node` may be null (no output section): the defaults, the trace named after the scenario.
OutputSpec read_output(const config::ConfigNode* node, const std::string& scenario_name);

}  // namespace gcsim::models
