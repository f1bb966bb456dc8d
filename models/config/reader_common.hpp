// Small readers the scenario's section readers share: names (sim/config/names.hpp, which
// become file and stream names, so no '/' or control characters) and precisions.
#pragma once

#include "models/gpu/gpu_spec.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/names.hpp"

namespace gcsim::models {

using config::check_name_length;
using config::read_name;
Precision read_precision(const config::ConfigNode& n);

}  // namespace gcsim::models
