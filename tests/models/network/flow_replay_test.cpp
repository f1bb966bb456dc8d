// Flow replay on a parking-lot fabric (data/parking_lot.yaml), finish times computed by hand; CSV errors.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "models/network/flow_replay.hpp"
#include "sim/config/config_node.hpp"
#include "sim/errors.hpp"
#include "support/scenario_support.hpp"

using gcsim::network::replay_flows;
using gcsim::topology::NetworkSpec;
using gcsim::topology::parse_network_spec;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

NetworkSpec load_network(const std::string& yaml_path) {
  const auto doc = gcsim::config::load_yaml_file(yaml_path);
  const auto* net = doc.root.find("network");
  REQUIRE(net != nullptr);
  return parse_network_spec(*net);
}

std::string replay(const NetworkSpec& spec, const std::string& csv) {
  std::istringstream in(csv);
  std::ostringstream out;
  replay_flows(spec, in, out, "flows.csv");
  return out.str();
}

const std::string DATA = std::string(GCSIM_SOURCE_DIR) + "/tests/models/network/data/";

}  // namespace

TEST_CASE("flow replay: parking lot by hand", "[model][network]") {
  // L1 = 10 GB/s (10 B/ns), L2 = 5 GB/s, L3 = 10 GB/s, 1 us each. All flows start at 0.
  //   f1 H0->H1 (L1), f2 H1->H2 (L2), f3 H2->H3 (L3): latency 1 us; f0 H0->H3: 3 us.
  //   [1us, 3us)  f1 10, f2 5, f3 10 B/ns: f1, f3 send 20000 B, f2 10000 B.
  //   [3us, ...)  f0 joins: L2 is the bottleneck (5/2): f0 = f2 = 2.5, f1 = f3 = 7.5.
  //   f2 = 10000 + 2.5e9 B ends at 3 us + 1 s = 1.000003 s.
  //   Then f0 = 5 (L2 alone, L1 and L3 split 10/2), f1 = f3 = 5. f0 has sent 2.5e9 of 5e9:
  //   it ends at 1.000003 + 0.5 = 1.500003 s, unless f1 ends first:
  //   f1 = 20000 + 7.5e9 + 1.25e9 B: 1.25e9 at 5 B/ns takes 0.25 s: ends 1.250003 s.
  //   f0 stays at 5 (L2, L3 limit it) and ends at 1.500003 s.
  //   f3 = 20000 + 7.5e9 + 2.5e9 + 5e9 B: at 5 until 1.500003 (2.5e9 B), then alone at 10:
  //   5e9 B take 0.5 s: ends 2.000003 s.
  const NetworkSpec spec = load_network(DATA + "parking_lot.yaml");
  const std::string out = replay(spec, read_file(DATA + "parking_lot_flows.csv"));
  CHECK(out ==
        "flow_id,finish\n"
        "f0,1.500003\n"
        "f1,1.250003\n"
        "f2,1.000003\n"
        "f3,2.000003\n");
}

TEST_CASE("flow replay: half-duplex link is shared by both directions", "[model][network]") {
  // One 1e9 B/s half-duplex link: two opposite 1e9 B flows share it, 0.5e9 B/s each.
  const auto doc = gcsim::config::load_yaml_string(
      "network:\n"
      "  fabric: explicit\n"
      "  hosts: [A, B]\n"
      "  links:\n"
      "    - {name: L, between: [A, B], bandwidth: 1GB/s, latency: 0us, duplex: half}\n",
      "half.yaml");
  const NetworkSpec half = parse_network_spec(*doc.root.find("network"));
  CHECK(replay(half, "flow_id,src,dst,bytes,start\nx,A,B,1e9,0\ny,B,A,1e9,0\n") == "flow_id,finish\nx,2\ny,2\n");
  // Full duplex: each direction has its own 1e9 B/s.
  const auto doc2 = gcsim::config::load_yaml_string(
      "network:\n"
      "  fabric: explicit\n"
      "  hosts: [A, B]\n"
      "  links:\n"
      "    - {name: L, between: [A, B], bandwidth: 1GB/s, latency: 0us}\n",
      "full.yaml");
  const NetworkSpec full = parse_network_spec(*doc2.root.find("network"));
  CHECK(replay(full, "flow_id,src,dst,bytes,start\nx,A,B,1e9,0\ny,B,A,1e9,0\n") == "flow_id,finish\nx,1\ny,1\n");
}

