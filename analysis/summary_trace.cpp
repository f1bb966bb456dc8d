// The copy of a run's trace its summary is computed from (see summary_trace.hpp).
#include "analysis/summary_trace.hpp"

#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>

#include "models/trace/schema.hpp"
#include "sim/check.hpp"
#include "sim/errors.hpp"

namespace gcsim::analysis {

namespace schema = trace::schema;

// One row's cells at a time, handed to `fold` when the row is complete (at the next
// begin_row, or at finish). Unset cells are what a MemoryTrace reads back for them: NaN for
// a float, 0 otherwise. Strings are not kept (no folded table reads one).
class SummaryTrace::FoldTable final : public trace::Table {
 public:
  using Fold = std::function<void(const FoldTable&)>;
  FoldTable(std::string name, std::vector<trace::Column> columns)
      : name_(std::move(name)), columns_(std::move(columns)), f64_(columns_.size()), ints_(columns_.size()) {}

  // The position of `column`, which the table must have.
  std::size_t index(std::string_view column) const {
    for (std::size_t i = 0; i < columns_.size(); ++i)
      if (columns_[i].name == column) return i;
    throw InternalError("summary trace: table '/" + name_ + "' has no column '" + std::string(column) + "'");
  }
  const std::vector<trace::Column>& columns() const { return columns_; }
  void set_fold(Fold fold) { fold_ = std::move(fold); }
  double f64_at(std::size_t i) const { return f64_[i]; }
  std::int64_t int_at(std::size_t i) const { return ints_[i]; }

  trace::Table& begin_row() override {
    if (closed_) throw std::logic_error("summary trace table " + name_ + " written after commit()");
    finish_row();
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      f64_[i] = std::numeric_limits<double>::quiet_NaN();
      ints_[i] = 0;
    }
    open_ = true;
    ++rows_;
    return *this;
  }
  trace::Table& f64(std::size_t column, double value) override {
    f64_[check(column, trace::ColumnType::F64)] = value;
    return *this;
  }
  trace::Table& i64(std::size_t column, std::int64_t value) override {
    ints_[check(column, trace::ColumnType::I64)] = value;
    return *this;
  }
  trace::Table& i32(std::size_t column, std::int32_t value) override {
    ints_[check(column, trace::ColumnType::I32)] = value;
    return *this;
  }
  trace::Table& str(std::size_t column, std::string_view) override {
    check(column, trace::ColumnType::Str);
    return *this;
  }
  trace::Table& enum8(std::size_t column, std::uint8_t value) override { return set_enum(column, trace::ColumnType::Enum8, value); }
  trace::Table& enum_value(std::size_t column, std::uint32_t value) override {
    return set_enum(column, trace::ColumnType::Enum, value);
  }
  std::size_t rows() const override { return rows_; }
  // Each row of the block folded in turn, its cells taken from the block's columns.
  void write_block(std::size_t rows, std::span<const trace::BlockColumn> block) override {
    if (closed_) throw std::logic_error("summary trace table " + name_ + " written after commit()");
    trace::check_block("summary trace", name_, columns_, rows, block);
    finish_row();
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t c = 0; c < columns_.size(); ++c) {
        switch (columns_[c].type) {
          case trace::ColumnType::F64: f64_[c] = block[c].f64[r]; break;
          case trace::ColumnType::Str: break;  // not kept
          default: ints_[c] = block[c].ints[r]; break;
        }
      }
      ++rows_;
      if (fold_) fold_(*this);
    }
  }

  // The last row is complete: fold it, and take no more.
  void close() {
    finish_row();
    closed_ = true;
  }

 private:
  void finish_row() {
    if (open_ && fold_) fold_(*this);
    open_ = false;
  }
  // As MemoryTrace: a value without a label is a programming error.
  trace::Table& set_enum(std::size_t column, trace::ColumnType type, std::uint32_t value) {
    ints_[check(column, type)] = value;
    if (value >= columns_[column].enum_labels.size())
      throw std::logic_error("summary trace table " + name_ + "." + columns_[column].name + ": enum value " +
                             std::to_string(value) + " has no label");
    return *this;
  }
  std::size_t check(std::size_t column, trace::ColumnType type) const {
    if (column >= columns_.size() || columns_[column].type != type || !open_ || closed_)
      throw std::logic_error("summary trace table " + name_ + ": column " + std::to_string(column) +
                             " written out of order or as the wrong type");
    return column;
  }

  std::string name_;
  std::vector<trace::Column> columns_;
  std::vector<double> f64_;
  std::vector<std::int64_t> ints_;
  Fold fold_;
  std::size_t rows_ = 0;
  bool open_ = false;
  bool closed_ = false;
};

