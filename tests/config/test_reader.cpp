// MapReader and the typed scalar readers: each accepted form and each error branch,
// matched by ConfigError::code(). Nodes come from real YAML so that quoting, marks and
// paths are what users will see.
#include <catch2/catch.hpp>

#include "support/scenario_support.hpp"

#include <limits>
#include <string>

#include "sim/config/config_node.hpp"
#include "sim/config/reader.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::config::ConfigDocument;
using gcsim::config::ConfigNode;
using gcsim::config::load_yaml_string;
using gcsim::config::MapReader;
namespace c = gcsim::config;
namespace s = gcsim::sim;

namespace {

using gcsim::test::config_error;

// The node under key `v` of the one-line document "v: <yaml>".
ConfigNode value(const std::string& yaml) {
  const ConfigDocument doc = load_yaml_string("v: " + yaml + "\n", "r.yaml");
  return *doc.root.find("v");
}

template <class Read>
ErrorCode read_error(const std::string& yaml, Read read) {
  const ConfigNode n = value(yaml);
  return config_error([&] { read(n); }).code();
}

constexpr std::int64_t I64_MIN = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t I64_MAX = std::numeric_limits<std::int64_t>::max();
constexpr double D_MAX = std::numeric_limits<double>::max();

}  // namespace

TEST_CASE("MapReader hands out keys and refuses unknown ones with a suggestion", "[unit]") {
  const ConfigDocument doc = load_yaml_string("cluster:\n  name: a\n  gpuz: 8\n", "m.yaml");
  MapReader r(*doc.root.find("cluster"));
  CHECK(r.required("name").scalar() == "a");
  CHECK(r.optional("gpus") == nullptr);
  CHECK(r.has("gpuz"));
  CHECK_FALSE(r.has("gpus"));
  const ConfigError e = config_error([&] { r.finish(); });
  CHECK(e.code() == ErrorCode::UnknownKey);
  CHECK(e.key_path() == "cluster.gpuz");
  CHECK(e.mark().line == 3);
  CHECK(e.mark().column == 3);  // at the key, not its value
  CHECK(e.detail().find("'gpus'") != std::string::npos);
  REQUIRE_THROWS_AS(r.finish(), ConfigError);
}

TEST_CASE("MapReader with declared keys refuses unknown ones at once", "[unit]") {
  const ConfigDocument doc = load_yaml_string("t:\n  gpu: H100\n  gpuz: 8\n", "m.yaml");
  const ConfigNode& t = *doc.root.find("t");
  const ConfigError e = config_error([&] { MapReader r(t, {"name", "gpu", "gpus"}); });
  CHECK(e.code() == ErrorCode::UnknownKey);
  CHECK(e.key_path() == "t.gpuz");
  // 'gpu' is already there, so the typo must be 'gpus'.
  CHECK(e.detail().find("'gpus'") != std::string::npos);
  // A misspelt required key is reported as the typo, not as a missing key.
  const ConfigDocument typo = load_yaml_string("t:\n  nmae: x\n", "m.yaml");
  CHECK(config_error([&] { MapReader r(*typo.root.find("t"), {"name"}); }).code() == ErrorCode::UnknownKey);
  CHECK_NOTHROW(MapReader(t, {"gpu", "gpuz"}));
  REQUIRE_THROWS_AS(MapReader(t, {"gpu"}), ConfigError);
}

TEST_CASE("MapReader with a key table: unknown keys first, then required ones", "[unit]") {
  static constexpr c::KeySpec keys[] = {
      {.name = "name", .type = "text", .required = true},
      {.name = "gpus", .type = "integer", .default_value = "`1`", .range = ">= 1", .help = "GPUs"},
  };
  const ConfigDocument ok = load_yaml_string("t:\n  name: a\n", "k.yaml");
  CHECK_NOTHROW(MapReader(*ok.root.find("t"), c::KeyTable(keys)));
  const ConfigDocument typo = load_yaml_string("t:\n  name: a\n  gpuz: 2\n", "k.yaml");
  const ConfigError e = config_error([&] { MapReader r(*typo.root.find("t"), c::KeyTable(keys)); });
  CHECK(e.code() == ErrorCode::UnknownKey);
  CHECK(e.detail().find("'gpus'") != std::string::npos);
  const ConfigDocument missing = load_yaml_string("t:\n  gpus: 2\n", "k.yaml");
  const ConfigError m = config_error([&] { MapReader r(*missing.root.find("t"), c::KeyTable(keys)); });
  CHECK(m.code() == ErrorCode::MissingKey);
  CHECK(m.key_path() == "t.name");
  CHECK(c::find_key(keys, "gpus")->default_value == "`1`");
  CHECK(c::find_key(keys, "gpu") == nullptr);
}

