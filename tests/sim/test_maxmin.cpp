// The max-min solver against hand-computed sharings (plain, weighted, capped), and
// incremental recomputation against from-scratch recomputation on random cases.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "sim/maxmin.hpp"
#include "sim/rng.hpp"

using gcsim::sim::ResourceId;
using gcsim::sim::MaxMinSolver;
using gcsim::sim::SolverFlow;

namespace {
std::vector<ResourceId> path(std::initializer_list<ResourceId> l) { return std::vector<ResourceId>(l); }
}  // namespace

TEST_CASE("max-min: flows on one link share it equally", "[unit][network]") {
  MaxMinSolver s;
  const ResourceId l = s.add_resource(12.0);
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
  const ResourceId l1 = s.add_resource(10), l2 = s.add_resource(5), l3 = s.add_resource(10);
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
  const ResourceId shared = s.add_resource(10), thin = s.add_resource(2);
  const SolverFlow a = s.add_flow(path({thin, shared}));
  const SolverFlow b = s.add_flow(path({shared}));
  s.solve();
  CHECK(s.rate(a) == Approx(2.0));
  CHECK(s.rate(b) == Approx(8.0));
}

TEST_CASE("max-min: a link crossed twice counts twice", "[unit][network]") {
  MaxMinSolver s;
  const ResourceId l = s.add_resource(9);
  const SolverFlow twice = s.add_flow(path({l, l}));
  const SolverFlow once = s.add_flow(path({l}));
  s.solve();
  // Filling: both rise together; 2r + r = 9 -> r = 3.
  CHECK(s.rate(twice) == Approx(3.0));
  CHECK(s.rate(once) == Approx(3.0));
}

