// The trace's compression level (TraceOptions, output.compression, --trace-compression):
// every level reads back the same rows, declares the filters its chunks went through, is
// reproducible byte for byte, and keeps the Fletcher32 checksum that reports damage.
#include <catch2/catch.hpp>
#include <hdf5.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/config/output_reader.hpp"
#include "support/scenario_support.hpp"
#include "sim/errors.hpp"
#include "sim/trace/table_writer.hpp"
#include "sim/trace/trace_reader.hpp"

using gcsim::trace::Column;
using gcsim::trace::ColumnType;
using gcsim::trace::TraceFile;
using gcsim::trace::TraceOptions;
using gcsim::trace::TraceReader;

namespace {

const std::vector<Column> COLUMNS = {
    {"t", ColumnType::F64},
    {"id", ColumnType::I64},
    {"name", ColumnType::Str, {}, 24},
    {"state", ColumnType::Enum8, {"idle", "busy"}},
};

// 10,000 rows in chunks of 4,096: two whole chunks and a padded partial one. A 70,000-byte
// blob: one whole chunk of 65,536 bytes and a padded partial one.
constexpr int ROWS = 10000;
std::string blob() {
  std::string b(70000, '\0');
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<char>((i * 7) % 251);
  return b;
}

void write_file(const std::string& path, int level) {
  TraceOptions options;
  options.compression_level = level;
  auto f = TraceFile::create(path, options);
  auto& t = f->add_table("rows", COLUMNS, 4096);
  for (int i = 0; i < ROWS; ++i) {
    t.begin_row().f64(0, 0.5 * i).i64(1, 1000000 + i).str(2, "job-" + std::to_string(i % 97)).enum8(3, i % 2);
  }
  f->add_bytes("blob", blob());
  f->commit();
}

struct Filters {
  bool shuffle = false;
  bool fletcher32 = false;
  int deflate_level = -1;  // -1: no deflate filter
  std::vector<H5Z_filter_t> order;
};

Filters filters_of(const std::string& path, const char* dataset) {
  Filters out;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
  REQUIRE(d >= 0);
  const hid_t dcpl = H5Dget_create_plist(d);
  const int n = H5Pget_nfilters(dcpl);
  for (int i = 0; i < n; ++i) {
    unsigned flags = 0;
    std::size_t nvalues = 4;
    unsigned values[4] = {};
    const H5Z_filter_t id = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &nvalues, values, 0, nullptr, nullptr);
    out.order.push_back(id);
    if (id == H5Z_FILTER_SHUFFLE) out.shuffle = true;
    if (id == H5Z_FILTER_FLETCHER32) out.fletcher32 = true;
    if (id == H5Z_FILTER_DEFLATE) out.deflate_level = static_cast<int>(values[0]);
  }
  H5Pclose(dcpl);
  H5Dclose(d);
  H5Fclose(f);
  return out;
}

}  // namespace

TEST_CASE("every compression level reads back the same rows and declares its filters", "[unit]") {
  gcsim::test::TempDir dir("trace-levels");
  std::vector<std::uintmax_t> sizes;
  for (int level : {0, 1, 4, 9}) {
    INFO("level " << level);
    const std::string path = dir.file("l" + std::to_string(level) + ".h5");
    write_file(path, level);
    sizes.push_back(std::filesystem::file_size(path));
    const auto r = TraceReader::open(path);
    REQUIRE(r->rows("rows") == static_cast<std::size_t>(ROWS));
    const std::vector<double> t = r->column_f64("rows", "t");
    const std::vector<std::int64_t> id = r->column_int("rows", "id");
    const std::vector<std::string> name = r->column_str("rows", "name");
    const std::vector<std::int64_t> state = r->column_int("rows", "state");
    bool same = true;
    for (int i = 0; i < ROWS; ++i) {
      const auto k = static_cast<std::size_t>(i);
      same = same && t[k] == 0.5 * i && id[k] == 1000000 + i && name[k] == "job-" + std::to_string(i % 97) &&
             state[k] == i % 2;
    }
    CHECK(same);
    CHECK(r->bytes("blob", 0, 70000) == blob());

    const Filters rows = filters_of(path, "rows");
    const Filters bytes = filters_of(path, "blob");
    CHECK(rows.fletcher32);
    CHECK(bytes.fletcher32);
    CHECK(rows.order.back() == H5Z_FILTER_FLETCHER32);  // it checks the bytes as stored
    if (level == 0) {
      CHECK(rows.order.size() == 1);
      CHECK(bytes.order.size() == 1);
    } else {
      CHECK(rows.order == std::vector<H5Z_filter_t>{H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE, H5Z_FILTER_FLETCHER32});
      CHECK(bytes.order == std::vector<H5Z_filter_t>{H5Z_FILTER_DEFLATE, H5Z_FILTER_FLETCHER32});
      CHECK(rows.deflate_level == level);
      CHECK(bytes.deflate_level == level);
    }
  }
  // Level 0 stores the rows as they are: 10,000 rows of 41 bytes and the 70,000-byte blob,
  // each padded to whole chunks (3 x 4,096 x 41 and 2 x 65,536 bytes), plus metadata.
  CHECK(sizes[0] >= 3u * 4096u * 41u + 2u * 65536u);
  // Deflate shrinks these regular rows many times over, and a higher level never grows them
  // here by more than a few bytes of metadata.
  CHECK(sizes[1] * 4 < sizes[0]);
  CHECK(sizes[2] <= sizes[1] + 64);
  CHECK(sizes[3] <= sizes[2] + 64);
}

