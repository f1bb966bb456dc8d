// Plots through gnuplot-iostream. Data are reduced before they reach the pipe (step
// functions to the min and max over each pixel column of the plot area, analysis/
// pixel_steps.hpp; a fixed time grid for cost; quantiles for the CDF) so that a
// million-job trace plots as fast as a small one and the pictures show what the trace
// holds whatever its size. The gnuplot sessions themselves are analysis/plot_support.*.
#include "analysis/plots.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <system_error>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analysis/metrics.hpp"
#include "analysis/pixel_steps.hpp"
#include "analysis/plot_scales.hpp"
#include "analysis/plot_support.hpp"
#include "sim/errors.hpp"

namespace gcsim::analysis {

namespace {

namespace fs = std::filesystem;
using namespace plotting;

constexpr std::size_t COST_GRID_POINTS = 1001;

std::string title_prefix(const TraceData& trace) {
  const TraceAttributes& a = trace.attrs;
  return (a.scenario_name.empty() ? std::string("gcsim") : a.scenario_name) + " (seed " + std::to_string(a.seed) +
         ", replication " + std::to_string(a.replication) + "): ";
}

// --- cumulative cost ------------------------------------------------------------------

// An amount spent at a constant rate over [from, to] (all at once when to <= from).
struct Ramp {
  double from;
  double to;
  double amount;
};

// Sum of all ramps spent by each grid time (grid ascending). A sweep over the ramp
// edges: O((ramps + grid) log ramps), whatever the ramps overlap.
std::vector<double> cumulative_on_grid(const std::vector<Ramp>& ramps, const std::vector<double>& grid) {
  struct Edge {
    double t;
    double rate_change;
    double jump;
  };
  std::vector<Edge> edges;
  edges.reserve(2 * ramps.size());
  for (const Ramp& r : ramps) {
    if (!(r.amount != 0) || !std::isfinite(r.from)) continue;
    if (!(r.to > r.from)) {
      edges.push_back({r.from, 0.0, r.amount});
    } else {
      const double rate = r.amount / (r.to - r.from);
      edges.push_back({r.from, rate, 0.0});
      edges.push_back({r.to, -rate, 0.0});
    }
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.t < y.t; });
  std::vector<double> out;
  out.reserve(grid.size());
  double spent = 0;
  double rate = 0;
  double t_prev = edges.empty() ? 0.0 : std::min(edges.front().t, grid.empty() ? 0.0 : grid.front());
  std::size_t e = 0;
  for (double g : grid) {
    for (; e < edges.size() && edges[e].t <= g; ++e) {
      spent += rate * (edges[e].t - t_prev) + edges[e].jump;
      t_prev = edges[e].t;
      rate += edges[e].rate_change;
    }
    spent += rate * (g - t_prev);
    t_prev = g;
    out.push_back(spent);
  }
  return out;
}

// --- plots ----------------------------------------------------------------------------

// The interruptions of a trace reduced to pixel columns, for both time plots: a short tick
// at the top of the plot area (the 8% kept free above the data) per column holding any.
// Drawn as impulses on a second y axis of [-24, 1], whose zero is at 96% of the height.
struct InterruptionMarks {
  std::string title;  // legend entry
  Points ticks;       // (column centre, 1)
};

InterruptionMarks interruption_marks(const TraceData& trace, double unit_s) {
  InterruptionMarks out;
  const std::vector<Interruption> taken = spot_interruptions(trace);
  std::vector<double> times_s;
  long long gpus = 0;
  for (const Interruption& i : taken) {
    times_s.push_back(i.time_s);
    gpus += i.gpus;
  }
  for (const PixelMark& m : marks_per_pixel(times_s, 0.0, trace.attrs.end_s, PLOT_COLUMNS)) {
    out.ticks.emplace_back(0.5 * (m.from_s + m.to_s) / unit_s, 1.0);
  }
  out.title = "spot interruptions: " + std::to_string(taken.size()) + ", " + std::to_string(gpus) +
              " GPUs taken (ticks at the top)";
  return out;
}

// The second axis of the ticks, set before the plot command.
void set_interruption_axis(Gnuplot& gp) {
  gp << "set y2range [-24:1]\n";
  gp << "unset y2tics\n";
}

// The ticks' clause of the plot command.
std::string interruption_clause(const InterruptionMarks& marks) {
  return "'-' using 1:2 axes x1y2 with impulses lw 1 lc rgb '#ff7f0e' title " + gp_quote(marks.title);
}

std::string plot_gpus(const TraceData& trace, const fs::path& dir, const std::string& suffix) {
  const double end_s = trace.attrs.end_s;
  const TimeUnit unit = time_unit_for(end_s);
  std::vector<StepPoint> allocated;
  std::vector<StepPoint> provisioned;
  allocated.reserve(trace.utilization.size());
  provisioned.reserve(trace.utilization.size());
  for (const UtilizationSample& s : trace.utilization) {
    allocated.push_back({s.time_s, s.allocated_gpus});
    provisioned.push_back({s.time_s, static_cast<double>(s.total_gpus)});
  }
  const PixelSeries alloc = pixel_series(allocated, end_s, unit.seconds);
  const PixelSeries total = pixel_series(provisioned, end_s, unit.seconds);
  std::vector<StepPoint>().swap(allocated);
  std::vector<StepPoint>().swap(provisioned);
  const InterruptionMarks marks = interruption_marks(trace, unit.seconds);
  double top = 0;
  for (const Points* line : {&alloc.line, &total.line})
    for (const auto& p : *line) top = std::max(top, p.second);
  return plot_png(dir, "gpus_over_time" + suffix, [&](Gnuplot& gp) {
    gp << "set title " << gp_quote(title_prefix(trace) + "GPUs allocated and provisioned") << "\n";
    set_time_area(gp, end_s, unit);
    gp << "set ylabel 'GPUs'\n";
    gp << "set key outside top center horizontal\n";
    if (alloc.line.empty()) {  // total.line too: both come from the same rows
      gp << "set yrange [0:1]\n";
      gp << "set label 1 'nothing to draw: no /utilization row within the run' at graph 0.5, graph 0.5 center\n";
      gp << "plot 2 notitle\n";  // draws nothing inside the range, but draws the frame
      return;
    }
    // Whole GPUs only; 8% kept free above the total line for the interruption ticks.
    set_y_ticks(gp, count_ticks(top, 7), top, 0.08);
    gp << "set style fill solid 1.0 noborder\n";
    // Bands under the lines, interruptions under the lines too; one clause per non-empty
    // data block (gnuplot refuses an empty one).
    std::vector<std::string> clauses;
    if (!total.band.empty()) {
      clauses.push_back("'-' using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror lc rgb '#d9d9d9'"
                        " title 'provisioned, min to max within a pixel'");
    }
    if (!alloc.band.empty()) {
      clauses.push_back("'-' using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror lc rgb '#aec7e8'"
                        " title 'allocated, min to max within a pixel'");
    }
    if (!marks.ticks.empty()) {
      set_interruption_axis(gp);
      clauses.push_back(interruption_clause(marks));
    }
    clauses.push_back("'-' using 1:2 with steps lw 2 lc rgb '#1f77b4' title 'allocated (max per pixel)'");
    clauses.push_back("'-' using 1:2 with steps lw 1 dt 2 lc rgb '#555555' title 'provisioned (max per pixel)'");
    gp << "plot ";
    for (std::size_t i = 0; i < clauses.size(); ++i) gp << (i > 0 ? ", " : "") << clauses[i];
    gp << "\n";
    if (!total.band.empty()) gp.send1d(total.band);
    if (!alloc.band.empty()) gp.send1d(alloc.band);
    if (!marks.ticks.empty()) gp.send1d(marks.ticks);
    gp.send1d(alloc.line);
    gp.send1d(total.line);
  });
}

std::string plot_cost(const TraceData& trace, const fs::path& dir, const std::string& suffix) {
  const double end_s = trace.attrs.end_s;
  const TimeUnit unit = time_unit_for(end_s);
  std::vector<double> grid(COST_GRID_POINTS);
  for (std::size_t i = 0; i < grid.size(); ++i) {
    grid[i] = end_s * static_cast<double>(i) / static_cast<double>(grid.size() - 1);
  }
  std::vector<Ramp> ramps;
  ramps.reserve(trace.nodes.size());
  for (const NodeRecord& n : trace.nodes) ramps.push_back({n.up_s, n.down_s, n.cost_usd});
  const std::vector<double> provisioned = cumulative_on_grid(ramps, grid);
  ramps.clear();
  ramps.reserve(trace.jobs.size());
  for (const JobRecord& j : trace.jobs) {
    if (!std::isfinite(j.start_s)) continue;
    // A job still running at the end was charged up to end_s.
    ramps.push_back({j.start_s, std::isfinite(j.end_s) ? j.end_s : end_s, j.cost_usd});
  }
  const std::vector<double> busy = cumulative_on_grid(ramps, grid);
  std::vector<Ramp>().swap(ramps);

  Points prov_pts;
  Points busy_pts;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    prov_pts.emplace_back(grid[i] / unit.seconds, provisioned[i]);
    busy_pts.emplace_back(grid[i] / unit.seconds, busy[i]);
  }
  const InterruptionMarks marks = interruption_marks(trace, unit.seconds);
  double top = 0;
  for (std::size_t i = 0; i < grid.size(); ++i) top = std::max({top, provisioned[i], busy[i]});
  return plot_png(dir, "cost_over_time" + suffix, [&](Gnuplot& gp) {
    gp << "set title " << gp_quote(title_prefix(trace) + "cumulative cost") << "\n";
    set_time_area(gp, end_s, unit);
    gp << "set ylabel 'cumulative cost (USD)'\n";
    gp << "set key outside top center horizontal\n";
    set_y_ticks(gp, money_ticks(top, 6), top, 0.08);  // room for the interruption ticks
    if (!marks.ticks.empty()) set_interruption_axis(gp);
    gp << "plot ";
    if (!marks.ticks.empty()) gp << interruption_clause(marks) << ", ";
    gp << "'-' using 1:2 with lines lw 2 lc rgb '#d62728' title 'provisioned (all nodes)',"
          " '-' using 1:2 with lines lw 2 lc rgb '#2ca02c' title 'busy (held by jobs)'\n";
    if (!marks.ticks.empty()) gp.send1d(marks.ticks);
    gp.send1d(prov_pts);
    gp.send1d(busy_pts);
  });
}

