// sim::Activity, the record of work at a rate that may change (sim/activity.hpp): the
// figures below are worked by hand from remaining(t) = remaining - rate * (t - updated).
#include <catch2/catch.hpp>

#include "sim/activity.hpp"
#include "sim/engine.hpp"

using namespace gcsim;
using sim::SimTime;

namespace {
SimTime at_s(double s) { return SimTime::from_seconds(s); }
void count(void* context, std::uint64_t) { ++*static_cast<int*>(context); }
}  // namespace

TEST_CASE("an activity books its work across rate changes and predicts its finish", "[sim][activity]") {
  sim::Activity a;
  a.remaining = 100;  // units
  a.rate = 10;        // units per second, from 0
  CHECK(a.done_by(at_s(4)) == Approx(40).epsilon(1e-15));
  CHECK(a.remaining_at(at_s(4)) == Approx(60).epsilon(1e-15));
  CHECK(a.done_by(at_s(30)) == 100);  // never more than is left
  // At 4 s the rate halves: 40 done, 60 left at 5/s ends 12 s later, at 16 s.
  a.set_rate(at_s(4), 5);
  CHECK(a.remaining == Approx(60).epsilon(1e-15));
  CHECK(a.updated == at_s(4));
  CHECK(a.predict_finish() == at_s(16));
  a.rate = 0;
  CHECK(a.predict_finish().is_max());
}

TEST_CASE("an activity's work starts at `updated`, which may be in the future", "[sim][activity]") {
  // A job's compute waits for its restore and staging: it is set to start at 10 s.
  sim::Activity a;
  a.remaining = 100;
  a.rate = 10;
  a.updated = at_s(10);
  CHECK(a.done_by(at_s(5)) == 0);  // before the start: nothing done (not -50)
  CHECK(a.remaining_at(at_s(5)) == 100);
  // Settling before the start books nothing and keeps the start where it is.
  CHECK(a.settle(at_s(5)) == 0);
  CHECK(a.updated == at_s(10));
  CHECK(a.remaining == 100);
  CHECK(a.predict_finish() == at_s(20));
  // After the start it books as usual: 3 s at 10/s by 13 s.
  CHECK(a.settle(at_s(13)) == Approx(30).epsilon(1e-15));
  CHECK(a.updated == at_s(13));
  CHECK(a.predict_finish() == at_s(20));
}

TEST_CASE("cancelling an activity removes its completion event", "[sim][activity]") {
  sim::Engine engine;
  int fired = 0;
  sim::Activity a;
  a.remaining = 1;
  a.rate = 1;
  a.finish = a.predict_finish();
  a.completion = engine.schedule_at(a.finish, &count, &fired);
  CHECK(a.cancel(engine));
  CHECK(a.finish.is_max());
  CHECK_FALSE(a.cancel(engine));  // nothing pending any more
  engine.run();
  CHECK(fired == 0);
}
