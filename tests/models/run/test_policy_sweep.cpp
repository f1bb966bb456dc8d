// A policy sweep over one shared scenario (issue 29, item 4): run_many gives every variant
// the same const Scenario and its own RunOptions::scheduler, on two threads at once; each
// trace is the variant's (its policy, and the scenario text with its scheduler section,
// which gcsim rerun reruns), and each run's result is what the variant loaded on its own
// gives.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "analysis/trace_data.hpp"
#include "models/config/scheduler_variant.hpp"
#include "models/register_builtins.hpp"
#include "models/sweep.hpp"
#include "sim/config/config_node.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

TEST_CASE("run_many runs every policy over one shared scenario", "[model][sweep][components]") {
  // L (8 GPUs, 3h) at 0 holds the node; S1 (2h) at 1m and S2 (1h) at 2m wait. FIFO: S1
  // ends at 5h, S2 at 6h. SJF: S2 at 4h, S1 at 6h. Either way the node is busy 6h.
  const std::string yaml = R"(name: sweep
horizon: 10h
run_until: done
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 8}}
scheduler: {policy: fifo}
workload:
  jobs:
    - {name: L, submit: 0s, gpus: 8, duration: 3h}
    - {name: S1, submit: 1m, gpus: 8, duration: 2h}
    - {name: S2, submit: 2m, gpus: 8, duration: 1h}
)";
  const models::SchedulerRegistry& registry = models::builtins().schedulers;
  const config::ConfigDocument doc = config::load_yaml_string(yaml, "sweep.yaml");
  const auto shared = std::make_shared<const models::Scenario>(test::scenario_from_yaml(yaml, "sweep.yaml"));
  test::TempDir dir("policy-sweep");

  std::vector<models::RunSpec> specs;
  std::vector<std::string> texts;
  for (const std::string arg : {"sjf", "fifo"}) {
    const models::SchedulerVariant v = models::read_scheduler_variant(arg, registry);
    const models::Scenario loaded = test::scenario_from_yaml(models::with_scheduler_section(doc, v).text, "sweep.yaml");
    texts.push_back(loaded.source_text);
    models::RunSpec spec;
    spec.scenario = shared;
    spec.options.scheduler =
        std::make_shared<const models::SchedulerChoice>(models::SchedulerChoice{loaded.scheduler, loaded.source_text});
    spec.options.fixed_wall_clock_s = 1.0;
    spec.output_stem = dir.file(arg);
    specs.push_back(std::move(spec));
  }
  const auto outcomes = models::run_many(test::bundled_catalogs(), registry, std::move(specs), 2);
  REQUIRE(outcomes.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    INFO(i);
    REQUIRE(outcomes[i].ok());
    CHECK(outcomes[i].summary->end_s == 6 * 3600.0);
    const analysis::TraceData t = analysis::read_trace(outcomes[i].trace_path);
    CHECK(t.attrs.scheduler == (i == 0 ? "sjf" : "fifo"));
    CHECK(t.attrs.scenario_yaml == texts[i]);
    const double s2_end_h = test::job_named(t, "S2").end_s / 3600;
    CHECK(s2_end_h == Approx(i == 0 ? 4.0 : 6.0));
  }
  CHECK(shared->scheduler.policy == "fifo");
}
