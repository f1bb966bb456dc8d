// `gcsim sweep FILE [-j N] [-o DIR] [-q] [--keep-traces]`: every point of a sweep file
// (models/config/sweep_spec.hpp) times its replications, on N threads, each run's figures
// taken from its trace built in memory (no file unless --keep-traces), then one table per
// run and one per point, with each figure's mean, standard deviation and 95% interval
// (docs/sweeps.md). Every point is loaded and checked before any run starts; a run that
// fails is recorded with its message and the others go on.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "analysis/confidence.hpp"
#include "analysis/metrics.hpp"
#include "analysis/report.hpp"
#include "analysis/strategy_comparison.hpp"
#include "analysis/summary_trace.hpp"
#include "analysis/sweep_plots.hpp"
#include "analysis/sweep_report.hpp"
#include "analysis/trace_data.hpp"
#include "cli/commands.hpp"
#include "cli/sweep_journal.hpp"
#include "cli/sweep_mpi.hpp"
#include "gcsim/version.hpp"
#include "sim/config/regular_file.hpp"
#include "sim/config/source_resolver.hpp"
#include "models/config/resource_estimate.hpp"
#include "models/config/sweep_spec.hpp"
#include "models/simulation.hpp"
#include "sim/atomic_file.hpp"
#include "sim/check.hpp"
#include "sim/errors.hpp"
#include "sim/parallel.hpp"
#include "sim/trace/table_writer.hpp"
#include "sim/units.hpp"

namespace gcsim::cli {

namespace fs = std::filesystem;

struct SweepCommand {
  CLI::App* app = nullptr;
  std::string file;
  int threads = 0;  // 0: one per hardware thread
  std::string out_dir = "sweep-out";
  bool quiet = false;
  bool keep_traces = false;
  bool restart = false;
  bool no_plots = false;
  std::string shard;                    // "K/N": run every N-th run from the K-th (1-based)
  std::vector<std::string> merge_dirs;  // join these shards' journals into -o
};

namespace {

// A sweep file is a few keys and lists; 16 MiB is far past any written by hand.
constexpr std::uint64_t MAX_SWEEP_FILE_BYTES = 16u << 20;

// The figures a sweep reports: its `metrics:` by index into STRATEGY_FIGURES, checked
// with a did-you-mean at the name's position.
// (An empty list: every figure.)
std::vector<std::size_t> metric_indices(const std::vector<std::pair<std::string, SourceMark>>& wanted) {
  std::vector<std::size_t> out;
  std::vector<std::string> names;
  for (const auto& f : analysis::STRATEGY_FIGURES) names.emplace_back(f.key);
  if (wanted.empty()) {
    for (std::size_t i = 0; i < names.size(); ++i) out.push_back(i);
    return out;
  }
  for (const auto& [name, mark] : wanted) {
    const std::size_t index = analysis::figure_index(name);
    if (index == names.size()) {
      const std::string guess = did_you_mean(name, names);
      std::string valid;
      for (const std::string& n : names) valid += (valid.empty() ? "" : ", ") + n;
      throw ConfigError(ErrorCode::UnknownName, mark, "metric",
                        "unknown figure '" + name + "'" + (guess.empty() ? "" : "; did you mean '" + guess + "'?") +
                            " (the figures of gcsim compare --json: " + valid + ")");
    }
    out.push_back(index);
  }
  return out;
}


// Progress on standard error: a bar redrawn in place on a terminal, else a plain line
// every few seconds.
class Progress {
 public:
  Progress(std::size_t total, bool quiet) : total_(total), quiet_(quiet), tty_(::isatty(2) == 1), start_(now()) {}
  void done_one(bool failed) {
    const std::size_t done = ++done_;
    if (failed) ++failed_;
    if (quiet_) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    const double t = now();
    if (done < total_ && t - last_ < (tty_ ? 0.2 : 5.0)) return;
    last_ = t;
    const double rate = done / std::max(t - start_, 1e-9);
    const double left = (total_ - done) / std::max(rate, 1e-9);
    char line[160];
    std::snprintf(line, sizeof line, "runs %zu of %zu, %.1f/s, %s left, %zu failed", done, total_, rate,
                  analysis::format_duration(left).c_str(), failed_.load());
    if (tty_) {
      const int width = 24;
      const int filled = static_cast<int>(width * static_cast<double>(done) / static_cast<double>(total_));
      std::fprintf(stderr, "\r[%s%s] %s", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                   std::string(static_cast<std::size_t>(width - filled), ' ').c_str(), line);
      if (done == total_) std::fputc('\n', stderr);
    } else {
      std::fprintf(stderr, "gcsim sweep: %s\n", line);
    }
  }

