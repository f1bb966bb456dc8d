// OrderIndex::rekey_all (finish-time-fair's re-keying at each round) and rekey (one job's:
// las' promotions): the order visited after them is the new keys' order, ties by job id,
// and the index stays usable (erase, insert, key, scan) because each job's position was
// refiled with its heap rebuilt. And the
// Preempter's own copy of the nodes (stopping jobs' GPUs counted free), which follows the
// cluster's change log: the room it plans after the view changed, hand-computed.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "models/scheduler/order_index.hpp"
#include "models/scheduler/preempter.hpp"
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

TEST_CASE("OrderIndex::rekey: one job's new key, earlier or later, as a plain sort says", "[unit][scheduler]") {
  // By hand: 1-GPU jobs 0..4 keyed 0..4 and an 8-GPU job 5 keyed 2.5. Job 4 moves to the
  // front (a las promotion: a smaller key), job 0 behind everyone (a demotion), job 3 ties
  // job 5 (ties by job id: 3 first).
  models::OrderIndex<double> idx;
  for (std::uint32_t j = 0; j < 5; ++j) idx.insert(j, 1, static_cast<double>(j));
  idx.insert(5, 8, 2.5);
  idx.rekey(4, -1.0);
  CHECK(visit_all(idx) == std::vector<std::uint32_t>{4, 0, 1, 2, 5, 3});
  idx.rekey(0, 10.0);
  CHECK(visit_all(idx) == std::vector<std::uint32_t>{4, 1, 2, 5, 3, 0});
  idx.rekey(3, 2.5);
  CHECK(visit_all(idx) == std::vector<std::uint32_t>{4, 1, 2, 3, 5, 0});
  CHECK(idx.key(3) == 2.5);
  CHECK(idx.size() == 6);
  CHECK_THROWS_AS(idx.rekey(9, 0.0), InternalError);
  // Random: thousands of jobs in a few classes (heaps several levels deep), keys from few
  // values (ties common), rekeys in both directions mixed with erases and inserts; after
  // each batch the scan is the plain sort and every key and position is right (an erase
  // of each job at the end finds it).
  std::mt19937_64 rng(4242);
  const int sizes[] = {1, 1, 2, 4, 8, 16};
  models::OrderIndex<double> big;
  std::vector<double> key(5000);
  std::vector<int> gpus(key.size());
  std::vector<bool> in(key.size(), false);
  const auto draw_key = [&] { return static_cast<double>(rng() % 300); };
  for (std::uint32_t j = 0; j < key.size(); ++j) {
    gpus[j] = sizes[rng() % std::size(sizes)];
    key[j] = draw_key();
    big.insert(j, gpus[j], key[j]);
    in[j] = true;
  }
  const auto expected = [&] {
    std::vector<std::pair<double, std::uint32_t>> keyed;
    for (std::uint32_t j = 0; j < key.size(); ++j)
      if (in[j]) keyed.emplace_back(key[j], j);
    return sorted_order(keyed);
  };
  for (int round = 0; round < 6; ++round) {
    for (int k = 0; k < 2000; ++k) {
      const std::uint32_t j = static_cast<std::uint32_t>(rng() % key.size());
      const int what = static_cast<int>(rng() % 4);
      if (in[j] && what < 3) {
        key[j] = what == 0 ? key[j] - 1000.0 : draw_key();  // to the front, or anywhere
        big.rekey(j, key[j]);
      } else if (in[j]) {
        big.erase(j);
        in[j] = false;
      } else {
        key[j] = draw_key();
        big.insert(j, gpus[j], key[j]);
        in[j] = true;
      }
    }
    REQUIRE(visit_all(big) == expected());
    for (std::uint32_t j = 0; j < key.size(); ++j)
      if (in[j]) REQUIRE(big.key(j) == key[j]);
  }
  for (std::uint32_t j = 0; j < key.size(); ++j)
    if (in[j]) big.erase(j);
  CHECK(big.empty());
}

