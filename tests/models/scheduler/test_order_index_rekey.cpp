// OrderIndex::rekey_all (finish-time-fair's re-keying at each round): the order visited after
// it is the new keys' order, ties by job id, and the index stays usable (erase, insert,
// key, scan) because each job's position was refiled with its heap rebuilt.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "models/scheduler/order_index.hpp"
#include "sim/check.hpp"

using namespace gcsim;

namespace {

std::vector<std::uint32_t> visit_all(const models::OrderIndex<double>& idx) {
  std::vector<std::uint32_t> seen;
  idx.scan([](int) { return true; }, [&](std::uint32_t id, bool) {
    seen.push_back(id);
    return models::Visit::Next;
  });
  return seen;
}

// The order a plain sort gives: key, then job id.
std::vector<std::uint32_t> sorted_order(std::vector<std::pair<double, std::uint32_t>> keyed) {
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::uint32_t> order;
  for (const auto& [key, job] : keyed) order.push_back(job);
  return order;
}

}  // namespace

TEST_CASE("OrderIndex::rekey_all: a hand-computed order after new keys", "[unit][scheduler]") {
  models::OrderIndex<double> idx;
  // (job, gpus, key): 1-GPU jobs 0, 1, 2, 3; 8-GPU jobs 4, 5; a 100-GPU job 6.
  idx.insert(0, 1, 0.0);
  idx.insert(1, 1, 1.0);
  idx.insert(2, 1, 2.0);
  idx.insert(3, 1, 3.0);
  idx.insert(4, 8, 4.0);
  idx.insert(5, 8, 5.0);
  idx.insert(6, 100, 6.0);
  CHECK(visit_all(idx) == std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6});
  // New key 10 - 2 x job, but job 1 gets 0 (a tie with job 5, another class) and job 3
  // gets 6 (a tie with job 2, its class):
  //   job 0 10, 1 0, 2 6, 3 6, 4 2, 5 0, 6 -2
  // so the order is 6 (-2), 1 (0), 5 (0), 4 (2), 2 (6), 3 (6), 0 (10).
  idx.rekey_all([](std::uint32_t job) {
    if (job == 1) return 0.0;
    if (job == 3) return 6.0;
    return 10.0 - 2.0 * job;
  });
  CHECK(idx.size() == 7);
  CHECK(visit_all(idx) == std::vector<std::uint32_t>{6, 1, 5, 4, 2, 3, 0});
  CHECK(idx.key(2) == 6.0);
  CHECK(idx.key(6) == -2.0);
  // Only classes below 8 GPUs fit: 1, 2, 3, 0 as fitting (6, 5 and 4 visited as not).
  std::vector<std::uint32_t> fitting;
  idx.scan([](int g) { return g < 8; }, [&](std::uint32_t id, bool fits) {
    if (fits) fitting.push_back(id);
    return models::Visit::Next;
  });
  CHECK(fitting == std::vector<std::uint32_t>{1, 2, 3, 0});
  // The positions were refiled: erasing finds each job where it now is.
  idx.erase(3);
  idx.erase(5);
  idx.insert(7, 1, 1.0);  // between 1 (0) and 4 (2)
  CHECK(visit_all(idx) == std::vector<std::uint32_t>{6, 1, 7, 4, 2, 0});
  CHECK_FALSE(idx.contains(3));
  CHECK_THROWS_AS(idx.erase(3), InternalError);
}

TEST_CASE("OrderIndex::rekey_all agrees with a plain sort on random keys", "[unit][scheduler]") {
  std::mt19937_64 rng(12345);  // raw 64-bit draws: the same on every standard library
  const int sizes[] = {1, 1, 1, 2, 4, 8, 16, 64, 65, 128, 300};
  models::OrderIndex<double> idx;
  std::vector<double> key(3000);
  std::vector<int> gpus(key.size());
  std::vector<bool> in(key.size(), false);
  // Keys from few values, so that ties (broken by job id) are common.
  const auto draw_key = [&] { return static_cast<double>(rng() % 200) - 100.0; };
  const auto expected = [&] {
    std::vector<std::pair<double, std::uint32_t>> keyed;
    for (std::uint32_t j = 0; j < key.size(); ++j)
      if (in[j]) keyed.emplace_back(key[j], j);
    return sorted_order(keyed);
  };
  for (std::uint32_t j = 0; j < 2000; ++j) {
    gpus[j] = sizes[rng() % std::size(sizes)];
    key[j] = draw_key();
    idx.insert(j, gpus[j], key[j]);
    in[j] = true;
  }
  REQUIRE(visit_all(idx) == expected());
  for (int round = 0; round < 5; ++round) {
    // Every key moves, each by its own slope (finish-time-fair's -dt / T_ideal), and some to a
    // fresh value.
    for (std::uint32_t j = 0; j < key.size(); ++j)
      if (in[j]) key[j] = rng() % 4 == 0 ? draw_key() : key[j] - static_cast<double>(j % 7);
    idx.rekey_all([&](std::uint32_t job) { return key[job]; });
    REQUIRE(visit_all(idx) == expected());
    for (std::uint32_t j = 0; j < key.size(); ++j)
      if (in[j]) REQUIRE(idx.key(j) == key[j]);
    // Then jobs leave and join between rounds, as they do between ticks.
    for (int k = 0; k < 300; ++k) {
      const std::uint32_t j = static_cast<std::uint32_t>(rng() % key.size());
      if (in[j]) {
        idx.erase(j);
        in[j] = false;
      } else {
        if (gpus[j] == 0) gpus[j] = sizes[rng() % std::size(sizes)];
        key[j] = draw_key();
        idx.insert(j, gpus[j], key[j]);
        in[j] = true;
      }
    }
    REQUIRE(visit_all(idx) == expected());
  }
  // An empty index and one of a single job.
  models::OrderIndex<double> empty;
  empty.rekey_all([](std::uint32_t) { return 1.0; });
  CHECK(empty.empty());
  empty.insert(4, 2, 3.0);
  empty.rekey_all([](std::uint32_t) { return -2.0; });
  CHECK(empty.key(4) == -2.0);
  CHECK(visit_all(empty) == std::vector<std::uint32_t>{4});
}
