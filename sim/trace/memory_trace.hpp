// A trace held in memory as columns, with no file and no HDF5: written through the
// TraceFile interface and read back through the TraceReader one, so a run's figures are
// computed by the same analysis code as a file's (gcsim sweep: runs whose trace is not
// kept). It checks what the file writer checks (column kinds, string widths, enum labels,
// names) and reads back what the file reader would: the same values, widened the same way,
// and an Error for a missing table, column or attribute, or one of another kind.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "sim/trace/table_writer.hpp"
#include "sim/trace/trace_reader.hpp"

namespace gcsim::trace {

class MemoryTrace final : public TraceFile, public TraceReader {
 public:
  // `label` names the trace in messages.
  explicit MemoryTrace(std::string label);
  ~MemoryTrace() override;

  // TraceFile. commit() only ends writing: the trace is then read through TraceReader.
  Table& add_table(const std::string& name, std::vector<Column> columns, std::size_t chunk_rows = 8192) override;
  void add_bytes(const std::string& name, std::string_view bytes) override;
  void set_attribute(const std::string& name, std::string_view value) override;
  void set_attribute(const std::string& name, double value) override;
  void set_attribute(const std::string& name, std::int64_t value) override;
  void set_attribute(const std::string& name, std::uint64_t value) override;
  void commit() override;
  // From now on each column is handed out by the first read that asks for it and freed
  // here, and read again is an Error: for a caller that reads the trace exactly once
  // (analysis::read_trace after a run), so its columns are not held twice.
  void read_once() { read_once_ = true; }

  // TraceReader.
  bool has_attribute(const std::string& name) const override;
  std::string attribute_string(const std::string& name) const override;
  double attribute_double(const std::string& name) const override;
  std::int64_t attribute_int(const std::string& name) const override;
  std::uint64_t attribute_uint(const std::string& name) const override;
  bool has_table(const std::string& table) const override;
  bool has_column(const std::string& table, const std::string& column) const override;
  std::size_t rows(const std::string& table) const override;
  std::vector<double> column_f64(const std::string& table, const std::string& column) const override;
  std::vector<std::int64_t> column_int(const std::string& table, const std::string& column) const override;
  std::vector<std::string> column_str(const std::string& table, const std::string& column) const override;
  Columns read_columns(const std::string& table, const std::vector<std::string>& columns) const override;
  // A block of BLOCK_ROWS rows at a time (the last one the rest), each column sliced from
  // its cells (a column of one value repeated for the block only), not the whole columns
  // as one block: the caller's records of a block stay in the cache while every column is
  // moved into them (one pass per column over a million /jobs records of 300 bytes each
  // missed the cache at every row).
  static constexpr std::size_t BLOCK_ROWS = 2048;
  void read_blocks(const std::string& table, const std::vector<std::string>& columns,
                   const BlockVisitor& visit) const override;
  std::string bytes(const std::string& name, std::uint64_t offset, std::uint64_t size) const override;
  std::vector<std::string> enum_labels(const std::string& table, const std::string& column) const override;

  class MemoryTable;

 private:
  const MemoryTable& table(const std::string& name) const;
  std::string label_;
  std::map<std::string, std::unique_ptr<MemoryTable>> tables_;
  std::map<std::string, std::string> byte_arrays_;
  std::map<std::string, std::variant<std::string, double, std::int64_t, std::uint64_t>> attributes_;
  bool committed_ = false;
  bool read_once_ = false;
};

}  // namespace gcsim::trace
