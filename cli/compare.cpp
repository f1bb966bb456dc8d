// `gcsim compare SCENARIO --policy P1 --policy P2 ... [--replications R] [-j N] [-o DIR]
// [--json] [--no-plots]`: runs the scenario once per scheduling strategy and replication, on
// the scenario's seed, so that every strategy sees the same jobs and the same interruptions,
// on a pool of threads (models::run_many), and prints one table (docs/analysis.md,
// "Comparing strategies"). Every --policy is read, and every name the command will write
// checked, before any run starts. With -o the runs write into a folder of their own and
// their files are moved into DIR only when every run has ended well; without it each run's
// trace stays in memory and nothing is written.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "analysis/file_names.hpp"
#include "analysis/metrics.hpp"
#include "analysis/overlay_plots.hpp"
#include "analysis/service_report.hpp"
#include "analysis/strategy_comparison.hpp"
#include "analysis/summary_trace.hpp"
#include "analysis/trace_data.hpp"
#include "cli/commands.hpp"
#include "models/config/scheduler_variant.hpp"
#include "models/register_builtins.hpp"
#include "models/sweep.hpp"
#include "sim/atomic_file.hpp"
#include "sim/check.hpp"
#include "sim/parallel.hpp"
#include "sim/errors.hpp"

namespace gcsim::cli {

namespace fs = std::filesystem;

struct CompareCommand {
  CLI::App* app = nullptr;
  std::string scenario;
  std::vector<std::string> policies;
  std::size_t replications = 1;
  int threads = 0;  // 0: one per hardware thread
  std::string out_dir;
  bool json = false;
  bool no_plots = false;
  std::optional<int> trace_compression;  // --trace-compression: in place of output.compression
};

namespace {

// What a file gets after its name while it is written: plot_support's ".gnuplot-stderr"
// file, then AtomicFile's temporary suffix (".<pid>.<host>.<16 hex>.tmp", at most 40).
constexpr std::size_t WRITING_SUFFIX_BYTES = 15 + 40;
// The longest path the system opens (PATH_MAX on Linux, with its NUL), and the longest
// file name (NAME_MAX).
constexpr std::size_t MAX_PATH_BYTES = 4095;
constexpr std::size_t MAX_NAME_BYTES = 255;
// The folder the runs write into until they are all done, in DIR (-o), so that the files
// can be renamed into place. Without -o nothing is written.
constexpr const char* STAGING_PREFIX = ".gcsim-compare-";
constexpr std::size_t STAGING_NAME_BYTES = 21;  // ".gcsim-compare-XXXXXX"

// The scenario's services' names, in scenario order (their per-service plots).
std::vector<std::string> service_names(const models::Scenario& s) {
  std::vector<std::string> names;
  for (const auto& svc : s.workload.services) names.push_back(svc.name);
  return names;
}

// One trace stem per variant: its label as a file name part, bounded and made unique
// (analysis/file_names.hpp).
std::vector<std::string> trace_names(const std::vector<models::SchedulerVariant>& variants) {
  std::vector<std::string> labels;
  for (const models::SchedulerVariant& v : variants) labels.push_back(v.label);
  return analysis::unique_file_name_parts(labels);
}

// Every name is checked before anything runs: it fits a file name (by construction: the
// parts taken from labels and teams are bounded), and the folder, with the staging folder
// and the longest name written into it, fits a path. `option` names where the folder
// came from ("-o 'DIR'").
void check_output_names(const std::string& folder, const std::string& option, const std::vector<std::string>& names) {
  std::size_t longest = 0;
  std::string longest_name;
  for (const std::string& name : names) {
    GCSIM_CHECK(name.size() + WRITING_SUFFIX_BYTES <= MAX_NAME_BYTES,
                "compare's file name '" + name + "' is too long for a file system");
    if (name.size() > longest) {
      longest = name.size();
      longest_name = name;
    }
  }
  const std::size_t path = (fs::path(folder) / "x").string().size() - 1 + STAGING_NAME_BYTES + 1 + longest +
                           WRITING_SUFFIX_BYTES;
  if (path > MAX_PATH_BYTES)
    throw ConfigError(ErrorCode::OutOfRange, SourceMark{option, 0, 0}, "",
                      "the folder's path is " + std::to_string(folder.size()) +
                          " bytes long: with the files compare writes into it (the longest '" + longest_name +
                          "', while written in a staging folder under a temporary name) a path would be " +
                          std::to_string(path) + " bytes, and at most " + std::to_string(MAX_PATH_BYTES) +
                          " can be opened; choose a shorter folder");
}

// Moves `names` from `from` into `to`, replacing what is there. The table and the JSON go
// last, and the old ones are removed first: whatever stops the move half-way, no table in
// `to` describes traces other than those beside it.
void publish(const std::string& from, const std::string& to, const std::vector<std::string>& names,
             const std::vector<std::string>& tables) {
  for (const std::string& t : tables) {
    const fs::path old = fs::path(to) / t;
    std::error_code ec;
    const fs::file_status status = fs::symlink_status(old, ec);
    if (fs::exists(status) && !fs::is_directory(status) && !fs::remove(old, ec) && ec)
      throw Error("cannot remove '" + old.string() + "': " + ec.message());
  }
  const auto move = [&](const std::string& name) {
    std::error_code ec;
    fs::rename(fs::path(from) / name, fs::path(to) / name, ec);
    if (ec) throw Error("cannot move '" + (fs::path(from) / name).string() + "' into '" + to + "': " + ec.message());
  };
  for (const std::string& n : names) move(n);
  for (const std::string& t : tables) move(t);
}

int cmd_compare(const CompareCommand& c, const models::LoadOptions& options, const models::ResourceLimits& limits) {
  const models::SchedulerRegistry& schedulers = options.schedulers;
  const models::Catalogs catalogs = models::load_bundled_catalogs(options);
  // The scenario as written first, so its own errors read as they do for gcsim run.
  const config::ConfigDocument document = models::with_overrides(config::load_yaml_file(c.scenario), options.overrides);
  // Loaded once and shared, read-only, by every run: a variant differs from it in its
  // scheduler section alone, which each run gets as a run option (RunOptions::scheduler), so
  // the workload is held once however many policies are compared (docs/engine.md, "Many
  // simulations in one process").
  const auto base = std::make_shared<const models::Scenario>(models::load_scenario(document, catalogs, schedulers));

  // Every variant read, and checked, before anything runs. The runs held at once share the
  // memory limit: each must fit in its part of it.
  const std::size_t runs = c.policies.size() * c.replications;
  const std::size_t threads = c.threads > 0 ? static_cast<std::size_t>(c.threads)
                                            : std::max(1u, std::thread::hardware_concurrency());
  std::vector<models::SchedulerVariant> variants;
  for (const std::string& policy : c.policies) variants.push_back(models::read_scheduler_variant(policy, schedulers));
  // Each variant: the scenario's tree with the variant's section in it, checked as gcsim
  // run would check it (a policy key naming a team, a quota that a job can never fit, the
  // resources of the run), an error in a node of the variant naming the --policy argument
  // (or @FILE) and its column. The workload is not read again for it: only the section is
  // read, against the base scenario (models::load_scheduler_section, which loads the
  // variant whole only to report a failed check as that load reports it). The variants
  // are checked on as many threads as will run them; the first error in the order of the
  // --policy options is the one reported.
  std::vector<std::shared_ptr<const models::SchedulerChoice>> choices(variants.size());
  sim::parallel_for(variants.size(), threads, [&](std::size_t v) {
    config::ConfigDocument tree = models::with_scheduler_section(document, variants[v]);
    models::SchedulerSpec spec = models::load_scheduler_section(*base, tree, catalogs, schedulers);
    // The runs held at once share the memory limit: each must fit in its part of it.
    check_resources_shared(models::estimate_resources(*base, spec), limits, std::min(runs, threads));
    choices[v] = std::make_shared<const models::SchedulerChoice>(
        models::SchedulerChoice{std::move(spec), std::move(tree.text)});
  });
  models::distinct_labels(variants);

  // Every name the command will write, checked before anything is made or run.
  const bool to_folder = !c.out_dir.empty();
  const bool plots = to_folder && !c.no_plots;
  const std::vector<std::string> names = trace_names(variants);
  std::vector<std::string> trace_files;
  for (std::size_t v = 0; v < variants.size(); ++v)
    for (std::size_t r = 0; r < c.replications; ++r) trace_files.push_back(names[v] + "-r" + std::to_string(r) + ".h5");
  const std::vector<std::string> tables{"compare.json", "compare.txt"};
  std::vector<std::string> all_files = trace_files;
  if (to_folder) all_files.insert(all_files.end(), tables.begin(), tables.end());
  if (plots)
    for (const std::string& p : analysis::overlay_plot_names(base->workload.teams, service_names(*base))) {
      all_files.push_back(p + ".png");
      all_files.push_back(p + ".svg");
    }
  // Without -o nothing is written: each run's trace stays in memory (trace::MemoryTrace)
  // just long enough to take its figures.
  if (to_folder) check_output_names(c.out_dir, "-o '" + c.out_dir + "'", all_files);
  if (to_folder)
    for (const std::string& f : all_files) {
      std::error_code ec;
      if (fs::is_directory(fs::symlink_status(fs::path(c.out_dir) / f, ec)))
        throw Error("cannot write '" + (fs::path(c.out_dir) / f).string() + "': a folder of that name is in the way");
    }

  // The runs write into a fresh folder of their own, removed however the command ends
  // (signals included, sim/atomic_file.hpp); with -o, its files are moved into DIR once
  // every run has ended well, so a failed compare leaves DIR as it was.
  std::unique_ptr<sim::NewFolderGuard> made;
  if (to_folder) {
    std::error_code ec;
    const bool existed = fs::exists(fs::symlink_status(c.out_dir, ec));
    make_output_dir(c.out_dir);
    if (!existed) made = std::make_unique<sim::NewFolderGuard>(c.out_dir);
  }
  std::optional<sim::ScratchFolder> work;
  if (to_folder) work.emplace(c.out_dir, STAGING_PREFIX);
  // What each run gives back (its trace read on its own thread, as the runs ran).
  struct ReadBack {
    analysis::StrategyFigures figures;
    std::vector<std::pair<std::string, analysis::TeamFigures>> teams;
    std::vector<std::pair<std::string, analysis::ServiceFigures>> services;
    std::optional<analysis::TraceData> kept;  // replication 0 of each variant, for the plots
  };
  std::vector<ReadBack> read(variants.size() * c.replications);
  const auto take = [&](std::size_t i, analysis::TraceData trace) {
    const analysis::Metrics metrics = analysis::compute_metrics(trace);
    read[i].figures = analysis::strategy_figures(trace, metrics);
    read[i].teams = analysis::team_figures(metrics);
    read[i].services = analysis::service_figures(trace);
    if (i % c.replications == 0 && plots) read[i].kept = std::move(trace);
  };
  std::vector<models::RunSpec> specs;
  for (std::size_t v = 0; v < variants.size(); ++v)
    for (std::size_t r = 0; r < c.replications; ++r) {
      models::RunSpec spec;
      spec.scenario = base;
      spec.options.scheduler = choices[v];
      spec.options.replication = r;  // the seed stays the scenario's: every variant's streams are the same
      spec.options.max_events = models::event_limit(limits);  // each run stops past it
      spec.options.trace_compression = c.trace_compression;
      const std::size_t i = v * c.replications + r;
      if (to_folder) spec.output_stem = (fs::path(work->path()) / (names[v] + "-r" + std::to_string(r))).string();
      // The figures come from the run's summary copy, kept in memory as the run writes its
      // tables (with -o, beside the file: it is never read back), on the run's thread:
      // analysis::SummaryTrace, as gcsim run's. No figure or plot of a compare reads the
      // detail columns, nor a row of /ledger or /preemptions: those two are folded into their
      // sums as they are written (TraceParts::details). /events and /utilization's rows only
      // for the plots (drawn from replication 0 of each variant); otherwise /utilization is
      // folded into its integrals too.
      const analysis::TraceParts parts{
          .events = plots && r == 0, .details = false, .requests = false, .utilization = plots && r == 0};
      spec.in_memory_tables = [parts](const std::string& table) { return analysis::read_by_read_trace(table, parts); };
      spec.make_copy = [parts](const std::string& label) -> std::unique_ptr<trace::TraceFile> {
        return std::make_unique<analysis::SummaryTrace>(label, parts);
      };
      spec.read_in_memory = [&take, i](trace::TraceFile& copy, const std::string&) {
        take(i, dynamic_cast<analysis::SummaryTrace&>(copy).read());
      };
      specs.push_back(std::move(spec));
    }
  const std::vector<models::RunOutcome> outcomes = models::run_many(catalogs, schedulers, std::move(specs), c.threads);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const models::RunOutcome& o = outcomes[i];
    if (o.ok()) continue;
    const std::string what = "--policy '" + variants[i / c.replications].argument + "', replication " +
                             std::to_string(o.replication) + ": " + o.error;
    if (o.failure == models::RunFailure::User) throw Error(what);
    throw std::runtime_error(what);
  }

