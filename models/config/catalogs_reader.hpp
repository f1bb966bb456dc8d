// The `catalogs:` section: extra GPU, model and instance catalog files that add to the
// bundled ones before any other section is read (a node type names a GPU or an instance
// from them, a job a model).
#pragma once

#include <string>

#include "models/gpu/gpu_catalog.hpp"
#include "models/pricing/instance_catalog.hpp"
#include "models/spot/spot_spec.hpp"
#include "models/workload/model_catalog.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"
#include "sim/config/source_resolver.hpp"

namespace gcsim::models {

// The bundled catalogs a scenario resolves names against; scenarios may add files.
struct Catalogs {
  GpuCatalog gpus;
  ModelCatalog models;
  InstanceCatalog instances;
  SpotAdvisor spot_advisor;
  std::vector<config::SourceRecord> sources;  // the files they were read from (bundled ones)
};

inline constexpr config::KeySpec CATALOGS_KEYS[] = {
    {"gpus", "file name or list of file names", "none", false, "", "GPU catalog files, added to the bundled gpus.yaml"},
    {"models", "file name or list of file names", "none", false, "", "model and dataset catalog files, added to models.yaml"},
    {"instances", "file name or list of file names", "none", false, "", "instance catalog CSV files, added to instances/*.csv; a row replaces the bundled rows of its provider, type, region and zone"},
};

// `bundled` plus the files `catalogs:` names (node may be null: no extra files), read
// through `sources`.
Catalogs read_catalogs(const config::ConfigNode* node, const Catalogs& bundled, config::SourceResolver& sources);

}  // namespace gcsim::models
