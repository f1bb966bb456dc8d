// The comparison plots (see overlay_plots.hpp). Time series are reduced to pixel columns
// (min, max and time-weighted mean per column) and CDFs to at most CDF_POINTS quantiles, so
// that large traces plot as fast as small ones.
#include "analysis/overlay_plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <set>
#include <unordered_map>

#include "analysis/metrics.hpp"
#include "analysis/plot_scales.hpp"
#include "analysis/plot_support.hpp"
#include "analysis/report.hpp"
#include "sim/errors.hpp"

namespace gcsim::analysis {

namespace {

namespace fs = std::filesystem;
using namespace plotting;

// A line per variant: the series, its legend entry and the variant's index (its colour
// and dash type, the same in every plot).
struct Line {
  std::string title;
  Points points;
  std::size_t index = 0;
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

// gnuplot's style of variant i: its own colour and dash type (plot_scales.hpp).
std::string line_style(std::size_t i) {
  return "lc rgb '" + line_colour(i) + "' dt " + std::to_string(line_dash(i));
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
    gp << (i > 0 ? ", " : "") << "'-' using 1:2 with " << style << " lw 2 " << line_style(drawn[i]->index) << " title "
       << gp_quote(drawn[i]->title);
  gp << "\n";
  for (const Line* l : drawn) gp.send1d(l->points);
}

// Both formats of one plot.
void plot_both(const fs::path& dir, const std::string& name, const std::function<void(Gnuplot&)>& draw,
               std::vector<std::string>& paths, int height_px = HEIGHT_PX) {
  paths.push_back(plot_file(dir, name, PlotFormat::Png, draw, height_px));
  paths.push_back(plot_file(dir, name, PlotFormat::Svg, draw, height_px));
}

// The CDFs overlaid, one colour and dash type per variant, the legend below the plot. When
// the positive values span more than LOG_AXIS_RATIO (waits of seconds and of days) the x axis
// is logarithmic, in seconds ticked at 1m, 1h, 1d...; values of 0 are drawn at its left edge,
// half the smallest positive value.
void cdf_plot(const std::vector<std::vector<double>>& samples, const std::vector<std::string>& labels,
              const fs::path& dir, const std::string& name, const std::string& title, const std::string& axis,
              const std::string& of_what, std::vector<std::string>& paths) {
  double max_s = 0;
  double min_positive_s = INFINITY;
  for (const auto& s : samples)
    for (double v : s) {
      max_s = std::max(max_s, v);
      if (v > 0) min_positive_s = std::min(min_positive_s, v);
    }
  const bool log_x = wants_log_axis(samples);
  const double lo_s = log_x ? 0.5 * min_positive_s : 0.0;
  bool zeros = false;
  for (const auto& s : samples) zeros = zeros || std::any_of(s.begin(), s.end(), [](double v) { return !(v > 0); });
  const TimeUnit unit = !log_x ? time_unit_for(max_s) : TimeUnit{1.0, zeros ? "log scale; 0 at the left edge" : "log scale"};
  std::vector<Line> lines;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    lines.push_back({labels[i] + " (" + std::to_string(samples[i].size()) + " jobs)", cdf_points(samples[i], unit.seconds), i});
    if (log_x)
      for (auto& p : lines.back().points) p.first = std::max(p.first, lo_s);
  }
  plot_both(dir, name, [&](Gnuplot& gp) {
    gp << "set title " << gp_quote(title) << "\n";
    gp << "set xlabel " << gp_quote(axis + " (" + unit.name + ")") << "\n";
    gp << "set ylabel " << gp_quote("fraction of " + of_what) << "\n";
    if (log_x) set_log_time_x(gp, lo_s, 1.5 * max_s);
    else gp << "set xrange [0:" << std::max(1.02 * max_s / unit.seconds, 1e-9) << "]\n";
    gp << "set yrange [0:1.02]\n";
    // One column: gnuplot 5.4 sets a key below in several columns over the x label.
    gp << "set key outside below left Left reverse maxcols 1\n";
    draw_lines(gp, lines, "steps");
  }, paths, HEIGHT_PX + 16 * static_cast<int>(samples.size()));
}

// What a strip's label says after the variant's name, from its pixel columns (equal widths,
// so the mean of the columns' means is the time-weighted mean where the series is defined):
// "  (mean 23.4, peak 180)", fractions with two decimals; "" without data.
std::string strip_figures(const PixelSeries& p, bool share) {
  if (p.mean.size() < 2) return "";
  double sum = 0, peak = 0;
  for (std::size_t k = 0; k + 1 < p.mean.size(); ++k) sum += p.mean[k].second;  // the last repeats the end
  for (const auto& x : p.line) peak = std::max(peak, x.second);
  const double mean = sum / static_cast<double>(p.mean.size() - 1);
  if (share) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "  (mean %.2f, peak %.2f)", mean, peak);
    return buf;
  }
  // A peak of shared GPUs may be a fraction (0.5 of a GPU); counts are whole.
  return "  (mean " + format_count(mean, 1) + ", peak " + format_count(peak, peak == std::floor(peak) ? 0 : 1) + ")";
}

