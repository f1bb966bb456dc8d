// PNG plots of one run, drawn by gnuplot (pngcairo): allocated and provisioned GPUs over
// time, cumulative cost over time (provisioned vs busy), both with the spot interruptions
// marked, and the distribution (CDF) of waiting times.
// gnuplot-iostream and Boost stay inside plots.cpp so that including this header is cheap.
#pragma once

#include <cstdint>
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

// The spot interruptions the time plots mark: one per `node_down` event after t = 0 (a
// spot node down from t = 0 because its pool could not supply it is no interruption, as
// in /nodes.interruptions), with the GPUs of the node taken (0 for a node the trace does
// not list).
struct Interruption {
  double time_s = 0;
  std::int32_t gpus = 0;
};
std::vector<Interruption> spot_interruptions(const TraceData& trace);

// What the waiting-time plot writes across it: "no job started"; "no job waited" when
// every job started at its submission, "no started job waited" when some never started
// and the others did not wait; "" when some job waited (the plot draws the CDF).
std::string wait_plot_note(const TraceData& trace);

// `text` as one gnuplot single-quoted string, safe whatever it holds: a quote is written
// twice, and every control character (a newline or a carriage return would end the
// command and start another, the way a crafted trace's scenario name could run `system`)
// and every byte of an invalid UTF-8 sequence is written as '?'; at most 200 characters
// are kept ("..." marks a cut). The only way untrusted text (names from scenarios, traces,
// catalogs) reaches a gnuplot script; data go through gnuplot-iostream's data blocks.
std::string gnuplot_text(std::string_view text);

}  // namespace gcsim::analysis
