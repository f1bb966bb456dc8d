// Reading a trace a block at a time (TraceReader::read_blocks), the columns analysis may
// leave out (TraceParts::details), and the sorting and team figures of the metrics that
// were rewritten for speed: each checked against the plain way of getting the same thing.
#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "analysis/metrics.hpp"
#include "analysis/report.hpp"
#include "analysis/trace_data.hpp"
#include "models/register_builtins.hpp"
#include "models/simulation.hpp"
#include "sim/trace/memory_trace.hpp"
#include "sim/trace/table_writer.hpp"
#include "sim/trace/trace_reader.hpp"
#include "support/scenario_support.hpp"
#include "support/trace_columns.hpp"

using namespace gcsim;
using trace::Column;
using trace::ColumnType;

namespace {

const std::vector<Column> COLUMNS = test::basic_columns(12);

void write_rows(trace::Table& t, int rows) {
  for (int i = 0; i < rows; ++i) {
    t.begin_row();
    t.f64(0, 0.5 * i);
    t.i64(1, (std::int64_t{1} << 40) + i);
    t.i32(2, -i);
    if (i % 7 != 0) t.str(3, "r" + std::to_string(i));
    t.enum8(4, static_cast<std::uint8_t>(i % 3));
  }
}

struct Block {
  std::size_t first = 0;
  std::size_t rows = 0;
};

// Every block handed out, checked row by row against the row's own values.
std::vector<Block> blocks_of(const trace::TraceReader& r, const std::string& table) {
  std::vector<Block> out;
  r.read_blocks(table, {"state", "x", "name", "id", "n"}, [&](std::size_t first, trace::Columns& b) {
    const std::size_t n = b.f64.at("x").size();
    CHECK(b.ints.at("id").size() == n);
    CHECK(b.ints.at("n").size() == n);
    CHECK(b.ints.at("state").size() == n);
    CHECK(b.str.at("name").size() == n);
    bool all_right = true;
    for (std::size_t k = 0; k < n; ++k) {
      const auto i = static_cast<std::int64_t>(first + k);
      all_right = all_right && b.f64.at("x")[k] == 0.5 * static_cast<double>(i) &&
                  b.ints.at("id")[k] == (std::int64_t{1} << 40) + i && b.ints.at("n")[k] == -i &&
                  b.ints.at("state")[k] == i % 3 && b.str.at("name")[k] == (i % 7 != 0 ? "r" + std::to_string(i) : "");
    }
    CHECK(all_right);
    b.str.at("name").clear();  // the visitor may take from the block: the next one is whole again
    out.push_back({first, n});
  });
  return out;
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

TEST_CASE("read_blocks hands out a table's rows in order, whole chunks of at least 16,384 rows at a time", "[unit][trace]") {
  test::TempDir dir("trace_blocks");
  const std::string path = dir.file("blocks.h5");
  {
    auto f = trace::TraceFile::create(path);
    write_rows(f->add_table("small_chunks", COLUMNS, 1024), 40000);  // 16 chunks a block
    write_rows(f->add_table("big_chunks", COLUMNS, 20000), 45000);   // one chunk a block
    write_rows(f->add_table("few", COLUMNS, 1024), 10);
    f->add_table("none", COLUMNS, 1024);
    f->commit();
  }
  const auto r = trace::TraceReader::open(path);
  const auto firsts = [](const std::vector<Block>& blocks) {
    std::vector<std::size_t> out;
    for (const Block& b : blocks) out.push_back(b.first);
    return out;
  };
  const std::vector<Block> small = blocks_of(*r, "small_chunks");
  CHECK(firsts(small) == std::vector<std::size_t>{0, 16384, 32768});
  CHECK(small.back().rows == 40000 - 32768);
  const std::vector<Block> big = blocks_of(*r, "big_chunks");
  CHECK(firsts(big) == std::vector<std::size_t>{0, 20000, 40000});
  CHECK(big.back().rows == 5000);
  const std::vector<Block> few = blocks_of(*r, "few");
  REQUIRE(few.size() == 1);
  CHECK(few[0].rows == 10);
  CHECK(blocks_of(*r, "none").empty());  // no rows, no call
  CHECK_THROWS_AS(r->read_blocks("few", {"x", "nope"}, [](std::size_t, trace::Columns&) {}), Error);

  // Read whole, a table of several batches of chunks (decoded one batch ahead on a second
  // thread) is the same rows.
  const trace::Columns whole = r->read_columns("small_chunks", {"x", "id", "n", "state", "name"});
  REQUIRE(whole.f64.at("x").size() == 40000);
  bool whole_right = true;
  for (std::int64_t i = 0; i < 40000; ++i) {
    const auto k = static_cast<std::size_t>(i);
    whole_right = whole_right && whole.f64.at("x")[k] == 0.5 * static_cast<double>(i) && whole.ints.at("n")[k] == -i &&
                  whole.ints.at("id")[k] == (std::int64_t{1} << 40) + i && whole.ints.at("state")[k] == i % 3 &&
                  whole.str.at("name")[k] == (i % 7 != 0 ? "r" + std::to_string(i) : "");
  }
  CHECK(whole_right);
  // A visitor that throws while the next batch is being decoded: its error comes out, and
  // the table reads whole again after it.
  int visits = 0;
  CHECK_THROWS_WITH(r->read_blocks("small_chunks", {"x"},
                                   [&](std::size_t, trace::Columns&) {
                                     if (++visits == 2) throw Error("stop here");
                                   }),
                    "stop here");
  CHECK(visits == 2);
  CHECK(firsts(blocks_of(*r, "small_chunks")) == std::vector<std::size_t>{0, 16384, 32768});

  // A trace in memory hands out blocks of MemoryTrace::BLOCK_ROWS rows, the same values.
  static_assert(trace::MemoryTrace::BLOCK_ROWS == 2048);
  trace::MemoryTrace memory("mem");
  write_rows(memory.add_table("small_chunks", COLUMNS, 1024), 40000);
  write_rows(memory.add_table("few", COLUMNS, 1024), 10);
  memory.add_table("none", COLUMNS, 1024);
  memory.commit();
  const std::vector<Block> in_memory = blocks_of(memory, "small_chunks");
  REQUIRE(in_memory.size() == 20);  // 19 of 2,048 rows and the last 1,088
  for (std::size_t b = 0; b < in_memory.size(); ++b) CHECK(in_memory[b].first == 2048 * b);
  CHECK(in_memory.back().rows == 40000 - 19 * 2048);
  const std::vector<Block> few_in_memory = blocks_of(memory, "few");
  REQUIRE(few_in_memory.size() == 1);
  CHECK(few_in_memory[0].rows == 10);
  CHECK(blocks_of(memory, "none").empty());
  CHECK_THROWS_AS(memory.read_blocks("few", {"x", "nope"}, [](std::size_t, trace::Columns&) {}), Error);
}

TEST_CASE("a trace in memory read once hands out a column of one value a block at a time, and only once", "[unit][trace]") {
  // A column of one value is kept as that value; read in blocks it is each block's rows of
  // it (never all 5,000 at once), beside a column of many values, and a second read of
  // either is an Error.
  trace::MemoryTrace memory("mem");
  trace::Table& t = memory.add_table("t", COLUMNS, 1024);
  for (int i = 0; i < 5000; ++i) t.begin_row().f64(0, 2.5).i64(1, i).str(3, "team-0").enum8(4, 1);
  memory.commit();
  memory.read_once();
  std::vector<std::size_t> sizes;
  bool all_right = true;
  memory.read_blocks("t", {"x", "id", "name", "state", "n"}, [&](std::size_t first, trace::Columns& b) {
    const std::size_t n = b.f64.at("x").size();
    sizes.push_back(n);
    for (std::size_t k = 0; k < n; ++k)
      all_right = all_right && b.f64.at("x")[k] == 2.5 && b.ints.at("id")[k] == static_cast<std::int64_t>(first + k) &&
                  b.str.at("name")[k] == "team-0" && b.ints.at("state")[k] == 1 && b.ints.at("n")[k] == 0;
  });
  CHECK(all_right);
  CHECK(sizes == std::vector<std::size_t>{2048, 2048, 904});
  CHECK_THROWS_AS(memory.read_blocks("t", {"x"}, [](std::size_t, trace::Columns&) {}), Error);
  CHECK_THROWS_AS(memory.read_blocks("t", {"id"}, [](std::size_t, trace::Columns&) {}), Error);
}

TEST_CASE("summarize sorts as std::sort does: the same order, so the same mean and percentiles bit for bit", "[unit]") {
  std::mt19937_64 gen(7);
  std::lognormal_distribution<double> lognormal(7.0, 2.0);
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{255}, std::size_t{256}, std::size_t{5000},
                              std::size_t{100000}}) {
    INFO(n << " values");
    std::vector<double> values(n);
    for (std::size_t i = 0; i < n; ++i) {
      // Waits and JCTs of many sizes, whole seconds repeated, negatives, infinities.
      const double v = i % 5 == 0 ? std::floor(lognormal(gen)) : lognormal(gen);
      values[i] = i % 11 == 0 ? -v : v;
      if (i % 997 == 1) values[i] = i % 2 == 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
      if (i % 13 == 3) values[i] = 0.0;
    }
    std::vector<double> reference = values;
    std::sort(reference.begin(), reference.end());
    double sum = 0;
    for (double v : reference) sum += v;
    const analysis::Distribution d = analysis::summarize(values);
    CHECK(values == reference);
    CHECK(d.count == n);
    if (n == 0) continue;
    CHECK((d.mean == sum / static_cast<double>(n) || (std::isnan(d.mean) && std::isnan(sum))));
    CHECK(d.p95 == analysis::percentile_sorted(reference, 95));
    CHECK(d.max == reference.back());
  }
  // A NaN has no place in the order: such a sample is summarized as before (std::sort).
  std::vector<double> with_nan(1000, 1.0);
  with_nan[500] = std::numeric_limits<double>::quiet_NaN();
  CHECK(analysis::summarize(with_nan).count == 1000);
}

