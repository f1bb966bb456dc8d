// The gcsim subcommands beyond run/validate/analyze, one function each; main.cpp parses
// the command line and calls them. They throw gcsim::Error for anything a user caused.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analysis/trace_data.hpp"
#include "models/config/resource_estimate.hpp"
#include "models/config/scenario_loader.hpp"
#include "sim/config/key_table.hpp"
#include "sim/rules/alert_rules_file.hpp"

namespace CLI {
class App;
}

namespace gcsim::cli {

// `gcsim flows SCENARIO FLOWS.csv [-o OUT.csv]`: replays flows over the scenario's network,
// once the network and the flows fit `limits` (models/config/resource_estimate.hpp).
int cmd_flows(const std::string& scenario, const std::string& flows_csv, const std::string& out_csv,
              const models::ResourceLimits& limits);

// `gcsim estimate SCENARIO [--json]`: each model-described job's step time, breakdown,
// throughput, memory, bottleneck and cost on every node type that can hold it, for a
// scenario that fits `limits`.
int cmd_estimate(const std::string& scenario, bool json, const models::LoadOptions& options,
                 const models::ResourceLimits& limits);

// `gcsim metrics TRACE [--openmetrics] [-o FILE] [--from T] [--to T]`: the trace's
// simulated GPU metrics (docs/metrics.md): a summary, or OpenMetrics text (to FILE,
// written atomically, or to standard output) of the samples at simulated times in
// [from, to] (durations, "" for the run's start and end).
int cmd_metrics(const std::string& trace, bool openmetrics, const std::string& out, const std::string& from,
                const std::string& to);

// `gcsim alerts TRACE [--rules FILE] [--json]`: Prometheus alerting rules (docs/alerts.md)
// evaluated over the trace's simulated GPU metrics, every firing listed; without --rules,
// the rules of the run's scenario (`alerts:`), which the trace carries.
int cmd_alerts(const std::string& trace, const std::string& rules, bool json);

// The rules `gcsim alerts` and `gcsim analyze` evaluate: the file `rules_path` when given,
// else the trace's own (empty when it has none); `from` says which (SCENARIO_RULES or the
// path).
std::vector<promql::AlertGroup> alert_rules_for(const analysis::TraceAttributes& attrs, const std::string& rules_path,
                                                std::string& from);

// `gcsim policies`: every scheduling policy and placement strategy of `registry`, with its
// description and each policy's keys (type, default, range, help), printed from the
// registry itself so the listing cannot drift from what the loader accepts.
int cmd_policies(const models::SchedulerRegistry& registry);

// `gcsim keys [SECTION]`: every map a scenario may hold (or the one whose dotted path is
// SECTION, as `gcsim keys` prints it: `cluster.node_types[i]`, `scheduler(policy: las)`),
// each key with its type, default, range and help, from the key tables the readers read
// through. An unknown section: exit code 2, with a did-you-mean.
int cmd_keys(const models::SchedulerRegistry& registry, const std::string& section);
// One key table as both commands print it: key, type, default, range, help.
void print_key_table(const std::vector<config::KeySpec>& keys);

// `gcsim instances` and `gcsim catalog import` (cli/instances.cpp): registered on `app`;
// run_instance_commands runs the one chosen and returns its exit code, or -1 for neither.
struct InstanceCommands;
std::shared_ptr<InstanceCommands> add_instance_commands(CLI::App& app);
int run_instance_commands(const InstanceCommands& commands, const std::string& catalog_dir);

// `gcsim compare SCENARIO --policy P ...` (cli/compare.cpp): registered on `app`;
// run_compare_command runs it when it was chosen and returns its exit code, else -1.
struct CompareCommand;
std::shared_ptr<CompareCommand> add_compare_command(CLI::App& app);
CLI::App* compare_app(const CompareCommand& command);  // its subcommand, for shared flags
int run_compare_command(const CompareCommand& command, const models::LoadOptions& options,
                        const models::ResourceLimits& limits);

// `gcsim sweep FILE` (cli/sweep.cpp): registered on `app`; run_sweep_command runs it when
// it was chosen and returns its exit code, else -1.
struct SweepCommand;
std::shared_ptr<SweepCommand> add_sweep_command(CLI::App& app);
CLI::App* sweep_app(const SweepCommand& command);  // its subcommand, for shared flags
int run_sweep_command(const SweepCommand& command, const models::LoadOptions& options,
                      const models::ResourceLimits& limits);

// One run of a sweep's point (cli/sweep.cpp): `base` with `settings`, replication
// `replication`, its trace kept in memory (or written to `keep_trace`), its figures taken.
// A failure is recorded in the result, never thrown. `label` names the run in messages.
struct JournalRun;
JournalRun run_sweep_point(const config::ConfigDocument& base, const std::vector<models::Override>& settings,
                           const std::string& label, std::size_t replication, const models::Catalogs& catalogs,
                           const models::SchedulerRegistry& schedulers, const models::ResourceLimits& limits,
                           const std::string& keep_trace);

// check_resources() for one of `held` runs in memory at once, which share limits' memory:
// the error then says so (gcsim compare, gcsim sweep).
void check_resources_shared(const models::ResourceEstimate& estimate, const models::ResourceLimits& limits, std::size_t held);

// `gcsim plan SCENARIO` (cli/plan.cpp): registered on `app`; run_plan_command runs it when
// it was chosen and returns its exit code, else -1.
struct PlanCommand;
std::shared_ptr<PlanCommand> add_plan_command(CLI::App& app);
CLI::App* plan_app(const PlanCommand& command);
int run_plan_command(const PlanCommand& command, const models::LoadOptions& options,
                     const models::ResourceLimits& limits);

// `gcsim trace fit SCENARIO -o OUT.yaml` (cli/trace_fit.cpp): registered on `app`;
// run_trace_fit_command runs it when it was chosen and returns its exit code, else -1.
struct TraceFitCommand;
std::shared_ptr<TraceFitCommand> add_trace_fit_command(CLI::App& app);
int run_trace_fit_command(const TraceFitCommand& command, const models::LoadOptions& options);

// `gcsim cookbook run|check|write [RECIPES ...] [--index FILE] [-j N]` (cli/cookbook.cpp,
// docs/cookbook.md): registered on `app`; run_cookbook_command runs it when it was chosen
// and returns its exit code (1: a figure moved or a block is stale), else -1.
struct CookbookCommand;
std::shared_ptr<CookbookCommand> add_cookbook_command(CLI::App& app);
int run_cookbook_command(const CookbookCommand& command);

// Makes an output folder (and its parents) and removes the temporary files a killed run
// left in it (sim/atomic_file.hpp); throws gcsim::Error when it cannot.
void make_output_dir(const std::string& dir);

}  // namespace gcsim::cli
