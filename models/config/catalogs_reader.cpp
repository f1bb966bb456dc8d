// The `catalogs:` section reader (see catalogs_reader.hpp).
#include "models/config/catalogs_reader.hpp"

#include <filesystem>
#include <vector>

#include "sim/config/reader.hpp"

namespace gcsim::models {

using config::ConfigNode;
using config::MapReader;

namespace {

// The catalog documents named by one `catalogs.<kind>` key (a file or a list of files),
// read relative to the scenario file.
std::vector<config::ConfigDocument> read_catalog_files(const ConfigNode& list, const std::string& scenario_file) {
  std::vector<const ConfigNode*> files;
  if (list.is_scalar()) {
    files.push_back(&list);
  } else if (list.is_sequence()) {
    for (const auto& f : list.items()) files.push_back(&f);
  } else {
    list.fail(ErrorCode::WrongType, "expected a file name or a list of file names");
  }
  const auto base = std::filesystem::path(scenario_file).parent_path();
  std::vector<config::ConfigDocument> docs;
  for (const ConfigNode* f : files) {
    const std::string path = (base / config::read_string(*f)).string();
    if (!std::filesystem::is_regular_file(path)) f->fail(ErrorCode::FileNotFound, "catalog file '" + path + "' does not exist");
    docs.push_back(config::load_yaml_file(path));
  }
  return docs;
}

}  // namespace

// Bundled catalogs plus the files named by `catalogs.gpus` and `catalogs.models`.
Catalogs read_catalogs(const ConfigNode* node, const Catalogs& bundled, const std::string& scenario_file) {
  Catalogs c = bundled;
  if (!node) return c;
  MapReader r(*node, CATALOGS_KEYS);
  if (const ConfigNode* list = r.optional("gpus"))
    for (const auto& doc : read_catalog_files(*list, scenario_file)) c.gpus.add_from(doc.root);
  if (const ConfigNode* list = r.optional("models"))
    for (const auto& doc : read_catalog_files(*list, scenario_file)) c.models.add_from(doc.root);
  if (const ConfigNode* list = r.optional("instances")) {
    // CSV files in the catalog format (docs/pricing.md), relative to the scenario file.
    const auto base = std::filesystem::path(scenario_file).parent_path();
    std::vector<const ConfigNode*> files;
    if (list->is_sequence()) for (const auto& f : list->items()) files.push_back(&f);
    else files.push_back(list);
    for (const ConfigNode* f : files) {
      const std::string path = (base / config::read_string(*f)).string();
      if (!std::filesystem::is_regular_file(path)) f->fail(ErrorCode::FileNotFound, "catalog file '" + path + "' does not exist");
      c.instances.load(path, &c.gpus);
    }
  }
  return c;
}

}  // namespace gcsim::models