// Small multiples: one strip per variant, stacked on one time axis and one y scale.
constexpr int STRIP_TOP_PX = 64;     // title and the line saying what is drawn
constexpr int STRIP_PX = 100;        // each strip, gap included
constexpr int STRIP_GAP_PX = 20;     // above each strip: its label
constexpr int STRIP_BOTTOM_PX = 50;  // the time axis

// The series of each variant in strips: in the variant's colour, the time-weighted mean
// of each pixel column (a line) over the band from its min to its max, and `provisioned`
// (when given) as a grey dashed line. A team's share that flips within a pixel reads as
// its average over the band of its range, where an overlay of maxima was a barcode.
void strip_plot(const std::vector<std::vector<StepPoint>>& series, const std::vector<std::vector<StepPoint>>* provisioned,
                const std::vector<std::string>& labels, double end_s, const fs::path& dir, const std::string& name,
                const std::string& title, const std::string& axis, bool share, std::vector<std::string>& paths) {
  const TimeUnit unit = time_unit_for(end_s);
  std::vector<PixelSeries> data, total;
  double top = 0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    data.push_back(pixel_series(series[i], end_s, unit.seconds));
    for (const auto& p : data.back().line) top = std::max(top, p.second);
    if (provisioned) {
      total.push_back(pixel_series((*provisioned)[i], end_s, unit.seconds));
      for (const auto& p : total.back().line) top = std::max(top, p.second);
    }
  }
  const std::vector<Tick> ticks = share ? std::vector<Tick>{{0, "0"}, {0.5, "0.5"}, {1, "1"}} : count_ticks(top, 4);
  if (share) top = 1;
  const int n = static_cast<int>(std::max<std::size_t>(1, series.size()));
  const int height = STRIP_TOP_PX + n * STRIP_PX + STRIP_BOTTOM_PX;
  const auto screen_y = [height](int px_from_top) { return gp_number(1.0 - static_cast<double>(px_from_top) / height); };
  plot_both(dir, name, [&](Gnuplot& gp) {
    gp << "set multiplot\n";
    gp << "set label 101 " << gp_quote(title) << " at screen 0.5, screen " << screen_y(18) << " center\n";
    gp << "set label 102 "
       << gp_quote(std::string("one strip per strategy: line = mean within each pixel column, shaded = min to max within it") +
                   (provisioned ? ", grey dashes = GPUs provisioned" : ""))
       << " at screen 0.5, screen " << screen_y(40) << " center\n";
    gp << "set label 103 " << gp_quote(axis) << " at screen 0.015, screen 0.5 center rotate by 90\n";
    gp << "unset key\n";
    set_time_area(gp, end_s, unit);
    set_y_ticks(gp, ticks, top, 0.1);
    for (int i = 0; i < n; ++i) {
      const std::size_t v = static_cast<std::size_t>(i);
      gp << "set tmargin at screen " << screen_y(STRIP_TOP_PX + i * STRIP_PX + STRIP_GAP_PX) << "\n";
      gp << "set bmargin at screen " << screen_y(STRIP_TOP_PX + (i + 1) * STRIP_PX) << "\n";
      if (i + 1 < n) {
        gp << "set format x ''\n";
        gp << "unset xlabel\n";
      } else {
        gp << "set format x '% h'\n";
        gp << "set xlabel " << gp_quote(std::string("time (") + unit.name + ")") << "\n";
      }
      const std::string colour = line_colour(v);
      gp << "set label 1 " << gp_quote(v < labels.size() && v < data.size() ? labels[v] + strip_figures(data[v], share) : "")
         << " at graph 0, graph 1 left offset 0, 0.7"
         << " textcolor rgb '" << colour << "'\n";
      const bool has_data = v < data.size() && !data[v].mean.empty();
      const bool has_total = provisioned && v < total.size() && !total[v].line.empty();
      if (!has_data) {
        gp << "set label 2 'no data' at graph 0.5, graph 0.5 center\n";
        gp << "plot -1 notitle\n";
        gp << "unset label 2\n";
      } else {
        gp << "plot ";
        if (!data[v].band.empty())
          gp << "'-' using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror fs transparent solid 0.3 noborder lc rgb '"
             << colour << "' notitle, ";
        gp << "'-' using 1:2 with steps lw 1.5 lc rgb '" << colour << "' notitle";
        if (has_total) gp << ", '-' using 1:2 with steps lw 1 dt 2 lc rgb '#555555' notitle";
        gp << "\n";
        if (!data[v].band.empty()) gp.send1d(data[v].band);
        gp.send1d(data[v].mean);
        if (has_total) gp.send1d(total[v].line);
      }
      if (i == 0) gp << "unset label 101\nunset label 102\nunset label 103\n";
    }
    gp << "unset multiplot\n";
  }, paths, height);
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

