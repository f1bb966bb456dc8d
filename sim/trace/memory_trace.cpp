// A trace in memory (see memory_trace.hpp).
#include "sim/trace/memory_trace.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>
#include <utility>

#include "sim/check.hpp"
#include "sim/errors.hpp"

namespace gcsim::trace {

class MemoryTrace::MemoryTable final : public Table {
 public:
  MemoryTable(const std::string& label, std::string name, std::vector<Column> columns)
      : label_(label), name_(std::move(name)), columns_(std::move(columns)), cells_(columns_.size()) {
    std::set<std::string> names;
    for (const Column& c : columns_) {
      if (c.name.empty() || !names.insert(c.name).second)
        throw Error("trace '" + label_ + "': table '" + name_ + "': empty or duplicate column name '" + c.name + "'");
      const bool is_enum = c.type == ColumnType::Enum8 || c.type == ColumnType::Enum;
      if (is_enum == c.enum_labels.empty() ||
          c.enum_labels.size() > (c.type == ColumnType::Enum8 ? std::size_t{256} : MAX_ENUM_LABELS))
        throw Error("trace '" + label_ + "': column '" + name_ + "." + c.name +
                    "': enum labels (1 to 256 for Enum8, to MAX_ENUM_LABELS for Enum) go with enum columns only");
      if ((c.type == ColumnType::Str) != (c.str_bytes > 0))
        throw Error("trace '" + label_ + "': column '" + name_ + "." + c.name + "': a string column needs a width");
    }
    for (std::size_t i = 0; i < columns_.size(); ++i) cells_[i].type = columns_[i].type;
  }

  Table& begin_row() override {
    if (closed_) throw std::logic_error("trace '" + label_ + "' table " + name_ + " written after commit()");
    finish_row();
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      Column_& c = cells_[i];
      c.next_f64 = std::numeric_limits<double>::quiet_NaN();
      c.next_int = 0;
      c.next_str.clear();
    }
    ++rows_;
    return *this;
  }
  Table& f64(std::size_t column, double value) override {
    check(column, ColumnType::F64).next_f64 = value;
    return *this;
  }
  Table& i64(std::size_t column, std::int64_t value) override {
    check(column, ColumnType::I64).next_int = value;
    return *this;
  }
  Table& i32(std::size_t column, std::int32_t value) override {
    check(column, ColumnType::I32).next_int = value;
    return *this;
  }
  Table& str(std::size_t column, std::string_view value) override {
    Column_& c = check(column, ColumnType::Str);
    if (value.find('\0') != std::string_view::npos)
      throw Error("trace '" + label_ + "': " + name_ + "." + columns_[column].name + ": string contains a NUL byte");
    if (value.size() > columns_[column].str_bytes)
      throw InternalError("trace '" + label_ + "': a string of " + std::to_string(value.size()) + " bytes for column " +
                          name_ + "." + columns_[column].name + ", " + std::to_string(columns_[column].str_bytes) +
                          " bytes wide (its source should have been bounded at load)");
    c.next_str.assign(value);
    return *this;
  }
  Table& enum8(std::size_t column, std::uint8_t value) override { return set_enum(column, ColumnType::Enum8, value); }
  Table& enum_value(std::size_t column, std::uint32_t value) override { return set_enum(column, ColumnType::Enum, value); }
  std::size_t rows() const override { return rows_; }
  void reserve(std::size_t rows) override {
    for (Column_& c : cells_) {
      c.reserve_rows = rows_ + rows;
      if (!c.uniform) c.cells.reserve(c.type, c.reserve_rows);
    }
  }
  void write_block(std::size_t rows, std::span<const BlockColumn> block) override {
    if (closed_) throw std::logic_error("trace '" + label_ + "' table " + name_ + " written after commit()");
    check_block(label_, name_, columns_, rows, block);
    finish_row();
    if (rows == 0) return;
    for (std::size_t i = 0; i < columns_.size(); ++i) append_block(cells_[i], block[i], rows);
    rows_ += rows;
    done_ = rows_;
  }
  void close() {
    finish_row();
    closed_ = true;
  }

  const Column* find(const std::string& column) const {
    for (const Column& c : columns_)
      if (c.name == column) return &c;
    return nullptr;
  }
  std::size_t index(const std::string& column) const {
    for (std::size_t i = 0; i < columns_.size(); ++i)
      if (columns_[i].name == column) return i;
    throw Error("trace '" + label_ + "': table '/" + name_ + "' has no column '" + column + "'");
  }

