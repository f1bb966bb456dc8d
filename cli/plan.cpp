// `gcsim plan SCENARIO [--deadline D] [--budget USD] [--providers P,...] [--markets M,...]
// [--gpus G,...] [--instances REF,...] [--nodes N,...] [--replications R] [--spot-rate RATE]
// [--scores] [-o DIR [--no-plots]] [-j N] [--json]`: the scenario's workload run on every
// candidate fleet (an instance of the catalog × a market × a node count), each replicated,
// and the Pareto frontier of the cost against the time to finish printed, with the cheapest
// candidate that meets the deadline (docs/plan.md). The runs are a sweep's (cli/sweep.cpp):
// traces in memory, every core, and every MPI rank under mpirun (cli/sweep_mpi.hpp).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis/plan_plot.hpp"
#include "analysis/report.hpp"
#include "analysis/strategy_comparison.hpp"
#include "cli/commands.hpp"
#include "cli/plan_catalog.hpp"
#include "cli/plan_rates.hpp"
#include "cli/plan_scores.hpp"
#include "cli/sweep_journal.hpp"
#include "cli/sweep_mpi.hpp"
#include "models/config/overrides.hpp"
#include "models/coupling/job_speed.hpp"
#include "models/config/resource_estimate.hpp"
#include "sim/atomic_file.hpp"
#include "sim/config/csv.hpp"
#include "sim/errors.hpp"
#include "sim/parallel.hpp"
#include "sim/units.hpp"

namespace gcsim::cli {

struct PlanCommand {
  CLI::App* app = nullptr;
  CLI::Option* spot_rate_option = nullptr;
  std::string scenario;
  std::string deadline;
  std::string budget;
  std::vector<std::string> providers, markets, gpus, instances;
  std::vector<int> nodes{1, 2, 4, 8};
  std::size_t replications = 3;
  std::string spot_rate = "0.05/h";
  std::string out_dir;
  bool no_plots = false;
  bool scores = false;
  int threads = 0;
  bool json = false;
};

namespace {

namespace fs = std::filesystem;

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


constexpr std::size_t FIG_COST = analysis::figure_index("total_cost_usd");
constexpr std::size_t FIG_MAKESPAN = analysis::figure_index("makespan_s");
constexpr std::size_t FIG_COMPLETED = analysis::figure_index("jobs_completed");
constexpr std::size_t FIG_INTERRUPTIONS = analysis::figure_index("interruptions");
constexpr std::size_t FIG_LOST = analysis::figure_index("gpu_hours_lost");
static_assert(FIG_COST < analysis::STRATEGY_FIGURES.size() && FIG_MAKESPAN < analysis::STRATEGY_FIGURES.size() &&
              FIG_COMPLETED < analysis::STRATEGY_FIGURES.size() && FIG_INTERRUPTIONS < analysis::STRATEGY_FIGURES.size() &&
              FIG_LOST < analysis::STRATEGY_FIGURES.size());


std::string entry_json(const PlanCandidate& c, const MeasuredScores* scores,
                       const std::vector<ProviderAttribute>* attributes) {
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
    o.number("spot_rate_per_h", c.spot_rate_per_h);
    o.string("spot_rate_source", c.spot_rate_source);
  }
  if (scores != nullptr) append_scores_json(o, c, *scores, *attributes);
  return o.finish();
}

// A rate as people read it: "3.94e-04/h (one in 106d per node)".
std::string rate_text(double per_h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g/h", per_h);
  return per_h > 0 ? std::string(buf) + " (one in " + analysis::format_duration(3600 / per_h) + " per node)" : std::string(buf);
}

// An option's value read by a unit parser: its refusal is the user's (exit code 2).
template <class Parse>
auto option_value(const std::string& flag, const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const units::UnitError& e) {
    throw Error(flag + " '" + text + "': " + e.what());
  }
}

