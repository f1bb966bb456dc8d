// The flow network on the engine: hand-computed finish times with flows arriving and
// leaving, the latency phase, zero-byte flows, cancellation, callbacks, link counters.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "models/network/flow_network.hpp"
#include "sim/engine.hpp"

using gcsim::network::FlowDone;
using gcsim::network::FlowId;
using gcsim::network::FlowNetwork;
using gcsim::network::LinkId;
using gcsim::sim::Engine;
using gcsim::sim::SimTime;

namespace {

struct Starter {
  FlowNetwork* net;
  std::vector<std::vector<LinkId>> paths;
  std::vector<double> bytes;
  void start(std::uint64_t i) { net->start_flow(paths[i], bytes[i], i); }
};

std::int64_t ns(double seconds) { return SimTime::from_seconds(seconds).ns(); }

}  // namespace

TEST_CASE("flow network: single bottleneck with flows arriving and leaving", "[model][network]") {
  // One link of 1e9 B/s, no latency. A = 1e9 B at 0, B = 0.5e9 B at 0.25 s, C = 0.25e9 B
  // at 0.5 s.
  //   [0, 0.25)     A alone at 1e9:        A left 0.75e9
  //   [0.25, 0.5)   A, B at 0.5e9 each:    A left 0.625e9, B left 0.375e9
  //   [0.5, 1.25)   A, B, C at 1e9/3:      C ends at 0.5 + 0.25e9 / (1e9/3) = 1.25 s;
  //                                        A left 0.375e9, B left 0.125e9
  //   [1.25, 1.5)   A, B at 0.5e9:         B ends at 1.25 + 0.125/0.5 = 1.5 s; A left 0.25e9
  //   [1.5, 1.75)   A alone at 1e9:        A ends at 1.75 s
  Engine engine;
  FlowNetwork net(engine);
  engine.add_resource_model(&net);
  const LinkId l = net.add_link(1e9, SimTime::zero());
  Starter st{&net, {{l}, {l}, {l}}, {1e9, 0.5e9, 0.25e9}};
  engine.schedule_at<&Starter::start>(SimTime::from_seconds(0), &st, 0);
  engine.schedule_at<&Starter::start>(SimTime::from_seconds(0.25), &st, 1);
  engine.schedule_at<&Starter::start>(SimTime::from_seconds(0.5), &st, 2);
  std::map<std::uint64_t, std::int64_t> finish;
  net.finished.connect([&](const FlowDone& d) { finish[d.tag] = d.finish.ns(); });
  engine.run();
  REQUIRE(finish.size() == 3);
  CHECK(finish[0] == ns(1.75));
  CHECK(finish[1] == ns(1.5));
  CHECK(finish[2] == ns(1.25));
  // Every byte crossed the link; it was busy from 0 to 1.75 s.
  const auto stats = net.link_stats(l, engine.now());
  CHECK(stats.bytes == Approx(1.75e9));
  CHECK(stats.busy.ns() == ns(1.75));
  CHECK(stats.utilization == Approx(1.0));
  CHECK(net.live_flows() == 0);
}

TEST_CASE("flow network: latency phase then bandwidth", "[model][network]") {
  // Two links of 1 us each at 1e9 B/s (1 B/ns): 1e6 B arrive at 2 us + 1 ms.
  Engine engine;
  FlowNetwork net(engine);
  engine.add_resource_model(&net);
  const LinkId a = net.add_link(1e9, SimTime::from_ns(1000));
  const LinkId b = net.add_link(1e9, SimTime::from_ns(1000));
  std::vector<LinkId> p{a, b};
  const FlowId id = net.start_flow(p, 1e6);
  CHECK(net.is_live(id));
  CHECK(net.rate(id) == 0.0);  // latency phase
  std::int64_t done = -1;
  net.finished.connect([&](const FlowDone& d) { done = d.finish.ns(); });
  engine.run();
  CHECK(done == 2000 + 1'000'000);
  CHECK_FALSE(net.is_live(id));
}

TEST_CASE("flow network: zero bytes and empty paths finish after the latency", "[model][network]") {
  Engine engine;
  FlowNetwork net(engine);
  engine.add_resource_model(&net);
  const LinkId a = net.add_link(1e9, SimTime::from_ns(500));
  std::vector<LinkId> p{a};
  net.start_flow(p, 0.0, 1);
  net.start_flow({}, 1e9, 2);
  std::map<std::uint64_t, std::int64_t> finish;
  net.finished.connect([&](const FlowDone& d) { finish[d.tag] = d.finish.ns(); });
  engine.run();
  CHECK(finish[1] == 500);
  CHECK(finish[2] == 0);
}

TEST_CASE("flow network: rounding never loops and never finishes early", "[model][network]") {
  // 1 B at 3 B/s: 1/3 s is not a whole number of ns; the finish rounds up.
  Engine engine;
  FlowNetwork net(engine);
  engine.add_resource_model(&net);
  const LinkId a = net.add_link(3.0, SimTime::zero());
  std::vector<LinkId> p{a};
  // Many flows of awkward sizes join and leave; all must finish, at or after their time.
  for (int i = 0; i < 7; ++i) net.start_flow(p, 1.0 + i / 7.0, static_cast<std::uint64_t>(i));
  int finished = 0;
  net.finished.connect([&](const FlowDone&) { ++finished; });
  engine.run();
  CHECK(finished == 7);
  // Total bytes 7 + 3 = 10 at 3 B/s: the last finish is 10/3 s rounded up to a ns.
  CHECK(engine.now().ns() >= 3'333'333'333);
  CHECK(engine.now().ns() <= 3'333'333'340);
}

TEST_CASE("flow network: callbacks can start the next flow, cancel frees bandwidth", "[model][network]") {
  Engine engine;
  FlowNetwork net(engine);
  engine.add_resource_model(&net);
  const LinkId l = net.add_link(1e9, SimTime::zero());
  std::vector<LinkId> p{l};
  struct Chain {
    FlowNetwork* net;
    std::vector<LinkId>* path;
    int left = 3;
    std::vector<std::int64_t> ends;
    static void on_done(void* ctx, const FlowDone& d) {
      auto* c = static_cast<Chain*>(ctx);
      c->ends.push_back(d.finish.ns());
      if (--c->left > 0) c->net->start_flow(*c->path, 1e8, 0, {&Chain::on_done, c});
    }
  } chain{&net, &p, 3, {}};
  net.start_flow(p, 1e8, 0, {&Chain::on_done, &chain});
  // A competing flow cancelled at once: it never reports and never slows the chain.
  const FlowId other = net.start_flow(p, 1e12, 99);
  bool other_reported = false;
  net.finished.connect([&](const FlowDone& d) { other_reported |= d.tag == 99; });
  engine.run(SimTime::zero());
  CHECK(net.cancel_flow(other));
  CHECK_FALSE(net.cancel_flow(other));
  engine.run();
  CHECK_FALSE(other_reported);
  REQUIRE(chain.ends.size() == 3);
  CHECK(chain.ends[0] == 100'000'000);
  CHECK(chain.ends[1] == 200'000'000);
  CHECK(chain.ends[2] == 300'000'000);
}
