// Spot specs: parsing of interruptions and availability (every error code), the
// skypilot-spot trace reader, trace profiles, availability windows, the advisor catalog and
// its band -> rate rule, and the providers' notice defaults.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <fstream>
#include <string>

#include "models/spot/spot_spec.hpp"
#include "sim/config/config_node.hpp"
#include "sim/errors.hpp"
#include "support/scenario_support.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::models::AvailabilitySpec;
using gcsim::models::CapacityProfile;
using gcsim::models::InterruptionProcess;
using gcsim::models::InterruptionSpec;
using gcsim::models::SpotAdvisor;
using gcsim::models::SpotTrace;
using gcsim::sim::SimTime;
using gcsim::sim::hours;
using gcsim::sim::minutes;
using gcsim::sim::seconds;

namespace {

const std::string CATALOG = GCSIM_SOURCE_DIR "/scenarios/catalog";
const std::string TRACES = CATALOG + "/spot-traces";

// Files read as a run reads them: through a SourceResolver (FileNotFound at the file).
SpotTrace read_trace_file(const std::string& path) {
  gcsim::config::SourceResolver sources;
  return gcsim::models::parse_spot_trace(path, sources.read_bundled(path, "spot trace"));
}
SpotAdvisor read_advisor_file(const std::string& path) {
  gcsim::config::SourceResolver sources;
  return SpotAdvisor::parse(path, sources.read_bundled(path, "spot advisor"));
}

const SpotAdvisor& advisor() {
  static const SpotAdvisor a = read_advisor_file(CATALOG + "/aws_spot_advisor_gpu.csv");
  return a;
}

// The scenario text as if in `base_dir`: trace files are relative to the file naming them.
std::string in_dir(const std::string& base_dir, const std::string& name) {
  return base_dir.empty() ? name : base_dir + "/" + name;
}

InterruptionSpec interruptions(const std::string& yaml, const std::string& base_dir = TRACES) {
  const auto doc = gcsim::config::load_yaml_string(yaml, in_dir(base_dir, "pool.yaml"));
  gcsim::config::SourceResolver sources;
  return gcsim::models::parse_interruptions(doc.root, sources, &advisor());
}

AvailabilitySpec availability(const std::string& yaml, const std::string& base_dir = TRACES) {
  const auto doc = gcsim::config::load_yaml_string(yaml, in_dir(base_dir, "pool.yaml"));
  gcsim::config::SourceResolver sources;
  return gcsim::models::parse_availability(doc.root, sources);
}

ConfigError interruptions_error(const std::string& yaml, const std::string& base_dir = TRACES) {
  return gcsim::test::config_error([&] { interruptions(yaml, base_dir); });
}
ConfigError availability_error(const std::string& yaml, const std::string& base_dir = TRACES) {
  return gcsim::test::config_error([&] { availability(yaml, base_dir); });
}

void write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

ConfigError trace_error(const gcsim::test::TempDir& dir, const std::string& text) {
  write(dir.file("t.json"), text);
  return gcsim::test::config_error([&] { read_trace_file(dir.file("t.json")); });
}

}  // namespace

TEST_CASE("Interruption processes parse with their parameters", "[unit][spot]") {
  SECTION("poisson with a rate per node-hour") {
    const InterruptionSpec s = interruptions("{process: poisson, rate: 0.05/h}");
    CHECK(s.process == InterruptionProcess::Poisson);
    CHECK(s.rate_per_s == Approx(0.05 / 3600).epsilon(1e-12));
    CHECK_FALSE(s.correlated);
  }
  SECTION("poisson from the advisor band") {
    // us-east-1 p3.2xlarge is in band 4 (>20%) in the bundled snapshot.
    const InterruptionSpec s =
        interruptions("{process: poisson, advisor: {region: us-east-1, instance: p3.2xlarge}}");
    REQUIRE(advisor().find("us-east-1", "p3.2xlarge"));
    CHECK(advisor().find("us-east-1", "p3.2xlarge")->band == 4);
    CHECK(s.rate_per_s == Approx(-std::log(1 - 0.225) / (730 * 3600.0)).epsilon(1e-12));
  }
  SECTION("weibull") {
    const InterruptionSpec s = interruptions("{process: weibull, shape: 0.7, scale: 20h}");
    CHECK(s.process == InterruptionProcess::Weibull);
    CHECK(s.weibull_shape == 0.7);
    CHECK(s.weibull_scale == hours(20));
  }
  SECTION("trace, relative to the scenario's folder") {
    const InterruptionSpec s =
        interruptions("{process: trace, file: aws-08-03-2023_us-east-1f_v100_4node.json, start: 1h30m, loop: true}");
    CHECK(s.process == InterruptionProcess::Trace);
    CHECK(s.trace_file == TRACES + "/aws-08-03-2023_us-east-1f_v100_4node.json");
    CHECK(s.trace_start == minutes(90));
    CHECK(s.loop);
    CHECK(s.trace.period() == seconds(3664 * 300));
    // Tick 18 (90 min) is 4, the first non-zero value: the profile starts there.
    CHECK(s.trace.value_at(SimTime::zero()) == 4);
  }
  SECTION("price, none, and correlated events with any process") {
    const InterruptionSpec p = interruptions("{process: price, correlated: {rate: 0.01/h, fraction: 50%}}");
    CHECK(p.price_driven());
    REQUIRE(p.correlated);
    CHECK(p.correlated->rate_per_s == Approx(0.01 / 3600).epsilon(1e-12));
    CHECK(p.correlated->fraction == 0.5);
    CHECK(interruptions("{process: none}").process == InterruptionProcess::None);
  }
}