int cmd_plan(const PlanCommand& c, const models::LoadOptions& options, const models::ResourceLimits& limits) {
  for (const std::string& m : c.markets)
    if (m != "on-demand" && m != "spot" && m != "reserved") throw Error("--markets '" + m + "': on-demand, spot or reserved");
  for (const int n : c.nodes)
    if (n < 1 || n > 4096) throw Error("--nodes " + std::to_string(n) + ": 1 to 4096");
  if (c.no_plots && c.out_dir.empty()) throw Error("--no-plots: plots are written only with -o DIR");
  std::optional<double> deadline_s;
  if (!c.deadline.empty()) deadline_s = static_cast<double>(option_value("--deadline", c.deadline, units::parse_duration_ns)) * 1e-9;
  std::optional<double> budget_usd;
  if (!c.budget.empty()) {
    budget_usd = option_value("--budget", c.budget, units::parse_usd);
    if (!(*budget_usd > 0)) throw Error("--budget " + c.budget + ": a positive amount (5000, $5000)");
  }
  // --spot-rate given overrides every sourced rate; its default is the fallback.
  const double fallback_rate_per_h = option_value("--spot-rate", c.spot_rate, units::parse_rate_per_s) * 3600;
  if (!(fallback_rate_per_h >= 0 && fallback_rate_per_h <= 60))
    throw Error("--spot-rate " + c.spot_rate + ": 0/h to 60/h (interruptions per node-hour)");
  std::optional<double> explicit_rate_per_h;
  if (c.spot_rate_option != nullptr && c.spot_rate_option->count() > 0) explicit_rate_per_h = fallback_rate_per_h;

  const models::Catalogs catalogs = models::load_bundled_catalogs(options);
  const fs::path catalog_dir(options.catalog_dir);
  const std::vector<ProviderAttribute> attributes = read_provider_attributes((catalog_dir / "provider_attributes.csv").string());
  const std::vector<ReservedTermsRow> reserved = read_reserved_terms((catalog_dir / "reserved_terms.csv").string());
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
  const auto provider_rate = [&](const std::string& provider) -> std::optional<SpotRate> {
    const ProviderAttribute* a = find_attribute(attributes, provider, "spot_rate_per_h");
    if (a == nullptr || a->value == "unknown" || provider == "aws") return std::nullopt;
    return SpotRate{std::stod(a->value), a->source};
  };
  std::vector<PlanCandidate> candidates;
  const auto add = [&](const std::string& ref, const models::InstanceSpec* spec, const std::string& market,
                       const std::string& extra) {
    const std::string provider = spec != nullptr ? spec->provider : ref.substr(0, ref.find('/'));
    const std::string type = spec != nullptr ? spec->instance_type : ref.substr(ref.find('/') + 1, ref.find('@') - ref.find('/') - 1);
    SpotRate rate;
    if (market == "spot")
      rate = plan_spot_rate(provider, type, spec != nullptr ? spec->region : "", catalogs.spot_advisor, explicit_rate_per_h,
                            provider_rate(provider), fallback_rate_per_h);
    for (const int n : c.nodes) {
      PlanCandidate cand;
      cand.instance = ref;
      cand.market = market;
      cand.nodes = n;
      cand.provider = provider;
      cand.instance_type = type;
      cand.network_bytes_per_s = spec != nullptr ? spec->network_bytes_per_s : 0;
      // Run r of a spot candidate names its pool plan-r: its interruptions come from streams
      // of their own (docs/spot.md, "Determinism and streams") while the workload is the
      // scenario's replication 0 in every run, so the spread is the spot market's alone.
      const std::size_t runs = market == "spot" ? c.replications : 1;
      for (std::size_t r = 0; r < runs; ++r) {
        std::string node = "{name: plan" + (r == 0 ? std::string() : "-" + std::to_string(r)) + ", instance: \"" + ref +
                           "\", count: " + std::to_string(n) + extra;
        if (market == "spot") {
          cand.spot_rate_per_h = rate.per_hour;
          cand.spot_rate_source = rate.source;
          node += ", market: spot, interruptions: {process: poisson, rate: " + units::shortest_text(rate.per_hour) + "/h}";
        }
        cand.settings.push_back({models::read_set_argument("cluster.node_types=[" + node + "}]"),
                                 models::read_set_argument("run_until=done")});
      }
      candidates.push_back(std::move(cand));
    }
  };
  std::set<std::string> spot_refs;  // a zone's spot row is one candidate, however it was reached
  for (const std::string& ref : refs) {
    const models::InstanceSpec* spec = catalogs.instances.find_ref(ref);
    if (listed(c.markets, "on-demand")) add(ref, spec, "on-demand", "");
    if (listed(c.markets, "reserved") && spec != nullptr)
      for (const ReservedTermsRow& r : reserved)
        if (r.provider == spec->provider && r.instance_type == spec->instance_type)
          add(ref, spec, "reserved",
              ", market: reserved, price: {reserved: {term: " + r.term + ", upfront: " + r.upfront +
                  (r.upfront == "none" ? "" : ", upfront_usd: " + units::shortest_text(r.upfront_usd)) +
                  (r.upfront == "all" ? "" : ", per_hour: " + units::shortest_text(r.per_hour)) + "}}");
    if (!listed(c.markets, "spot")) continue;
    // A spot candidate needs a spot price: the instance's own (or one the scenario's catalog
    // defines), else each zone or region row of the same type with one (AWS lists spot
    // prices per zone), named so.
    if (spec == nullptr || spec->spot_usd_per_hour) {
      if (spot_refs.insert(ref).second) add(ref, spec, "spot", "");
      continue;
    }
    if (ref.find('@') != std::string::npos) continue;
    for (const models::InstanceSpec& e : catalogs.instances.list()) {
      if (e.provider != spec->provider || e.instance_type != spec->instance_type || !e.spot_usd_per_hour) continue;
      const std::string where = !e.zone.empty() ? e.zone : e.region;
      const std::string zref = ref + (where.empty() ? "" : "@" + where);
      if (spot_refs.insert(zref).second) add(zref, catalogs.instances.find_ref(zref), "spot", "");
    }
  }
  if (candidates.empty())
    throw Error("gcsim plan: no candidate: no catalog instance passes --providers, --gpus and --markets (spot needs a "
                "spot price, reserved terms in reserved_terms.csv)");

  // Under mpirun every rank builds and checks the candidates; rank 0 hands out the runs.
  const MpiSession mpi;
  const bool root = mpi.rank() == 0;
  // Each candidate checked as gcsim run would: one that cannot hold the workload (a job
  // no node of it can hold) is excluded with the reason.
  const std::size_t threads = c.threads > 0 ? static_cast<std::size_t>(c.threads) : 0;
  std::vector<std::size_t> job_counts(candidates.size(), 0);
  std::vector<std::string> names(candidates.size());
  std::vector<std::string> errors(candidates.size());
  sim::parallel_for(candidates.size(), threads, [&](std::size_t i) {
    try {
      const models::Scenario s = models::load_scenario(models::with_overrides(base, candidates[i].settings.front()), catalogs,
                                                       options.schedulers);
      models::check_resources(models::estimate_resources(s), limits);
      job_counts[i] = s.workload.jobs.size();
      for (const auto& g : s.workload.generators) job_counts[i] += static_cast<std::size_t>(g.count);
      names[i] = s.name;
      // The step-time model's exposed communication per step, weighted by each job's GPU
      // time, as gcsim estimate computes them (docs/step-time.md).
      double comm = 0, total = 0;
      const models::NodeTypeSpec& type = s.cluster.node_types.front();
      for (const auto& job : s.workload.jobs) {
        if (!job.training) continue;
        const models::EstimateRow e =
            models::estimate_job(*job.training, models::hardware_context(type, job.gpus, *job.training, s.storage), 0, type.gpus);
        if (!(e.step.step_s > 0) || !std::isfinite(e.total_time_s)) continue;
        const double gpu_s = e.total_time_s * job.gpus;
        comm += e.step.comm_exposed_s / e.step.step_s * gpu_s;
        total += gpu_s;
      }
      if (total > 0) candidates[i].comm_share = comm / total;
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
  // The runs: candidate k's are first_run[k] .. first_run[k + 1].
  std::vector<std::size_t> first_run(candidates.size() + 1, 0);
  std::vector<std::size_t> run_candidate, run_index;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    first_run[k + 1] = first_run[k] + candidates[k].settings.size();
    for (std::size_t r = 0; r < candidates[k].settings.size(); ++r) {
      run_candidate.push_back(k);
      run_index.push_back(r);
    }
  }
  std::vector<JournalRun> runs(first_run.back());
  const RunFunction run_one = [&](std::size_t i) {
    const PlanCandidate& cand = candidates[run_candidate[i]];
    return run_sweep_point(base, cand.settings[run_index[i]], cand.label() + " run " + std::to_string(run_index[i]), 0,
                           catalogs, options.schedulers, limits, "");
  };
  if (!root) {
    mpi_worker(mpi, run_one);
    return 0;
  }
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (candidates[run_candidate[i]].excluded.empty()) todo.push_back(i);
  const RecordFunction record = [&](std::size_t i, const JournalRun& run) { runs[i] = run; };
  if (mpi.active()) {
    MpiRunner runner(mpi);
    runner.run(todo, run_one, record);
    runner.finish();
  } else {
    sim::parallel_for(todo.size(), threads, [&](std::size_t k) { record(todo[k], run_one(todo[k])); });
  }
  const auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (const double x : v) s += x;
    return s / static_cast<double>(v.size());
  };
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    PlanCandidate& cand = candidates[k];
    if (!cand.excluded.empty()) continue;
    std::vector<double> t, cost, interruptions, lost;
    cand.finishes = true;
    for (std::size_t i = first_run[k]; i < first_run[k + 1]; ++i) {
      const JournalRun& run = runs[i];
      if (!run.ok) {
        cand.excluded = run.error;
        break;
      }
      t.push_back(run.figures[FIG_MAKESPAN]);
      cost.push_back(run.figures[FIG_COST]);
      interruptions.push_back(std::isfinite(run.figures[FIG_INTERRUPTIONS]) ? run.figures[FIG_INTERRUPTIONS] : 0.0);
      lost.push_back(std::isfinite(run.figures[FIG_LOST]) ? run.figures[FIG_LOST] : 0.0);
      cand.finishes = cand.finishes && run.figures[FIG_COMPLETED] == static_cast<double>(jobs);
    }
    if (!cand.excluded.empty()) continue;
    cand.time_s = mean(t);
    cand.cost_usd = mean(cost);
    cand.interruptions = mean(interruptions);
    cand.gpu_hours_lost = mean(lost);
    cand.time_min_s = *std::min_element(t.begin(), t.end());
    cand.time_max_s = *std::max_element(t.begin(), t.end());
    cand.cost_min_usd = *std::min_element(cost.begin(), cost.end());
    cand.cost_max_usd = *std::max_element(cost.begin(), cost.end());
    // Over budget: its mean cost, or for spot its dearest replication, above --budget.
    if (budget_usd) cand.over_budget = (cand.market == "spot" ? cand.cost_max_usd : cand.cost_usd) > *budget_usd;
  }

  // The frontier: by time, then cost; each candidate that finishes within the budget and is
  // cheaper than every faster one.
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < candidates.size(); ++k)
    if (candidates[k].excluded.empty() && candidates[k].finishes && !candidates[k].over_budget) order.push_back(k);
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

  // The measured scores of every listed candidate.
  std::vector<MeasuredScores> measured(candidates.size());
  if (c.scores) measured = measure_scores(candidates, order);

  std::size_t unfinished = 0, excluded = 0, over_budget = 0;
  for (const PlanCandidate& cand : candidates) {
    excluded += cand.excluded.empty() ? 0 : 1;
    unfinished += cand.excluded.empty() && !cand.finishes ? 1 : 0;
    over_budget += cand.excluded.empty() && cand.finishes && cand.over_budget ? 1 : 0;
  }
  if (!c.out_dir.empty()) {
    // The candidates listed, as the table and the plot show them (docs/plan.md, "Files").
    make_output_dir(c.out_dir);
    std::string table = "instance,market,nodes,time_s,cost_usd,time_s_min,time_s_max,cost_usd_min,cost_usd_max,frontier,"
                        "spot_rate_per_h,spot_rate_source\n";
    for (const std::size_t k : order) {
      const PlanCandidate& cand = candidates[k];
      table += config::csv::escape(cand.instance) + "," + cand.market + "," + std::to_string(cand.nodes) + "," +
               units::shortest_text(cand.time_s) + "," + units::shortest_text(cand.cost_usd) + "," +
               units::shortest_text(cand.time_min_s) + "," + units::shortest_text(cand.time_max_s) + "," +
               units::shortest_text(cand.cost_min_usd) + "," + units::shortest_text(cand.cost_max_usd) + "," +
               (cand.frontier ? "1" : "0") + "," +
               (cand.market == "spot" ? units::shortest_text(cand.spot_rate_per_h) : std::string()) + "," +
               config::csv::escape(cand.spot_rate_source) + "\n";
    }
    sim::AtomicFile out((fs::path(c.out_dir) / "plan.csv").string());
    out.write(table);
    out.commit();
    if (!c.no_plots) {
      std::vector<analysis::PlanPlotPoint> points;
      for (const std::size_t k : order) {
        const PlanCandidate& cand = candidates[k];
        points.push_back({cand.label(), cand.market, cand.time_s, cand.cost_usd, cand.time_min_s, cand.time_max_s,
                          cand.cost_min_usd, cand.cost_max_usd, cand.frontier});
      }
      analysis::write_plan_plot(points, deadline_s,
                                "gcsim plan: " + scenario_name + ", cost against time to finish (" +
                                    std::to_string(order.size()) + " candidates)",
                                c.out_dir);
    }
  }

  if (c.json) {
    std::vector<std::string> all, front;
    for (const std::size_t k : order)
      all.push_back(entry_json(candidates[k], c.scores ? &measured[k] : nullptr, c.scores ? &attributes : nullptr));
    for (const std::size_t k : frontier)
      front.push_back(entry_json(candidates[k], c.scores ? &measured[k] : nullptr, c.scores ? &attributes : nullptr));
    analysis::JsonObject top(0);
    top.raw("candidates", analysis::json_array(all, 1));
    top.raw("frontier", analysis::json_array(front, 1));
    // With --deadline, the cheapest candidate whose slowest run meets it (null: none does).
    if (deadline_s)
      top.raw("pick", pick ? entry_json(candidates[*pick], c.scores ? &measured[*pick] : nullptr, c.scores ? &attributes : nullptr)
                           : std::string("null"));
    std::cout << top.finish() << "\n";
    return 0;
  }
  std::printf("gcsim plan: '%s' (%zu jobs) on %zu candidates, spot ones run %zu times; * the frontier of cost against time\n",
              scenario_name.c_str(), jobs, candidates.size(), reps);
  std::printf("  %-44s %-9s %5s  %-22s %s\n", "instance", "market", "nodes", "time to finish", "cost");
  for (const std::size_t k : order) {
    const PlanCandidate& cand = candidates[k];
    std::string time = analysis::format_duration(cand.time_s), cost = units::format_usd(cand.cost_usd);
    if (cand.market == "spot" && reps > 1) {
      time += " (" + analysis::format_duration(cand.time_min_s) + "-" + analysis::format_duration(cand.time_max_s) + ")";
      cost += " (" + units::format_usd(cand.cost_min_usd) + "-" + units::format_usd(cand.cost_max_usd) + ")";
    }
    std::printf("%s %-44s %-9s %5d  %-22s %s\n", cand.frontier ? "*" : " ", cand.instance.c_str(), cand.market.c_str(),
                cand.nodes, time.c_str(), cost.c_str());
  }
  if (unfinished > 0) std::printf("  %zu candidates do not finish every job within the horizon (not listed)\n", unfinished);
  if (excluded > 0) std::printf("  %zu candidates cannot run the workload (a job no node of theirs can hold, or a failed run)\n", excluded);
  if (over_budget > 0)
    std::printf("  %zu candidates cost more than the budget of %s (mean; spot: the dearest replication) (not listed)\n",
                over_budget, units::format_usd(*budget_usd).c_str());
  // Which interruption rate each spot instance ran with, and where it comes from.
  std::map<std::string, const PlanCandidate*> spot_rates;
  for (const PlanCandidate& cand : candidates)
    if (cand.market == "spot" && cand.excluded.empty()) spot_rates.emplace(cand.instance, &cand);
  if (!spot_rates.empty()) {
    std::printf("spot interruption rates (per node, Poisson):\n");
    for (const auto& [ref, cand] : spot_rates)
      std::printf("  %-44s %s  %s\n", ref.c_str(), rate_text(cand->spot_rate_per_h).c_str(), cand->spot_rate_source.c_str());
  }
  if (deadline_s) {
    if (pick)
      std::printf("cheapest within %s: %s %s x%d, %s in %s\n", analysis::format_duration(*deadline_s).c_str(),
                  candidates[*pick].instance.c_str(), candidates[*pick].market.c_str(), candidates[*pick].nodes,
                  units::format_usd(candidates[*pick].cost_usd).c_str(), analysis::format_duration(candidates[*pick].time_s).c_str());
    else
      std::printf("no candidate finishes within %s in every replication\n", analysis::format_duration(*deadline_s).c_str());
  }
  if (c.scores) print_scores(candidates, order, measured, attributes);
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
  c->app->add_option("--budget", c->budget, "Leave out candidates whose mean cost (spot: dearest replication) exceeds this (5000, $5000)");
  c->app->add_option("--providers", c->providers, "Only these providers (aws, gcp, azure, lambda, ...)")->delimiter(',');
  c->app->add_option("--markets", c->markets, "Only these markets: on-demand, spot, reserved (default all)")->delimiter(',');
  c->app->add_option("--gpus", c->gpus, "Only instances of these GPUs (A100-40GB-SXM, H100-SXM, ...)")->delimiter(',');
  c->app->add_option("--instances", c->instances, "Exactly these instances (provider/type), in place of the catalog's")
      ->delimiter(',');
  c->app->add_option("--nodes", c->nodes, "Node counts to try (default 1,2,4,8)")->delimiter(',');
  c->app->add_option("--replications", c->replications, "Runs of each spot candidate (default 3), each with interruptions of its own")
      ->check(CLI::Range(1, 1000));
  c->spot_rate_option = c->app->add_option(
      "--spot-rate", c->spot_rate,
      "Spot interruptions per node, a Poisson rate, for every spot candidate (default: each provider's sourced rate, else 0.05/h)");
  c->app->add_flag("--scores", c->scores, "Also show the guide's five scores: measured ones and sourced provider attributes");
  c->app->add_option("-o,--output", c->out_dir, "Write plan.csv and the plot (plan.png, plan.svg) into this folder");
  c->app->add_flag("--no-plots", c->no_plots, "With -o: write plan.csv only");
  c->app->add_option("-j,--threads", c->threads, "Runs at once (default: one per core)")->check(CLI::Range(1, 4096));
  c->app->add_flag("--json", c->json, "Print {candidates, frontier} as JSON (and pick, with --deadline)");
  return c;
}

CLI::App* plan_app(const PlanCommand& command) { return command.app; }

int run_plan_command(const PlanCommand& command, const models::LoadOptions& options, const models::ResourceLimits& limits) {
  if (!*command.app) return -1;
  return cmd_plan(command, options, limits);
}

}  // namespace gcsim::cli