std::string plot_waits(const TraceData& trace, const fs::path& dir, const std::string& suffix) {
  std::vector<double> waits;
  for (const JobRecord& j : trace.jobs) {
    if (std::isfinite(j.start_s)) waits.push_back(j.start_s - j.submit_s);
  }
  std::sort(waits.begin(), waits.end());
  const std::string note = wait_plot_note(trace);
  const double max_wait = waits.empty() ? 0.0 : waits.back();
  // Waits spanning decades (seconds to days) on a log axis in seconds, waits of 0 drawn at
  // its left edge; otherwise minutes, hours or days from 0.
  const bool log_x = note.empty() && wants_log_axis({waits});
  const double log_lo_s = log_x ? 0.5 * *std::upper_bound(waits.begin(), waits.end(), 0.0) : 0.0;
  const TimeUnit unit = !log_x ? time_unit_for(max_wait)
                               : TimeUnit{1.0, waits.front() > 0 ? "log scale" : "log scale; waits of 0 at the left edge"};
  // Empirical CDF: fraction of started jobs that waited at most x. Large samples are
  // reduced to CDF_POINTS quantiles (same interpolation as the metrics). When no job
  // waited it is 1 from x = 0 on: a line along the top, with the note saying why.
  Points cdf;
  const std::size_t n = waits.size();
  if (n > 0 && !note.empty()) {
    cdf = {{0.0, 1.0}, {1.0, 1.0}};
  } else if (n > 0 && n <= CDF_POINTS) {
    cdf.emplace_back(waits.front() / unit.seconds, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      cdf.emplace_back(waits[i] / unit.seconds, static_cast<double>(i + 1) / static_cast<double>(n));
    }
  } else if (n > 0) {
    for (std::size_t k = 0; k <= CDF_POINTS; ++k) {
      const double q = static_cast<double>(k) / static_cast<double>(CDF_POINTS);
      cdf.emplace_back(percentile_sorted(waits, 100.0 * q) / unit.seconds, q);
    }
  }
  if (log_x)
    for (auto& p : cdf) p.first = std::max(p.first, log_lo_s);
  return plot_png(dir, "wait_time_cdf" + suffix, [&](Gnuplot& gp) {
    gp << "set title "
       << gp_quote(title_prefix(trace) + "waiting time (start - submit), " + std::to_string(n) + " started jobs")
       << "\n";
    gp << "set xlabel " << gp_quote(std::string("waiting time (") + unit.name + ")") << "\n";
    gp << "set ylabel 'fraction of started jobs'\n";
    gp << "set yrange [0:1.02]\n";
    gp << "set key bottom right\n";
    if (!note.empty()) {
      gp << "set label 1 " << gp_quote(note) << " at graph 0.5, graph 0.5 center font 'sans,16'\n";
    }
    if (cdf.empty()) {
      gp << "set xrange [0:1]\n";
      gp << "plot 2 notitle\n";  // draws nothing inside the range, but draws the frame
      return;
    }
    if (log_x) set_log_time_x(gp, log_lo_s, 1.5 * max_wait);
    else gp << "set xrange [0:" << (note.empty() ? std::max(1.02 * max_wait / unit.seconds, 1e-9) : 1.0) << "]\n";
    gp << "plot '-' using 1:2 with steps lw 2 lc rgb '#9467bd' title 'CDF'\n";
    gp.send1d(cdf);
  });
}

}  // namespace

