// Reading GPU catalog files (format: docs/gpu-catalog.md) and resolving names. A file is
// checked whole before it changes the catalog, so a bad user file leaves the bundled
// entries untouched.
#include "models/gpu/gpu_catalog.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "sim/config/names.hpp"
#include "sim/config/reader.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {
namespace {

using config::ConfigNode;
using config::MapReader;

const std::vector<std::string>& pcie_generations() {
  static const std::vector<std::string> names{"gen3", "gen4", "gen5"};
  return names;
}

bool names_gpu(const GpuSpec& spec, std::string_view name) {
  return spec.name == name || std::find(spec.aliases.begin(), spec.aliases.end(), name) != spec.aliases.end();
}

// A plain 0 means "not supported" whatever the unit reader thinks of bare numbers, so that
// `tf32: 0` reads as the catalog format documents.
bool is_zero_literal(const ConfigNode& n) { return n.is_scalar() && !n.quoted() && n.scalar() == "0"; }

// Dense peak rate of an optional precision: absent, empty or 0 = unsupported.
double read_optional_rate(MapReader& reader, std::string_view key) {
  const ConfigNode* n = reader.optional(key);
  if (n == nullptr || is_zero_literal(*n)) return 0;
  return config::read_flop_per_s(*n);
}

double read_positive_rate(const ConfigNode& n) {
  const double v = config::read_flop_per_s(n);
  if (!(v > 0)) n.fail(ErrorCode::OutOfRange, "must be greater than zero");
  return v;
}

struct ParsedEntry {
  GpuSpec spec;
  const ConfigNode* name_node = nullptr;
  std::vector<const ConfigNode*> alias_nodes;  // parallel to spec.aliases
};

ParsedEntry parse_entry(const ConfigNode& node) {
  MapReader reader(node);
  ParsedEntry entry;
  GpuSpec& s = entry.spec;

  const ConfigNode& name = reader.required("name");
  s.name = config::read_string(name);
  config::check_name_length(name, s.name);
  entry.name_node = &name;
  if (const ConfigNode* aliases = reader.optional("aliases")) {
    for (const ConfigNode& item : aliases->items()) {
      s.aliases.push_back(config::read_string(item));
      entry.alias_nodes.push_back(&item);
    }
  }
  if (const ConfigNode* vendor = reader.optional("vendor")) s.vendor = config::read_string(*vendor);
  s.arch = config::read_string(reader.required("arch"));
  s.form_factor = config::read_string(reader.required("form_factor"));

  s.fp32_flop_per_s = read_positive_rate(reader.required("fp32"));
  s.tf32_flop_per_s = read_optional_rate(reader, "tf32");
  s.fp16_flop_per_s = read_optional_rate(reader, "fp16");
  s.bf16_flop_per_s = read_optional_rate(reader, "bf16");
  s.fp8_flop_per_s = read_optional_rate(reader, "fp8");

  s.memory_bytes = config::read_bytes(reader.required("memory"));
  s.memory_bytes_per_s = config::read_bytes_per_s(reader.required("memory_bandwidth"));
  if (const ConfigNode* nvlink = reader.optional("nvlink"); nvlink != nullptr && !is_zero_literal(*nvlink)) {
    s.nvlink_bytes_per_s = config::read_bytes_per_s(*nvlink);
  }
  const std::string pcie = config::read_enum(reader.required("pcie"), pcie_generations());
  s.pcie_gen = pcie.back() - '0';

  const ConfigNode& tdp = reader.required("tdp");
  s.tdp_w = config::read_watts(tdp);
  if (!(s.tdp_w > 0)) tdp.fail(ErrorCode::OutOfRange, "must be greater than zero");

  s.sources = config::read_string(reader.required("sources"));
  if (const ConfigNode* notes = reader.optional("notes")) s.notes = config::read_string(*notes);

  reader.finish();
  return entry;
}

// Every name and alias in one file must be unique: the file's author meant one GPU by each.
void check_unique_in_file(const std::vector<ParsedEntry>& parsed) {
  std::map<std::string, std::string, std::less<>> owner;  // name or alias -> canonical name
  for (const ParsedEntry& e : parsed) {
    const std::string& name = e.spec.name;
    if (auto it = owner.find(name); it != owner.end()) {
      e.name_node->fail(ErrorCode::Duplicate, "GPU '" + name + "' is already defined in this file" +
                                                  (it->second == name ? "" : " (as an alias of '" + it->second + "')"));
    }
    owner.emplace(name, name);
    for (std::size_t i = 0; i < e.spec.aliases.size(); ++i) {
      const std::string& alias = e.spec.aliases[i];
      if (auto it = owner.find(alias); it != owner.end()) {
        e.alias_nodes[i]->fail(ErrorCode::Duplicate,
                               "alias '" + alias + "' already names GPU '" + it->second + "' in this file");
      }
      owner.emplace(alias, name);
    }
  }
}

// The entry of `entries` that `name` resolves to, skipping those about to be replaced.
const GpuSpec* owner_outside(const std::vector<GpuSpec>& entries, std::string_view name,
                             const std::vector<std::string>& replaced) {
  for (const GpuSpec& spec : entries) {
    if (std::find(replaced.begin(), replaced.end(), spec.name) != replaced.end()) continue;
    if (names_gpu(spec, name)) return &spec;
  }
  return nullptr;
}

void replace_or_append(std::vector<GpuSpec>& entries, GpuSpec spec) {
  auto it = std::find_if(entries.begin(), entries.end(), [&](const GpuSpec& e) { return e.name == spec.name; });
  if (it != entries.end()) {
    *it = std::move(spec);
  } else {
    entries.push_back(std::move(spec));
  }
}

std::string format_double(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

void GpuCatalog::add_from(const config::ConfigNode& root) {
  MapReader top(root);
  const ConfigNode& gpus = top.required("gpus");
  top.finish();

  std::vector<ParsedEntry> parsed;
  if (!gpus.is_null()) {  // `gpus:` with nothing under it is an empty catalog, like `gpus: []`
    for (const ConfigNode& item : gpus.items()) parsed.push_back(parse_entry(item));
  }
  check_unique_in_file(parsed);

  // An entry named like an existing one replaces it whole (aliases included), so the names
  // it frees may be taken by the new entries; any other clash is ambiguous.
  std::vector<std::string> replaced;
  for (const ParsedEntry& e : parsed) replaced.push_back(e.spec.name);
  for (const ParsedEntry& e : parsed) {
    if (const GpuSpec* other = owner_outside(entries_, e.spec.name, replaced)) {
      e.name_node->fail(ErrorCode::Duplicate, "'" + e.spec.name + "' is an alias of GPU '" + other->name +
                                                  "'; to override that GPU, use its name '" + other->name + "'");
    }
    for (std::size_t i = 0; i < e.spec.aliases.size(); ++i) {
      if (const GpuSpec* other = owner_outside(entries_, e.spec.aliases[i], replaced)) {
        e.alias_nodes[i]->fail(ErrorCode::Duplicate,
                               "alias '" + e.spec.aliases[i] + "' already names GPU '" + other->name + "'");
      }
    }
  }

  for (ParsedEntry& e : parsed) replace_or_append(entries_, std::move(e.spec));
}

void GpuCatalog::add(GpuSpec spec) {
  if (spec.name.empty()) throw std::invalid_argument("GpuCatalog::add: empty GPU name");
  const std::vector<std::string> replaced{spec.name};
  std::vector<std::string> keys = spec.aliases;
  keys.push_back(spec.name);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string& key = keys[i];
    const bool repeated = std::find(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(i), key) !=
                          keys.begin() + static_cast<std::ptrdiff_t>(i);
    if (repeated) throw std::invalid_argument("GpuCatalog::add: '" + key + "' given twice for GPU '" + spec.name + "'");
    if (const GpuSpec* other = owner_outside(entries_, key, replaced)) {
      throw std::invalid_argument("GpuCatalog::add: '" + key + "' already names GPU '" + other->name + "'");
    }
  }
  replace_or_append(entries_, std::move(spec));
}

const GpuSpec* GpuCatalog::find(std::string_view name) const {
  for (const GpuSpec& spec : entries_) {
    if (names_gpu(spec, name)) return &spec;
  }
  return nullptr;
}

std::vector<std::string> GpuCatalog::all_names() const {
  std::vector<std::string> names;
  for (const GpuSpec& spec : entries_) {
    names.push_back(spec.name);
    names.insert(names.end(), spec.aliases.begin(), spec.aliases.end());
  }
  return names;
}

std::string to_catalog_yaml(const std::vector<const GpuSpec*>& gpus) {
  std::ostringstream out;
  out << "gpus:\n";
  for (const GpuSpec* gpu : gpus) {
    const GpuSpec& g = *gpu;
    out << "  - name: " << quote(g.name) << "\n";
    out << "    arch: " << quote(g.arch) << "\n";
    out << "    form_factor: " << quote(g.form_factor) << "\n";
    out << "    fp32: " << format_double(g.fp32_flop_per_s) << "\n";
    out << "    tf32: " << format_double(g.tf32_flop_per_s) << "\n";
    out << "    fp16: " << format_double(g.fp16_flop_per_s) << "\n";
    out << "    bf16: " << format_double(g.bf16_flop_per_s) << "\n";
    out << "    fp8: " << format_double(g.fp8_flop_per_s) << "\n";
    out << "    memory: " << format_double(g.memory_bytes) << "B\n";
    out << "    memory_bandwidth: " << format_double(g.memory_bytes_per_s) << "B/s\n";
    if (g.nvlink_bytes_per_s > 0) out << "    nvlink: " << format_double(g.nvlink_bytes_per_s) << "B/s\n";
    if (g.pcie_gen > 0) out << "    pcie: gen" << g.pcie_gen << "\n";
    out << "    tdp: " << format_double(g.tdp_w) << "W\n";
    out << "    sources: " << quote(g.sources) << "\n";
  }
  return out.str();
}

}  // namespace gcsim::models
