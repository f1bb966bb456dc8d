// gcsim: the command-line front end, the only code that sees every part. It parses the
// command line, loads scenarios, creates output folders and trace files, runs, and
// reports. Only main() catches errors: a user-caused gcsim::Error exits with code 2 and a
// one-line message, and so does running out of memory (a scenario larger than the estimate
// that let it through, or a machine short of memory); anything else is a bug and exits
// with code 1.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <new>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "analysis/alert_report.hpp"
#include "analysis/compare.hpp"
#include "analysis/metrics.hpp"
#include "analysis/plots.hpp"
#include "analysis/pools.hpp"
#include "analysis/report.hpp"
#include "analysis/service_report.hpp"
#include "analysis/summary_trace.hpp"
#include "analysis/sweep_report.hpp"
#include "analysis/trace_data.hpp"
#include "cli/commands.hpp"
#include "gcsim/version.hpp"
#include "models/config/scenario_loader.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/coupling/job_speed.hpp"
#include "models/register_builtins.hpp"
#include "models/simulation.hpp"
#include "sim/allocator.hpp"
#include "sim/atomic_file.hpp"
#include "sim/errors.hpp"
#include "sim/trace/memory_trace.hpp"
#include "sim/trace/table_writer.hpp"
#include "sim/trace/trace_reader.hpp"
#include "sim/units.hpp"

namespace fs = std::filesystem;
using namespace gcsim;

void gcsim::cli::make_output_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) throw Error("cannot create output folder '" + dir + "': " + ec.message());
  sim::remove_stale_temp_files(dir);  // what a killed run into this folder left
}

