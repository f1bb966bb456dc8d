// Scenario file -> validated Scenario. The only models/ code that reads files: the scenario
// itself and the catalogs it names. Everything it returns is typed and checked; model
// constructors take these specs, never paths or YAML nodes.
#pragma once

#include <string>
#include <vector>

#include "models/config/catalogs_reader.hpp"
#include "models/config/overrides.hpp"
#include "models/config/scenario.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/source_resolver.hpp"

namespace gcsim::models {

class SchedulerRegistry;

// The bundled catalog folder (scenarios/catalog) used when a scenario names none, and the
// registry a scenario's `scheduler:` names are resolved against (the front end passes
// builtins().schedulers; a test may pass its own).
struct LoadOptions {
  std::string catalog_dir;  // where gpus.yaml (and later catalogs) are found
  const SchedulerRegistry& schedulers;
  // Keys set by their path (`--set`, a sweep's point: models/config/overrides.hpp),
  // applied in order to a scenario file's tree before it is read.
  std::vector<Override> overrides = {};
};

// Loads the bundled GPU catalog (gpus.yaml) or all bundled catalogs from options.catalog_dir.
GpuCatalog load_bundled_gpu_catalog(const LoadOptions& options);
Catalogs load_bundled_catalogs(const LoadOptions& options);

// Reads, parses and validates a scenario, options.overrides applied to its tree first.
// Throws ConfigError (file:line:col, key path).
Scenario load_scenario_file(const std::string& path, const LoadOptions& options);
// Loads a scenario from its text against recorded files only (a rerun from a trace): `file`
// is the scenario's path as first loaded (relative paths resolve from it, as then), and
// `sources` (SourceResolver::from_records) serves every file, the bundled catalogs
// included: they are the records with an empty key, found under the folder of the
// recorded gpus.yaml. A file not recorded is FileNotFound, never read from disk.
Scenario load_recorded_scenario(std::string text, std::string file, config::SourceResolver sources,
                                const SchedulerRegistry& schedulers);
// Validates an already parsed document against a given catalog and scheduler registry (the
// fuzzer's entry point; reads no files unless the document names extra catalog files).
Scenario load_scenario(config::ConfigDocument document, const Catalogs& bundled, const SchedulerRegistry& schedulers);

// The `scheduler:` section of `variant` over `base`, for a policy run as a run option over
// a shared scenario (gcsim compare): `base` is load_scenario(document, bundled,
// schedulers) and `variant` that document with another scheduler section
// (scheduler_variant.hpp, with_scheduler_section). The section is read and checked as
// load_scenario(variant) would read and check it (its keys, the teams it names, the
// quotas every job must fit), without reading the other sections again: they are the
// base's, already checked. Where a check fails, the variant is loaded whole, so the
// ConfigError is the one load_scenario(variant) throws, with its file, line and column.
SchedulerSpec load_scheduler_section(const Scenario& base, const config::ConfigDocument& variant, const Catalogs& bundled,
                                     const SchedulerRegistry& schedulers);

}  // namespace gcsim::models
