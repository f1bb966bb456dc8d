// Hold-model benchmark of the event engine: `pending` events wait in the queue; each one
// handled schedules the next at now + Exp(mean 1 s). The same workload (same random
// draws, same (time, sequence) order) runs on a bare std::priority_queue, the floor any
// engine pays for, and the last line gives engine rate / bare rate. Both runs must end
// at the same simulated instant, which checks that they did the same work.
//
//   engine_bench [pending=1000000] [events=5000000] [repeats=3]
#include <sys/resource.h>
#include <time.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "sim/engine.hpp"
#include "sim/rng.hpp"
#include "sim/time.hpp"

namespace {

using gcsim::sim::Engine;
using gcsim::sim::RngStream;
using gcsim::sim::SimTime;

constexpr std::uint64_t SEED = 20240601;
constexpr double MEAN_DELAY_S = 1.0;

struct RunResult {
  double seconds;        // CPU time of the hold phase only (the fill is not timed)
  std::int64_t end_ns;   // simulated instant of the last handled event
};

// CPU time of this process, not wall time: on a shared machine, wall time mostly
// measures how often the scheduler ran someone else.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

SimTime draw_delay(RngStream& rng) { return SimTime::from_seconds(rng.exponential(MEAN_DELAY_S)); }

struct HoldProcess {
  Engine* engine;
  RngStream rng;
  std::uint64_t remaining;

  void on_event(std::uint64_t) {
    engine->schedule_after<&HoldProcess::on_event>(draw_delay(rng), this);
    if (--remaining == 0) engine->stop();
  }
};

RunResult run_engine(std::uint64_t pending, std::uint64_t events) {
  Engine engine;
  engine.reserve(pending + 1);
  HoldProcess hold{&engine, RngStream(SEED, 0, "bench.hold"), events};
  for (std::uint64_t i = 0; i < pending; ++i) {
    engine.schedule_at<&HoldProcess::on_event>(draw_delay(hold.rng), &hold);
  }
  const double start = cpu_seconds();
  engine.run();
  const double s = cpu_seconds() - start;
  if (engine.events_handled() != events || engine.pending() != pending) {
    std::fprintf(stderr, "engine_bench: engine handled %" PRIu64 " events, %zu pending\n",
                 engine.events_handled(), engine.pending());
    std::exit(1);
  }
  return {s, engine.now().ns()};
}

RunResult run_bare(std::uint64_t pending, std::uint64_t events) {
  using Entry = std::pair<std::int64_t, std::uint64_t>;  // (time ns, sequence)
  std::vector<Entry> storage;
  storage.reserve(pending + 1);
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue(std::greater<>{},
                                                                        std::move(storage));
  RngStream rng(SEED, 0, "bench.hold");
  std::uint64_t sequence = 0;
  for (std::uint64_t i = 0; i < pending; ++i) queue.emplace(draw_delay(rng).ns(), sequence++);
  const double start = cpu_seconds();
  SimTime now = SimTime::zero();
  for (std::uint64_t i = 0; i < events; ++i) {
    now = SimTime::from_ns(queue.top().first);
    queue.pop();
    queue.emplace((now + draw_delay(rng)).ns(), sequence++);
  }
  return {cpu_seconds() - start, now.ns()};
}

double max_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

bool parse_count(const char* text, std::uint64_t& out) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || v == 0 || text[0] == '-') return false;
  out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t pending = 1'000'000;
  std::uint64_t events = 5'000'000;
  std::uint64_t repeats = 3;
  std::uint64_t* const params[] = {&pending, &events, &repeats};
  if (argc > 4) {
    std::fprintf(stderr, "usage: engine_bench [pending] [events] [repeats]\n");
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    if (!parse_count(argv[i], *params[i - 1])) {
      std::fprintf(stderr, "engine_bench: '%s' is not a positive count\n"
                           "usage: engine_bench [pending] [events] [repeats]\n", argv[i]);
      return 2;
    }
  }

  std::printf("hold model: pending %" PRIu64 ", events %" PRIu64 ", delay Exp(mean %.1f s), "
              "best of %" PRIu64 "\n", pending, events, MEAN_DELAY_S, repeats);
  // Alternating the two runs spreads the noise of a shared machine over both.
  RunResult best_engine{1e300, 0};
  RunResult best_bare{1e300, 0};
  double engine_rss_mib = 0.0;
  for (std::uint64_t r = 0; r < repeats; ++r) {
    const RunResult e = run_engine(pending, events);
    // The first engine run precedes every bare run: maxrss then is the engine's own peak.
    if (r == 0) engine_rss_mib = max_rss_mib();
    const RunResult b = run_bare(pending, events);
    if (e.end_ns != b.end_ns) {
      std::fprintf(stderr, "engine_bench: runs diverged: engine ended at %" PRId64
                   " ns, bare queue at %" PRId64 " ns\n", e.end_ns, b.end_ns);
      return 1;
    }
    if (e.seconds < best_engine.seconds) best_engine = e;
    if (b.seconds < best_bare.seconds) best_bare = b;
  }
  const double engine_rate = static_cast<double>(events) / best_engine.seconds;
  const double bare_rate = static_cast<double>(events) / best_bare.seconds;
  std::printf("simulated end: %.6f s (same in both runs)\n",
              SimTime::from_ns(best_engine.end_ns).seconds());
  std::printf("engine:              %.4g events/s (%.3f s CPU)\n", engine_rate,
              best_engine.seconds);
  std::printf("bare priority_queue: %.4g events/s (%.3f s CPU)\n", bare_rate, best_bare.seconds);
  std::printf("peak memory (maxrss): %.1f MiB after the first engine run, %.1f MiB in all\n",
              engine_rss_mib, max_rss_mib());
  std::printf("ratio: %.2f\n", engine_rate / bare_rate);
  return 0;
}
