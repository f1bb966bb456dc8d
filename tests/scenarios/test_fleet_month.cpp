// The bundled fleet-month example (scenarios/examples/fleet-month/): one month of a team's
// workload on owned A100 servers, on-demand p4d and spot p4d. These tests run the example
// files themselves and check what must hold whatever the random draws: the comparison is only
// meaningful if the same jobs arrive everywhere, the money adds up, and each market bills as
// docs/pricing.md says. The figures themselves are in the folder's README, not asserted here.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>

#include "analysis/metrics.hpp"
#include "analysis/trace_data.hpp"
#include "models/config/scenario_loader.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

const std::string EXAMPLE_DIR = GCSIM_SOURCE_DIR "/scenarios/examples/fleet-month/";
constexpr double MONTH_H = 30 * 24;  // the examples' horizon, run to the end (run_until: horizon)

models::Scenario load_example(const std::string& file) {
  return models::load_scenario_file(EXAMPLE_DIR + file, test::load_options());
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double ledger_usd(const analysis::TraceData& t) {
  double usd = 0;
  for (const auto& c : t.ledger) usd += c.usd;
  return usd;
}

int node_interruptions(const analysis::TraceData& t) {
  int n = 0;
  for (const auto& node : t.nodes) n += node.interruptions;
  return n;
}

int job_interruptions(const analysis::TraceData& t) {
  int n = 0;
  for (const auto& j : t.jobs) n += j.resilience.interruptions;
  return n;
}

// The money adds up in every run: the ledger is the one record of charges, so its sum is the
// run's total cost; each node's bill is the sum of the charges that name it (busy shares of
// its jobs plus the idle remainder posted when its session closes, cost_meter.hpp); and,
// with no storage section (so no storage, request or egress charges), the jobs' costs are
// exactly the busy charges.
void check_ledger(const analysis::TraceData& t) {
  const double total = ledger_usd(t);
  const auto m = analysis::compute_metrics(t);
  CHECK(total == Approx(m.total_cost_usd).epsilon(1e-9));
  double unattributed = 0;  // charges to no node (storage, egress): none in these examples
  for (const auto& c : t.ledger)
    if (c.node < 0) unattributed += c.usd;
  double nodes = 0;
  for (const auto& n : t.nodes) {
    double charged = 0;
    for (const auto& c : t.ledger)
      if (c.node == n.node_id) charged += c.usd;
    CHECK(charged == Approx(n.cost_usd).epsilon(1e-9));
    nodes += n.cost_usd;
  }
  CHECK(total == Approx(nodes + unattributed).epsilon(1e-9));
  double busy = 0, jobs = 0;
  for (const auto& c : t.ledger)
    if (c.busy) busy += c.usd;
  for (const auto& j : t.jobs) jobs += j.cost_usd;
  CHECK(jobs == Approx(busy).epsilon(1e-9));
}

}  // namespace