  struct Cells {
    std::vector<double> f64;
    std::vector<std::int64_t> ints;
    std::vector<std::string> str;
    void reserve(ColumnType type, std::size_t rows) {
      switch (type) {
        case ColumnType::F64: f64.reserve(rows); break;
        case ColumnType::Str: str.reserve(rows); break;
        default: ints.reserve(rows); break;
      }
    }
  };
  const std::vector<Column>& columns() const { return columns_; }
  // Every cell of column i, the row being written included.
  Cells cells(std::size_t i) const {
    const Column_& c = cells_[i];
    Cells out = c.uniform ? repeated(c, done_) : c.cells;
    if (done_ < rows_) append_to(out, c);
    return out;
  }
  // Reading once (MemoryTrace::read_once): the column's cells are moved out, and a second
  // read of them is an Error.
  Cells take(std::size_t i) {
    mark_taken(i);
    if (!closed_ || cells_[i].uniform) {
      Cells out = cells(i);
      cells_[i] = Column_{};
      return out;
    }
    return std::exchange(cells_[i].cells, Cells{});
  }
  // Column i for reading a block at a time (MemoryTrace::read_blocks): a closed table's
  // column of one value is that value (never spread over every row); any other, its cells,
  // moved out when reading once (as take()) or copied.
  struct Source {
    bool uniform = false;
    double same_f64 = 0;
    std::int64_t same_int = 0;
    std::string same_str;
    Cells cells;
  };
  Source source(std::size_t i, bool once) {
    Source s;
    if (closed_ && cells_[i].uniform) {
      if (once) mark_taken(i);
      Column_& c = cells_[i];
      s.uniform = true;
      s.same_f64 = c.same_f64;
      s.same_int = c.same_int;
      s.same_str = c.same_str;
      if (once) c = Column_{};
      return s;
    }
    s.cells = once ? take(i) : cells(i);
    return s;
  }

