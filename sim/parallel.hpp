// Work items 0..count-1 on a few threads: the calling thread and up to threads - 1 more,
// each taking the next item as it finishes one, so uneven items balance. Used for runs
// (models::run_many) and for the loads and read-backs around them (gcsim compare).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace gcsim::sim {

// Calls f(i) once for every i in [0, count), on at most `threads` threads (0: one per
// core); when the system gives fewer threads, the ones there are do the work. An exception
// from f(i) ends item i alone: the others still run, and once all are done the exception of
// the lowest such i is rethrown, so which error is reported does not depend on timing.
template <class F>
void parallel_for(std::size_t count, std::size_t threads, F&& f) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::exception_ptr> errors(count);
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < count;) {
      try {
        f(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    const std::size_t extra = std::min(threads, count) > 0 ? std::min(threads, count) - 1 : 0;
    pool.reserve(extra);
    for (std::size_t t = 0; t < extra; ++t) {
      try {
        pool.emplace_back(work);
      } catch (const std::system_error&) {  // no more threads: go on with those there are
        break;
      }
    }
    work();
  }  // joins
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace gcsim::sim
