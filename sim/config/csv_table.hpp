// Large tables (a fabric's links and routes, a workload's jobs) may be written inline as a
// list of maps or kept in a CSV file beside the scenario: `routes: {file: routes.csv}`.
// read_table turns such a file into the same list of maps, with marks into the CSV, so the
// section's own reader validates it unchanged and its errors name the CSV's file:line:column.
//
// The CSV: a header row of the table's keys, then one row per entry (RFC 4180 quoting, '#'
// comment lines and blank lines skipped). An empty cell leaves its key out (its default
// applies). A cell of a list-valued key (a link's `between`, a route's `links`) holds the
// items separated by ';' ("h0;leaf0"). The path is relative to the file holding the
// `{file: ...}` map (the scenario), or absolute.
#pragma once

#include <initializer_list>
#include <string_view>

#include "sim/config/config_node.hpp"
#include "sim/config/source_resolver.hpp"

namespace gcsim::config {

// `n` itself (a cheap copy: the contents are shared) unless it is a map with a `file` key;
// then the CSV's rows. Throws ConfigError: UnknownKey (a key beside `file`), FileNotFound
// (at the `file` value), EmptyFile (no header row), Syntax (an empty or malformed header
// cell, an open quote), Duplicate (a column named twice), WrongType (a row with more cells
// than the header; an empty item in a list cell).
// The CSV is read through `sources` when given (and so recorded for the trace); without
// one, through a resolver of its own (the same rule and error, nothing kept).
ConfigNode read_table(const ConfigNode& n, std::initializer_list<std::string_view> list_columns = {},
                      SourceResolver* sources = nullptr);

}  // namespace gcsim::config