 private:
  // A column handed out by a read once: a second read of it is an Error.
  void mark_taken(std::size_t i) {
    if (taken_.empty()) taken_.assign(columns_.size(), false);
    if (taken_[i])
      throw Error("trace '" + label_ + "': column '" + name_ + "." + columns_[i].name +
                  "' was already read (the trace is read once)");
    taken_[i] = true;
  }
  // An Enum8 or Enum cell: a value without a label is a programming error.
  Table& set_enum(std::size_t column, ColumnType type, std::uint32_t value) {
    Column_& c = check(column, type);
    if (value >= columns_[column].enum_labels.size())
      throw std::logic_error("trace table " + name_ + "." + columns_[column].name + ": enum value " +
                             std::to_string(value) + " has no label");
    c.next_int = value;
    return *this;
  }
  // A column's cells: while every finished row holds one value (a column of NaN, zeros or
  // one name, as the model columns of a run of duration jobs), that value alone and no
  // vector; from the first other value on, every cell. The row being written is held in
  // next_* until the next begin_row or close.
  struct Column_ {
    ColumnType type = ColumnType::F64;
    bool uniform = true;
    double same_f64 = 0;
    std::int64_t same_int = 0;
    std::string same_str;
    Cells cells;  // every finished row's cell, once not uniform
    double next_f64 = 0;
    std::int64_t next_int = 0;
    std::string next_str;
    std::size_t reserve_rows = 0;  // the last reserve(): room made when the cells are first kept
  };
  // Whether the row being written holds the column's one value (floats compared bit for bit,
  // so a NaN is the same NaN and -0 is not 0).
  static bool next_is_same(const Column_& c) {
    switch (c.type) {
      case ColumnType::F64: return std::bit_cast<std::uint64_t>(c.next_f64) == std::bit_cast<std::uint64_t>(c.same_f64);
      case ColumnType::Str: return c.next_str == c.same_str;
      default: return c.next_int == c.same_int;
    }
  }
  static Cells repeated(const Column_& c, std::size_t rows) {
    Cells out;
    switch (c.type) {
      case ColumnType::F64: out.f64.assign(rows, c.same_f64); break;
      case ColumnType::Str: out.str.assign(rows, c.same_str); break;
      default: out.ints.assign(rows, c.same_int); break;
    }
    return out;
  }
  static void append_to(Cells& out, const Column_& c) {
    switch (c.type) {
      case ColumnType::F64: out.f64.push_back(c.next_f64); break;
      case ColumnType::Str: out.str.push_back(c.next_str); break;
      default: out.ints.push_back(c.next_int); break;
    }
  }
  // A block's cells join column `c` after the done_ finished rows, as finish_row() would
  // add them one row at a time: the column stays one value while the block's cells are it.
  void append_block(Column_& c, const BlockColumn& b, std::size_t rows) {
    std::size_t k = 0;  // the block's first cell that is not the column's one value
    if (c.uniform) {
      if (done_ == 0) {
        switch (c.type) {
          case ColumnType::F64: c.same_f64 = b.f64[0]; break;
          case ColumnType::Str: c.same_str.assign(b.str[0]); break;
          default: c.same_int = b.ints[0]; break;
        }
      }
      switch (c.type) {
        case ColumnType::F64: {
          const std::uint64_t same = std::bit_cast<std::uint64_t>(c.same_f64);
          while (k < rows && std::bit_cast<std::uint64_t>(b.f64[k]) == same) ++k;
          break;
        }
        case ColumnType::Str:
          while (k < rows && b.str[k] == c.same_str) ++k;
          break;
        default:
          while (k < rows && b.ints[k] == c.same_int) ++k;
          break;
      }
      if (k == rows) return;
      c.cells.reserve(c.type, std::max(c.reserve_rows, done_ + k + 1));
      switch (c.type) {
        case ColumnType::F64: c.cells.f64.assign(done_ + k, c.same_f64); break;
        case ColumnType::Str: c.cells.str.assign(done_ + k, c.same_str); break;
        default: c.cells.ints.assign(done_ + k, c.same_int); break;
      }
      c.uniform = false;
    }
    switch (c.type) {
      case ColumnType::F64: c.cells.f64.insert(c.cells.f64.end(), b.f64.begin() + static_cast<std::ptrdiff_t>(k), b.f64.end()); break;
      case ColumnType::Str:
        for (std::size_t r = k; r < rows; ++r) c.cells.str.emplace_back(b.str[r]);
        break;
      default: c.cells.ints.insert(c.cells.ints.end(), b.ints.begin() + static_cast<std::ptrdiff_t>(k), b.ints.end()); break;
    }
  }
  // The row being written is finished: its cells join the columns.
  void finish_row() {
    if (done_ == rows_) return;
    for (Column_& c : cells_) {
      if (c.uniform) {
        if (done_ == 0) {
          c.same_f64 = c.next_f64;
          c.same_int = c.next_int;
          c.same_str = c.next_str;
          continue;
        }
        if (next_is_same(c)) continue;
        c.cells.reserve(c.type, std::max(c.reserve_rows, done_ + 1));
        Cells& k = c.cells;
        switch (c.type) {
          case ColumnType::F64: k.f64.assign(done_, c.same_f64); break;
          case ColumnType::Str: k.str.assign(done_, c.same_str); break;
          default: k.ints.assign(done_, c.same_int); break;
        }
        c.uniform = false;
      }
      append_to(c.cells, c);
    }
    done_ = rows_;
  }
  Column_& check(std::size_t column, ColumnType type) {
    if (column >= columns_.size() || columns_[column].type != type || rows_ == 0 || closed_)
      throw std::logic_error("trace '" + label_ + "' table " + name_ + ": column " + std::to_string(column) +
                             " written out of order or as the wrong type");
    return cells_[column];
  }
  std::string label_;
  std::string name_;
  std::vector<Column> columns_;
  std::vector<Column_> cells_;
  std::vector<bool> taken_;
  std::size_t rows_ = 0;
  std::size_t done_ = 0;  // rows finished (all but the one being written)
  bool closed_ = false;
};

MemoryTrace::MemoryTrace(std::string label) : label_(std::move(label)) {
  attributes_[TRACE_FORMAT_ATTRIBUTE] = TRACE_FORMAT;
}

MemoryTrace::~MemoryTrace() = default;

Table& MemoryTrace::add_table(const std::string& name, std::vector<Column> columns, std::size_t) {
  if (committed_) throw std::logic_error("trace '" + label_ + "' used after commit()");
  if (name.empty() || tables_.contains(name) || byte_arrays_.contains(name))
    throw Error("trace '" + label_ + "': invalid or repeated dataset name '" + name + "'");
  auto t = std::make_unique<MemoryTable>(label_, name, std::move(columns));
  Table& out = *t;
  tables_.emplace(name, std::move(t));
  return out;
}

