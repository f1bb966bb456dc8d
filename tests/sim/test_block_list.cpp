// sim::BlockList: appends by fixed blocks, never moving an element.
#include <catch2/catch.hpp>

#include <cstdint>

#include "sim/block_list.hpp"

using gcsim::sim::BlockList;

namespace {
struct Row {
  double a = 0;
  std::int64_t b = -1;
  char pad[40] = {};
};
}  // namespace

TEST_CASE("a block list keeps every element where it was put, across blocks", "[unit][block-list]") {
  BlockList<Row> rows;
  // 56-byte rows: 1 MiB / 56 = 18,724, rounded down to a power of two.
  STATIC_REQUIRE(BlockList<Row>::PER_BLOCK == 16384);
  CHECK(rows.empty());
  const std::size_t n = 3 * BlockList<Row>::PER_BLOCK + 5;
  rows.push_back(Row{0.5, 0});
  const Row* first = &rows[0];
  for (std::size_t i = 1; i < n; ++i) rows.push_back(Row{i + 0.5, static_cast<std::int64_t>(i)});
  CHECK(rows.size() == n);
  CHECK(&rows[0] == first);  // never moved by the blocks added after it
  for (std::size_t i : {std::size_t{0}, BlockList<Row>::PER_BLOCK - 1, BlockList<Row>::PER_BLOCK, n - 1}) {
    CHECK(rows[i].a == i + 0.5);
    CHECK(rows[i].b == static_cast<std::int64_t>(i));
  }
  rows[BlockList<Row>::PER_BLOCK].b = 7;
  CHECK(rows[BlockList<Row>::PER_BLOCK].b == 7);
}

TEST_CASE("a block list grows to a size with value-initialized elements", "[unit][block-list]") {
  BlockList<double> xs;
  xs.push_back(2.5);
  xs.grow_to(BlockList<double>::PER_BLOCK + 2);
  CHECK(xs.size() == BlockList<double>::PER_BLOCK + 2);
  CHECK(xs[0] == 2.5);
  CHECK(xs[1] == 0.0);
  CHECK(xs[BlockList<double>::PER_BLOCK + 1] == 0.0);
  xs.grow_to(3);  // never shrinks
  CHECK(xs.size() == BlockList<double>::PER_BLOCK + 2);
}