TEST_CASE("Interruption parsing refuses bad input with stable codes", "[unit][spot]") {
  SECTION("unknown keys suggest the right one") {
    const ConfigError e = interruptions_error("{process: poisson, rat: 0.05/h}");
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(std::string(e.what()).find("did you mean 'rate'") != std::string::npos);
    CHECK(e.mark().line == 1);
    CHECK(e.mark().column == 20);
  }
  SECTION("unknown process names") {
    const ConfigError e = interruptions_error("{process: poison, rate: 0.05/h}");
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(std::string(e.what()).find("'poisson'") != std::string::npos);
  }
  SECTION("keys of another process are conflicts") {
    CHECK(interruptions_error("{process: poisson, rate: 1/h, shape: 0.7}").code() == ErrorCode::Conflict);
    CHECK(interruptions_error("{process: weibull, shape: 0.7, scale: 2h, rate: 1/h}").code() == ErrorCode::Conflict);
    CHECK(interruptions_error("{process: price, loop: true}").code() == ErrorCode::Conflict);
    CHECK(interruptions_error("{process: none, file: x.json}").code() == ErrorCode::Conflict);
    CHECK(interruptions_error("{process: trace, file: aws-04-22-2023_us-east-1f_v100_1.json, scale: 2h}").code() ==
          ErrorCode::Conflict);
    CHECK(interruptions_error("{process: poisson, rate: 1/h, advisor: {region: us-east-1, instance: p3.2xlarge}}")
              .code() == ErrorCode::Conflict);
  }
  SECTION("missing keys") {
    CHECK(interruptions_error("{rate: 1/h}").code() == ErrorCode::MissingKey);
    CHECK(interruptions_error("{process: poisson}").code() == ErrorCode::MissingKey);
    CHECK(interruptions_error("{process: weibull, shape: 0.7}").code() == ErrorCode::MissingKey);
    CHECK(interruptions_error("{process: trace}").code() == ErrorCode::MissingKey);
    CHECK(interruptions_error("{process: none, correlated: {rate: 1/h}}").code() == ErrorCode::MissingKey);
    CHECK(interruptions_error("{process: poisson, advisor: {region: us-east-1}}").code() == ErrorCode::MissingKey);
  }
  SECTION("wrong types, units and ranges") {
    CHECK(interruptions_error("[poisson]").code() == ErrorCode::WrongType);
    CHECK(interruptions_error("{process: {a: 1}}").code() == ErrorCode::WrongType);
    CHECK(interruptions_error("{process: trace, file: aws-04-22-2023_us-east-1f_v100_1.json, loop: maybe}").code() ==
          ErrorCode::WrongType);
    CHECK(interruptions_error("{process: poisson, rate: 0.05}").code() == ErrorCode::BadUnit);
    CHECK(interruptions_error("{process: weibull, shape: 0.7, scale: 20}").code() == ErrorCode::BadUnit);
    CHECK(interruptions_error("{process: weibull, shape: 0, scale: 20h}").code() == ErrorCode::OutOfRange);
    CHECK(interruptions_error("{process: weibull, shape: 0.7, scale: 0}").code() == ErrorCode::OutOfRange);
    CHECK(interruptions_error("{process: poisson, rate: -1/h}").code() == ErrorCode::OutOfRange);
    CHECK(interruptions_error("{process: none, correlated: {rate: 0/h, fraction: 10%}}").code() ==
          ErrorCode::OutOfRange);
    CHECK(interruptions_error("{process: none, correlated: {rate: 1/h, fraction: 0%}}").code() ==
          ErrorCode::OutOfRange);
    CHECK(interruptions_error("{process: none, correlated: {rate: 1/h, fraction: 150%}}").code() ==
          ErrorCode::OutOfRange);
    // The 4-node trace lasts 3,664 x 300 s = 305.33 h.
    CHECK(interruptions_error("{process: trace, file: aws-08-03-2023_us-east-1f_v100_4node.json, start: 306h}")
              .code() == ErrorCode::OutOfRange);
  }
  SECTION("advisor names") {
    const ConfigError region = interruptions_error("{process: poisson, advisor: {region: us-east-9, instance: p3.2xlarge}}");
    CHECK(region.code() == ErrorCode::UnknownName);
    const ConfigError inst = interruptions_error("{process: poisson, advisor: {region: us-east-1, instance: p3.2xlarg}}");
    CHECK(inst.code() == ErrorCode::UnknownName);
    CHECK(std::string(inst.what()).find("did you mean 'p3.2xlarge'") != std::string::npos);
    const auto doc = gcsim::config::load_yaml_string("{process: poisson, advisor: {region: a, instance: b}}", "p.yaml");
    const ConfigError none = gcsim::test::config_error([&] {
      gcsim::config::SourceResolver sources;
      gcsim::models::parse_interruptions(doc.root, sources);
    });
    CHECK(none.code() == ErrorCode::UnknownName);
    CHECK_THROWS_AS(advisor().advisor_rate_per_s("us-east-1", "nope"), ConfigError);
  }
  SECTION("trace files") {
    const ConfigError e = interruptions_error("{process: trace, file: missing.json}");
    CHECK(e.code() == ErrorCode::FileNotFound);
    CHECK(e.mark().file == TRACES + "/pool.yaml");  // reported where the scenario names it
    CHECK(e.mark().column == 24);
  }
}