std::vector<std::string> service_plot_names(const std::vector<std::string>& services) {
  std::vector<std::string> names;
  for (const std::string& n : unique_file_name_parts(services)) {
    names.push_back("service_p99-" + n);
    names.push_back("service_replicas-" + n);
  }
  return names;
}

std::vector<std::string> overlay_plot_names(const std::vector<std::string>& teams, const std::vector<std::string>& services) {
  std::vector<std::string> names{"jct_cdf", "wait_cdf", "gpus_allocated", "queue_length"};
  for (std::string& n : team_plot_names(teams)) names.push_back(std::move(n));
  for (std::string& n : service_plot_names(services)) names.push_back(std::move(n));
  return names;
}

namespace {

// Per service of the runs (the first run's /services, scenario order; every run is of one
// scenario): the p99 of the latency its SLO names (end-to-end; TTFT with only a TTFT
// target) per statistics interval overlaid, and its replicas up in
// strips (docs/serving.md, "gcsim compare").
void service_overlays(const std::vector<const TraceData*>& runs, const std::vector<std::string>& labels, double end_s,
                      const std::string& prefix, const std::string& dir, std::vector<std::string>& paths) {
  if (runs.empty() || runs.front()->services.empty()) return;
  const std::vector<ServiceRecord>& services = runs.front()->services;
  std::vector<std::string> names;
  for (const ServiceRecord& r : services) names.push_back(r.name);
  const std::vector<std::string> plot_names = service_plot_names(names);
  const TimeUnit unit = time_unit_for(end_s);
  for (std::size_t k = 0; k < services.size(); ++k) {
    const std::int32_t id = services[k].service;
    // The latency its SLO names: end-to-end, or TTFT for a service with a TTFT target and no
    // end-to-end one (an LLM chat).
    const bool ttft = !(services[k].slo_p99_s > 0) && services[k].slo_ttft_p99_s > 0;
    const double target = ttft ? services[k].slo_ttft_p99_s : services[k].slo_p99_s;
    const bool has_target = target > 0 && std::isfinite(target);
    const std::string what = ttft ? "time to first token" : "end-to-end";
    std::vector<Line> lines;
    std::vector<std::vector<StepPoint>> up;
    double lo = INFINITY, hi = 0;
    for (std::size_t v = 0; v < runs.size(); ++v) {
      Line line{v < labels.size() ? labels[v] : "", {}, v};
      up.emplace_back();
      for (const ServiceSampleRecord& x : runs[v]->service_series) {
        if (x.service != id) continue;
        // At the interval's end: what had completed by then, the replicas counted then.
        const double t = x.t_s + x.interval_s;
        up.back().push_back({t, static_cast<double>(x.replicas_up)});
        const double p99 = ttft ? x.ttft_p99_s : x.e2e_p99_s;
        if (!(p99 > 0) || !std::isfinite(p99)) continue;  // nothing completed
        line.points.emplace_back(t / unit.seconds, p99);
        lo = std::min(lo, p99);
        hi = std::max(hi, p99);
      }
      lines.push_back(std::move(line));
    }
    if (has_target) {
      lo = std::min(lo, target);
      hi = std::max(hi, target);
    }
    plot_both(fs::path(dir), plot_names[2 * k], [&](Gnuplot& gp) {
      gp << "set title " << gp_quote(prefix + "service " + services[k].name + ": " + what + " p99 per interval" +
                                     (has_target ? " (SLO target dashed)" : "")) << "\n";
      set_time_area(gp, end_s, unit);
      gp << "set ylabel 'p99 latency (s)'\n";
      if (hi > 0) {
        gp << "set logscale y\n";
        gp << "set yrange [" << gp_number(lo / 2) << ":" << gp_number(hi * 2) << "]\n";
      }
      if (has_target)
        gp << "set arrow 1 from graph 0, first " << gp_number(target) << " to graph 1, first " << gp_number(target)
           << " nohead dt 2 lw 1.5 lc rgb '#555555'\n";
      gp << "set key outside below left Left reverse maxcols 1\n";
      draw_lines(gp, lines, "linespoints pt 7 ps 0.4");
    }, paths, HEIGHT_PX + 16 * static_cast<int>(runs.size()));
    strip_plot(up, nullptr, labels, end_s, fs::path(dir), plot_names[2 * k + 1],
               prefix + "service " + services[k].name + ": replicas up (at each interval's end)", "replicas", false, paths);
  }
}

}  // namespace