void MemoryTrace::add_bytes(const std::string& name, std::string_view bytes) {
  if (committed_) throw std::logic_error("trace '" + label_ + "' used after commit()");
  if (name.empty() || tables_.contains(name) || byte_arrays_.contains(name))
    throw Error("trace '" + label_ + "': invalid or repeated dataset name '" + name + "'");
  byte_arrays_.emplace(name, std::string(bytes));
}

void MemoryTrace::set_attribute(const std::string& name, std::string_view value) {
  if (value.find('\0') != std::string_view::npos)
    throw Error("trace '" + label_ + "': attribute '" + name + "' contains a NUL byte");
  attributes_[name] = std::string(value);
}
void MemoryTrace::set_attribute(const std::string& name, double value) { attributes_[name] = value; }
void MemoryTrace::set_attribute(const std::string& name, std::int64_t value) { attributes_[name] = value; }
void MemoryTrace::set_attribute(const std::string& name, std::uint64_t value) { attributes_[name] = value; }

void MemoryTrace::commit() {
  if (committed_) throw std::logic_error("trace '" + label_ + "' committed twice");
  for (auto& [name, t] : tables_) t->close();
  committed_ = true;
}

bool MemoryTrace::has_attribute(const std::string& name) const { return attributes_.contains(name); }

namespace {

[[noreturn]] void wrong_attribute(const std::string& label, const std::string& name, const char* want) {
  throw Error("trace '" + label + "': root attribute '" + name + "' is missing or not " + want);
}

}  // namespace

std::string MemoryTrace::attribute_string(const std::string& name) const {
  const auto it = attributes_.find(name);
  if (it == attributes_.end() || !std::holds_alternative<std::string>(it->second)) wrong_attribute(label_, name, "a string");
  return std::get<std::string>(it->second);
}

double MemoryTrace::attribute_double(const std::string& name) const {
  const auto it = attributes_.find(name);
  if (it == attributes_.end() || !std::holds_alternative<double>(it->second)) wrong_attribute(label_, name, "a float");
  return std::get<double>(it->second);
}

