// The sums a run's summary takes of /ledger and /preemptions (LedgerTotals, PreemptionTotals),
// by hand; and the SummaryTrace's checks on what is written to its folded tables.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "analysis/metrics.hpp"
#include "analysis/summary_trace.hpp"
#include "models/trace/schema.hpp"
#include "models/trace/schema_tables.hpp"
#include "sim/errors.hpp"
#include "sim/trace/memory_trace.hpp"

namespace {
namespace analysis = gcsim::analysis;
namespace trace = gcsim::trace;
namespace schema = gcsim::trace::schema;
}  // namespace

TEST_CASE("ledger and preemption sums by hand", "[unit][analysis]") {
  analysis::LedgerTotals l;
  l.add("compute_busy", 10.0, true);
  l.add("compute_idle", 5.0, false);
  l.add("storage", 2.5, false);
  l.add("egress", 1.0, false);
  l.add("compute_busy", 3.0, true);
  l.add("storage", 0.5, false);
  CHECK(l.rows == 6);
  CHECK(l.total_usd == 22.0);
  CHECK(l.busy_usd == 13.0);
  CHECK(l.storage_usd == 4.0);  // storage and egress
  REQUIRE(l.by_category.size() == 4);  // in order of first appearance
  CHECK(l.by_category[0].name == "compute_busy");
  CHECK(l.by_category[0].usd == 13.0);
  CHECK(l.by_category[1].usd == 5.0);
  CHECK(l.by_category[2].name == "storage");
  CHECK(l.by_category[2].storage);
  CHECK(l.by_category[2].usd == 3.0);
  CHECK(l.by_category[3].name == "egress");
  CHECK_FALSE(l.by_category[1].storage);

  analysis::PreemptionTotals p;
  p.add(2, 3600, 7200, 1800);
  p.add(0, 1800, 0, 0);
  p.add(2, 0, 3600, 0);
  p.add(-1, 360, 0, 0);  // counted, and in the sums, but of no job
  CHECK(p.rows == 4);
  CHECK(p.save_gpu_h == Approx(1.6).epsilon(1e-15));
  CHECK(p.restore_gpu_h == 3.0);
  CHECK(p.lost_gpu_h == 0.5);
  REQUIRE(p.by_job.size() >= 3);
  CHECK(p.by_job[0] == 1);
  CHECK(p.by_job[1] == 0);
  CHECK(p.by_job[2] == 2);

  // compute_metrics takes the same sums from rows.
  analysis::TraceData d;
  d.ledger = {{0, 0, 0, 1, "compute_busy", 10.0, true}, {1, 0, 0, -1, "compute_idle", 5.0, false},
              {2, -1, -1, -1, "storage", 2.5, false}};
  const analysis::Metrics m = analysis::compute_metrics(d);
  CHECK(m.total_cost_usd == 17.5);
  CHECK(m.busy_cost_usd == 10.0);
  CHECK(m.storage_cost_usd == 2.5);
  CHECK(m.idle_cost_usd == 5.0);
  // ... or from the totals when they are given, the rows then unread.
  d.ledger_totals = l;
  const analysis::Metrics t = analysis::compute_metrics(d);
  CHECK(t.total_cost_usd == 22.0);
  CHECK(t.storage_cost_usd == 4.0);
  CHECK(t.idle_cost_usd == 5.0);
}

TEST_CASE("a SummaryTrace checks what is written to the tables it folds", "[unit][analysis][trace]") {
  analysis::SummaryTrace s("s", {});
  trace::Table& ledger = s.add_table(std::string(schema::LEDGER.name), gcsim::models::trace_columns(schema::LEDGER));
  CHECK_THROWS_AS(s.add_table(std::string(schema::LEDGER.name), gcsim::models::trace_columns(schema::LEDGER)), gcsim::Error);
  CHECK_THROWS_AS(ledger.f64(0, 1.0), std::logic_error);  // before begin_row
  ledger.begin_row().f64(0, 1.0).i32(1, 0).i32(2, 0).i64(3, 7).enum8(4, 0).f64(5, 2.5).enum8(6, 1);
  CHECK_THROWS_AS(ledger.i32(0, 1), std::logic_error);   // time_s is a float
  CHECK_THROWS_AS(ledger.enum8(4, 7), std::logic_error);  // seven categories: no label 7
  CHECK(ledger.rows() == 1);
  CHECK_THROWS_AS(s.read(), std::logic_error);  // before commit
  s.commit();
  CHECK_THROWS_AS(ledger.begin_row(), std::logic_error);  // after commit
}

TEST_CASE("a MemoryTrace keeps a column of one value as that value, and reads back every cell", "[unit][trace]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  trace::MemoryTrace m("m");
  auto& t = m.add_table("t", {{"same", trace::ColumnType::F64},
                              {"zero", trace::ColumnType::F64},
                              {"late", trace::ColumnType::I32},
                              {"who", trace::ColumnType::Str, {}, 8},
                              {"unset", trace::ColumnType::F64}});
  t.reserve(4);
  t.begin_row().f64(0, nan).f64(1, 0.0).i32(2, 5).str(3, "a");
  t.begin_row().f64(0, nan).f64(1, 0.0).i32(2, 5).str(3, "a");
  t.begin_row().f64(0, nan).f64(1, -0.0).i32(2, 5).str(3, "a");  // -0 is another value
  // Before commit, the row being written reads back too.
  t.begin_row().f64(0, nan).f64(1, 0.0).i32(2, 6).str(3, "a");
  CHECK(m.column_int("t", "late") == std::vector<std::int64_t>{5, 5, 5, 6});
  m.commit();
  CHECK(m.rows("t") == 4);
  const std::vector<double> same = m.column_f64("t", "same");
  REQUIRE(same.size() == 4);
  for (double v : same) CHECK(std::isnan(v));
  const std::vector<double> zero = m.column_f64("t", "zero");
  REQUIRE(zero.size() == 4);
  CHECK_FALSE(std::signbit(zero[1]));
  CHECK(std::signbit(zero[2]));
  CHECK_FALSE(std::signbit(zero[3]));
  CHECK(m.column_int("t", "late") == std::vector<std::int64_t>{5, 5, 5, 6});
  CHECK(m.column_str("t", "who") == std::vector<std::string>{"a", "a", "a", "a"});
  const std::vector<double> unset = m.column_f64("t", "unset");  // never written: NaN
  REQUIRE(unset.size() == 4);
  CHECK(std::isnan(unset[3]));
  m.read_once();
  CHECK(m.column_int("t", "late") == std::vector<std::int64_t>{5, 5, 5, 6});
  CHECK(m.column_str("t", "who").size() == 4);
  CHECK_THROWS_AS(m.column_str("t", "who"), gcsim::Error);
}
