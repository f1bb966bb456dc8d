// `gcsim plan SCENARIO [--deadline D] [--providers P,...] [--markets M,...] [--gpus G,...]
// [--instances REF,...] [--nodes N,...] [--replications R] [--spot-rate RATE] [-j N]
// [--json]`: the scenario's workload run on every candidate fleet (an instance of the
// catalog × a market × a node count), each replicated, and the Pareto frontier of the cost
// against the time to finish printed, with the cheapest candidate that meets the deadline
// (docs/plan.md). The runs are a sweep's (cli/sweep.cpp): traces in memory, every core.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "analysis/report.hpp"
#include "analysis/strategy_comparison.hpp"
#include "cli/commands.hpp"
#include "cli/sweep_journal.hpp"
#include "models/config/overrides.hpp"
#include "models/config/resource_estimate.hpp"
#include "sim/errors.hpp"
#include "sim/parallel.hpp"
#include "sim/units.hpp"

namespace gcsim::cli {

struct PlanCommand {
  CLI::App* app = nullptr;
  std::string scenario;
  std::string deadline;
  std::vector<std::string> providers, markets, gpus, instances;
  std::vector<int> nodes{1, 2, 4, 8};
  std::size_t replications = 3;
  std::string spot_rate = "0.05/h";
  int threads = 0;
  bool json = false;
};

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool listed(const std::vector<std::string>& list, const std::string& value) {
  if (list.empty()) return true;
  for (const std::string& v : list)
    if (lower(v) == lower(value)) return true;
  return false;
}

struct Candidate {
  std::string instance;  // provider/type
  std::string market;    // on-demand | spot
  int nodes = 1;
  std::vector<models::Override> settings;
  std::string excluded;  // why it cannot run the workload ("" when it can)
  // Over the replications that succeeded.
  double time_s = 0, cost_usd = 0, time_min_s = 0, time_max_s = 0, cost_min_usd = 0, cost_max_usd = 0;
  bool finishes = false;  // every job completed in every replication
  bool frontier = false;
};

constexpr std::size_t FIG_COST = analysis::figure_index("total_cost_usd");
constexpr std::size_t FIG_MAKESPAN = analysis::figure_index("makespan_s");
constexpr std::size_t FIG_COMPLETED = analysis::figure_index("jobs_completed");
static_assert(FIG_COST < analysis::STRATEGY_FIGURES.size() && FIG_MAKESPAN < analysis::STRATEGY_FIGURES.size() &&
              FIG_COMPLETED < analysis::STRATEGY_FIGURES.size());

std::string entry_json(const Candidate& c) {
  analysis::JsonObject o(2);
  o.string("instance", c.instance);
  o.string("market", c.market);
  o.integer("nodes", c.nodes);
  o.number("time_s", c.time_s);
  o.number("cost_usd", c.cost_usd);
  if (c.market == "spot") {
    o.number("time_s_min", c.time_min_s);
    o.number("time_s_max", c.time_max_s);
    o.number("cost_usd_min", c.cost_min_usd);
    o.number("cost_usd_max", c.cost_max_usd);
  }
  return o.finish();
}

int cmd_plan(const PlanCommand& c, const models::LoadOptions& options, const models::ResourceLimits& limits) {
  for (const std::string& m : c.markets)
    if (m != "on-demand" && m != "spot") throw Error("--markets '" + m + "': on-demand or spot");
  for (const int n : c.nodes)
    if (n < 1 || n > 4096) throw Error("--nodes " + std::to_string(n) + ": 1 to 4096");
  std::optional<double> deadline_s;
  if (!c.deadline.empty()) deadline_s = static_cast<double>(units::parse_duration_ns(c.deadline)) * 1e-9;
  const models::Catalogs catalogs = models::load_bundled_catalogs(options);
  const config::ConfigDocument base = models::with_overrides(config::load_yaml_file(c.scenario), options.overrides);
  // The scenario's own cluster does not matter (each candidate replaces it): the workload
  // is judged with each candidate's.

  // The instances: as named, or every catalog instance the filters keep.
  std::vector<std::string> refs = c.instances;
  if (refs.empty())
    for (const std::string& ref : catalogs.instances.refs()) {
      const models::InstanceSpec* spec = catalogs.instances.find_ref(ref);
      if (spec != nullptr && listed(c.providers, spec->provider) && listed(c.gpus, spec->gpu)) refs.push_back(ref);
    }
  std::vector<Candidate> candidates;
  for (const std::string& ref : refs) {
    const models::InstanceSpec* spec = catalogs.instances.find_ref(ref);
    for (const char* market : {"on-demand", "spot"}) {
      if (!listed(c.markets, market)) continue;
      // A spot candidate needs a spot price (or an instance the scenario's catalog defines).
      if (std::string(market) == "spot" && spec != nullptr && !spec->spot_usd_per_hour) continue;
      for (const int n : c.nodes) {
        Candidate cand{ref, market, n, {}, {}};
        std::string node = "{name: plan, instance: \"" + ref + "\", count: " + std::to_string(n);
        if (std::string(market) == "spot") node += ", market: spot, interruptions: {process: poisson, rate: " + c.spot_rate + "}";
        cand.settings.push_back(models::read_set_argument("cluster.node_types=[" + node + "}]"));
        cand.settings.push_back(models::read_set_argument("run_until=done"));
        candidates.push_back(std::move(cand));
      }
    }
  }
  if (candidates.empty()) throw Error("gcsim plan: no candidate: no catalog instance passes --providers, --gpus and --markets");

  // Each candidate checked as gcsim run would: one that cannot hold the workload (a job
  // no node of it can hold) is excluded with the reason.
  const std::size_t threads = c.threads > 0 ? static_cast<std::size_t>(c.threads) : 0;
  std::vector<std::size_t> job_counts(candidates.size(), 0);
  std::vector<std::string> names(candidates.size());
  std::vector<std::string> errors(candidates.size());
  sim::parallel_for(candidates.size(), threads, [&](std::size_t i) {
    try {
      const models::Scenario s = models::load_scenario(models::with_overrides(base, candidates[i].settings), catalogs,
                                                       options.schedulers);
      models::check_resources(models::estimate_resources(s), limits);
      job_counts[i] = s.workload.jobs.size();
      for (const auto& g : s.workload.generators) job_counts[i] += static_cast<std::size_t>(g.count);
      names[i] = s.name;
    } catch (const ConfigError& e) {
      candidates[i].excluded = e.detail();
      errors[i] = e.what();
    }
  });
  // The workload's jobs, from a candidate that holds it; when none does, the first one's
  // error is the command's (a workload that is wrong, not a fleet too small, shows there).
  std::size_t jobs = 0;
  std::string scenario_name;
  for (std::size_t i = 0; i < candidates.size() && scenario_name.empty(); ++i)
    if (candidates[i].excluded.empty()) {
      jobs = job_counts[i];
      scenario_name = names[i];
    }
  if (scenario_name.empty()) throw Error("gcsim plan: no candidate can run the workload; the first: " + errors.front());
  const std::size_t reps = c.replications;
  std::vector<JournalRun> runs(candidates.size() * reps);
  sim::parallel_for(runs.size(), threads, [&](std::size_t i) {
    const Candidate& cand = candidates[i / reps];
    if (!cand.excluded.empty()) return;
    runs[i] = run_sweep_point(base, cand.settings, cand.instance + " " + cand.market + " x" + std::to_string(cand.nodes),
                              i % reps, catalogs, options.schedulers, limits, "");
  });
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    Candidate& cand = candidates[k];
    if (!cand.excluded.empty()) continue;
    std::vector<double> t, cost;
    cand.finishes = true;
    for (std::size_t r = 0; r < reps; ++r) {
      const JournalRun& run = runs[k * reps + r];
      if (!run.ok) {
        cand.excluded = run.error;
        break;
      }
      t.push_back(run.figures[FIG_MAKESPAN]);
      cost.push_back(run.figures[FIG_COST]);
      cand.finishes = cand.finishes && run.figures[FIG_COMPLETED] == static_cast<double>(jobs);
    }
    if (!cand.excluded.empty()) continue;
    const auto mean = [](const std::vector<double>& v) {
      double s = 0;
      for (const double x : v) s += x;
      return s / static_cast<double>(v.size());
    };
    cand.time_s = mean(t);
    cand.cost_usd = mean(cost);
    cand.time_min_s = *std::min_element(t.begin(), t.end());
    cand.time_max_s = *std::max_element(t.begin(), t.end());
    cand.cost_min_usd = *std::min_element(cost.begin(), cost.end());
    cand.cost_max_usd = *std::max_element(cost.begin(), cost.end());
  }