TEST_CASE("a trace is byte for byte the same at each compression level, written twice", "[unit]") {
  gcsim::test::TempDir dir("trace-levels-repro");
  for (int level : {0, 1, 6}) {
    write_file(dir.file("a.h5"), level);
    write_file(dir.file("b.h5"), level);
    const std::string a = gcsim::test::read_bytes(dir.file("a.h5"));
    CHECK(!a.empty());
    CHECK(a == gcsim::test::read_bytes(dir.file("b.h5")));
  }
}

namespace {

// Two tables filled side by side, a table added, an attribute and a byte array written while
// chunks are in flight: every HDF5 call the pipeline must keep in sequence with its stores.
void write_interleaved(const std::string& path, int level, bool thread) {
  TraceOptions options;
  options.compression_level = level;
  options.encoding_thread = thread;
  auto f = TraceFile::create(path, options);
  auto& a = f->add_table("a", COLUMNS, 512);
  auto& b = f->add_table("b", {{"x", ColumnType::F64}, {"k", ColumnType::I32}}, 1000);
  for (int i = 0; i < ROWS; ++i) {
    a.begin_row().f64(0, 0.25 * i).i64(1, 7 * i).str(2, "n" + std::to_string(i % 31)).enum8(3, (i / 3) % 2);
    b.begin_row().f64(0, 1.0 / (i + 1)).i32(1, i % 1000);
    if (i == ROWS / 3) f->set_attribute("mid", std::int64_t{i});
    if (i == ROWS / 2) f->add_bytes("blob", blob());
  }
  auto& c = f->add_table("c", {{"y", ColumnType::I64}}, 2048);
  for (int i = 0; i < ROWS; ++i) c.begin_row().i64(0, i * i);
  f->set_attribute("end", 1.5);
  f->commit();
}

}  // namespace

TEST_CASE("a trace encoded on a thread of its own is byte for byte the one encoded inline", "[unit]") {
  gcsim::test::TempDir dir("trace-encoding-thread");
  for (int level : {0, 1, 6}) {
    write_interleaved(dir.file("inline.h5"), level, false);
    write_interleaved(dir.file("thread.h5"), level, true);
    const std::string a = gcsim::test::read_bytes(dir.file("inline.h5"));
    CHECK(a.size() > 10000);
    CHECK(a == gcsim::test::read_bytes(dir.file("thread.h5")));
    const auto r = TraceReader::open(dir.file("thread.h5"));
    CHECK(r->attribute_int("mid") == ROWS / 3);
  }
}

TEST_CASE("an uncompressed (level 0) chunk with a flipped bit is reported by its checksum", "[unit]") {
  gcsim::test::TempDir dir("trace-level0-damage");
  const std::string path = dir.file("t.h5");
  write_file(path, 0);
  haddr_t chunk_at = HADDR_UNDEF;
  hsize_t chunk_size = 0;
  {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t d = H5Dopen2(f, "rows", H5P_DEFAULT);
    const hid_t space = H5Dget_space(d);
    unsigned mask = 0;
    hsize_t offset[1] = {0};
    REQUIRE(H5Dget_chunk_info(d, space, 1, offset, &mask, &chunk_at, &chunk_size) >= 0);
    CHECK(offset[0] == 4096);
    CHECK(chunk_size == 4096u * 41u + 4u);  // the rows and the checksum
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
  }
  std::string bytes = gcsim::test::read_bytes(path);
  bytes[static_cast<std::size_t>(chunk_at + 100)] ^= 0x01;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  const auto r = TraceReader::open(path);
  CHECK_THROWS_AS(r->column_f64("rows", "t"), gcsim::Error);
}

