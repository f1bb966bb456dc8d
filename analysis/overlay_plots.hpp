// `gcsim compare -o DIR`'s plots of one run of each strategy, in PNG and SVG (docs/analysis.md,
// "Comparing strategies"): JCT and waiting-time CDFs overlaid (one colour and dash type per
// variant, a log axis when the times span decades), and allocated GPUs (with the GPUs
// provisioned), queue length and each team's share of the GPUs over time as small multiples,
// one strip per variant; per service, its p99 latency and its replicas over time. The series are public for tests; the machinery is
// analysis/plot_support.*, the decisions taken from the data analysis/plot_scales.*.
#pragma once

#include <string>
#include <vector>

#include "analysis/file_names.hpp"
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

// The team share plots' names for `teams` (sorted, as trace_teams gives them):
// "team_share-" and the team's unique_file_name_parts(), so that teams whose names differ
// only in characters a file name cannot hold ("ml team", "ml_team") get a plot each.
std::vector<std::string> team_plot_names(const std::vector<std::string>& teams);

// The per-service plots' names for `services` (in scenario order): for each,
// "service_p99-" and "service_replicas-" and the service's unique_file_name_parts().
std::vector<std::string> service_plot_names(const std::vector<std::string>& services);

// Every NAME write_overlay_plots writes for runs whose jobs name `teams` and whose scenario
// has `services`.
std::vector<std::string> overlay_plot_names(const std::vector<std::string>& teams,
                                            const std::vector<std::string>& services = {});

// Writes into `dir` (which must exist), as NAME.png and NAME.svg: jct_cdf, wait_cdf,
// gpus_allocated, queue_length and team_plot_names() for the teams of all the runs, and
// for each service of the runs (/services) its service_plot_names(): the end-to-end p99 of
// each statistics interval, one line per variant, its SLO target dashed; its replicas up,
// one strip per variant;
// `labels[i]` names `runs[i]` in the legend. Returns the paths written.
std::vector<std::string> write_overlay_plots(const std::vector<const TraceData*>& runs,
                                             const std::vector<std::string>& labels, const std::string& dir);

}  // namespace gcsim::analysis
