// IdSet (models/scheduler/id_set.hpp), the waiting jobs of conservative backfill in id
// order: random inserts and erases over ids spread across many words and summary words,
// with every next() answer compared with a std::set's lower_bound.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <set>

#include "models/scheduler/id_set.hpp"

using gcsim::models::IdSet;

TEST_CASE("id set: next() is the least id at or after, as a sorted set says", "[model][scheduler]") {
  for (const std::uint32_t range : {70u, 5000u, 300000u}) {  // within one summary word, a few, many
    INFO("ids below " << range);
    std::mt19937_64 rng(range);
    std::uniform_int_distribution<std::uint32_t> id(0, range - 1);
    IdSet ids;
    std::set<std::uint32_t> ref;
    for (int step = 0; step < 20000; ++step) {
      const std::uint32_t x = id(rng);
      if (rng() % 3 == 0) {
        ids.erase(x);
        ref.erase(x);
      } else {
        ids.insert(x);
        ref.insert(x);
      }
      REQUIRE(ids.size() == ref.size());
      REQUIRE(ids.contains(x) == (ref.count(x) == 1));
      const std::uint32_t from = id(rng);
      const auto it = ref.lower_bound(from);
      REQUIRE(ids.next(from) == (it == ref.end() ? IdSet::NONE : *it));
    }
    // A walk in order visits exactly the set.
    std::size_t visited = 0;
    auto it = ref.begin();
    for (std::uint32_t x = ids.next(0); x != IdSet::NONE; x = ids.next(x + 1), ++it, ++visited) REQUIRE(x == *it);
    CHECK(visited == ref.size());
    CHECK(ids.next(range + 100000) == IdSet::NONE);  // past every word
  }
  // Sparse: one id far beyond the others, reached through empty summary words.
  IdSet sparse;
  sparse.insert(3);
  sparse.insert(5000000);
  CHECK(sparse.next(4) == 5000000);
  sparse.erase(5000000);
  CHECK(sparse.next(4) == IdSet::NONE);
  CHECK(sparse.empty() == false);
}
