// The spot market at run time, against a recording NodeEventSink: Poisson counts within their
// confidence interval, Weibull lifetimes against theory, exact notice and provisioning
// delays, replay of real skypilot-spot traces at the traces' own times, price-driven
// crossings, availability windows and traces, correlated events, and determinism.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "models/pricing/price_profile.hpp"
#include "models/spot/node_events.hpp"
#include "models/spot/spot_market.hpp"
#include "models/spot/spot_spec.hpp"
#include "sim/config/config_node.hpp"
#include "sim/engine.hpp"

using gcsim::models::AvailabilitySpec;
using gcsim::models::InterruptionProcess;
using gcsim::models::InterruptionSpec;
using gcsim::models::PricePoint;
using gcsim::models::PriceProfile;
using gcsim::models::SpotMarket;
using gcsim::models::SpotPoolSpec;
using gcsim::sim::Engine;
using gcsim::sim::SimTime;
using gcsim::sim::hours;
using gcsim::sim::minutes;
using gcsim::sim::seconds;

namespace {

const std::string TRACES = GCSIM_SOURCE_DIR "/scenarios/catalog/spot-traces";

struct Rec {
  char kind;  // 'n' notice, 'd' down, 'u' up
  std::uint32_t node;
  std::int64_t at_ns;
  std::int64_t down_at_ns;  // notices only
  bool operator==(const Rec&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Rec& r) {
  return os << r.kind << " node " << r.node << " at " << r.at_ns / 1e9 << " s"
            << (r.kind == 'n' ? " down at " + std::to_string(r.down_at_ns / 1e9) : std::string());
}

class RecordingSink : public gcsim::models::NodeEventSink {
 public:
  explicit RecordingSink(const Engine& engine) : engine_(engine) {}
  void notice(std::uint32_t node, SimTime down_at) override {
    events.push_back({'n', node, engine_.now().ns(), down_at.ns()});
  }
  void down(std::uint32_t node, gcsim::models::NodeReason why) override {
    events.push_back({'d', node, engine_.now().ns(), 0});
    reasons.push_back(why);
  }
  void provisioning(std::uint32_t node, gcsim::models::NodeReason why) override {
    requests.push_back({'p', node, engine_.now().ns(), 0});
    reasons.push_back(why);
  }
  void up(std::uint32_t node, gcsim::models::NodeReason why) override {
    events.push_back({'u', node, engine_.now().ns(), 0});
    reasons.push_back(why);
  }
  std::vector<Rec> events;
  std::vector<Rec> requests;  // provisioning calls, kept apart so the event sequences stay as they were
  std::vector<gcsim::models::NodeReason> reasons;  // of down, provisioning and up, in call order