std::vector<Interruption> spot_interruptions(const TraceData& trace) {
  std::unordered_map<std::int32_t, std::int32_t> gpus_of_node;
  for (const NodeRecord& n : trace.nodes) gpus_of_node.emplace(n.node_id, n.gpus);
  std::vector<Interruption> out;
  auto add = [&](double time_s, std::int32_t node) {
    const auto it = gpus_of_node.find(node);
    out.push_back({time_s, it == gpus_of_node.end() ? 0 : it->second});
  };
  // The node events say why a node went: a scale-in or a release is not an interruption.
  if (trace.has_node_events) {
    for (const NodeEventRecord& e : trace.node_events)
      if (e.state == "down" && e.reason == "spot_interruption") add(e.time_s, e.node);
    return out;
  }
  // Older traces: every node_down after the start was a market's interruption.
  for (const EventRecord& e : trace.events)
    if (e.time_s > 0 && event_kind_label(trace, e) == "node_down") add(e.time_s, e.node);
  return out;
}

std::string wait_plot_note(const TraceData& trace) {
  std::size_t started = 0;
  for (const JobRecord& j : trace.jobs) {
    if (!std::isfinite(j.start_s)) continue;
    ++started;
    if (j.start_s > j.submit_s) return "";
  }
  if (started == 0) return "no job started";
  return started == trace.jobs.size() ? "no job waited" : "no started job waited";
}

