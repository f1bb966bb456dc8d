// Rows written in blocks (trace::Table::write_block, trace::BlockBuffer) against the same
// rows written a cell at a time: the same file byte for byte, the same trace in memory,
// the same errors, and a bad block writes nothing.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/errors.hpp"
#include "sim/trace/memory_trace.hpp"
#include "sim/trace/table_writer.hpp"
#include "sim/trace/tee_trace.hpp"
#include "sim/trace/trace_reader.hpp"
#include "support/scenario_support.hpp"
#include "support/trace_columns.hpp"

using namespace gcsim;
using trace::BlockBuffer;
using trace::BlockColumn;
using trace::Column;
using trace::ColumnType;

namespace {

std::vector<std::string> many_labels(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("l" + std::to_string(i));
  return out;
}

// Every column type, an Enum of 300 labels (two bytes a cell) among them.
std::vector<Column> all_columns() {
  std::vector<Column> c = test::basic_columns(12);
  c.push_back({"code", ColumnType::Enum, many_labels(300)});
  c.push_back({"same", ColumnType::F64});         // one value in every row
  c.push_back({"late", ColumnType::I32});         // one value, then others from row 150 on (inside a block)
  c.push_back({"label", ColumnType::Str, {}, 4});  // "" then "ab" from row 7 on
  c.push_back({"later", ColumnType::F64});        // 1.0, then others from row 120 on
  return c;
}
const std::vector<Column> COLUMNS = all_columns();

struct Row {
  double x;
  std::int64_t id;
  std::int32_t n;
  std::string name;
  std::uint8_t state;
  std::uint32_t code;
  double same;
  std::int32_t late;
  std::string label;
  double later;
};

// Row i, a pure function of i: NaN, -0.0, negative numbers, empty and full-width strings.
Row row(int i) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return Row{i % 5 == 0 ? nan : i % 7 == 0 ? -0.0 : 0.25 * i,
             (std::int64_t{1} << 40) - i,
             -3 * i,
             i % 4 == 0 ? "" : i % 9 == 0 ? "twelve-bytes" : "j" + std::to_string(i),
             static_cast<std::uint8_t>(i % 3),
             static_cast<std::uint32_t>((i * 37) % 300),
             nan,
             i < 150 ? 7 : i,
             i < 7 ? "" : "ab",
             i < 120 ? 1.0 : 0.5 * i};
}

void write_cells(trace::Table& t, int from, int to) {
  for (int i = from; i < to; ++i) {
    const Row r = row(i);
    t.begin_row().f64(0, r.x).i64(1, r.id).i32(2, r.n).str(3, r.name).enum8(4, r.state).enum_value(5, r.code);
    t.f64(6, r.same).i32(7, r.late).str(8, r.label).f64(9, r.later);
  }
}

void write_block(trace::Table& t, BlockBuffer& b, int from, int to) {
  std::vector<Row> rows;  // the strings the buffer views live until write_to
  rows.reserve(static_cast<std::size_t>(to - from));
  for (int i = from; i < to; ++i) {
    const Row& r = rows.emplace_back(row(i));
    b.f64(0, r.x).ints(1, r.id).ints(2, r.n).str(3, r.name).ints(4, r.state).ints(5, r.code);
    b.f64(6, r.same).ints(7, r.late).str(8, r.label).f64(9, r.later);
    b.end_row();
  }
  b.write_to(t);
}

// 400 rows: cells, a block over chunk boundaries (chunks of 16 rows), an empty block,
// cells, a block of one row, a long block.
void write_mixed(trace::Table& t) {
  BlockBuffer b(COLUMNS);
  write_cells(t, 0, 3);
  write_block(t, b, 3, 100);
  write_block(t, b, 100, 100);
  write_cells(t, 100, 101);
  write_block(t, b, 101, 102);
  write_block(t, b, 102, 400);
}

void write_file(const std::string& path, bool blocks) {
  auto f = trace::TraceFile::create(path);
  trace::Table& t = f->add_table("things", COLUMNS, 16);
  if (blocks)
    write_mixed(t);
  else
    write_cells(t, 0, 400);
  CHECK(t.rows() == 400);
  f->commit();
}