TEST_CASE("MapReader lists the valid keys when none is close", "[unit]") {
  const ConfigDocument doc = load_yaml_string("scheduler: fcfs\nzzzzzz: 1\n", "m.yaml");
  MapReader r(doc.root);
  (void)r.optional("scheduler");
  (void)r.optional("seed");
  const ConfigError e = config_error([&] { r.finish(); });
  CHECK(e.code() == ErrorCode::UnknownKey);
  CHECK(e.detail().find("scheduler, seed") != std::string::npos);

  MapReader none(doc.root);  // asked for nothing
  CHECK(config_error([&] { none.finish(); }).code() == ErrorCode::UnknownKey);
}

TEST_CASE("MapReader: missing keys, null maps, wrong kinds", "[unit]") {
  const ConfigDocument doc = load_yaml_string("a:\n  x: 1\nb:\nc: [1]\nd: 5\n", "m.yaml");
  MapReader a(*doc.root.find("a"));
  const ConfigError missing = config_error([&] { a.required("gpus"); });
  CHECK(missing.code() == ErrorCode::MissingKey);
  CHECK(missing.key_path() == "a.gpus");
  CHECK(missing.mark().line == 2);  // where the map is
  CHECK(a.required("x").scalar() == "1");
  CHECK_NOTHROW(a.finish());

  // "b:" with nothing under it reads as an empty map: all defaults.
  MapReader b(*doc.root.find("b"));
  CHECK(b.optional("anything") == nullptr);
  CHECK_FALSE(b.has("anything"));
  CHECK_NOTHROW(b.finish());
  CHECK(config_error([&] { b.required("k"); }).code() == ErrorCode::MissingKey);

  CHECK(config_error([&] { MapReader r(*doc.root.find("c")); }).code() == ErrorCode::WrongType);
  CHECK(config_error([&] { MapReader r(*doc.root.find("d")); }).code() == ErrorCode::WrongType);
  REQUIRE_THROWS_AS(MapReader(*doc.root.find("c")), ConfigError);

  // A present key with an empty value: has() is true, optional() says "not given".
  MapReader root(doc.root);
  CHECK(root.has("b"));
  CHECK(root.optional("b") == nullptr);
  CHECK(root.required("b").is_null());
}

TEST_CASE("errors from readers point at the value", "[unit]") {
  const ConfigDocument doc = load_yaml_string("cluster:\n  node_types:\n    - gpus: many\n", "p.yaml");
  const ConfigNode& gpus = *doc.root.find("cluster")->find("node_types")->at(0).find("gpus");
  const ConfigError e = config_error([&] { c::read_int(gpus, 1, 64); });
  CHECK(e.code() == ErrorCode::WrongType);
  CHECK(e.mark().file == "p.yaml");
  CHECK(e.mark().line == 3);
  CHECK(e.mark().column == 13);
  CHECK(e.key_path() == "cluster.node_types[0].gpus");
  CHECK(std::string(e.what()).rfind("p.yaml:3:13: error[wrong-type]: cluster.node_types[0].gpus: ", 0) == 0);
}

TEST_CASE("read_string and read_enum", "[unit]") {
  CHECK(c::read_string(value("hello")) == "hello");
  CHECK(c::read_string(value("\"42\"")) == "42");
  CHECK(read_error("", c::read_string) == ErrorCode::WrongType);
  CHECK(read_error("\"\"", c::read_string) == ErrorCode::WrongType);
  CHECK(read_error("[a]", c::read_string) == ErrorCode::WrongType);
  CHECK(read_error("{a: 1}", c::read_string) == ErrorCode::WrongType);

  const std::vector<std::string> policies{"fcfs", "sjf", "backfill"};
  auto read_policy = [&](const ConfigNode& n) { return c::read_enum(n, policies); };
  CHECK(c::read_enum(value("sjf"), policies) == "sjf");
  CHECK(read_error("fifo", read_policy) == ErrorCode::UnknownName);
  CHECK(read_error("fcsf", read_policy) == ErrorCode::UnknownName);
  CHECK(read_error("FCFS", read_policy) == ErrorCode::UnknownName);  // names are exact
  CHECK(read_error("[fcfs]", read_policy) == ErrorCode::WrongType);
  REQUIRE_THROWS_AS(read_policy(value("lottery")), ConfigError);
}

