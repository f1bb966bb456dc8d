// The trace file: named tables (HDF5 compound datasets, chunked and deflate-compressed,
// one row per record) plus attributes on the root group. This layer is generic: it knows
// columns and rows, not jobs or GPUs; models/trace/ defines gcsim's tables.
//
// Nothing half-written is ever left behind: the file is written to a fresh temporary
// name, "<path>.<16 random hex digits>.tmp", created exclusively and never through a
// link (sim/atomic_file.hpp), and renamed to <path> by commit(); a TraceFile destroyed
// without commit() deletes its temporary file. Runs writing into one folder at once
// never share a temporary file. Rows are buffered per table and appended in chunks, so a run of
// millions of events keeps bounded memory. Object timestamps are disabled, so the same
// rows and attributes give the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gcsim::trace {

enum class ColumnType {
  F64,    // float64
  I64,    // int64
  I32,    // int32
  Str,    // variable-length UTF-8 string
  Enum8,  // uint8-based HDF5 enum with the column's labels (h5py reads ints + the mapping)
};

struct Column {
  std::string name;
  ColumnType type;
  std::vector<std::string> enum_labels = {};  // Enum8 only: label i has value i
};

class Table {
 public:
  virtual ~Table() = default;
  // Starts a new row; columns not set stay 0 / NaN (F64) / "" (Str).
  virtual Table& begin_row() = 0;
  virtual Table& f64(std::size_t column, double value) = 0;
  virtual Table& i64(std::size_t column, std::int64_t value) = 0;
  virtual Table& i32(std::size_t column, std::int32_t value) = 0;
  virtual Table& str(std::size_t column, std::string_view value) = 0;
  virtual Table& enum8(std::size_t column, std::uint8_t value) = 0;
  virtual std::size_t rows() const = 0;
};

class TraceFile {
 public:
  // Creates a fresh temporary file next to final_path (see above; an existing file or link
  // is never reused). Throws gcsim::Error on failure.
  static std::unique_ptr<TraceFile> create(const std::string& final_path);
  virtual ~TraceFile() = default;

  // Tables must be added before rows are written to them; the name is the dataset path
  // under the root ("jobs" -> /jobs). The returned reference lives as long as the file.
  virtual Table& add_table(const std::string& name, std::vector<Column> columns,
                           std::size_t chunk_rows = 8192) = 0;
  virtual void set_attribute(const std::string& name, std::string_view value) = 0;
  virtual void set_attribute(const std::string& name, double value) = 0;
  virtual void set_attribute(const std::string& name, std::int64_t value) = 0;

  // Flushes every table, closes the file and renames it into place.
  virtual void commit() = 0;
};

}  // namespace gcsim::trace
