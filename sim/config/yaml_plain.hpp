// The fast path of the YAML loader: a single-pass reader for the plain subset of YAML that
// large scenarios are written in (block maps and lists, one-line flow maps and lists, plain
// scalars, one-line quoted scalars without escapes, comments). It builds the same tree,
// with the same marks and paths, that the yaml-cpp path builds for that text.
//
// It never reports an error: on anything outside the subset (anchors, aliases, tags,
// block scalars, multi-line scalars or flow collections, escapes, tabs, CR, non-ASCII,
// documents markers) and on anything wrong (a duplicate key, nesting beyond MAX_DEPTH,
// text that is not YAML) it gives up, and the loader parses the text with yaml-cpp, which
// then reports the error exactly as before. tests/config/ and the fuzzer check that both
// paths build the same tree wherever this one succeeds.
#pragma once

#include <optional>
#include <string_view>

#include "sim/config/config_node.hpp"
#include "sim/config/node_access.hpp"

namespace gcsim::config::detail {

// Builds into `tree` (keys and plain scalars are views of `text`, which must be the
// tree's adopted text or outlive it); the root does not count as a copy (NodeAccess::owned).
std::optional<ConfigNode> parse_plain_yaml(std::string_view text, Tree& tree);
// The same in a tree of its own, labelled `file` (with its own copy of the text); the root
// keeps it alive. For tests and the fuzzer.
std::optional<ConfigNode> parse_plain_yaml(std::string_view text, std::string file);

// load_yaml_string without the fast path: yaml-cpp always (for tests and the fuzzer,
// which compare the two).
ConfigDocument load_yaml_string_full(std::string text, std::string file);

}  // namespace gcsim::config::detail