 private:
  static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  std::size_t total_;
  bool quiet_;
  bool tty_;
  double start_;
  double last_ = 0;
  std::atomic<std::size_t> done_{0};
  std::atomic<std::size_t> failed_{0};
  std::mutex mutex_;
};

// A figure as CSV text: the shortest that reads back the same, empty for NaN.
std::string csv_number(double v) {
  return std::isnan(v) ? std::string() : units::shortest_text(v);
}

// A CSV cell: quoted when it holds a comma, a quote or a line break.
std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

struct PointStats {
  std::size_t n = 0;  // runs that succeeded
  double mean = 0, sd = 0, ci95 = 0;
};

PointStats stats_of(const std::vector<double>& values) {
  const analysis::MeanInterval m = analysis::mean_ci95(values);
  PointStats s{m.n, m.mean, analysis::NOT_A_NUMBER, m.half_width};
  if (m.n >= 2) {
    double ss = 0;
    for (const double v : values)
      if (!std::isnan(v)) ss += (v - m.mean) * (v - m.mean);
    s.sd = std::sqrt(ss / static_cast<double>(m.n - 1));
  } else {
    s.ci95 = analysis::NOT_A_NUMBER;
  }
  return s;
}

std::size_t widest(const std::vector<std::string>& texts) {
  std::size_t w = 1;
  for (const std::string& t : texts) w = std::max(w, t.size());
  return w;
}

// "K/N" as (K - 1, N); an Error for anything else.
std::pair<std::size_t, std::size_t> read_shard(const std::string& text) {
  const auto slash = text.find('/');
  std::size_t k = 0, n = 0;
  const bool ok = slash != std::string::npos &&
                  std::from_chars(text.data(), text.data() + slash, k).ptr == text.data() + slash &&
                  std::from_chars(text.data() + slash + 1, text.data() + text.size(), n).ptr == text.data() + text.size() &&
                  n >= 1 && k >= 1 && k <= n && slash > 0 && slash + 1 < text.size();
  if (!ok) throw Error("--shard '" + text + "': K/N, shard K of N, 1 <= K <= N (--shard 3/8)");
  return {k - 1, n};
}

int cmd_sweep(const SweepCommand& command, const models::LoadOptions& options, const models::ResourceLimits& limits) {
  SweepCommand c = command;
  if (!c.merge_dirs.empty() && c.file.empty()) c.file = SweepJournal::sweep_file_of(c.merge_dirs.front());
  if (c.file.empty()) throw Error("gcsim sweep: name the sweep file (gcsim sweep FILE)");
  std::optional<std::pair<std::size_t, std::size_t>> shard;
  if (!c.shard.empty()) shard = read_shard(c.shard);
  // Under mpirun: every rank checks the sweep; rank 0 hands out the runs and writes.
  const MpiSession mpi;
  if (mpi.active() && (shard || !c.merge_dirs.empty()))
    throw Error("gcsim sweep: under mpirun the ranks share the whole sweep: --shard and --merge are for sweeps "
                "run without MPI (a Slurm job array)");
  const bool root = mpi.rank() == 0;
  if (!root) c.quiet = true;
  if (shard && !c.merge_dirs.empty()) throw Error("gcsim sweep: --shard runs one shard, --merge joins shards: not both");
  const models::SweepSpec spec = models::read_sweep_file(c.file);
  const std::vector<std::size_t> metrics = metric_indices(spec.metrics);
  const models::Catalogs catalogs = models::load_bundled_catalogs(options);
  std::error_code ec;
  if (!fs::is_regular_file(spec.base, ec))
    throw ConfigError(ErrorCode::FileNotFound, spec.base_mark, "base", "no scenario file '" + spec.base + "'");
  const config::ConfigDocument base = models::with_overrides(config::load_yaml_file(spec.base), options.overrides);
  const std::vector<models::SweepPoint> points = models::expand_sweep(spec);
  const std::vector<std::string> keys = models::sweep_keys(spec);
  // Replication r of point p is run p * cap + r: the same index whatever is decided later.
  const std::size_t min_reps = static_cast<std::size_t>(spec.replications);
  const std::size_t cap = static_cast<std::size_t>(spec.max_replications);
  std::optional<std::size_t> until_metric;
  if (spec.until) {
    until_metric = metric_indices({{spec.until->metric, spec.until->mark}}).front();
    if (shard || !c.merge_dirs.empty())
      throw Error("gcsim sweep: adaptive replications decide each round from every point's runs, so they are not "
                  "sharded or merged yet: run the sweep whole (on one machine, -j N)");
  }
  const std::size_t threads = c.threads > 0 ? static_cast<std::size_t>(c.threads) : 0;
  const std::size_t held = threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());

