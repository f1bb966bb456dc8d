// Scenario keys set from outside the scenario file, by their dotted path: `gcsim run
// --set cluster.node_types[0].count=8` (and `validate`, `estimate`, `compare`), and the
// points of a sweep (docs/sweeps.md). A setting replaces the value at its path in the
// scenario's parsed tree, or adds the key where the scenario leaves it out; the edited
// tree is then loaded as any scenario is, so a value the scenario would refuse, or a key
// the reference does not know, is refused with the reader's own message and did-you-mean,
// at the position of the setting (the argument's columns, or the sweep file's line and
// column), never at a position in the scenario that does not hold it.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_node.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {

// One step of a key path: a map key, or an index into a list.
struct PathSegment {
  std::string key;  // empty for an index
  std::size_t index = 0;
  bool is_index() const { return key.empty(); }
};

// `a.b[0].c` as its segments. Throws ConfigError(Syntax) at `mark` (its column moved to
// the offending character) for an empty path, an empty key (`a..b`), a key with other
// characters than letters, digits, `_` and `-`, or a bad index (`[x]`, `[`, `[01]` is
// fine, `[-1]` is not); indices up to 2^32 - 1.
std::vector<PathSegment> parse_key_path(std::string_view path, const SourceMark& mark);

// A setting: the key path, where it is written (its first character), and the value, a
// parsed YAML node marked where it is written.
struct Override {
  std::string path;
  SourceMark mark;
  config::ConfigNode value;
};

// `PATH=VALUE` as given to --set: the value is YAML (`8`, `sjf`, `{policy: backfill,
// mode: easy}`, `[1, 2]`), marked in the argument's own columns, the file being
// "--set 'PATH=VALUE'". Throws ConfigError for a missing `=`, a bad path, or a value
// that is empty or not YAML.
Override read_set_argument(const std::string& argument);

// The scenario with every setting applied in order (a later one over an earlier one at
// the same path), as a new tree: the scenario's own nodes keep their files, lines and
// columns, the settings' nodes theirs; the text is the tree written as block YAML, a
// complete scenario that loads to the same tree (traces embed it, so `gcsim rerun`
// reruns the run as it was). Throws ConfigError at the setting's mark when its path
// cannot be followed: a key under a value that is not a map, an index into a value that
// is not a list or past its end, or a list reached through a key the scenario does not
// have (with a did-you-mean among the keys there and the reference's).
config::ConfigDocument with_overrides(const config::ConfigDocument& scenario, std::span<const Override> overrides);

}  // namespace gcsim::models
