// Unit tests of the event engine: total order, cancellation, run(until)/stop(), resource
// model interleaving, reproducibility, and a randomized comparison with a reference
// queue (a std::set ordered by (time, priority, sequence)) that covers heavy ties,
// cancellations and heap compaction.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/check.hpp"
#include "sim/engine.hpp"
#include "sim/rng.hpp"

using gcsim::sim::Engine;
using gcsim::sim::EventId;
using gcsim::sim::ResourceModel;
using gcsim::sim::RngStream;
using gcsim::sim::SimTime;
using gcsim::sim::seconds;

namespace {

SimTime ns(std::int64_t v) { return SimTime::from_ns(v); }

struct Handled {
  std::int64_t time_ns;
  std::uint64_t tag;
  bool operator==(const Handled&) const = default;
};

// Records every handled event as (now, tag).
struct Recorder {
  Engine* engine;
  std::vector<Handled> log;

  void on_event(std::uint64_t tag) { log.push_back({engine->now().ns(), tag}); }
  static void record(void* self, std::uint64_t tag) { static_cast<Recorder*>(self)->on_event(tag); }
  std::vector<std::uint64_t> tags() const {
    std::vector<std::uint64_t> out;
    for (const Handled& h : log) out.push_back(h.tag);
    return out;
  }
};

using Tags = std::vector<std::uint64_t>;

}  // namespace

