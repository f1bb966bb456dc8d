// HDF5's shuffle, deflate and Fletcher32 filters as gcsim applies them itself
// (sim/trace/chunk_filters.hpp): hand-computed values; chunks gcsim encodes read back
// through HDF5's own filter pipeline (H5Dread), and chunks HDF5 filtered itself decoded by
// gcsim. The deflate streams themselves differ (libdeflate's, not zlib's), so bytes are
// compared only where no deflate is involved.
#include <hdf5.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/check.hpp"
#include "sim/errors.hpp"
#include "sim/trace/chunk_filters.hpp"

namespace fs = std::filesystem;
using gcsim::trace::ChunkEncoder;
using gcsim::trace::decode_chunk;
using gcsim::trace::hdf5_fletcher32;
using gcsim::trace::hdf5_shuffle;
using gcsim::trace::hdf5_unshuffle;

namespace {

std::vector<std::byte> bytes_of(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

// Compressible but not trivial: rows of small counters and a slowly changing "time".
std::vector<std::byte> sample_data(std::size_t n, std::uint32_t seed) {
  std::vector<std::byte> out(n);
  std::uint32_t x = seed;
  for (std::size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    out[i] = static_cast<std::byte>((i % 13 == 0) ? (x >> 24) : ((i / 97) & 0x0f));
  }
  return out;
}

// A one-dimensional dataset "d" of `extent` elements of `element_bytes` (a fixed-width
// string type, so HDF5 converts nothing) in chunks of `chunk_elements`, declaring the
// filters a trace table of that level has; closed with its file.
struct Dataset {
  hid_t file = -1, type = -1, dcpl = -1, space = -1, dset = -1;
  Dataset(const std::string& path, std::size_t element_bytes, hsize_t extent, hsize_t chunk_elements, bool shuffle,
          int level) {
    file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(file >= 0);
    type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, element_bytes);
    H5Tset_strpad(type, H5T_STR_NULLPAD);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    const hsize_t chunk[1] = {chunk_elements};
    H5Pset_chunk(dcpl, 1, chunk);
    if (level > 0 && shuffle) H5Pset_shuffle(dcpl);
    if (level > 0) H5Pset_deflate(dcpl, static_cast<unsigned>(level));
    H5Pset_fletcher32(dcpl);
    const hsize_t dims[1] = {extent};
    const hsize_t maxdims[1] = {H5S_UNLIMITED};
    space = H5Screate_simple(1, dims, maxdims);
    dset = H5Dcreate2(file, "d", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    REQUIRE(dset >= 0);
  }
  ~Dataset() {
    H5Dclose(dset);
    H5Sclose(space);
    H5Pclose(dcpl);
    H5Tclose(type);
    H5Fclose(file);
  }
  Dataset(const Dataset&) = delete;
  Dataset& operator=(const Dataset&) = delete;
};

// Writes `data` through HDF5's own filters and returns the chunk as stored (H5Dread_chunk).
std::vector<std::byte> hdf5_filtered_chunk(const std::string& path, const std::vector<std::byte>& data,
                                           std::size_t element_bytes, hsize_t extent, hsize_t chunk_elements,
                                           bool shuffle, int level) {
  const Dataset d(path, element_bytes, extent, chunk_elements, shuffle, level);
  REQUIRE(H5Dwrite(d.dset, d.type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) >= 0);
  REQUIRE(H5Dflush(d.dset) >= 0);
  const hsize_t origin[1] = {0};
  hsize_t stored = 0;
  REQUIRE(H5Dget_chunk_storage_size(d.dset, origin, &stored) >= 0);
  std::vector<std::byte> out(stored);
  std::uint32_t mask = 0;
  REQUIRE(H5Dread_chunk(d.dset, H5P_DEFAULT, origin, &mask, out.data()) >= 0);
  CHECK(mask == 0);
  return out;
}

// Stores `stored` (one encoded chunk) with H5Dwrite_chunk and reads the elements back with
// H5Dread: what h5py and h5dump do with a trace's chunks.
std::vector<std::byte> hdf5_read_encoded_chunk(const std::string& path, std::span<const std::byte> stored,
                                               std::size_t element_bytes, hsize_t extent, hsize_t chunk_elements,
                                               bool shuffle, int level) {
  const Dataset d(path, element_bytes, extent, chunk_elements, shuffle, level);
  const hsize_t origin[1] = {0};
  REQUIRE(H5Dwrite_chunk(d.dset, H5P_DEFAULT, 0, origin, stored.size(), stored.data()) >= 0);
  std::vector<std::byte> out(element_bytes * extent);
  REQUIRE(H5Dread(d.dset, d.type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) >= 0);
  return out;
}

}  // namespace

TEST_CASE("hdf5_fletcher32 matches hand-computed sums", "[unit]") {
  // Words 0x0102; odd byte 0x03 as 0x0300: sum1 = 0x0102 + 0x0300 = 0x0402,
  // sum2 = 0x0102 + 0x0402 = 0x0504.
  CHECK(hdf5_fletcher32(bytes_of({0x01, 0x02, 0x03})) == 0x05040402u);
  // Words 0x0102, 0x0304: sum1 = 0x0406, sum2 = 0x0102 + 0x0406 = 0x0508.
  CHECK(hdf5_fletcher32(bytes_of({0x01, 0x02, 0x03, 0x04})) == 0x05080406u);
  CHECK(hdf5_fletcher32({}) == 0u);
  // 0xffff words fold modulo 65535: sum1 = 1000 * 0xffff folds to 0xffff, and so does sum2.
  const std::vector<std::byte> ones(2000, std::byte{0xff});
  CHECK(hdf5_fletcher32(ones) == 0xffffffffu);
}

TEST_CASE("hdf5_fletcher32 gives H5_checksum_fletcher32's word-by-word sums on any length", "[unit]") {
  // The definition, one word at a time, folded every 360 words and at the end.
  const auto reference = [](const std::vector<std::byte>& data) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(data.data());
    std::size_t words = data.size() / 2;
    std::uint32_t sum1 = 0, sum2 = 0;
    while (words > 0) {
      std::size_t n = std::min<std::size_t>(words, 360);
      words -= n;
      for (; n > 0; --n, p += 2) {
        sum1 += (static_cast<std::uint32_t>(p[0]) << 8) | p[1];
        sum2 += sum1;
      }
      sum1 = (sum1 & 0xffff) + (sum1 >> 16);
      sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    if (data.size() % 2 != 0) {
      sum1 += static_cast<std::uint32_t>(*p) << 8;
      sum2 += sum1;
      sum1 = (sum1 & 0xffff) + (sum1 >> 16);
      sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    return (sum2 << 16) | sum1;
  };
  std::uint32_t x = 12345;
  // Every length up to three 360-word blocks and a bit (odd ones with a last byte), random
  // bytes and all 0xff (the largest sums, where the folds' representation of 0 mod 65535
  // shows), then a megabyte.
  for (std::size_t size = 0; size < 2 * 1100; ++size) {
    std::vector<std::byte> random(size), high(size, std::byte{0xff});
    for (std::byte& b : random) b = static_cast<std::byte>((x = x * 1664525u + 1013904223u) >> 24);
    INFO(size << " bytes");
    CHECK(hdf5_fletcher32(random) == reference(random));
    CHECK(hdf5_fletcher32(high) == reference(high));
  }
  std::vector<std::byte> big(1 << 20);
  for (std::byte& b : big) b = static_cast<std::byte>((x = x * 1664525u + 1013904223u) >> 24);
  CHECK(hdf5_fletcher32(big) == reference(big));
}

TEST_CASE("hdf5_shuffle groups byte j of every element and keeps a trailing partial element", "[unit]") {
  const auto in = bytes_of({0xa0, 0xa1, 0xa2, 0xb0, 0xb1, 0xb2, 0xee});
  std::vector<std::byte> out;
  hdf5_shuffle(in, 3, out);
  CHECK(out == bytes_of({0xa0, 0xb0, 0xa1, 0xb1, 0xa2, 0xb2, 0xee}));
  std::vector<std::byte> back;
  hdf5_unshuffle(out, 3, back);
  CHECK(back == in);
  // One element, or one-byte elements: unchanged, as in HDF5.
  hdf5_shuffle(bytes_of({1, 2, 3}), 3, out);
  CHECK(out == bytes_of({1, 2, 3}));
  hdf5_shuffle(bytes_of({1, 2, 3}), 1, out);
  CHECK(out == bytes_of({1, 2, 3}));
}

TEST_CASE("hdf5_shuffle's 8 x 8 tiles give the byte-by-byte transpose for every element size and count", "[unit]") {
  // The definition (H5Zshuffle.c): byte j of element i goes to j * n + i; the bytes past
  // the last whole element stay at the end. Sizes and counts around the tiles' 8 (and the
  // 64-element blocks), with a partial element after some.
  for (std::size_t element_bytes : {2u, 7u, 8u, 9u, 15u, 16u, 17u, 24u, 178u}) {
    for (std::size_t n : {2u, 7u, 8u, 9u, 63u, 64u, 65u, 130u}) {
      for (std::size_t tail : {0u, 1u}) {
        if (tail >= element_bytes) continue;
        INFO(n << " elements of " << element_bytes << " bytes, " << tail << " byte(s) after them");
        // Every byte its own draw (sample_data repeats bytes, which could hide a swap).
        std::vector<std::byte> in(n * element_bytes + tail);
        std::uint32_t x = static_cast<std::uint32_t>(element_bytes * 1000 + n);
        for (std::byte& b : in) b = static_cast<std::byte>((x = x * 1664525u + 1013904223u) >> 24);
        std::vector<std::byte> expected(in.size());
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t j = 0; j < element_bytes; ++j) expected[j * n + i] = in[i * element_bytes + j];
        for (std::size_t k = n * element_bytes; k < in.size(); ++k) expected[k] = in[k];
        std::vector<std::byte> out, back;
        hdf5_shuffle(in, element_bytes, out);
        CHECK(out == expected);
        hdf5_unshuffle(out, element_bytes, back);
        CHECK(back == in);
      }
    }
  }
}

TEST_CASE("ChunkEncoder's chunks read back through HDF5's own filter pipeline, and HDF5's through decode_chunk", "[unit]") {
  const fs::path dir = fs::path(GCSIM_BINARY_DIR) / "test-tmp" / ("chunk-filters-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "ref.h5").string();

  struct Case {
    std::size_t element_bytes;
    hsize_t chunk_elements;
    hsize_t extent;  // < chunk_elements: HDF5 pads the chunk with the fill value (zeros)
    bool shuffle;
  };
  // 1,000-byte elements (wide rows) take hdf5_unshuffle's blocked loop, in blocks of 128
  // bytes and a last partial one.
  const Case cases[] = {{24, 500, 500, true},       {41, 300, 123, true},  {1000, 150, 97, true},
                        {1, 65536, 65536, false}, {1, 4096, 1000, false}};
  for (int level : {0, 1, 4, 9}) {
    for (const Case& c : cases) {
      INFO("level " << level << ", element " << c.element_bytes << " bytes, extent " << c.extent);
      std::vector<std::byte> data = sample_data(c.element_bytes * c.extent, static_cast<std::uint32_t>(level + c.extent));
      const std::vector<std::byte> rows = data;
      const std::vector<std::byte> hdf5s =
          hdf5_filtered_chunk(path, data, c.element_bytes, c.extent, c.chunk_elements, c.shuffle, level);
      data.resize(c.element_bytes * c.chunk_elements, std::byte{0});
      ChunkEncoder encoder(level);
      const auto got = encoder.encode(data, c.shuffle ? c.element_bytes : 0);
      const std::vector<std::byte> ours(got.begin(), got.end());
      // Without deflate the filters are shuffle-free and exact: the same bytes as HDF5's.
      if (level == 0) CHECK(ours == hdf5s);
      if (level > 0) CHECK(ours.size() < data.size());  // it compressed
      // HDF5 decodes and checks our chunk: the rows come back.
      CHECK(hdf5_read_encoded_chunk(path, ours, c.element_bytes, c.extent, c.chunk_elements, c.shuffle, level) == rows);
      // The same input through the same (reused) compressor gives the same bytes.
      const auto again = encoder.encode(data, c.shuffle ? c.element_bytes : 0);
      CHECK(std::vector<std::byte>(again.begin(), again.end()) == ours);
      // decode_chunk reads both HDF5's own chunk (zlib's stream, as older traces hold) and ours.
      CHECK(decode_chunk(hdf5s, level > 0, c.shuffle ? c.element_bytes : 0, data.size()) == data);
      CHECK(decode_chunk(ours, level > 0, c.shuffle ? c.element_bytes : 0, data.size()) == data);
    }
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST_CASE("decode_chunk refuses a chunk whose checksum does not match", "[unit]") {
  ChunkEncoder encoder(4);
  const std::vector<std::byte> data = sample_data(4096, 7);
  const auto encoded = encoder.encode(data, 8);
  std::vector<std::byte> damaged(encoded.begin(), encoded.end());
  damaged[damaged.size() / 2] ^= std::byte{0x10};
  CHECK(decode_chunk(std::vector<std::byte>(encoded.begin(), encoded.end()), true, 8, data.size()) == data);
  CHECK_THROWS_AS(decode_chunk(damaged, true, 8, data.size()), gcsim::Error);
}

TEST_CASE("ChunkEncoder refuses a level outside 0-9 as an internal error", "[unit]") {
  CHECK_THROWS_AS(ChunkEncoder{-1}, gcsim::InternalError);
  CHECK_THROWS_AS(ChunkEncoder{10}, gcsim::InternalError);
}

TEST_CASE("ChunkPipeline stores every chunk in submission order, encoded as ChunkEncoder encodes it", "[unit]") {
  using gcsim::trace::ChunkPipeline;
  // 60 chunks of different sizes and contents through a pipeline 3 deep: whether encoded
  // inline or on the pipeline's thread, store() sees chunk k k-th, with the bytes an
  // encoder of the same level gives for it.
  for (const bool thread : {false, true}) {
    for (const int level : {0, 1, 6}) {
      ChunkEncoder reference(level);
      ChunkPipeline pipeline(level, thread, 3);
      CHECK(pipeline.threaded() == thread);
      std::vector<std::vector<std::byte>> expected;
      std::vector<std::vector<std::byte>> stored;
      std::vector<std::size_t> order;
      for (std::size_t k = 0; k < 60; ++k) {
        const std::vector<std::byte> data = sample_data(512 + 97 * k, static_cast<unsigned>(k));
        const auto e = reference.encode(data, 8);
        expected.emplace_back(e.begin(), e.end());
        std::vector<std::byte> raw = pipeline.buffer();
        raw.assign(data.begin(), data.end());
        pipeline.submit(std::move(raw), 8, [&stored, &order, k](std::span<const std::byte> encoded) {
          order.push_back(k);
          stored.emplace_back(encoded.begin(), encoded.end());
        });
      }
      pipeline.drain();
      REQUIRE(order.size() == 60);
      for (std::size_t k = 0; k < 60; ++k) CHECK(order[k] == k);
      CHECK(stored == expected);
    }
  }
}

TEST_CASE("ChunkPipeline's caller encodes chunks itself rather than wait for the thread, the same bytes in the same order", "[unit]") {
  using gcsim::trace::ChunkPipeline;
  // 48 chunks of 256 KiB at level 6, two deep, submitted as fast as they can be copied:
  // the thread cannot keep up, so the caller encodes some of them (the newest waiting),
  // and store() still sees chunk k k-th with the bytes one encoder gives.
  std::vector<std::vector<std::byte>> data, expected, stored;
  ChunkEncoder reference(6);
  for (unsigned k = 0; k < 48; ++k) {
    data.push_back(sample_data(std::size_t{256} << 10, k));
    const auto e = reference.encode(data.back(), 8);
    expected.emplace_back(e.begin(), e.end());
  }
  ChunkPipeline pipeline(6, true, 2);
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < data.size(); ++k) {
    std::vector<std::byte> raw = pipeline.buffer();
    raw.assign(data[k].begin(), data[k].end());
    pipeline.submit(std::move(raw), 8, [&stored, &order, k](std::span<const std::byte> encoded) {
      order.push_back(k);
      stored.emplace_back(encoded.begin(), encoded.end());
    });
  }
  pipeline.drain();
  CHECK(pipeline.encoded_by_caller() > 0);
  REQUIRE(order.size() == data.size());
  for (std::size_t k = 0; k < order.size(); ++k) CHECK(order[k] == k);
  CHECK(stored == expected);
}

TEST_CASE("ChunkPipeline reports a store's failure to the caller, and drops what follows when destroyed", "[unit]") {
  using gcsim::trace::ChunkPipeline;
  for (const bool thread : {false, true}) {
    int stores = 0;
    bool thrown = false;
    {
      ChunkPipeline pipeline(1, thread, 2);
      try {
        for (int k = 0; k < 10; ++k) {
          pipeline.submit(sample_data(4096, 3), 8, [&stores, k](std::span<const std::byte>) {
            ++stores;
            if (k == 4) throw gcsim::Error("disk full at chunk 4");
          });
        }
        pipeline.drain();
      } catch (const gcsim::Error& e) {
        thrown = std::string(e.what()).find("chunk 4") != std::string::npos;
      }
    }  // destroyed with chunks not stored: no store runs after the failure
    CHECK(thrown);
    CHECK(stores == 5);
  }
}

TEST_CASE("hdf5_unshuffle undoes hdf5_shuffle for every element size and count, tiles and remainders alike", "[unit]") {
  // The unshuffle moves 8 x 8 byte tiles where it can (SSE2) and single bytes for the rest:
  // element sizes around multiples of 8, counts around multiples of 8 and of its 64-element
  // blocks, and a trailing partial element, each against the definition.
  for (std::size_t element : {std::size_t{2}, std::size_t{3}, std::size_t{7}, std::size_t{8}, std::size_t{9},
                              std::size_t{15}, std::size_t{16}, std::size_t{17}, std::size_t{24}, std::size_t{190}}) {
    for (std::size_t n : {std::size_t{2}, std::size_t{7}, std::size_t{8}, std::size_t{9}, std::size_t{63}, std::size_t{64},
                          std::size_t{65}, std::size_t{130}, std::size_t{1000}}) {
      for (std::size_t tail : {std::size_t{0}, element - 1}) {
        INFO(n << " elements of " << element << " bytes and " << tail << " more");
        const std::vector<std::byte> rows = sample_data(n * element + tail, static_cast<std::uint32_t>(element * 1000 + n));
        std::vector<std::byte> planes(rows.size());
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t j = 0; j < element; ++j) planes[j * n + i] = rows[i * element + j];
        for (std::size_t k = n * element; k < rows.size(); ++k) planes[k] = rows[k];
        std::vector<std::byte> shuffled, back;
        hdf5_shuffle(rows, element, shuffled);
        CHECK(shuffled == planes);
        hdf5_unshuffle(planes, element, back);
        CHECK(back == rows);
      }
    }
  }
}

TEST_CASE("decode_chunk_into gives decode_chunk's bytes with its buffers reused across chunks of any kind", "[unit]") {
  std::vector<std::byte> out, scratch;
  for (int round = 0; round < 2; ++round) {
    for (int level : {0, 1, 6}) {
      for (std::size_t element : {std::size_t{0}, std::size_t{24}, std::size_t{190}}) {
        if (level == 0 && element != 0) continue;  // no shuffle without deflate
        for (std::size_t bytes : {std::size_t{190 * 100}, std::size_t{24 * 3}, std::size_t{190 * 4096}}) {
          INFO("level " << level << ", element " << element << ", " << bytes << " bytes");
          const std::vector<std::byte> data = sample_data(bytes, static_cast<std::uint32_t>(bytes + element + 31 * level));
          ChunkEncoder encoder(level);
          const auto encoded = encoder.encode(data, element);
          const std::vector<std::byte> stored(encoded.begin(), encoded.end());
          gcsim::trace::decode_chunk_into(stored, level > 0, element, bytes, out, scratch);
          CHECK(out == data);
          CHECK(out == decode_chunk(stored, level > 0, element, bytes));
        }
      }
    }
  }
  std::vector<std::byte> damaged = [] {
    ChunkEncoder encoder(1);
    const auto e = encoder.encode(sample_data(800, 3), 8);
    return std::vector<std::byte>(e.begin(), e.end());
  }();
  damaged[5] ^= std::byte{1};
  CHECK_THROWS_AS(gcsim::trace::decode_chunk_into(damaged, true, 8, 800, out, scratch), gcsim::Error);
}
