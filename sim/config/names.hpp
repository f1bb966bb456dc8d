// Names in a scenario and its catalogs (of the scenario, node types, teams, jobs,
// generators, GPUs, network hosts and links, the parts of instance ids): they become file
// and random-stream names and fixed-width trace cells, so they are bounded and plain.
#pragma once

#include <cstdint>
#include <string>

#include "sim/config/config_node.hpp"

namespace gcsim::config {

// The longest name, in bytes. The trace's name cells hold it (models/trace/schema.hpp
// NAME_BYTES; the trace writer checks the two agree at compile time).
inline constexpr std::uint32_t MAX_NAME_BYTES = 255;

// A non-empty name of at most MAX_NAME_BYTES bytes without '/', '\\' or control characters
// (OutOfRange otherwise).
std::string read_name(const ConfigNode& n);
// Refuses (OutOfRange, at n) a name longer than MAX_NAME_BYTES: for names read with other
// rules (GPU catalog entries, network hosts and links).
void check_name_length(const ConfigNode& n, const std::string& name);

}  // namespace gcsim::config