TEST_CASE("read_bool", "[unit]") {
  for (const char* t : {"true", "True", "yes", "on", "TRUE"}) CHECK(c::read_bool(value(t)));
  for (const char* f : {"false", "False", "no", "off"}) CHECK_FALSE(c::read_bool(value(f)));
  CHECK(read_error("maybe", c::read_bool) == ErrorCode::WrongType);
  CHECK(read_error("1", c::read_bool) == ErrorCode::WrongType);
  CHECK(read_error("\"true\"", c::read_bool) == ErrorCode::WrongType);
  CHECK(read_error("", c::read_bool) == ErrorCode::WrongType);
  CHECK(read_error("[true]", c::read_bool) == ErrorCode::WrongType);
  REQUIRE_THROWS_AS(c::read_bool(value("si")), ConfigError);
}

TEST_CASE("read_int: integers and integral count suffixes only", "[unit]") {
  auto any = [](const ConfigNode& n) { return c::read_int(n, I64_MIN, I64_MAX); };
  auto positive = [](const ConfigNode& n) { return c::read_int(n, 1, 1024); };
  CHECK(any(value("8")) == 8);
  CHECK(any(value("-3")) == -3);
  CHECK(any(value("+4")) == 4);
  CHECK(any(value("16k")) == 16000);
  CHECK(any(value("1.5k")) == 1500);
  CHECK(any(value("2M")) == 2'000'000);
  CHECK(any(value("9223372036854775807")) == I64_MAX);
  CHECK(positive(value("1024")) == 1024);

  CHECK(read_error("8.0", any) == ErrorCode::WrongType);
  CHECK(read_error("1e3", any) == ErrorCode::WrongType);
  CHECK(read_error("1.0005k", any) == ErrorCode::WrongType);
  CHECK(read_error("abc", any) == ErrorCode::WrongType);
  CHECK(read_error("-x", any) == ErrorCode::WrongType);
  CHECK(read_error("+-5", any) == ErrorCode::WrongType);
  CHECK(read_error("\"8\"", any) == ErrorCode::WrongType);
  CHECK(read_error("", any) == ErrorCode::WrongType);
  CHECK(read_error("[8]", any) == ErrorCode::WrongType);
  CHECK(read_error("5x", any) == ErrorCode::BadUnit);
  CHECK(read_error("0", positive) == ErrorCode::OutOfRange);
  CHECK(read_error("-1", positive) == ErrorCode::OutOfRange);
  CHECK(read_error("1025", positive) == ErrorCode::OutOfRange);
  CHECK(read_error("2k", positive) == ErrorCode::OutOfRange);
  CHECK(read_error("99999999999999999999", any) == ErrorCode::OutOfRange);
  CHECK(read_error("9999999T", any) == ErrorCode::OutOfRange);
  REQUIRE_THROWS_AS(positive(value("0")), ConfigError);
}

TEST_CASE("read_double: plain numbers and count suffixes", "[unit]") {
  auto any = [](const ConfigNode& n) { return c::read_double(n, -D_MAX, D_MAX); };
  auto unit_range = [](const ConfigNode& n) { return c::read_double(n, 0.0, 1.0); };
  CHECK(any(value("42")) == 42);
  CHECK(any(value("1.5")) == 1.5);
  CHECK(any(value("115.3M")) == Approx(115.3e6));
  CHECK(any(value("1e18")) == 1e18);
  CHECK(any(value("-2.5")) == -2.5);

  CHECK(read_error("\"42\"", any) == ErrorCode::WrongType);  // quoted scalars are text
  CHECK(read_error("'42'", any) == ErrorCode::WrongType);
  CHECK(read_error("nan", any) == ErrorCode::WrongType);
  CHECK(read_error(".nan", any) == ErrorCode::WrongType);
  CHECK(read_error("inf", any) == ErrorCode::WrongType);
  CHECK(read_error(".inf", any) == ErrorCode::WrongType);
  CHECK(read_error("abc", any) == ErrorCode::WrongType);
  CHECK(read_error("", any) == ErrorCode::WrongType);
  CHECK(read_error("5 parsecs", any) == ErrorCode::BadUnit);
  CHECK(read_error("1e400", any) == ErrorCode::OutOfRange);
  CHECK(read_error("1.5", unit_range) == ErrorCode::OutOfRange);
  CHECK(read_error("-0.1", unit_range) == ErrorCode::OutOfRange);
  REQUIRE_THROWS_AS(unit_range(value("2")), ConfigError);
}

