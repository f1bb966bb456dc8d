// The gcsim subcommands beyond run/validate/analyze, one function each; main.cpp parses
// the command line and calls them. They throw gcsim::Error for anything a user caused.
#pragma once

#include <string>

#include "models/config/scenario_loader.hpp"

namespace gcsim::cli {

// `gcsim flows SCENARIO FLOWS.csv [-o OUT.csv]`: replays flows over the scenario's network.
int cmd_flows(const std::string& scenario, const std::string& flows_csv, const std::string& out_csv);

// `gcsim estimate SCENARIO [--json]`: each model-described job's step time, breakdown,
// throughput, memory, bottleneck and cost on every node type that can hold it.
int cmd_estimate(const std::string& scenario, bool json, const models::LoadOptions& options);

// Writes `text` to `path` through "<path>.tmp" and a rename, so no half-written file is left.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace gcsim::cli
