// `gcsim compare SCENARIO --policy P1 --policy P2 ... [--replications R] [-j N] [-o DIR]
// [--json] [--no-plots]`: runs the scenario once per scheduling strategy and replication, on
// the scenario's seed, so that every strategy sees the same jobs and the same interruptions,
// on a pool of threads (models::run_many), and prints one table (docs/analysis.md,
// "Comparing strategies"). Every --policy is read before any run starts.
#include <CLI/CLI.hpp>

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "analysis/metrics.hpp"
#include "analysis/overlay_plots.hpp"
#include "analysis/strategy_comparison.hpp"
#include "analysis/trace_data.hpp"
#include "cli/commands.hpp"
#include "models/config/scheduler_variant.hpp"
#include "models/register_builtins.hpp"
#include "models/sweep.hpp"
#include "sim/atomic_file.hpp"
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
};

namespace {

// A fresh folder under the system's temporary folder for the traces of a run without -o,
// removed with everything in it when the command ends, however it ends.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "gcsim-compare-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw Error("cannot create a temporary folder in '" + fs::temp_directory_path().string() + "'");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// One trace stem per variant: its label as a file name, "-2", "-3"... after a name an
// earlier variant has.
std::vector<std::string> trace_names(const std::vector<models::SchedulerVariant>& variants) {
  std::vector<std::string> names;
  for (const models::SchedulerVariant& v : variants) {
    const std::string base = analysis::file_name_part(v.argument);
    std::string name = base;
    for (int k = 2; std::find(names.begin(), names.end(), name) != names.end(); ++k) name = base + "-" + std::to_string(k);
    names.push_back(name);
  }
  return names;
}

int cmd_compare(const CompareCommand& c, const models::LoadOptions& options, const models::ResourceLimits& limits) {
  const models::SchedulerRegistry& schedulers = options.schedulers;
  const models::Catalogs catalogs = models::load_bundled_catalogs(options);
  // The scenario as written first, so its own errors read as they do for gcsim run.
  const config::ConfigDocument document = config::load_yaml_file(c.scenario);
  const models::Scenario base = models::load_scenario(document, catalogs, schedulers);

  // Every variant read, and its scenario loaded and checked, before anything runs. The runs
  // held at once share the memory limit: each must fit in its part of it.
  const std::size_t runs = c.policies.size() * c.replications;
  const std::size_t threads = c.threads > 0 ? static_cast<std::size_t>(c.threads)
                                            : std::max(1u, std::thread::hardware_concurrency());
  models::ResourceLimits per_run = limits;
  per_run.max_memory_bytes /= static_cast<double>(std::max<std::size_t>(1, std::min(runs, threads)));
  std::vector<models::SchedulerVariant> variants;
  std::vector<std::shared_ptr<const models::Scenario>> scenarios;
  for (const std::string& policy : c.policies) {
    variants.push_back(models::read_scheduler_variant(policy, schedulers));
    auto s = std::make_shared<const models::Scenario>(models::load_scenario(
        config::load_yaml_string(models::with_scheduler_section(document, variants.back()), document.file), catalogs,
        schedulers));
    try {
      models::check_resources(models::estimate_resources(*s), per_run);
    } catch (const ConfigError& e) {
      if (per_run.max_memory_bytes == limits.max_memory_bytes || e.detail().find("--max-memory") == std::string::npos)
        throw;
      throw ConfigError(e.code(), e.mark(), e.key_path(),
                        e.detail() + " (the memory limit is shared by the " +
                            std::to_string(std::min(runs, threads)) + " runs held at once: lower -j to give each more)");
    }
    scenarios.push_back(std::move(s));
  }

  std::unique_ptr<ScratchDir> scratch;
  std::string dir = c.out_dir;
  if (dir.empty()) {
    scratch = std::make_unique<ScratchDir>();
    dir = scratch->path();
  } else {
    make_output_dir(dir);
  }
  const std::vector<std::string> names = trace_names(variants);
  std::vector<models::RunSpec> specs;
  for (std::size_t v = 0; v < variants.size(); ++v)
    for (std::size_t r = 0; r < c.replications; ++r) {
      models::RunSpec spec;
      spec.scenario = scenarios[v];
      spec.options.replication = r;  // the seed stays the scenario's: every variant's streams are the same
      spec.options.max_events = models::event_limit(limits);  // each run stops past it
      spec.output_stem = (fs::path(dir) / (names[v] + "-r" + std::to_string(r))).string();
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

  analysis::ComparisonHeader header{base.name, document.file, base.seed, c.replications};
  std::vector<analysis::StrategyResult> results;
  std::vector<analysis::TraceData> first_runs;  // replication 0 of each variant, for the plots
  const bool plots = !c.out_dir.empty() && !c.no_plots;
  for (std::size_t v = 0; v < variants.size(); ++v) {
    analysis::StrategyResult result{variants[v].argument, variants[v].yaml, {}, {}};
    for (std::size_t r = 0; r < c.replications; ++r) {
      analysis::TraceData trace = analysis::read_trace(outcomes[v * c.replications + r].trace_path);
      const analysis::Metrics metrics = analysis::compute_metrics(trace);
      result.replications.push_back(analysis::strategy_figures(trace, metrics));
      result.team_replications.push_back(analysis::team_figures(metrics));
      if (r == 0 && plots) first_runs.push_back(std::move(trace));
    }
    results.push_back(std::move(result));
  }
  const std::string table = analysis::format_strategy_table(header, results);
  const std::string json = analysis::format_strategy_json(header, results);
  std::vector<std::string> written;
  if (!c.out_dir.empty()) {
    sim::write_file_atomically((fs::path(dir) / "compare.txt").string(), table);
    sim::write_file_atomically((fs::path(dir) / "compare.json").string(), json);
    for (const models::RunOutcome& o : outcomes) written.push_back(o.trace_path);
    if (plots) {
      std::vector<const analysis::TraceData*> runs;
      std::vector<std::string> labels;
      for (std::size_t v = 0; v < variants.size(); ++v) {
        runs.push_back(&first_runs[v]);
        labels.push_back(variants[v].argument);
      }
      for (const std::string& p : analysis::write_overlay_plots(runs, labels, dir)) written.push_back(p);
    }
  }
  if (c.json) {
    std::cout << json;
  } else {
    std::cout << table;
    if (!c.out_dir.empty()) std::cout << "\n  table and JSON: " << (fs::path(dir) / "compare.txt").string() << ", compare.json\n";
    for (const std::string& p : written) std::cout << "  wrote: " << p << "\n";
  }
  return 0;
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
      ->check(CLI::Range(std::size_t{1}, std::size_t{10000}));
  c->app->add_option("-j,--jobs", c->threads, "Runs at once (default: one per hardware thread)")->check(CLI::Range(1, 4096));
  c->app->add_option("-o,--output", c->out_dir, "Write the traces, plots, compare.txt and compare.json into this folder");
  c->app->add_flag("--json", c->json, "Print the figures as JSON instead of the table");
  c->app->add_flag("--no-plots", c->no_plots, "With -o: write no plots");
  return c;
}

CLI::App* compare_app(const CompareCommand& command) { return command.app; }

int run_compare_command(const CompareCommand& command, const models::LoadOptions& options,
                        const models::ResourceLimits& limits) {
  if (!*command.app) return -1;
  return cmd_compare(command, options, limits);
}

}  // namespace gcsim::cli
