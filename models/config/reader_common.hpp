// Small readers the scenario's section readers share: names (which become file and stream
// names, so no '/' or control characters) and precisions.
#pragma once

#include <string>

#include "models/gpu/gpu_spec.hpp"
#include "sim/config/config_node.hpp"

namespace gcsim::models {

// A non-empty name of at most trace::schema::MAX_NAME_BYTES bytes (it becomes a
// fixed-width trace cell) without '/', '\\' or control characters (OutOfRange otherwise).
std::string read_name(const config::ConfigNode& n);
// Refuses (OutOfRange, at n) a name longer than trace::schema::MAX_NAME_BYTES: for names
// read with other rules (GPU catalog entries, network hosts and links).
void check_name_length(const config::ConfigNode& n, const std::string& name);
Precision read_precision(const config::ConfigNode& n);

}  // namespace gcsim::models
