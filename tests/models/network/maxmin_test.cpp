// The max-min solver against hand-computed sharings, and incremental recomputation against
// from-scratch recomputation on random cases.
#include <catch2/catch.hpp>

#include <vector>

#include "models/network/maxmin.hpp"
#include "sim/rng.hpp"

using gcsim::network::LinkId;
using gcsim::network::MaxMinSolver;
using gcsim::network::SolverFlow;

namespace {
std::vector<LinkId> path(std::initializer_list<LinkId> l) { return std::vector<LinkId>(l); }
}  // namespace

TEST_CASE("max-min: flows on one link share it equally", "[unit][network]") {
  MaxMinSolver s;
  const LinkId l = s.add_link(12.0);
  const SolverFlow a = s.add_flow(path({l}));
  s.solve();
  CHECK(s.rate(a) == Approx(12.0));
  const SolverFlow b = s.add_flow(path({l}));
  const SolverFlow c = s.add_flow(path({l}));
  s.solve();
  CHECK(s.rate(a) == Approx(4.0));
  CHECK(s.rate(b) == Approx(4.0));
  CHECK(s.rate(c) == Approx(4.0));
  s.remove_flow(b);
  s.solve();
  CHECK(s.rate(a) == Approx(6.0));
  CHECK(s.rate(c) == Approx(6.0));
}

TEST_CASE("max-min: parking lot", "[unit][network]") {
  // L1 = 10, L2 = 5, L3 = 10. The long flow crosses all three; one short flow on each.
  // L2 is the first bottleneck (5/2 = 2.5 < 10/2): the long flow and the L2 flow get 2.5;
  // L1 and L3 then have 7.5 left for their short flows.
  MaxMinSolver s;
  const LinkId l1 = s.add_link(10), l2 = s.add_link(5), l3 = s.add_link(10);
  const SolverFlow lng = s.add_flow(path({l1, l2, l3}));
  const SolverFlow f1 = s.add_flow(path({l1}));
  const SolverFlow f2 = s.add_flow(path({l2}));
  const SolverFlow f3 = s.add_flow(path({l3}));
  s.solve();
  CHECK(s.rate(lng) == Approx(2.5));
  CHECK(s.rate(f1) == Approx(7.5));
  CHECK(s.rate(f2) == Approx(2.5));
  CHECK(s.rate(f3) == Approx(7.5));
}

TEST_CASE("max-min: a rate set by a link the others don't share", "[unit][network]") {
  // A and B share link S (capacity 10); A also crosses its own access link T (capacity 2).
  // T limits A to 2; B takes the 8 left on S, not the 5 a naive equal split would give.
  MaxMinSolver s;
  const LinkId shared = s.add_link(10), thin = s.add_link(2);
  const SolverFlow a = s.add_flow(path({thin, shared}));
  const SolverFlow b = s.add_flow(path({shared}));
  s.solve();
  CHECK(s.rate(a) == Approx(2.0));
  CHECK(s.rate(b) == Approx(8.0));
}

TEST_CASE("max-min: a link crossed twice counts twice", "[unit][network]") {
  MaxMinSolver s;
  const LinkId l = s.add_link(9);
  const SolverFlow twice = s.add_flow(path({l, l}));
  const SolverFlow once = s.add_flow(path({l}));
  s.solve();
  // Filling: both rise together; 2r + r = 9 -> r = 3.
  CHECK(s.rate(twice) == Approx(3.0));
  CHECK(s.rate(once) == Approx(3.0));
}

TEST_CASE("max-min: only the touched component is recomputed", "[unit][network]") {
  MaxMinSolver s;
  const LinkId a = s.add_link(10), b = s.add_link(10), c = s.add_link(10);
  s.add_flow(path({a}));
  s.add_flow(path({a, b}));
  s.add_flow(path({c}));
  s.solve();
  const SolverFlow d = s.add_flow(path({c}));
  const auto touched = s.solve();
  CHECK(touched.size() == 2);  // the two flows on c; the a-b component is untouched
  CHECK(s.rate(d) == Approx(5.0));
  CHECK(s.solve().empty());  // nothing dirty
}