namespace {

#ifndef GCSIM_SOURCE_DIR
#define GCSIM_SOURCE_DIR "."
#endif

// Bundled data (the catalogs, the default scenario) comes from GCSIM_DATA_DIR when set,
// else from the source tree this binary was built from.
std::string data_dir() {
  if (const char* d = std::getenv("GCSIM_DATA_DIR")) return d;
  return GCSIM_SOURCE_DIR;
}

models::LoadOptions load_options(std::vector<models::Override> overrides = {}) {
  return {(fs::path(data_dir()) / "scenarios" / "catalog").string(), models::builtins().schedulers, std::move(overrides)};
}

std::string default_scenario() { return (fs::path(data_dir()) / "scenarios" / "examples" / "quickstart.yaml").string(); }

using cli::make_output_dir;

int cmd_validate(const std::string& file, const models::LoadOptions& options, const models::ResourceLimits& limits) {
  const models::Scenario s = models::load_scenario_file(file, options);
  const models::ResourceEstimate estimate = models::estimate_resources(s);
  models::check_resources(estimate, limits);
  std::size_t generated = 0;
  for (const auto& g : s.workload.generators) generated += static_cast<std::size_t>(g.count);
  std::printf("%s: ok: scenario '%s', %d node types, %lld nodes, %lld GPUs, %zu jobs + %zu generated, policy %s\n",
              file.c_str(), s.name.c_str(), static_cast<int>(s.cluster.node_types.size()),
              static_cast<long long>(s.cluster.total_nodes()), static_cast<long long>(s.cluster.total_gpus()),
              s.workload.jobs.size(), generated, s.scheduler.policy.c_str());
  std::printf("%s: %s\n", file.c_str(), models::format_estimate(estimate, limits).c_str());
  for (const std::string& o : s.catalog_overrides) std::printf("%s: note: instance catalog: %s\n", file.c_str(), o.c_str());
  // The import report of a workload.trace (docs/traces.md, "The import report").
  for (const std::string& line : s.import_report) std::printf("%s: %s\n", file.c_str(), line.c_str());
  return 0;
}

// Runs a loaded scenario into out_dir, writes its plots and prints the summary. The trace
// is named after output.trace (with the seed/replication suffix), or `trace_file` when
// given (a rerun keeps the name of the trace it reruns).
int run_and_report(models::Scenario& s, const std::string& out_dir, const models::RunOptions& options, bool plots,
                   bool quiet, const models::ResourceLimits& limits, const std::string& trace_file = "") {
  const models::ResourceEstimate estimate = models::estimate_resources(s);
  models::check_resources(estimate, limits);
  // What reads the written-out jobs, before they are released (take_workload, below).
  const std::vector<std::string> cpu_notes = models::unlimited_host_cpu_notes(s);
  const models::SchedulerRegistry& schedulers = models::builtins().schedulers;
  make_output_dir(out_dir);
  // Runs of one scenario with other seeds or replications into one folder each keep their
  // own trace and plots: "<trace>-s<seed>" when the seed is not the scenario's, "-r<N>"
  // for a replication other than 0 (docs/scenario-reference.md, output.trace).
  std::string suffix;
  if (models::run_seed(s, options) != s.seed) suffix += "-s" + std::to_string(models::run_seed(s, options));
  if (options.replication != 0) suffix += "-r" + std::to_string(options.replication);
  const fs::path trace_name(s.output.trace);
  std::string file_name = trace_name.stem().string() + suffix + trace_name.extension().string();
  if (!trace_file.empty() && trace_file != file_name) {
    // Another name than run gives (a compare trace, a renamed one): the plots take the
    // trace's stem, so that reruns of traces of one scenario into one folder keep theirs.
    file_name = trace_file;
    suffix = "-" + fs::path(trace_file).stem().string();
  }
  const std::string trace_path = (fs::path(out_dir) / file_name).string();
  const std::uint64_t replication = options.replication;
  // The event limit holds during the run too: a storm the estimate does not see stops there.
  models::RunOptions bounded = options;
  bounded.max_events = models::event_limit(limits);
  // One run: the trace's chunks are encoded on a core the event loop leaves free.
  bounded.trace_encoding_thread = std::thread::hardware_concurrency() > 1;
  // One run: written-out jobs are expanded here and the scenario's JobSpecs released, so
  // that each job is held once, by the cluster (docs/engine.md, "A million jobs"). Generated
  // jobs have no specs to release: the run takes them as it reaches them, and never makes
  // those after the horizon ("Jobs taken as they come").
  models::TakenWorkload taken;
  if (!s.workload.jobs.empty() || !models::streamable(s)) {
    taken = models::take_workload(s, models::run_seed(s, options), replication);
    bounded.jobs = &taken.jobs;
  }
  // What the load freed (a trace's parsed job log above all) and the released specs are
  // given back before the run grows, so that the run's peak is not on top of the load's.
  sim::release_free_memory();
  bounded.estimated_events = estimate.events;
  // The figures come from a copy of the trace's tables kept in memory as they are written,
  // never from reading the file back (docs/engine.md, "The summary from memory"); /events
  // only when the plots need it.
  // /ledger and /preemptions are folded into their sums as they are written, not kept (and
  // /utilization into its integrals, when no plot draws it), and the columns no figure or
  // plot reads (TraceParts::details) are left out.
  const analysis::TraceParts parts{.events = plots, .details = false, .requests = false, .utilization = plots};
  analysis::SummaryTrace memory(trace_path, parts);
  const models::RunSummary r = models::run_simulation_to(
      s, schedulers, trace_path, bounded, memory,
      [parts](const std::string& table) { return analysis::read_by_read_trace(table, parts); });
  // The run's state (its jobs above all) is freed: given back before the summary's tables
  // are read, so the two are not resident at once.
  sim::release_free_memory();
  const analysis::TraceData data = memory.read();
  const analysis::Metrics m = analysis::compute_metrics(data);
  std::vector<std::string> pngs;
  if (plots) {
    pngs = analysis::write_plots(data, out_dir, suffix);
    for (std::string& p : analysis::plot_services(data, out_dir, suffix)) pngs.push_back(std::move(p));
  }
  if (quiet) return 0;
  std::printf("gcsim %s: scenario '%s' (seed %llu, replication %llu)\n", VERSION, s.name.c_str(),
              static_cast<unsigned long long>(models::run_seed(s, options)), static_cast<unsigned long long>(replication));
  for (const std::string& o : s.catalog_overrides) std::printf("  note: instance catalog: %s\n", o.c_str());
  std::printf("  simulated %s in %.3f s wall clock (%llu events)\n", analysis::format_duration(r.end_s).c_str(),
              r.wall_clock_s, static_cast<unsigned long long>(r.events_handled));
  std::printf("  jobs: %zu completed, %zu running at the end, %zu interrupted and waiting, %zu never started",
              r.jobs_completed, r.jobs_running, r.jobs_interrupted, r.jobs_never_started);
  if (r.jobs_submitted_after_horizon > 0) std::printf(", %zu submitted after the horizon", r.jobs_submitted_after_horizon);
  std::printf(" (of %zu)\n", r.jobs_total);
  // total = busy + idle + storage (docs/analysis.md): the analysis's figures, one meaning each.
  const std::string storage = m.storage_cost_usd > 0 ? ", " + units::format_usd(m.storage_cost_usd) + " storage" : "";
  std::printf("  cost: %s total (%s busy, %s idle%s); GPUs allocated %.1f%%, busy %.1f%% of the time\n",
              units::format_usd(m.total_cost_usd).c_str(), units::format_usd(m.busy_cost_usd).c_str(),
              units::format_usd(m.idle_cost_usd).c_str(), storage.c_str(), 100.0 * m.gpu_utilization,
              100.0 * m.gpu_busy_share);
  // What bounds the model jobs, as `analyze` reports it, when one bottleneck holds most of their GPU-hours.
  if (const analysis::DominantBottleneck b = analysis::dominant_bottleneck(m); !b.name.empty())
    std::printf("  bound by %s: %.1f%% of the model jobs' GPU-hours (gcsim analyze: Training)\n", b.name.c_str(),
                100.0 * b.share);
  // What the bill covers: the horizon, the planning period (docs/pricing.md).
  const std::string horizon = analysis::format_duration(s.horizon.seconds());
  if (r.end_s < s.horizon.seconds() && analysis::has_committed_pools(m.pools))
    std::printf("  billed: owned and reserved pools to the horizon (%s), paid whether used or not; rented ones to %s (run_until: done)\n",
                horizon.c_str(), analysis::format_duration(r.end_s).c_str());
  else if (r.end_s >= s.horizon.seconds() && std::isfinite(m.last_completion_s))
    std::printf("  billed for the whole horizon (%s); the last job finished at %s (run_until: done gives rented nodes back then)\n",
                horizon.c_str(), analysis::format_duration(m.last_completion_s).c_str());
  std::printf("  wait: mean %s, p95 %s; job completion time: mean %s\n", analysis::format_duration(m.wait_s.mean).c_str(),
              analysis::format_duration(m.wait_s.p95).c_str(), analysis::format_duration(m.jct_s.mean).c_str());
  // Services (docs/serving.md): requests, latency, SLO, replicas, cost per million requests.
  for (const auto& sv : r.services) {
    const auto lat = [](double v) { return std::isnan(v) ? std::string("-") : analysis::format_latency(v); };
    std::printf("  service %s: %s requests completed (%s unfinished), p99 %s", sv.name.c_str(),
                analysis::format_count(static_cast<double>(sv.completed), 0).c_str(),
                analysis::format_count(static_cast<double>(sv.unfinished), 0).c_str(), lat(sv.e2e_p99_s).c_str());
    if (!std::isnan(sv.ttft_p99_s)) std::printf(", TTFT p99 %s", lat(sv.ttft_p99_s).c_str());
    if (!std::isnan(sv.tpot_p99_s)) std::printf(", TPOT p99 %s", lat(sv.tpot_p99_s).c_str());
    if (!std::isnan(sv.slo_attained)) std::printf(", %s within its SLO", analysis::format_percent(sv.slo_attained).c_str());
    std::printf("; replicas up to %d, %s", sv.replicas_max, units::format_usd(sv.cost_usd).c_str());
    if (sv.completed > 0)
      std::printf(" (%s per million requests)", units::format_usd(sv.cost_usd * 1e6 / static_cast<double>(sv.completed)).c_str());
    std::printf("\n");
  }
  for (const std::string& n : cpu_notes) std::printf("  note: %s\n", n.c_str());
  for (const std::string& n : r.notes) std::printf("  note: %s\n", n.c_str());
  std::printf("  trace: %s\n", trace_path.c_str());
  for (const auto& p : pngs) std::printf("  plot:  %s\n", p.c_str());
  std::printf("  (gcsim analyze %s for the full report)\n", trace_path.c_str());
  return 0;
}

int cmd_run(const std::string& file, const models::LoadOptions& load, const std::string& out_dir,
            std::optional<std::uint64_t> seed, std::uint64_t replication, bool plots, bool quiet, bool absolute_paths,
            const models::ResourceLimits& limits, std::optional<int> trace_compression) {
  models::Scenario s = models::load_scenario_file(file, load);
  models::RunOptions options;
  options.trace_compression = trace_compression;
  options.seed = seed;
  options.replication = replication;
  options.absolute_paths = absolute_paths;
  return run_and_report(s, out_dir, options, plots, quiet, limits);
}

// Reruns a trace from what it embeds: the scenario text and path, its seed and replication,
// and every file the first run read (/inputs), digests checked; nothing is read from disk
// but the trace.
int cmd_rerun(const std::string& trace_path, const std::string& out_dir, bool plots, bool quiet,
              const models::ResourceLimits& limits, std::optional<int> trace_compression) {
  const auto trace = trace::TraceReader::open(trace_path);
  models::Scenario s = models::load_recorded_scenario(
      trace->attribute_string("scenario_yaml"), trace->attribute_string("scenario_file"),
      config::SourceResolver::from_records(analysis::read_inputs(*trace, trace_path)), models::builtins().schedulers);
  models::RunOptions options;
  options.seed = trace->attribute_uint("seed");
  options.replication = trace->attribute_uint("replication");
  options.trace_compression = trace_compression;
  // The rerun keeps the source trace's file name: reruns of several traces of one scenario
  // (gcsim compare's, one per policy) into one folder do not replace each other.
  return run_and_report(s, out_dir, options, plots, quiet, limits, fs::path(trace_path).filename().string());
}

// One trace: the full report (or JSON) and optional plots. Several: one comparison table
// (or {"runs": [...]}); --plot is refused there, since each run's plots need a folder of
// their own (docs/analysis.md).
int cmd_analyze(const std::vector<std::string>& trace_paths, bool json, const std::string& plot_dir,
                const std::string& rules_path) {
  // A sweep's results (DIR/sweep.h5): its per-point table and main effects.
  if (trace_paths.size() == 1 && analysis::is_sweep_results(trace_paths.front())) {
    if (!plot_dir.empty()) throw Error("--plot takes a run's trace, not a sweep's results");
    const analysis::SweepTable table = analysis::read_sweep_table(trace_paths.front());
    const std::vector<analysis::MainEffect> effects = analysis::main_effects(table);
    std::cout << (json ? analysis::format_sweep_json(table, effects)
                       : analysis::format_sweep_table(table) + analysis::format_main_effects(table, effects));
    return 0;
  }
  if (trace_paths.size() > 1) {
    if (!rules_path.empty()) throw Error("--rules takes one trace; to evaluate them over each run, analyze one at a time");
    if (!plot_dir.empty())
      throw Error("--plot takes one trace; to plot each of these runs, analyze them one at a time");
    std::vector<analysis::ComparedRun> runs;
    for (const std::string& path : trace_paths)
      runs.push_back(analysis::compared_run(
          path, analysis::read_trace(path, {.events = false, .details = false, .requests = false, .utilization = false})));
    std::cout << (json ? analysis::format_comparison_json(runs) : analysis::format_comparison(runs));
    return 0;
  }
  const std::string& trace_path = trace_paths.front();
  // /events only for the plots: no figure of the report reads it (a quarter of a big trace);
  // nor the columns of single jobs and charges (TraceParts::details), but the elastic pools'
  // plots draw their cost from the charges' times and pools; /utilization's rows only for
  // the plots too (the figures take its integrals, folded as it is read).
  const bool plot = !plot_dir.empty();
  const analysis::TraceData data =
      analysis::read_trace(trace_path, {.events = plot, .details = plot, .requests = false, .utilization = plot});
  const analysis::Metrics m = analysis::compute_metrics(data);
  // Elastic pools' tables are read here, beside the trace data (analysis/pools.hpp).
  const analysis::ElasticPoolTables elastic = analysis::read_elastic_pools(trace_path);
  std::vector<std::string> pngs;
  if (!plot_dir.empty()) {
    make_output_dir(plot_dir);
    pngs = analysis::write_plots(data, plot_dir);
    for (std::string& p : analysis::plot_elastic_pools(data, elastic, plot_dir)) pngs.push_back(std::move(p));
    for (std::string& p : analysis::plot_services(data, plot_dir)) pngs.push_back(std::move(p));
  }
  const std::vector<analysis::ServiceSummary> services = analysis::summarize_services(data);
  const std::vector<analysis::ElasticPoolSummary> elastic_pools = analysis::summarize_elastic_pools(data, elastic);
  // Alerting rules (the scenario's, or --rules) over the run's metrics (docs/alerts.md).
  std::optional<analysis::AlertsReport> alerts;
  std::string rules_from;
  const std::vector<promql::AlertGroup> rules = cli::alert_rules_for(data.attrs, rules_path, rules_from);
  if (!rules.empty()) {
    const auto reader = trace::TraceReader::open(trace_path);
    alerts = analysis::report_alerts(data, analysis::read_metrics(*reader), rules, rules_from);
  }
  if (json && elastic_pools.empty() && !alerts && services.empty()) {
    std::cout << analysis::format_json(m, data.attrs, analysis::team_budgets(data));
  } else if (json) {
    // format_json's object with the keys `elastic_pools`, `services` and `alerts` last (docs/analysis.md, "JSON").
    analysis::JsonObject j;
    j.string("scenario_name", data.attrs.scenario_name);
    analysis::append_run_json(j, data.attrs, m);
    analysis::append_metrics_json(j, m, analysis::team_budgets(data));
    if (!elastic_pools.empty()) j.raw("elastic_pools", analysis::elastic_pools_json(elastic_pools, j.depth() + 1));
    if (!services.empty()) j.raw("services", analysis::services_json(services, j.depth() + 1));
    if (alerts) j.raw("alerts", analysis::alerts_json(*alerts, j.depth() + 1));
    std::cout << j.finish() << "\n";
  } else {
    std::cout << analysis::format_report(data, m);
    std::cout << analysis::format_elastic_pools(elastic_pools);
    std::cout << analysis::format_services(services);
    if (alerts) std::cout << analysis::format_alerts(*alerts);
    for (const auto& p : pngs) std::cout << "plot: " << p << "\n";
  }
  return 0;
}

int cmd_gpus() {
  const models::GpuCatalog catalog = models::load_bundled_gpu_catalog(load_options());
  std::printf("%-16s %-8s %9s %9s %9s %9s %9s %8s %10s %6s\n", "name", "arch", "fp32", "tf32", "fp16", "bf16", "fp8",
              "memory", "mem bw", "tdp");
  std::printf("%-16s %-8s %9s %9s %9s %9s %9s %8s %10s %6s\n", "", "", "TFLOP/s", "TFLOP/s", "TFLOP/s", "TFLOP/s",
              "TFLOP/s", "GiB", "GB/s", "W");
  // A precision the GPU has no units for (TF32 before Ampere, FP8 before Hopper) is "-", not 0.0.
  const auto tflops = [](double flop_per_s) {
    char cell[16];
    if (flop_per_s > 0) std::snprintf(cell, sizeof cell, "%9.1f", flop_per_s / 1e12);
    else std::snprintf(cell, sizeof cell, "%9s", "-");
    return std::string(cell);
  };
  for (const auto& g : catalog.entries()) {
    std::printf("%-16s %-8s %s %s %s %s %s %8.1f %10.0f %6.0f\n", g.name.c_str(), g.arch.c_str(),
                tflops(g.fp32_flop_per_s).c_str(), tflops(g.tf32_flop_per_s).c_str(), tflops(g.fp16_flop_per_s).c_str(),
                tflops(g.bf16_flop_per_s).c_str(), tflops(g.fp8_flop_per_s).c_str(),
                g.memory_bytes / (1024.0 * 1024 * 1024), g.memory_bytes_per_s / 1e9, g.tdp_w);
  }
  return 0;
}

// An unsigned 64-bit integer written in decimal, read exactly: CLI11's own conversion wraps
// "-1" to 2^64-1 and takes 2^64 without a word, so seeds are read here. nullopt when the
// text is anything else.
std::optional<std::uint64_t> read_unsigned_64(const std::string& text) {
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc{} || p != end) return std::nullopt;
  return v;
}