  // Every point loaded and checked before any run: the first failing point, in order, is
  // the error (at the sweep file's line and column where the point's value is written).
  // Each point's digest covers its scenario as run and every file it reads.
  std::vector<std::uint64_t> seeds(points.size());
  std::vector<std::string> digests(points.size());
  sim::parallel_for(points.size(), threads, [&](std::size_t p) {
    const models::Scenario s = models::load_scenario(models::with_overrides(base, points[p].settings), catalogs, options.schedulers);
    check_resources_shared(models::estimate_resources(s), limits, std::min(points.size() * cap, held));
    seeds[p] = s.seed;
    std::string d = config::fnv1a64_hex(s.source_text);
    for (const config::SourceRecord& r : s.inputs) d += " " + r.digest;
    digests[p] = d;
  });
  // What the results depend on: gcsim, the sweep file, the base scenario as written (and
  // set), every point with the files it reads; the replications are in the sweep file.
  std::string all = std::string("gcsim ") + VERSION + "\n" + config::read_regular_file(c.file, MAX_SWEEP_FILE_BYTES, "sweep file") +
                    "\n" + config::fnv1a64_hex(base.text);
  for (const std::string& d : digests) all += "\n" + d;
  const std::string fingerprint = config::fnv1a64_hex(all);

  const fs::path traces_dir = fs::path(c.out_dir) / "traces";
  // Runs: point-major, replication r of every point with the same random streams.
  const std::size_t total = points.size() * cap;
  const std::size_t reps = cap;  // the index stride
  std::vector<JournalRun> results(total);
  std::optional<SweepJournal> journal;  // rank 0's (or the only rank's)
  if (root) {
    make_output_dir(c.out_dir);
    if (c.keep_traces) make_output_dir(traces_dir.string());
    journal.emplace(c.out_dir, fingerprint, total, c.restart, c.file, results);
  }
  if (!c.merge_dirs.empty()) {
    // Every shard's runs, recorded into this folder's journal, then the tables; a run no
    // shard has is an error naming the first one missing.
    for (const std::string& dir : c.merge_dirs) {
      std::vector<JournalRun> shard_runs(total);
      SweepJournal::merge_from(dir, fingerprint, total, shard_runs);
      for (std::size_t i = 0; i < total; ++i)
        if (shard_runs[i].done && !results[i].done) {
          results[i] = shard_runs[i];
          journal->record(i, results[i]);
        }
    }
    for (std::size_t i = 0; i < total; ++i)
      if (!results[i].done) {
        std::size_t missing = 0;
        for (const JournalRun& r : results) missing += r.done ? 0 : 1;
        throw Error("gcsim sweep --merge: " + std::to_string(missing) + " of " + std::to_string(total) +
                    " runs are in none of the folders (the first: point " + std::to_string(i / reps) + " replication " +
                    std::to_string(i % reps) + "); run the missing shards, or resume them");
      }
  }
  // Each point's replications so far: all of them, or with an adaptive rule its minimum,
  // grown round by round (the decisions depend on the runs alone, so on no thread count).
  std::vector<std::size_t> n(points.size(), min_reps);
  std::vector<char> converged(points.size(), until_metric ? 0 : 1);
  const RunFunction run_one = [&](std::size_t i) {
    const std::size_t p = i / reps, r = i % reps;
    const std::string keep =
        c.keep_traces ? (traces_dir / ("p" + std::to_string(p) + "-r" + std::to_string(r) + ".h5")).string() : std::string();
    return run_sweep_point(base, points[p].settings, "point " + std::to_string(p) + " replication " + std::to_string(r), r,
                           catalogs, options.schedulers, limits, keep);
  };
  if (!root) {
    mpi_worker(mpi, run_one);
    return 0;
  }
  MpiRunner runner(mpi);
  std::size_t done_before = 0;
  for (const JournalRun& r : results) done_before += r.done ? 1 : 0;
  if (!c.quiet && done_before > 0)
    std::fprintf(stderr, "gcsim sweep: resuming: %zu runs were done before (%s)\n", done_before,
                 SweepJournal::path_in(c.out_dir).c_str());
  for (;;) {
    std::vector<std::size_t> todo;
    for (std::size_t p = 0; p < points.size(); ++p)
      for (std::size_t r = 0; r < n[p]; ++r) {
        const std::size_t i = p * cap + r;
        if (!results[i].done && (!shard || i % shard->second == shard->first)) todo.push_back(i);
      }
    Progress progress(todo.size(), c.quiet);
    const RecordFunction record = [&](std::size_t i, const JournalRun& run) {
      results[i] = run;
      journal->record(i, run);
      progress.done_one(!run.ok);
    };
    if (mpi.active()) runner.run(todo, run_one, record);
    else sim::parallel_for(todo.size(), threads, [&](std::size_t k) { record(todo[k], run_one(todo[k])); });
    if (!until_metric) break;
    // The rule at each point still below its maximum: met, or more replications, as many
    // as the interval's shrinking with sqrt(n) says are needed (at least one more).
    bool grew = false;
    for (std::size_t p = 0; p < points.size(); ++p) {
      if (converged[p] != 0) continue;
      std::vector<double> values;
      for (std::size_t r = 0; r < n[p]; ++r)
        if (results[p * cap + r].ok) values.push_back(results[p * cap + r].figures[*until_metric]);
      const PointStats st = stats_of(values);
      const double target = spec.until->ci95_relative * std::fabs(st.mean);
      if (st.n >= 2 && !std::isnan(st.ci95) && st.ci95 <= target) {
        converged[p] = 1;
        continue;
      }
      if (n[p] >= cap) continue;
      std::size_t want = 2 * n[p];
      if (st.n >= 2 && !std::isnan(st.ci95) && target > 0)
        want = static_cast<std::size_t>(std::ceil(static_cast<double>(st.n) * (st.ci95 / target) * (st.ci95 / target)));
      n[p] = std::min(cap, std::max(want, n[p] + 1));
      grew = true;
    }
    if (!grew) break;
  }
  runner.finish();