std::vector<std::string> write_plots(const TraceData& trace, const std::string& dir, const std::string& suffix) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error("plot directory '" + dir + "' does not exist");
  std::vector<std::string> paths;
  paths.push_back(plot_gpus(trace, dir, suffix));
  paths.push_back(plot_cost(trace, dir, suffix));
  paths.push_back(plot_waits(trace, dir, suffix));
  return paths;
}

// See plots.hpp. Length in bytes of the UTF-8 sequence starting at s[i] when it is
// well formed (no overlong forms, no surrogates, at most U+10FFFF), else 0.
namespace {
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c == 0xE0) n = 3, lo = 0xA0;
  else if (c >= 0xE1 && c <= 0xEC) n = 3;
  else if (c == 0xED) n = 3, hi = 0x9F;
  else if (c >= 0xEE && c <= 0xEF) n = 3;
  else if (c == 0xF0) n = 4, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3) n = 4;
  else if (c == 0xF4) n = 4, hi = 0x8F;
  else return 0;
  if (i + n > s.size() || b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}
}  // namespace

std::string gnuplot_text(std::string_view text) {
  constexpr std::size_t MAX_CHARS = 200;
  std::string out = "'";
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (chars == MAX_CHARS) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F) out += '?';
      else if (c == '\'') out += "''";
      else out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = utf8_length(text, i); n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out += '?';
      ++i;
    }
    ++chars;
  }
  return out + "'";
}

}  // namespace gcsim::analysis