TEST_CASE("max-min: incremental equals from-scratch on random cases", "[unit][network]") {
  gcsim::sim::RngStream rng(42, 0, "maxmin-test");
  for (int trial = 0; trial < 30; ++trial) {
    MaxMinSolver inc, ref;
    const int links = 3 + static_cast<int>(rng.uniform_int(20));
    for (int l = 0; l < links; ++l) {
      const double cap = rng.uniform(1, 100);
      inc.add_link(cap);
      ref.add_link(cap);
    }
    std::vector<std::pair<SolverFlow, SolverFlow>> live;  // (inc slot, ref slot)
    for (int step = 0; step < 200; ++step) {
      if (live.empty() || rng.uniform01() < 0.6) {
        std::vector<LinkId> p;
        const int len = 1 + static_cast<int>(rng.uniform_int(4));
        for (int i = 0; i < len; ++i) p.push_back(static_cast<LinkId>(rng.uniform_int(static_cast<std::uint64_t>(links))));
        live.emplace_back(inc.add_flow(p), ref.add_flow(p));
      } else {
        const auto i = static_cast<std::size_t>(rng.uniform_int(live.size()));
        inc.remove_flow(live[i].first);
        ref.remove_flow(live[i].second);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      }
      inc.solve();
      ref.solve_all();
      for (const auto& [fi, fr] : live) REQUIRE(inc.rate(fi) == Approx(ref.rate(fr)).epsilon(1e-12));
    }
    // Feasibility and max-min optimality: every flow crosses a saturated link on which it
    // has the largest rate (Bertsekas & Gallager, prop. 6.5.1).
    std::vector<double> load(static_cast<std::size_t>(links), 0.0);
    for (const auto& [fi, fr] : live)
      for (const LinkId l : inc.path(fi)) load[l] += inc.rate(fi);
    for (int l = 0; l < links; ++l) REQUIRE(load[static_cast<std::size_t>(l)] <= inc.capacity(static_cast<LinkId>(l)) * (1 + 1e-9));
    for (const auto& [fi, fr] : live) {
      bool has_bottleneck = false;
      for (const LinkId l : inc.path(fi)) {
        if (load[l] < inc.capacity(l) * (1 - 1e-9)) continue;
        double max_rate = 0;
        for (const auto& [gi, gr] : live)
          for (const LinkId m : inc.path(gi))
            if (m == l) max_rate = std::max(max_rate, inc.rate(gi));
        if (inc.rate(fi) >= max_rate * (1 - 1e-9)) has_bottleneck = true;
      }
      REQUIRE(has_bottleneck);
    }
  }
}