TEST_CASE("events run in time order", "[unit]") {
  Engine engine;
  Recorder rec{&engine, {}};
  engine.schedule_at(seconds(30), &Recorder::record, &rec, 3);
  engine.schedule_at(seconds(10), &Recorder::record, &rec, 1);
  engine.schedule_at(seconds(20), &Recorder::record, &rec, 2);
  engine.schedule_at(ns(1), &Recorder::record, &rec, 0);
  REQUIRE(engine.pending() == 4);
  engine.run();
  CHECK(rec.log == std::vector<Handled>{{1, 0}, {10'000'000'000, 1}, {20'000'000'000, 2},
                                        {30'000'000'000, 3}});
  CHECK(engine.now() == seconds(30));
  CHECK(engine.pending() == 0);
  CHECK(engine.events_handled() == 4);
}

TEST_CASE("ties break by priority, then by scheduling order", "[unit]") {
  Engine engine;
  Recorder rec{&engine, {}};
  const SimTime t = seconds(5);
  engine.schedule_at(t, &Recorder::record, &rec, 10, 0);
  engine.schedule_at(t, &Recorder::record, &rec, 11, 0);
  engine.schedule_at(t, &Recorder::record, &rec, 20, 1);
  engine.schedule_at(t, &Recorder::record, &rec, 0, -1);
  engine.schedule_at(t, &Recorder::record, &rec, 12, 0);
  engine.schedule_at(t, &Recorder::record, &rec, 1, -1);
  engine.schedule_at(t, &Recorder::record, &rec, 99, 32767);
  engine.schedule_at(t, &Recorder::record, &rec, 98, -32768);
  // An earlier time wins over any priority.
  engine.schedule_at(seconds(4), &Recorder::record, &rec, 5, 100);
  engine.run();
  CHECK(rec.tags() == Tags{5, 98, 0, 1, 10, 11, 12, 20, 99});
}

TEST_CASE("many equal-time events keep FIFO order within a priority", "[unit]") {
  Engine engine;
  Recorder rec{&engine, {}};
  Tags expected;
  // Enough to fill several heap levels, so the tie path of the sift is exercised.
  for (std::uint64_t i = 0; i < 5000; ++i) {
    engine.schedule_at(seconds(1), &Recorder::record, &rec, i, static_cast<int>(i % 3));
  }
  for (int p = 0; p < 3; ++p) {
    for (std::uint64_t i = 0; i < 5000; ++i) {
      if (static_cast<int>(i % 3) == p) expected.push_back(i);
    }
  }
  engine.run();
  CHECK(rec.tags() == expected);
}

TEST_CASE("cancellation", "[unit]") {
  Engine engine;
  Recorder rec{&engine, {}};
  const EventId a = engine.schedule_at(seconds(1), &Recorder::record, &rec, 1);
  const EventId b = engine.schedule_at(seconds(2), &Recorder::record, &rec, 2);
  const EventId c = engine.schedule_at(seconds(3), &Recorder::record, &rec, 3);
  REQUIRE(a.valid());
  REQUIRE(engine.pending() == 3);

  SECTION("a cancelled event never runs and pending() drops") {
    CHECK(engine.is_pending(b));
    CHECK(engine.cancel(b));
    CHECK_FALSE(engine.is_pending(b));
    CHECK(engine.pending() == 2);
    engine.run();
    CHECK(rec.tags() == Tags{1, 3});
    CHECK(engine.events_handled() == 2);
  }
  SECTION("cancelling twice returns false the second time") {
    CHECK(engine.cancel(b));
    CHECK_FALSE(engine.cancel(b));
    CHECK(engine.pending() == 2);
  }
  SECTION("cancelling the earliest event lets the next one run first") {
    CHECK(engine.cancel(a));
    engine.run();
    CHECK(rec.tags() == Tags{2, 3});
  }
  SECTION("an event that already ran cannot be cancelled") {
    engine.run(seconds(1));
    CHECK(rec.tags() == Tags{1});
    CHECK_FALSE(engine.is_pending(a));
    CHECK_FALSE(engine.cancel(a));
    CHECK(engine.pending() == 2);
  }
  SECTION("a stale id stays stale after its slot is reused") {
    engine.run(seconds(1));  // a fired; its slot is free
    const EventId d = engine.schedule_at(seconds(4), &Recorder::record, &rec, 4);
    REQUIRE(d.slot == a.slot);  // the free list hands the slot back: the case under test
    CHECK_FALSE(engine.cancel(a));
    CHECK(engine.is_pending(d));
    CHECK(engine.cancel(c));
    const EventId e = engine.schedule_at(seconds(5), &Recorder::record, &rec, 5);
    CHECK_FALSE(engine.cancel(c));
    CHECK(engine.is_pending(e));
    engine.run();
    CHECK(rec.tags() == Tags{1, 2, 4, 5});
  }
  SECTION("a default id is never pending") {
    CHECK_FALSE(EventId{}.valid());
    CHECK_FALSE(engine.is_pending(EventId{}));
    CHECK_FALSE(engine.cancel(EventId{}));
  }
}

namespace {

// Handlers that act on the engine from inside an event.
struct Actor {
  Engine* engine;
  Recorder* rec;
  EventId victim;
  bool victim_cancelled = false;

  void chain_same_instant(std::uint64_t depth) {
    rec->on_event(depth);
    if (depth < 3) {
      engine->schedule_after<&Actor::chain_same_instant>(SimTime::zero(), this, depth + 1);
    }
  }
  void cancel_victim(std::uint64_t tag) {
    rec->on_event(tag);
    victim_cancelled = engine->cancel(victim);
  }
  void stop_now(std::uint64_t tag) {
    rec->on_event(tag);
    engine->stop();
  }
  void cancel_self(std::uint64_t tag) {
    rec->on_event(tag);
    victim_cancelled = engine->cancel(victim);  // victim is this very event
  }
};

}  // namespace

TEST_CASE("scheduling from a handler at the same instant runs after queued ties", "[unit]") {
  Engine engine;
  Recorder rec{&engine, {}};
  Actor actor{&engine, &rec, {}};
  engine.schedule_at<&Actor::chain_same_instant>(seconds(1), &actor, 0);
  engine.schedule_at(seconds(1), &Recorder::record, &rec, 100);
  engine.schedule_at(seconds(2), &Recorder::record, &rec, 200);
  engine.run();
  // 100 was scheduled before the handler ran, so it precedes the chained events.
  CHECK(rec.tags() == Tags{0, 100, 1, 2, 3, 200});
  CHECK(rec.log[4].time_ns == seconds(1).ns());
}

TEST_CASE("a handler can cancel other events but not itself", "[unit]") {
  Engine engine;
  Recorder rec{&engine, {}};
  Actor actor{&engine, &rec, {}};
  SECTION("cancel a later event") {
    engine.schedule_at<&Actor::cancel_victim>(seconds(1), &actor, 1);
    actor.victim = engine.schedule_at(seconds(2), &Recorder::record, &rec, 2);
    engine.schedule_at(seconds(3), &Recorder::record, &rec, 3);
    engine.run();
    CHECK(actor.victim_cancelled);
    CHECK(rec.tags() == Tags{1, 3});
  }
  SECTION("cancel an event at the same instant") {
    engine.schedule_at<&Actor::cancel_victim>(seconds(1), &actor, 1);
    actor.victim = engine.schedule_at(seconds(1), &Recorder::record, &rec, 2);
    engine.run();
    CHECK(actor.victim_cancelled);
    CHECK(rec.tags() == Tags{1});
  }
  SECTION("the running event is no longer pending") {
    actor.victim = engine.schedule_at<&Actor::cancel_self>(seconds(1), &actor, 1);
    engine.run();
    CHECK_FALSE(actor.victim_cancelled);
    CHECK(rec.tags() == Tags{1});
    CHECK(engine.events_handled() == 1);
  }
}

TEST_CASE("run(until) stops before later events and leaves them pending", "[unit]") {
  Engine engine;
  Recorder rec{&engine, {}};
  engine.schedule_at(seconds(1), &Recorder::record, &rec, 1);
  engine.schedule_at(seconds(5), &Recorder::record, &rec, 5);
  engine.schedule_at(seconds(9), &Recorder::record, &rec, 9);

  engine.run(seconds(5));  // an event exactly at `until` runs
  CHECK(rec.tags() == Tags{1, 5});
  CHECK(engine.now() == seconds(5));
  CHECK(engine.pending() == 1);

  engine.run(seconds(7));  // nothing to run: time still moves to `until`
  CHECK(rec.tags() == Tags{1, 5});
  CHECK(engine.now() == seconds(7));
  CHECK(engine.pending() == 1);

  engine.run();
  CHECK(rec.tags() == Tags{1, 5, 9});
  CHECK(engine.now() == seconds(9));

  engine.run(seconds(20));  // queue exhausted: now stays at the last handled instant
  CHECK(engine.now() == seconds(9));
}

TEST_CASE("stop() returns after the current event and run() resumes", "[unit]") {
  Engine engine;
  Recorder rec{&engine, {}};
  Actor actor{&engine, &rec, {}};
  engine.schedule_at(seconds(1), &Recorder::record, &rec, 1);
  engine.schedule_at<&Actor::stop_now>(seconds(2), &actor, 2);
  engine.schedule_at(seconds(2), &Recorder::record, &rec, 3);  // same instant, after the stop
  engine.schedule_at(seconds(4), &Recorder::record, &rec, 4);
  engine.run();
  CHECK(rec.tags() == Tags{1, 2});
  CHECK(engine.now() == seconds(2));
  CHECK(engine.pending() == 2);
  engine.run();
  CHECK(rec.tags() == Tags{1, 2, 3, 4});
}

TEST_CASE("member-function scheduling through the template", "[unit]") {
  struct Counter {
    std::vector<std::pair<std::int64_t, std::uint64_t>> seen;
    Engine* engine;
    void on_tick(std::uint64_t arg) { seen.emplace_back(engine->now().ns(), arg); }
  };
  Engine engine;
  Counter counter{{}, &engine};
  engine.schedule_at<&Counter::on_tick>(seconds(3), &counter, 7);
  engine.schedule_after<&Counter::on_tick>(seconds(1), &counter, 8, -1);
  const EventId id = engine.schedule_after<&Counter::on_tick>(seconds(2), &counter);
  CHECK(engine.cancel(id));
  engine.run();
  CHECK(counter.seen == std::vector<std::pair<std::int64_t, std::uint64_t>>{
                            {seconds(1).ns(), 8}, {seconds(3).ns(), 7}});
}

TEST_CASE("schedule_after saturates instead of overflowing", "[unit]") {
  Engine engine;
  Recorder rec{&engine, {}};
  engine.schedule_at(seconds(1), &Recorder::record, &rec, 1);
  engine.run();
  engine.schedule_after(SimTime::max(), &Recorder::record, &rec, 2);
  engine.run(seconds(100));
  CHECK(engine.pending() == 1);
  CHECK(rec.tags() == Tags{1});
}

namespace {

// A rate-shared resource stand-in: completes at given instants; each completion is
// logged with tag 1000 + k and may schedule an event at the same instant.
class FakeModel final : public ResourceModel {
 public:
  FakeModel(Engine* engine, Recorder* rec, std::vector<std::int64_t> completions_ns,
            std::uint64_t tag_base)
      : engine_(engine), rec_(rec), pending_(std::move(completions_ns)), tag_base_(tag_base) {
    std::sort(pending_.begin(), pending_.end());
  }

  SimTime next_event_time() const override {
    return next_ < pending_.size() ? ns(pending_[next_]) : SimTime::max();
  }
  void advance_to(SimTime now) override {
    ++advances;
    if (now < last_advance) went_back = true;
    last_advance = now;
    // Handles every completion due, as the interface requires.
    while (next_ < pending_.size() && pending_[next_] <= now.ns()) {
      if (pending_[next_] < now.ns()) missed = true;  // should have been advanced earlier
      rec_->on_event(tag_base_ + next_);
      if (schedule_on_completion) {
        engine_->schedule_at(now, &Recorder::record, rec_, 500 + next_);
      }
      ++next_;
    }
  }
  void add_completion(std::int64_t t_ns) {
    pending_.push_back(t_ns);
    std::sort(pending_.begin() + static_cast<std::ptrdiff_t>(next_), pending_.end());
  }

  int advances = 0;
  SimTime last_advance = SimTime::zero();
  bool went_back = false;
  bool missed = false;
  bool schedule_on_completion = false;

 private:
  Engine* engine_;
  Recorder* rec_;
  std::vector<std::int64_t> pending_;
  std::size_t next_ = 0;
  std::uint64_t tag_base_;
};

// An event that gives a model new work, as a transfer start would.
struct Feeder {
  FakeModel* model;
  std::int64_t at_ns;
  void on_event(std::uint64_t) { model->add_completion(at_ns); }
};

}  // namespace

TEST_CASE("resource models interleave with events", "[unit]") {
  Engine engine;
  Recorder rec{&engine, {}};
  FakeModel model(&engine, &rec, {15, 30, 30, 45}, 1000);
  engine.add_resource_model(&model);
  engine.schedule_at(ns(10), &Recorder::record, &rec, 1);
  engine.schedule_at(ns(30), &Recorder::record, &rec, 2);  // tie with the model: model first
  engine.schedule_at(ns(40), &Recorder::record, &rec, 3);

  SECTION("completions run at their instants, before events at the same instant") {
    engine.run();
    CHECK(rec.log == std::vector<Handled>{{10, 1}, {15, 1000}, {30, 1001}, {30, 1002},
                                          {30, 2}, {40, 3}, {45, 1003}});
    CHECK(model.advances == 3);  // 15, 30 (both completions at once), 45
    CHECK_FALSE(model.went_back);
    CHECK_FALSE(model.missed);
    CHECK(engine.now() == ns(45));  // the model's last completion ends the run
    CHECK(engine.events_handled() == 3);
  }
  SECTION("an event a model schedules at the current instant runs after the pending ties") {
    model.schedule_on_completion = true;
    engine.run();
    CHECK(rec.tags() == Tags{1, 1000, 500, 1001, 1002, 2, 501, 502, 3, 1003, 503});
  }
  SECTION("run(until) does not advance a model past until") {
    engine.run(ns(20));
    CHECK(rec.tags() == Tags{1, 1000});
    CHECK(engine.now() == ns(20));
    CHECK(model.last_advance == ns(15));
    engine.run(ns(30));
    CHECK(rec.tags() == Tags{1, 1000, 1001, 1002, 2});
    engine.run();
    CHECK_FALSE(model.went_back);
  }
}

TEST_CASE("only the models due at an instant are advanced", "[unit]") {
  Engine engine;
  Recorder rec{&engine, {}};
  FakeModel a(&engine, &rec, {5, 20}, 1000);
  FakeModel b(&engine, &rec, {5, 12}, 2000);
  FakeModel idle(&engine, &rec, {}, 3000);
  engine.add_resource_model(&a);
  engine.add_resource_model(&idle);
  engine.add_resource_model(&b);
  engine.run();
  CHECK(rec.tags() == Tags{1000, 2000, 2001, 1001});
  CHECK(a.advances == 2);
  CHECK(b.advances == 2);
  CHECK(idle.advances == 0);
  CHECK(engine.now() == ns(20));
}

TEST_CASE("a model given work by an event is consulted from then on", "[unit]") {
  Engine engine;
  Recorder rec{&engine, {}};
  FakeModel model(&engine, &rec, {}, 1000);
  engine.add_resource_model(&model);
  Feeder feeder{&model, 25};
  engine.schedule_at<&Feeder::on_event>(ns(10), &feeder);
  engine.schedule_at(ns(30), &Recorder::record, &rec, 1);
  engine.run();
  CHECK(rec.log == std::vector<Handled>{{25, 1000}, {30, 1}});
  CHECK_FALSE(model.went_back);
}

namespace {

// A workload driven by a random stream: each event draws a delay (often zero, to make
// ties), a priority, and sometimes schedules two events or cancels a pending one.
struct RandomWorkload {
  Engine* engine;
  RngStream rng;
  std::vector<Handled> log;
  std::vector<EventId> ids;
  std::uint64_t next_tag = 0;
  std::uint64_t budget;

  void spawn() {
    const SimTime delay = ns(static_cast<std::int64_t>(rng.uniform_int(4)) * 1000);
    const int priority = static_cast<int>(rng.uniform_int(3)) - 1;
    ids.push_back(
        engine->schedule_after<&RandomWorkload::on_event>(delay, this, next_tag++, priority));
  }
  void on_event(std::uint64_t tag) {
    log.push_back({engine->now().ns(), tag});
    if (budget == 0) return;
    --budget;
    spawn();
    if (rng.uniform01() < 0.3) spawn();
    if (rng.uniform01() < 0.2 && !ids.empty()) engine->cancel(ids[rng.uniform_int(ids.size())]);
  }
};

std::vector<Handled> run_random_workload(std::uint64_t seed) {
  Engine engine;
  RandomWorkload w{&engine, RngStream(seed, 0, "test.workload"), {}, {}, 0, 20000};
  for (int i = 0; i < 50; ++i) w.spawn();
  engine.run();
  return w.log;
}

}  // namespace

TEST_CASE("the same seeded workload gives the same handled sequence", "[unit]") {
  const std::vector<Handled> first = run_random_workload(42);
  const std::vector<Handled> second = run_random_workload(42);
  REQUIRE(first.size() > 20000);
  CHECK(first == second);
  CHECK(run_random_workload(43) != first);  // the comparison can fail
}

namespace {

// Reference queue: a std::set ordered by (time, priority, sequence), eager deletion.
class ReferenceQueue {
 public:
  using Key = std::tuple<std::int64_t, int, std::uint64_t>;
  std::size_t schedule(std::int64_t t, int priority, std::uint64_t tag) {
    const Key key{t, priority, next_seq_++};
    set_.insert({key, tag});
    keys_.push_back(key);
    return keys_.size() - 1;
  }
  bool cancel(std::size_t handle) {
    const auto it = set_.lower_bound({keys_[handle], 0});
    if (it == set_.end() || it->first != keys_[handle]) return false;
    set_.erase(it);
    return true;
  }
  std::size_t size() const { return set_.size(); }
  std::int64_t next_time() const { return std::get<0>(set_.begin()->first); }
  Handled pop() {
    const Handled out{std::get<0>(set_.begin()->first), set_.begin()->second};
    set_.erase(set_.begin());
    return out;
  }

 private:
  std::set<std::pair<Key, std::uint64_t>> set_;
  std::vector<Key> keys_;
  std::uint64_t next_seq_ = 0;
};

// Drives the engine and the reference with the same random decisions.
struct CrossCheck {
  Engine engine;
  ReferenceQueue ref;
  RngStream rng{7, 3, "test.crosscheck"};
  std::vector<EventId> ids;
  std::vector<std::size_t> handles;
  std::vector<Handled> engine_log;
  std::vector<Handled> ref_log;
  std::uint64_t next_tag = 0;

  static void handle(void* self, std::uint64_t tag) {
    auto* c = static_cast<CrossCheck*>(self);
    c->engine_log.push_back({c->engine.now().ns(), tag});
  }
  void schedule(std::int64_t t, int priority) {
    const std::uint64_t tag = next_tag++;
    ids.push_back(engine.schedule_at(ns(t), &CrossCheck::handle, this, tag, priority));
    handles.push_back(ref.schedule(t, priority, tag));
  }
  void cancel(std::size_t i) { CHECK(engine.cancel(ids[i]) == ref.cancel(handles[i])); }
  void run(std::int64_t until) {
    engine.run(ns(until));
    while (ref.size() != 0 && ref.next_time() <= until) ref_log.push_back(ref.pop());
  }
};

}  // namespace

TEST_CASE("the engine matches a reference queue under ties and cancellations", "[unit]") {
  CrossCheck c;
  for (int round = 0; round < 60; ++round) {
    const std::int64_t base = c.engine.now().ns();
    // Bursts over a 50 ns window and 4 priorities: most events tie with others.
    const std::uint64_t burst = c.rng.uniform_int(3000);
    for (std::uint64_t i = 0; i < burst; ++i) {
      c.schedule(base + static_cast<std::int64_t>(c.rng.uniform_int(50)),
                 static_cast<int>(c.rng.uniform_int(4)) - 2);
    }
    if (round % 20 == 10) {
      // Far-future events, most cancelled at once: stale entries then outnumber live
      // ones by thousands, which makes the engine compact its heap.
      const std::size_t first = c.ids.size();
      for (int i = 0; i < 20000; ++i) {
        c.schedule(base + 1'000'000 + static_cast<std::int64_t>(c.rng.uniform_int(1000)), 0);
      }
      for (std::size_t i = first; i < c.ids.size(); ++i) {
        if (c.rng.uniform01() < 0.9) c.cancel(i);
      }
    }
    // Cancel a random share of everything ever scheduled, stale ids included.
    const double share = 0.3 * c.rng.uniform01();
    for (std::size_t i = 0; i < c.ids.size(); ++i) {
      if (c.rng.uniform01() < share) c.cancel(i);
    }
    REQUIRE(c.engine.pending() == c.ref.size());
    c.run(base + static_cast<std::int64_t>(c.rng.uniform_int(60)));
    REQUIRE(c.engine_log == c.ref_log);
  }
  c.run(std::numeric_limits<std::int64_t>::max());
  CHECK(c.engine_log == c.ref_log);
  CHECK(c.engine.pending() == 0);
  CHECK(c.engine_log.size() > 10000);
}

TEST_CASE("scheduling in the past throws InternalError with a message", "[unit]") {
  // Not abort(): a sweep running many simulations in one process loses only this run.
  Engine engine;
  Recorder rec{&engine, {}};
  engine.schedule_at(seconds(2), &Recorder::record, &rec, 1);
  engine.run();
  REQUIRE_THROWS_AS(engine.schedule_at(seconds(1), &Recorder::record, &rec, 2), gcsim::InternalError);
  CHECK_THROWS_WITH(engine.schedule_at(seconds(1), &Recorder::record, &rec, 2),
                    Catch::Matchers::Contains("before now") && Catch::Matchers::Contains("(1000000000, 2000000000)"));
  // The failed call changed nothing: the engine goes on.
  CHECK(engine.pending() == 0);
  engine.schedule_at(seconds(3), &Recorder::record, &rec, 3);
  engine.run();
  CHECK(rec.log.size() == 2);
}

namespace {
// Fails inside the event loop after scheduling more work, so events are left pending:
// by throwing its own exception, or by breaking an engine invariant.
struct Failer {
  Engine* engine;
  bool break_invariant;
  void on_event(std::uint64_t generation) {
    for (int i = 0; i < 100; ++i) engine->schedule_after<&Failer::on_event>(seconds(1 + i), this, generation + 1);
    if (generation < 2) return;
    if (break_invariant) engine->schedule_at<&Failer::on_event>(seconds(0), this, 0);  // in the past
    throw std::runtime_error("handler failed");
  }
};
}  // namespace

TEST_CASE("an exception escaping run() leaves the engine unusable but destructible", "[unit]") {
  // Under GCSIM_SANITIZE=ON this also checks that destruction is clean.
  for (const bool break_invariant : {false, true}) {
    CAPTURE(break_invariant);
    Engine engine;
    Failer f{&engine, break_invariant};
    engine.schedule_at<&Failer::on_event>(seconds(1), &f, 0);
    if (break_invariant) {
      CHECK_THROWS_AS(engine.run(), gcsim::InternalError);
    } else {
      CHECK_THROWS_AS(engine.run(), std::runtime_error);  // the handler's own, unchanged
    }
    CHECK(engine.pending() > 0);
    // From now on it says so instead of running from a half-handled event.
    CHECK_THROWS_AS(engine.run(), gcsim::InternalError);
    CHECK_THROWS_WITH(engine.run(), Catch::Matchers::Contains("unusable"));
  }
}