  if (shard) {
    std::size_t done = 0, of = 0;
    for (std::size_t i = 0; i < total; ++i)
      if (i % shard->second == shard->first) {
        ++of;
        done += results[i].done ? 1 : 0;
      }
    if (!c.quiet)
      std::printf("gcsim sweep: shard %s: %zu of its %zu runs done, in %s; join the shards with gcsim sweep --merge "
                  "DIR... -o OUT\n",
                  c.shard.c_str(), done, of, SweepJournal::path_in(c.out_dir).c_str());
    std::size_t failed = 0;
    for (std::size_t i = 0; i < total; ++i)
      if (i % shard->second == shard->first && !results[i].ok) ++failed;
    if (failed > 0) std::fprintf(stderr, "gcsim sweep: %zu of the shard's %zu runs failed\n", failed, of);
    return failed > 0 ? 2 : 0;
  }

  // Per point: each metric's mean, standard deviation and 95% interval over its runs.
  std::vector<std::vector<PointStats>> stats(points.size(), std::vector<PointStats>(metrics.size()));
  // The runs made: replications 0 .. n[p] - 1 of each point.
  std::vector<std::size_t> made;
  for (std::size_t p = 0; p < points.size(); ++p)
    for (std::size_t r = 0; r < n[p]; ++r) made.push_back(p * cap + r);
  std::vector<std::int64_t> runs_ok(points.size(), 0);
  for (const std::size_t i : made) runs_ok[i / reps] += results[i].ok ? 1 : 0;
  for (std::size_t p = 0; p < points.size(); ++p)
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      std::vector<double> values;
      for (std::size_t r = 0; r < n[p]; ++r) {
        const JournalRun& run = results[p * reps + r];
        if (run.ok) values.push_back(run.figures[metrics[m]]);
      }
      stats[p][m] = stats_of(values);
    }