TEST_CASE("The trace reader is strict and names file:line:col", "[unit][spot]") {
  const gcsim::test::TempDir dir("spot-trace");
  SECTION("a good trace, with prices and line breaks") {
    write(dir.file("ok.json"), "{\"metadata\": {\"gap_seconds\": 32},\n \"data\": [0, 1,\n 2], \"prices\": [0.9, 1e-1, 2]}\n");
    const SpotTrace t = read_trace_file(dir.file("ok.json"));
    CHECK(t.gap == seconds(32));
    CHECK(t.values == std::vector<int>{0, 1, 2});
    CHECK(t.length() == seconds(96));
  }
  SECTION("syntax errors carry line and column") {
    const ConfigError e = trace_error(dir, "{\"metadata\": {\"gap_seconds\": 30},\n \"data\": [1, 0 1]}");
    CHECK(e.code() == ErrorCode::Syntax);
    CHECK(e.mark().file == dir.file("t.json"));
    CHECK(e.mark().line == 2);
    CHECK(e.mark().column == 16);
    CHECK(trace_error(dir, "{\"metadata\": {\"gap_seconds\": 30}, \"data\": [1]").code() == ErrorCode::Syntax);
    CHECK(trace_error(dir, "{\"metadata\": {\"gap_seconds\": 30}, \"data\": [1]} x").code() == ErrorCode::Syntax);
    CHECK(trace_error(dir, "{\"metadata\": {\"gap_seconds\": +30}, \"data\": [1]}").code() == ErrorCode::Syntax);
    CHECK(trace_error(dir, "{\"metadata\": {\"gap_seconds\": 30}, \"data\": [1,]}").code() == ErrorCode::Syntax);
  }
  SECTION("keys") {
    const ConfigError u = trace_error(dir, "{\"metadata\": {\"gap_seconds\": 30}, \"dat\": [1]}");
    CHECK(u.code() == ErrorCode::UnknownKey);
    CHECK(std::string(u.what()).find("did you mean 'data'") != std::string::npos);
    CHECK(trace_error(dir, "{\"metadata\": {\"gap\": 30}, \"data\": [1]}").code() == ErrorCode::UnknownKey);
    CHECK(trace_error(dir, "{\"metadata\": {}, \"data\": [1]}").code() == ErrorCode::MissingKey);
    CHECK(trace_error(dir, "{\"data\": [1]}").code() == ErrorCode::MissingKey);
    CHECK(trace_error(dir, "{\"metadata\": {\"gap_seconds\": 30}}").code() == ErrorCode::MissingKey);
    CHECK(trace_error(dir, "{\"metadata\": {\"gap_seconds\": 30}, \"data\": [1], \"data\": [2]}").code() ==
          ErrorCode::Duplicate);
  }
  SECTION("values") {
    CHECK(trace_error(dir, "{\"metadata\": {\"gap_seconds\": 30}, \"data\": \"1\"}").code() == ErrorCode::WrongType);
    CHECK(trace_error(dir, "{\"metadata\": {\"gap_seconds\": 30}, \"data\": [1, \"x\"]}").code() == ErrorCode::WrongType);
    CHECK(trace_error(dir, "{\"metadata\": {\"gap_seconds\": 30}, \"data\": [1.5]}").code() == ErrorCode::WrongType);
    const ConfigError neg = trace_error(dir, "{\"metadata\": {\"gap_seconds\": 30}, \"data\": [1, -1]}");
    CHECK(neg.code() == ErrorCode::OutOfRange);
    CHECK(neg.key_path() == "data[1]");
    CHECK(trace_error(dir, "{\"metadata\": {\"gap_seconds\": 0}, \"data\": [1]}").code() == ErrorCode::OutOfRange);
    CHECK(trace_error(dir, "{\"metadata\": {\"gap_seconds\": 30}, \"data\": []}").code() == ErrorCode::OutOfRange);
  }
  SECTION("files") {
    CHECK(trace_error(dir, " \n").code() == ErrorCode::EmptyFile);
    CHECK(gcsim::test::config_error([&] { read_trace_file(dir.file("none.json")); }).code() ==
          ErrorCode::FileNotFound);
  }
}

