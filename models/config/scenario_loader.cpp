// Scenario file -> validated Scenario (see scenario_loader.hpp), in two phases. First each
// section is read on its own by its reader (catalogs_reader, cluster_reader,
// workload_reader, budget_reader, output_reader; network and storage by their spec
// parsers), every map against its key table, so unknown keys, wrong types, bad units and
// out-of-range values are refused with file:line:column and the key path. Then the resolve
// step (scenario_resolve.hpp) checks the references between sections and computes what
// needs more than one of them, before anything runs.
#include "models/config/scenario_loader.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "models/config/alerts_reader.hpp"
#include "models/config/budget_reader.hpp"
#include "models/config/cluster_reader.hpp"
#include "models/config/output_reader.hpp"
#include "models/config/reader_common.hpp"
#include "models/config/scenario_keys.hpp"
#include "models/config/scenario_resolve.hpp"
#include "models/config/scheduler_reader.hpp"
#include "models/config/workload_reader.hpp"
#include "sim/check.hpp"
#include "sim/config/reader.hpp"

namespace gcsim::models {

using config::ConfigNode;
using config::MapReader;

namespace {

// The GPU entries a scenario uses, once each in node-type order, for the trace's provenance.
std::string used_gpus_yaml(const ClusterSpec& c) {
  std::vector<const GpuSpec*> gpus;
  std::set<std::string> seen;
  for (const auto& t : c.node_types)
    if (seen.insert(t.gpu.name).second) gpus.push_back(&t.gpu);
  return to_catalog_yaml(gpus);
}

// The bundled catalogs in `catalog_dir`, read through `sources`; `instances` reads the
// instance CSVs (from the folder, or from the recorded ones).
template <class ReadInstances>
Catalogs read_bundled_catalogs(const std::string& catalog_dir, config::SourceResolver& sources,
                               ReadInstances instances) {
  namespace fs = std::filesystem;
  auto yaml = [&](const std::string& name) {
    const std::string path = (fs::path(catalog_dir) / name).string();
    return config::load_yaml_string(sources.read_bundled(path, "catalog file"), path);
  };
  Catalogs c;
  c.gpus.add_from(yaml("gpus.yaml").root);
  c.models.add_from(yaml("models.yaml").root, &c.gpus);
  c.instances = instances(&c.gpus);
  const std::string advisor = (fs::path(catalog_dir) / "aws_spot_advisor_gpu.csv").string();
  c.spot_advisor = SpotAdvisor::parse(advisor, sources.read_bundled(advisor, "spot advisor"));
  c.sources = sources.records();
  return c;
}

// The bundled catalogs a recorded run read: its folder is that of the recorded gpus.yaml,
// its instance CSVs the bundled records in that folder's instances/, in recorded order
// (the name order they were first read in).
Catalogs recorded_bundled_catalogs(config::SourceResolver& sources) {
  namespace fs = std::filesystem;
  std::string catalog_dir;
  for (const config::SourceRecord& r : sources.recorded())
    if (r.key.empty() && fs::path(r.resolved).filename() == "gpus.yaml") catalog_dir = fs::path(r.resolved).parent_path().string();
  if (catalog_dir.empty()) throw Error("the recorded inputs hold no bundled gpus.yaml");
  const fs::path instance_dir = fs::path(bundled_instance_dir(catalog_dir)).lexically_normal();
  return read_bundled_catalogs(catalog_dir, sources, [&](const GpuCatalog* gpus) {
    InstanceCatalog catalog;
    // Traces written before every catalog price carried its date recorded undated rows.
    catalog.accept_undated_rows();
    for (const config::SourceRecord& r : sources.recorded()) {
      if (!r.key.empty() || fs::path(r.resolved).parent_path().lexically_normal() != instance_dir) continue;
      std::istringstream in(sources.read_bundled(r.resolved, "instance catalog"));
      catalog.load(in, r.resolved, gpus);
    }
    return catalog;
  });
}

// `workload.trace.mode: as-recorded` (docs/traces.md, "Modes"): the run's policy is
// `recorded`, whatever `scheduler:` says (it is still read, so a typo there is an error);
// recorded machines name nodes only of the cluster the trace's machine list makes.
void replay_as_recorded(Scenario& s, bool own_cluster, bool has_scheduler, const SchedulerRegistry& schedulers,
                        const ConfigNode& trace, const std::vector<std::pair<std::string, int>>& machine_types) {
  if (schedulers.find_policy("recorded") == nullptr)
    trace.fail(ErrorCode::Infeasible, "mode: as-recorded needs the policy `recorded`, which this registry does not hold");
  std::string note = "trace note: mode as-recorded: every job starts at its recorded start under the policy `recorded`";
  if (has_scheduler && s.scheduler.policy != "recorded")
    note += "; the scenario's scheduler (policy " + s.scheduler.policy + ") is not used";
  s.import_report.push_back(note);
  s.scheduler = SchedulerSpec{};
  s.scheduler.policy = "recorded";
  if (!own_cluster) return;
  // The scenario's own cluster: a recorded machine, the k-th of its kind in the machine
  // list, is the k-th node of the scenario's node type of the name that kind's type has
  // in the cluster the machine list makes (as `gcsim trace fit` writes it out), when the
  // scenario has such a type with more than k nodes; else it is placed by best-fit.
  std::vector<std::int32_t> kind_first;  // the machine list's kinds: the first node of each
  std::int32_t n = 0;
  for (const auto& [name, count] : machine_types) {
    kind_first.push_back(n);
    n += count;
  }
  std::map<std::string, std::pair<std::int32_t, int>, std::less<>> scenario_types;  // name -> first node, count
  std::int32_t first = 0;
  for (const NodeTypeSpec& t : s.cluster.node_types) {
    scenario_types.emplace(t.name, std::pair{first, t.count});
    first += t.slots();  // a type's nodes are contiguous, its slots beyond count included
  }
  // A node of the list's cluster as the scenario's: -1 for no type of its kind's name, -2
  // past the type's count.
  const auto remap = [&](std::int32_t node) -> std::int32_t {
    const auto kind = static_cast<std::size_t>(std::upper_bound(kind_first.begin(), kind_first.end(), node) -
                                               kind_first.begin()) - 1;
    const std::int32_t k = node - kind_first[kind];
    const auto type = scenario_types.find(machine_types[kind].first);
    if (type == scenario_types.end()) return -1;
    if (k >= type->second.second) return -2;
    return type->second.first + k;
  };
  std::size_t kept = 0, no_type = 0, past_count = 0;
  for (RecordedRun& r : s.workload.recorded) {
    if (r.node == -1) continue;
    // A run over several machines keeps them only if it keeps every one.
    std::int32_t lost = 0;
    if (is_recorded_node_set(r.node)) {
      const std::size_t at = recorded_node_set_offset(r.node);
      for (std::int32_t i = 1; i <= s.workload.recorded_node_sets[at] && lost == 0; ++i) {
        const std::int32_t node = remap(s.workload.recorded_node_sets[at + static_cast<std::size_t>(i)]);
        if (node < 0) lost = node;
        else s.workload.recorded_node_sets[at + static_cast<std::size_t>(i)] = node;
      }
    } else {
      const std::int32_t node = remap(r.node);
      if (node < 0) lost = node;
      else r.node = node;
    }
    if (lost == 0) ++kept;
    no_type += lost == -1;
    past_count += lost == -2;
    if (lost != 0) r.node = -1;
  }
  if (kept > 0)
    s.import_report.push_back("trace note " + std::to_string(kept) +
                              ": recorded machine kept on the scenario's cluster (its kind's node type by name, the "
                              "machine's place among its kind)");
  if (no_type > 0)
    s.import_report.push_back("trace note " + std::to_string(no_type) +
                              ": recorded machine not used (the scenario's cluster has no node type named as its "
                              "kind's, as `gcsim trace fit` writes them): placed by best-fit");
  if (past_count > 0)
    s.import_report.push_back("trace note " + std::to_string(past_count) +
                              ": recorded machine not used (past its node type's count in the scenario's cluster): "
                              "placed by best-fit");
}

Scenario load_with(config::ConfigDocument document, const Catalogs& bundled, const SchedulerRegistry& schedulers,
                   config::SourceResolver& sources);

}  // namespace

Catalogs load_bundled_catalogs(const LoadOptions& options) {
  config::SourceResolver sources;
  return read_bundled_catalogs(options.catalog_dir, sources, [&](const GpuCatalog* gpus) {
    return load_instance_catalog_dir(bundled_instance_dir(options.catalog_dir), gpus, &sources);
  });
}

GpuCatalog load_bundled_gpu_catalog(const LoadOptions& options) {
  GpuCatalog catalog;
  catalog.add_from(config::load_yaml_file((std::filesystem::path(options.catalog_dir) / "gpus.yaml").string()).root);
  return catalog;
}

Scenario load_scenario_file(const std::string& path, const LoadOptions& options) {
  config::ConfigDocument doc = with_overrides(config::load_yaml_file(path), options.overrides);
  return load_scenario(std::move(doc), load_bundled_catalogs(options), options.schedulers);
}

Scenario load_recorded_scenario(std::string text, std::string file, config::SourceResolver sources,
                                const SchedulerRegistry& schedulers) {
  const Catalogs bundled = recorded_bundled_catalogs(sources);
  return load_with(config::load_yaml_string(std::move(text), std::move(file)), bundled, schedulers, sources);
}

Scenario load_scenario(config::ConfigDocument document, const Catalogs& bundled, const SchedulerRegistry& schedulers) {
  config::SourceResolver sources;
  sources.add_records(bundled.sources);
  return load_with(std::move(document), bundled, schedulers, sources);
}

SchedulerSpec load_scheduler_section(const Scenario& base, const config::ConfigDocument& variant, const Catalogs& bundled,
                                     const SchedulerRegistry& schedulers) {
  // The whole load's error, for a section that fails a check here: what that load reads
  // before the scheduler section passed for the base, so its first error is this
  // section's own, or one of the quotas (resolve_scenario's one check of the section).
  const auto load_whole = [&] {
    (void)load_scenario(variant, bundled, schedulers);
  };
  // As MapReader::optional finds it: a null value is no section.
  const ConfigNode* section = variant.root.is_map() ? variant.root.find("scheduler") : nullptr;
  if (section != nullptr && section->is_null()) section = nullptr;
  std::optional<SchedulerSpec> spec;
  try {
    spec = read_scheduler(section, schedulers, base.horizon,
                          PolicyContext{.teams = base.workload.teams, .knows_teams = true});
  } catch (const ConfigError&) {
    load_whole();
    throw;  // the whole load passed where the section alone did not: this section's error stands
  }
  if (!quotas_hold_every_job(base, *spec)) {
    load_whole();
    GCSIM_CHECK(false, "a job fails the quotas of a scheduler section, yet the scenario with that section loads");
  }
  return std::move(*spec);
}

namespace {

Scenario load_with(config::ConfigDocument document, const Catalogs& bundled, const SchedulerRegistry& schedulers,
                   config::SourceResolver& sources) {
  const ConfigNode& root = document.root;
  if (!root.is_map()) root.fail(ErrorCode::WrongType, "a scenario is a map of keys (name, horizon, cluster, workload...)");
  MapReader r(root, TOP_LEVEL_KEYS);
  Scenario s;
  s.source_file = document.file;
  const ConfigNode& name_node = r.required("name");
  s.name = read_name(name_node);
  s.seed = static_cast<std::uint64_t>(r.value<std::int64_t>("seed"));
  s.horizon = r.value<sim::SimTime>("horizon");
  const ConfigNode& horizon = *r.where("horizon");
  // The largest time stands for "never" (an event there is never run, and every time sum
  // saturates to it): a horizon there would be no end, and every job's lifecycle past it
  // (docs/units.md, "Limits: time and numbers").
  if (s.horizon.is_max())
    horizon.fail(ErrorCode::OutOfRange, "'" + horizon.scalar() + "' is out of range: must be below " +
                                            std::to_string(sim::SimTime::max().ns()) +
                                            "ns (about 292 years), the largest time, which stands for never");
  if (const ConfigNode* until = r.optional("run_until"))
    s.run_until = config::read_enum(*until, {"done", "horizon"}) == "done" ? RunUntil::Done : RunUntil::Horizon;

  // Phase 1: each section on its own (the catalogs first: the others name their entries).
  // Every file read goes through `sources`, relative to the file naming it.
  const Catalogs catalogs = read_catalogs(r.optional("catalogs"), bundled, sources);
  // Without `cluster`, a trace's machine list is the cluster (docs/traces.md): read after
  // the workload that names it. Without either, `cluster` is missing, as always.
  const ConfigNode* cluster = r.optional("cluster");
  const ConfigNode* workload_node = root.find("workload");
  if (cluster == nullptr && (workload_node == nullptr || !workload_node->is_map() || workload_node->find("trace") == nullptr))
    cluster = &r.required("cluster");
  if (cluster) s.cluster = read_cluster(*cluster, catalogs, sources);
  if (const ConfigNode* net = r.optional("network")) s.network = topology::parse_network_spec(*net, &sources);
  if (const ConfigNode* storage = r.optional("storage")) s.storage = parse_storage(*storage);

  WorkloadSection workload = read_workload(r.required("workload"), catalogs.models, sources);
  if (cluster == nullptr) {
    if (!workload.trace_cluster)
      workload_node->find("trace")->fail(ErrorCode::MissingKey,
                                         "the scenario has no cluster, and this trace gives no machine list (`nodes:` for "
                                         "alibaba-pai-2023): add a cluster section");
    s.cluster = read_cluster(*workload.trace_cluster, catalogs, sources);
  }
  s.import_report = workload.import_report;
  if (cluster == nullptr) {
    // The node types the machine list made, by their place: what `--set cluster.node_types[i]...`
    // names (overrides.cpp writes this cluster in for it).
    constexpr std::size_t SHOWN = 8;
    std::string types;
    for (std::size_t i = 0; i < s.cluster.node_types.size() && i < SHOWN; ++i) {
      const NodeTypeSpec& t = s.cluster.node_types[i];
      types += (i == 0 ? " [" : ", [") + std::to_string(i) + "] " + t.name + ": " + std::to_string(t.count) + " x " +
               std::to_string(t.gpus) + " " + t.gpu.name;
    }
    if (s.cluster.node_types.size() > SHOWN)
      types += ", and " + std::to_string(s.cluster.node_types.size() - SHOWN) + " more";
    s.import_report.push_back("trace cluster (no cluster section: the machine list's; --set cluster.node_types[i].KEY "
                              "edits it):" + types);
  }
  s.workload = std::move(workload.spec);
  // After the workload: a policy's keys may name its teams (fair-share's weights).
  s.scheduler = read_scheduler(r.optional("scheduler"), schedulers, s.horizon,
                               PolicyContext{.teams = s.workload.teams, .knows_teams = true});
  if (workload.as_recorded)
    replay_as_recorded(s, cluster != nullptr, root.find("scheduler") != nullptr, schedulers, *workload_node->find("trace"),
                       workload.trace_node_types);
  const ConfigNode* budgets = r.optional("budgets");
  if (budgets) s.budgets = read_budgets(*budgets);
  const ConfigNode* output = r.optional("output");
  s.output = read_output(output, name_node, s.name);
  if (const ConfigNode* alerts = r.optional("alerts")) {
    s.alert_rules_yaml = read_alerts(*alerts, sources);
    if (s.output.metrics_every <= sim::SimTime::zero())
      alerts->fail(ErrorCode::Conflict, "alerts are evaluated over the run's simulated GPU metrics: add "
                                        "output: {metrics: {every: 15s}}");
  }

  // Phase 2: references between sections and the figures derived from several of them.
  resolve_scenario(s, SectionNodes{workload, budgets, output, &catalogs.gpus});

  s.gpu_catalog_yaml = used_gpus_yaml(s.cluster);
  s.catalog_overrides = catalogs.instances.overrides();
  s.source_text = std::move(document.text);
  s.inputs = sources.records();
  return s;
}

}  // namespace

}  // namespace gcsim::models
