// The GPU catalog: canonical names and aliases -> GpuSpec. The bundled catalog lives in
// scenarios/catalog/gpus.yaml; users add their own files (scenario key `catalogs.gpus`),
// whose entries may add new GPUs or override bundled ones by name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/gpu/gpu_spec.hpp"
#include "sim/config/config_node.hpp"

namespace gcsim::models {

class GpuCatalog {
 public:
  // Parses a catalog document (`gpus: [...]`, format in docs/gpu-catalog.md); strict
  // (unknown keys, bad units -> ConfigError). Entries whose name equals an existing entry's
  // name replace it whole, aliases included; a name or alias that names a different GPU
  // (already in the catalog or earlier in the same file) is a Duplicate error. The file is
  // checked whole first: on any error the catalog is unchanged.
  void add_from(const config::ConfigNode& root);
  // The same rules for a spec built in code; throws std::invalid_argument on a clash.
  void add(GpuSpec spec);

  // Resolves canonical names and aliases; nullptr when unknown.
  const GpuSpec* find(std::string_view name) const;
  // Canonical names and aliases, for did-you-mean and listings.
  std::vector<std::string> all_names() const;
  const std::vector<GpuSpec>& entries() const { return entries_; }

 private:
  std::vector<GpuSpec> entries_;
};

// The given GPUs as a catalog document in the format add_from reads (docs/gpu-catalog.md),
// numbers to full precision: the entries a scenario used, embedded in its trace.
std::string to_catalog_yaml(const std::vector<const GpuSpec*>& gpus);

}  // namespace gcsim::models