TEST_CASE("max-min: only the touched component is recomputed", "[unit][network]") {
  MaxMinSolver s;
  const ResourceId a = s.add_resource(10), b = s.add_resource(10), c = s.add_resource(10);
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

TEST_CASE("max-min: weighted flows on one link share it in proportion", "[unit][network]") {
  // Weights 1, 2, 3 on 12: the level rises to 12 / 6 = 2, rates 2, 4, 6.
  MaxMinSolver s;
  const ResourceId l = s.add_resource(12.0);
  const SolverFlow a = s.add_flow(path({l}), 1.0);
  const SolverFlow b = s.add_flow(path({l}), 2.0);
  const SolverFlow c = s.add_flow(path({l}), 3.0);
  s.solve();
  CHECK(s.rate(a) == Approx(2.0));
  CHECK(s.rate(b) == Approx(4.0));
  CHECK(s.rate(c) == Approx(6.0));
  s.remove_flow(c);
  s.solve();  // 12 / 3 = 4: rates 4 and 8
  CHECK(s.rate(a) == Approx(4.0));
  CHECK(s.rate(b) == Approx(8.0));
}

TEST_CASE("max-min: weighted parking lot", "[unit][network]") {
  // L1 = 10, L2 = 6, L3 = 10. The long flow (weight 2) crosses all three; one short flow
  // of weight 1 on each. L2 saturates first, at level 6 / 3 = 2: the long flow gets 4, the
  // L2 flow 2; L1 and L3 then have 10 - 4 = 6 left for their short flows.
  MaxMinSolver s;
  const ResourceId l1 = s.add_resource(10), l2 = s.add_resource(6), l3 = s.add_resource(10);
  const SolverFlow lng = s.add_flow(path({l1, l2, l3}), 2.0);
  const SolverFlow f1 = s.add_flow(path({l1}));
  const SolverFlow f2 = s.add_flow(path({l2}));
  const SolverFlow f3 = s.add_flow(path({l3}));
  s.solve();
  CHECK(s.rate(lng) == Approx(4.0));
  CHECK(s.rate(f1) == Approx(6.0));
  CHECK(s.rate(f2) == Approx(2.0));
  CHECK(s.rate(f3) == Approx(6.0));
}

TEST_CASE("max-min: a capped flow leaves the rest to the others", "[unit][network]") {
  // 12 on one link, a capped at 1: b and c split the 11 left, 5.5 each. Raising a's cap
  // to 5 (above the equal split 4) gives 4 each; to 100, still 4.
  MaxMinSolver s;
  const ResourceId l = s.add_resource(12.0);
  const SolverFlow a = s.add_flow(path({l}), 1.0, 1.0);
  const SolverFlow b = s.add_flow(path({l}));
  const SolverFlow c = s.add_flow(path({l}));
  s.solve();
  CHECK(s.rate(a) == 1.0);  // exactly its cap
  CHECK(s.rate(b) == Approx(5.5));
  CHECK(s.rate(c) == Approx(5.5));
  s.set_cap(a, 5.0);
  s.solve();
  CHECK(s.rate(a) == Approx(4.0));
  CHECK(s.rate(b) == Approx(4.0));
  s.set_cap(a, 100.0);
  s.solve();
  CHECK(s.rate(a) == Approx(4.0));
  CHECK(s.rate(c) == Approx(4.0));
  CHECK(s.cap(a) == 100.0);
}

TEST_CASE("max-min: caps and weights together", "[unit][network]") {
  // Link 10: a (weight 3, cap 3), b and c (weight 1). Uncapped, the level would be 10 / 5
  // = 2 and a would get 6; its cap is reached at level 3 / 3 = 1 < 2, so a freezes at 3,
  // and b, c share the 7 left: 3.5 each.
  MaxMinSolver s;
  const ResourceId l = s.add_resource(10.0);
  const SolverFlow a = s.add_flow(path({l}), 3.0, 3.0);
  const SolverFlow b = s.add_flow(path({l}));
  const SolverFlow c = s.add_flow(path({l}));
  s.solve();
  CHECK(s.rate(a) == 3.0);
  CHECK(s.rate(b) == Approx(3.5));
  CHECK(s.rate(c) == Approx(3.5));
  // Every flow capped below its share: the link is not saturated.
  MaxMinSolver t;
  const ResourceId m = t.add_resource(10.0);
  const SolverFlow x = t.add_flow(path({m}), 1.0, 2.0);
  const SolverFlow y = t.add_flow(path({m}), 4.0, 3.0);
  t.solve();
  CHECK(t.rate(x) == 2.0);
  CHECK(t.rate(y) == 3.0);
}

TEST_CASE("max-min: a capped flow on two links frees both", "[unit][network]") {
  // A crosses S (10) and T (4), capped at 1; B on S, C on T. A freezes at 1 (level 1 is
  // below S's 5 and T's 2); B takes 9, C takes 3.
  MaxMinSolver s;
  const ResourceId sl = s.add_resource(10), tl = s.add_resource(4);
  const SolverFlow a = s.add_flow(path({sl, tl}), 1.0, 1.0);
  const SolverFlow b = s.add_flow(path({sl}));
  const SolverFlow c = s.add_flow(path({tl}));
  s.solve();
  CHECK(s.rate(a) == 1.0);
  CHECK(s.rate(b) == Approx(9.0));
  CHECK(s.rate(c) == Approx(3.0));
}

TEST_CASE("max-min: a weighted departure refills only flows at or above its level", "[unit][network]") {
  // Link A (12): x (weight 1) also crosses T (1), so x = 1 at level 1; y (weight 1) and z
  // (weight 2) share the 11 left at level 11 / 3: y = 11/3, z = 22/3. When y leaves (level
  // 11/3 > 1), x keeps its rate without being refilled and z takes 11.
  MaxMinSolver s;
  const ResourceId a = s.add_resource(12), t = s.add_resource(1);
  const SolverFlow x = s.add_flow(path({t, a}));
  const SolverFlow y = s.add_flow(path({a}));
  const SolverFlow z = s.add_flow(path({a}), 2.0);
  s.solve();
  CHECK(s.rate(y) == Approx(11.0 / 3));
  CHECK(s.rate(z) == Approx(22.0 / 3));
  s.remove_flow(y);
  const auto touched = s.solve();
  REQUIRE(touched.size() == 1);
  CHECK(touched[0] == z);
  CHECK(s.rate(z) == Approx(11.0));
  CHECK(s.rate(x) == Approx(1.0));
}

namespace {

// A flow's weight and cap for the random cases: all 1 and none (plain max-min), or drawn
// so that ties, caps below and above the fair share, and tiny and large weights all occur.
struct Shape {
  double weight = 1.0;
  double cap = MaxMinSolver::NO_CAP;
};

Shape random_shape(gcsim::sim::RngStream& rng, bool weighted) {
  Shape sh;
  if (!weighted) return sh;
  const double u = rng.uniform01();
  sh.weight = u < 0.4 ? 1.0 : u < 0.6 ? 2.0 : rng.uniform(0.1, 5.0);
  if (rng.uniform01() < 0.35) sh.cap = rng.uniform01() < 0.3 ? 5.0 : rng.uniform(0.5, 40.0);
  return sh;
}

// Feasibility and max-min optimality of the solver's current rates: every link within its
// capacity, and every flow either at its cap or crossing a saturated link on which its
// level (rate / weight) is the largest (Bertsekas & Gallager, prop. 6.5.1, weighted).
void check_maxmin_optimal(const MaxMinSolver& s, const std::vector<SolverFlow>& live) {
  std::vector<double> load(s.link_count(), 0.0);
  for (const SolverFlow f : live)
    for (const ResourceId l : s.path(f)) load[l] += s.rate(f);
  for (ResourceId l = 0; l < s.link_count(); ++l) REQUIRE(load[l] <= s.capacity(l) * (1 + 1e-9));
  for (const SolverFlow f : live) {
    REQUIRE(s.rate(f) <= s.cap(f) * (1 + 1e-12));
    if (s.rate(f) >= s.cap(f) * (1 - 1e-9)) continue;
    const double level = s.rate(f) / s.weight(f);
    bool has_bottleneck = false;
    for (const ResourceId l : s.path(f)) {
      if (load[l] < s.capacity(l) * (1 - 1e-9)) continue;
      double max_level = 0;
      for (const SolverFlow g : live)
        for (const ResourceId m : s.path(g))
          if (m == l) max_level = std::max(max_level, s.rate(g) / s.weight(g));
      if (level >= max_level * (1 - 1e-9)) has_bottleneck = true;
    }
    REQUIRE(has_bottleneck);
  }
}

// Random arrivals, departures and (weighted) cap changes, solved incrementally by one
// solver and from scratch by another after every step.
void check_incremental_vs_scratch(std::uint64_t seed, const char* stream, bool weighted) {
  gcsim::sim::RngStream rng(seed, 0, stream);
  for (int trial = 0; trial < 30; ++trial) {
    MaxMinSolver inc, ref;
    const int links = 3 + static_cast<int>(rng.uniform_int(20));
    for (int l = 0; l < links; ++l) {
      const double cap = rng.uniform(1, 100);
      inc.add_resource(cap);
      ref.add_resource(cap);
    }
    std::vector<std::pair<SolverFlow, SolverFlow>> live;  // (inc slot, ref slot)
    for (int step = 0; step < 200; ++step) {
      const double u = rng.uniform01();
      if (live.empty() || u < 0.6) {
        std::vector<ResourceId> p;
        const int len = 1 + static_cast<int>(rng.uniform_int(4));
        for (int i = 0; i < len; ++i) p.push_back(static_cast<ResourceId>(rng.uniform_int(static_cast<std::uint64_t>(links))));
        const Shape sh = random_shape(rng, weighted);
        live.emplace_back(inc.add_flow(p, sh.weight, sh.cap), ref.add_flow(p, sh.weight, sh.cap));
      } else if (weighted && u < 0.7) {
        const auto i = static_cast<std::size_t>(rng.uniform_int(live.size()));
        const double cap = rng.uniform01() < 0.2 ? MaxMinSolver::NO_CAP : rng.uniform(0.5, 40.0);
        inc.set_cap(live[i].first, cap);
        ref.set_cap(live[i].second, cap);
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
    std::vector<SolverFlow> flows;
    for (const auto& [fi, fr] : live) flows.push_back(fi);
    check_maxmin_optimal(inc, flows);
  }
}

}  // namespace

TEST_CASE("max-min: incremental equals from-scratch on random cases", "[unit][network]") {
  check_incremental_vs_scratch(42, "maxmin-test", false);
}

TEST_CASE("max-min: incremental equals from-scratch on random weighted, capped cases", "[unit][network]") {
  check_incremental_vs_scratch(43, "maxmin-weighted", true);
}

namespace {

// Progressive filling written out plainly (no heap, no components, no partial refill):
// the reference the solver's fast paths are checked against. Levels rise together; the
// next event is the lowest link share free_l / W_l or the lowest cap level b_f / w_f.
std::vector<double> naive_maxmin(const std::vector<double>& capacity, const std::vector<std::vector<ResourceId>>& paths,
                                 const std::vector<Shape>& shapes) {
  std::vector<double> free = capacity, weight(capacity.size(), 0.0), rate(paths.size(), 0.0);
  std::vector<int> open(capacity.size(), 0);
  std::vector<bool> frozen(paths.size(), false);
  for (std::size_t f = 0; f < paths.size(); ++f)
    for (const ResourceId l : paths[f]) {
      ++open[l];
      weight[l] += shapes[f].weight;
    }
  const auto freeze = [&](std::size_t f, double r) {
    frozen[f] = true;
    rate[f] = r;
    for (const ResourceId l : paths[f]) {
      free[l] -= r;
      weight[l] -= shapes[f].weight;
      --open[l];
    }
  };
  std::size_t left = paths.size();
  while (left > 0) {
    std::size_t best = capacity.size();
    for (std::size_t l = 0; l < capacity.size(); ++l)
      if (open[l] > 0 && (best == capacity.size() || free[l] / weight[l] < free[best] / weight[best])) best = l;
    const double share = free[best] / weight[best];
    std::size_t capped = paths.size();
    for (std::size_t f = 0; f < paths.size(); ++f)
      if (!frozen[f] && shapes[f].cap / shapes[f].weight <= share &&
          (capped == paths.size() || shapes[f].cap / shapes[f].weight < shapes[capped].cap / shapes[capped].weight))
        capped = f;
    if (capped < paths.size()) {
      freeze(capped, shapes[capped].cap);
      --left;
      continue;
    }
    for (std::size_t f = 0; f < paths.size(); ++f) {
      if (frozen[f]) continue;
      bool crosses = false;
      for (const ResourceId l : paths[f]) crosses |= l == best;
      if (!crosses) continue;
      freeze(f, shapes[f].weight * share);
      --left;
    }
  }
  return rate;
}

// Random batches of arrivals and departures, solved incrementally, checked against the
// plain reference after every batch.
void check_random_batches(gcsim::sim::RngStream& rng, int links, int max_path, int steps, int max_batch,
                          std::size_t target_flows, int initial_flows = 0, bool weighted = false) {
  MaxMinSolver s;
  std::vector<double> capacity;
  for (int l = 0; l < links; ++l) {
    // A few distinct capacities make exact ties between bottlenecks common.
    const double cap = rng.uniform01() < 0.5 ? 10.0 * static_cast<double>(1 + rng.uniform_int(4)) : rng.uniform(1, 100);
    capacity.push_back(cap);
    s.add_resource(cap);
  }
  std::vector<SolverFlow> live;
  std::vector<std::vector<ResourceId>> paths;
  std::vector<Shape> shapes;
  for (int step = 0; step < steps; ++step) {
    int batch = 1 + static_cast<int>(rng.uniform_int(static_cast<std::uint64_t>(max_batch)));
    if (step == 0) batch += initial_flows;
    for (int k = 0; k < batch; ++k) {
      if (live.size() < static_cast<std::size_t>(initial_flows) || live.empty() ||
          (live.size() < target_flows ? rng.uniform01() < 0.7 : rng.uniform01() < 0.4)) {
        std::vector<ResourceId> p;
        const int len = 1 + static_cast<int>(rng.uniform_int(static_cast<std::uint64_t>(max_path)));
        for (int i = 0; i < len; ++i) p.push_back(static_cast<ResourceId>(rng.uniform_int(static_cast<std::uint64_t>(links))));
        const Shape sh = random_shape(rng, weighted);
        live.push_back(s.add_flow(p, sh.weight, sh.cap));
        paths.push_back(p);
        shapes.push_back(sh);
      } else {
        const auto i = static_cast<std::size_t>(rng.uniform_int(live.size()));
        s.remove_flow(live[i]);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
        paths.erase(paths.begin() + static_cast<std::ptrdiff_t>(i));
        shapes.erase(shapes.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    s.solve();
    const std::vector<double> want = naive_maxmin(capacity, paths, shapes);
    for (std::size_t i = 0; i < live.size(); ++i) REQUIRE(s.rate(live[i]) == Approx(want[i]).epsilon(1e-9));
  }
  check_maxmin_optimal(s, live);
}

}  // namespace

TEST_CASE("max-min: a departure refills only flows at or above its rate", "[unit][network]") {
  // Link A (10) carries x, y, z; x also crosses T (1), so x = 1 and y = z = 4.5. When y
  // leaves, only flows at 4.5 or more can change: x keeps 1 without being refilled, z
  // takes 9.
  MaxMinSolver s;
  const ResourceId a = s.add_resource(10), t = s.add_resource(1);
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
  const ResourceId a = s.add_resource(10), t = s.add_resource(1);
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

TEST_CASE("max-min: weighted, capped partial refills equal plain progressive filling", "[unit][network]") {
  gcsim::sim::RngStream rng(17, 0, "maxmin-partial-weighted");
  for (int trial = 0; trial < 60; ++trial)
    check_random_batches(rng, 4 + static_cast<int>(rng.uniform_int(30)), 4, 120, 4, 40, 0, true);
  gcsim::sim::RngStream dense(19, 0, "maxmin-dense-weighted");
  for (int trial = 0; trial < 2; ++trial) check_random_batches(dense, 48, 4, 300, 3, 120, 0, true);
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
  gcsim::sim::RngStream weighted(23, 0, "maxmin-large-weighted");
  check_random_batches(weighted, 1500, 2, 8, 60, 3000, 3000, true);
}
