// sim::PrefaultPages: a block's pages faulted in on another thread while the caller writes
// it from the front; what the caller wrote is kept, and the pages end up resident.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "sim/allocator.hpp"

namespace {

#if defined(__linux__)
// Pages of [p, p + n) that are resident, by mincore(2); -1 if it cannot tell.
long resident_pages(void* p, std::size_t n) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in((n + page - 1) / page);
  if (mincore(p, n, in.data()) != 0) return -1;
  long count = 0;
  for (const unsigned char c : in) count += c & 1;
  return count;
}
#endif

}  // namespace

TEST_CASE("prefaulting a block keeps every byte the caller writes meanwhile", "[unit]") {
  // A fresh private mapping: none of its pages is resident until written.
  constexpr std::size_t BYTES = std::size_t{64} << 20;
#if defined(__linux__)
  void* map = mmap(nullptr, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(map != MAP_FAILED);
  auto* bytes = static_cast<std::uint8_t*>(map);
  const long page = sysconf(_SC_PAGESIZE);
  const long pages = static_cast<long>(BYTES) / page;
  CHECK(resident_pages(map, BYTES) == 0);
  {
    const gcsim::sim::PrefaultPages prefault(map, BYTES);
    // The caller writes the whole block, front to back, while the pages are faulted in.
    for (std::size_t i = 0; i < BYTES; ++i) bytes[i] = static_cast<std::uint8_t>(i * 2654435761u >> 24);
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < BYTES; ++i) wrong += bytes[i] != static_cast<std::uint8_t>(i * 2654435761u >> 24);
  CHECK(wrong == 0);
  CHECK(resident_pages(map, BYTES) == pages);
  munmap(map, BYTES);

  // Untouched by the caller: every page resident once the prefault has joined, where the
  // kernel has MADV_POPULATE_WRITE (5.14) and there are two hardware threads.
  map = mmap(nullptr, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(map != MAP_FAILED);
  bytes = static_cast<std::uint8_t*>(map);
  const bool kernel_can = madvise(map, static_cast<std::size_t>(page), MADV_POPULATE_WRITE) == 0;
  { const gcsim::sim::PrefaultPages prefault(map, BYTES); }
  if (kernel_can && std::thread::hardware_concurrency() >= 2) {
    CHECK(resident_pages(map, BYTES) == pages);
  } else {
    WARN("MADV_POPULATE_WRITE or a second hardware thread is missing: only the bytes are checked");
  }
  // Still zeros: prefaulting maps pages, it writes nothing.
  std::size_t nonzero = 0;
  for (std::size_t i = 0; i < BYTES; ++i) nonzero += bytes[i] != 0;
  CHECK(nonzero == 0);
  munmap(map, BYTES);
#else
  auto block = std::make_unique<std::uint8_t[]>(BYTES);
  { const gcsim::sim::PrefaultPages prefault(block.get(), BYTES); }
  SUCCEED("nothing to prefault on this system");
#endif
}

TEST_CASE("a small block, a null block, or a block of less than a page is left alone", "[unit]") {
  std::vector<std::uint8_t> small(100, 7);
  { const gcsim::sim::PrefaultPages prefault(small.data(), small.size()); }
  { const gcsim::sim::PrefaultPages prefault(nullptr, 0); }
  for (const std::uint8_t b : small) CHECK(b == 7);
}

#if defined(__linux__)
namespace {

// Waits up to 10 s for every page of [p, p + n) to be resident (the helper's window).
bool becomes_resident(void* p, std::size_t n) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  for (int i = 0; i < 1000; ++i) {
    if (resident_pages(p, n) == static_cast<long>(n / page)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace
#endif

TEST_CASE("prefaulting ahead faults in the window past the written part, and no further", "[unit]") {
#if defined(__linux__)
  constexpr std::size_t MIB = std::size_t{1} << 20;
  constexpr std::size_t BYTES = 64 * MIB;
  void* map = mmap(nullptr, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(map != MAP_FAILED);
  auto* bytes = static_cast<std::uint8_t*>(map);
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const bool kernel_can = madvise(map, page, MADV_POPULATE_WRITE) == 0 && std::thread::hardware_concurrency() >= 2;
  REQUIRE(munmap(map, page) == 0);  // that page again fresh: a new mapping over it
  REQUIRE(mmap(map, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == map);
  // Pages of 4 KiB, not transparent huge pages (a kernel set to `always` would make a
  // write fault in 2 MiB at once, and the counts below would not be the helper's).
  (void)madvise(map, BYTES, MADV_NOHUGEPAGE);
  REQUIRE(resident_pages(map, BYTES) == 0);
  {
    gcsim::sim::PrefaultAhead ahead(8 * MIB, 4 * MIB);
    // Filled less than the start: nothing is asked for.
    for (std::size_t i = 0; i < MIB; ++i) bytes[i] = 1;
    ahead.advance(map, MIB, BYTES);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK(resident_pages(map, BYTES) == static_cast<long>(MIB / page));

    // Past the start: the whole pages of the next 8 MiB, and not one page more.
    const std::size_t used = 4 * MIB + 100;
    for (std::size_t i = 0; i < used; ++i) bytes[i] = 1;
    ahead.advance(map, used, BYTES);
    const std::size_t more = 8 * MIB + 200;
    if (kernel_can) {
      CHECK(becomes_resident(bytes + 4 * MIB + page, 8 * MIB - page));
      CHECK(resident_pages(bytes + 12 * MIB, BYTES - 12 * MIB) == 0);

      // Written past the window's middle: the next window is asked for.
      for (std::size_t i = used; i < more; ++i) bytes[i] = 1;
      ahead.advance(map, more, BYTES);
      CHECK(becomes_resident(bytes + 12 * MIB, 4 * MIB));
      CHECK(resident_pages(bytes + 17 * MIB, BYTES - 17 * MIB) == 0);

      // The last window stops at the block's end.
      ahead.advance(map, 60 * MIB, BYTES);
      CHECK(becomes_resident(bytes + 60 * MIB, 4 * MIB));
    } else {
      WARN("MADV_POPULATE_WRITE or a second hardware thread is missing: only the bytes are checked");
      for (std::size_t i = used; i < more; ++i) bytes[i] = 1;
    }
    // A copy is a helper of its own, with nothing asked for.
    gcsim::sim::PrefaultAhead copy(ahead);
    copy.advance(map, MIB, BYTES);
  }
  // What was written is kept, and the rest is still zeros: prefaulting writes nothing.
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < BYTES; ++i) wrong += bytes[i] != (i < 8 * MIB + 200 ? 1 : 0);
  CHECK(wrong == 0);
  munmap(map, BYTES);
#else
  SUCCEED("nothing to prefault on this system");
#endif
}
