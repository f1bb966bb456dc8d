// libFuzzer harness: bytes -> YAML config tree -> typed readers -> validated Scenario.
// A gcsim::Error is the expected outcome for bad input; anything else (another exception,
// a crash, a hang, a sanitizer report) is a bug. Inputs it finds go into tests/config/
// (or the owning layer's tests) as regression cases.
//
//   make fuzz                              # builds with clang into build-fuzz, runs 60 s
//   GCSIM_FUZZ_YAML_ONLY=1 build-fuzz/tests/fuzz/scenario_fuzz ...   # config layer only
//
// Also differential: whenever the loader's fast path (sim/config/yaml_plain.hpp) accepts
// an input, yaml-cpp must accept it too and build the same tree; a difference aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "models/config/scenario_loader.hpp"
#include "models/register_builtins.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/reader.hpp"
#include "sim/config/yaml_plain.hpp"
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

bool same_tree(const gcsim::config::ConfigNode& a, const gcsim::config::ConfigNode& b) {
  const auto ma = a.mark();
  const auto mb = b.mark();
  if (a.kind() != b.kind() || ma.line != mb.line || ma.column != mb.column || a.path() != b.path()) return false;
  if (a.is_scalar()) return a.scalar() == b.scalar() && a.quoted() == b.quoted();
  if (a.is_sequence()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same_tree(a.at(i), b.at(i))) return false;
  }
  if (a.is_map()) {
    if (a.entries().size() != b.entries().size()) return false;
    for (std::size_t i = 0; i < a.entries().size(); ++i) {
      if (a.entries()[i].first != b.entries()[i].first || a.key_mark(i).line != b.key_mark(i).line ||
          a.key_mark(i).column != b.key_mark(i).column || !same_tree(a.entries()[i].second, b.entries()[i].second))
        return false;
    }
  }
  return true;
}

void check_fast_path(const std::string& text) {
  const auto fast = gcsim::config::detail::parse_plain_yaml(text, std::string("fuzz.yaml"));
  if (!fast) return;
  try {
    const auto full = gcsim::config::detail::load_yaml_string_full(text, "fuzz.yaml");
    if (same_tree(*fast, full.root)) return;
    std::fprintf(stderr, "scenario_fuzz: the fast path and yaml-cpp build different trees\n");
  } catch (const gcsim::Error& e) {
    std::fprintf(stderr, "scenario_fuzz: the fast path accepts what yaml-cpp refuses: %s\n", e.what());
  }
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_yaml_only = std::getenv("GCSIM_FUZZ_YAML_ONLY") != nullptr;
  try {
    g_catalog =
        gcsim::models::load_bundled_catalogs({GCSIM_SOURCE_DIR "/scenarios/catalog", gcsim::models::builtins().schedulers});
  } catch (const std::exception& e) {
    // The bundled catalog is part of the build; failing here is a setup bug, not a finding.
    std::fprintf(stderr, "scenario_fuzz: cannot load the bundled catalogs: %s\n", e.what());
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  check_fast_path(text);
  try {
    gcsim::config::ConfigDocument doc = gcsim::config::load_yaml_string(std::move(text), "fuzz.yaml");
    // Bounded, so that an alias-expanded tree of a million nodes does not make a slow unit.
    exercise(doc.root, 8);
    {
      // A copy of a node keeps its tree: walked again after the document is gone and its
      // text overwritten (keys and plain scalars are views of the tree's own copy).
      gcsim::config::ConfigNode kept;
      {
        gcsim::config::ConfigDocument gone = gcsim::config::load_yaml_string(doc.text, "fuzz.yaml");
        gone.text.assign(gone.text.size(), '#');
        kept = gone.root.is_map() && !gone.root.entries().empty() ? gone.root.entries().back().second : gone.root;
      }
      exercise(kept, 4);
    }
    if (!g_yaml_only)
      (void)gcsim::models::load_scenario(std::move(doc), *g_catalog, gcsim::models::builtins().schedulers);
  } catch (const gcsim::Error&) {
    // expected: bad input reported as a user error
  }
  return 0;  // any other exception escapes and libFuzzer reports it
}