CLI::Validator unsigned_64() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (read_unsigned_64(text)) return {};
        return "expected a whole number from 0 to 18446744073709551615, got '" + text + "'";
      },
      "UINT64");
}

// --max-memory: a size with its unit ("8GiB", "512MB"), read by the unit parser.
CLI::Validator memory_size() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        // The unit parser's own reason: "1EB" is an unknown unit (sizes go up to PB and
        // PiB), "1e19B" is beyond 1 EB; neither lacks a unit.
        try {
          if (units::parse_bytes(text) > 0) return {};
        } catch (const units::UnitError& e) {
          return std::string(e.what()) + " (a memory size is written like 8GiB or 512MB)";
        }
        return "expected a memory size greater than zero, such as 8GiB or 512MB, got '" + text + "'";
      },
      "SIZE");
}

// --max-events: a count ("1e9", "500M").
CLI::Validator event_count() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          if (units::parse_count(text) >= 1) return {};
        } catch (const units::UnitError& e) {
          return std::string(e.what()) + " (a number of events is written like 1e9 or 500M)";
        }
        return "expected a number of events of at least 1, such as 1e9 or 500M, got '" + text + "'";
      },
      "N");
}

// The limits a command checks the scenario against: the defaults, or the flags given.
models::ResourceLimits resource_limits(const std::string& max_memory, const std::string& max_events) {
  models::ResourceLimits limits = models::default_resource_limits();
  if (!max_memory.empty()) limits.max_memory_bytes = units::parse_bytes(max_memory);
  if (!max_events.empty()) limits.max_events = units::parse_count(max_events);
  return limits;
}