TEST_CASE("fleet-month: owned, on-demand and spot see the same month of work", "[scenario][.slow]") {
  test::TempDir dir("fleet-month");
  const auto owned_s = load_example("owned-a100.yaml");
  const auto on_demand_s = load_example("on-demand-p4d.yaml");
  const auto spot_s = load_example("spot-p4d.yaml");
  const auto owned = test::run_to_trace(owned_s, dir.file("owned.h5"));
  const auto on_demand = test::run_to_trace(on_demand_s, dir.file("on-demand.h5"));
  const auto spot = test::run_to_trace(spot_s, dir.file("spot.h5"));
  // Plain scopes below, not SECTIONs: Catch2 reruns a test case once per SECTION, which would
  // redo these month-long runs each time.

  {  // the same jobs arrive at the same times in all three
    // The files share their workload block and seed, and each generator field draws from a
    // stream named after the generator and the field alone (docs/scenario-reference.md,
    // "Randomness"): the market, the cluster and the checkpoint settings draw nothing from
    // those streams, so arrivals and sizes cannot differ.
    REQUIRE(owned.jobs.size() == on_demand.jobs.size());
    REQUIRE(owned.jobs.size() == spot.jobs.size());
    REQUIRE(owned.jobs.size() > 100);
    for (std::size_t i = 0; i < owned.jobs.size(); ++i) {
      INFO("job " << i);
      CHECK(on_demand.jobs[i].name == owned.jobs[i].name);
      CHECK(spot.jobs[i].name == owned.jobs[i].name);
      CHECK(on_demand.jobs[i].submit_s == owned.jobs[i].submit_s);
      CHECK(spot.jobs[i].submit_s == owned.jobs[i].submit_s);
      CHECK(on_demand.jobs[i].gpus == owned.jobs[i].gpus);
      CHECK(spot.jobs[i].gpus == owned.jobs[i].gpus);
      CHECK(spot.jobs[i].resilience.team == owned.jobs[i].resilience.team);
    }
  }

  {  // every run's ledger adds up to its total cost
    check_ledger(owned);
    check_ledger(on_demand);
    check_ledger(spot);
  }

  {  // all three bill the whole month
    // run_until: horizon, so each run ends at 30 d however early the work is done.
    CHECK(owned.attrs.end_s == MONTH_H * 3600);
    CHECK(on_demand.attrs.end_s == MONTH_H * 3600);
    CHECK(spot.attrs.end_s == MONTH_H * 3600);
  }

  {  // owned capacity costs at least its fixed cost, used or not
    // TCO (docs/pricing.md): per node and hour, F = capex / depreciation_h + maintenance x
    // capex / 8760 + hosting / 8760 accrues whether used or not, and energy E(u) >= 0 comes on
    // top; busy power adds at most E(1) - E(0). Computed here from the scenario's figures, not
    // with tco.cpp, so a change in either shows.
    const auto& pool = owned_s.cluster.node_types.at(0);
    REQUIRE(pool.ownership);
    const auto& o = *pool.ownership;
    const double depreciation_h = o.depreciation.seconds() / 3600;
    const double fixed = o.capex_usd / depreciation_h + o.maintenance_per_year * o.capex_usd / 8760 +
                         o.hosting_usd_per_year / 8760;
    const double kwh_usd = o.pue * o.electricity_usd_per_kwh / 1000;  // per W-hour of IT power
    const double node_h = MONTH_H * pool.count;
    const double total = ledger_usd(owned);
    CHECK(total >= fixed * node_h);
    CHECK(total >= (fixed + o.power_idle_w * kwh_usd) * node_h * (1 - 1e-12));
    CHECK(total <= (fixed + o.power_busy_w * kwh_usd) * node_h * (1 + 1e-12));
    // The example's own figures (the file's comment): F = 10.7578... $/h per server.
    CHECK(fixed == Approx(199000.0 / 26280 + 0.08 * 199000 / 8760 + 12000.0 / 8760).epsilon(1e-12));
    // The trace's /pools row carries the same F.
    REQUIRE(owned.pools.size() == 1);
    CHECK(owned.pools[0].fixed_usd_per_hour == Approx(fixed).epsilon(1e-12));
    // The catalog reference resolves to the newest us-east-1 list row ("aws/p4d.24xlarge@us-east-1").
    CHECK(owned.pools[0].compare_to.rfind("aws/p4d.24xlarge", 0) == 0);
    for (const auto& c : owned.ledger) CHECK(c.category == "ownership");
  }

  {  // on demand: never interrupted, billed for every node-second of the month
    CHECK(node_interruptions(on_demand) == 0);
    CHECK(job_interruptions(on_demand) == 0);
    for (const auto& j : on_demand.jobs) CHECK(j.resilience.gpu_s_lost == 0);
    // A fixed fleet kept up 30 d: count x 720 h x list price exactly (whole seconds, so the
    // per-second rounding adds nothing).
    const auto& pool = on_demand_s.cluster.node_types.at(0);
    CHECK(ledger_usd(on_demand) == Approx(pool.count * MONTH_H * pool.price.on_demand_usd_per_hour).epsilon(1e-9));
    // Owned capacity is not interrupted either.
    CHECK(node_interruptions(owned) == 0);
    CHECK(job_interruptions(owned) == 0);
  }

  {  // spot: interrupted, with lost work, and cheaper than on demand
    // 4 nodes x 720 h at 0.46 interruptions per node-hour: ~1,300 expected; the chance of
    // none is e^-1300.
    CHECK(node_interruptions(spot) > 100);
    CHECK(job_interruptions(spot) > 0);
    double lost = 0;
    for (const auto& j : spot.jobs) lost += j.resilience.gpu_s_lost;
    // llm runs write 3.5-minute checkpoints, which do not fit the 2-minute notice: each of
    // their interruptions loses the work since the last periodic checkpoint.
    CHECK(lost > 0);
    // Spot bills at most every node-hour of the month at the spot price (down time is not
    // billed), plus at most one 60 s minimum per session (AWS billing: per second, 60 s
    // minimum); on demand bills every node-hour at the list price, more than three times
    // the spot price. So spot is cheaper whatever the interruptions.
    const auto& pool = spot_s.cluster.node_types.at(0);
    const double spot_usd_per_hour = pool.price.spot_profile.value_at(sim::SimTime::zero());
    const double sessions = pool.count + node_interruptions(spot);
    CHECK(ledger_usd(spot) <= (pool.count * MONTH_H + sessions * 60.0 / 3600) * spot_usd_per_hour);
    CHECK(ledger_usd(spot) < ledger_usd(on_demand));
  }

  {  // the Spot Advisor variant: same workload, far fewer interruptions
    // spot-p4d-advisor.yaml differs from spot-p4d.yaml only in its interruption rate.
    const auto advisor = test::run_to_trace(load_example("spot-p4d-advisor.yaml"), dir.file("advisor.h5"));
    REQUIRE(advisor.jobs.size() == spot.jobs.size());
    for (std::size_t i = 0; i < spot.jobs.size(); ++i) {
      CHECK(advisor.jobs[i].name == spot.jobs[i].name);
      CHECK(advisor.jobs[i].submit_s == spot.jobs[i].submit_s);
    }
    check_ledger(advisor);
    // About 0.5 interruptions expected in the month against ~1,300 at the measured rate.
    CHECK(node_interruptions(advisor) < node_interruptions(spot));
    CHECK(ledger_usd(advisor) < ledger_usd(on_demand));
  }
}

TEST_CASE("fleet-month: the spot run is reproducible bit for bit", "[scenario][.slow]") {
  // Interruptions draw from streams named after the pool and node (docs/spot.md,
  // "Determinism and streams"), jobs from streams named after the generator: the same file
  // and seed give the same trace, byte for byte (run_to_trace pins the wall clock).
  test::TempDir dir("fleet-month-determinism");
  const auto s = load_example("spot-p4d.yaml");
  test::run_to_trace(s, dir.file("a.h5"));
  test::run_to_trace(s, dir.file("b.h5"));
  const std::string a = read_bytes(dir.file("a.h5"));
  CHECK(a.size() > 1000);
  CHECK(a == read_bytes(dir.file("b.h5")));
}