TEST_CASE("The real skypilot traces load fast", "[unit][spot]") {
  const auto t0 = std::chrono::steady_clock::now();
  const SpotTrace t = read_trace_file(TRACES + "/aws-04-22-2023_us-east-1f_v100_1.json");
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  CHECK(t.values.size() == 19961);
  CHECK(t.gap == seconds(32));
  // yaml-cpp through the config tree took 700 ms for this size in a debug build; this
  // reader takes a few milliseconds. The bound only catches a gross regression.
  CHECK(ms < 500);
}

TEST_CASE("Trace profiles map simulation time onto the trace", "[unit][spot]") {
  const SpotTrace trace{"t.json", seconds(10), {0, 1, 1, 0, 2}};
  SECTION("from the start, the last value holds") {
    const CapacityProfile p = gcsim::models::trace_profile(trace, SimTime::zero(), false);
    REQUIRE(p.points().size() == 4);
    CHECK(p.points()[1].at == seconds(10));
    CHECK(p.points()[2].at == seconds(30));
    CHECK(p.points()[3].at == seconds(40));
    CHECK(p.value_at(seconds(29)) == 1);
    CHECK(p.value_at(seconds(30)) == 0);
    CHECK(p.value_at(hours(100)) == 2);
    CHECK(p.next_change_after(seconds(30)) == seconds(40));
    CHECK(p.next_change_after(seconds(40)).is_max());
  }
  SECTION("from an offset") {
    const CapacityProfile p = gcsim::models::trace_profile(trace, seconds(15), false);
    CHECK(p.value_at(SimTime::zero()) == 1);
    CHECK(p.next_change_after(SimTime::zero()) == seconds(15));
    CHECK(p.value_at(seconds(25)) == 2);
  }
  SECTION("looping, from an offset inside a tick") {
    const CapacityProfile p = gcsim::models::trace_profile(trace, seconds(15), true);
    CHECK(p.period() == seconds(50));
    // Simulation time t reads trace time (15 s + t) mod 50 s.
    for (int t = 0; t < 200; ++t) {
      const int expected = trace.values[static_cast<std::size_t>(((15 + t) % 50) / 10)];
      CHECK(p.value_at(seconds(t)) == expected);
    }
    CHECK(p.next_change_after(seconds(25)) == seconds(35));
    CHECK(p.next_change_after(seconds(45)) == seconds(65));
  }
}