// The command line named in an out-of-memory message: the command and its input.
std::string command_line_of(int argc, char** argv) {
  std::string line = "gcsim";
  for (int i = 1; i < argc && i < 3; ++i) line += std::string(" ") + argv[i];
  return line;
}

void print_out_of_memory(const std::string& command_line) {
  std::fprintf(stderr,
               "gcsim: out of memory in `%s`: this machine (or its memory limit) cannot hold what the inputs describe; "
               "make them smaller, or see what `gcsim validate` estimates\n",
               command_line.c_str());
}

int gcsim_main(int argc, char** argv);

}  // namespace

// Memory can run out anywhere, the command line's own parsing included (under a tight
// `ulimit -v` the heap's first growth may come there): exit code 2 with the message, never
// an uncaught std::bad_alloc.
int main(int argc, char** argv) {
  try {
    return gcsim_main(argc, argv);
  } catch (const std::bad_alloc&) {
    print_out_of_memory(command_line_of(argc, argv));
    return 2;
  }
}

namespace {

int gcsim_main(int argc, char** argv) {
  sim::tune_allocator();               // fewer page faults as a run's arrays grow (sim/allocator.hpp)
  sim::install_temp_file_cleanup();  // Ctrl-C, kill: no half-written file stays behind
  CLI::App app{"gcsim: a discrete-event simulator of GPU cluster cost and throughput"};
  app.set_version_flag("--version", std::string("gcsim ") + VERSION);
  app.require_subcommand(1);

  std::string scenario;
  std::string out_dir = "out";
  std::string seed_text;
  std::string replication_text = "0";
  bool no_plots = false;
  bool quiet = false;
  bool absolute_paths = false;
  auto* run = app.add_subcommand("run", "Run a scenario: write its trace and plots, print a summary");
  run->add_option("scenario", scenario, "Scenario file (default: the bundled quickstart)");
  run->add_option("-o,--output", out_dir, "Output folder (default: out)");
  run->add_option("--seed", seed_text, "Override the scenario's seed (0 to 2^64-1)")->check(unsigned_64());
  run->add_option("--replication", replication_text, "Replication number: independent random streams per value")
      ->check(unsigned_64());
  run->add_flag("--no-plots", no_plots, "Write the trace only");
  run->add_flag("-q,--quiet", quiet, "Print nothing on success");
  run->add_flag("--absolute-paths", absolute_paths,
                "Record the scenario's and input files' paths in the trace as absolute paths of this machine "
                "(default: relative to the scenario; docs/trace-format.md)");

  std::string rerun_trace;
  auto* rerun = app.add_subcommand("rerun", "Rerun a trace from the scenario, seed and input files it embeds");
  rerun->add_option("trace", rerun_trace, "Trace file (.h5) written by gcsim run")->required();
  rerun->add_option("-o,--output", out_dir, "Output folder (default: out)");
  rerun->add_flag("--no-plots", no_plots, "Write the trace only");
  rerun->add_flag("-q,--quiet", quiet, "Print nothing on success");
  // The trace's deflate level only changes its size and write time, never its contents.
  std::optional<int> trace_compression;
  for (CLI::App* command : {run, rerun})
    command
        ->add_option("--trace-compression", trace_compression,
                     "The trace's deflate level, 0 (none) to 9, in place of the scenario's output.compression")
        ->check(CLI::Range(0, 9));

  std::string validate_file;
  auto* validate = app.add_subcommand("validate", "Check a scenario without running it");
  validate->add_option("scenario", validate_file, "Scenario file")->required();

  std::vector<std::string> trace_paths;
  bool json = false;
  std::string plot_dir;
  auto* analyze = app.add_subcommand("analyze", "Report cost, utilization and waiting from a trace; compare several");
  analyze->add_option("traces", trace_paths, "Trace file(s) (.h5) written by gcsim run; two or more: one comparison table")
      ->required();
  analyze->add_flag("--json", json, "Print the metrics as JSON");
  analyze->add_option("--plot", plot_dir, "Write PNG plots into this folder (one trace only)");
  std::string analyze_rules;
  analyze->add_option("--rules", analyze_rules,
                      "Also evaluate this Prometheus rules file over the trace's GPU metrics (one trace only; "
                      "default: the scenario's alerts:, if any)");

  auto* gpus = app.add_subcommand("gpus", "List the bundled GPU catalog");

  std::string flows_scenario, flows_csv, flows_out;
  auto* flows = app.add_subcommand("flows", "Replay flows (CSV flow_id,src,dst,bytes,start) over a scenario's network");
  flows->add_option("scenario", flows_scenario, "Scenario file with a network: section")->required();
  flows->add_option("flows", flows_csv, "Flows CSV: flow_id,src,dst,bytes,start (seconds)")->required();
  flows->add_option("-o,--output", flows_out, "Write flow_id,finish here (default: standard output)");

  std::string metrics_trace, metrics_out, metrics_from, metrics_to;
  bool metrics_openmetrics = false;
  auto* metrics = app.add_subcommand("metrics", "Simulated GPU metrics of a trace (output.metrics); OpenMetrics export");
  metrics->add_option("trace", metrics_trace, "Trace file (.h5) of a run with output.metrics")->required();
  metrics->add_flag("--openmetrics", metrics_openmetrics,
                    "Write the series as OpenMetrics text with timestamps (promtool tsdb create-blocks-from openmetrics)");
  metrics->add_option("-o,--output", metrics_out, "With --openmetrics: write here (default: standard output)");
  metrics->add_option("--from", metrics_from, "With --openmetrics: only samples at or after this simulated time (1d, 36h)");
  metrics->add_option("--to", metrics_to, "With --openmetrics: only samples at or before this simulated time");

  std::string alerts_trace, alerts_rules;
  bool alerts_json = false;
  auto* alerts = app.add_subcommand("alerts", "Prometheus alerting rules evaluated over a trace's GPU metrics");
  alerts->add_option("trace", alerts_trace, "Trace file (.h5) of a run with output.metrics")->required();
  alerts->add_option("--rules", alerts_rules,
                     "A Prometheus rules file (groups: of rules: with alert, expr, for, labels); default: the scenario's "
                     "alerts:, which the trace carries");
  alerts->add_flag("--json", alerts_json, "Print the firings as JSON");

  std::string estimate_file;
  bool estimate_json = false;
  auto* estimate = app.add_subcommand("estimate", "Step time, throughput, memory and cost of model-described jobs");
  estimate->add_option("scenario", estimate_file, "Scenario file")->required();
  estimate->add_flag("--json", estimate_json, "Print JSON");

  auto* policies = app.add_subcommand("policies", "List the scheduling policies and placement strategies, with their keys");

  std::string keys_section;
  auto* keys = app.add_subcommand("keys", "List every key a scenario may hold: type, default, range, help");
  keys->add_option("section", keys_section, "Only this map, by its dotted path (`cluster.node_types[i]`)");

  const auto instance_commands = cli::add_instance_commands(app);
  const auto compare_command = cli::add_compare_command(app);
  const auto sweep_command = cli::add_sweep_command(app);
  const auto plan_command = cli::add_plan_command(app);
  const auto trace_fit_command = cli::add_trace_fit_command(app);
  const auto cookbook_command = cli::add_cookbook_command(app);

  // The limits that validate, run, rerun, estimate, flows and compare check before building
  // anything (compare: the memory is shared by the runs it holds at once).
  std::string max_memory_text, max_events_text;
  CLI::App* compare = cli::compare_app(*compare_command);
  CLI::App* sweep = cli::sweep_app(*sweep_command);
  CLI::App* plan = cli::plan_app(*plan_command);
  // Scenario keys set by their dotted path (models/config/overrides.hpp), in order.
  std::vector<std::string> set_arguments;
  for (CLI::App* command : {run, validate, estimate, compare, sweep, plan})
    command->add_option("--set", set_arguments,
                        "Set a scenario key by its dotted path, PATH=VALUE with a YAML value "
                        "(cluster.node_types[0].count=8, 'scheduler={policy: backfill, mode: easy}'); repeatable, "
                        "applied in order")
        ->allow_extra_args(false);
  for (CLI::App* command : {run, rerun, validate, estimate, flows, compare, sweep, plan}) {
    command
        ->add_option("--max-memory", max_memory_text,
                     command == compare
                         ? "Refuse strategies whose runs at once (-j) are estimated to need more memory together "
                           "(default: half the usable memory)"
                         : "Refuse scenarios estimated to need more memory (default: half the usable memory)")
        ->check(memory_size());
    command
        ->add_option("--max-events", max_events_text,
                     "Refuse scenarios estimated to handle more events, and stop a run that handles more "
                     "(default: 1e9)")
        ->check(event_count());
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A misspelt command reads as a stray argument to CLI11: name it, with a did-you-mean.
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    if (argc > 1 && argv[1][0] != '-' && std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      const std::string guess = did_you_mean(argv[1], names);
      std::cerr << "gcsim: unknown command '" << argv[1] << "'"
                << (guess.empty() ? "" : "; did you mean '" + guess + "'?") << " (gcsim --help lists them)\n";
      return 2;
    }
    app.exit(e);
    return 2;
  }

  const std::string command_line = command_line_of(argc, argv);
  const models::ResourceLimits limits = resource_limits(max_memory_text, max_events_text);
  try {
    std::vector<models::Override> overrides;
    for (const std::string& a : set_arguments) overrides.push_back(models::read_set_argument(a));
    if (*run) {
      std::optional<std::uint64_t> seed;
      if (!seed_text.empty()) seed = read_unsigned_64(seed_text);
      return cmd_run(scenario.empty() ? default_scenario() : scenario, load_options(overrides), out_dir, seed,
                     *read_unsigned_64(replication_text), !no_plots, quiet, absolute_paths, limits, trace_compression);
    }
    if (*rerun) return cmd_rerun(rerun_trace, out_dir, !no_plots, quiet, limits, trace_compression);
    if (*validate) return cmd_validate(validate_file, load_options(overrides), limits);
    if (*analyze) return cmd_analyze(trace_paths, json, plot_dir, analyze_rules);
    if (*gpus) return cmd_gpus();
    if (*policies) return cli::cmd_policies(models::builtins().schedulers);
    if (*keys) return cli::cmd_keys(models::builtins().schedulers, keys_section);
    if (*flows) return cli::cmd_flows(flows_scenario, flows_csv, flows_out, limits);
    if (*alerts) return cli::cmd_alerts(alerts_trace, alerts_rules, alerts_json);
    if (*metrics) return cli::cmd_metrics(metrics_trace, metrics_openmetrics, metrics_out, metrics_from, metrics_to);
    if (*estimate) return cli::cmd_estimate(estimate_file, estimate_json, load_options(overrides), limits);
    if (const int rc = cli::run_instance_commands(*instance_commands, load_options().catalog_dir); rc >= 0) return rc;
    if (const int rc = cli::run_compare_command(*compare_command, load_options(overrides), limits); rc >= 0) return rc;
    if (const int rc = cli::run_sweep_command(*sweep_command, load_options(overrides), limits); rc >= 0) return rc;
    if (const int rc = cli::run_plan_command(*plan_command, load_options(overrides), limits); rc >= 0) return rc;
    if (const int rc = cli::run_trace_fit_command(*trace_fit_command, load_options()); rc >= 0) return rc;
    if (const int rc = cli::run_cookbook_command(*cookbook_command); rc >= 0) return rc;
  } catch (const Error& e) {
    std::fprintf(stderr, "gcsim: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    print_out_of_memory(command_line);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gcsim: internal error: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace
