// One trace written to two places at once: every table, byte array and attribute goes to
// the primary (the HDF5 file a run keeps), and those a predicate picks to the secondary too
// (a MemoryTrace the run's summary is computed from, so `gcsim run` and `compare` never
// read their own trace back: docs/engine.md, "The summary from memory"). Rows are copied
// cell by cell as they are written, so the secondary holds the same values the file does.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/trace/table_writer.hpp"

namespace gcsim::trace {

class TeeTrace final : public TraceFile {
 public:
  // `to_secondary(name)`: whether the table or byte array `name` goes to the secondary too.
  TeeTrace(TraceFile& primary, TraceFile& secondary, std::function<bool(const std::string&)> to_secondary);
  ~TeeTrace() override;

  Table& add_table(const std::string& name, std::vector<Column> columns, std::size_t chunk_rows = 8192) override;
  void add_bytes(const std::string& name, std::string_view bytes) override;
  void set_attribute(const std::string& name, std::string_view value) override;
  void set_attribute(const std::string& name, double value) override;
  void set_attribute(const std::string& name, std::int64_t value) override;
  void set_attribute(const std::string& name, std::uint64_t value) override;
  // Commits the primary, then the secondary.
  void commit() override;

  class TeeTable;

 private:
  TraceFile& primary_;
  TraceFile& secondary_;
  std::function<bool(const std::string&)> to_secondary_;
  std::vector<std::unique_ptr<TeeTable>> tables_;
};

// A trace that keeps nothing: the primary of a TeeTrace whose secondary is the only copy
// wanted (a run whose figures are taken in memory, with some tables left out).
class DiscardTrace final : public TraceFile {
 public:
  DiscardTrace();
  ~DiscardTrace() override;
  Table& add_table(const std::string& name, std::vector<Column> columns, std::size_t chunk_rows = 8192) override;
  void add_bytes(const std::string&, std::string_view) override {}
  void set_attribute(const std::string&, std::string_view) override {}
  void set_attribute(const std::string&, double) override {}
  void set_attribute(const std::string&, std::int64_t) override {}
  void set_attribute(const std::string&, std::uint64_t) override {}
  void commit() override {}

  class DiscardTable;

 private:
  std::vector<std::unique_ptr<DiscardTable>> tables_;
};

}  // namespace gcsim::trace