TEST_CASE("Availability windows and traces", "[unit][spot]") {
  SECTION("a weekly window: Thursday afternoons are plentiful") {
    const AvailabilitySpec a =
        availability("{windows: [{every: 1w, from: 3d12h, to: 3d18h, available: 100%}], otherwise: 25%}");
    CHECK_FALSE(a.always());
    CHECK(a.capacity_at(SimTime::zero(), 8) == 2);
    CHECK(a.capacity_at(hours(84), 8) == 8);
    CHECK(a.capacity_at(hours(90) - seconds(1), 8) == 8);
    CHECK(a.capacity_at(hours(90), 8) == 2);
    CHECK(a.capacity_at(hours(168 + 85), 8) == 8);
    CHECK(a.next_change_after(SimTime::zero()) == hours(84));
    CHECK(a.next_change_after(hours(84)) == hours(90));
    CHECK(a.next_change_after(hours(90)) == hours(168 + 84));
  }
  SECTION("a window wrapping past its period, and the first window wins") {
    const AvailabilitySpec a = availability(
        "{windows: [{every: 1d, from: 22h, to: 30h, available: 0%}, {every: 1d, from: 0h, to: 12h, available: 50%}]}");
    CHECK(a.otherwise_fraction == 1.0);
    CHECK(a.capacity_at(hours(23), 10) == 0);
    CHECK(a.capacity_at(hours(24 + 5), 10) == 0);   // both in force: the first wins
    CHECK(a.capacity_at(hours(24 + 7), 10) == 5);
    CHECK(a.capacity_at(hours(24 + 13), 10) == 10);
    // Boundaries of every window count as possible changes (here the second window opens).
    CHECK(a.next_change_after(hours(23)) == hours(24));
    CHECK(a.next_change_after(hours(26)) == hours(30));
  }
  SECTION("fractions of a count round down, exactly") {
    CHECK(gcsim::models::nodes_of_fraction(0.29, 100) == 29);
    CHECK(gcsim::models::nodes_of_fraction(0.25, 7) == 1);
    CHECK(gcsim::models::nodes_of_fraction(1.0, 7) == 7);
  }
  SECTION("from a 16-node availability trace, capped at the pool's count") {
    const AvailabilitySpec a = availability("{file: aws-08-27-2023_us-west-2a_v100_16node_availability.json}");
    CHECK(a.trace_file == TRACES + "/aws-08-27-2023_us-west-2a_v100_16node_availability.json");
    const SpotTrace t = read_trace_file(a.trace_file);
    for (std::size_t k = 0; k < t.values.size(); k += 37) {
      const SimTime at = t.gap * static_cast<std::int64_t>(k);
      CHECK(a.capacity_at(at, 16) == t.values[k]);
      CHECK(a.capacity_at(at, 4) == std::min(4, t.values[k]));
    }
  }
  SECTION("always") {
    AvailabilitySpec a;
    CHECK(a.always());
    CHECK(a.capacity_at(hours(5), 3) == 3);
    CHECK(a.next_change_after(SimTime::zero()).is_max());
  }
}

TEST_CASE("Availability parsing refuses bad input with stable codes", "[unit][spot]") {
  CHECK(availability_error("{windowz: []}").code() == ErrorCode::UnknownKey);
  CHECK(availability_error("{otherwise: 25%}").code() == ErrorCode::MissingKey);
  CHECK(availability_error("{windows: [{every: 1d, to: 2h, available: 1}]}").code() == ErrorCode::MissingKey);
  CHECK(availability_error("{windows: {every: 1d}}").code() == ErrorCode::WrongType);
  CHECK(availability_error("{windows: []}").code() == ErrorCode::WrongType);
  CHECK(availability_error("{windows: [{every: 1, from: 0, to: 2h, available: 1}]}").code() == ErrorCode::BadUnit);
  CHECK(availability_error("{windows: [{every: 1d, from: 1d, to: 25h, available: 1}]}").code() ==
        ErrorCode::OutOfRange);
  CHECK(availability_error("{windows: [{every: 1d, from: 2h, to: 2h, available: 1}]}").code() ==
        ErrorCode::OutOfRange);
  CHECK(availability_error("{windows: [{every: 1d, from: 2h, to: 27h, available: 1}]}").code() ==
        ErrorCode::OutOfRange);
  CHECK(availability_error("{windows: [{every: 0, from: 0, to: 2h, available: 1}]}").code() == ErrorCode::OutOfRange);
  CHECK(availability_error("{windows: [{every: 1d, from: 0, to: 2h, available: 120%}]}").code() ==
        ErrorCode::OutOfRange);
  CHECK(availability_error("{windows: [{every: 1d, from: 0, to: 2h, available: 1}], file: a.json}").code() ==
        ErrorCode::Conflict);
  CHECK(availability_error("{file: aws-04-22-2023_us-east-1f_v100_1.json, otherwise: 10%}").code() ==
        ErrorCode::Conflict);
  CHECK(availability_error("{windows: [{every: 1d, from: 0, to: 2h, available: 1}], loop: true}").code() ==
        ErrorCode::Conflict);
  CHECK(availability_error("{file: nope.json}").code() == ErrorCode::FileNotFound);
}

