// The copy of a run's trace that its summary is computed from (gcsim run: docs/engine.md,
// "The summary from memory"): a trace::MemoryTrace, except /ledger and /preemptions, whose
// rows are folded into the sums the figures need (LedgerTotals, PreemptionTotals) as they
// are written instead of kept, and /utilization without TraceParts::utilization (folded into
// its integrals, UtilizationFold); and without TraceParts::details, the other tables' detail
// columns (is_detail_column) are left out. A saturated million-job run under `las` posts 6
// million charges and 3 million preemptions; their rows in memory were most of its peak.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/trace_data.hpp"
#include "sim/trace/memory_trace.hpp"

namespace gcsim::analysis {

class SummaryTrace final : public trace::TraceFile {
 public:
  // `parts`: what read() will read (as read_trace's).
  SummaryTrace(const std::string& label, TraceParts parts);
  ~SummaryTrace() override;

  trace::Table& add_table(const std::string& name, std::vector<trace::Column> columns, std::size_t chunk_rows = 8192) override;
  void add_bytes(const std::string& name, std::string_view bytes) override;
  void set_attribute(const std::string& name, std::string_view value) override;
  void set_attribute(const std::string& name, double value) override;
  void set_attribute(const std::string& name, std::int64_t value) override;
  void set_attribute(const std::string& name, std::uint64_t value) override;
  void commit() override;

  // Once committed, and once only: the trace as read_trace reads it with the parts given
  // at construction, the folded tables' rows empty and their sums in
  // TraceData::ledger_totals and preemption_totals (set only when the run wrote the table).
  TraceData read();

  class FoldTable;
  class LeanTable;

 private:
  std::string label_;
  TraceParts parts_;
  trace::MemoryTrace memory_;
  std::vector<std::unique_ptr<LeanTable>> lean_;
  std::unique_ptr<FoldTable> ledger_;
  std::unique_ptr<FoldTable> preemptions_;
  std::unique_ptr<FoldTable> utilization_;  // without TraceParts::utilization
  std::optional<UtilizationFold> utilization_fold_;
  LedgerTotals ledger_totals_;
  PreemptionTotals preemption_totals_;
  bool committed_ = false;
  bool read_ = false;
};

}  // namespace gcsim::analysis
