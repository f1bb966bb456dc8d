// Large tables (a fabric's links and routes, a workload's jobs) may be written inline as a
// list of maps or kept in a CSV file beside the scenario: `routes: {file: routes.csv}`.
// read_table turns such a file into the same list of maps, with marks into the CSV, so the
// section's own reader validates it unchanged and its errors name the CSV's file:line:column.
//
// The CSV: a header row of the table's keys, then one row per entry (RFC 4180 quoting, '#'
// comment lines and blank lines skipped). An empty cell leaves its key out (its default
// applies). A cell of a list-valued key (a link's `between`, a route's `links`, a job's
// `gpu`) holds the items separated by ';' ("h0;leaf0"), a character no name of theirs has. The path is relative to the file holding the
// `{file: ...}` map (the scenario), or absolute.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_node.hpp"
#include "sim/config/csv.hpp"
#include "sim/config/key_table.hpp"
#include "sim/config/source_resolver.hpp"

namespace gcsim::config {

namespace detail {
class Tree;  // a document's storage (node_access.hpp)
}  // namespace detail

// Calls f(begin, end) for each item of a list cell, "a;b; c" (offsets into `text`, blanks
// around an item trimmed): the one rule for splitting a list cell. An empty item is passed
// on as begin == end, for the caller to refuse.
template <class F>
void for_each_list_item(std::string_view text, F&& f) {
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = std::min(text.find(';', start), text.size());
    std::size_t b = start, e = end;
    while (b < e && text[b] == ' ') ++b;
    while (e > b && text[e - 1] == ' ') --e;
    f(b, e);
    if (end == text.size()) return;
    start = end + 1;
  }
}

// A CSV table read one row at a time: what read_table builds its list from, and what a
// reader of a large table (an explicit fabric's routes) walks directly, building a row's
// map only when it needs one (for an error at the row's cells).
class CsvTable {
 public:
  // The table `n` names when it is a map with a `file` key; null otherwise. Reads the file
  // and checks the header (the errors of read_table, below).
  static std::unique_ptr<CsvTable> open(const ConfigNode& n, std::initializer_list<std::string_view> list_columns,
                                        SourceResolver* sources, KeyTable keys);
  // The table of the CSV file that `file_node` (a scalar: its path) names, read and its
  // header checked as open() does for a `{file: ...}` map (`requests.trace: r.csv`).
  static std::unique_ptr<CsvTable> open_file(const ConfigNode& file_node, std::initializer_list<std::string_view> list_columns,
                                             SourceResolver* sources, KeyTable keys);
  CsvTable(const CsvTable&) = delete;
  CsvTable& operator=(const CsvTable&) = delete;

  // The column named `key`, or npos.
  std::size_t column(std::string_view key) const;
  // The header's line in the file.
  int header_line() const { return header_line_; }
  // The number of columns (of header cells).
  std::size_t width() const { return keys_.size(); }
  // More than the rows after the header can be (the file's newlines, plus one): room to
  // reserve before reading them.
  std::size_t line_bound() const;
  // The next row; false at the end. A row with more cells than the header is WrongType.
  bool next(csv::Row& row);
  // Back to the first row (after the header), to walk the rows again.
  void rewind();
  // `row` as the map read_table gives for it, the table's `index`th entry.
  ConfigNode node(const csv::Row& row, std::size_t index) const;
  // The whole table as read_table gives it (before any row is read).
  ConfigNode as_list();

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  CsvTable(const ConfigNode& n, const std::string& label, const std::string& bytes);
  // open() and open_file(): the table at `table` (its key path), its file named by `file_node`.
  static std::unique_ptr<CsvTable> open_at(const ConfigNode& table, const ConfigNode& file_node,
                                           std::initializer_list<std::string_view> list_columns, SourceResolver* sources,
                                           KeyTable keys);

  // `row` as the table's `index`th entry, in `tree`, under `table` (the table's place).
  ConfigNode build(detail::Tree& tree, const detail::TreePlace* table, const csv::Row& row, std::size_t index) const;

  std::string path_;  // the table's key path ("network.routes")
  std::string file_;
  std::istringstream in_;
  csv::Reader reader_;
  int header_line_ = 0;
  std::vector<std::string> keys_;
  std::vector<int> key_columns_;  // each key's column in the header line
  std::vector<bool> is_list_;
};

// `n` itself (a cheap copy: the contents are shared) unless it is a map with a `file` key;
// then the CSV's rows. Throws ConfigError: UnknownKey (a key beside `file`), FileNotFound
// (at the `file` value), EmptyFile (no header row), Syntax (an empty or malformed header
// cell, an open quote), Duplicate (a column named twice), WrongType (a row with more cells
// than the header; an empty item in a list cell).
// The CSV is read through `sources` when given (and so recorded for the trace); without
// one, through a resolver of its own (the same rule and error, nothing kept).
// With `keys` (the table's entries' key table), a header column that is not one of them is
// UnknownKey at its header cell, with a did-you-mean, as MapReader reports an inline key,
// even when every cell under it is empty.
ConfigNode read_table(const ConfigNode& n, std::initializer_list<std::string_view> list_columns = {},
                      SourceResolver* sources = nullptr, KeyTable keys = {});

}  // namespace gcsim::config