// A table with some columns left out: their cells are dropped, the others passed on under
// their places in the kept table.
class SummaryTrace::LeanTable final : public trace::Table {
 public:
  static constexpr std::size_t DROPPED = static_cast<std::size_t>(-1);
  LeanTable(trace::Table& kept, std::vector<std::size_t> place) : kept_(kept), place_(std::move(place)) {}
  trace::Table& begin_row() override {
    kept_.begin_row();
    return *this;
  }
  trace::Table& f64(std::size_t column, double value) override {
    if (const std::size_t k = at(column); k != DROPPED) kept_.f64(k, value);
    return *this;
  }
  trace::Table& i64(std::size_t column, std::int64_t value) override {
    if (const std::size_t k = at(column); k != DROPPED) kept_.i64(k, value);
    return *this;
  }
  trace::Table& i32(std::size_t column, std::int32_t value) override {
    if (const std::size_t k = at(column); k != DROPPED) kept_.i32(k, value);
    return *this;
  }
  trace::Table& str(std::size_t column, std::string_view value) override {
    if (const std::size_t k = at(column); k != DROPPED) kept_.str(k, value);
    return *this;
  }
  trace::Table& enum8(std::size_t column, std::uint8_t value) override {
    if (const std::size_t k = at(column); k != DROPPED) kept_.enum8(k, value);
    return *this;
  }
  trace::Table& enum_value(std::size_t column, std::uint32_t value) override {
    if (const std::size_t k = at(column); k != DROPPED) kept_.enum_value(k, value);
    return *this;
  }
  std::size_t rows() const override { return kept_.rows(); }
  void reserve(std::size_t rows) override { kept_.reserve(rows); }
  void write_block(std::size_t rows, std::span<const trace::BlockColumn> block) override {
    if (block.size() != place_.size())
      throw std::logic_error("summary trace: a block of " + std::to_string(block.size()) + " columns for " +
                             std::to_string(place_.size()));
    kept_block_.clear();
    for (std::size_t c = 0; c < block.size(); ++c)
      if (place_[c] != DROPPED) kept_block_.push_back(block[c]);
    kept_.write_block(rows, kept_block_);
  }

 private:
  std::size_t at(std::size_t column) const {
    if (column >= place_.size()) throw std::logic_error("summary trace: column " + std::to_string(column) + " out of range");
    return place_[column];
  }
  trace::Table& kept_;
  std::vector<std::size_t> place_;  // kept columns keep their order, so a block's are its kept entries in turn
  std::vector<trace::BlockColumn> kept_block_;
};

SummaryTrace::SummaryTrace(const std::string& label, TraceParts parts) : label_(label), parts_(parts), memory_(label) {}

SummaryTrace::~SummaryTrace() = default;

namespace {

// An enum cell's label, as the reader maps it ("" for a value without one).
std::string_view label_of(const trace::Column& c, std::int64_t value) {
  return value >= 0 && static_cast<std::size_t>(value) < c.enum_labels.size() ? std::string_view(c.enum_labels[static_cast<std::size_t>(value)])
                                                                               : std::string_view();
}

}  // namespace

