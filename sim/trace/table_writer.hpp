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