TEST_CASE("flow replay: explicit routes override shortest paths, walked in route direction", "[model][network]") {
  // A triangle A-B-C. A->C would go direct over AC; the route sends it A->B->C.
  // Flow r (A->C, 1e9 B) and flow s (B->C, 1e9 B) then share BC (1e9 B/s): both end at 2 s.
  // Without the route, r would take AC alone and end at 1 s.
  const std::string base =
      "network:\n"
      "  fabric: explicit\n"
      "  hosts: [A, B, C]\n"
      "  links:\n"
      "    - {name: AB, between: [A, B], bandwidth: 1GB/s}\n"
      "    - {name: BC, between: [C, B], bandwidth: 1GB/s}\n"
      "    - {name: AC, between: [A, C], bandwidth: 1GB/s}\n";
  const std::string flows = "flow_id,src,dst,bytes,start\nr,A,C,1e9,0\ns,B,C,1e9,0\n";
  const auto plain = gcsim::config::load_yaml_string(base, "plain.yaml");
  CHECK(replay(parse_network_spec(*plain.root.find("network")), flows) == "flow_id,finish\nr,1\ns,1\n");
  const auto routed = gcsim::config::load_yaml_string(base + "  routes: [{from: A, to: C, links: [AB, BC]}]\n", "routed.yaml");
  CHECK(replay(parse_network_spec(*routed.root.find("network")), flows) == "flow_id,finish\nr,2\ns,2\n");
  // The reverse pair keeps shortest-path routing: C->A over AC, sharing nothing with s.
  CHECK(replay(parse_network_spec(*routed.root.find("network")), "flow_id,src,dst,bytes,start\nr,C,A,1e9,0\ns,B,C,1e9,0\n") ==
        "flow_id,finish\nr,1\ns,1\n");
}