namespace {

// Progressive filling written out plainly (no heap, no components, no partial refill):
// the reference the solver's fast paths are checked against.
std::vector<double> naive_maxmin(const std::vector<double>& capacity, const std::vector<std::vector<LinkId>>& paths) {
  std::vector<double> free = capacity, rate(paths.size(), 0.0);
  std::vector<int> open(capacity.size(), 0);
  std::vector<bool> frozen(paths.size(), false);
  for (const auto& p : paths)
    for (const LinkId l : p) ++open[l];
  std::size_t left = paths.size();
  while (left > 0) {
    std::size_t best = capacity.size();
    for (std::size_t l = 0; l < capacity.size(); ++l)
      if (open[l] > 0 && (best == capacity.size() || free[l] / open[l] < free[best] / open[best])) best = l;
    const double share = free[best] / open[best];
    for (std::size_t f = 0; f < paths.size(); ++f) {
      if (frozen[f]) continue;
      bool crosses = false;
      for (const LinkId l : paths[f]) crosses |= l == best;
      if (!crosses) continue;
      frozen[f] = true;
      --left;
      rate[f] = share;
      for (const LinkId l : paths[f]) {
        free[l] -= share;
        --open[l];
      }
    }
  }
  return rate;
}

// Random batches of arrivals and departures, solved incrementally, checked against the
// plain reference after every batch.
void check_random_batches(gcsim::sim::RngStream& rng, int links, int max_path, int steps, int max_batch,
                          std::size_t target_flows, int initial_flows = 0) {
  MaxMinSolver s;
  std::vector<double> capacity;
  for (int l = 0; l < links; ++l) {
    // A few distinct capacities make exact ties between bottlenecks common.
    const double cap = rng.uniform01() < 0.5 ? 10.0 * static_cast<double>(1 + rng.uniform_int(4)) : rng.uniform(1, 100);
    capacity.push_back(cap);
    s.add_link(cap);
  }
  std::vector<SolverFlow> live;
  std::vector<std::vector<LinkId>> paths;
  for (int step = 0; step < steps; ++step) {
    int batch = 1 + static_cast<int>(rng.uniform_int(static_cast<std::uint64_t>(max_batch)));
    if (step == 0) batch += initial_flows;
    for (int k = 0; k < batch; ++k) {
      if (live.size() < static_cast<std::size_t>(initial_flows) || live.empty() ||
          (live.size() < target_flows ? rng.uniform01() < 0.7 : rng.uniform01() < 0.4)) {
        std::vector<LinkId> p;
        const int len = 1 + static_cast<int>(rng.uniform_int(static_cast<std::uint64_t>(max_path)));
        for (int i = 0; i < len; ++i) p.push_back(static_cast<LinkId>(rng.uniform_int(static_cast<std::uint64_t>(links))));
        live.push_back(s.add_flow(p));
        paths.push_back(p);
      } else {
        const auto i = static_cast<std::size_t>(rng.uniform_int(live.size()));
        s.remove_flow(live[i]);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
        paths.erase(paths.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    s.solve();
    const std::vector<double> want = naive_maxmin(capacity, paths);
    for (std::size_t i = 0; i < live.size(); ++i) REQUIRE(s.rate(live[i]) == Approx(want[i]).epsilon(1e-9));
  }
}

}  // namespace

TEST_CASE("max-min: a departure refills only flows at or above its rate", "[unit][network]") {
  // Link A (10) carries x, y, z; x also crosses T (1), so x = 1 and y = z = 4.5. When y
  // leaves, only flows at 4.5 or more can change: x keeps 1 without being refilled, z
  // takes 9.
  MaxMinSolver s;
  const LinkId a = s.add_link(10), t = s.add_link(1);
  const SolverFlow x = s.add_flow(path({t, a}));
  const SolverFlow y = s.add_flow(path({a}));
  const SolverFlow z = s.add_flow(path({a}));
  s.solve();
  CHECK(s.rate(x) == Approx(1.0));
  CHECK(s.rate(y) == Approx(4.5));
  s.remove_flow(y);
  const auto touched = s.solve();
  REQUIRE(touched.size() == 1);
  CHECK(touched[0] == z);
  CHECK(s.rate(z) == Approx(9.0));
  CHECK(s.rate(x) == Approx(1.0));
}

TEST_CASE("max-min: an arrival refills only flows at or above its saturation level", "[unit][network]") {
  // x = 1 (held by T), y = z = 4.5 on A. A new flow w on A: with x kept at 1, A saturates
  // when 1 + 3 r = 10, r = 3 > 1, so x is not refilled; y, z, w get 3.
  MaxMinSolver s;
  const LinkId a = s.add_link(10), t = s.add_link(1);
  const SolverFlow x = s.add_flow(path({t, a}));
  const SolverFlow y = s.add_flow(path({a}));
  const SolverFlow z = s.add_flow(path({a}));
  s.solve();
  const SolverFlow w = s.add_flow(path({a}));
  const auto touched = s.solve();
  CHECK(touched.size() == 3);
  CHECK(s.rate(x) == Approx(1.0));
  CHECK(s.rate(y) == Approx(3.0));
  CHECK(s.rate(z) == Approx(3.0));
  CHECK(s.rate(w) == Approx(3.0));
}

TEST_CASE("max-min: partial refills equal plain progressive filling on random batches", "[unit][network]") {
  // Small components (the solver's linear-scan filling), batches of arrivals and
  // departures between solves, paths that may cross a link twice.
  gcsim::sim::RngStream rng(7, 0, "maxmin-partial");
  for (int trial = 0; trial < 60; ++trial) check_random_batches(rng, 4 + static_cast<int>(rng.uniform_int(30)), 4, 120, 4, 40);
}

TEST_CASE("max-min: partial refills equal plain progressive filling on a fat-tree-like load", "[unit][network]") {
  // Few links, many flows per link, long runs: deep chains of partial refills.
  gcsim::sim::RngStream rng(11, 0, "maxmin-dense");
  for (int trial = 0; trial < 4; ++trial) check_random_batches(rng, 48, 4, 400, 3, 120);
}

TEST_CASE("max-min: large components (heap filling) equal plain progressive filling", "[unit][network]") {
  // More than a thousand links in one component takes the heap path: 3000 flows over
  // random pairs of 1500 links form a giant component (a random graph of mean degree 4),
  // then batches of arrivals and departures refill parts of it.
  gcsim::sim::RngStream rng(13, 0, "maxmin-large");
  check_random_batches(rng, 1500, 2, 8, 60, 3000, 3000);
}
