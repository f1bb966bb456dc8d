// The file names in internal errors (issue 27 item 6): relative to the source tree, never
// the build machine's absolute path.
#include <string>

#include <catch2/catch.hpp>

#include "sim/check.hpp"
#include "sim/engine.hpp"

using gcsim::sim::Engine;
using gcsim::sim::SimTime;

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
