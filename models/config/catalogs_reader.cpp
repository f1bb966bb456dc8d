// The `catalogs:` section reader (see catalogs_reader.hpp).
#include "models/config/catalogs_reader.hpp"

#include <sstream>
#include <vector>

#include "sim/config/reader.hpp"

namespace gcsim::models {

using config::ConfigNode;
using config::MapReader;

namespace {

// The file nodes of one `catalogs.<kind>` key: a file name or a list of file names.
std::vector<const ConfigNode*> file_nodes(const ConfigNode& list) {
  std::vector<const ConfigNode*> files;
  if (list.is_scalar()) {
    files.push_back(&list);
  } else if (list.is_sequence()) {
    for (const auto& f : list.items()) files.push_back(&f);
  } else {
    list.fail(ErrorCode::WrongType, "expected a file name or a list of file names");
  }
  return files;
}

// One catalog document, read through `sources`; its marks name the resolved path. The
// file may be any file a link points to: no message quotes its text (docs/units.md).
config::ConfigDocument read_catalog_file(const ConfigNode& f, config::SourceResolver& sources) {
  const std::string& text = sources.read(f, "catalog file");
  config::ConfigDocument doc;
  try {
    doc = config::load_yaml_string(text, config::SourceResolver::resolve(f.mark().file, f.scalar()));
  } catch (const ConfigError& e) {  // a syntax error: what the parser quoted is the file's
    throw ConfigError(e.code(), e.mark(), "", hide_text(e.detail(), text));
  }
  doc.root.hide_text_in_messages();
  return doc;
}

}  // namespace

// Bundled catalogs plus the files named by `catalogs.gpus`, `catalogs.models` and
// `catalogs.instances` (CSV files in the catalog format, docs/pricing.md; their rows replace
// bundled rows of the same provider, type, region and zone).
Catalogs read_catalogs(const ConfigNode* node, const Catalogs& bundled, config::SourceResolver& sources) {
  Catalogs c = bundled;
  if (!node) return c;
  MapReader r(*node, CATALOGS_KEYS);
  if (const ConfigNode* list = r.optional("gpus"))
    for (const ConfigNode* f : file_nodes(*list)) c.gpus.add_from(read_catalog_file(*f, sources).root);
  if (const ConfigNode* list = r.optional("models"))
    for (const ConfigNode* f : file_nodes(*list)) c.models.add_from(read_catalog_file(*f, sources).root, &c.gpus);
  if (const ConfigNode* list = r.optional("instances")) {
    for (const ConfigNode* f : file_nodes(*list)) {
      std::istringstream in(sources.read(*f, "catalog file"));
      // The user's rows take precedence over bundled rows of the same name (docs/pricing.md).
      c.instances.load(in, config::SourceResolver::resolve(f->mark().file, f->scalar()), &c.gpus,
                       CatalogPrecedence::Override);
    }
  }
  return c;
}

}  // namespace gcsim::models