TEST_CASE("read_fraction: 0..1 or 0%..100%", "[unit]") {
  CHECK(c::read_fraction(value("0.45")) == 0.45);
  CHECK(c::read_fraction(value("45%")) == Approx(0.45));
  CHECK(c::read_fraction(value("\"45%\"")) == Approx(0.45));
  CHECK(c::read_fraction(value("0")) == 0);
  CHECK(c::read_fraction(value("100%")) == 1);
  CHECK(read_error("1.5", c::read_fraction) == ErrorCode::OutOfRange);
  CHECK(read_error("-0.1", c::read_fraction) == ErrorCode::OutOfRange);
  CHECK(read_error("150%", c::read_fraction) == ErrorCode::OutOfRange);
  CHECK(read_error("\"0.5\"", c::read_fraction) == ErrorCode::WrongType);
  CHECK(read_error("half", c::read_fraction) == ErrorCode::WrongType);
  CHECK(read_error("45 percent", c::read_fraction) == ErrorCode::BadUnit);
  CHECK(read_error("{a: 1}", c::read_fraction) == ErrorCode::WrongType);
  REQUIRE_THROWS_AS(c::read_fraction(value("2")), ConfigError);
}

TEST_CASE("read_duration: a unit is required, zero excepted", "[unit]") {
  auto read = [](const ConfigNode& n) { return c::read_duration(n); };
  auto at_least_5m = [](const ConfigNode& n) { return c::read_duration(n, s::minutes(5)); };
  CHECK(read(value("30m")) == s::minutes(30));
  CHECK(read(value("6h")) == s::hours(6));
  CHECK(read(value("1.5d")) == s::hours(36));
  CHECK(read(value("250ms")) == s::SimTime::from_ns(250'000'000));
  CHECK(read(value("0")) == s::SimTime::zero());
  CHECK(read(value("\"6h\"")) == s::hours(6));  // a unit makes quoted text unambiguous
  CHECK(at_least_5m(value("5m")) == s::minutes(5));
  CHECK(read(value("1h30m")) == s::minutes(90));  // compound, as in every duration key
  CHECK(read(value("3d12h")) == s::hours(84));

  CHECK(read_error("6", read) == ErrorCode::BadUnit);
  CHECK(read_error("5 parsecs", read) == ErrorCode::BadUnit);
  CHECK(read_error("6h30", read) == ErrorCode::BadUnit);
  CHECK(read_error("30m1h", read) == ErrorCode::BadUnit);
  CHECK(read_error("1h1h", read) == ErrorCode::BadUnit);
  CHECK(read_error("-1h30m", read) == ErrorCode::OutOfRange);
  CHECK(read_error("292y200d", read) == ErrorCode::OutOfRange);
  CHECK(read_error("4m30s", at_least_5m) == ErrorCode::OutOfRange);
  CHECK(read_error("-5m", read) == ErrorCode::OutOfRange);
  CHECK(read_error("1m", at_least_5m) == ErrorCode::OutOfRange);
  CHECK(read_error("1e300h", read) == ErrorCode::OutOfRange);
  CHECK(read_error("\"6\"", read) == ErrorCode::WrongType);
  CHECK(read_error("abc", read) == ErrorCode::WrongType);
  CHECK(read_error("", read) == ErrorCode::WrongType);
  CHECK(read_error("[6h]", read) == ErrorCode::WrongType);
  REQUIRE_THROWS_AS(read(value("6")), ConfigError);
}