// Every column of `things` as read back, in one text (floats by their bits).
std::string dump(const trace::TraceReader& r) {
  std::string out = std::to_string(r.rows("things")) + "\n";
  for (const Column& c : COLUMNS) {
    out += c.name + ":";
    if (c.type == ColumnType::F64)
      for (const double v : r.column_f64("things", c.name)) out += std::to_string(std::bit_cast<std::uint64_t>(v)) + ",";
    else if (c.type == ColumnType::Str)
      for (const std::string& v : r.column_str("things", c.name)) out += v + ",";
    else
      for (const std::int64_t v : r.column_int("things", c.name)) out += std::to_string(v) + ",";
    out += "\n";
  }
  return out;
}

// What a call throws, as "<kind>: <message>", or "no error".
template <class F>
std::string thrown(F&& f) {
  try {
    f();
  } catch (const InternalError& e) {
    return std::string("internal: ") + e.what();
  } catch (const Error& e) {
    return std::string("error: ") + e.what();
  } catch (const std::logic_error& e) {
    return std::string("logic: ") + e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("rows written in blocks make the same file, byte for byte, as cells", "[unit][trace]") {
  test::TempDir dir;
  write_file(dir.file("cells.h5"), false);
  write_file(dir.file("blocks.h5"), true);
  CHECK(test::read_bytes(dir.file("blocks.h5")) == test::read_bytes(dir.file("cells.h5")));
  const std::string cells = dump(*trace::TraceReader::open(dir.file("cells.h5")));
  CHECK(dump(*trace::TraceReader::open(dir.file("blocks.h5"))) == cells);
  // The dump sees what the rows hold: a wrong row shows (a check of the check).
  CHECK(cells.find("twelve-bytes") != std::string::npos);
}

TEST_CASE("rows written in blocks make the same trace in memory, a column of one value kept as one", "[unit][trace]") {
  trace::MemoryTrace cells("cells"), blocks("blocks");
  write_cells(cells.add_table("things", COLUMNS), 0, 400);
  write_mixed(blocks.add_table("things", COLUMNS));
  cells.commit();
  blocks.commit();
  const std::string want = dump(cells);
  CHECK(dump(blocks) == want);
  // The same through a tee into a file and a trace in memory, each as the cells made it.
  test::TempDir dir;
  {
    auto file = trace::TraceFile::create(dir.file("tee.h5"));
    trace::MemoryTrace copy("copy");
    trace::TeeTrace tee(*file, copy, [](const std::string&) { return true; });
    write_mixed(tee.add_table("things", COLUMNS, 16));
    tee.commit();
    CHECK(dump(copy) == want);
  }
  write_file(dir.file("cells.h5"), false);
  CHECK(test::read_bytes(dir.file("tee.h5")) == test::read_bytes(dir.file("cells.h5")));
  // A block into a trace that keeps nothing counts its rows.
  trace::DiscardTrace discard;
  trace::Table& d = discard.add_table("things", COLUMNS);
  write_mixed(d);
  CHECK(d.rows() == 400);
}

TEST_CASE("a bad block is refused whole, with the error its cell would give", "[unit][trace]") {
  test::TempDir dir;
  auto file = trace::TraceFile::create(dir.file("bad.h5"));
  trace::MemoryTrace memory("mem");
  const std::vector<Column> cols = {{"x", ColumnType::F64},
                                    {"n", ColumnType::I32},
                                    {"s", ColumnType::Str, {}, 3},
                                    {"e", ColumnType::Enum8, {"a", "b"}}};
  for (trace::Table* t : {&file->add_table("t", cols, 4), &memory.add_table("t", cols)}) {
    const std::vector<double> x = {1, 2};
    std::vector<std::int64_t> n = {1, 2}, e = {0, 1};
    std::vector<std::string_view> s = {"ab", "c"};
    const auto block = [&] {
      return std::vector<BlockColumn>{{ColumnType::F64, x, {}, {}},
                                      {ColumnType::I32, {}, n, {}},
                                      {ColumnType::Str, {}, {}, s},
                                      {ColumnType::Enum8, {}, e, {}}};
    };
    std::vector<BlockColumn> b = block();
    t->write_block(2, b);
    REQUIRE(t->rows() == 2);
    // Each bad block leaves the table as it was.
    b = block();
    b.pop_back();
    CHECK(thrown([&] { t->write_block(2, b); }).starts_with("logic: trace table t: a block of 3 columns for 4"));
    b = block();
    b[1].type = ColumnType::I64;
    CHECK(thrown([&] { t->write_block(2, b); }) == "logic: trace table t.n is i32, given a block of i64");
    CHECK(thrown([&] { t->write_block(3, block()); }).starts_with("logic: trace table t: block column 0 (f64) has 2 cells for 3 rows"));
    n[1] = std::int64_t{1} << 31;
    CHECK(thrown([&] { t->write_block(2, block()); }) == "logic: trace table t.n: 2147483648 is not an int32");
    n[1] = 2;
    e[0] = 2;
    CHECK(thrown([&] { t->write_block(2, block()); }) == "logic: trace table t.e: enum value 2 has no label");
    e[0] = -1;
    CHECK(thrown([&] { t->write_block(2, block()); }) == "logic: trace table t.e: enum value -1 has no label");
    e[0] = 0;
    s[1] = "long";
    CHECK(thrown([&] { t->write_block(2, block()); }).starts_with("internal: trace '"));
    s[1] = std::string_view("a\0b", 3);
    CHECK(thrown([&] { t->write_block(2, block()); }).ends_with("t.s: string contains a NUL byte"));
    CHECK(t->rows() == 2);
    // The cell setters give the same errors for those cells.
    t->begin_row();
    CHECK(thrown([&] { t->enum8(3, 2); }) == "logic: trace table t.e: enum value 2 has no label");
    CHECK(thrown([&] { t->str(2, std::string_view("a\0b", 3)); }).ends_with("t.s: string contains a NUL byte"));
  }
  file->commit();
  auto r = trace::TraceReader::open(dir.file("bad.h5"));
  CHECK(r->rows("t") == 3);
  CHECK(r->column_str("t", "s") == std::vector<std::string>{"ab", "c", ""});
}

TEST_CASE("a buffer whose block is refused is emptied, and its next block written", "[unit][trace]") {
  trace::MemoryTrace memory("mem");
  const std::vector<Column> cols = {{"n", ColumnType::I32}, {"e", ColumnType::Enum8, {"a", "b"}}};
  trace::Table& t = memory.add_table("t", cols);
  BlockBuffer b(cols);
  b.ints(0, 1).ints(1, 5);  // no label 5
  b.end_row();
  CHECK(thrown([&] { b.write_to(t); }) == "logic: trace table t.e: enum value 5 has no label");
  CHECK(b.rows() == 0);
  b.ints(0, 2).ints(1, 1);
  b.end_row();
  b.write_to(t);
  memory.commit();
  CHECK(memory.column_int("t", "n") == std::vector<std::int64_t>{2});
  CHECK(memory.column_int("t", "e") == std::vector<std::int64_t>{1});
}

TEST_CASE("the base class writes a block as begin_row and one setter a cell", "[unit][trace]") {
  // A table that logs its calls: write_block is the base class's.
  struct Log final : trace::Table {
    std::string calls;
    std::size_t n = 0;
    Table& begin_row() override {
      calls += "|";
      ++n;
      return *this;
    }
    Table& f64(std::size_t c, double v) override { return add("f", c, std::to_string(v)); }
    Table& i64(std::size_t c, std::int64_t v) override { return add("I", c, std::to_string(v)); }
    Table& i32(std::size_t c, std::int32_t v) override { return add("i", c, std::to_string(v)); }
    Table& str(std::size_t c, std::string_view v) override { return add("s", c, std::string(v)); }
    Table& enum8(std::size_t c, std::uint8_t v) override { return add("e", c, std::to_string(v)); }
    Table& enum_value(std::size_t c, std::uint32_t v) override { return add("E", c, std::to_string(v)); }
    std::size_t rows() const override { return n; }
    Table& add(const char* kind, std::size_t c, const std::string& v) {
      calls += std::string(kind) + std::to_string(c) + "=" + v + " ";
      return *this;
    }
  } log;
  const std::vector<double> f = {0.5, 1.5};
  const std::vector<std::int64_t> i = {-1, 2}, e = {3, 4};
  const std::vector<std::string_view> s = {"a", "b"};
  const std::vector<BlockColumn> b = {{ColumnType::F64, f, {}, {}},
                                      {ColumnType::I32, {}, i, {}},
                                      {ColumnType::I64, {}, i, {}},
                                      {ColumnType::Str, {}, {}, s},
                                      {ColumnType::Enum8, {}, e, {}},
                                      {ColumnType::Enum, {}, e, {}}};
  log.write_block(2, b);
  CHECK(log.calls ==
        "|f0=0.500000 i1=-1 I2=-1 s3=a e4=3 E5=3 |f0=1.500000 i1=2 I2=2 s3=b e4=4 E5=4 ");
  CHECK(thrown([&] { log.write_block(3, b); }).starts_with("logic: trace table (a block): block column 0"));
}