 private:
  const Engine& engine_;
};

struct Harness {
  Engine engine;
  RecordingSink sink{engine};
  std::unique_ptr<SpotMarket> market;
  Harness(std::vector<SpotPoolSpec> pools, std::uint64_t seed = 1, std::uint64_t replication = 0) {
    market = std::make_unique<SpotMarket>(engine, seed, replication, std::move(pools), sink);
    market->start();
  }
  const std::vector<Rec>& run(SimTime until) {
    engine.run(until);
    return sink.events;
  }
};

SpotPoolSpec pool(const std::string& name, std::uint32_t first, int count, InterruptionSpec s,
                  SimTime notice = SimTime::zero(), SimTime provisioning = SimTime::zero()) {
  SpotPoolSpec p;
  p.name = name;
  p.first_node = first;
  p.count = count;
  p.interruptions = std::move(s);
  p.notice = notice;
  p.provisioning = provisioning;
  return p;
}

InterruptionSpec poisson(double per_hour) {
  InterruptionSpec s;
  s.process = InterruptionProcess::Poisson;
  s.rate_per_s = per_hour / 3600.0;
  return s;
}

InterruptionSpec parsed(const std::string& yaml) {
  const auto doc = gcsim::config::load_yaml_string(yaml, TRACES + "/pool.yaml");
  gcsim::config::SourceResolver sources;
  return gcsim::models::parse_interruptions(doc.root, sources);
}

std::vector<Rec> only(const std::vector<Rec>& events, char kind) {
  std::vector<Rec> out;
  for (const Rec& r : events)
    if (r.kind == kind) out.push_back(r);
  return out;
}

// A deliberately separate, naive reader of a skypilot trace: the gap and the data list.
struct RawTrace {
  double gap_s = 0;
  std::vector<long> values;
};
RawTrace read_raw(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  RawTrace t;
  const std::size_t g = text.find("\"gap_seconds\"");
  t.gap_s = std::strtod(text.c_str() + text.find(':', g) + 1, nullptr);
  const char* p = text.c_str() + text.find('[', text.find("\"data\""));
  while (*p != ']') {
    ++p;  // '[' or ','
    char* end = nullptr;
    t.values.push_back(std::strtol(p, &end, 10));
    p = end;
    while (*p == ' ' || *p == '\n') ++p;
  }
  return t;
}

// Checks, per node, that each down is preceded by its notice naming that down's time, given
// at max(down - notice, the node's last up time).
void check_notices(const std::vector<Rec>& events, SimTime notice, std::uint32_t first, int count) {
  std::map<std::uint32_t, std::int64_t> last_up;
  std::map<std::uint32_t, const Rec*> open_notice;
  for (std::uint32_t n = first; n < first + static_cast<std::uint32_t>(count); ++n) last_up[n] = 0;
  for (const Rec& r : events) {
    if (r.kind == 'u') {
      last_up[r.node] = r.at_ns;
    } else if (r.kind == 'n') {
      REQUIRE(open_notice[r.node] == nullptr);
      open_notice[r.node] = &r;
      CHECK(r.at_ns == std::max(last_up[r.node], r.down_at_ns - notice.ns()));
    } else if (r.kind == 'd' && r.at_ns > 0) {
      const Rec* n = open_notice[r.node];
      REQUIRE(n != nullptr);
      CHECK(n->down_at_ns == r.at_ns);
      open_notice[r.node] = nullptr;
    }
  }
}

}  // namespace

TEST_CASE("Poisson interruptions: the count lies in its 99.9% interval", "[model][spot]") {
  // 100 nodes at 0.05 per node-hour for 1,000 h, replaced at once (provisioning 0): each node
  // slot is a renewal process with exponential gaps, i.e. a Poisson process, so the total
  // count N ~ Poisson(mu), mu = 100 x 0.05 x 1000 = 5,000. For mu this large the Poisson is
  // normal to within its skewness 1/sqrt(mu) = 0.014, so the two-sided 99.9% interval is
  // mu +- 3.2905 sqrt(mu) = 5000 +- 232.7 -> [4768, 5232]. The notice does not move the
  // downs, only announces them.
  Harness h({pool("p", 0, 100, poisson(0.05), minutes(2))}, 42);
  const auto& events = h.run(hours(1000));
  const std::size_t downs = only(events, 'd').size();
  INFO("interruptions: " << downs);
  CHECK(downs >= 4768);
  CHECK(downs <= 5232);
  CHECK(h.market->counters(0).interruptions == downs);
  CHECK(h.market->counters(0).notices >= downs);
  CHECK(h.market->counters(0).initially_down == 0);

  // The advisor's band rate through the same process: band 4 over 2,000 nodes for 730 h
  // has mu = 2000 x (-ln(1 - 0.225)) = 509.9; 99.9% interval 509.9 +- 3.2905 x 22.58.
  InterruptionSpec band4;
  band4.process = InterruptionProcess::Poisson;
  band4.rate_per_s = gcsim::models::advisor_band_rate_per_s(4);
  Harness a({pool("adv", 0, 2000, band4)}, 9);
  const std::size_t adv = only(a.run(hours(730)), 'd').size();
  INFO("advisor-band interruptions: " << adv);
  CHECK(adv >= 436);
  CHECK(adv <= 584);
}

TEST_CASE("Weibull lifetimes: mean lambda Gamma(1 + 1/k), median lambda ln2^(1/k)", "[model][spot]") {
  // 20,000 nodes up at 0, never replaced (provisioning of a million hours): their first downs
  // are 20,000 independent Weibull(k = 0.7, lambda = 20 h) lifetimes. Mean 20 Gamma(2.4286) =
  // 25.316 h, standard deviation 20 sqrt(Gamma(3.857) - Gamma(2.4286)^2) = 37.02 h, so the
  // sample mean's standard error is 0.262 h: we allow 4 of them (two-sided p = 6e-5). The
  // share below the median 20 ln(2)^(1/0.7) = 11.85 h is 0.5 +- 4 x 0.0035.
  const int n = 20000;
  InterruptionSpec s;
  s.process = InterruptionProcess::Weibull;
  s.weibull_shape = 0.7;
  s.weibull_scale = hours(20);
  Harness h({pool("w", 0, n, s, SimTime::zero(), hours(1'000'000))}, 3);
  const auto downs = only(h.run(hours(500'000)), 'd');
  REQUIRE(downs.size() == static_cast<std::size_t>(n));
  double sum_h = 0;
  int below_median = 0;
  const double median_h = 20 * std::pow(std::log(2.0), 1 / 0.7);
  for (const Rec& r : downs) {
    sum_h += r.at_ns / 3.6e12;
    below_median += r.at_ns / 3.6e12 < median_h;
  }
  const double mean_h = sum_h / n;
  const double expected_h = 20 * std::tgamma(1 + 1 / 0.7);
  const double sd_h = 20 * std::sqrt(std::tgamma(1 + 2 / 0.7) - std::pow(std::tgamma(1 + 1 / 0.7), 2));
  INFO("mean " << mean_h << " h, expected " << expected_h << " h");
  CHECK(std::abs(mean_h - expected_h) < 4 * sd_h / std::sqrt(n));
  CHECK(std::abs(below_median / double(n) - 0.5) < 4 * std::sqrt(0.25 / n));
}

TEST_CASE("Notices precede downs by exactly the notice, replacements take exactly the provisioning", "[model][spot]") {
  // Lifetimes of mean 30 min against a 10 min notice: many nodes come up less than a notice
  // before they go, and get their notice at once.
  const SimTime notice = minutes(10);
  const SimTime provisioning = minutes(5);
  Harness h({pool("p", 10, 20, poisson(2), notice, provisioning)}, 5);
  const auto& events = h.run(hours(200));
  REQUIRE(only(events, 'd').size() > 5000);
  check_notices(events, notice, 10, 20);

  // Every up follows its node's down by exactly the provisioning delay (capacity is always
  // there), and every notice names a down exactly `notice` later unless the node was younger.
  std::map<std::uint32_t, std::int64_t> last_down;
  int short_lived = 0;
  for (const Rec& r : events) {
    if (r.kind == 'd') last_down[r.node] = r.at_ns;
    if (r.kind == 'u') CHECK(r.at_ns - last_down.at(r.node) == provisioning.ns());
    if (r.kind == 'n') short_lived += r.down_at_ns - r.at_ns < notice.ns();
    if (r.kind == 'n' && r.down_at_ns - r.at_ns != notice.ns()) CHECK(r.down_at_ns - r.at_ns < notice.ns());
  }
  CHECK(short_lived > 100);
  CHECK(h.market->counters(0).replacements == only(events, 'u').size());
}

TEST_CASE("Trace replay produces the trace's interruptions at the trace's times", "[model][spot]") {
  struct Case {
    std::string file;
    int count;
    std::size_t drops_expected;
  };
  // Counts verified independently with Python over the same files: the 1-node trace has 60
  // drops of one node; the 4-node one 136 drops taking 195 nodes.
  const Case c = GENERATE(Case{"aws-04-22-2023_us-east-1f_v100_1.json", 1, 60},
                          Case{"aws-08-03-2023_us-east-1f_v100_4node.json", 4, 195});
  const SimTime notice = GENERATE(minutes(2), SimTime::zero());
  const RawTrace raw = read_raw(TRACES + "/" + c.file);
  const std::int64_t gap_ns = static_cast<std::int64_t>(raw.gap_s) * 1'000'000'000;
  std::vector<std::int64_t> drop_times;
  std::vector<std::int64_t> rise_times;
  for (std::size_t k = 1; k < raw.values.size(); ++k) {
    for (long d = raw.values[k]; d < raw.values[k - 1]; ++d) drop_times.push_back(static_cast<std::int64_t>(k) * gap_ns);
    for (long r = raw.values[k - 1]; r < raw.values[k]; ++r) rise_times.push_back(static_cast<std::int64_t>(k) * gap_ns);
  }
  REQUIRE(drop_times.size() == c.drops_expected);

  Harness h({pool("trace", 0, c.count, parsed("{process: trace, file: " + c.file + "}"), notice)});
  const auto& events = h.run(seconds(static_cast<std::int64_t>(raw.gap_s) * static_cast<std::int64_t>(raw.values.size())) + hours(1));
  std::vector<std::int64_t> downs;
  std::vector<std::int64_t> ups;
  for (const Rec& r : events) {
    if (r.kind == 'd' && r.at_ns > 0) downs.push_back(r.at_ns);
    if (r.kind == 'u') ups.push_back(r.at_ns);
  }
  CHECK(downs == drop_times);
  CHECK(ups == rise_times);  // provisioning 0: up at the rise's tick
  CHECK(h.market->counters(0).interruptions == c.drops_expected);
  CHECK(h.market->counters(0).initially_down == static_cast<std::uint64_t>(c.count - raw.values[0]));
  check_notices(events, notice, 0, c.count);

  // Spot values checked by hand against the files.
  if (c.count == 1) {
    REQUIRE(downs.size() >= 3);
    CHECK(downs[0] == seconds(14336).ns());
    CHECK(downs[1] == seconds(18240).ns());
    CHECK(downs[2] == seconds(23040).ns());
    CHECK(ups[0] == seconds(32).ns());
  } else {
    CHECK(std::vector<std::int64_t>(downs.begin(), downs.begin() + 7) ==
          std::vector<std::int64_t>{6000'000'000'000, 6000'000'000'000, 6000'000'000'000, 6900'000'000'000,
                                    6900'000'000'000, 6900'000'000'000, 6900'000'000'000});
    CHECK(std::vector<std::int64_t>(ups.begin(), ups.begin() + 7) ==
          std::vector<std::int64_t>{5400'000'000'000, 5400'000'000'000, 5400'000'000'000, 5400'000'000'000,
                                    6600'000'000'000, 6600'000'000'000, 6600'000'000'000});
    // A drop from 4 to 1 takes the highest-indexed nodes.
    const auto notices = only(events, 'n');
    CHECK(notices[0].node == 3);
    CHECK(notices[1].node == 2);
    CHECK(notices[2].node == 1);
  }
}

TEST_CASE("Trace replay with a provisioning delay never holds more nodes than the trace", "[model][spot]") {
  const RawTrace raw = read_raw(TRACES + "/aws-08-03-2023_us-east-1f_v100_4node.json");
  Harness h({pool("trace", 0, 4, parsed("{process: trace, file: aws-08-03-2023_us-east-1f_v100_4node.json}"),
                  minutes(2), minutes(3))});
  const auto& events = h.run(seconds(300 * 3664));
  int up = 4;
  for (std::size_t i = 0; i < events.size(); ++i) {
    up += events[i].kind == 'u' ? 1 : events[i].kind == 'd' ? -1 : 0;
    const bool last_of_instant = i + 1 == events.size() || events[i + 1].at_ns != events[i].at_ns;
    if (!last_of_instant) continue;
    const std::size_t tick = static_cast<std::size_t>(events[i].at_ns / 300'000'000'000);
    INFO("at " << events[i].at_ns / 1e9 << " s");
    CHECK(up <= std::min<long>(4, raw.values[std::min(tick, raw.values.size() - 1)]));
  }
  // Every up comes 3 minutes after the capacity allowed it, so some short rises bring none.
  CHECK(h.market->counters(0).interruptions <= 195);
  CHECK(h.market->counters(0).interruptions > 100);
}

TEST_CASE("Price-driven pools are taken when the price rises above the maximum", "[model][spot]") {
  SECTION("a hand-made profile: exact crossings") {
    // $1 until 10h, $3 until 14h, $1.5 until 20h, $2 (= max: stays) until 30h, then $2.5.
    const PriceProfile price({{SimTime::zero(), 1.0}, {hours(10), 3.0}, {hours(14), 1.5}, {hours(20), 2.0},
                              {hours(30), 2.5}},
                             SimTime::zero());
    InterruptionSpec s;
    s.process = InterruptionProcess::Price;
    SpotPoolSpec p = pool("price", 0, 3, s, minutes(2), minutes(5));
    p.spot_price = &price;
    p.max_usd_per_hour = 2.0;
    Harness h({p});
    const auto& events = h.run(hours(40));
    const std::int64_t t10 = hours(10).ns(), t30 = hours(30).ns();
    const std::int64_t n10 = (hours(10) - minutes(2)).ns(), n30 = (hours(30) - minutes(2)).ns();
    const std::int64_t u14 = (hours(14) + minutes(5)).ns();
    const std::vector<Rec> expected{
        {'n', 2, n10, t10}, {'n', 1, n10, t10}, {'n', 0, n10, t10}, {'d', 2, t10, 0},   {'d', 1, t10, 0},
        {'d', 0, t10, 0},   {'u', 0, u14, 0},   {'u', 1, u14, 0},   {'u', 2, u14, 0},   {'n', 2, n30, t30},
        {'n', 1, n30, t30}, {'n', 0, n30, t30}, {'d', 2, t30, 0},   {'d', 1, t30, 0},   {'d', 0, t30, 0},
    };
    CHECK(events == expected);
    CHECK(h.market->counters(0).interruptions == 6);
    CHECK(h.market->waiting_nodes(0) == 3);
  }
  SECTION("a daily evening spike repeats; a high price at the start keeps the pool down") {
    const PriceProfile daily({{SimTime::zero(), 1.0}, {hours(18), 5.0}}, hours(24));
    InterruptionSpec s;
    s.process = InterruptionProcess::Price;
    SpotPoolSpec p = pool("daily", 0, 2, s, seconds(30), minutes(1));
    p.spot_price = &daily;
    p.max_usd_per_hour = 2.0;
    Harness h({p});
    const auto downs = only(h.run(hours(72)), 'd');
    REQUIRE(downs.size() == 6);
    for (std::size_t i = 0; i < downs.size(); ++i) CHECK(downs[i].at_ns == hours(18 + 24 * std::int64_t(i / 2)).ns());
    const auto ups = only(h.sink.events, 'u');
    REQUIRE(ups.size() == 4);  // back at 24h and 48h (+1 min); the third evening ends at 72h
    CHECK(ups[0].at_ns == (hours(24) + minutes(1)).ns());
    CHECK(ups[3].at_ns == (hours(48) + minutes(1)).ns());

    const PriceProfile high({{SimTime::zero(), 5.0}, {hours(1), 1.0}}, SimTime::zero());
    SpotPoolSpec q = pool("high", 0, 2, s, seconds(30), minutes(1));
    q.spot_price = &high;
    q.max_usd_per_hour = 2.0;
    Harness g({q});
    const std::vector<Rec> expected{{'d', 0, 0, 0},
                                    {'d', 1, 0, 0},
                                    {'u', 0, (hours(1) + minutes(1)).ns(), 0},
                                    {'u', 1, (hours(1) + minutes(1)).ns(), 0}};
    CHECK(g.run(hours(10)) == expected);
    CHECK(g.market->counters(0).initially_down == 2);
    CHECK(g.market->counters(0).interruptions == 0);
  }
  SECTION("without a price profile the market refuses the pool") {
    InterruptionSpec s;
    s.process = InterruptionProcess::Price;
    Engine engine;
    RecordingSink sink(engine);
    CHECK_THROWS_AS(SpotMarket(engine, 1, 0, {pool("x", 0, 1, s)}, sink), gcsim::Error);
  }
}

TEST_CASE("Availability limits how many nodes a pool can bring up", "[model][spot]") {
  SECTION("Thursday afternoons are plentiful") {
    const auto doc = gcsim::config::load_yaml_string(
        "{windows: [{every: 1w, from: 3d12h, to: 3d18h, available: 100%}], otherwise: 25%}", "a.yaml");
    SpotPoolSpec p = pool("weekly", 0, 4, InterruptionSpec{}, minutes(2), minutes(3));
    gcsim::config::SourceResolver sources;
    p.availability = gcsim::models::parse_availability(doc.root, sources);
    Harness h({p});
    const std::int64_t up_at = (hours(84) + minutes(3)).ns();
    // One node of four at the start; the rest come at Thursday noon and stay: availability
    // limits supply, it does not take running nodes.
    const std::vector<Rec> expected{{'d', 1, 0, 0},     {'d', 2, 0, 0},     {'d', 3, 0, 0},
                                    {'u', 1, up_at, 0}, {'u', 2, up_at, 0}, {'u', 3, up_at, 0}};
    CHECK(h.run(hours(24 * 14)) == expected);
    CHECK(h.market->up_nodes(0) == 4);
  }
  SECTION("interrupted nodes wait for the window") {
    const auto doc = gcsim::config::load_yaml_string(
        "{windows: [{every: 1d, from: 8h, to: 10h, available: 100%}], otherwise: 0%}", "a.yaml");
    SpotPoolSpec p = pool("daily", 0, 50, poisson(0.1), SimTime::zero(), minutes(7));
    gcsim::config::SourceResolver sources;
    p.availability = gcsim::models::parse_availability(doc.root, sources);
    Harness h({p}, 11);
    const auto& events = h.run(hours(24 * 20));
    // All 50 start down (0% at t = 0) and every up is requested inside a window: its
    // acquisition time (up - 7 min) lies in [8h, 10h) of its day.
    CHECK(h.market->counters(0).initially_down == 50);
    const auto ups = only(events, 'u');
    REQUIRE(ups.size() > 100);
    for (const Rec& r : ups) {
      const std::int64_t in_day = (r.at_ns - minutes(7).ns()) % hours(24).ns();
      CHECK(in_day >= hours(8).ns());
      CHECK(in_day < hours(10).ns());
    }
  }
  SECTION("from a 16-node availability trace") {
    // Without interruptions nodes stay once up, so the up count follows the running maximum
    // of the trace (capped at the pool's 16), each rise's nodes at its tick (provisioning 0).
    const RawTrace raw = read_raw(TRACES + "/aws-08-27-2023_us-west-2a_v100_16node_availability.json");
    std::vector<std::int64_t> expected;
    long best = std::min<long>(16, raw.values[0]);
    for (std::size_t k = 1; k < raw.values.size(); ++k)
      for (; best < std::min<long>(16, raw.values[k]); ++best) expected.push_back(static_cast<std::int64_t>(k) * 300'000'000'000);
    const auto doc =
        gcsim::config::load_yaml_string("{file: aws-08-27-2023_us-west-2a_v100_16node_availability.json}", TRACES + "/a.yaml");
    SpotPoolSpec p = pool("avail", 0, 16, InterruptionSpec{});
    gcsim::config::SourceResolver sources;
    p.availability = gcsim::models::parse_availability(doc.root, sources);
    Harness h({p});
    std::vector<std::int64_t> ups;
    for (const Rec& r : only(h.run(seconds(300 * 4736)), 'u')) ups.push_back(r.at_ns);
    CHECK(ups == expected);
    CHECK(h.market->counters(0).initially_down == static_cast<std::uint64_t>(16 - std::min<long>(16, raw.values[0])));
  }
}

TEST_CASE("Correlated events hit ceil(fraction x up nodes)", "[model][spot]") {
  SECTION("50% of 10, then of what is left") {
    InterruptionSpec s;
    s.correlated = gcsim::models::CorrelatedSpec{1.0 / 3600, 0.5};
    Harness h({pool("zone", 0, 10, s, minutes(2), hours(1'000'000))}, 8);
    std::map<std::int64_t, int> hits;  // down time -> nodes noticed for it
    for (const Rec& r : only(h.run(hours(100)), 'n')) ++hits[r.down_at_ns];
    std::vector<int> sizes;
    for (const auto& [t, k] : hits) sizes.push_back(k);
    CHECK(sizes == std::vector<int>{5, 3, 1, 1});  // ceil(5), ceil(2.5), ceil(1), ceil(0.5)
    CHECK(h.market->counters(0).correlated_events > 4);
    CHECK(h.market->up_nodes(0) == 0);
  }
  SECTION("7% of 100 is 7, not 8 (0.07 x 100 = 7.000000000000001 in doubles)") {
    InterruptionSpec s;
    s.correlated = gcsim::models::CorrelatedSpec{1.0 / 3600, 0.07};
    Harness h({pool("zone", 0, 100, s, SimTime::zero(), hours(1'000'000))}, 8);
    h.run(hours(100));
    std::map<std::int64_t, int> hits;
    for (const Rec& r : only(h.sink.events, 'n')) ++hits[r.down_at_ns];
    REQUIRE(!hits.empty());
    CHECK(hits.begin()->second == 7);
  }
  SECTION("event times form a Poisson process") {
    // 0.01/h over 100,000 h: mu = 1,000 events, 99.9% interval 1000 +- 3.2905 x 31.6.
    InterruptionSpec s;
    s.correlated = gcsim::models::CorrelatedSpec{0.01 / 3600, 1.0};
    Harness h({pool("zone", 0, 1, s)}, 4);
    h.run(hours(100'000));
    const auto events = h.market->counters(0).correlated_events;
    INFO("events " << events);
    CHECK(events >= 896);
    CHECK(events <= 1104);
    CHECK(h.market->counters(0).interruptions == events);  // the single node is always back up
  }
}

TEST_CASE("Spot interruptions are deterministic and per-pool", "[model][spot]") {
  auto pool_a = [](std::uint32_t first) {
    InterruptionSpec s = poisson(0.5);
    s.correlated = gcsim::models::CorrelatedSpec{0.1 / 3600, 0.5};
    return pool("a", first, 8, s, minutes(2), minutes(4));
  };
  auto pool_b = [](std::uint32_t first) {
    InterruptionSpec s;
    s.process = InterruptionProcess::Weibull;
    s.weibull_shape = 1.5;
    s.weibull_scale = hours(3);
    return pool("b", first, 5, s, seconds(30), minutes(1));
  };
  auto events_of = [](const std::vector<Rec>& events, std::uint32_t first, int count) {
    std::vector<Rec> out;
    for (Rec r : events)
      if (r.node >= first && r.node < first + static_cast<std::uint32_t>(count)) {
        r.node -= first;
        out.push_back(r);
      }
    return out;
  };
  const SimTime until = hours(500);
  Harness one({pool_a(0)}, 77, 0);
  const std::vector<Rec> base = one.run(until);
  REQUIRE(base.size() > 1000);

  Harness same({pool_a(0)}, 77, 0);
  CHECK(same.run(until) == base);

  Harness other_rep({pool_a(0)}, 77, 1);
  CHECK(other_rep.run(until) != base);
  Harness other_seed({pool_a(0)}, 78, 0);
  CHECK(other_seed.run(until) != base);

  // Adding a pool, after or before (with the first pool's nodes moved), changes nothing of
  // the first pool's events: streams are named by pool and index within the pool.
  Harness after({pool_a(0), pool_b(8)}, 77, 0);
  const auto& both = after.run(until);
  CHECK(events_of(both, 0, 8) == base);
  CHECK(!events_of(both, 8, 5).empty());
  Harness before({pool_b(0), pool_a(100)}, 77, 0);
  CHECK(events_of(before.run(until), 100, 8) == base);
}

TEST_CASE("Trace replay from an offset, and looping", "[model][spot]") {
  const std::string file = "aws-08-03-2023_us-east-1f_v100_4node.json";
  const std::int64_t length_ns = seconds(300 * 3664).ns();
  SECTION("start: 90 min begins at tick 18, where all 4 are up; tick 20 (4 -> 1) comes 10 min in") {
    Harness h({pool("t", 0, 4, parsed("{process: trace, file: " + file + ", start: 1h30m}"), minutes(2))});
    const auto& events = h.run(hours(1));
    CHECK(h.market->counters(0).initially_down == 0);
    // Ticks 18.. read 4, 4, 1, 1, 4, 0: 3 go at 10 min, 3 come back at 20 min, 4 go at 25.
    const auto downs = only(events, 'd');
    REQUIRE(downs.size() == 7);
    for (std::size_t i = 0; i < 3; ++i) CHECK(downs[i].at_ns == minutes(10).ns());
    for (std::size_t i = 3; i < 7; ++i) CHECK(downs[i].at_ns == minutes(25).ns());
    CHECK(only(events, 'n')[0].at_ns == minutes(8).ns());
    CHECK(only(events, 'u').size() == 3);
  }
  SECTION("a looping trace repeats its events every lap") {
    Harness h({pool("t", 0, 4, parsed("{process: trace, file: " + file + ", loop: true}"), minutes(2))});
    const auto& events = h.run(SimTime::from_ns(2 * length_ns - 1));
    std::vector<Rec> lap1;
    std::vector<Rec> lap2;
    for (Rec r : events) {
      if (r.at_ns == 0) continue;  // the initial downs
      if (r.at_ns < length_ns) {
        lap1.push_back(r);
      } else {
        r.at_ns -= length_ns;
        if (r.kind == 'n') r.down_at_ns -= length_ns;
        lap2.push_back(r);
      }
    }
    CHECK(only(lap1, 'd').size() == 195);
    CHECK(lap2 == lap1);
  }
}

TEST_CASE("The market gives every down, request and up its reason", "[model][spot][nodes]") {
  using gcsim::models::NodeReason;
  SECTION("interruptions and replacements") {
    // Poisson nodes replaced after 5 min: each down is an interruption, each request and up a
    // replacement, and every up follows its request by exactly the provisioning.
    const SimTime provisioning = minutes(5);
    Harness h({pool("p", 0, 10, poisson(1), minutes(2), provisioning)}, 3);
    const auto& events = h.run(hours(50));
    REQUIRE(only(events, 'd').size() > 100);
    std::size_t downs = 0, requests = 0, ups = 0;
    for (NodeReason r : h.sink.reasons) {
      downs += r == NodeReason::SpotInterruption;
      requests += r == NodeReason::SpotReplacement;
    }
    ups = only(events, 'u').size();
    CHECK(downs == only(events, 'd').size());
    CHECK(h.sink.requests.size() == h.market->counters(0).replacements + h.market->provisioning_nodes(0));
    CHECK(requests == h.sink.requests.size() + ups);
    std::set<std::pair<std::uint32_t, std::int64_t>> requested;
    for (const Rec& r : h.sink.requests) requested.emplace(r.node, r.at_ns);
    for (const Rec& r : events)
      if (r.kind == 'u') CHECK(requested.count({r.node, r.at_ns - provisioning.ns()}) == 1);
  }
  SECTION("nodes the pool cannot supply are down for availability") {
    const auto doc = gcsim::config::load_yaml_string(
        "{windows: [{every: 1w, from: 3d12h, to: 3d18h, available: 100%}], otherwise: 25%}", "a.yaml");
    SpotPoolSpec p = pool("weekly", 0, 4, InterruptionSpec{}, minutes(2), minutes(3));
    gcsim::config::SourceResolver sources;
    p.availability = gcsim::models::parse_availability(doc.root, sources);
    Harness h({p});
    h.run(hours(24 * 14));
    // Three downs at the start (availability), then three requests and ups at Thursday noon.
    const std::vector<NodeReason> expected{NodeReason::Availability,    NodeReason::Availability,
                                           NodeReason::Availability,    NodeReason::SpotReplacement,
                                           NodeReason::SpotReplacement, NodeReason::SpotReplacement,
                                           NodeReason::SpotReplacement, NodeReason::SpotReplacement,
                                           NodeReason::SpotReplacement};
    CHECK(h.sink.reasons == expected);
    REQUIRE(h.sink.requests.size() == 3);
    CHECK(h.sink.requests[0].at_ns == hours(84).ns());
  }
}
