// Reads a generator's distributions (docs/scenario-reference.md, "Distributions"): a plain
// value, or a map {dist: ..., parameters} or {choice: [...], weights: [...]}, each value
// read with the unit its field has.
#pragma once

#include "models/workload/distribution.hpp"
#include "sim/config/config_node.hpp"

namespace gcsim::models {

// What a distribution's values mean, so each value is read with the right unit.
enum class ValueKind { Duration, Count, Integer, Fraction };

// One value of that kind: a duration in seconds, a count >= 0, a whole number >= 1, or a
// fraction in (0, 1].
double read_value(const config::ConfigNode& n, ValueKind kind);
Distribution read_distribution(const config::ConfigNode& n, ValueKind kind);

}  // namespace gcsim::models