  analysis::ComparisonHeader header{base->name, document.file, base->seed, c.replications};
  std::vector<analysis::StrategyResult> results;
  std::vector<analysis::TraceData> first_runs;  // replication 0 of each variant, for the plots
  for (std::size_t v = 0; v < variants.size(); ++v) {
    analysis::StrategyResult result{variants[v].label, variants[v].yaml, {}, {}, {}};
    for (std::size_t r = 0; r < c.replications; ++r) {
      ReadBack& b = read[v * c.replications + r];
      result.replications.push_back(std::move(b.figures));
      result.team_replications.push_back(std::move(b.teams));
      result.service_replications.push_back(std::move(b.services));
      if (r == 0 && plots) first_runs.push_back(std::move(*b.kept));
    }
    results.push_back(std::move(result));
  }
  const std::string table = analysis::format_strategy_table(header, results);
  const std::string json = analysis::format_strategy_json(header, results);
  std::vector<std::string> written;
  if (to_folder) {
    sim::write_file_atomically((fs::path(work->path()) / "compare.txt").string(), table);
    sim::write_file_atomically((fs::path(work->path()) / "compare.json").string(), json);
    std::vector<std::string> moved = trace_files;
    if (plots) {
      std::vector<const analysis::TraceData*> runs;
      std::vector<std::string> labels;
      for (std::size_t v = 0; v < variants.size(); ++v) {
        runs.push_back(&first_runs[v]);
        labels.push_back(variants[v].label);
      }
      for (const std::string& p : analysis::write_overlay_plots(runs, labels, work->path()))
        moved.push_back(fs::path(p).filename().string());
    }
    publish(work->path(), c.out_dir, moved, tables);
    if (made) made->keep();
    for (const std::string& f : moved) written.push_back((fs::path(c.out_dir) / f).string());
  }
  if (c.json) {
    std::cout << json;
  } else {
    std::cout << table;
    if (to_folder) std::cout << "\n  table and JSON: " << (fs::path(c.out_dir) / "compare.txt").string() << ", compare.json\n";
    for (const std::string& p : written) std::cout << "  wrote: " << p << "\n";
  }
  return 0;
}

// A whole number from `min` to `max`, in decimal digits. CLI11's Range says "not in range
// 1 to 10000" for "1e3" too; this says which of the two is wrong.
CLI::Validator whole_number(long long min, long long max) {
  const std::string range = std::to_string(min) + " to " + std::to_string(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits) return "'" + text + "' is not a whole number: write digits only, from " + range;
        long long v = 0;
        const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc{} || p != text.data() + text.size() || v < min || v > max)
          return "'" + text + "' is out of range: from " + range;
        return {};
      },
      "INT in [" + std::to_string(min) + " - " + std::to_string(max) + "]");
}

}  // namespace