TEST_CASE("read_bytes and read_bytes_per_s: positive quantities", "[unit]") {
  CHECK(c::read_bytes(value("80GiB")) == 80.0 * 1024 * 1024 * 1024);
  CHECK(c::read_bytes(value("1.5TB")) == 1.5e12);
  CHECK(read_error("0GiB", c::read_bytes) == ErrorCode::OutOfRange);
  CHECK(read_error("0", c::read_bytes) == ErrorCode::OutOfRange);
  CHECK(read_error("-1GB", c::read_bytes) == ErrorCode::OutOfRange);
  CHECK(read_error("80", c::read_bytes) == ErrorCode::BadUnit);
  CHECK(read_error("80 parsecs", c::read_bytes) == ErrorCode::BadUnit);
  CHECK(read_error("big", c::read_bytes) == ErrorCode::WrongType);
  CHECK(read_error("\"80\"", c::read_bytes) == ErrorCode::WrongType);
  REQUIRE_THROWS_AS(c::read_bytes(value("80")), ConfigError);

  CHECK(c::read_bytes_per_s(value("100Gbps")) == 12.5e9);
  CHECK(c::read_bytes_per_s(value("10GB/s")) == 10e9);
  CHECK(read_error("0Gbps", c::read_bytes_per_s) == ErrorCode::OutOfRange);
  CHECK(read_error("100", c::read_bytes_per_s) == ErrorCode::BadUnit);
  CHECK(read_error("100 furlongs", c::read_bytes_per_s) == ErrorCode::BadUnit);
  CHECK(read_error("[1]", c::read_bytes_per_s) == ErrorCode::WrongType);
  REQUIRE_THROWS_AS(c::read_bytes_per_s(value("100G")), ConfigError);
}

TEST_CASE("read_flop_per_s and read_watts: non-negative quantities", "[unit]") {
  CHECK(c::read_flop_per_s(value("19.5TFLOPS")) == Approx(19.5e12));
  CHECK(c::read_flop_per_s(value("989 TFLOP/s")) == Approx(989e12));
  CHECK(c::read_flop_per_s(value("0")) == 0);
  CHECK(read_error("-1TFLOPS", c::read_flop_per_s) == ErrorCode::OutOfRange);
  CHECK(read_error("19.5T", c::read_flop_per_s) == ErrorCode::BadUnit);
  CHECK(read_error("fast", c::read_flop_per_s) == ErrorCode::WrongType);
  REQUIRE_THROWS_AS(c::read_flop_per_s(value("1 TOPS")), ConfigError);

  CHECK(c::read_watts(value("700W")) == 700);
  CHECK(c::read_watts(value("6.5kW")) == 6500);
  CHECK(read_error("-5W", c::read_watts) == ErrorCode::OutOfRange);
  CHECK(read_error("700", c::read_watts) == ErrorCode::BadUnit);
  CHECK(read_error("700 J", c::read_watts) == ErrorCode::BadUnit);
  REQUIRE_THROWS_AS(c::read_watts(value("hot")), ConfigError);
}

TEST_CASE("read_usd_per_hour and read_usd", "[unit]") {
  CHECK(c::read_usd_per_hour(value("$2.50/h")) == 2.5);
  CHECK(c::read_usd_per_hour(value("\"$2.50/h\"")) == 2.5);
  CHECK(c::read_usd_per_hour(value("32.77")) == 32.77);
  CHECK(c::read_usd_per_hour(value("60/d")) == 2.5);
  CHECK(read_error("\"32.77\"", c::read_usd_per_hour) == ErrorCode::WrongType);
  CHECK(read_error("-$1/h", c::read_usd_per_hour) == ErrorCode::OutOfRange);
  CHECK(read_error("$2/fortnight", c::read_usd_per_hour) == ErrorCode::BadUnit);
  CHECK(read_error("cheap", c::read_usd_per_hour) == ErrorCode::WrongType);
  REQUIRE_THROWS_AS(c::read_usd_per_hour(value("$0.12/kWh")), ConfigError);

  CHECK(c::read_usd(value("$200,000")) == 200000);
  CHECK(c::read_usd(value("200000")) == 200000);
  CHECK(c::read_usd(value("1.2k")) == Approx(1200));
  CHECK(read_error("-5", c::read_usd) == ErrorCode::OutOfRange);
  CHECK(read_error("lots", c::read_usd) == ErrorCode::WrongType);
  CHECK(read_error("$2,00", c::read_usd) == ErrorCode::WrongType);
  CHECK(read_error("12 euro", c::read_usd) == ErrorCode::BadUnit);
  REQUIRE_THROWS_AS(c::read_usd(value("free")), ConfigError);
}
