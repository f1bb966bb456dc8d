// PNG plots of one run, drawn by gnuplot (pngcairo): allocated GPUs over time, cumulative
// cost over time (provisioned vs busy), and the distribution (CDF) of waiting times.
// gnuplot-iostream and Boost stay inside plots.cpp so that including this header is cheap.
#pragma once

#include <string>
#include <vector>

#include "analysis/trace_data.hpp"

namespace gcsim::analysis {

// Writes gpus_over_time.png, cost_over_time.png and wait_time_cdf.png into `dir`, which
// must exist (the front end makes output folders), and returns their paths. Each file
// appears only when complete (written to a fresh "<name>.png.<hex>.tmp", sim/atomic_file.hpp,
// then renamed). Throws
// gcsim::Error("gnuplot failed ...") when gnuplot is missing or leaves no PNG.
std::vector<std::string> write_plots(const TraceData& trace, const std::string& dir);

}  // namespace gcsim::analysis
