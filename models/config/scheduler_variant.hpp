// The variants of a scenario's `scheduler:` section that `gcsim compare` runs side by side
// (docs/analysis.md, "Comparing strategies"). A variant is given as `NAME`, `NAME:{k: v}`
// (a YAML flow map of the policy's keys) or `@FILE` (a YAML file holding a scheduler map,
// bare or under a `scheduler:` key). It is read by read_scheduler() against the registry, as
// a scenario's own section is, and then written into the scenario's text in place of that
// section, so each run loads, and its trace embeds, a complete scenario that `gcsim rerun`
// reruns as it was.
#pragma once

#include <string>

#include "models/config/scenario.hpp"
#include "sim/config/config_node.hpp"

namespace gcsim::models {

class SchedulerRegistry;

struct SchedulerVariant {
  std::string argument;  // as given: the label of the variant
  std::string yaml;      // the scheduler map as block YAML, two spaces in, ready to follow "scheduler:\n"
  SchedulerSpec spec;    // what read_scheduler() made of it
};

// Reads one variant. Throws ConfigError at the offending key, the file being the argument
// ("--policy 'fifo:{placemnt: first-fit}'", columns counted in the argument) or the
// @FILE, the key path under `scheduler.`, with read_scheduler()'s did-you-mean.
SchedulerVariant read_scheduler_variant(const std::string& argument, const SchedulerRegistry& registry);

// The scenario's text with its top-level `scheduler:` entry replaced by `variant` (the
// lines from its key to the next top-level key), or with `variant` appended when it has
// none. Throws gcsim::Error when the top level is not a block map with one key per line
// (a flow map `{name: ..., scheduler: ...}` cannot be cut by lines).
std::string with_scheduler_section(const config::ConfigDocument& scenario, const SchedulerVariant& variant);

// A map or list in YAML block style, `indent` spaces in: quoted scalars double-quoted (they
// stay text), plain ones as written, nulls as ~. Block style keeps every plain scalar
// valid: written into a flow map, a block scalar could meet a comma.
std::string block_yaml(const config::ConfigNode& node, std::size_t indent);

}  // namespace gcsim::models
