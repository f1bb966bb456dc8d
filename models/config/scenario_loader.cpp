// Scenario file -> validated Scenario (see scenario_loader.hpp), in two phases. First each
// section is read on its own by its reader (catalogs_reader, cluster_reader,
// workload_reader, budget_reader, output_reader; network and storage by their spec
// parsers), every map against its key table, so unknown keys, wrong types, bad units and
// out-of-range values are refused with file:line:column and the key path. Then the resolve
// step (scenario_resolve.hpp) checks the references between sections and computes what
// needs more than one of them, before anything runs.
#include "models/config/scenario_loader.hpp"

#include <filesystem>
#include <limits>
#include <set>

#include "models/config/budget_reader.hpp"
#include "models/config/cluster_reader.hpp"
#include "models/config/output_reader.hpp"
#include "models/config/reader_common.hpp"
#include "models/config/scenario_keys.hpp"
#include "models/config/scenario_resolve.hpp"
#include "models/config/scheduler_reader.hpp"
#include "models/config/workload_reader.hpp"
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

}  // namespace

Catalogs load_bundled_catalogs(const LoadOptions& options) {
  namespace fs = std::filesystem;
  config::SourceResolver sources;
  auto yaml = [&](const std::string& name) {
    const std::string path = (fs::path(options.catalog_dir) / name).string();
    return config::load_yaml_string(sources.read_bundled(path, "catalog file"), path);
  };
  Catalogs c;
  c.gpus.add_from(yaml("gpus.yaml").root);
  c.models.add_from(yaml("models.yaml").root);
  c.instances = load_instance_catalog_dir(bundled_instance_dir(options.catalog_dir), &c.gpus, &sources);
  const std::string advisor = (fs::path(options.catalog_dir) / "aws_spot_advisor_gpu.csv").string();
  c.spot_advisor = SpotAdvisor::parse(advisor, sources.read_bundled(advisor, "spot advisor"));
  c.sources = sources.records();
  return c;
}

GpuCatalog load_bundled_gpu_catalog(const LoadOptions& options) {
  GpuCatalog catalog;
  catalog.add_from(config::load_yaml_file((std::filesystem::path(options.catalog_dir) / "gpus.yaml").string()).root);
  return catalog;
}

Scenario load_scenario_file(const std::string& path, const LoadOptions& options) {
  config::ConfigDocument doc = config::load_yaml_file(path);
  return load_scenario(std::move(doc), load_bundled_catalogs(options), options.schedulers);
}

Scenario load_scenario(config::ConfigDocument document, const Catalogs& bundled, const SchedulerRegistry& schedulers) {
  const ConfigNode& root = document.root;
  if (!root.is_map()) root.fail(ErrorCode::WrongType, "a scenario is a map of keys (name, horizon, cluster, workload...)");
  MapReader r(root, TOP_LEVEL_KEYS);
  Scenario s;
  s.source_file = document.file;
  s.name = read_name(r.required("name"));
  if (const ConfigNode* seed = r.optional("seed"))
    s.seed = static_cast<std::uint64_t>(config::read_int(*seed, 0, std::numeric_limits<std::int64_t>::max()));
  s.horizon = config::read_duration(r.required("horizon"), sim::SimTime::from_ns(1));
  if (const ConfigNode* until = r.optional("run_until"))
    s.run_until = config::read_enum(*until, {"done", "horizon"}) == "done" ? RunUntil::Done : RunUntil::Horizon;

  // Phase 1: each section on its own (the catalogs first: the others name their entries).
  // Every file read goes through `sources`, relative to the file naming it.
  config::SourceResolver sources;
  sources.add_records(bundled.sources);
  const Catalogs catalogs = read_catalogs(r.optional("catalogs"), bundled, sources);
  s.cluster = read_cluster(r.required("cluster"), catalogs, sources);
  if (const ConfigNode* net = r.optional("network")) s.network = topology::parse_network_spec(*net);
  if (const ConfigNode* storage = r.optional("storage")) s.storage = parse_storage(*storage);

  s.scheduler = read_scheduler(r.optional("scheduler"), schedulers);

  WorkloadSection workload = read_workload(r.required("workload"), catalogs.models, sources);
  s.workload = std::move(workload.spec);
  const ConfigNode* budgets = r.optional("budgets");
  if (budgets) s.budgets = read_budgets(*budgets);
  const ConfigNode* output = r.optional("output");
  s.output = read_output(output, s.name);

  // Phase 2: references between sections and the figures derived from several of them.
  resolve_scenario(s, SectionNodes{workload, budgets, output});

  s.gpu_catalog_yaml = used_gpus_yaml(s.cluster);
  s.source_text = std::move(document.text);
  s.inputs = sources.records();
  return s;
}

}  // namespace gcsim::models
