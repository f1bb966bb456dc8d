// The provider table (models/pricing/providers.hpp): every provider a bundled catalog names
// has a row, and each fact that used to be written in two places has one value, read the
// same way by everything that needs it (the figures are the providers' own: docs/pricing.md
// "Billing rules", docs/spot.md "Notice defaults").
#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>

#include "models/gpu/gpu_catalog.hpp"
#include "models/importers/skypilot.hpp"
#include "models/pricing/instance_catalog.hpp"
#include "models/pricing/providers.hpp"
#include "sim/config/config_node.hpp"
#include "sim/errors.hpp"

namespace m = gcsim::models;
namespace sim = gcsim::sim;

namespace {

const std::string CATALOG_DIR = GCSIM_SOURCE_DIR "/scenarios/catalog";

const m::InstanceCatalog& bundled() {
  static const m::GpuCatalog gpus = [] {
    m::GpuCatalog c;
    c.add_from(gcsim::config::load_yaml_file(CATALOG_DIR + "/gpus.yaml").root);
    return c;
  }();
  static const m::InstanceCatalog catalog = m::load_instance_catalog_dir(m::bundled_instance_dir(CATALOG_DIR), &gpus);
  return catalog;
}

}  // namespace

TEST_CASE("every provider a bundled catalog names has a row", "[unit][pricing]") {
  std::set<std::string> named;
  for (const m::InstanceSpec& s : bundled().list()) named.insert(s.provider);
  REQUIRE(named.size() == 9);  // one catalog file per provider
  for (const std::string& p : named) {
    INFO(p);
    const m::ProviderFacts* row = m::find_provider(p);
    REQUIRE(row != nullptr);
    CHECK(row->name == p);
    CHECK(!row->billing_source.empty());
    CHECK(!row->notice_source.empty());
  }
  // And no row without a catalog: the table is the catalogs' providers, in the docs' order.
  CHECK(m::provider_names() == std::vector<std::string>{"aws", "gcp", "azure", "lambda", "alibaba", "tencent", "vast",
                                                        "colab", "dgx-cloud"});
  CHECK(m::find_provider("AWS") == m::find_provider("aws"));  // case-insensitive
  CHECK(m::find_provider("acme") == nullptr);
}

TEST_CASE("a catalog row's billing is its provider's default", "[unit][pricing]") {
  // Read by the catalog for rows without a billing cell and by a node type naming a provider:
  // one value. AWS per second with a 60 s minimum (AWS What's New, 2017-10-02); Azure 5 min.
  for (const m::InstanceSpec& s : bundled().list()) {
    INFO(s.ref());
    if (s.provider == "aws") {
      CHECK(s.billing.granularity == sim::seconds(1));
      CHECK(s.billing.minimum == sim::seconds(60));
    }
  }
  CHECK(m::default_billing("azure").minimum == sim::minutes(5));
  CHECK(m::default_billing("dgx-cloud").granularity == sim::hours(730));
  CHECK(m::default_billing("acme").granularity == sim::seconds(1));  // unknown: exact per second
  CHECK(m::default_billing("acme").minimum == sim::SimTime::zero());
}

TEST_CASE("the spot notice has one value per provider, for catalogs and scenarios alike", "[unit][pricing][spot]") {
  // Was written twice (the catalog's default_spot_notice and the loader's default_notice):
  // AWS 2 min, GCP and Azure 30 s, the others none.
  CHECK(m::default_notice("aws") == sim::seconds(120));
  CHECK(m::default_notice("gcp") == sim::seconds(30));
  CHECK(m::default_notice("azure") == sim::seconds(30));
  CHECK(m::default_notice("lambda") == sim::SimTime::zero());
  CHECK(m::default_notice("acme") == sim::SimTime::zero());
  // A bundled catalog row with a spot price and no spot_notice cell takes the table's value.
  int checked = 0;
  for (const m::InstanceSpec& s : bundled().list()) {
    if (!s.spot_usd_per_hour || s.provider != "aws") continue;
    INFO(s.ref());
    CHECK(s.spot_notice == m::find_provider("aws")->spot_notice);
    ++checked;
  }
  CHECK(checked > 0);
}

TEST_CASE("the SkyPilot importer reads the layouts the table names", "[unit][pricing]") {
  CHECK(m::find_provider("aws")->skypilot == m::SkyPilotLayout::Zoned);
  CHECK(m::find_provider("gcp")->skypilot == m::SkyPilotLayout::SplitAccelerators);
  CHECK(m::find_provider("lambda")->skypilot == m::SkyPilotLayout::Regional);
  CHECK(m::find_provider("azure")->skypilot == m::SkyPilotLayout::None);
  // A provider without a layout is refused, naming the ones there are.
  std::istringstream in("InstanceType,AcceleratorName\n");
  try {
    m::import_skypilot(in, "azure", "in.csv", "2026-01-01");
    FAIL("azure has no SkyPilot layout");
  } catch (const gcsim::Error& e) {
    CHECK(std::string(e.what()).find("aws, gcp or lambda") != std::string::npos);
  }
}
