// CSV tables as config trees; see csv_table.hpp.
#include "sim/config/csv_table.hpp"

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/csv.hpp"
#include "sim/config/node_access.hpp"
#include "sim/config/reader.hpp"

namespace gcsim::config {

namespace {

bool is_key_text(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
      return false;
  return true;
}

// "a;b; c" -> items with their own columns; an empty item is an error at its place.
ConfigNode split_list(const csv::Field& f, const FileName& file, int line, NodePlace place) {
  const SharedPath mine = place.shared();
  std::vector<ConfigNode> items;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = std::min(f.text.find(';', start), f.text.size());
    std::size_t b = start, e = end;
    while (b < e && f.text[b] == ' ') ++b;
    while (e > b && f.text[e - 1] == ' ') --e;
    // Columns are exact for an unquoted cell on one line (the usual case).
    const int column = f.column + static_cast<int>(b) + (f.quoted ? 1 : 0);
    if (b == e)
      throw ConfigError(ErrorCode::WrongType, SourceMark{*file, line, column}, join_index_path(mine->path(), items.size()),
                        "an empty item in a ';'-separated list");
    items.push_back(NodeAccess::scalar(f.text.substr(b, e - b), f.quoted, file, line, column,
                                       NodePlace::item(mine, items.size())));
    if (end == f.text.size()) break;
    start = end + 1;
  }
  return NodeAccess::sequence(std::move(items), file, line, f.column, std::move(place));
}

}  // namespace

ConfigNode read_table(const ConfigNode& n, std::initializer_list<std::string_view> list_columns, SourceResolver* sources) {
  if (!n.is_map() || n.find("file") == nullptr) return n;
  MapReader r(n, {"file"});
  const ConfigNode& file_node = r.required("file");
  r.finish();
  const std::string label = SourceResolver::resolve(file_node.mark().file, read_string(file_node));
  SourceResolver own;
  std::istringstream in((sources ? *sources : own).read(file_node, "the CSV table"));

  const FileName file = std::make_shared<const std::string>(label);
  csv::Reader reader(in, label, true);
  csv::Row header;
  if (!reader.next(header))
    throw ConfigError(ErrorCode::EmptyFile, SourceMark{label, 1, 1}, n.path(), "the CSV table has no header row");
  std::vector<std::string> keys;
  NodeAccess::KeyMarks key_marks;
  for (const csv::Field& f : header.fields) {
    if (!is_key_text(f.text))
      csv::fail(ErrorCode::Syntax, label, header.line, f.column, "",
                f.text.empty() ? "an empty column name in the header" : "'" + f.text + "' is not a key name");
    if (std::find(keys.begin(), keys.end(), f.text) != keys.end())
      csv::fail(ErrorCode::Duplicate, label, header.line, f.column, f.text, "column '" + f.text + "' appears twice");
    keys.push_back(f.text);
    key_marks.push_back(NodeAccess::position(header.line, f.column));
  }
  std::vector<bool> is_list;
  for (const std::string& k : keys)
    is_list.push_back(std::find(list_columns.begin(), list_columns.end(), k) != list_columns.end());

  const SharedPath table_path = NodePlace::whole(n.path()).shared();
  std::vector<ConfigNode> rows;
  csv::Row row;
  while (reader.next(row)) {
    if (row.fields.size() > keys.size())
      csv::fail(ErrorCode::WrongType, label, row.line, row.fields[keys.size()].column, "",
                "a row with " + std::to_string(row.fields.size()) + " cells under a header of " +
                    std::to_string(keys.size()));
    NodePlace place = NodePlace::item(table_path, rows.size());
    const SharedPath row_path = place.shared();
    NodeAccess::Entries entries;
    NodeAccess::KeyMarks marks;
    for (std::size_t c = 0; c < row.fields.size(); ++c) {
      const csv::Field& f = row.fields[c];
      if (f.text.empty() && !f.quoted) continue;  // not given: the key's default applies
      NodePlace cell = NodePlace::key(row_path, keys[c]);
      entries.emplace_back(keys[c], is_list[c] ? split_list(f, file, row.line, std::move(cell))
                                               : NodeAccess::scalar(f.text, f.quoted, file, row.line, f.column,
                                                                    std::move(cell)));
      marks.push_back(key_marks[c]);
    }
    rows.push_back(NodeAccess::map(std::move(entries), std::move(marks), file, row.line, 1, std::move(place)));
  }
  return NodeAccess::sequence(std::move(rows), file, header.line, 1, NodePlace::whole(n.path()));
}

}  // namespace gcsim::config
