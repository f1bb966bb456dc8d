// Typed, strict reading of ConfigNodes. A MapReader hands out the keys a spec asks for and,
// at finish(), refuses any key nobody asked for, suggesting the closest known key. The
// scalar readers parse numbers and units (sim/units.hpp) and turn every failure into a
// ConfigError at the node's file:line:column and key path.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"
#include "sim/time.hpp"
#include "sim/units.hpp"

namespace gcsim::config {

class MapReader {
 public:
  // Throws WrongType when `node` is not a map. A null node (an empty value) reads as an
  // empty map, so `scheduler:` with nothing under it means "all defaults".
  explicit MapReader(const ConfigNode& node);
  // Declares every key this map may hold up front and refuses unknown ones at once, so a
  // misspelt required key is reported as the typo it is ("unknown key 'gpuz'; did you mean
  // 'gpus'?") rather than as a missing key.
  MapReader(const ConfigNode& node, std::initializer_list<std::string_view> keys);
  // The same, with the keys of a self-describing table (key_table.hpp); a key marked
  // required there and absent here is MissingKey at once. `keys` must outlive the reader.
  MapReader(const ConfigNode& node, KeyTable keys);

  // Every key asked for here becomes "known" (for did-you-mean), present or not. A typed
  // key of the table (KeySpec::typed) is not handed out by name: InternalError, since its
  // value must be read through its spec (get, value), which holds its range and default.
  const ConfigNode& required(std::string_view key);  // MissingKey when absent
  const ConfigNode* optional(std::string_view key);  // nullptr when absent or null
  bool has(std::string_view key) const;

  // A typed key's value, read and range-checked through its spec (read_key below):
  // nullopt when absent or null (MissingKey when the spec says required). T is
  // std::int64_t (Integer), double (Number, Fraction, Percent, Bytes, Usd), sim::SimTime
  // (Duration) or bool (Bool); another T for the spec's kind is an InternalError.
  template <class T>
  std::optional<T> get(const KeySpec& spec);
  // The same, the spec's default when absent (InternalError when it has none).
  template <class T>
  T value(const KeySpec& spec);
  // The same, MissingKey when absent whatever the spec says: a key that another key's
  // value makes required (`sigma` with `dist: lognormal`).
  template <class T>
  T need(const KeySpec& spec);
  // The same by the key's name in this reader's table (InternalError when it is not there).
  template <class T>
  std::optional<T> get(std::string_view key) { return get<T>(spec(key)); }
  template <class T>
  T value(std::string_view key) { return value<T>(spec(key)); }
  template <class T>
  T need(std::string_view key) { return need<T>(spec(key)); }
  // The spec of `key` in this reader's table (InternalError when it is not there).
  const KeySpec& spec(std::string_view key) const;
  // Where a key is written (nullptr when absent or null), without reading its value: for
  // errors about its presence (a conflict) or its relation to other keys, after get().
  const ConfigNode* where(std::string_view key) const;

  // Refuses keys not asked for: UnknownKey, "unknown key 'gpuz'; did you mean 'gpus'?".
  void finish() const;

  const ConfigNode& node() const { return node_; }

 private:
  const ConfigNode* find_known(std::string_view key);
  void refuse_typed(std::string_view key) const;

  // Every key this reader knows, in order: the table's, then those asked for beside it.
  std::vector<std::string> all_known() const;

  const ConfigNode& node_;
  // Keys known beside the table's (declared by the list constructor, or asked for): the
  // table's own are not copied here, so a reader of a table costs no allocation per key.
  std::vector<std::string> known_;
  KeyTable table_ = {};
};

// The detail of an UnknownKey error, the one wording for inline keys and CSV columns:
// "unknown key 'gpuz'; did you mean 'gpus'?", the suggestion taken among `absent` (known
// keys the map does not already have: "gpuz" beside "gpu" means "gpus"), else the list of
// `known` keys (or "no keys are allowed here" when there are none).
std::string unknown_key_detail(const std::string& key, const std::vector<std::string>& absent,
                               const std::vector<std::string>& known);

// Scalars. Every reader throws ConfigError at `n` on failure.
std::string read_string(const ConfigNode& n);                        // any scalar, non-empty
std::string read_enum(const ConfigNode& n, const std::vector<std::string>& allowed);  // UnknownName w/ did-you-mean
bool read_bool(const ConfigNode& n);                                  // true/false/yes/no
std::int64_t read_int(const ConfigNode& n, std::int64_t min, std::int64_t max);  // integral; OutOfRange
double read_double(const ConfigNode& n, double min, double max);      // plain number, or count suffix k/M/G/T (1e3..)
// A plain number or count (as read_double) that must be greater than zero.
double read_positive(const ConfigNode& n);
double read_fraction(const ConfigNode& n);                            // 0.45 or 45% -> [0,1]

// Fails at `n` with the error code a unit error stands for (not-a-number -> wrong-type,
// missing or bad unit -> bad-unit, out of range -> out-of-range): the one mapping, for
// readers of their own built on sim/units.hpp.
[[noreturn]] void fail_unit(const ConfigNode& n, const units::UnitError& e);

// A typed key's value at `n` through its spec (key_table.hpp): the kind's reader with the
// spec's bounds; a value at `min` of a bound that must be exceeded is OutOfRange, with the
// spec's `below_min` as its detail. The same wording as the plain readers above.
std::int64_t read_key_int(const ConfigNode& n, const KeySpec& spec);
double read_key_number(const ConfigNode& n, const KeySpec& spec);
sim::SimTime read_key_duration(const ConfigNode& n, const KeySpec& spec);
bool read_key_bool(const ConfigNode& n, const KeySpec& spec);

// Quantities with units (sim/units.hpp). A bare number is BadUnit unless noted.
sim::SimTime read_duration(const ConfigNode& n, sim::SimTime min = sim::SimTime::zero());  // 30m, 6h, 1.5d, 250ms
double read_bytes(const ConfigNode& n);           // 80GiB, 1152GiB, 1.5TB -> bytes (> 0)
double read_bytes_per_s(const ConfigNode& n);     // 100Gbps, 10GB/s, 25GiB/s -> bytes/s (> 0)
double read_flop_per_s(const ConfigNode& n);     // 19.5TFLOPS, 989TFLOP/s -> FLOP/s (>= 0)
double read_watts(const ConfigNode& n);           // 700W, 6.5kW -> W (>= 0)
double read_usd_per_hour(const ConfigNode& n);    // "$2.50/h", 2.50/h, 32.77 (bare: USD/h, the key says so) -> USD/h (>= 0)
double read_rate_per_s(const ConfigNode& n);          // 0.05/h, 1.2/d -> events per second (>= 0)
double read_usd_per_kwh(const ConfigNode& n);         // $0.12/kWh -> USD/kWh (>= 0)
double read_fraction_per_year(const ConfigNode& n);   // 8%/y -> fraction per year (>= 0)
double read_usd(const ConfigNode& n);             // "$200,000", 200000, 1.2k -> USD (>= 0)

}  // namespace gcsim::config
