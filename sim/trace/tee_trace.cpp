// A trace written to two places (see tee_trace.hpp).
#include "sim/trace/tee_trace.hpp"

#include <utility>

namespace gcsim::trace {

// The primary's table and the secondary's: each call is made on both, in the same order,
// so the two see the same rows.
class TeeTrace::TeeTable final : public Table {
 public:
  TeeTable(Table& primary, Table& secondary) : a_(primary), b_(secondary) {}
  Table& begin_row() override {
    a_.begin_row();
    b_.begin_row();
    return *this;
  }
  Table& f64(std::size_t column, double value) override {
    a_.f64(column, value);
    b_.f64(column, value);
    return *this;
  }
  Table& i64(std::size_t column, std::int64_t value) override {
    a_.i64(column, value);
    b_.i64(column, value);
    return *this;
  }
  Table& i32(std::size_t column, std::int32_t value) override {
    a_.i32(column, value);
    b_.i32(column, value);
    return *this;
  }
  Table& str(std::size_t column, std::string_view value) override {
    a_.str(column, value);
    b_.str(column, value);
    return *this;
  }
  Table& enum8(std::size_t column, std::uint8_t value) override {
    a_.enum8(column, value);
    b_.enum8(column, value);
    return *this;
  }
  Table& enum_value(std::size_t column, std::uint32_t value) override {
    a_.enum_value(column, value);
    b_.enum_value(column, value);
    return *this;
  }
  std::size_t rows() const override { return a_.rows(); }
  void reserve(std::size_t rows) override {
    a_.reserve(rows);
    b_.reserve(rows);
  }
  void write_block(std::size_t rows, std::span<const BlockColumn> block) override {
    a_.write_block(rows, block);
    b_.write_block(rows, block);
  }

 private:
  Table& a_;
  Table& b_;
};

TeeTrace::TeeTrace(TraceFile& primary, TraceFile& secondary, std::function<bool(const std::string&)> to_secondary)
    : primary_(primary), secondary_(secondary), to_secondary_(std::move(to_secondary)) {}

TeeTrace::~TeeTrace() = default;

Table& TeeTrace::add_table(const std::string& name, std::vector<Column> columns, std::size_t chunk_rows) {
  // A table that goes to the primary alone is the primary's own: no copying layer on its
  // rows (the event log, written from the event loop, is one).
  if (!to_secondary_(name)) return primary_.add_table(name, std::move(columns), chunk_rows);
  Table& secondary = secondary_.add_table(name, columns, chunk_rows);
  Table& primary = primary_.add_table(name, std::move(columns), chunk_rows);
  tables_.push_back(std::make_unique<TeeTable>(primary, secondary));
  return *tables_.back();
}

void TeeTrace::add_bytes(const std::string& name, std::string_view bytes) {
  primary_.add_bytes(name, bytes);
  if (to_secondary_(name)) secondary_.add_bytes(name, bytes);
}

void TeeTrace::set_attribute(const std::string& name, std::string_view value) {
  primary_.set_attribute(name, value);
  secondary_.set_attribute(name, value);
}
void TeeTrace::set_attribute(const std::string& name, double value) {
  primary_.set_attribute(name, value);
  secondary_.set_attribute(name, value);
}
void TeeTrace::set_attribute(const std::string& name, std::int64_t value) {
  primary_.set_attribute(name, value);
  secondary_.set_attribute(name, value);
}
void TeeTrace::set_attribute(const std::string& name, std::uint64_t value) {
  primary_.set_attribute(name, value);
  secondary_.set_attribute(name, value);
}

void TeeTrace::commit() {
  primary_.commit();
  secondary_.commit();
}

// Counts its rows and drops them.
class DiscardTrace::DiscardTable final : public Table {
 public:
  Table& begin_row() override {
    ++rows_;
    return *this;
  }
  Table& f64(std::size_t, double) override { return *this; }
  Table& i64(std::size_t, std::int64_t) override { return *this; }
  Table& i32(std::size_t, std::int32_t) override { return *this; }
  Table& str(std::size_t, std::string_view) override { return *this; }
  Table& enum8(std::size_t, std::uint8_t) override { return *this; }
  Table& enum_value(std::size_t, std::uint32_t) override { return *this; }
  std::size_t rows() const override { return rows_; }
  void write_block(std::size_t rows, std::span<const BlockColumn>) override { rows_ += rows; }

 private:
  std::size_t rows_ = 0;
};

DiscardTrace::DiscardTrace() = default;
DiscardTrace::~DiscardTrace() = default;

Table& DiscardTrace::add_table(const std::string&, std::vector<Column>, std::size_t) {
  tables_.push_back(std::make_unique<DiscardTable>());
  return *tables_.back();
}

}  // namespace gcsim::trace
