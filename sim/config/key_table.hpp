// Keys that describe themselves (ns-3's attributes): each map a scenario holds is read
// against one table of its keys, with the key's type and unit, its default, its range and
// one line of help. The same table declares the keys to MapReader (unknown keys and
// did-you-mean), is printed by `gcsim keys` and `gcsim policies`, and is checked against
// the scenario reference by a test (tests/config/test_scenario_keys_docs.cpp).
//
// A typed key (`kind` set) is the one source of its range and default: MapReader refuses
// to hand out its node by name and reads it only through the spec (MapReader::get/value,
// reader.hpp), which applies the spec's bounds and default; the docs and the CLI print
// range_text() and default_text(), made from the same numbers. An untyped key (a map, a
// list, a name, a choice of words) keeps its range and default as text, read by its
// reader's own code.
#pragma once

#include <limits>
#include <span>
#include <string>
#include <string_view>

namespace gcsim::config {

// How a typed key's value is read (sim/config/reader.hpp) and how its range and default
// are written.
enum class KeyKind : unsigned char {
  Untyped,   // read by its reader's own code; range and default are the text fields
  Integer,   // read_int(min, max); max = KEY_UNBOUNDED: no upper bound
  Number,    // read_double(min, max): a plain number or a count (`1.5k`)
  Fraction,  // read_fraction (`0.45` or `45%`) within min..max, written as a decimal
  Percent,   // the same, written as a percentage (`80%`)
  Duration,  // read_duration(min): min in nanoseconds (1 = "> 0"); no upper bound
  Bytes,     // read_bytes: > 0
  Usd,       // read_usd: >= 0 (or > 0 with above_min)
  Bool,      // read_bool
  // Quantities with a unit (sim/units.hpp), bounded by min..max in the unit's base (bytes/s,
  // events per second, W, USD/h, USD/kWh); written in the unit people use (Gbps, /h).
  Bandwidth,   // read_bytes_per_s: > 0
  Rate,        // read_rate_per_s: events per second, written per hour ("0..60/h")
  Power,       // read_watts: >= 0
  UsdPerHour,  // read_usd_per_hour: >= 0
  UsdPerKwh,   // read_usd_per_kwh: >= 0
};

inline constexpr double KEY_UNBOUNDED = std::numeric_limits<double>::infinity();

struct KeySpec {
  std::string_view name = {};
  // How a person writes the value: "duration", "bytes", "integer", "fraction", "bool",
  // "name", "map", "list of maps", "`fifo` | `skip`", ... (the docs' "type / unit" column).
  std::string_view type = {};
  // An untyped key's default as the reference writes it ("`fifo`", "none"); for a typed
  // key, empty when `has_default` (default_text() writes it), else a default that is not
  // a number ("the instance's").
  std::string_view default_value = {};
  bool required = false;
  // An untyped key's range ("at least one"); for a typed key, only a condition beyond
  // its bounds ("at most 500 with `mode: conservative`"), appended to them by range_text().
  std::string_view range = {};
  std::string_view help = {};  // one line

  // Typed keys.
  KeyKind kind = KeyKind::Untyped;
  double min = 0;             // the smallest value (Duration: nanoseconds)
  double max = KEY_UNBOUNDED; // the largest (Integer, Number, Fraction, Percent)
  bool above_min = false;     // the value must exceed `min`: "> 0", "(0, 1]"
  // The error's detail when a value is not above `min` (empty: a standard wording).
  std::string_view below_min = {};
  bool has_default = false;
  double default_number = 0;  // Duration: nanoseconds; Bool: 0 or 1; Bandwidth: bytes/s
  // For a quantity (Bandwidth .. UsdPerKwh): what follows "'<value>' is out of range: " when
  // a value is above `max` (empty: "must be <range>"), for a bound whose reason a user
  // needs ("at most 60/h (once a minute; ...)").
  std::string_view above_max = {};

  constexpr bool typed() const { return kind != KeyKind::Untyped; }
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
  // The length and first byte first: a table's keys mostly differ there, and a reader asks
  // this for every key of every map (a million jobs' maps, in a large workload).
  if (key.empty()) {
    for (const KeySpec& k : table)
      if (k.name.empty()) return &k;
    return nullptr;
  }
  for (const KeySpec& k : table)
    if (k.name.size() == key.size() && k.name.front() == key.front() && k.name == key) return &k;
  return nullptr;
}

// The default as the reference writes it: "`0.4`", "`1h`", "`true`" for a typed default,
// else the text field ("the instance's", "`fifo`", or empty).
std::string default_text(const KeySpec& k);
// The range as the reference writes it: "1..64", ">= 0", "> 0", "(0, 1]", ">= 1s", with
// the spec's extra condition after "; "; an untyped key's text field.
std::string range_text(const KeySpec& k);
// A duration in nanoseconds in the largest unit that writes it exactly: "0s", "90s",
// "5m", "1h", "7d", "250ms".
std::string format_key_duration(double ns);

}  // namespace gcsim::config
