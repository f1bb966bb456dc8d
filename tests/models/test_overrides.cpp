// Scenario keys set by their dotted path (models/config/overrides.hpp): `--set` and the
// points of a sweep. Each setting must reach exactly the value it names, add what the
// scenario leaves out, and be refused at its own position when it cannot be followed.
#include <catch2/catch.hpp>

#include "models/config/overrides.hpp"
#include "models/config/scenario_loader.hpp"
#include "models/register_builtins.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using gcsim::test::config_error;

namespace {

const char* BASE = R"(name: t
seed: 7
horizon: 10h
cluster:
  node_types:
    - name: p4d
      gpu: A100-40GB-SXM
      gpus: 8
      cpu_cores: 96
      memory: 1152GiB
      count: 2
      price: {on_demand_per_hour: 32.77}
    - name: small
      gpu: A100-40GB-SXM
      gpus: 1
      cpu_cores: 12
      memory: 96GiB
      count: 1
      price: {on_demand_per_hour: 4.10}
workload:
  jobs:
    - {name: a, submit: 0h, gpus: 8, duration: 6h}
)";

config::ConfigDocument base_document() { return config::load_yaml_string(BASE, "base.yaml"); }

models::Scenario load_with(const std::vector<std::string>& settings) {
  std::vector<models::Override> overrides;
  for (const std::string& s : settings) overrides.push_back(models::read_set_argument(s));
  return models::load_scenario(models::with_overrides(base_document(), overrides), test::bundled_catalogs(),
                               models::builtins().schedulers);
}

}  // namespace

TEST_CASE("a key path is read into keys and indices, and a bad one is refused at its column", "[unit][config]") {
  const SourceMark mark{"arg", 1, 10};
  const auto segs = models::parse_key_path("cluster.node_types[12].price.on_demand_per_hour", mark);
  REQUIRE(segs.size() == 5);
  CHECK(segs[0].key == "cluster");
  CHECK(segs[1].key == "node_types");
  CHECK(segs[2].is_index());
  CHECK(segs[2].index == 12);
  CHECK(segs[3].key == "price");
  CHECK(segs[4].key == "on_demand_per_hour");
  CHECK(models::parse_key_path("a[0][1]", mark).size() == 3);

  // Each bad path names the character at fault: column 10 is the path's first.
  const auto column_of = [&](const char* path) {
    const ConfigError e = config_error([&] { models::parse_key_path(path, mark); });
    CHECK(e.code() == ErrorCode::Syntax);
    return e.mark().column;
  };
  CHECK(column_of("") == 10);
  CHECK(column_of("a..b") == 12);        // the second '.'
  CHECK(column_of("a.") == 12);          // past the end
  CHECK(column_of("[0].a") == 10);       // an index first
  CHECK(column_of("a[x]") == 12);        // the index's first character
  CHECK(column_of("a[-1]") == 12);
  CHECK(column_of("a[4294967296]") == 12);  // past 2^32 - 1
  CHECK(column_of("a[0") == 11);         // '[' without ']'
  CHECK(column_of("a[0]b") == 14);       // neither '.' nor '[' after ']'
  CHECK(column_of("a b") == 11);
}

TEST_CASE("a setting replaces a value, reaches into lists, and adds the keys a scenario leaves out", "[unit][config]") {
  const models::Scenario plain = load_with({});
  REQUIRE(plain.cluster.node_types[0].count == 2);
  REQUIRE(plain.scheduler.policy == "fifo");

  // A value in the second node type, and the first left alone.
  const models::Scenario s = load_with({"cluster.node_types[1].count=5", "seed=11"});
  CHECK(s.cluster.node_types[0].count == 2);
  CHECK(s.cluster.node_types[1].count == 5);
  CHECK(s.seed == 11);

  // A whole map as the value, and a section the scenario does not have.
  const models::Scenario b = load_with({"scheduler={policy: backfill, mode: conservative}"});
  CHECK(b.scheduler.policy == "backfill");
  // Keys under a section the scenario leaves out: the maps on the way are made.
  const models::Scenario c = load_with({"scheduler.policy=sjf", "output.compression=6"});
  CHECK(c.scheduler.policy == "sjf");
  CHECK(c.output.compression == 6);

  // A later setting of the same path wins; settings apply in order.
  CHECK(load_with({"cluster.node_types[0].count=3", "cluster.node_types[0].count=4"}).cluster.node_types[0].count == 4);

  // A quoted value stays text: a name that looks like a number.
  CHECK(load_with({"name=\"42\""}).name == "42");
}