TEST_CASE("a team every job names has the run's waits and JCTs, others those of their own jobs", "[unit]") {
  analysis::TraceData d;
  d.attrs.horizon_s = d.attrs.end_s = 1e6;
  for (int i = 0; i < 300; ++i) {
    analysis::JobRecord j;
    j.job_id = i;
    j.submit_s = i;
    j.start_s = i + (i * 37 % 101);  // waits 0..100 s
    j.end_s = j.start_s + 1000 + i;
    j.status = i % 10 == 9 ? analysis::JobStatus::Running : analysis::JobStatus::Completed;
    if (j.status == analysis::JobStatus::Running) j.end_s = std::numeric_limits<double>::quiet_NaN();
    j.resilience.team = "all";
    j.resilience.gpu_s_held = 100;
    d.jobs.push_back(j);
  }
  const analysis::Metrics one = analysis::compute_metrics(d);
  REQUIRE(one.teams.size() == 1);
  const std::vector<analysis::TeamMetrics> alone = analysis::team_metrics(d);  // sorts its own samples
  REQUIRE(alone.size() == 1);
  CHECK(one.teams[0].wait_s.mean == alone[0].wait_s.mean);
  CHECK(one.teams[0].wait_s.p95 == alone[0].wait_s.p95);
  CHECK(one.teams[0].jct_s.mean == alone[0].jct_s.mean);
  CHECK(one.teams[0].jct_s.count == 270);
  CHECK(one.teams[0].jobs == 300);
  CHECK(one.teams[0].gpu_hours_share == 1.0);

  // Three teams interleaved and jobs of none: each team's waits are its own jobs'.
  for (std::size_t i = 0; i < d.jobs.size(); ++i) d.jobs[i].resilience.team = i % 4 == 3 ? "" : i % 4 == 0 ? "b" : i % 4 == 1 ? "a" : "c";
  const analysis::Metrics mixed = analysis::compute_metrics(d);
  REQUIRE(mixed.teams.size() == 3);
  CHECK(mixed.teams[0].team == "a");
  CHECK(mixed.teams[1].team == "b");
  for (std::size_t t = 0; t < 3; ++t) {
    const std::string name = mixed.teams[t].team;
    std::vector<double> waits;
    for (const auto& j : d.jobs)
      if (j.resilience.team == name) waits.push_back(j.start_s - j.submit_s);
    std::sort(waits.begin(), waits.end());
    double sum = 0;
    for (double w : waits) sum += w;
    INFO("team " << name);
    CHECK(mixed.teams[t].jobs == 75);
    CHECK(mixed.teams[t].wait_s.count == 75);
    CHECK(mixed.teams[t].wait_s.mean == sum / 75.0);
    CHECK(mixed.teams[t].wait_s.p95 == analysis::percentile_sorted(waits, 95));
    CHECK(mixed.teams[t].gpu_hours_share == Approx(0.25));  // 75 of the 300 jobs' equal GPU-hours
  }
}