  // sweep.csv: one row per point.
  {
    std::string csv = "point";
    for (const std::string& k : keys) csv += "," + csv_cell(k);
    for (const std::size_t m : metrics) {
      const std::string name(analysis::STRATEGY_FIGURES[m].key);
      csv += "," + name + "_mean," + name + "_ci95";
    }
    csv += until_metric ? ",runs_ok,replications,converged\n" : ",runs_ok\n";
    for (std::size_t p = 0; p < points.size(); ++p) {
      csv += std::to_string(p);
      for (const std::string& v : points[p].values) csv += "," + csv_cell(v);
      for (const PointStats& s : stats[p]) csv += "," + csv_number(s.mean) + "," + csv_number(s.ci95);
      csv += "," + std::to_string(runs_ok[p]);
      if (until_metric) csv += "," + std::to_string(n[p]) + "," + (converged[p] != 0 ? "1" : "0");
      csv += "\n";
    }
    sim::AtomicFile out((fs::path(c.out_dir) / "sweep.csv").string());
    out.write(csv);
    out.commit();
  }

  // sweep.h5: /runs (one row per run) and /points (one row per point).
  {
    std::vector<std::string> values_text, errors;
    for (const auto& p : points)
      for (const std::string& v : p.values) values_text.push_back(v);
    for (const std::size_t i : made) errors.push_back(results[i].error);
    const std::size_t value_width = widest(values_text), error_width = widest(errors);
    trace::TraceOptions t;
    auto file = trace::TraceFile::create((fs::path(c.out_dir) / "sweep.h5").string(), t);
    std::vector<trace::Column> run_columns{{"point", trace::ColumnType::I64}, {"replication", trace::ColumnType::I64},
                                           {"seed", trace::ColumnType::I64}};
    // A varied `seed` is the runs' own seed column already (the point's seed is the run's):
    // /runs does not repeat it, and no other scenario key is named as a fixed column.
    std::vector<bool> in_runs;
    for (const std::string& k : keys) {
      in_runs.push_back(k != "seed");
      GCSIM_CHECK(k == "seed" || std::none_of(run_columns.begin(), run_columns.end(),
                                              [&](const trace::Column& c) { return c.name == k; }),
                  "varied key '" + k + "' is named as a fixed column of /runs");
      if (in_runs.back()) run_columns.push_back({k, trace::ColumnType::Str, {}, value_width});
    }
    for (const std::size_t m : metrics) run_columns.push_back({std::string(analysis::STRATEGY_FIGURES[m].key), trace::ColumnType::F64});
    run_columns.push_back({"ok", trace::ColumnType::I32});
    run_columns.push_back({"error", trace::ColumnType::Str, {}, error_width});
    trace::Table& runs = file->add_table("runs", run_columns);
    for (const std::size_t i : made) {
      const std::size_t p = i / reps;
      std::size_t col = 0;
      runs.begin_row();
      runs.i64(col++, static_cast<std::int64_t>(p));
      runs.i64(col++, static_cast<std::int64_t>(i % reps));
      runs.i64(col++, static_cast<std::int64_t>(seeds[p]));
      for (std::size_t k = 0; k < keys.size(); ++k)
        if (in_runs[k]) runs.str(col++, points[p].values[k]);
      for (const std::size_t m : metrics) runs.f64(col++, results[i].ok ? results[i].figures[m] : analysis::NOT_A_NUMBER);
      runs.i32(col++, results[i].ok ? 1 : 0);
      runs.str(col++, results[i].error);
    }
    std::vector<trace::Column> point_columns{{"point", trace::ColumnType::I64}, {"runs_ok", trace::ColumnType::I64},
                                             {"replications", trace::ColumnType::I64}, {"converged", trace::ColumnType::I32}};
    for (const std::string& k : keys) point_columns.push_back({k, trace::ColumnType::Str, {}, value_width});
    for (const std::size_t m : metrics)
      for (const char* suffix : {"_mean", "_sd", "_ci95"})
        point_columns.push_back({std::string(analysis::STRATEGY_FIGURES[m].key) + suffix, trace::ColumnType::F64});
    trace::Table& table = file->add_table("points", point_columns);
    for (std::size_t p = 0; p < points.size(); ++p) {
      std::size_t col = 0;
      table.begin_row();
      table.i64(col++, static_cast<std::int64_t>(p));
      table.i64(col++, runs_ok[p]);
      table.i64(col++, static_cast<std::int64_t>(n[p]));
      table.i32(col++, converged[p] != 0 ? 1 : 0);
      for (const std::string& v : points[p].values) table.str(col++, v);
      for (const PointStats& s : stats[p]) {
        table.f64(col++, s.mean);
        table.f64(col++, s.sd);
        table.f64(col++, s.ci95);
      }
    }
    file->set_attribute(analysis::SWEEP_FILE_KIND_ATTRIBUTE, std::string_view("sweep"));
    std::string key_lines, metric_lines;
    for (const std::string& k : keys) key_lines += k + "\n";
    for (const std::size_t m : metrics) metric_lines += std::string(analysis::STRATEGY_FIGURES[m].key) + "\n";
    file->set_attribute("varied_keys", std::string_view(key_lines));
    file->set_attribute("metrics", std::string_view(metric_lines));
    file->set_attribute("sweep_file", std::string_view(c.file));
    file->set_attribute("base_scenario", std::string_view(spec.base));
    file->set_attribute("replications", static_cast<std::int64_t>(min_reps));
    file->set_attribute("max_replications", static_cast<std::int64_t>(cap));
    file->commit();
  }