TEST_CASE("output.compression's documented default is the writer's default", "[unit]") {
  const auto& key = gcsim::models::OUTPUT_KEYS[2];
  REQUIRE(key.name == "compression");
  CHECK(gcsim::config::default_text(key) == "`" + std::to_string(gcsim::trace::DEFAULT_COMPRESSION_LEVEL) + "`");
  CHECK(gcsim::config::range_text(key) == std::to_string(gcsim::trace::MIN_COMPRESSION_LEVEL) + ".." +
                                              std::to_string(gcsim::trace::MAX_COMPRESSION_LEVEL));
  CHECK(gcsim::models::OutputSpec{}.compression == gcsim::trace::DEFAULT_COMPRESSION_LEVEL);
}

// The reader decodes chunks gcsim's filters wrote itself (H5Dread_chunk, then inflate,
// unshuffle and the checksum off HDF5's global lock; sim/trace/trace_reader.cpp); a copy
// of the file whose chunks HDF5 must decode (h5repack: no filters, or deflate without
// Fletcher32, which that path does not take) is read by H5Dread. Both give the same rows.
TEST_CASE("rows decoded from the stored chunks equal HDF5's own reading of the same rows", "[unit]") {
  if (std::system("command -v h5repack > /dev/null 2>&1") != 0) {
    WARN("h5repack (Debian's hdf5-tools) not found: not checked");
    return;
  }
  gcsim::test::TempDir dir("trace-raw-chunks");
  for (int level : {0, 1, 9}) {
    INFO("level " << level);
    const std::string ours = dir.file("ours" + std::to_string(level) + ".h5");
    {
      // The rows of write_file, and a table with an int32 column, which is read as int64:
      // widened by hand from the stored rows, as H5Tconvert would (the h5repack copies below
      // are read by H5Dread, which converts with HDF5's own code).
      TraceOptions options;
      options.compression_level = level;
      auto f = TraceFile::create(ours, options);
      auto& t = f->add_table("rows", COLUMNS, 4096);
      for (int i = 0; i < ROWS; ++i)
        t.begin_row().f64(0, 0.5 * i).i64(1, 1000000 + i).str(2, "job-" + std::to_string(i % 97)).enum8(3, i % 2);
      auto& narrow = f->add_table("narrow", {{"n", ColumnType::I32}, {"x", ColumnType::F64}}, 1000);
      for (int i = 0; i < 2500; ++i) narrow.begin_row().i32(0, -7 * i).f64(1, 0.25 * i);
      f->commit();
    }
    const auto a = TraceReader::open(ours);
    const std::vector<std::int64_t> n = a->column_int("narrow", "n");
    REQUIRE(n.size() == 2500u);
    CHECK(n[2499] == -7 * 2499);
    const std::vector<double> t = a->column_f64("rows", "t");
    const std::vector<std::int64_t> id = a->column_int("rows", "id");
    const std::vector<std::string> name = a->column_str("rows", "name");
    const std::vector<std::int64_t> state = a->column_int("rows", "state");
    REQUIRE(t.size() == static_cast<std::size_t>(ROWS));
    for (const std::string filter : {"NONE", "GZIP=6"}) {
      INFO(filter);
      const std::string copy = dir.file("copy.h5");
      std::filesystem::remove(copy);
      REQUIRE(std::system(("h5repack -f " + filter + " " + ours + " " + copy + " > /dev/null 2>&1").c_str()) == 0);
      const Filters f = filters_of(copy, "rows");
      CHECK(!f.fletcher32);
      const auto b = TraceReader::open(copy);
      CHECK(b->column_f64("rows", "t") == t);
      CHECK(b->column_int("rows", "id") == id);
      CHECK(b->column_str("rows", "name") == name);
      CHECK(b->column_int("rows", "state") == state);
      CHECK(b->column_int("narrow", "n") == n);
      CHECK(b->column_f64("narrow", "x") == a->column_f64("narrow", "x"));
    }
  }
}