TEST_CASE("a trace read without its details gives the same report, JSON and comparison figures", "[scenario][trace]") {
  // Spot interruptions with checkpoints, and preemptions by las: every table the report
  // reads has rows.
  const models::Scenario s = test::scenario_from_yaml(R"(name: details
seed: 3
horizon: 3d
cluster:
  node_types:
    - {name: od, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 96, memory: 1152GiB, count: 1,
       price: {on_demand_per_hour: 32.77}}
    - {name: spot, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 96, memory: 1152GiB, count: 2, market: spot,
       price: {on_demand_per_hour: 32.77, spot_per_hour: 12.0}, interruptions: {process: poisson, rate: 0.08/h}}
scheduler:
  policy: las
workload:
  generators:
    - name: g
      count: 120
      arrival: {dist: exponential, mean: 10m}
      gpus: {choice: [1, 2, 4, 8]}
      duration: {dist: lognormal, median: 2h, sigma: 1}
      team: research
      checkpoint: {every: 30m, write_time: 1m, restore_time: 2m}
)");
  test::TempDir dir("trace_details");
  models::RunOptions o;
  o.fixed_wall_clock_s = 0.0;
  models::run_simulation_to(s, models::builtins().schedulers, dir.file("d.h5"), o);
  const analysis::TraceData full = analysis::read_trace(dir.file("d.h5"));
  const analysis::TraceData lean = analysis::read_trace(dir.file("d.h5"), {.events = false, .details = false});
  REQUIRE(!full.preemptions.empty());
  REQUIRE(!full.ledger.empty());
  REQUIRE(lean.jobs.size() == full.jobs.size());
  // The details stay at their defaults ...
  CHECK(lean.jobs[0].name.empty());
  CHECK(lean.jobs[0].first_node == -1);
  // ... /ledger and /preemptions are folded into their sums as their blocks are read, no
  // row kept, the sums those of the rows bit for bit ...
  CHECK(lean.ledger.empty());
  CHECK(lean.preemptions.empty());
  REQUIRE(lean.ledger_totals);
  REQUIRE(lean.preemption_totals);
  CHECK(!full.ledger_totals);
  const analysis::LedgerTotals want_ledger = analysis::ledger_totals(full.ledger);
  CHECK(lean.ledger_totals->rows == full.ledger.size());
  CHECK(lean.ledger_totals->total_usd == want_ledger.total_usd);
  CHECK(lean.ledger_totals->busy_usd == want_ledger.busy_usd);
  CHECK(lean.ledger_totals->storage_usd == want_ledger.storage_usd);
  REQUIRE(lean.ledger_totals->by_category.size() == want_ledger.by_category.size());
  for (std::size_t k = 0; k < want_ledger.by_category.size(); ++k) {
    CHECK(lean.ledger_totals->by_category[k].name == want_ledger.by_category[k].name);
    CHECK(lean.ledger_totals->by_category[k].usd == want_ledger.by_category[k].usd);
  }
  const analysis::PreemptionTotals want_preempted = analysis::preemption_totals(full.preemptions);
  CHECK(lean.preemption_totals->rows == static_cast<std::int64_t>(full.preemptions.size()));
  CHECK(lean.preemption_totals->save_gpu_h == want_preempted.save_gpu_h);
  CHECK(lean.preemption_totals->restore_gpu_h == want_preempted.restore_gpu_h);
  CHECK(lean.preemption_totals->lost_gpu_h == want_preempted.lost_gpu_h);
  CHECK(lean.preemption_totals->by_job == want_preempted.by_job);
  // ... and the rest is read whole.
  for (std::size_t i = 0; i < full.jobs.size(); ++i) {
    INFO("job " << i);
    CHECK(same(lean.jobs[i].start_s, full.jobs[i].start_s));
    CHECK(lean.jobs[i].resilience.team == full.jobs[i].resilience.team);
    CHECK(lean.jobs[i].resilience.gpu_s_lost == full.jobs[i].resilience.gpu_s_lost);
  }
  const analysis::Metrics m_full = analysis::compute_metrics(full);
  const analysis::Metrics m_lean = analysis::compute_metrics(lean);
  CHECK(m_lean.preemptions > 0);
  CHECK(analysis::format_report(lean, m_lean) == analysis::format_report(full, m_full));
  CHECK(analysis::format_json(m_lean, lean.attrs, analysis::team_budgets(lean)) ==
        analysis::format_json(m_full, full.attrs, analysis::team_budgets(full)));
}