trace::Table& SummaryTrace::add_table(const std::string& name, std::vector<trace::Column> columns, std::size_t chunk_rows) {
  if (committed_) throw std::logic_error("summary trace '" + label_ + "' used after commit()");
  const bool folded = name == schema::LEDGER.name || name == schema::PREEMPTIONS.name;
  if (folded && (name == schema::LEDGER.name ? ledger_ != nullptr : preemptions_ != nullptr))
    throw Error("trace '" + label_ + "': invalid or repeated dataset name '" + name + "'");
  // The folded tables are read exactly as read_ledger and read_preemptions read them.
  if (name == schema::LEDGER.name) {
    ledger_ = std::make_unique<FoldTable>(name, std::move(columns));
    FoldTable& t = *ledger_;
    const std::size_t usd = t.index("usd"), category = t.index("category"), busy = t.index("busy");
    t.set_fold([usd, category, busy, this](const FoldTable& row) {
      ledger_totals_.add(label_of(row.columns()[category], row.int_at(category)), row.f64_at(usd),
                         label_of(row.columns()[busy], row.int_at(busy)) == schema::LEDGER_BUSY[1]);
    });
    return t;
  }
  if (name == schema::PREEMPTIONS.name) {
    preemptions_ = std::make_unique<FoldTable>(name, std::move(columns));
    FoldTable& t = *preemptions_;
    const std::size_t job = t.index("job"), save = t.index("save_gpu_s"), restore = t.index("restore_gpu_s"),
                      lost = t.index("lost_gpu_s");
    t.set_fold([job, save, restore, lost, this](const FoldTable& row) {
      preemption_totals_.add(row.int_at(job), row.f64_at(save), row.f64_at(restore), row.f64_at(lost));
    });
    return t;
  }
  if (name == schema::UTILIZATION.name && !parts_.utilization) {
    if (utilization_) throw Error("trace '" + label_ + "': invalid or repeated dataset name '" + name + "'");
    utilization_ = std::make_unique<FoldTable>(name, std::move(columns));
    FoldTable& t = *utilization_;
    const std::size_t time = t.index("time_s"), allocated = t.index("allocated_gpus"), total = t.index("total_gpus");
    utilization_fold_.emplace();
    t.set_fold([time, allocated, total, this](const FoldTable& row) {
      utilization_fold_->add(row.f64_at(time), row.f64_at(allocated), static_cast<std::int32_t>(row.int_at(total)));
    });
    return t;
  }
  if (parts_.details) return memory_.add_table(name, std::move(columns), chunk_rows);
  std::vector<trace::Column> kept;
  std::vector<std::size_t> place;
  for (trace::Column& c : columns) {
    const bool drop = is_detail_column(name, c.name);
    place.push_back(drop ? LeanTable::DROPPED : kept.size());
    if (!drop) kept.push_back(std::move(c));
  }
  if (kept.size() == columns.size()) return memory_.add_table(name, std::move(kept), chunk_rows);
  lean_.push_back(std::make_unique<LeanTable>(memory_.add_table(name, std::move(kept), chunk_rows), std::move(place)));
  return *lean_.back();
}

void SummaryTrace::add_bytes(const std::string& name, std::string_view bytes) { memory_.add_bytes(name, bytes); }
void SummaryTrace::set_attribute(const std::string& name, std::string_view value) { memory_.set_attribute(name, value); }
void SummaryTrace::set_attribute(const std::string& name, double value) { memory_.set_attribute(name, value); }
void SummaryTrace::set_attribute(const std::string& name, std::int64_t value) { memory_.set_attribute(name, value); }
void SummaryTrace::set_attribute(const std::string& name, std::uint64_t value) { memory_.set_attribute(name, value); }

void SummaryTrace::commit() {
  if (committed_) throw std::logic_error("summary trace '" + label_ + "' committed twice");
  if (ledger_) ledger_->close();
  if (preemptions_) preemptions_->close();
  if (utilization_) utilization_->close();
  memory_.commit();
  committed_ = true;
}

TraceData SummaryTrace::read() {
  if (!committed_) throw std::logic_error("summary trace '" + label_ + "' read before commit()");
  if (read_) throw std::logic_error("summary trace '" + label_ + "' read twice");
  read_ = true;
  memory_.read_once();
  TraceData data = read_trace(memory_, label_, parts_);
  if (ledger_) data.ledger_totals = std::move(ledger_totals_);
  if (preemptions_) data.preemption_totals = std::move(preemption_totals_);
  if (utilization_) data.utilization_fold = utilization_fold_;
  return data;
}

}  // namespace gcsim::analysis
