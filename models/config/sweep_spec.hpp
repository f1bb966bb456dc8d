// A sweep file (docs/sweeps.md): a base scenario, the keys to vary and how, the number of
// replications, and the figures to report. Read and expanded into points here; each point
// is the base scenario with settings (models/config/overrides.hpp) whose values are marked
// where the sweep file writes them, so a value the scenario refuses is reported at the
// sweep file's line and column. The metric names are checked by the front end, against
// the figures `gcsim compare` reports (analysis/strategy_comparison.hpp): models/ does not
// see analysis/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/config/overrides.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"

namespace gcsim::models {

// One key varied over listed values (grid, zip).
struct SweepAxis {
  std::string path;
  SourceMark mark;  // where the path is written
  std::vector<config::ConfigNode> values;
};

// One key drawn from a numeric range [min, max] (random, latin_hypercube). Whole numbers
// when both bounds are written as integers.
struct SweepRange {
  std::string path;
  SourceMark mark;
  double min = 0;
  double max = 0;
  bool integer = false;
};

// Samples over ranges: `samples` points, from their own random stream ("sweep.random" or
// "sweep.latin_hypercube" of `seed`), so a sweep's points do not depend on the scenario's
// seed and adding a range changes no other range's draws in a random sample.
struct SweepSample {
  std::int64_t samples = 0;
  std::uint64_t seed = 0;
  std::vector<SweepRange> ranges;
};

// Adaptive replications stop at a point when the 95% interval's half-width of `metric` is
// within `ci95_relative` of its mean (docs/sweeps.md, "Adaptive replications").
struct SweepStopRule {
  std::string metric;
  SourceMark mark;  // where the metric's name is written
  double ci95_relative = 0;
};

struct SweepSpec {
  std::string file;       // the sweep file as given
  std::string base;       // the base scenario's path, resolved from the sweep file's folder
  SourceMark base_mark;
  SourceMark vary_mark;
  // Replications: a fixed count (max_replications == replications), or adaptive: from
  // `replications` (the minimum) up to `max_replications` until `until` holds.
  std::int64_t replications = 1;
  std::int64_t max_replications = 1;
  std::optional<SweepStopRule> until;
  std::vector<SweepAxis> grid;  // every combination
  std::vector<SweepAxis> zip;   // lists of one length, varied together
  std::optional<SweepSample> random;
  std::optional<SweepSample> latin_hypercube;
  // The figures to report, as written, with where (empty: every figure).
  std::vector<std::pair<std::string, SourceMark>> metrics;
};

// The keys of a sweep file's maps (docs/sweeps.md is checked against them).
inline constexpr config::KeySpec SWEEP_KEYS[] = {
    {"base", "path", "", true, "", "the base scenario, relative to the sweep file"},
    {"replications", "integer, or map", "`1`", false, "1..100000, or {min, max, until}",
     "runs of each point; replication r uses the same random streams at every point"},
    {"vary", "map", "", true, "", "the keys to vary: grid, zip, random, latin_hypercube"},
    {"metrics", "list of names", "every figure", false, "", "the figures of `gcsim compare --json` to report"},
};
// A fixed count of replications, and the adaptive form's keys.
inline constexpr config::KeySpec SWEEP_REPLICATION_COUNT = {
    .name = "replications", .type = "integer", .help = "runs of each point",
    .kind = config::KeyKind::Integer, .min = 1, .max = 100000, .has_default = true, .default_number = 1};
inline constexpr config::KeySpec SWEEP_ADAPTIVE_KEYS[] = {
    {.name = "min", .type = "integer", .required = true, .help = "replications every point gets",
     .kind = config::KeyKind::Integer, .min = 2, .max = 100000},
    {.name = "max", .type = "integer", .required = true, .help = "the most a point gets (the results flag a point that reached it)",
     .kind = config::KeyKind::Integer, .min = 2, .max = 100000},
    {"until", "map", "", true, "", "the stopping rule: metric, ci95_relative"},
};
inline constexpr config::KeySpec SWEEP_UNTIL_KEYS[] = {
    {"metric", "name", "", true, "", "the figure whose interval decides"},
    {.name = "ci95_relative", .type = "number", .required = true,
     .help = "stop when the 95% half-width is at most this fraction of the mean",
     .kind = config::KeyKind::Number, .min = 0, .max = 10, .above_min = true},
};
inline constexpr config::KeySpec SWEEP_VARY_KEYS[] = {
    {"grid", "map of key path to list", "", false, "", "every combination of the listed values"},
    {"zip", "map of key path to list", "", false, "", "lists of one length, their i-th values together"},
    {"random", "map", "", false, "", "uniform samples over numeric ranges"},
    {"latin_hypercube", "map", "", false, "", "Latin-hypercube samples over numeric ranges"},
};
inline constexpr config::KeySpec SWEEP_SAMPLE_KEYS[] = {
    {.name = "samples", .type = "integer", .required = true, .help = "how many points",
     .kind = config::KeyKind::Integer, .min = 1, .max = 1000000},
    {.name = "seed", .type = "integer", .help = "the root of the samples' random stream",
     .kind = config::KeyKind::Integer, .min = 0, .has_default = true, .default_number = 0},
    {"ranges", "map of key path to [min, max]", "", true, "", "the numeric range of each key"},
};

// The most points a sweep may expand to (its products of lists and samples).
inline constexpr std::int64_t MAX_SWEEP_POINTS = 10'000'000;

// Reads a sweep file. Throws ConfigError at the offending key (file, line, column).
SweepSpec read_sweep_file(const std::string& path);
SweepSpec read_sweep(const config::ConfigDocument& document);

// One point: the settings that make it, in the sweep's order of keys, and each setting's
// value as text (for tables).
struct SweepPoint {
  std::vector<Override> settings;
  std::vector<std::string> values;
};

// The varied keys, in the order of every point's settings.
std::vector<std::string> sweep_keys(const SweepSpec& spec);
// Every point: the product of the grid's combinations (the last key varying fastest), the
// zip's rows, the random samples and the Latin-hypercube samples, in that order. Throws
// ConfigError (at `vary`) past MAX_SWEEP_POINTS.
std::vector<SweepPoint> expand_sweep(const SweepSpec& spec);

}  // namespace gcsim::models