std::vector<std::string> write_overlay_plots(const std::vector<const TraceData*>& runs,
                                             const std::vector<std::string>& labels, const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error("plot directory '" + dir + "' does not exist");
  std::vector<std::string> paths;
  double end_s = 0;
  std::vector<std::vector<double>> jct, wait;
  std::vector<std::vector<StepPoint>> allocated, provisioned, queue;
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
    provisioned.emplace_back();
    for (const UtilizationSample& s : t->utilization) {
      allocated.back().push_back({s.time_s, s.allocated_gpus});
      provisioned.back().push_back({s.time_s, static_cast<double>(s.total_gpus)});
    }
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
  strip_plot(allocated, &provisioned, labels, end_s, dir, "gpus_allocated", prefix + "GPUs allocated to jobs", "GPUs",
             false, paths);
  strip_plot(queue, nullptr, labels, end_s, dir, "queue_length", prefix + "jobs waiting (submitted, not running, not finished)",
             "jobs", false, paths);
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
    strip_plot(share, nullptr, labels, end_s, dir, plot_name,
               prefix + "team " + team + ": share of the provisioned GPUs its jobs hold", "share of GPUs (0-1)", true, paths);
  }
  service_overlays(runs, labels, end_s, prefix, dir, paths);
  return paths;
}

}  // namespace gcsim::analysis