TEST_CASE("flow replay: CSV errors name file, line and column", "[unit][network]") {
  const NetworkSpec spec = load_network(DATA + "parking_lot.yaml");
  auto error_of = [&](const std::string& csv) -> std::string {
    try {
      replay(spec, csv);
    } catch (const gcsim::Error& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK_THAT(error_of("id,src,dst,bytes,start\n"), Catch::StartsWith("flows.csv:1:1:"));
  CHECK_THAT(error_of(""), Catch::StartsWith("flows.csv:1:1:") && Catch::Contains("missing header"));
  CHECK_THAT(error_of("flow_id,src,dst,bytes,start\nf0,H0,H3,100\n"), Catch::StartsWith("flows.csv:2:") && Catch::Contains("5 fields"));
  CHECK_THAT(error_of("flow_id,src,dst,bytes,start\nf0,H0,H9,100,0\n"), Catch::StartsWith("flows.csv:2:7:") && Catch::Contains("not a host"));
  CHECK_THAT(error_of("flow_id,src,dst,bytes,start\nf0,H0,H3,lots,0\n"), Catch::StartsWith("flows.csv:2:10:"));
  CHECK_THAT(error_of("flow_id,src,dst,bytes,start\nf0,H0,H3,100,-1\n"), Catch::StartsWith("flows.csv:2:14:") && Catch::Contains(">= 0"));
  CHECK_THAT(error_of("flow_id,src,dst,bytes,start\nf0,H0,H3,1,0\n\nf0,H0,H3,1,0\n"), Catch::StartsWith("flows.csv:4:1:") && Catch::Contains("twice"));
  // A host to itself finishes at its start; blank lines and CRLF are accepted.
  CHECK(replay(spec, "flow_id,src,dst,bytes,start\r\nx,H1,H1,5,0.5\r\n\r\n") == "flow_id,finish\nx,0.5\n");
}

TEST_CASE("flow replay: the one CSV reader, errors with stable codes", "[unit][network]") {
  const NetworkSpec spec = load_network(DATA + "parking_lot.yaml");
  auto error_of = [&](const std::string& csv) {
    return gcsim::test::config_error([&] { replay(spec, csv); });
  };
  const std::string header = "flow_id,src,dst,bytes,start\n";
  const gcsim::ConfigError host = error_of(header + "f0,H0,H9,100,0\n");
  CHECK(host.code() == gcsim::ErrorCode::UnknownName);
  CHECK(host.mark().file == "flows.csv");
  CHECK(host.mark().line == 2);
  CHECK(host.mark().column == 7);
  CHECK(error_of("id,src,dst,bytes,start\n").code() == gcsim::ErrorCode::Syntax);
  CHECK(error_of(header + "f0,H0,H3,100\n").code() == gcsim::ErrorCode::Syntax);
  CHECK(error_of(header + "f0,H0,H3,lots,0\n").code() == gcsim::ErrorCode::WrongType);
  CHECK(error_of(header + "f0,H0,H3,100,-1\n").code() == gcsim::ErrorCode::OutOfRange);
  CHECK(error_of(header + "f0,H0,H3,1,0\nf0,H0,H3,1,0\n").code() == gcsim::ErrorCode::Duplicate);
  CHECK(error_of("").code() == gcsim::ErrorCode::EmptyFile);
  // A bad row: a quote never closed is a syntax error at the quote.
  const gcsim::ConfigError quote = error_of(header + "f0,\"H0,H3,1,0\n");
  CHECK(quote.code() == gcsim::ErrorCode::Syntax);
  CHECK(quote.mark().line == 2);
  CHECK(quote.mark().column == 4);
  // Quoted fields (RFC 4180), as in every other CSV input: a flow id holding a comma, and
  // quoted again in the output.
  CHECK(replay(spec, header + "\"a,b\",H1,H1,5,0.5\n") == "flow_id,finish\n\"a,b\",0.5\n");
}

TEST_CASE("flow replay: starts and finishes beyond the time range are refused, never printed as 0", "[unit][network]") {
  // 5e19 B over the 5 GB/s bottleneck of H0->H3 is 1e10 s, past the ~292 years that 64-bit
  // nanoseconds hold; before, the run ended in an internal error (the completion time
  // wrapped to the past), and with saturating time it printed a finish of 0.
  const NetworkSpec spec = load_network(DATA + "parking_lot.yaml");
  const std::string header = "flow_id,src,dst,bytes,start\n";
  const gcsim::ConfigError never =
      gcsim::test::config_error([&] { replay(spec, header + "ok,H0,H1,1000,0\nf0,H0,H3,5e19,0\n"); });
  CHECK(never.code() == gcsim::ErrorCode::OutOfRange);
  CHECK(never.mark().line == 3);
  CHECK(never.mark().column == 10);
  CHECK_THAT(std::string(never.what()), Catch::Contains("flow <text not shown> does not finish"));
  const gcsim::ConfigError late = gcsim::test::config_error([&] { replay(spec, header + "f1,H0,H1,1000,1e300\n"); });
  CHECK(late.code() == gcsim::ErrorCode::OutOfRange);
  CHECK(late.mark().column == 15);
  // 5e17 B: 1e8 s (about 3.2 years) plus 3 us of latency, inside the range. The flow
  // network ends a flow 1e-12 of its time early (its guard against a last byte lost to
  // rounding), here 100 us: within 1e-9 relative.
  const std::string out = replay(spec, header + "big,H0,H3,5e17,0\n");
  REQUIRE_THAT(out, Catch::StartsWith("flow_id,finish\nbig,"));
  const double finish = std::stod(out.substr(std::string("flow_id,finish\nbig,").size()));
  CHECK(finish == Approx(1e8 + 3e-6).epsilon(1e-9));
}

TEST_CASE("flow replay: a flow too large even alone is refused before the run, one slowed by sharing after it",
          "[unit][network]") {
  const NetworkSpec spec = load_network(DATA + "parking_lot.yaml");
  const std::string header = "flow_id,src,dst,bytes,start\n";
  // 5e19 B alone at the 5 GB/s bottleneck of H0->H3: 1e10 s, refused before anything runs.
  const gcsim::ConfigError alone = gcsim::test::config_error([&] { replay(spec, header + "f0,H0,H3,5e19,0\n"); });
  CHECK(alone.code() == gcsim::ErrorCode::OutOfRange);
  CHECK(alone.mark().line == 2);
  CHECK_THAT(std::string(alone.what()), Catch::Contains("bottleneck of 5e+09 B/s"));
  // 3e19 B alone takes 6e9 s (190 years): in range. Two such flows share the bottleneck at
  // 2.5 GB/s each and would take 1.2e10 s: the run finds they never finish.
  const gcsim::ConfigError shared =
      gcsim::test::config_error([&] { replay(spec, header + "a,H0,H3,3e19,0\nb,H0,H3,3e19,0\n"); });
  CHECK(shared.code() == gcsim::ErrorCode::OutOfRange);
  CHECK(shared.mark().line == 2);
  CHECK_THAT(std::string(shared.what()), Catch::Contains("flow <text not shown> does not finish") && Catch::Contains("rates the network"));
}

TEST_CASE("flow replay: a message names the line and column of a bad value, never its text", "[unit][network]") {
  // A flows file that is a link to a secret must not print it (issue 27.2).
  const NetworkSpec spec = load_network(DATA + "parking_lot.yaml");
  const std::string header = "flow_id,src,dst,bytes,start\n";
  const std::string secret = "root:$6$saltsalt$SeCrEtHaSh";
  for (const std::string& csv : {header + "f0," + secret + ",H3,100,0\n", header + "f0,H0,H3," + secret + ",0\n",
                                 header + "f0,H0,H3,100," + secret + "\n", header + secret + ",H0,H3,1,0\n" + secret + ",H0,H3,1,0\n",
                                 header + "f0,H0,H3,100,0,x" + secret + "\n"}) {
    const gcsim::ConfigError e = gcsim::test::config_error([&] { replay(spec, csv); });
    INFO(e.what());
    CHECK(std::string(e.what()).find("SeCrEt") == std::string::npos);
    CHECK(e.mark().line >= 2);
  }
}