namespace {

// A trace file's reader that says it cannot be read from two threads: read_trace then
// reads every table on its own thread, one after the other.
class OneThreadReader final : public trace::TraceReader {
 public:
  explicit OneThreadReader(const std::string& path) : r_(trace::TraceReader::open(path)) {}
  bool has_attribute(const std::string& n) const override { return r_->has_attribute(n); }
  std::string attribute_string(const std::string& n) const override { return r_->attribute_string(n); }
  double attribute_double(const std::string& n) const override { return r_->attribute_double(n); }
  std::int64_t attribute_int(const std::string& n) const override { return r_->attribute_int(n); }
  std::uint64_t attribute_uint(const std::string& n) const override { return r_->attribute_uint(n); }
  bool has_table(const std::string& t) const override { return r_->has_table(t); }
  bool has_column(const std::string& t, const std::string& c) const override { return r_->has_column(t, c); }
  std::size_t rows(const std::string& t) const override { return r_->rows(t); }
  std::vector<double> column_f64(const std::string& t, const std::string& c) const override { return r_->column_f64(t, c); }
  std::vector<std::int64_t> column_int(const std::string& t, const std::string& c) const override {
    return r_->column_int(t, c);
  }
  std::vector<std::string> column_str(const std::string& t, const std::string& c) const override {
    return r_->column_str(t, c);
  }
  trace::Columns read_columns(const std::string& t, const std::vector<std::string>& c) const override {
    return r_->read_columns(t, c);
  }
  void read_blocks(const std::string& t, const std::vector<std::string>& c, const BlockVisitor& v) const override {
    r_->read_blocks(t, c, v);
  }
  std::string bytes(const std::string& n, std::uint64_t o, std::uint64_t s) const override { return r_->bytes(n, o, s); }
  std::vector<std::string> enum_labels(const std::string& t, const std::string& c) const override {
    return r_->enum_labels(t, c);
  }

