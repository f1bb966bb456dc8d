// PNG plots of one run, drawn by gnuplot (pngcairo): allocated GPUs over time, cumulative
// cost over time (provisioned vs busy), and the distribution (CDF) of waiting times.
// gnuplot-iostream and Boost stay inside plots.cpp so that including this header is cheap.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/trace_data.hpp"

namespace gcsim::analysis {

// Writes gpus_over_time.png, cost_over_time.png and wait_time_cdf.png into `dir`, which
// must exist (the front end makes output folders), and returns their paths; `suffix` goes
// before ".png" (a run's "-s<seed>-r<N>", so runs into one folder keep their own plots). Each file
// appears only when complete (written to a fresh "<name>.png.<hex>.tmp", sim/atomic_file.hpp,
// then renamed). Throws
// gcsim::Error("gnuplot failed ...") when gnuplot is missing or leaves no PNG.
std::vector<std::string> write_plots(const TraceData& trace, const std::string& dir, const std::string& suffix = "");

// `text` as one gnuplot single-quoted string, safe whatever it holds: a quote is written
// twice, and every control character (a newline or a carriage return would end the
// command and start another, the way a crafted trace's scenario name could run `system`)
// and every byte of an invalid UTF-8 sequence is written as '?'; at most 200 characters
// are kept ("..." marks a cut). The only way untrusted text (names from scenarios, traces,
// catalogs) reaches a gnuplot script; data go through gnuplot-iostream's data blocks.
std::string gnuplot_text(std::string_view text);

}  // namespace gcsim::analysis
