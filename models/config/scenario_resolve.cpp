// The resolve step (see scenario_resolve.hpp).
#include "models/config/scenario_resolve.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/core/limits.hpp"
#include "models/gpu/gpu_catalog.hpp"
#include "models/serving/llm_cost.hpp"
#include "models/spot/interruption_rate.hpp"
#include "models/storage/checkpoint_io.hpp"
#include "models/workload/memory_fit.hpp"
#include "sim/calendar.hpp"
#include "sim/check.hpp"
#include "sim/units.hpp"

namespace gcsim::models {

using config::ConfigNode;

namespace {

[[noreturn]] void fail_unknown_tier(const ConfigNode& at, std::string_view what, const std::string& tier,
                                    const Scenario& s) {
  const std::string hint = s.storage ? did_you_mean(tier, s.storage->names()) : "";
  at.fail(ErrorCode::UnknownName, std::string(what) + " tier '" + tier + "' is not a tier of the scenario's storage section" +
                                      (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
}

// A checkpoint written to a tier: the tier exists, its size (from the model for
// `size: model`, marked -1 by the reader) and its write and restore times on that tier.
void resolve_checkpoint(CheckpointSpec& c, const ConfigNode& entry, const Scenario& s, const TrainingSpec* training) {
  if (c.tier.empty()) return;
  const ConfigNode& at = *entry.find("checkpoint");
  const StorageTierSpec* tier = s.storage ? s.storage->find(c.tier) : nullptr;
  if (!tier) fail_unknown_tier(*at.find("tier"), "checkpoint", c.tier, s);
  if (c.size_bytes < 0) c.size_bytes = checkpoint_state_bytes(*training);
  c = checkpoint_times_from_tier(c, *tier);
}

// A service's cold start reads (`cold_start.image`, `cold_start.model`): each tier exists,
// the model's size (the catalog model's weights when not given) and each read's time,
// priced once here as a checkpoint restore is (read_once_time: one reader alone on the tier).
void resolve_cold_start(serving::ServiceSpec& sv, const ConfigNode& service, const Scenario& s) {
  serving::ColdStartSpec& c = sv.cold_start;
  for (serving::ColdStartRead* read : {&c.image, &c.model}) {
    if (read->empty()) continue;
    const char* key = read == &c.image ? "image" : "model";
    const ConfigNode& at = *service.find("cold_start")->find(key)->find("tier");
    if (!s.storage)
      at.fail(ErrorCode::Conflict, std::string("cold_start.") + key + " reads from tier '" + read->tier +
                                       "', but the scenario has no storage: section to declare it (storage.tiers; "
                                       "docs/storage.md)");
    const StorageTierSpec* tier = s.storage->find(read->tier);
    if (!tier) fail_unknown_tier(at, std::string("cold_start.") + key, read->tier, s);
    if (read->bytes == 0) {
      GCSIM_CHECK(sv.model_spec != nullptr, "service '" + sv.name + "': a model read without a size needs a catalog model");
      read->bytes = resolve(*sv.model_spec).params * serving::bytes_per_element(sv.precision);
    }
    read->time = read_once_time(*tier, read->bytes);
  }
}

void resolve_dataset(const DatasetRef& dataset, const ConfigNode& job, const Scenario& s) {
  if (dataset.tier.empty()) return;
  const ConfigNode* ds = job.find("dataset");
  if (!s.storage || !s.storage->find(dataset.tier)) fail_unknown_tier(*ds, "dataset", dataset.tier, s);
  // Staging copies the dataset to the nodes' local NVMe: the scenario needs one.
  const auto& tiers = s.storage->tiers;
  if (dataset.access == DataAccess::Stage &&
      std::none_of(tiers.begin(), tiers.end(), [](const StorageTierSpec& t) { return t.kind == TierKind::LocalNvme; })) {
    const ConfigNode* access = ds->find("access");
    (access ? access : ds)->fail(ErrorCode::MissingKey, "access: stage copies the dataset to local NVMe: the storage "
                                                        "section needs a tier of kind local-nvme");
  }
}

// The fixed parts of a job's life after each start: its image pull, then (checkpointed)
// a restore and a checkpoint write. Begun as late as the horizon they must end within
// SimTime's range: past it they would saturate to "never", and the run would carry a
// job that can make no progress. The error names the larger part.
void require_lifecycle_in_range(const ConfigNode& entry, sim::SimTime horizon, sim::SimTime image_pull,
                                const CheckpointSpec* c) {
  const sim::SimTime write = c ? c->write_time : sim::SimTime::zero();
  const sim::SimTime restore = c ? c->restore_time : sim::SimTime::zero();
  if (!(horizon + image_pull + restore + write).is_max()) return;
  // At the largest part's key; a checkpoint's times from a tier are at the checkpoint.
  const ConfigNode* at = entry.find("image_pull");
  if (c && !(image_pull >= restore && image_pull >= write)) {
    const ConfigNode* checkpoint = entry.find("checkpoint");
    const ConfigNode* part = checkpoint ? checkpoint->find(restore > write ? "restore_time" : "write_time") : nullptr;
    at = part ? part : checkpoint;
  }
  if (at == nullptr) at = &entry;  // a part not written here (a default): the entry
  // A part that is itself past the range (restore and write of 190 years each) saturates.
  auto text = [](sim::SimTime t) { return t.is_max() ? std::string("over 292 years") : units::format_duration_s(t.seconds()); };
  at->fail(ErrorCode::OutOfRange,
           "the horizon (" + text(horizon) + ") + image_pull (" + text(image_pull) +
               ") + checkpoint restore_time and write_time (" + text(restore + write) +
               ") lie beyond the simulated time range (about 292 years): a job started at the horizon would never "
               "make progress");
}

void require_feasible(const ConfigNode& at, const ClusterSpec& cluster, int gpus, const Precision* precision,
                      std::uint64_t mask = ~std::uint64_t{0}) {
  if ((eligible_node_types(cluster, gpus, precision) & mask) == 0)
    at.fail(ErrorCode::Infeasible, infeasible_message(cluster, gpus, precision) +
                                       (mask == ~std::uint64_t{0} ? "" : " (counting only node types with its `gpu`)"));
}

// A job's `gpu` names: each a GPU of the catalog (canonical name or alias), at least one of
// them on some node type. Sets the names to canonical ones and returns the node types
// with one of them.
std::uint64_t resolve_gpu_types(std::vector<std::string>& names, const ConfigNode& job, const Scenario& s,
                                const GpuCatalog* catalog) {
  if (names.empty()) return ~std::uint64_t{0};
  const ConfigNode& at = *job.find("gpu");
  std::uint64_t mask = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const ConfigNode& item = at.is_sequence() ? at.at(i) : at;
    const GpuSpec* gpu = catalog ? catalog->find(names[i]) : nullptr;
    if (catalog && gpu == nullptr) {
      const std::string near = did_you_mean(names[i], catalog->all_names());
      // A list written as one name ("[A100, H100]", "A100|H100" in a CSV cell) says how to write it.
      const bool looks_like_list = names[i].find_first_of("[],|") != std::string::npos;
      item.fail(ErrorCode::UnknownName, "unknown GPU '" + names[i] + "'" +
                                            (near.empty() ? "" : "; did you mean '" + near + "'?") +
                                            " (`gcsim gpus` lists the catalog)" +
                                            (looks_like_list ? "; several GPUs are a list: [A100-80GB-SXM, H100-SXM] in "
                                                               "YAML, A100-80GB-SXM;H100-SXM in a CSV cell"
                                                             : ""));
    }
    if (gpu) names[i] = gpu->name;
    for (std::size_t t = 0; t < s.cluster.node_types.size() && t < 64; ++t)
      if (s.cluster.node_types[t].gpu.name == names[i]) mask |= std::uint64_t{1} << t;
  }
  if (mask == 0) {
    std::string have;
    for (const auto& t : s.cluster.node_types) have += (have.empty() ? "" : ", ") + t.name + " (" + t.gpu.name + ")";
    at.fail(ErrorCode::Infeasible, "no node type has the GPU" + std::string(names.size() == 1 ? "" : "s") +
                                       " this job accepts; the cluster has: " + have);
  }
  return mask;
}

void resolve_job(JobSpec& j, const ConfigNode& n, const Scenario& s, const GpuCatalog* catalog) {
  const TrainingSpec* training = j.training ? &*j.training : nullptr;
  j.node_type_mask = resolve_gpu_types(j.gpu_types, n, s, catalog);
  if (j.checkpoint) resolve_checkpoint(*j.checkpoint, n, s, training);
  require_lifecycle_in_range(n, s.horizon, j.image_pull, j.checkpoint.get());
  const ConfigNode& gpus = *n.find("gpus");
  if (training) {
    if (training->dataset) resolve_dataset(*training->dataset, n, s);
    if ((eligible_node_types(s.cluster, j.gpus, &j.precision, training) & j.node_type_mask) == 0) {
      const std::string why = memory_fit_hint(s.cluster, *training);
      if (!why.empty()) n.fail(ErrorCode::Infeasible, "the job does not fit in GPU memory on any node type." + why);
      require_feasible(gpus, s.cluster, j.gpus, &j.precision, j.node_type_mask);
    }
    return;
  }
  if (j.comm && !s.network) n.find("comm")->fail(ErrorCode::Conflict, "comm needs a network: section to send its traffic over");
  require_feasible(gpus, s.cluster, j.gpus, j.work_flop ? &j.precision : nullptr, j.node_type_mask);
}

// A plain job (no `gpu` list, checkpoint, model or comm) whose checks all pass, from its
// spec alone: what resolve_job would do to it (its node types: all) is done and true is
// returned. False: resolve_job, on the job's node, decides and reports.
bool resolve_plain_job(JobSpec& j, const Scenario& s) {
  if (!j.gpu_types.empty() || j.checkpoint || j.training || j.comm) return false;
  // require_lifecycle_in_range without a checkpoint, and require_feasible on every node type.
  if ((s.horizon + j.image_pull + sim::SimTime::zero() + sim::SimTime::zero()).is_max()) return false;
  if (eligible_node_types(s.cluster, j.gpus, j.work_flop ? &j.precision : nullptr) == 0) return false;
  j.node_type_mask = ~std::uint64_t{0};
  return true;
}

void resolve_generator(GeneratorSpec& g, const ConfigNode& n, const Scenario& s, const GpuCatalog* catalog) {
  g.node_type_mask = resolve_gpu_types(g.gpu_types, n, s, catalog);
  if (g.checkpoint) resolve_checkpoint(*g.checkpoint, n, s, nullptr);
  require_lifecycle_in_range(n, s.horizon, g.image_pull, g.checkpoint ? &*g.checkpoint : nullptr);
  // Every value the gpus distribution can produce must be placeable.
  const ConfigNode& gpus = *n.find("gpus");
  const Precision* needs = g.work ? &g.precision : nullptr;
  // Counts past any cluster's size are clamped before the conversion to int: they are
  // infeasible either way, and a double beyond int's range has no int value.
  auto as_gpus = [](double v) { return static_cast<int>(std::min(std::round(v), 1e9)); };
  if (g.gpus.kind == Distribution::Kind::Choice) {
    for (double v : g.gpus.values) require_feasible(gpus, s.cluster, as_gpus(v), needs, g.node_type_mask);
  } else {
    require_feasible(gpus, s.cluster, as_gpus(g.gpus.highest()), needs, g.node_type_mask);
  }
}

// The most a team may ever hold under the quotas, in thousandths of a GPU: at each time of
// the week the first window that holds caps it at floor(max x N) (quota_share_gpus, as the
// quotas compute it); where no window holds, nothing caps it (N). `window`: the window of
// that largest cap, -1 where it is uncapped.
struct TeamCeiling {
  std::int64_t milli = -1;
  int window = -1;
};

TeamCeiling team_ceiling(const QuotaSpec& quotas, std::size_t team, std::int64_t total_gpus) {
  TeamCeiling best;
  // Between two changes of any window's calendar, the same window is in force.
  const sim::SimTime week = sim::SimTime::from_ns(sim::WEEK_NS);
  for (sim::SimTime t = sim::SimTime::zero(); t < week;) {
    int in_force = -1;
    sim::SimTime next = sim::SimTime::max();
    for (std::size_t w = 0; w < quotas.windows.size(); ++w) {
      const sim::WeekCalendar& when = quotas.windows[w].when;
      if (in_force < 0 && when.contains(t)) in_force = static_cast<int>(w);
      next = std::min(next, when.next_change(t));
    }
    const std::vector<TeamShareSpec>* shares = in_force < 0 ? nullptr : &quotas.windows[static_cast<std::size_t>(in_force)].teams;
    const std::int64_t cap =
        1000 * (shares == nullptr || team >= shares->size() ? total_gpus : quota_share_gpus((*shares)[team].max, total_gpus));
    if (cap > best.milli) best = TeamCeiling{cap, in_force};
    t = next;
  }
  return best;
}

// Whether a job of team `t` (-1: none) that asks for `need_milli` may ever start under
// `quotas`; `ceilings` caches each team's ceiling.
bool quota_room(const QuotaSpec& quotas, int t, std::int64_t total_gpus, std::int64_t need_milli,
                std::vector<TeamCeiling>& ceilings) {
  if (t < 0) return true;
  TeamCeiling& c = ceilings[static_cast<std::size_t>(t)];
  if (c.milli < 0) c = team_ceiling(quotas, static_cast<std::size_t>(t), total_gpus);
  return need_milli <= c.milli;
}

// A generator's largest job in thousandths of a GPU, as its feasibility is checked (a
// one-GPU job at its largest share).
std::int64_t generator_need_milli(const GeneratorSpec& g) {
  const double gpus = std::min(std::round(g.gpus.highest()), 1e9);
  const double milli = gpus == 1 && g.gpu_milli ? std::clamp(std::round(g.gpu_milli->highest()), 1.0, 1000.0) : 1000;
  return static_cast<std::int64_t>(gpus * milli);
}

// A job of `team` that asks for more than the team may hold at any time of the week would
// wait forever: infeasible, at its `gpus`, as a job no node type can hold is.
void require_quota_room(const ConfigNode& gpus, const Scenario& s, const std::string& team, std::int64_t need_milli,
                        std::vector<TeamCeiling>& ceilings) {
  const int t = s.workload.team_index(team);
  if (t < 0 || !s.scheduler.quotas) return;
  const QuotaSpec& quotas = *s.scheduler.quotas;
  if (quota_room(quotas, t, s.cluster.total_gpus(), need_milli, ceilings)) return;
  const TeamCeiling& c = ceilings[static_cast<std::size_t>(t)];
  const QuotaWindowSpec& w = quotas.windows[static_cast<std::size_t>(c.window)];
  auto number = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string(buf);
  };
  auto gpus_text = [&](std::int64_t milli) { return number(static_cast<double>(milli) / 1000); };
  gpus.fail(ErrorCode::Infeasible,
            "the job needs " + gpus_text(need_milli) + " GPU" + (need_milli == 1000 ? "" : "s") + ", but team '" + team +
                "' may never hold that many: scheduler.quotas caps it at " + gpus_text(c.milli) + " GPU" +
                (c.milli == 1000 ? "" : "s") + " (`max` " + number(w.teams[static_cast<std::size_t>(t)].max * 100) +
                "% of the cluster's " + std::to_string(s.cluster.total_gpus()) + ", rounded down) in window '" + w.name +
                "', its largest cap at any time of the week; the job would never start");
}

}  // namespace

bool quotas_hold_every_job(const Scenario& s, const SchedulerSpec& scheduler) {
  if (!scheduler.quotas) return true;
  const QuotaSpec& quotas = *scheduler.quotas;
  const std::int64_t total_gpus = s.cluster.total_gpus();
  std::vector<TeamCeiling> ceilings(s.workload.teams.size());
  for (const JobSpec& j : s.workload.jobs)
    if (!quota_room(quotas, j.team, total_gpus, std::int64_t{j.gpus} * j.gpu_milli, ceilings)) return false;
  for (const GeneratorSpec& g : s.workload.generators) {
    if (!quota_room(quotas, s.workload.team_index(g.team), total_gpus, generator_need_milli(g), ceilings)) return false;
    for (const std::string& team : g.team_choice)
      if (!quota_room(quotas, s.workload.team_index(team), total_gpus, generator_need_milli(g), ceilings)) return false;
  }
  return true;
}

void resolve_scenario(Scenario& s, const SectionNodes& nodes) {
  for (NodeTypeSpec& t : s.cluster.node_types)
    if (t.spot) t.interruption_rate_per_s = mean_interruption_rate_per_s(t.spot->interruptions);
  // Plain jobs from their specs; only when one is not plain or fails a check are the jobs'
  // nodes walked (a CSV table's rows read again) to resolve each on its node, reporting
  // the first failure in job order, as always.
  bool all_plain = true;
  for (JobSpec& j : s.workload.jobs)
    if (!resolve_plain_job(j, s)) {
      all_plain = false;
      break;
    }
  if (!all_plain)
    nodes.workload.for_each_job_node(
        [&](std::size_t i, const ConfigNode& n) { resolve_job(s.workload.jobs[i], n, s, nodes.gpus); });
  for (std::size_t i = 0; i < s.workload.generators.size(); ++i)
    resolve_generator(s.workload.generators[i], *nodes.workload.generator_nodes[i], s, nodes.gpus);
  for (std::size_t i = 0; i < s.workload.services.size(); ++i) {
    serving::ServiceSpec& sv = s.workload.services[i];
    const ConfigNode& n = *nodes.workload.service_nodes[i];
    sv.node_type_mask = resolve_gpu_types(sv.gpu_types, n, s, nodes.gpus);
    resolve_cold_start(sv, n, s);
    const ConfigNode* replicas = n.find("replicas");
    const ConfigNode& at = replicas && replicas->find("gpus") ? *replicas->find("gpus") : n;
    require_feasible(at, s.cluster, sv.replicas.gpus, nullptr, sv.node_type_mask);
    // A replica runs on one node: only the node types with that many GPUs on a node.
    std::uint64_t one_node = 0;
    for (std::size_t t = 0; t < s.cluster.node_types.size() && t < 64; ++t)
      if (s.cluster.node_types[t].gpus >= sv.replicas.gpus) one_node |= std::uint64_t{1} << t;
    if ((one_node & sv.node_type_mask) == 0)
      at.fail(ErrorCode::Infeasible, "a replica of " + std::to_string(sv.replicas.gpus) +
                                         " GPUs runs on one node, and no node type it may use has that many GPUs on a node");
    sv.node_type_mask &= one_node;
  }
  // The nodes are walked only when some job fails the quotas, for the first one's error.
  if (s.scheduler.quotas && !quotas_hold_every_job(s, s.scheduler)) {
    std::vector<TeamCeiling> ceilings(s.workload.teams.size());
    nodes.workload.for_each_job_node([&](std::size_t i, const ConfigNode& n) {
      const JobSpec& j = s.workload.jobs[i];
      require_quota_room(*n.find("gpus"), s, std::string(s.workload.team_name(j.team)), std::int64_t{j.gpus} * j.gpu_milli,
                         ceilings);
    });
    for (std::size_t i = 0; i < s.workload.generators.size(); ++i) {
      const GeneratorSpec& g = s.workload.generators[i];
      require_quota_room(*nodes.workload.generator_nodes[i]->find("gpus"), s, g.team, generator_need_milli(g), ceilings);
      for (const std::string& team : g.team_choice)
        require_quota_room(*nodes.workload.generator_nodes[i]->find("gpus"), s, team, generator_need_milli(g), ceilings);
    }
  }
  for (std::size_t i = 0; i < s.budgets.size(); ++i) {
    const std::string& team = s.budgets[i].team;
    if (s.workload.team_index(team) >= 0) continue;
    const std::string hint = did_you_mean(team, s.workload.teams);
    nodes.budgets->at(i).find("team")->fail(ErrorCode::UnknownName, "no job names team '" + team + "'" +
                                                                        (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
  }
  if (s.output.flows && !s.network)
    nodes.output->find("flows")->fail(ErrorCode::Conflict, "flows: true needs a network: section");
}

}  // namespace gcsim::models