  // The frontier: by time, then cost; each candidate that finishes and is cheaper than
  // every faster one.
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < candidates.size(); ++k)
    if (candidates[k].excluded.empty() && candidates[k].finishes) order.push_back(k);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return candidates[a].time_s != candidates[b].time_s ? candidates[a].time_s < candidates[b].time_s
                                                        : candidates[a].cost_usd < candidates[b].cost_usd;
  });
  double cheapest = std::numeric_limits<double>::infinity();
  std::vector<std::size_t> frontier;
  for (const std::size_t k : order)
    if (candidates[k].cost_usd < cheapest) {
      cheapest = candidates[k].cost_usd;
      candidates[k].frontier = true;
      frontier.push_back(k);
    }
  // The cheapest whose slowest replication meets the deadline.
  std::optional<std::size_t> pick;
  if (deadline_s)
    for (const std::size_t k : order)
      if (candidates[k].time_max_s <= *deadline_s && (!pick || candidates[k].cost_usd < candidates[*pick].cost_usd)) pick = k;

  if (c.json) {
    std::vector<std::string> all, front;
    for (const std::size_t k : order) all.push_back(entry_json(candidates[k]));
    for (const std::size_t k : frontier) front.push_back(entry_json(candidates[k]));
    analysis::JsonObject top(0);
    top.raw("candidates", analysis::json_array(all, 1));
    top.raw("frontier", analysis::json_array(front, 1));
    std::cout << top.finish() << "\n";
    return 0;
  }
  std::printf("gcsim plan: '%s' (%zu jobs) on %zu candidates, %zu replications each; * the frontier of cost against time\n",
              scenario_name.c_str(), jobs, candidates.size(), reps);
  std::printf("  %-44s %-9s %5s  %-22s %s\n", "instance", "market", "nodes", "time to finish", "cost");
  for (const std::size_t k : order) {
    const Candidate& cand = candidates[k];
    std::string time = analysis::format_duration(cand.time_s), cost = units::format_usd(cand.cost_usd);
    if (cand.market == "spot" && reps > 1) {
      time += " (" + analysis::format_duration(cand.time_min_s) + "-" + analysis::format_duration(cand.time_max_s) + ")";
      cost += " (" + units::format_usd(cand.cost_min_usd) + "-" + units::format_usd(cand.cost_max_usd) + ")";
    }
    std::printf("%s %-44s %-9s %5d  %-22s %s\n", cand.frontier ? "*" : " ", cand.instance.c_str(), cand.market.c_str(),
                cand.nodes, time.c_str(), cost.c_str());
  }
  std::size_t unfinished = 0, excluded = 0;
  for (const Candidate& cand : candidates) {
    excluded += cand.excluded.empty() ? 0 : 1;
    unfinished += cand.excluded.empty() && !cand.finishes ? 1 : 0;
  }
  if (unfinished > 0) std::printf("  %zu candidates do not finish every job within the horizon (not listed)\n", unfinished);
  if (excluded > 0) std::printf("  %zu candidates cannot run the workload (a job no node of theirs can hold, or a failed run)\n", excluded);
  if (deadline_s) {
    if (pick)
      std::printf("cheapest within %s: %s %s x%d, %s in %s\n", analysis::format_duration(*deadline_s).c_str(),
                  candidates[*pick].instance.c_str(), candidates[*pick].market.c_str(), candidates[*pick].nodes,
                  units::format_usd(candidates[*pick].cost_usd).c_str(), analysis::format_duration(candidates[*pick].time_s).c_str());
    else
      std::printf("no candidate finishes within %s in every replication\n", analysis::format_duration(*deadline_s).c_str());
  }
  return 0;
}

}  // namespace

