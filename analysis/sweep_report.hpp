// A sweep's results (docs/sweeps.md): the per-point table, the main effects, and their text
// and JSON, from what `gcsim sweep` holds in memory or reads back from DIR/sweep.h5
// (`gcsim analyze DIR/sweep.h5`), so both print the same.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gcsim::analysis {

struct SweepTable {
  std::string sweep_file;
  std::int64_t replications = 0;
  std::vector<std::string> keys;     // the varied keys' paths
  std::vector<std::string> metrics;  // figure names (STRATEGY_FIGURES keys)
  struct Point {
    std::vector<std::string> values;  // one per key
    std::int64_t runs_ok = 0;
    std::vector<double> mean, sd, ci95;  // one per metric
  };
  std::vector<Point> points;
};

// The root attribute that tells a sweep's results from a run's trace.
inline constexpr const char* SWEEP_FILE_KIND_ATTRIBUTE = "gcsim_file";
// True when `path` is an HDF5 file written by gcsim sweep.
bool is_sweep_results(const std::string& path);
// Reads DIR/sweep.h5's /points table and attributes. Throws gcsim::Error.
SweepTable read_sweep_table(const std::string& path);

// How much each varied key moves each metric: for every value of the key, the mean of the
// metric over the points with that value (the other keys averaged out), and the range of
// those means. Values in the order they first appear in the points.
struct MainEffect {
  std::string key;
  std::vector<std::string> values;
  std::vector<std::vector<double>> means;  // [metric][value]
  std::vector<double> range;               // [metric]: max - min of the means (NaN if undefined)
};
std::vector<MainEffect> main_effects(const SweepTable& table);

// The per-point table (each metric's mean ± its 95% half-width) and, per metric, the keys
// from the one that moves it most.
std::string format_sweep_table(const SweepTable& table);
std::string format_main_effects(const SweepTable& table, const std::vector<MainEffect>& effects);
// {"sweep_file", "replications", "keys", "metrics", "points": [{values, runs_ok, figures:
// {METRIC: {mean, sd, ci95}}}], "main_effects": [{key, metric, range, means: {VALUE: mean}}]}.
std::string format_sweep_json(const SweepTable& table, const std::vector<MainEffect>& effects);

}  // namespace gcsim::analysis
