// Simulated GPU metrics (docs/metrics.md): the output.metrics key.
#include <catch2/catch.hpp>

#include <string>

#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

std::string with_output(const std::string& output) {
  return "name: m\nhorizon: 120s\nrun_until: horizon\n"
         "cluster:\n  node_types:\n    - {name: a, gpu: A100-40GB-SXM, gpus: 2, count: 1, price: {on_demand_per_hour: 2}}\n"
         "workload:\n  jobs:\n    - {name: A, gpus: 1, duration: 100s}\n" +
         output;
}

}  // namespace

TEST_CASE("output.metrics: every is a required duration > 0", "[unit][metrics]") {
  CHECK(test::scenario_from_yaml(with_output("")).output.metrics_every == sim::SimTime::zero());
  CHECK(test::scenario_from_yaml(with_output("output: {metrics: {every: 15s}}")).output.metrics_every == sim::seconds(15));
  CHECK(test::scenario_from_yaml(with_output("output: {metrics: {every: 1m30s}}")).output.metrics_every == sim::seconds(90));
  const auto error = [](const std::string& output) {
    return test::config_error([&] { test::scenario_from_yaml(with_output(output)); });
  };
  SECTION("zero") { CHECK(error("output: {metrics: {every: 0s}}").code() == ErrorCode::OutOfRange); }
  SECTION("negative") { CHECK(error("output: {metrics: {every: -15s}}").code() == ErrorCode::OutOfRange); }
  SECTION("no unit") { CHECK(error("output: {metrics: {every: 15}}").code() == ErrorCode::BadUnit); }
  SECTION("missing") { CHECK(error("output: {metrics: {}}").code() == ErrorCode::MissingKey); }
  SECTION("not a map") { CHECK(error("output: {metrics: 15s}").code() == ErrorCode::WrongType); }
  SECTION("misspelt") {
    const ConfigError e = error("output: {metrics: {evry: 15s}}");
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(test::has(e.what(), "every"));
    CHECK(test::has(e.what(), "output.metrics"));
  }
}

