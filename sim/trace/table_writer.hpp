// The trace file: named tables (HDF5 compound datasets, chunked and deflate-compressed at
// TraceOptions::compression_level, one row per record), byte arrays, and attributes on the root group. This layer is
// generic: it knows columns and rows, not jobs or GPUs; models/trace/ defines gcsim's tables.
//
// Corruption is detected, never trusted (docs/trace-format.md, "Checksums"): the file uses
// HDF5's 1.10 format, whose metadata (superblock, object headers, chunk indexes, heaps) is
// checksummed; every dataset has the Fletcher32 filter; and nothing is variable-length
// (strings are fixed-width cells or exactly-sized attributes, whole files are byte arrays),
// because HDF5's global heap, where variable-length data live, has no checksum and a
// damaged one crashes the library.
//
// Nothing half-written is ever left behind: the file is written to a fresh temporary
// name, "<path>.<16 random hex digits>.tmp", created exclusively and never through a
// link (sim/atomic_file.hpp), and renamed to <path> by commit(); a TraceFile destroyed
// without commit() deletes its temporary file. Runs writing into one folder at once
// never share a temporary file. Rows are buffered per table and appended in chunks, so a run of
// millions of events keeps bounded memory. Chunks are filtered (shuffle, deflate,
// Fletcher32) by gcsim (on the writing thread, or on a thread of the file's own: TraceOptions::encoding_thread) and handed to HDF5 already encoded
// (sim/trace/chunk_filters.hpp), so runs sharing a process compress in parallel. Object timestamps are disabled, so the same
// rows and attributes give the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/trace/chunk_filters.hpp"

namespace gcsim::trace {

enum class ColumnType {
  F64,    // float64
  I64,    // int64
  I32,    // int32
  Str,    // fixed-width, null-padded UTF-8 string of Column::str_bytes bytes
  Enum8,  // uint8-based HDF5 enum with the column's labels (h5py reads ints + the mapping)
  Enum,   // an HDF5 enum as wide as its labels need: uint8 up to 256 labels, uint16 up to
          // 65,536, uint32 beyond; for columns whose labels are known only when the table is
          // written (the names of a run's node types, teams), each cell a small code
};

// The most labels an Enum column may have (readers index labels by value).
inline constexpr std::size_t MAX_ENUM_LABELS = std::size_t{1} << 24;
// The base width in bytes of an Enum column with `labels` labels.
inline std::size_t enum_bytes(std::size_t labels) { return labels <= 256 ? 1 : labels <= 65536 ? 2 : 4; }

struct Column {
  std::string name;
  ColumnType type;
  std::vector<std::string> enum_labels = {};  // Enum8, Enum only: label i has value i
  std::size_t str_bytes = 0;                  // Str only: the cell width, the longest value
};

// The root attribute every TraceFile carries: the container's layout (fixed-width strings,
// checksums), not the meaning of its tables (models/trace/schema.hpp versions that).
// Format 1, never written under this name, was variable-length strings without checksums.
inline constexpr const char* TRACE_FORMAT_ATTRIBUTE = "trace_format";
inline constexpr std::int64_t TRACE_FORMAT = 2;

// One column of a block of rows (Table::write_block): its type, which must be the table
// column's, and the block's cells, one a row, in the span that type reads. I32, Enum8 and
// Enum cells are given as int64 and must lie in the column's range (an int32; a label's
// value), as the one-cell setters' arguments do.
struct BlockColumn {
  ColumnType type = ColumnType::F64;
  std::span<const double> f64 = {};            // F64
  std::span<const std::int64_t> ints = {};     // I64, I32, Enum8, Enum
  std::span<const std::string_view> str = {};  // Str
};

class Table {
 public:
  virtual ~Table() = default;
  // Starts a new row; columns not set stay 0 / NaN (F64) / "" (Str). A string longer than
  // its column is an InternalError naming table and column: every string that reaches a
  // column is bounded where it is read, so this is a bug, and it is never truncated.
  virtual Table& begin_row() = 0;
  virtual Table& f64(std::size_t column, double value) = 0;
  virtual Table& i64(std::size_t column, std::int64_t value) = 0;
  virtual Table& i32(std::size_t column, std::int32_t value) = 0;
  virtual Table& str(std::size_t column, std::string_view value) = 0;
  virtual Table& enum8(std::size_t column, std::uint8_t value) = 0;
  virtual Table& enum_value(std::size_t column, std::uint32_t value) = 0;  // an Enum column's
  virtual std::size_t rows() const = 0;
  // A hint: about `rows` more rows will be written (a table kept in memory reserves them).
  virtual void reserve(std::size_t rows) { (void)rows; }
  // Writes `rows` rows at once, column by column: block[c] holds column c's cells, one
  // entry for every column of the table. The table ends as begin_row() and one setter
  // per cell would leave it, with the same checks and errors, but without a call per cell
  // (a million-row /jobs table is written in blocks: docs/engine.md, "Rows in blocks").
  // Any row begun before is finished first. The base class does exactly the calls.
  virtual void write_block(std::size_t rows, std::span<const BlockColumn> block);
};

// The check every Table::write_block of a table that knows its columns makes first, so a
// bad block writes nothing: `block` gives each of `columns` its cells (as many entries as
// columns, each of its column's type, `rows` cells in the span that type reads), and each
// cell is one its setter takes: the same errors as the setters' (`label`: the trace's name
// in messages), std::logic_error for a programming error, gcsim::Error for a string with a
// NUL byte, InternalError for one wider than its column.
void check_block(const std::string& label, const std::string& table, const std::vector<Column>& columns,
                 std::size_t rows, std::span<const BlockColumn> block);

// A block of rows gathered a row at a time, column by column, then written with one
// Table::write_block (write_to): each row sets every column once, with the setter of its
// storage (f64 for F64; ints for I64, I32, Enum8 and Enum; str for Str), and end_row().
// Strings are kept as views: what they view must live until write_to.
class BlockBuffer {
 public:
  explicit BlockBuffer(const std::vector<Column>& columns) : columns_(columns.size()), spans_(columns.size()) {
    for (std::size_t c = 0; c < columns.size(); ++c) columns_[c].type = columns[c].type;
  }
  BlockBuffer& f64(std::size_t column, double value) {
    columns_[column].f64.push_back(value);
    return *this;
  }
  BlockBuffer& ints(std::size_t column, std::int64_t value) {
    columns_[column].ints.push_back(value);
    return *this;
  }
  BlockBuffer& str(std::size_t column, std::string_view value) {
    columns_[column].str.push_back(value);
    return *this;
  }
  void end_row() { ++rows_; }
  std::size_t rows() const { return rows_; }
  // Room for `rows` rows in each column's storage.
  void reserve(std::size_t rows) {
    for (Cells& c : columns_) {
      if (c.type == ColumnType::F64)
        c.f64.reserve(rows);
      else if (c.type == ColumnType::Str)
        c.str.reserve(rows);
      else
        c.ints.reserve(rows);
    }
  }
  // Writes the rows gathered to `table` and empties the buffer (its room kept), also when
  // the table refuses them (the error is thrown on; the rows are not offered again).
  void write_to(Table& table) {
    for (std::size_t c = 0; c < columns_.size(); ++c)
      spans_[c] = BlockColumn{columns_[c].type, columns_[c].f64, columns_[c].ints, columns_[c].str};
    struct Empty {
      BlockBuffer& b;
      ~Empty() { b.clear(); }
    } empty{*this};
    table.write_block(rows_, spans_);
  }
  // Drops the rows gathered (their room kept).
  void clear() {
    for (Cells& c : columns_) {
      c.f64.clear();
      c.ints.clear();
      c.str.clear();
    }
    rows_ = 0;
  }

