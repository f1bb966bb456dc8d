// Keys that describe themselves (ns-3's attributes): each map a scenario holds is read
// against one table of its keys, with the key's type and unit, its default, its range and
// one line of help. The same table declares the keys to MapReader (unknown keys and
// did-you-mean), is printed by `gcsim keys`, and is checked against the scenario reference
// by a test, so the docs and the reader cannot drift apart.
#pragma once

#include <span>
#include <string_view>

namespace gcsim::config {

struct KeySpec {
  std::string_view name = {};
  // How a person writes the value: "duration", "bytes", "integer", "fraction", "bool",
  // "name", "map", "list of maps", "`fifo` | `skip`", ... (the docs' "type / unit" column).
  std::string_view type = {};
  // The default as the reference writes it ("`0s`", "`fifo`"); empty when there is none.
  std::string_view default_value = {};
  bool required = false;
  std::string_view range = {};  // "> 0", "1..64", or empty
  std::string_view help = {};   // one line
};

using KeyTable = std::span<const KeySpec>;

// A map's keys under one name: the dotted path of the map in a scenario, with `[i]` for
// the items of a list ("cluster.node_types[i]", "scheduler", "scheduler(policy: las)").
struct KeySection {
  std::string_view path;
  KeyTable keys;
};

// The KeySpec named `key` in `table`, or nullptr.
inline const KeySpec* find_key(KeyTable table, std::string_view key) {
  for (const KeySpec& k : table)
    if (k.name == key) return &k;
  return nullptr;
}

}  // namespace gcsim::config