std::int64_t MemoryTrace::attribute_int(const std::string& name) const {
  const auto it = attributes_.find(name);
  if (it != attributes_.end() && std::holds_alternative<std::int64_t>(it->second)) return std::get<std::int64_t>(it->second);
  if (it != attributes_.end() && std::holds_alternative<std::uint64_t>(it->second) &&
      std::get<std::uint64_t>(it->second) <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return static_cast<std::int64_t>(std::get<std::uint64_t>(it->second));
  wrong_attribute(label_, name, "an integer");
}

std::uint64_t MemoryTrace::attribute_uint(const std::string& name) const {
  const auto it = attributes_.find(name);
  if (it != attributes_.end() && std::holds_alternative<std::uint64_t>(it->second)) return std::get<std::uint64_t>(it->second);
  if (it != attributes_.end() && std::holds_alternative<std::int64_t>(it->second))
    return static_cast<std::uint64_t>(std::get<std::int64_t>(it->second));  // bit for bit, as the file reader
  wrong_attribute(label_, name, "an integer");
}

const MemoryTrace::MemoryTable& MemoryTrace::table(const std::string& name) const {
  const auto it = tables_.find(name);
  if (it == tables_.end()) throw Error("trace '" + label_ + "': no table '/" + name + "'");
  return *it->second;
}

bool MemoryTrace::has_table(const std::string& name) const { return tables_.contains(name) || byte_arrays_.contains(name); }

bool MemoryTrace::has_column(const std::string& t, const std::string& column) const {
  return tables_.contains(t) && table(t).find(column) != nullptr;
}

std::size_t MemoryTrace::rows(const std::string& t) const { return table(t).rows(); }

namespace {

template <class Map>
auto take(Map& map, const std::string& label, const std::string& t, const std::string& column, const char* want) {
  const auto it = map.find(column);
  if (it == map.end()) throw Error("trace '" + label + "': column '" + t + "." + column + "' is not " + want);
  return std::move(it->second);
}

}  // namespace

std::vector<double> MemoryTrace::column_f64(const std::string& t, const std::string& column) const {
  Columns c = read_columns(t, {column});
  return take(c.f64, label_, t, column, "a float column");
}

std::vector<std::int64_t> MemoryTrace::column_int(const std::string& t, const std::string& column) const {
  Columns c = read_columns(t, {column});
  return take(c.ints, label_, t, column, "an integer or enum column");
}

std::vector<std::string> MemoryTrace::column_str(const std::string& t, const std::string& column) const {
  Columns c = read_columns(t, {column});
  return take(c.str, label_, t, column, "a string column");
}

Columns MemoryTrace::read_columns(const std::string& t, const std::vector<std::string>& columns) const {
  const MemoryTable& m = table(t);
  Columns out;
  for (const std::string& name : columns) {
    const std::size_t i = m.index(name);
    if (read_once_) {
      MemoryTable& owned = *tables_.find(t)->second;
      MemoryTable::Cells c = owned.take(i);
      switch (m.columns()[i].type) {
        case ColumnType::F64: out.f64[name] = std::move(c.f64); break;
        case ColumnType::Str: out.str[name] = std::move(c.str); break;
        default: out.ints[name] = std::move(c.ints); break;
      }
      continue;
    }
    switch (m.columns()[i].type) {
      case ColumnType::F64: out.f64[name] = m.cells(i).f64; break;
      case ColumnType::Str: out.str[name] = m.cells(i).str; break;
      default: out.ints[name] = m.cells(i).ints; break;
    }
  }
  return out;
}

void MemoryTrace::read_blocks(const std::string& t, const std::vector<std::string>& columns,
                              const BlockVisitor& visit) const {
  const MemoryTable& m = table(t);
  MemoryTable& owned = *tables_.find(t)->second;
  std::vector<MemoryTable::Source> sources;
  std::vector<ColumnType> types;
  for (const std::string& name : columns) {
    const std::size_t i = m.index(name);
    sources.push_back(owned.source(i, read_once_));
    types.push_back(m.columns()[i].type);
  }
  const std::size_t n = m.rows();
  Columns block;
  for (std::size_t first = 0; first < n; first += BLOCK_ROWS) {
    const std::size_t k = std::min(BLOCK_ROWS, n - first);
    const auto from = static_cast<std::ptrdiff_t>(first), to = static_cast<std::ptrdiff_t>(first + k);
    for (std::size_t c = 0; c < columns.size(); ++c) {
      MemoryTable::Source& s = sources[c];
      switch (types[c]) {
        case ColumnType::F64: {
          std::vector<double>& v = block.f64[columns[c]];
          if (s.uniform) v.assign(k, s.same_f64);
          else v.assign(s.cells.f64.begin() + from, s.cells.f64.begin() + to);
          break;
        }
        case ColumnType::Str: {
          std::vector<std::string>& v = block.str[columns[c]];
          if (s.uniform) v.assign(k, s.same_str);
          else v.assign(std::make_move_iterator(s.cells.str.begin() + from), std::make_move_iterator(s.cells.str.begin() + to));
          break;
        }
        default: {
          std::vector<std::int64_t>& v = block.ints[columns[c]];
          if (s.uniform) v.assign(k, s.same_int);
          else v.assign(s.cells.ints.begin() + from, s.cells.ints.begin() + to);
          break;
        }
      }
    }
    visit(first, block);
  }
}

std::string MemoryTrace::bytes(const std::string& name, std::uint64_t offset, std::uint64_t size) const {
  const auto it = byte_arrays_.find(name);
  if (it == byte_arrays_.end()) throw Error("trace '" + label_ + "': no dataset '/" + name + "'");
  if (offset > it->second.size() || size > it->second.size() - offset)
    throw Error("trace '" + label_ + "': bytes " + std::to_string(offset) + " to " + std::to_string(offset + size) +
                " are past the end of '/" + name + "'");
  return it->second.substr(offset, size);
}

std::vector<std::string> MemoryTrace::enum_labels(const std::string& t, const std::string& column) const {
  const MemoryTable& m = table(t);
  const Column& c = m.columns()[m.index(column)];
  if (c.type != ColumnType::Enum8 && c.type != ColumnType::Enum) throw Error("trace '" + label_ + "': " + t + "." + column + " is not an enum column");
  return c.enum_labels;
}

}  // namespace gcsim::trace