std::shared_ptr<CompareCommand> add_compare_command(CLI::App& app) {
  auto c = std::make_shared<CompareCommand>();
  c->app = app.add_subcommand("compare", "Run a scenario under several scheduling strategies on the same jobs; one table");
  c->app->add_option("scenario", c->scenario, "Scenario file")->required();
  c->app
      ->add_option("--policy", c->policies,
                   "A strategy, in place of the scenario's scheduler section: NAME, 'NAME:{key: value, ...}' or @FILE "
                   "(repeat for each)")
      ->required()
      ->take_all();
  c->app->add_option("--replications", c->replications, "Replications per strategy (default 1)")
      ->check(whole_number(1, 10000));
  c->app->add_option("-j,--jobs", c->threads, "Runs at once (default: one per hardware thread)")->check(whole_number(1, 4096));
  c->app->add_option("-o,--output", c->out_dir, "Write the traces, plots, compare.txt and compare.json into this folder");
  c->app->add_flag("--json", c->json, "Print the figures as JSON instead of the table");
  c->app->add_flag("--no-plots", c->no_plots, "With -o: write no plots");
  c->app
      ->add_option("--trace-compression", c->trace_compression,
                   "The traces' deflate level, 0 (none) to 9, in place of the scenario's output.compression")
      ->check(whole_number(0, 9));
  return c;
}

CLI::App* compare_app(const CompareCommand& command) { return command.app; }

int run_compare_command(const CompareCommand& command, const models::LoadOptions& options,
                        const models::ResourceLimits& limits) {
  if (!*command.app) return -1;
  return cmd_compare(command, options, limits);
}

}  // namespace gcsim::cli
