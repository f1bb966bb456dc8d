// The variants of a scenario's `scheduler:` section that `gcsim compare` runs side by side
// (docs/analysis.md, "Comparing strategies"). A variant is given as `NAME`, `NAME:{k: v}`
// (a YAML flow map of the policy's keys) or `@FILE` (a YAML file holding a scheduler map,
// bare or under a `scheduler:` key, with an optional `label:`). It is read by
// read_scheduler() against the registry, as a scenario's own section is, and then put into
// the scenario's parsed tree in place of that section: each run loads that tree (so an
// error names the scenario's file where the node comes from the scenario, and the
// --policy argument or the @FILE where it comes from the variant), and its trace embeds
// the tree written out as YAML, a complete scenario that `gcsim rerun` reruns as it was.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "models/config/scenario.hpp"
#include "sim/config/config_node.hpp"

namespace gcsim::models {

class SchedulerRegistry;

// The longest `label:` an @FILE may give (bytes): a column of the table.
inline constexpr std::size_t MAX_VARIANT_LABEL_BYTES = 64;

struct SchedulerVariant {
  std::string argument;  // as given on the command line
  // Its name in the table, the JSON, the plots and the trace names: the argument, or for
  // @FILE the file's `label:`, else the file's stem ("@policies/windows.yaml": "windows").
  std::string label;
  bool label_is_stem = false;  // the label is an @FILE's stem (distinct_labels may change it)
  std::string yaml;            // the scheduler map as block YAML, two spaces in, ready to follow "scheduler:\n"
  // The scheduler map, its nodes' key paths under `scheduler.`, each marked where it is
  // written: in the argument's columns ("--policy 'fifo:{...}'", line 1) or in the @FILE.
  config::ConfigNode section;
  SchedulerSpec spec;  // what read_scheduler() made of it
};

// Reads one variant. Throws ConfigError at the offending key, the file being the argument
// ("--policy 'fifo:{placemnt: first-fit}'", columns counted in the argument) or the
// @FILE, the key path under `scheduler.`, with read_scheduler()'s did-you-mean. An @FILE
// that cannot be read is a file-not-found error naming the file as a "policy file"; a bare
// `@` one at the argument's column 2.
SchedulerVariant read_scheduler_variant(const std::string& argument, const SchedulerRegistry& registry);

// Labels taken from @FILE stems that another variant's label repeats become the argument
// itself (`@a/windows.yaml` and `@b/windows.yaml`), so that the columns tell them apart.
// A `label:` written in a file, and an inline argument, are kept as they are.
void distinct_labels(std::vector<SchedulerVariant>& variants);

// The scenario with its top-level `scheduler:` entry's value replaced by the variant's
// section, or the entry added last when it has none. The tree is built from the
// scenario's own nodes, which keep their files, lines and columns, and the variant's; the
// text is that tree written as block YAML (anchors and aliases written out, comments
// dropped), a complete scenario that loads to the same tree. Works for any scenario a
// loader accepts, a top level written as one flow map included.
config::ConfigDocument with_scheduler_section(const config::ConfigDocument& scenario, const SchedulerVariant& variant);

// A copy of `node` whose key paths start at `path`, every node keeping its file, line and
// column, and every map the positions of its keys: a section read on its own, put where
// it goes in a scenario.
config::ConfigNode rebased(const config::ConfigNode& node, const std::string& path);

// A map or list in YAML block style, `indent` spaces in: quoted scalars double-quoted (they
// stay text), plain ones as written, nulls as ~. Block style keeps every plain scalar
// valid: written into a flow map, a block scalar could meet a comma.
std::string block_yaml(const config::ConfigNode& node, std::size_t indent);

}  // namespace gcsim::models