TEST_CASE("OrderIndex::scan drops classes that do not fit and stops as a plain sort says", "[unit][scheduler]") {
  // Random keys with ties, jobs of many sizes, some leaving: a scan whose fits() refuses
  // classes above a limit visits, in key order (ties by job id), every job of a fitting
  // class and the first job of each class that does not fit (told so), and passes each
  // job's key to a visitor that takes it; Stop ends it at once.
  std::mt19937_64 rng(777);
  const int sizes[] = {1, 1, 2, 3, 4, 8, 16, 33, 64, 65, 130, 300};
  models::OrderIndex<double> idx;
  std::vector<double> key(1500);
  std::vector<int> gpus(key.size());
  for (std::uint32_t j = 0; j < key.size(); ++j) {
    gpus[j] = sizes[rng() % std::size(sizes)];
    key[j] = static_cast<double>(rng() % 100);
    idx.insert(j, gpus[j], key[j]);
  }
  std::vector<bool> in(key.size(), true);
  for (int k = 0; k < 400; ++k) {
    const std::uint32_t j = static_cast<std::uint32_t>(rng() % key.size());
    if (in[j]) idx.erase(j);
    in[j] = false;
  }
  using Index = models::OrderIndex<double>;
  for (const int limit : {0, 1, 3, 8, 64, 200, 1000}) {
    for (const std::size_t stop_after : {std::size_t{5}, std::size_t{100000}}) {
      INFO("limit " << limit << ", stop after " << stop_after);
      std::vector<std::pair<double, std::uint32_t>> keyed;
      for (std::uint32_t j = 0; j < key.size(); ++j)
        if (in[j]) keyed.emplace_back(key[j], j);
      std::vector<std::pair<std::uint32_t, bool>> want;
      std::vector<bool> dropped(Index::CLASSES, false);
      for (const std::uint32_t j : sorted_order(keyed)) {
        if (want.size() == stop_after) break;
        const int c = Index::size_class(gpus[j]);
        if (dropped[static_cast<std::size_t>(c)]) continue;
        const bool fits = Index::smallest_in_class(c) <= limit;
        want.emplace_back(j, fits);
        if (!fits) dropped[static_cast<std::size_t>(c)] = true;
      }
      std::vector<std::pair<std::uint32_t, bool>> got;
      bool keys_match = true;
      idx.scan([&](int smallest) { return smallest <= limit; }, [&](std::uint32_t id, bool fits, double k) {
        keys_match = keys_match && k == key[id];
        got.emplace_back(id, fits);
        return got.size() == stop_after ? models::Visit::Stop : models::Visit::Next;
      });
      CHECK(keys_match);
      CHECK(got == want);
    }
  }
}

TEST_CASE("ClassFitMemo asks once per class until the capacity changes", "[unit][scheduler]") {
  models::ClassFitMemo memo;
  int asked = 0;
  int free_gpus = 8;
  const auto ask = [&](int g) {
    ++asked;
    return g <= free_gpus;
  };
  CHECK(memo(4, ask));
  CHECK(memo(4, ask));
  CHECK(asked == 1);
  CHECK_FALSE(memo(16, ask));
  CHECK(asked == 2);
  // 65 and 100 share a class: a different size is asked again, not answered from the other.
  CHECK_FALSE(memo(65, ask));
  free_gpus = 100;
  CHECK(memo(100, ask));
  CHECK(asked == 4);
  // Capacity changed without changed(): the kept answer stands (the caller says when).
  CHECK_FALSE(memo(16, ask));
  CHECK(asked == 4);
  memo.changed();
  CHECK(memo(16, ask));
  CHECK(asked == 5);
  free_gpus = 2;
  memo.changed();
  CHECK_FALSE(memo(4, ask));
  CHECK(asked == 6);
}

namespace {
// Running jobs of a hand-built view: job -> (nodes, GPUs on each).
class Running final : public models::RunningJobs {
 public:
  std::map<std::uint32_t, std::pair<std::vector<std::uint32_t>, int>> jobs;
  models::RunningPlace where(std::uint32_t job) const override {
    const auto it = jobs.find(job);
    REQUIRE(it != jobs.end());
    return models::RunningPlace{0, it->second.first, it->second.second};
  }
};

models::QueuedJob waiting_job(std::uint32_t id, int gpus) {
  models::QueuedJob q;
  q.job = id;
  q.gpus = gpus;
  q.eligible_types = 1;
  return q;
}
}  // namespace

