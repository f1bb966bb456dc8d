// `gcsim compare -o DIR`'s plots: one run of each strategy overlaid, one line per variant and
// one legend, in PNG and SVG (docs/analysis.md, "Comparing strategies"): JCT and waiting-time
// CDFs, allocated GPUs, queue length, and each team's share of the GPUs over time. The
// series are public for tests; the machinery is analysis/plot_support.*.
#pragma once

#include <string>
#include <vector>

#include "analysis/pixel_steps.hpp"
#include "analysis/trace_data.hpp"

namespace gcsim::analysis {

// Jobs waiting over time: submitted, not running, not finished (a job whose run was
// stopped waits again until its next start), as steps from the job events in time order.
std::vector<StepPoint> queue_length_steps(const TraceData& trace);

// The GPUs `team`'s jobs hold over time (gpus_held while running), as steps.
std::vector<StepPoint> team_gpu_steps(const TraceData& trace, const std::string& team);

// Every team named by a job, sorted.
std::vector<std::string> trace_teams(const TraceData& trace);

// Writes into `dir` (which must exist), as NAME.png and NAME.svg: jct_cdf, wait_cdf,
// gpus_allocated, queue_length and team_share-<team> for each team (the team's name with
// every character but letters, digits, '.', '_' and '-' as '_'); `labels[i]` names
// `runs[i]` in the legend. Returns the paths written.
std::vector<std::string> write_overlay_plots(const std::vector<const TraceData*>& runs,
                                             const std::vector<std::string>& labels, const std::string& dir);

// `text` as a file name part: letters, digits, '.', '_' and '-' kept, anything else '_';
// "_" for empty text.
std::string file_name_part(const std::string& text);

}  // namespace gcsim::analysis
