// The overlaid comparison plots (see overlay_plots.hpp). Time series are reduced to pixel
// columns (max per column, as the single-run plots draw their lines) and CDFs to at most
// CDF_POINTS quantiles, so that large traces plot as fast as small ones.
#include "analysis/overlay_plots.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>
#include <unordered_map>

#include "analysis/metrics.hpp"
#include "analysis/plot_support.hpp"
#include "sim/errors.hpp"

namespace gcsim::analysis {

namespace {

namespace fs = std::filesystem;
using namespace plotting;

// A line per variant: the series and its legend entry.
struct Line {
  std::string title;
  Points points;
};

// Empirical CDF of `values` (sorted here) in `unit`: (x, fraction <= x), reduced to
// CDF_POINTS quantiles when larger.
Points cdf_points(std::vector<double> values, double unit_s) {
  std::sort(values.begin(), values.end());
  Points cdf;
  const std::size_t n = values.size();
  if (n == 0) return cdf;
  if (n <= CDF_POINTS) {
    cdf.emplace_back(values.front() / unit_s, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      cdf.emplace_back(values[i] / unit_s, static_cast<double>(i + 1) / static_cast<double>(n));
    return cdf;
  }
  for (std::size_t k = 0; k <= CDF_POINTS; ++k) {
    const double q = static_cast<double>(k) / static_cast<double>(CDF_POINTS);
    cdf.emplace_back(percentile_sorted(values, 100.0 * q) / unit_s, q);
  }
  return cdf;
}

// Draws `lines` (empty ones left out of the plot command: gnuplot refuses an empty data
// block; their legend entry says so) with `style`, or a frame with a note when all are empty.
void draw_lines(Gnuplot& gp, const std::vector<Line>& lines, const std::string& style) {
  std::vector<const Line*> drawn;
  for (const Line& l : lines)
    if (!l.points.empty()) drawn.push_back(&l);
  if (drawn.empty()) {
    gp << "set label 1 'nothing to draw: no run has data for this plot' at graph 0.5, graph 0.5 center\n";
    gp << "plot 2 notitle\n";
    return;
  }
  gp << "plot ";
  for (std::size_t i = 0; i < drawn.size(); ++i)
    // A dash pattern per line as well as a colour: strategies that agree draw on top of
    // each other, and the dashes show the line beneath.
    gp << (i > 0 ? ", " : "") << "'-' using 1:2 with " << style << " lw 2 dt " << (i % 5) + 1 << " title "
       << gp_quote(drawn[i]->title);
  gp << "\n";
  for (const Line* l : drawn) gp.send1d(l->points);
}

// Both formats of one plot.
void plot_both(const fs::path& dir, const std::string& name, const std::function<void(Gnuplot&)>& draw,
               std::vector<std::string>& paths) {
  paths.push_back(plot_file(dir, name, PlotFormat::Png, draw));
  paths.push_back(plot_file(dir, name, PlotFormat::Svg, draw));
}

void cdf_plot(const std::vector<std::vector<double>>& samples, const std::vector<std::string>& labels,
              const fs::path& dir, const std::string& name, const std::string& title, const std::string& axis,
              const std::string& of_what, std::vector<std::string>& paths) {
  double max_s = 0;
  for (const auto& s : samples)
    for (double v : s) max_s = std::max(max_s, v);
  const TimeUnit unit = time_unit_for(max_s);
  std::vector<Line> lines;
  for (std::size_t i = 0; i < samples.size(); ++i)
    lines.push_back({labels[i] + " (" + std::to_string(samples[i].size()) + " jobs)", cdf_points(samples[i], unit.seconds)});
  plot_both(dir, name, [&](Gnuplot& gp) {
    gp << "set title " << gp_quote(title) << "\n";
    gp << "set xlabel " << gp_quote(axis + " (" + unit.name + ")") << "\n";
    gp << "set ylabel " << gp_quote("fraction of " + of_what) << "\n";
    gp << "set xrange [0:" << std::max(1.02 * max_s / unit.seconds, 1e-9) << "]\n";
    gp << "set yrange [0:1.02]\n";
    gp << "set key bottom right\n";
    draw_lines(gp, lines, "steps");
  }, paths);
}

void time_plot(const std::vector<std::vector<StepPoint>>& series, const std::vector<std::string>& labels, double end_s,
               const fs::path& dir, const std::string& name, const std::string& title, const std::string& axis,
               std::vector<std::string>& paths) {
  const TimeUnit unit = time_unit_for(end_s);
  std::vector<Line> lines;
  for (std::size_t i = 0; i < series.size(); ++i) lines.push_back({labels[i], pixel_series(series[i], end_s, unit.seconds).line});
  plot_both(dir, name, [&](Gnuplot& gp) {
    gp << "set title " << gp_quote(title) << "\n";
    set_time_area(gp, end_s, unit);
    gp << "set ylabel " << gp_quote(axis) << "\n";
    gp << "set yrange [0:*]\n";
    gp << "set key outside top center horizontal\n";
    draw_lines(gp, lines, "steps");
  }, paths);
}

// Each job's state over its events, in time order: every change of state calls
// on_change(time, job index, from, to).
enum class JobState { Absent, Waiting, Running, Done };

template <typename OnChange>
void walk_job_events(const TraceData& trace, OnChange&& on_change) {
  std::unordered_map<std::int64_t, std::size_t> index_of;
  for (std::size_t i = 0; i < trace.jobs.size(); ++i) index_of.emplace(trace.jobs[i].job_id, i);
  std::vector<JobState> state(trace.jobs.size(), JobState::Absent);
  std::vector<const EventRecord*> events;
  for (const EventRecord& e : trace.events)
    if (e.job >= 0 && index_of.count(e.job) > 0) events.push_back(&e);
  std::stable_sort(events.begin(), events.end(),
                   [](const EventRecord* a, const EventRecord* b) { return a->time_s < b->time_s; });
  for (const EventRecord* e : events) {
    const std::size_t j = index_of.at(e->job);
    const std::string& kind = event_kind_label(trace, *e);
    JobState next = state[j];
    if (kind == "submit" && state[j] == JobState::Absent) next = JobState::Waiting;
    else if (kind == "start") next = JobState::Running;
    else if (kind == "stop" && state[j] == JobState::Running) next = JobState::Waiting;
    else if (kind == "finish") next = JobState::Done;
    if (next != state[j]) on_change(e->time_s, j, state[j], next);
    state[j] = next;
  }
}

// Steps from (time, delta) changes in time order, starting at 0 from t = 0.
std::vector<StepPoint> steps_from(const std::vector<std::pair<double, double>>& changes) {
  std::vector<StepPoint> out{{0.0, 0.0}};
  double value = 0;
  for (const auto& [t, delta] : changes) {
    value += delta;
    if (out.back().time_s == t) out.back().value = value;
    else out.push_back({t, value});
  }
  return out;
}

}  // namespace

std::vector<StepPoint> queue_length_steps(const TraceData& trace) {
  std::vector<std::pair<double, double>> changes;
  walk_job_events(trace, [&](double t, std::size_t, JobState from, JobState to) {
    if (from == JobState::Waiting) changes.emplace_back(t, -1.0);
    if (to == JobState::Waiting) changes.emplace_back(t, 1.0);
  });
  return steps_from(changes);
}

std::vector<StepPoint> team_gpu_steps(const TraceData& trace, const std::string& team) {
  std::vector<std::pair<double, double>> changes;
  walk_job_events(trace, [&](double t, std::size_t j, JobState from, JobState to) {
    const JobRecord& job = trace.jobs[j];
    if (job.resilience.team != team) return;
    if (from == JobState::Running) changes.emplace_back(t, -job.gpu_share_held());
    if (to == JobState::Running) changes.emplace_back(t, job.gpu_share_held());
  });
  return steps_from(changes);
}

std::vector<std::string> trace_teams(const TraceData& trace) {
  std::set<std::string> teams;
  for (const JobRecord& j : trace.jobs)
    if (!j.resilience.team.empty()) teams.insert(j.resilience.team);
  return {teams.begin(), teams.end()};
}

std::vector<std::string> team_plot_names(const std::vector<std::string>& teams) {
  std::vector<std::string> names = unique_file_name_parts(teams);
  for (std::string& n : names) n = "team_share-" + n;
  return names;
}

std::vector<std::string> overlay_plot_names(const std::vector<std::string>& teams) {
  std::vector<std::string> names{"jct_cdf", "wait_cdf", "gpus_allocated", "queue_length"};
  for (std::string& n : team_plot_names(teams)) names.push_back(std::move(n));
  return names;
}

std::vector<std::string> write_overlay_plots(const std::vector<const TraceData*>& runs,
                                             const std::vector<std::string>& labels, const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error("plot directory '" + dir + "' does not exist");
  std::vector<std::string> paths;
  double end_s = 0;
  std::vector<std::vector<double>> jct, wait;
  std::vector<std::vector<StepPoint>> allocated, queue;
  std::set<std::string> teams;
  for (const TraceData* t : runs) {
    end_s = std::max(end_s, t->attrs.end_s);
    jct.emplace_back();
    wait.emplace_back();
    for (const JobRecord& j : t->jobs) {
      if (std::isfinite(j.start_s)) wait.back().push_back(j.start_s - j.submit_s);
      if (j.status == JobStatus::Completed) jct.back().push_back(j.end_s - j.submit_s);
    }
    allocated.emplace_back();
    for (const UtilizationSample& s : t->utilization) allocated.back().push_back({s.time_s, s.allocated_gpus});
    queue.push_back(queue_length_steps(*t));
    for (const std::string& team : trace_teams(*t)) teams.insert(team);
  }
  // Every run is of one scenario and seed: the title names them once.
  const TraceAttributes& a = runs.empty() ? TraceAttributes{} : runs.front()->attrs;
  const std::string prefix = (a.scenario_name.empty() ? std::string("gcsim") : a.scenario_name) + " (seed " +
                             std::to_string(a.seed) + ", replication 0): ";
  cdf_plot(jct, labels, dir, "jct_cdf", prefix + "job completion time (end - submit), completed jobs", "job completion time",
           "completed jobs", paths);
  cdf_plot(wait, labels, dir, "wait_cdf", prefix + "waiting time (start - submit), started jobs", "waiting time",
           "started jobs", paths);
  time_plot(allocated, labels, end_s, dir, "gpus_allocated", prefix + "GPUs allocated to jobs (max per pixel)", "GPUs", paths);
  time_plot(queue, labels, end_s, dir, "queue_length", prefix + "jobs waiting (submitted, not running, not finished)", "jobs",
            paths);
  const std::vector<std::string> team_names = team_plot_names({teams.begin(), teams.end()});
  std::size_t team_index = 0;
  for (const std::string& team : teams) {
    const std::string& plot_name = team_names[team_index++];
    // The team's GPUs over the GPUs provisioned at each instant.
    std::vector<std::vector<StepPoint>> share;
    for (const TraceData* t : runs) {
      const std::vector<StepPoint> held = team_gpu_steps(*t, team);
      std::vector<StepPoint> s;
      std::size_t h = 0, u = 0;
      double held_now = 0, total_now = 0;
      while (h < held.size() || u < t->utilization.size()) {
        const double th = h < held.size() ? held[h].time_s : INFINITY;
        const double tu = u < t->utilization.size() ? t->utilization[u].time_s : INFINITY;
        const double now = std::min(th, tu);
        for (; h < held.size() && held[h].time_s == now; ++h) held_now = held[h].value;
        for (; u < t->utilization.size() && t->utilization[u].time_s == now; ++u)
          total_now = t->utilization[u].total_gpus;
        s.push_back({now, total_now > 0 ? held_now / total_now : 0.0});
      }
      share.push_back(std::move(s));
    }
    time_plot(share, labels, end_s, dir, plot_name,
              prefix + "team " + team + ": share of the provisioned GPUs its jobs hold (max per pixel)", "share of GPUs (0-1)",
              paths);
  }
  return paths;
}

}  // namespace gcsim::analysis