TEST_CASE("Preempter: its copy of the nodes follows the view, the jobs stopping and the pass's placements",
          "[unit][scheduler]") {
  // Two nodes of 8 GPUs. Job 1 runs on node 0 (8 GPUs, key 1), jobs 2 and 3 on node 1
  // (4 GPUs each, keys 2 and 3): nothing is free.
  const std::vector<models::NodeTypeView> types{models::NodeTypeView{8, 2, 0, 1.0}};
  std::vector<models::NodeView> nodes{models::NodeView{0, 0}, models::NodeView{0, 0}};
  models::NodeChanges log;
  Running running;
  running.jobs[1] = {{0}, 8};
  running.jobs[2] = {{1}, 4};
  running.jobs[3] = {{1}, 4};
  models::Preempter p;
  p.running(1, 8, 1.0);
  p.running(2, 4, 2.0);
  p.running(3, 4, 3.0);
  models::ClusterView view{sim::SimTime::zero(), types, nodes};
  view.running_jobs = &running;
  view.changes = &log;
  models::Decisions out;
  const auto any = [](std::uint32_t) { return true; };
  const auto room = [&](int gpus) {
    return p.make_room(view, waiting_job(100, gpus), any, models::PreemptReason::Shorter, out);
  };
  const auto preempted = [&] {
    std::vector<std::uint32_t> ids;
    for (const models::Preemption& x : out.preemptions) ids.push_back(x.job);
    return ids;
  };

  // An 8-GPU job: job 1 (first in order) frees node 0.
  CHECK(room(8));
  CHECK(preempted() == std::vector<std::uint32_t>{1});
  CHECK(p.is_preempted(1));
  CHECK(p.is_running(1));
  CHECK(p.key(1) == 1.0);
  // A new key for a stopping job is kept, and it is still not a victim.
  p.running(1, 8, 0.5);
  CHECK(p.key(1) == 0.5);

  // Next pass, nothing changed: node 0 is coming free (job 1 stops), so another 8-GPU job
  // preempts nobody.
  out.clear();
  CHECK_FALSE(room(8));
  CHECK(out.preemptions.empty());

  // Job 1's run ends: node 0 is free in the view (logged). This pass placed an 8-GPU job on
  // node 0, so a 4-GPU job finds no room: job 2 (next in order) frees 4 on node 1.
  running.jobs.erase(1);
  p.ended(1);
  nodes[0].gpus_free = 8;
  log.nodes.push_back(0);
  out.clear();
  out.placements.push_back(models::Placement{50, 0, 1, 8, 0});
  out.nodes.push_back(0);
  CHECK(room(4));
  CHECK(preempted() == std::vector<std::uint32_t>{2});
  CHECK_FALSE(p.is_running(1));

  // The next pass, nothing changed yet: node 0 is free in the view, an 8-GPU job fits.
  out.clear();
  CHECK_FALSE(room(8));

  // Job 3 finished and job 50 started on node 0, both in the log (and nothing the preempter
  // did itself): node 0 is full, node 1 has 4 free and job 2's 4 coming. A 16-GPU job has
  // no room, and job 50 (first in order) frees node 0.
  running.jobs.erase(3);
  p.ended(3);
  running.jobs[50] = {{0}, 8};
  p.running(50, 8, 4.0);
  nodes[0].gpus_free = 0;
  nodes[1].gpus_free = 4;
  log.nodes.push_back(1);
  log.nodes.push_back(0);
  out.clear();
  CHECK(room(16));
  CHECK(preempted() == std::vector<std::uint32_t>{50});

  // Passes without a plan drop the log unread; meanwhile job 60 took node 1's 4 free GPUs.
  // Node 0 has job 50's 8 coming, node 1 only job 2's 4: a 16-GPU job preempts job 60.
  running.jobs[60] = {{1}, 4};
  p.running(60, 4, 6.0);
  nodes[1].gpus_free = 0;
  log.dropped += log.nodes.size() + 1;  // and job 60's start, never read
  log.nodes.clear();
  out.clear();
  CHECK(room(16));
  CHECK(preempted() == std::vector<std::uint32_t>{60});
  // A 17-GPU job needs 3 nodes: it never fits, and nobody is preempted.
  out.clear();
  CHECK_FALSE(room(17));
  CHECK(out.preemptions.empty());
}

