// The engine's event limit (what gcsim's --max-events bounds a run by, issue 27 item 7) and
// the file names in internal errors (issue 27 item 6: relative to the source tree, never
// the build machine's absolute path).
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "sim/check.hpp"
#include "sim/engine.hpp"

using gcsim::sim::Engine;
using gcsim::sim::SimTime;

namespace {

// Reschedules itself every second, for ever: an event storm.
struct Ticker {
  Engine* engine;
  std::uint64_t ticks = 0;
  static void tick(void* self, std::uint64_t) {
    auto* t = static_cast<Ticker*>(self);
    ++t->ticks;
    t->engine->schedule_after(SimTime::from_ns(1'000'000'000), &Ticker::tick, t);
  }
};

}  // namespace

TEST_CASE("an event limit stops a run before the first event past it", "[unit][engine]") {
  Engine engine;
  Ticker ticker{&engine};
  engine.schedule_at(SimTime::zero(), &Ticker::tick, &ticker);
  engine.limit_events(1000);
  engine.run();
  CHECK(engine.event_limit_reached());
  CHECK(engine.events_handled() == 1000);
  CHECK(ticker.ticks == 1000);
  CHECK(engine.now() == SimTime::from_ns(999'000'000'000));
  CHECK(engine.pending() == 1);  // the next tick, left unhandled
}

TEST_CASE("a run within its event limit ends as without one", "[unit][engine]") {
  Engine engine;
  int handled = 0;
  for (int i = 0; i < 10; ++i)
    engine.schedule_at(SimTime::from_ns(i), [](void* n, std::uint64_t) { ++*static_cast<int*>(n); }, &handled);
  engine.limit_events(10);  // exactly the events there are: nothing is left to stop
  engine.run();
  CHECK(handled == 10);
  CHECK_FALSE(engine.event_limit_reached());
  Engine unlimited;  // 0, the default: no limit
  CHECK_FALSE(unlimited.event_limit_reached());
}

TEST_CASE("an internal error names its source file relative to the source tree", "[unit][engine]") {
  Engine engine;
  engine.schedule_at(SimTime::from_ns(10), [](void*, std::uint64_t) {}, nullptr);
  engine.run();
  std::string message;
  try {
    engine.schedule_at(SimTime::from_ns(5), [](void*, std::uint64_t) {}, nullptr);  // before now: an invariant
  } catch (const gcsim::InternalError& e) {
    message = e.what();
  }
  INFO(message);
  CHECK(message.rfind("sim/engine.cpp:", 0) == 0);
  CHECK(message.find(GCSIM_SOURCE_DIR) == std::string::npos);
  CHECK(message.find('/') != 0);
  // And a check in this file, compiled in another target, the same way.
  try {
    GCSIM_CHECK(message.empty(), "a test's own check");
  } catch (const gcsim::InternalError& e) {
    message = e.what();
  }
  CHECK(message.rfind("tests/sim/test_engine_limits.cpp:", 0) == 0);
}