TEST_CASE("the edited scenario's text loads to the same scenario", "[unit][config]") {
  // Traces embed the text, and `gcsim rerun` loads it: it must say what the settings said.
  const std::vector<models::Override> overrides{models::read_set_argument("cluster.node_types[1].count=5"),
                                                models::read_set_argument("scheduler={policy: backfill, mode: easy}")};
  const config::ConfigDocument edited = models::with_overrides(base_document(), overrides);
  CHECK(edited.file == "base.yaml");
  const models::Scenario direct =
      models::load_scenario(edited, test::bundled_catalogs(), models::builtins().schedulers);
  const models::Scenario reread = models::load_scenario(config::load_yaml_string(edited.text, "base.yaml"),
                                                        test::bundled_catalogs(), models::builtins().schedulers);
  CHECK(reread.cluster.node_types[1].count == 5);
  CHECK(reread.cluster.node_types[0].count == direct.cluster.node_types[0].count);
  CHECK(reread.scheduler.policy == "backfill");
  CHECK(reread.workload.jobs.size() == 1);
  CHECK(reread.horizon == direct.horizon);
  // No settings: the scenario's own text, untouched.
  CHECK(models::with_overrides(base_document(), {}).text == BASE);
}

TEST_CASE("a setting that cannot be followed, or that the scenario refuses, is refused at the setting", "[unit][config]") {
  const auto error_of = [](const std::string& setting) {
    return config_error([&] { load_with({setting}); });
  };
  const std::string label = "--set '";

  // A value the scenario refuses: the reader's own message, at the value's column.
  ConfigError e = error_of("cluster.node_types[0].count=-3");
  CHECK(e.code() == ErrorCode::OutOfRange);
  CHECK(e.mark().file == "--set 'cluster.node_types[0].count=-3'");
  CHECK(e.mark().column == 29);
  CHECK(e.key_path() == "cluster.node_types[0].count");

  // A key the reference does not know, added by the setting: the reader's unknown-key
  // error, at the setting's value, not at a line of the scenario.
  e = error_of("cluster.node_types[0].cont=3");
  CHECK(e.code() == ErrorCode::UnknownKey);
  CHECK(e.mark().file == "--set 'cluster.node_types[0].cont=3'");
  CHECK(e.key_path() == "cluster.node_types[0].cont");
  CHECK_THAT(e.detail(), Catch::Contains("count"));

  // A list reached through a key the scenario lacks: did-you-mean among its keys.
  e = error_of("cluster.node_type[0].count=3");
  CHECK(e.code() == ErrorCode::UnknownKey);
  CHECK(e.mark().column == 1);
  CHECK_THAT(e.detail(), Catch::Contains("did you mean 'node_types'"));
  // Past the end of a list.
  e = error_of("cluster.node_types[2].count=3");
  CHECK(e.code() == ErrorCode::OutOfRange);
  CHECK_THAT(e.detail(), Catch::Contains("has 2 items"));
  // Into a scalar, or indexing a map.
  CHECK(error_of("name.first=x").code() == ErrorCode::WrongType);
  CHECK(error_of("cluster[0]=x").code() == ErrorCode::WrongType);
  // The argument itself: no '=', no value, a value that is not YAML.
  CHECK(error_of("seed").code() == ErrorCode::Syntax);
  e = error_of("seed=");
  CHECK(e.code() == ErrorCode::MissingKey);
  CHECK(e.mark().column == 6);
  CHECK(error_of("seed={a: [").code() == ErrorCode::Syntax);
  // A list the reference knows but the scenario leaves out: no item to set, so the whole
  // list is asked for (not a did-you-mean naming the same key).
  e = error_of("workload.generators[0].count=3");
  CHECK(e.code() == ErrorCode::MissingKey);
  CHECK(e.key_path() == "workload.generators");
  CHECK_THAT(e.detail(), Catch::Contains("has no 'workload.generators', so it has no item [0] to set: give the whole "
                                         "list (--set 'workload.generators=[...]')"));
  CHECK_THAT(e.detail(), !Catch::Contains("did you mean"));
}

