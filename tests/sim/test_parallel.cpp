// sim::parallel_for: every item once, on several threads; the lowest failing item's error.
#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/parallel.hpp"

TEST_CASE("parallel_for calls every item exactly once, on any number of threads", "[unit]") {
  for (const std::size_t threads : {std::size_t{1}, std::size_t{3}, std::size_t{8}}) {
    std::vector<std::atomic<int>> calls(100);
    gcsim::sim::parallel_for(calls.size(), threads, [&](std::size_t i) { ++calls[i]; });
    for (const auto& c : calls) CHECK(c.load() == 1);
  }
  gcsim::sim::parallel_for(0, 4, [](std::size_t) { FAIL("no item to call"); });
}

TEST_CASE("parallel_for runs every item and rethrows the error of the lowest failing one", "[unit]") {
  std::atomic<int> ran{0};
  try {
    gcsim::sim::parallel_for(50, 4, [&](std::size_t i) {
      ++ran;
      if (i == 7 || i == 31) throw std::runtime_error("item " + std::to_string(i));
    });
    FAIL("no error rethrown");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "item 7");
  }
  CHECK(ran.load() == 50);
}