std::shared_ptr<PlanCommand> add_plan_command(CLI::App& app) {
  auto c = std::make_shared<PlanCommand>();
  c->app = app.add_subcommand("plan", "The cheapest way to get a scenario's work done: every candidate fleet simulated, the "
                                      "Pareto frontier of cost against time (docs/plan.md)");
  c->app->add_option("scenario", c->scenario, "Scenario file: its workload (its cluster is replaced by each candidate)")
      ->required();
  c->app->add_option("--deadline", c->deadline, "Also name the cheapest candidate that finishes within this (30h, 2d)");
  c->app->add_option("--providers", c->providers, "Only these providers (aws, gcp, azure, lambda, ...)")->delimiter(',');
  c->app->add_option("--markets", c->markets, "Only these markets: on-demand, spot (default both)")->delimiter(',');
  c->app->add_option("--gpus", c->gpus, "Only instances of these GPUs (A100-40GB-SXM, H100-SXM, ...)")->delimiter(',');
  c->app->add_option("--instances", c->instances, "Exactly these instances (provider/type), in place of the catalog's")
      ->delimiter(',');
  c->app->add_option("--nodes", c->nodes, "Node counts to try (default 1,2,4,8)")->delimiter(',');
  c->app->add_option("--replications", c->replications, "Runs of each candidate (default 3): spot interruptions differ")
      ->check(CLI::Range(1, 1000));
  c->app->add_option("--spot-rate", c->spot_rate, "Spot interruptions per node, a Poisson rate (default 0.05/h)");
  c->app->add_option("-j,--threads", c->threads, "Runs at once (default: one per core)")->check(CLI::Range(1, 4096));
  c->app->add_flag("--json", c->json, "Print {candidates, frontier} as JSON");
  return c;
}

CLI::App* plan_app(const PlanCommand& command) { return command.app; }

int run_plan_command(const PlanCommand& command, const models::LoadOptions& options, const models::ResourceLimits& limits) {
  if (!*command.app) return -1;
  return cmd_plan(command, options, limits);
}

}  // namespace gcsim::cli