TEST_CASE("a --set into the cluster a trace's machine list makes writes that cluster in, then sets the key",
          "[unit][config]") {
  // No cluster section: the machine list is the cluster (12GB-2gpu: m1..m3, then
  // 24GB-8gpu: m47, m412), made as the trace is read. As recorded, each attempt on its machines.
  const std::string fixtures = GCSIM_SOURCE_DIR "/tests/fixtures/traces/test.yaml";
  const auto with = [&](const std::string& trace, const std::vector<std::string>& settings) {
    std::vector<models::Override> overrides;
    for (const std::string& s : settings) overrides.push_back(models::read_set_argument(s));
    return models::with_overrides(
        config::load_yaml_string("name: t\nhorizon: 2d\nworkload:\n  trace: " + trace + "\n", fixtures), overrides);
  };
  const std::string philly =
      "{format: philly, jobs: philly_cluster_job_log, machines: philly_cluster_machine_list, mode: as-recorded}";
  const auto load = [](const config::ConfigDocument& d) {
    return models::load_scenario(d, test::bundled_catalogs(), models::builtins().schedulers);
  };
  const models::Scenario own = load(with(philly, {}));
  const config::ConfigDocument d =
      with(philly, {"cluster.node_types[1].count=1", "cluster.node_types[0].price.on_demand_per_hour=$2/h"});
  // The text (what a trace embeds, for a rerun) holds the section, before the workload.
  CHECK_THAT(d.text, Catch::Contains("cluster:"));
  CHECK(d.text.find("cluster:") < d.text.find("workload:"));
  const models::Scenario s = load(d);
  REQUIRE(s.cluster.node_types.size() == 2);
  CHECK(s.cluster.node_types[0].name == "12GB-2gpu");
  CHECK(s.cluster.node_types[0].count == 3);
  CHECK(s.cluster.node_types[0].price.on_demand_usd_per_hour == 2);
  CHECK(s.cluster.node_types[1].name == "24GB-8gpu");
  CHECK(s.cluster.node_types[1].count == 1);
  // The recorded machines keep their nodes, but m412, past the one 24 GB node left.
  REQUIRE(s.workload.recorded.size() == own.workload.recorded.size());
  for (std::size_t i = 0; i < s.workload.recorded.size(); ++i) {
    INFO(s.workload.jobs[i].name);
    if (s.workload.jobs[i].name == "application_1506638472019_0001#2") CHECK(s.workload.recorded[i].node == -1);  // m412
    else CHECK(s.workload.recorded[i].node == own.workload.recorded[i].node);
  }
  CHECK(load(config::load_yaml_string(d.text, fixtures)).cluster.node_types[1].count == 1);  // the text loads the same
  // A trace without a machine list gives no cluster to set a key in.
  const ConfigError e = config_error([&] { with("{format: swf, file: as_recorded.swf}", {"cluster.node_types[0].count=3"}); });
  CHECK(e.code() == ErrorCode::MissingKey);
  CHECK(e.key_path() == "cluster");
  CHECK_THAT(e.detail(), Catch::Contains("its trace gives no machine list"));
  // A whole section is the scenario's cluster instead of the machine list.
  const models::Scenario whole =
      load(with(philly, {"cluster={node_types: [{name: a, gpu: P40, gpus: 8, count: 3, price: {on_demand_per_hour: 1}}]}"}));
  REQUIRE(whole.cluster.node_types.size() == 1);
  CHECK(whole.cluster.node_types[0].count == 3);
}