  analysis::SweepTable table;
  {
    table.sweep_file = c.file;
    table.replications = static_cast<std::int64_t>(reps);
    table.keys = keys;
    for (const std::size_t m : metrics) table.metrics.emplace_back(analysis::STRATEGY_FIGURES[m].key);
    for (std::size_t p = 0; p < points.size(); ++p) {
      analysis::SweepTable::Point point{points[p].values, runs_ok[p], {}, {}, {}};
      for (const PointStats& st : stats[p]) {
        point.mean.push_back(st.mean);
        point.sd.push_back(st.sd);
        point.ci95.push_back(st.ci95);
      }
      table.points.push_back(std::move(point));
    }
  }
  std::vector<std::string> plots;
  if (!c.no_plots) plots = analysis::write_sweep_plots(table, c.out_dir);
  if (!c.quiet) {
    const std::string replications = until_metric ? std::to_string(min_reps) + " to " + std::to_string(cap) + " replications"
                                                  : std::to_string(min_reps) + " replications";
    std::printf("gcsim sweep: %zu points x %s = %zu runs (%s)\n%s", points.size(), replications.c_str(), made.size(),
                c.file.c_str(), analysis::format_sweep_table(table).c_str());
    if (until_metric) {
      std::size_t at_max = 0;
      for (std::size_t p = 0; p < points.size(); ++p) at_max += converged[p] != 0 ? 0 : 1;
      if (at_max > 0)
        std::printf("%zu points reached %zu replications with %s's interval still wider than %g of its mean "
                    "(converged = 0 in sweep.csv)\n",
                    at_max, cap, spec.until->metric.c_str(), spec.until->ci95_relative);
    }
    std::printf("%s", analysis::format_main_effects(table, analysis::main_effects(table)).c_str());
    std::printf("results: %s, %s", (fs::path(c.out_dir) / "sweep.csv").string().c_str(),
                (fs::path(c.out_dir) / "sweep.h5").string().c_str());
    if (!plots.empty()) std::printf(", %zu plots (PNG and SVG) in %s", plots.size() / 2, c.out_dir.c_str());
    std::printf("\n");
  }
  std::size_t failed = 0;
  for (const std::size_t i : made) failed += results[i].ok ? 0 : 1;
  if (failed == 0) return 0;
  bool internal = false;
  for (const std::size_t i : made)
    if (!results[i].ok) {
      internal = internal || results[i].internal;
      std::fprintf(stderr, "gcsim sweep: point %zu replication %zu failed: %s\n", i / reps, i % reps, results[i].error.c_str());
    }
  std::fprintf(stderr, "gcsim sweep: %zu of %zu runs failed\n", failed, made.size());
  return internal ? 1 : 2;
}

}  // namespace

