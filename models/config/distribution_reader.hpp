// Reads a generator's distributions (docs/scenario-reference.md, "Distributions"): a plain
// value, or a map {dist: ..., parameters} or {choice: [...], weights: [...]}, each value
// read with the unit its field has.
#pragma once

#include "models/workload/distribution.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"

namespace gcsim::models {

// Every key a distribution map may hold; which of them apply depends on `dist:` (or on
// `choice:`), and a key of the table that does not apply to the chosen form is a
// `conflict` naming it. Values carry the unit of the field the distribution is for.
inline constexpr config::KeySpec DISTRIBUTION_KEYS[] = {
    {"dist", "`constant` | `exponential` | `uniform` | `normal` | `lognormal` | `empirical`", "", false, "",
     "the distribution; required unless `choice` is given"},
    {"value", "the field's unit", "", false, "", "`constant`: the value (required)"},
    {"mean", "the field's unit", "", false, "> 0", "`exponential`, `normal`: the mean (required)"},
    {"stddev", "the field's unit", "", false, ">= 0", "`normal`: the standard deviation (required)"},
    {"median", "the field's unit", "", false, "> 0", "`lognormal`: the median (required)"},
    {"sigma", "number", "", false, ">= 0", "`lognormal`: the standard deviation of the underlying normal (required)"},
    {"min", "the field's unit", "none", false, "< max", "`uniform`: the lower bound (required); `exponential`, `normal`, `lognormal`: truncation"},
    {"max", "the field's unit", "none", false, "> min", "`uniform`: the upper bound (required); `exponential`, `normal`, `lognormal`: truncation"},
    {"quantiles", "list of values", "", false, "at least 2, non-decreasing",
     "`empirical`: the values at probabilities 0, 1/N, ..., 1 (required); drawn by inverting that CDF, interpolated "
     "log-linearly between two positive quantiles, linearly otherwise"},
    {"choice", "list of values", "", false, "not empty", "draw one of these values, instead of `dist`"},
    {"weights", "list of numbers", "equal weights", false, ">= 0, not all 0, one per value", "`choice`: each value's weight"},
};

// What a distribution's values mean, so each value is read with the right unit.
enum class ValueKind { Duration, Count, Integer, Fraction };

// One value of that kind: a duration in seconds, a count >= 0, a whole number >= 1, or a
// fraction in (0, 1].
double read_value(const config::ConfigNode& n, ValueKind kind);
Distribution read_distribution(const config::ConfigNode& n, ValueKind kind);

}  // namespace gcsim::models
