// libFuzzer harness: bytes -> YAML config tree -> typed readers -> validated Scenario.
// A gcsim::Error is the expected outcome for bad input; anything else (another exception,
// a crash, a hang, a sanitizer report) is a bug. Inputs it finds go into tests/config/
// (or the owning layer's tests) as regression cases.
//
//   make fuzz                              # builds with clang into build-fuzz, runs 60 s
//   GCSIM_FUZZ_YAML_ONLY=1 build-fuzz/tests/fuzz/scenario_fuzz ...   # config layer only
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <optional>
#include <string>

#include "models/config/scenario_loader.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/reader.hpp"
#include "sim/errors.hpp"

namespace {

std::optional<gcsim::models::Catalogs> g_catalog;
bool g_yaml_only = false;

template <class F>
void expect_config_error_or_value(F&& f) {
  try {
    f();
  } catch (const gcsim::Error&) {
    // expected for arbitrary text
  }
}

// Every scalar goes through every reader, so the unit parsers and did-you-mean see fuzzed
// text too; every map through a MapReader with a few known keys.
void exercise(const gcsim::config::ConfigNode& n, int budget_left) {
  namespace c = gcsim::config;
  if (budget_left <= 0) return;
  if (n.is_scalar() || n.is_null()) {
    expect_config_error_or_value([&] { (void)c::read_string(n); });
    expect_config_error_or_value([&] { (void)c::read_enum(n, {"fcfs", "sjf", "backfill"}); });
    expect_config_error_or_value([&] { (void)c::read_bool(n); });
    expect_config_error_or_value([&] { (void)c::read_int(n, 0, 1 << 20); });
    expect_config_error_or_value([&] {
      (void)c::read_double(n, std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max());
    });
    expect_config_error_or_value([&] { (void)c::read_fraction(n); });
    expect_config_error_or_value([&] { (void)c::read_duration(n); });
    expect_config_error_or_value([&] { (void)c::read_bytes(n); });
    expect_config_error_or_value([&] { (void)c::read_bytes_per_s(n); });
    expect_config_error_or_value([&] { (void)c::read_flop_per_s(n); });
    expect_config_error_or_value([&] { (void)c::read_watts(n); });
    expect_config_error_or_value([&] { (void)c::read_usd_per_hour(n); });
    expect_config_error_or_value([&] { (void)c::read_usd(n); });
    return;
  }
  if (n.is_map()) {
    expect_config_error_or_value([&] {
      c::MapReader r(n);
      (void)r.optional("name");
      (void)r.optional("gpus");
      (void)r.optional("cluster");
      r.finish();
    });
    for (std::size_t i = 0; i < n.entries().size(); ++i) {
      (void)n.key_mark(i);
      exercise(n.entries()[i].second, budget_left - 1);
    }
    return;
  }
  for (const auto& item : n.items()) exercise(item, budget_left - 1);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_yaml_only = std::getenv("GCSIM_FUZZ_YAML_ONLY") != nullptr;
  try {
    g_catalog = gcsim::models::load_bundled_catalogs({GCSIM_SOURCE_DIR "/scenarios/catalog"});
  } catch (const std::exception& e) {
    // The bundled catalog is part of the build; failing here is a setup bug, not a finding.
    std::fprintf(stderr, "scenario_fuzz: cannot load the bundled catalogs: %s\n", e.what());
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    gcsim::config::ConfigDocument doc = gcsim::config::load_yaml_string(std::move(text), "fuzz.yaml");
    // Bounded, so that an alias-expanded tree of a million nodes does not make a slow unit.
    exercise(doc.root, 8);
    if (!g_yaml_only) (void)gcsim::models::load_scenario(std::move(doc), *g_catalog);
  } catch (const gcsim::Error&) {
    // expected: bad input reported as a user error
  }
  return 0;  // any other exception escapes and libFuzzer reports it
}