 private:
  struct Cells {
    ColumnType type = ColumnType::F64;
    std::vector<double> f64;
    std::vector<std::int64_t> ints;
    std::vector<std::string_view> str;
  };
  std::vector<Cells> columns_;
  std::vector<BlockColumn> spans_;
  std::size_t rows_ = 0;
};

// A table written a row at a time whose rows reach it a block at a time: each row is
// gathered in a BlockBuffer (cells(), then end_row()) and the block written with one
// Table::write_block when it holds block_rows rows, and at flush(). For the tables a run
// writes from its event loop (events, utilization, ledger), whose rows then cost no call
// per cell. The owner flushes before the trace is committed: rows still gathered are not
// in the table. Strings are views (BlockBuffer): what they view must live until the
// block is written.
class BlockedRows {
 public:
  BlockedRows(Table& table, const std::vector<Column>& columns, std::size_t block_rows = 4096)
      : table_(table), buffer_(columns), block_rows_(block_rows) {
    buffer_.reserve(block_rows_);
  }
  BlockBuffer& cells() { return buffer_; }
  void end_row() {
    buffer_.end_row();
    if (buffer_.rows() >= block_rows_) buffer_.write_to(table_);
  }
  void flush() {
    if (buffer_.rows() > 0) buffer_.write_to(table_);
  }

 private:
  Table& table_;
  BlockBuffer buffer_;
  std::size_t block_rows_;
};

struct TraceOptions {
  // The deflate level of every dataset, MIN_COMPRESSION_LEVEL..MAX_COMPRESSION_LEVEL; 0
  // stores chunks uncompressed (still checksummed). Any other value is an InternalError:
  // readers of user input bound it first.
  int compression_level = DEFAULT_COMPRESSION_LEVEL;
  // Encode (shuffle, deflate, checksum) the chunks on a thread of the file's own, beside
  // the thread that writes the rows (ChunkPipeline). The file is the same byte for byte;
  // what changes is the writing thread's time. For a run that has a core to spare.
  bool encoding_thread = false;
};

class TraceFile {
 public:
  // Creates a fresh temporary file next to final_path (see above; an existing file or link
  // is never reused). Throws gcsim::Error on failure.
  static std::unique_ptr<TraceFile> create(const std::string& final_path, const TraceOptions& options = {});
  virtual ~TraceFile() = default;

  // Tables must be added before rows are written to them; the name is the dataset path
  // under the root ("jobs" -> /jobs). The returned reference lives as long as the file.
  // A chunk holds chunk_rows rows, or fewer when that would exceed 1 MiB.
  virtual Table& add_table(const std::string& name, std::vector<Column> columns,
                           std::size_t chunk_rows = 8192) = 0;
  // A 1-D uint8 dataset /<name> holding `bytes` (chunked, deflated, checksummed).
  virtual void add_bytes(const std::string& name, std::string_view bytes) = 0;
  // String attributes are fixed-length strings of exactly the value's size.
  virtual void set_attribute(const std::string& name, std::string_view value) = 0;
  virtual void set_attribute(const std::string& name, double value) = 0;
  virtual void set_attribute(const std::string& name, std::int64_t value) = 0;
  // Stored as unsigned 64-bit (H5T_STD_U64LE): seeds and replications take every value.
  virtual void set_attribute(const std::string& name, std::uint64_t value) = 0;

  // Flushes every table, closes the file and renames it into place.
  virtual void commit() = 0;
};

}  // namespace gcsim::trace