JournalRun run_sweep_point(const config::ConfigDocument& base, const std::vector<models::Override>& settings,
                           const std::string& label, std::size_t replication, const models::Catalogs& catalogs,
                           const models::SchedulerRegistry& schedulers, const models::ResourceLimits& limits,
                           const std::string& keep_trace) {
  JournalRun out;
  try {
    const models::Scenario s = models::load_scenario(models::with_overrides(base, settings), catalogs, schedulers);
    models::RunOptions o;
    o.replication = replication;
    o.max_events = models::event_limit(limits);
    // The figures come from the run's summary copy (analysis::SummaryTrace, as gcsim run's
    // and gcsim compare's), kept as the tables are written: /ledger, /preemptions and
    // /utilization folded into their sums, no detail column, no /events; never from the
    // file read back. Without a kept trace there is no file and no HDF5 (whose lock would
    // serialise the runs): the tables the copy does not read go nowhere.
    const analysis::TraceParts parts{.events = false, .details = false, .requests = false, .utilization = false};
    const auto read = [parts](const std::string& table) { return analysis::read_by_read_trace(table, parts); };
    analysis::SummaryTrace copy(label, parts);
    if (!keep_trace.empty())
      models::run_simulation_to(s, schedulers, keep_trace, o, copy, read);
    else
      models::run_simulation_into(s, schedulers, o, copy, read);
    const analysis::TraceData trace = copy.read();
    out.figures = analysis::strategy_figures(trace, analysis::compute_metrics(trace));
    out.ok = true;
  } catch (const Error& e) {
    out.error = e.what();
  } catch (const std::exception& e) {
    out.internal = true;
    out.error = std::string("internal error: ") + e.what();
  }
  out.done = true;
  return out;
}

void check_resources_shared(const models::ResourceEstimate& estimate, const models::ResourceLimits& limits, std::size_t held) {
  models::ResourceLimits per_run = limits;
  per_run.max_memory_bytes /= static_cast<double>(std::max<std::size_t>(1, held));
  try {
    models::check_resources(estimate, per_run);
  } catch (const ConfigError& e) {
    if (held <= 1 || e.detail().find("--max-memory") == std::string::npos) throw;
    throw ConfigError(e.code(), e.mark(), e.key_path(),
                      e.detail() + " (the memory limit is shared by the " + std::to_string(held) +
                          " runs held at once: lower -j to give each more)");
  }
}

std::shared_ptr<SweepCommand> add_sweep_command(CLI::App& app) {
  auto c = std::make_shared<SweepCommand>();
  c->app = app.add_subcommand("sweep", "Run every point of a sweep file, with replications, into one table (docs/sweeps.md)");
  c->app->add_option("sweep", c->file, "Sweep file (base, replications, vary, metrics); with --merge, the shards' own by default");
  c->app->add_option("-j,--threads", c->threads, "Runs at once (default: one per core)")->check(CLI::Range(1, 4096));
  c->app->add_option("-o,--output", c->out_dir, "Output folder: sweep.csv and sweep.h5 (default: sweep-out)");
  c->app->add_flag("-q,--quiet", c->quiet, "Print no progress and no table");
  c->app->add_flag("--no-plots", c->no_plots, "Write no plots");
  c->app->add_flag("--keep-traces", c->keep_traces, "Keep every run's trace, in OUT/traces/p<point>-r<replication>.h5");
  c->app->add_option("--shard", c->shard,
                     "Run shard K of N (every N-th run from the K-th), into its own -o folder: a Slurm job array's task");
  c->app->add_option("--merge", c->merge_dirs, "Join the -o folders of a sweep's shards into -o: the tables a single sweep writes")
      ->expected(1, -1);
  c->app->add_flag("--restart", c->restart,
                   "Start afresh: ignore the journal of an earlier sweep into OUT (by default a sweep resumes it)");
  return c;
}

CLI::App* sweep_app(const SweepCommand& command) { return command.app; }

int run_sweep_command(const SweepCommand& command, const models::LoadOptions& options, const models::ResourceLimits& limits) {
  if (!*command.app) return -1;
  return cmd_sweep(command, options, limits);
}

}  // namespace gcsim::cli
