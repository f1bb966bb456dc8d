// sim::Signal: the order in which observers see an emit is their declared order, not the
// order they connected in; the connection list changes only outside an emit.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/check.hpp"
#include "sim/signal.hpp"

using gcsim::InternalError;
using gcsim::sim::Signal;

TEST_CASE("Signal: observers see an emit in their declared order, whatever order they connected in", "[unit][signal]") {
  Signal<int> s;
  std::vector<std::string> seen;
  s.connect(30, [&](int v) { seen.push_back("c" + std::to_string(v)); });
  s.connect(10, [&](int v) { seen.push_back("a" + std::to_string(v)); });
  s.connect([&](int v) { seen.push_back("last" + std::to_string(v)); });  // Signal::LAST
  s.connect(20, [&](int v) { seen.push_back("b" + std::to_string(v)); });
  s.connect(-5, [&](int v) { seen.push_back("first" + std::to_string(v)); });
  s.emit(7);
  CHECK(seen == std::vector<std::string>{"first7", "a7", "b7", "c7", "last7"});
}

TEST_CASE("Signal: connections of one order run in the order they were made", "[unit][signal]") {
  Signal<> s;
  std::string seen;
  s.connect(1, [&] { seen += "x"; });
  s.connect(0, [&] { seen += "p"; });
  s.connect(1, [&] { seen += "y"; });
  s.connect(1, [&] { seen += "z"; });
  s.emit();
  CHECK(seen == "pxyz");
}

TEST_CASE("Signal: disconnect removes one connection, once", "[unit][signal]") {
  Signal<> s;
  std::string seen;
  s.connect(0, [&] { seen += "a"; });
  const auto b = s.connect(1, [&] { seen += "b"; });
  s.connect(2, [&] { seen += "c"; });
  CHECK(s.size() == 3);
  CHECK(s.disconnect(b));
  CHECK_FALSE(s.disconnect(b));
  s.emit();
  CHECK(seen == "ac");
  CHECK(s.size() == 2);
}

TEST_CASE("Signal: connecting or disconnecting from inside an emit is refused", "[unit][signal]") {
  Signal<> s;
  Signal<>::Connection self = 0;
  bool connect_refused = false, disconnect_refused = false;
  self = s.connect(0, [&] {
    try {
      s.connect(1, [] {});
    } catch (const InternalError&) {
      connect_refused = true;
    }
    try {
      s.disconnect(self);
    } catch (const InternalError&) {
      disconnect_refused = true;
    }
  });
  s.emit();
  CHECK(connect_refused);
  CHECK(disconnect_refused);
  CHECK(s.size() == 1);
  // Outside the emit both work again.
  s.connect(1, [] {});
  CHECK(s.size() == 2);
}

TEST_CASE("Signal: an observer that throws leaves the signal usable", "[unit][signal]") {
  Signal<int> s;
  s.connect(0, [](int v) {
    if (v < 0) throw std::runtime_error("negative");
  });
  REQUIRE_THROWS_AS(s.emit(-1), std::runtime_error);
  // The emit is over: connecting is allowed again.
  int seen = 0;
  s.connect(1, [&](int v) { seen = v; });
  s.emit(3);
  CHECK(seen == 3);
}

TEST_CASE("Signal: a nested emit of the same signal still refuses connections until the outer one ends",
          "[unit][signal]") {
  Signal<int> s;
  bool refused_after_inner = false;
  s.connect(0, [&](int depth) {
    if (depth == 0) {
      s.emit(1);
      try {
        s.connect(5, [](int) {});
      } catch (const InternalError&) {
        refused_after_inner = true;
      }
    }
  });
  s.emit(0);
  CHECK(refused_after_inner);
}
