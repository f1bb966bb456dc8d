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
ConfigNode split_list(detail::Tree& tree, const csv::Field& f, int line, const NodePlace& place) {
  const detail::TreePlace* mine = place.shared(tree);
  std::vector<ConfigNode> items;
  for_each_list_item(f.text, [&](std::size_t b, std::size_t e) {
    // Columns are exact for an unquoted cell on one line (the usual case).
    const int column = f.column + static_cast<int>(b) + (f.quoted ? 1 : 0);
    if (b == e)
      throw ConfigError(ErrorCode::WrongType, SourceMark{tree.file(), line, column},
                        join_index_path(mine->path(), items.size()), "an empty item in a ';'-separated list");
    items.push_back(NodeAccess::scalar(tree, std::string_view(f.text).substr(b, e - b), f.quoted, line, column,
                                       NodePlace::item(mine, items.size())));
  });
  return NodeAccess::sequence_from(tree, items, line, f.column, place);
}

// A column the table's keys do not know: UnknownKey at its header cell, named by its
// number (the file may be any file a link points to: its text is never quoted), with the
// suggestion among keys not given, as for an unknown inline key.
void check_header(const csv::Row& header, const std::vector<std::string>& columns, KeyTable table_keys,
                  const std::string& label, const std::string& table_path) {
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (find_key(table_keys, columns[c]) != nullptr) continue;
    std::vector<std::string> absent, known;
    for (const KeySpec& k : table_keys) {
      known.emplace_back(k.name);
      if (std::find(columns.begin(), columns.end(), k.name) == columns.end()) absent.emplace_back(k.name);
    }
    throw ConfigError(ErrorCode::UnknownKey, SourceMark{label, header.line, header.fields[c].column}, table_path,
                      hide_text("header column " + std::to_string(c + 1) + ": " + unknown_key_detail(columns[c], absent, known),
                                columns[c]));
  }
}

}  // namespace

std::unique_ptr<CsvTable> CsvTable::open(const ConfigNode& n, std::initializer_list<std::string_view> list_columns,
                                         SourceResolver* sources, KeyTable table_keys) {
  if (!n.is_map() || n.find("file") == nullptr) return nullptr;
  MapReader r(n, {"file"});
  const ConfigNode& file_node = r.required("file");
  r.finish();
  return open_at(n, file_node, list_columns, sources, table_keys);
}

std::unique_ptr<CsvTable> CsvTable::open_file(const ConfigNode& file_node, std::initializer_list<std::string_view> list_columns,
                                              SourceResolver* sources, KeyTable table_keys) {
  return open_at(file_node, file_node, list_columns, sources, table_keys);
}

std::unique_ptr<CsvTable> CsvTable::open_at(const ConfigNode& n, const ConfigNode& file_node,
                                            std::initializer_list<std::string_view> list_columns, SourceResolver* sources,
                                            KeyTable table_keys) {
  const std::string label = SourceResolver::resolve(file_node.mark().file, read_string(file_node));
  SourceResolver own;
  std::unique_ptr<CsvTable> t(new CsvTable(n, label, (sources ? *sources : own).read(file_node, "the CSV table")));

  csv::Row header;
  if (!t->reader_.next(header))
    throw ConfigError(ErrorCode::EmptyFile, SourceMark{label, 1, 1}, n.path(), "the CSV table has no header row");
  t->header_line_ = header.line;
  for (const csv::Field& f : header.fields) {
    // The header's text is never quoted: the file may be any file a link points to.
    const std::string number = "header column " + std::to_string(t->keys_.size() + 1);
    if (!is_key_text(f.text))
      csv::fail(ErrorCode::Syntax, label, header.line, f.column, "",
                number + (f.text.empty() ? " is empty" : " is not a key name (letters, digits, '_' and '-')") +
                    "; the first line of a CSV table names its columns");
    if (t->column(f.text) != npos)
      csv::fail(ErrorCode::Duplicate, label, header.line, f.column, "",
                number + " repeats column " + std::to_string(t->column(f.text) + 1));
    t->keys_.push_back(f.text);
    t->key_columns_.push_back(f.column);
    t->is_list_.push_back(std::find(list_columns.begin(), list_columns.end(), f.text) != list_columns.end());
  }
  if (!table_keys.empty()) check_header(header, t->keys_, table_keys, label, n.path());
  return t;
}

CsvTable::CsvTable(const ConfigNode& n, const std::string& label, const std::string& bytes)
    : path_(n.path()), file_(label), in_(bytes), reader_(in_, label, true) {}

std::size_t CsvTable::column(std::string_view key) const {
  for (std::size_t c = 0; c < keys_.size(); ++c)
    if (keys_[c] == key) return c;
  return npos;
}

std::size_t CsvTable::line_bound() const {
  const std::string_view bytes = in_.view();
  return static_cast<std::size_t>(std::count(bytes.begin(), bytes.end(), '\n')) + 1;
}

bool CsvTable::next(csv::Row& row) {
  if (!reader_.next(row)) return false;
  if (row.fields.size() > keys_.size())
    csv::fail(ErrorCode::WrongType, file_, row.line, row.fields[keys_.size()].column, "",
              "a row with " + std::to_string(row.fields.size()) + " cells under a header of " +
                  std::to_string(keys_.size()));
  return true;
}

void CsvTable::rewind() {
  in_.clear();
  in_.seekg(0);
  reader_.restart();
  csv::Row header;
  reader_.next(header);
}

ConfigNode CsvTable::build(detail::Tree& tree, const detail::TreePlace* table, const csv::Row& row,
                           std::size_t index) const {
  const NodePlace place = NodePlace::item(table, index);
  const detail::TreePlace* row_path = place.shared(tree);
  NodeAccess::Entries entries;
  NodeAccess::KeyMarks marks;
  for (std::size_t c = 0; c < row.fields.size(); ++c) {
    const csv::Field& f = row.fields[c];
    if (f.text.empty() && !f.quoted) continue;  // not given: the key's default applies
    const std::string_view key = tree.copy(keys_[c]);
    const NodePlace cell = NodePlace::key(row_path, key);
    entries.emplace_back(key, is_list_[c] ? split_list(tree, f, row.line, cell)
                                          : NodeAccess::scalar(tree, f.text, f.quoted, row.line, f.column, cell));
    marks.push_back(NodeAccess::position(header_line_, key_columns_[c]));
  }
  return NodeAccess::map_from(tree, entries, marks, row.line, 1, place);
}

ConfigNode CsvTable::node(const csv::Row& row, std::size_t index) const {
  // A tree of its own for each row: a reader walking a large table keeps none of them.
  TreeRef tree(file_);
  tree->hide_text();
  return NodeAccess::owned(build(*tree, NodePlace::whole(path_).shared(*tree), row, index));
}

ConfigNode CsvTable::as_list() {
  TreeRef tree(file_);
  tree->hide_text();
  const detail::TreePlace* table = NodePlace::whole(path_).shared(*tree);
  std::vector<ConfigNode> rows;
  csv::Row row;
  while (next(row)) rows.push_back(build(*tree, table, row, rows.size()));
  return NodeAccess::owned(NodeAccess::sequence_from(*tree, rows, header_line_, 1, NodePlace::whole(path_)));
}

ConfigNode read_table(const ConfigNode& n, std::initializer_list<std::string_view> list_columns, SourceResolver* sources,
                      KeyTable table_keys) {
  const std::unique_ptr<CsvTable> table = CsvTable::open(n, list_columns, sources, table_keys);
  return table ? table->as_list() : n;
}

}  // namespace gcsim::config