 private:
  std::unique_ptr<trace::TraceReader> r_;
};

// Flips a bit in the middle of the first chunk of `table` (HDF5 says where it is).
void damage_first_chunk(const std::string& path, const std::string& table) {
  haddr_t at = HADDR_UNDEF;
  hsize_t size = 0;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t d = H5Dopen2(f, table.c_str(), H5P_DEFAULT);
  REQUIRE(d >= 0);
  unsigned mask = 0;
  hsize_t offset[1] = {0};
  const hid_t space = H5Dget_space(d);
  const herr_t got = H5Dget_chunk_info(d, space, 0, offset, &mask, &at, &size);
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  REQUIRE(got >= 0);
  REQUIRE(size > 16);
  std::string bytes = test::read_bytes(path);
  bytes[static_cast<std::size_t>(at + size / 2)] ^= 0x10;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// What `f` throws, and what was written on the process's standard error meanwhile.
template <class F>
std::pair<std::string, std::string> error_and_stderr(const test::TempDir& dir, F&& f) {
  const std::string err_path = dir.file("stderr.txt");
  std::fflush(stderr);
  const int saved = dup(2);
  const int to = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(to, 2);
  close(to);
  std::string message = "(nothing thrown)";
  try {
    f();
  } catch (const Error& e) {
    message = e.what();
  }
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  return {message, test::read_bytes(err_path)};
}

}  // namespace

TEST_CASE("a trace file's cost tables are read on a second thread: the same data, and a damaged table named, HDF5 silent", "[unit][trace]") {
  const models::Scenario s = test::scenario_from_yaml(test::las_preemptions_yaml("two_threads", 60));
  test::TempDir dir("trace_two_threads");
  const std::string path = dir.file("t.h5");
  models::RunOptions o;
  o.fixed_wall_clock_s = 0.0;
  models::run_simulation_to(s, models::builtins().schedulers, path, o);
  REQUIRE(trace::TraceReader::open(path)->concurrent_reads());
  for (const analysis::TraceParts parts : {analysis::TraceParts{}, analysis::TraceParts{.events = false, .details = false}}) {
    const analysis::TraceData two = analysis::read_trace(path, parts);
    const analysis::TraceData one = analysis::read_trace(OneThreadReader(path), path, parts);
    REQUIRE(two.jobs.size() == one.jobs.size());
    CHECK(two.ledger.size() == one.ledger.size());
    CHECK(two.preemptions.size() == one.preemptions.size());
    CHECK(two.utilization.size() == one.utilization.size());
    CHECK(two.ledger_totals.has_value() == !parts.details);
    const analysis::Metrics m2 = analysis::compute_metrics(two);
    const analysis::Metrics m1 = analysis::compute_metrics(one);
    CHECK(m2.preemptions > 0);
    CHECK(analysis::format_report(two, m2) == analysis::format_report(one, m1));
    CHECK(analysis::format_json(m2, two.attrs, analysis::team_budgets(two)) ==
          analysis::format_json(m1, one.attrs, analysis::team_budgets(one)));
  }
  // A damaged /ledger, read on the second thread: its error comes out, and HDF5 prints
  // nothing of its own there. With /jobs damaged too, the error is /jobs' (this thread's
  // tables first), however the two threads' timing falls.
  damage_first_chunk(path, "ledger");
  const auto [ledger_error, ledger_stderr] = error_and_stderr(dir, [&] { (void)analysis::read_trace(path); });
  CHECK_THAT(ledger_error, Catch::Contains("'/ledger'"));
  CHECK(ledger_stderr.empty());
  damage_first_chunk(path, "jobs");
  for (int i = 0; i < 5; ++i) {
    const auto [both_error, both_stderr] = error_and_stderr(dir, [&] { (void)analysis::read_trace(path); });
    CHECK_THAT(both_error, Catch::Contains("'/jobs'"));
    CHECK(both_stderr.empty());
  }
}
