// Generic reading of a trace written by TraceFile: root attributes and whole columns of
// named tables, by column name (so readers survive added columns), and byte arrays. Throws
// gcsim::Error naming the file and object when something is missing, of the wrong type or
// damaged (a checksum that fails); files without the trace_format attribute are refused.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gcsim::trace {

// Whole columns of one table, each in the map of its kind.
struct Columns {
  std::map<std::string, std::vector<double>> f64;         // float columns
  std::map<std::string, std::vector<std::int64_t>> ints;  // integer and enum columns, widened
  std::map<std::string, std::vector<std::string>> str;    // string columns
};

class TraceReader {
 public:
  static std::unique_ptr<TraceReader> open(const std::string& path);
  virtual ~TraceReader() = default;

  virtual bool has_attribute(const std::string& name) const = 0;
  virtual std::string attribute_string(const std::string& name) const = 0;
  virtual double attribute_double(const std::string& name) const = 0;
  virtual std::int64_t attribute_int(const std::string& name) const = 0;
  // An unsigned 64-bit integer (a seed, a replication). A signed 64-bit attribute (traces
  // before 2026-12 stored them so) is read back bit for bit: -1 there was 2^64 - 1.
  virtual std::uint64_t attribute_uint(const std::string& name) const = 0;

  virtual bool has_table(const std::string& table) const = 0;
  virtual bool has_column(const std::string& table, const std::string& column) const = 0;
  virtual std::size_t rows(const std::string& table) const = 0;
  virtual std::vector<double> column_f64(const std::string& table, const std::string& column) const = 0;
  // Any integer or enum column, widened.
  virtual std::vector<std::int64_t> column_int(const std::string& table, const std::string& column) const = 0;
  virtual std::vector<std::string> column_str(const std::string& table, const std::string& column) const = 0;
  // Several columns in one pass over the table: every compressed chunk is read once,
  // where separate column_*() calls read it once per column (which dominates the time
  // of reading wide tables such as /jobs).
  virtual Columns read_columns(const std::string& table, const std::vector<std::string>& columns) const = 0;
  // The same rows a block at a time, in row order: visit(first_row, block), each column of
  // `block` holding rows [first_row, first_row + n), n the same for every column. A caller
  // that moves each block into its own records never holds a whole column (at a million
  // rows, /jobs' columns were as large as the records and most of the reading time was
  // spent faulting their pages in). `block` is reused for the next call: the visitor may
  // move from it. A table without rows gives no call. This default hands out
  // read_columns() as one block (a trace in memory: its columns, not copied).
  using BlockVisitor = std::function<void(std::size_t first_row, Columns& block)>;
  virtual void read_blocks(const std::string& table, const std::vector<std::string>& columns,
                           const BlockVisitor& visit) const;
  // `size` bytes from `offset` of a byte array (TraceFile::add_bytes), bounds checked.
  virtual std::string bytes(const std::string& name, std::uint64_t offset, std::uint64_t size) const = 0;
  // The labels of an enum column, by value.
  virtual std::vector<std::string> enum_labels(const std::string& table, const std::string& column) const = 0;
  // Whether two threads may call this reader at once (each reading its own tables): a
  // trace file may where HDF5 is built thread-safe (one lock around each of its calls;
  // the chunks are decoded outside it); a trace in memory may not (it hands its columns
  // out).
  virtual bool concurrent_reads() const { return false; }
};

}  // namespace gcsim::trace