TEST_CASE("The advisor catalog and its band -> rate rule", "[unit][spot]") {
  CHECK(advisor().entries().size() == 682);
  // p = band midpoint (22.5% for the open >20% band); lambda = -ln(1 - p) / 730 h.
  CHECK(gcsim::models::advisor_band_rate_per_s(0) * 3600 == Approx(3.468192874560257e-05).epsilon(1e-12));
  CHECK(gcsim::models::advisor_band_rate_per_s(4) * 3600 == Approx(0.00034916746524491795).epsilon(1e-12));
  for (int b = 0; b + 1 < gcsim::models::ADVISOR_BANDS; ++b)
    CHECK(gcsim::models::advisor_band_rate_per_s(b) < gcsim::models::advisor_band_rate_per_s(b + 1));
  // The rule's defining property: P(at least one interruption in 730 h) = p.
  for (int b = 0; b < gcsim::models::ADVISOR_BANDS; ++b)
    CHECK(1 - std::exp(-gcsim::models::advisor_band_rate_per_s(b) * 730 * 3600) ==
          Approx(gcsim::models::advisor_band_monthly_probability(b)).epsilon(1e-12));
  CHECK(advisor().advisor_rate_per_s("af-south-1", "g4dn.12xlarge") == gcsim::models::advisor_band_rate_per_s(0));

  const gcsim::test::TempDir dir("spot-advisor");
  const std::string header =
      "region,instance_type,savings_vs_ondemand_pct,interruption_band_index,interruption_frequency_label\n";
  auto load_error = [&](const std::string& text) {
    write(dir.file("a.csv"), text);
    return gcsim::test::config_error([&] { read_advisor_file(dir.file("a.csv")); });
  };
  const ConfigError fields = load_error("# comment\n" + header + "r,i,50,0,<5%\nr,j,50\n");
  CHECK(fields.code() == ErrorCode::Syntax);
  CHECK(fields.mark().line == 4);
  CHECK(load_error("region,instance\n").code() == ErrorCode::Syntax);
  CHECK(load_error(header + "r,i,x,0,<5%\n").code() == ErrorCode::WrongType);
  CHECK(load_error(header + "r,i,50,5,>20%\n").code() == ErrorCode::OutOfRange);
  CHECK(load_error(header + "r,i,50,1,<5%\n").code() == ErrorCode::Conflict);
  CHECK(load_error(header + "r,i,50,0,<5%\nr,i,40,0,<5%\n").code() == ErrorCode::Duplicate);
  CHECK(load_error("# only a comment\n").code() == ErrorCode::EmptyFile);
  CHECK(gcsim::test::config_error([&] { read_advisor_file(dir.file("missing.csv")); }).code() ==
        ErrorCode::FileNotFound);
}

TEST_CASE("Window offsets may be compound durations", "[unit][spot]") {
  const AvailabilitySpec a = availability("{windows: [{every: 1w, from: 3d12h, to: 3d18h30m, available: 1}]}");
  CHECK(a.windows[0].from == hours(84));
  CHECK(a.windows[0].to == hours(90) + minutes(30));
  CHECK(availability("{windows: [{every: 1d, from: 1.5h, to: 2h, available: 1}]}").windows[0].from == minutes(90));
  CHECK(availability_error("{windows: [{every: 1w, from: 3d12, to: 4d, available: 1}]}").code() == ErrorCode::BadUnit);
  CHECK(availability_error("{windows: [{every: 1w, from: 3d12x, to: 4d, available: 1}]}").code() ==
        ErrorCode::BadUnit);
  // The one duration syntax of every key (docs/units.md): a zero part is allowed, an order
  // other than largest first is not.
  CHECK(availability("{windows: [{every: 1w, from: 3d0h, to: 4d, available: 1}]}").windows[0].from == hours(72));
  CHECK(availability_error("{windows: [{every: 1w, from: 12h3d, to: 4d, available: 1}]}").code() == ErrorCode::BadUnit);
  CHECK(availability_error("{windows: [{every: 1w, from: -3d12h, to: 4d, available: 1}]}").code() ==
        ErrorCode::OutOfRange);
}