TEST_CASE("Preempter: only the victims the waiting job's place needs are preempted, whole nodes by their last victim",
          "[unit][scheduler]") {
  // Three nodes of 8 GPUs, each full of 1-GPU jobs. Keys (the victim order) interleave the
  // nodes: node 0 holds jobs 10..17 with keys 1, 4, ..., 22; node 1 jobs 20..27 with keys
  // 2, 5, ..., 23; node 2 jobs 30..37 with keys 3, 6, ..., 24.
  const std::vector<models::NodeTypeView> types{models::NodeTypeView{8, 3, 0, 1.0}};
  std::vector<models::NodeView> nodes{models::NodeView{0, 0}, models::NodeView{0, 0}, models::NodeView{0, 0}};
  models::NodeChanges log;
  Running running;
  models::Preempter p;
  for (std::uint32_t n = 0; n < 3; ++n)
    for (std::uint32_t k = 0; k < 8; ++k) {
      const std::uint32_t job = 10 * (n + 1) + k;
      running.jobs[job] = {{n}, 1};
      p.running(job, 1, static_cast<double>(1 + n + 3 * k));
    }
  models::ClusterView view{sim::SimTime::zero(), types, nodes};
  view.running_jobs = &running;
  view.changes = &log;
  models::Decisions out;
  const auto preempted = [&] {
    std::vector<std::uint32_t> ids;
    for (const models::Preemption& x : out.preemptions) ids.push_back(x.job);
    std::sort(ids.begin(), ids.end());
    return ids;
  };
  const auto below = [&](double limit) { return [&p, limit](std::uint32_t id) { return p.key(id) < limit; }; };
  const auto range = [](std::uint32_t first, std::uint32_t count) {
    std::vector<std::uint32_t> ids(count);
    for (std::uint32_t i = 0; i < count; ++i) ids[i] = first + i;
    return ids;
  };

  SECTION("an 8-GPU job takes the node whose last victim comes first: node 0's 8 jobs, not 22") {
    // Job by job, node 0 would come free only after the 22 jobs of keys 1..22.
    CHECK(p.make_room(view, waiting_job(100, 8), below(1e9), models::PreemptReason::Shorter, out));
    CHECK(preempted() == range(10, 8));
  }
  SECTION("a 16-GPU job takes nodes 0 and 1 (last victims 22 and 23)") {
    CHECK(p.make_room(view, waiting_job(100, 16), below(1e9), models::PreemptReason::Shorter, out));
    std::vector<std::uint32_t> expected = range(10, 8);
    for (std::uint32_t id : range(20, 8)) expected.push_back(id);
    CHECK(preempted() == expected);
  }
  SECTION("when only keys below 22 may be preempted, no node can be cleared: nobody is preempted") {
    CHECK_FALSE(p.make_room(view, waiting_job(100, 8), below(22.0), models::PreemptReason::Shorter, out));
    CHECK(out.preemptions.empty());
    // Keys below 23 clear node 0 alone: an 8-GPU job fits, a 16-GPU job does not.
    CHECK_FALSE(p.make_room(view, waiting_job(101, 16), below(23.0), models::PreemptReason::Shorter, out));
    CHECK(out.preemptions.empty());
    CHECK(p.make_room(view, waiting_job(102, 8), below(23.0), models::PreemptReason::Shorter, out));
    CHECK(preempted() == range(10, 8));
  }
  SECTION("a 2-GPU job: of the victims taken in order (keys 1 and 2), only the one on its node") {
    // Job 27 (node 1) ended: node 1 has one free GPU. In order, job 10 (key 1, node 0) and
    // job 20 (key 2, node 1) are given back before 2 GPUs come free on one node; the job
    // goes to node 1 (best fit), so only job 20 is preempted.
    running.jobs.erase(27);
    p.ended(27);
    nodes[1].gpus_free = 1;
    log.nodes.push_back(1);
    CHECK(p.make_room(view, waiting_job(100, 2), below(1e9), models::PreemptReason::Shorter, out));
    CHECK(preempted() == std::vector<std::uint32_t>{20});
  }
}
