// Instance catalogs: the bundled files (every named platform, every GPU resolves), lookups
// with did-you-mean, the file format's validation branches, and the SkyPilot importer on
// the example rows of skypilot_catalog_schema.csv.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "models/gpu/gpu_catalog.hpp"
#include "models/importers/skypilot.hpp"
#include "models/pricing/instance_catalog.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/csv.hpp"
#include "sim/errors.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::models::InstanceCatalog;
using gcsim::models::InstanceSpec;
namespace m = gcsim::models;
namespace sim = gcsim::sim;

namespace {

const std::string CATALOG_DIR = GCSIM_SOURCE_DIR "/scenarios/catalog";
const std::string FIXTURES = GCSIM_SOURCE_DIR "/tests/fixtures/pricing";

const m::GpuCatalog& gpus() {
  static const m::GpuCatalog catalog = [] {
    m::GpuCatalog c;
    c.add_from(gcsim::config::load_yaml_file(CATALOG_DIR + "/gpus.yaml").root);
    return c;
  }();
  return catalog;
}

const InstanceCatalog& bundled() {
  static const InstanceCatalog catalog = m::load_instance_catalog_dir(m::bundled_instance_dir(CATALOG_DIR), &gpus());
  return catalog;
}

const std::string HEADER =
    "provider,instance_type,gpu,gpus,vcpus,memory,local_storage,network,region,zone,on_demand_per_hour,spot_per_hour,"
    "billing,spot_notice,market_kind,price_assumed,snapshot,source\n";

ConfigError load_error(const std::string& text) {
  std::istringstream in(text);
  InstanceCatalog c;
  try {
    c.load(in, "i.csv", &gpus());
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no ConfigError for\n" << text);
  throw std::logic_error("unreachable");
}

m::ImportResult import_file(const std::string& name, const std::string& provider) {
  std::ifstream in(FIXTURES + "/" + name);
  REQUIRE(in);
  return m::import_skypilot(in, provider, name, "2026-01-01");
}

}  // namespace

TEST_CASE("the bundled instance catalog has every named platform and resolves every GPU", "[unit][pricing]") {
  const InstanceCatalog& c = bundled();
  REQUIRE(c.list().size() >= 60);
  std::set<std::string> providers;
  for (const InstanceSpec& s : c.list()) {
    INFO(s.ref());
    providers.insert(s.provider);
    CHECK(gpus().find(s.gpu) != nullptr);
    CHECK(gpus().find(s.gpu)->name == s.gpu);
    CHECK(s.gpus >= 1);
    CHECK(s.on_demand_usd_per_hour > 0);
    CHECK_FALSE(s.source.empty());
    CHECK(m::valid_catalog_date(s.snapshot));  // every price carries its date (issue 28.4)
    if (s.spot_usd_per_hour) CHECK(*s.spot_usd_per_hour < s.on_demand_usd_per_hour);
  }
  for (const char* p : {"aws", "gcp", "azure", "lambda", "alibaba", "tencent", "vast", "colab", "dgx-cloud"}) {
    INFO(p);
    CHECK(providers.count(p) == 1);
  }
  auto has = [&](const std::string& provider, const std::string& prefix) {
    return std::any_of(c.list().begin(), c.list().end(), [&](const InstanceSpec& s) {
      return s.provider == provider && s.instance_type.rfind(prefix, 0) == 0;
    });
  };
  for (const char* family : {"p3.", "p4d.", "p5.", "g4dn.", "g5."}) CHECK(has("aws", family));
  CHECK(has("azure", "Standard_ND"));
  // Every row of the reference price file is there: 46 rows, one of them split in two.
  std::size_t from_data = 0;
  for (const InstanceSpec& s : c.list())
    if (s.source.find("skypilot-org") == 0 || s.source.find("tsaol/") == 0 || s.source.find("DSHydro") == 0 ||
        s.source.find("https://rmmartins") == 0 || s.source.find("on-demand price: tsaol/") == 0)
      ++from_data;
  CHECK(from_data == 47);
  // Platforms without public prices are marked as assumptions.
  for (const InstanceSpec& s : c.list())
    if (s.provider == "alibaba" || s.provider == "tencent" || s.provider == "vast" || s.provider == "colab") {
      INFO(s.ref());
      CHECK(s.price_assumed);
      CHECK(s.source.find("ASSUMPTION") != std::string::npos);
    }
}

TEST_CASE("platform semantics in the bundled catalog", "[unit][pricing]") {
  const InstanceCatalog& c = bundled();
  const InstanceSpec& dgx = c.lookup("dgx-cloud/dgx-h100-8");
  CHECK(dgx.market_kind == m::InstanceMarketKind::Lease);
  CHECK(dgx.on_demand_usd_per_hour == Approx(36999.0 / 730));  // $36,999/month over 730 h
  CHECK(m::billed_time(dgx.billing, sim::hours(1)) == sim::hours(730));
  const InstanceSpec& vast = c.lookup("vast/host-1x-a100-80gb");
  CHECK(vast.market_kind == m::InstanceMarketKind::Marketplace);
  REQUIRE(vast.spot_usd_per_hour);
  CHECK(*vast.spot_usd_per_hour == Approx(0.75));
  const InstanceSpec& colab = c.lookup("colab/pro-a100");
  CHECK(colab.market_kind == m::InstanceMarketKind::Subscription);
  CHECK(colab.on_demand_usd_per_hour == Approx(11.77 * 0.0999));
  CHECK(c.lookup("lambda/gpu_8x_h100_sxm5").billing.granularity == sim::minutes(1));
  CHECK(c.lookup("azure/Standard_ND96isr_H100_v5").billing.minimum == sim::minutes(5));
  const InstanceSpec& p4d_spot = c.lookup("aws/p4d.24xlarge@use1-az1");
  CHECK(p4d_spot.spot_notice == sim::minutes(2));
  CHECK(p4d_spot.billing.minimum == sim::seconds(60));
}

TEST_CASE("instance lookups: newest price first, zones, did-you-mean", "[unit][pricing]") {
  const InstanceCatalog& c = bundled();
  // Two us-east-1 prices: the 2026-01-21 list price wins over the older per-AZ row.
  const InstanceSpec& p4d = c.lookup("aws/p4d.24xlarge");
  CHECK(p4d.on_demand_usd_per_hour == 21.957642);
  CHECK(p4d.snapshot == "2026-01-21");
  CHECK(c.lookup("AWS/p4d.24xlarge@us-east-1").on_demand_usd_per_hour == 21.957642);
  // The zone row's on-demand price is the region's newer list price; its spot price keeps
  // its own, older date (issue 28.4: one instance, one price).
  const InstanceSpec& az = c.lookup("aws/p4d.24xlarge@use1-az1");
  CHECK(az.on_demand_usd_per_hour == 21.957642);
  CHECK(az.snapshot == "2026-01-21");
  CHECK(*az.spot_usd_per_hour == 6.7915);
  CHECK(az.spot_snapshot == "2025-05");
  CHECK(c.lookup("aws/p5.48xlarge@use1-az1").on_demand_usd_per_hour == 55.04);
  CHECK(c.lookup("aws/p5.48xlarge").on_demand_usd_per_hour == 55.04);
  // No newer list price in us-west-2: the zone row's own, dated.
  CHECK(c.lookup("aws/p4d.24xlarge@usw2-az1").on_demand_usd_per_hour == 32.7726);
  CHECK(c.lookup("aws/p4d.24xlarge@usw2-az1").snapshot == "2025-05");
  CHECK(*c.lookup("aws/p4d.24xlarge@us-west-2").spot_usd_per_hour == 10.507);
  CHECK(c.find("aws", "p4d.24xlarge", "eu-north-1") == nullptr);
  CHECK(c.find_ref("p4d.24xlarge") == nullptr);
  try {
    c.lookup("aws/p4d.24xlrage");
    FAIL("no error");
  } catch (const gcsim::Error& e) {
    CHECK(std::string(e.what()).find("did you mean 'aws/p4d.24xlarge'") != std::string::npos);
  }
  CHECK_THROWS_AS(c.lookup("aws/p4d.24xlarge@mars-1"), gcsim::Error);
  const auto doc = gcsim::config::load_yaml_string("instance: lambda/gpu_8x_h100_sxm\n", "s.yaml");
  try {
    c.lookup(*doc.root.find("instance"));
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(e.key_path() == "instance");
    CHECK(e.detail().find("lambda/gpu_8x_h100_sxm5") != std::string::npos);
  }
  const m::PriceSpec d = az.price_defaults();
  CHECK(d.on_demand_usd_per_hour == 21.957642);
  CHECK(d.spot_profile.value_at(sim::hours(1)) == 6.7915);
}

TEST_CASE("every catalog price carries its date: snapshot is a required column and cell", "[unit][pricing]") {
  const ConfigError empty =
      load_error(HEADER + "aws,x.large,A100-40GB-SXM,8,96,1152GiB,,,us-east-1,,32.77,,,,standard,0,,test\n");
  CHECK(empty.code() == ErrorCode::MissingKey);
  CHECK(empty.key_path() == "snapshot");
  CHECK(empty.mark().line == 2);
  const ConfigError absent =
      load_error("provider,instance_type,gpu,gpus,on_demand_per_hour,source\naws,x.large,A100-40GB-SXM,8,32.77,test\n");
  CHECK(absent.code() == ErrorCode::MissingKey);
  CHECK(absent.key_path() == "snapshot");
  const std::string spot_header =
      "provider,instance_type,gpu,gpus,region,zone,on_demand_per_hour,spot_per_hour,snapshot,spot_snapshot,source\n";
  CHECK(load_error(spot_header + "aws,x,T4,1,r,z,1,,2026-01-01,2025-01,t\n").code() == ErrorCode::Conflict);
  CHECK(load_error(spot_header + "aws,x,T4,1,r,z,1,0.5,2026-01-01,2025-13,t\n").code() == ErrorCode::WrongType);
}

TEST_CASE("a zone row takes its region's newer on-demand price, not an older or same-day one", "[unit][pricing]") {
  const std::string header =
      "provider,instance_type,gpu,gpus,region,zone,on_demand_per_hour,spot_per_hour,snapshot,source\n";
  std::istringstream in(header +
                        "aws,a.x,T4,1,r1,z1,10,3,2025-01-01,old zone\n"   // older than the list price
                        "aws,a.x,T4,1,r1,,8,,2026-01-01,list\n"
                        "aws,a.x,T4,1,r1,z2,9,2,2026-01-01,same day\n"    // the zone's own price that day
                        "aws,a.x,T4,1,r2,z3,10,4,2025-01-01,other region\n"
                        "aws,b.x,T4,1,r1,z1,5,1,2026-06-01,newer zone\n"
                        "aws,b.x,T4,1,r1,,4,,2026-01-01,list\n");
  InstanceCatalog c;
  c.load(in, "z.csv", &gpus());
  const InstanceSpec& z1 = c.lookup("aws/a.x@z1");
  CHECK(z1.on_demand_usd_per_hour == 8);
  CHECK(z1.snapshot == "2026-01-01");
  CHECK(*z1.spot_usd_per_hour == 3);
  CHECK(z1.spot_snapshot == "2025-01-01");
  CHECK(z1.source.find("list") != std::string::npos);
  CHECK(z1.source.find("old zone") != std::string::npos);
  CHECK(c.lookup("aws/a.x").on_demand_usd_per_hour == 8);
  CHECK(c.lookup("aws/a.x@z2").on_demand_usd_per_hour == 9);
  CHECK(c.lookup("aws/a.x@z2").spot_snapshot.empty());
  CHECK(c.lookup("aws/a.x@z3").on_demand_usd_per_hour == 10);
  CHECK(c.lookup("aws/b.x@z1").on_demand_usd_per_hour == 5);
  // What a listing shows and what it writes back is what lookups give.
  std::istringstream again_in(m::format_catalog_csv(c.list(), {}));
  InstanceCatalog again;
  again.load(again_in, "again.csv", &gpus());
  CHECK(again.lookup("aws/a.x@z1").on_demand_usd_per_hour == 8);
  CHECK(again.lookup("aws/a.x@z1").spot_snapshot == "2025-01-01");
}

TEST_CASE("a user's catalog replaces bundled rows of the same name and says so", "[unit][pricing]") {
  InstanceCatalog c = bundled();
  std::istringstream in(HEADER +
                        "aws,p4d.24xlarge,A100-40GB-SXM,8,96,1152GiB,,,us-east-1,use1-az1,30,5,,,standard,0,2025-05,mine\n"
                        "gcp,a2-highgpu-8g,A100-40GB-SXM,8,96,680GiB,,,us-central1,us-central1-a,35.3043,14.12148,,,"
                        "standard,0,2026-01-01,mine\n");
  c.load(in, "mine.csv", &gpus(), m::CatalogPrecedence::Override);
  REQUIRE(c.overrides().size() == 2);
  CHECK(c.overrides()[0].find("aws/p4d.24xlarge@use1-az1: mine.csv:2 replaces the bundled row") == 0);
  CHECK(c.overrides()[1].find("gcp/a2-highgpu-8g@us-central1-a: mine.csv:3") == 0);
  const InstanceSpec& a2 = c.lookup("gcp/a2-highgpu-8g@us-central1-a");
  CHECK(a2.market_kind == m::InstanceMarketKind::Standard);
  CHECK(a2.on_demand_usd_per_hour == 35.3043);
  CHECK(*c.lookup("aws/p4d.24xlarge@use1-az1").spot_usd_per_hour == 5);
  CHECK(c.list().size() == bundled().list().size());
  // Among the user's own rows the duplicate rule holds.
  std::istringstream twice(HEADER + "aws,p4d.24xlarge,A100-40GB-SXM,8,96,1152GiB,,,us-east-1,use1-az1,30,5,,,standard,0,2025-05,again\n");
  try {
    c.load(twice, "again.csv", &gpus(), m::CatalogPrecedence::Override);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.code() == ErrorCode::Duplicate);
    CHECK(e.detail().find("mine.csv:2") != std::string::npos);
  }
}

TEST_CASE("catalog files refuse an instance type or place no reference could name", "[unit][pricing]") {
  for (const char* type : {"p4d@x", "p4d/x"}) {
    const ConfigError e = load_error(HEADER + "aws," + type + ",A100-40GB-SXM,8,96,,,,us-east-1,,32.77,,,,standard,0,2026-01-21,t\n");
    CHECK(e.code() == ErrorCode::WrongType);
    CHECK(e.key_path() == "instance_type");
  }
  CHECK(load_error(HEADER + "aws,p4d,A100-40GB-SXM,8,96,,,,us-east-1,az@1,32.77,,,,standard,0,2026-01-21,t\n").key_path() == "zone");
}

TEST_CASE("SkyPilot importer: duplicates written once and counted, conflicts name both lines, separators refused",
          "[unit][pricing]") {
  const std::string header =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n";
  const std::string row = "g5.xlarge,A10G,1.0,4.0,16.0,,1.006,0.4,us-east-1,use1-az1\n";
  {
    std::istringstream in(header + row + row + row);
    const m::ImportResult r = m::import_skypilot(in, "aws", "d.csv", "2026-02-03");
    REQUIRE(r.instances.size() == 1);
    CHECK(r.report.duplicates == 2);
    CHECK(r.instances[0].snapshot == "2026-02-03");
  }
  {
    std::istringstream in(header + row + "g5.xlarge,A10G,1.0,4.0,16.0,,1.006,0.5,us-east-1,use1-az1\n");
    try {
      m::import_skypilot(in, "aws", "d.csv", "2026-02-03");
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK(e.code() == ErrorCode::Duplicate);
      CHECK(e.mark().line == 3);
      CHECK(e.detail().find("lines 2 and 3") != std::string::npos);
    }
  }
  for (const char* type : {"g5@xlarge", "g5/xlarge"}) {
    std::istringstream in(header + row + type + ",A10G,1.0,4.0,16.0,,1.006,0.4,us-east-1,use1-az1\n");
    try {
      m::import_skypilot(in, "aws", "d.csv", "2026-02-03");
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK(e.code() == ErrorCode::WrongType);
      CHECK(e.key_path() == "InstanceType");
      CHECK(e.mark().line == 3);
    }
  }
  std::istringstream any(header);
  CHECK_THROWS_AS(m::import_skypilot(any, "aws", "d.csv", ""), std::invalid_argument);
}

TEST_CASE("a comment written into a catalog stays one comment line", "[unit][pricing]") {
  CHECK(gcsim::config::csv::comment_line("a\nb") == "# a\\nb\n");
  CHECK(gcsim::config::csv::comment_line("tab\tcr\rdel\x7f esc\x1b back\\") == "# tab\\tcr\\rdel\\x7f esc\\x1b back\\\\\n");
  const std::string text = m::format_catalog_csv({}, {"from x\nprovider,evil"});
  CHECK(text == "# from x\\nprovider,evil\n" + HEADER.substr(0, HEADER.size() - 7) + "spot_snapshot,source\n");
}

TEST_CASE("catalog files round-trip through format_catalog_csv", "[unit][pricing]") {
  const std::string text = m::format_catalog_csv(bundled().list(), {"round trip", "second line"});
  CHECK(text.rfind("# round trip\n# second line\nprovider,", 0) == 0);
  std::istringstream in(text);
  InstanceCatalog again;
  again.load(in, "rt.csv", &gpus());
  REQUIRE(again.list().size() == bundled().list().size());
  for (std::size_t i = 0; i < again.list().size(); ++i) {
    const InstanceSpec& a = again.list()[i];
    const InstanceSpec& b = bundled().list()[i];
    INFO(b.ref());
    CHECK(a.ref() == b.ref());
    CHECK(a.on_demand_usd_per_hour == Approx(b.on_demand_usd_per_hour));
    CHECK(a.spot_usd_per_hour.has_value() == b.spot_usd_per_hour.has_value());
    CHECK(a.memory_bytes == Approx(b.memory_bytes));
    CHECK(a.billing.granularity == b.billing.granularity);
    CHECK(a.billing.minimum == b.billing.minimum);
    CHECK(a.spot_notice == b.spot_notice);
    CHECK(a.market_kind == b.market_kind);
    CHECK(a.price_assumed == b.price_assumed);
    CHECK(a.source == b.source);
  }
}

TEST_CASE("catalog file errors name file, line, column and column", "[unit][pricing]") {
  const std::string good = "aws,x.large,A100-40GB-SXM,8,96,1152GiB,,,us-east-1,,32.77,,,,standard,0,2026-01-21,test\n";
  {
    std::istringstream in(HEADER + good);
    InstanceCatalog c;
    c.load(in, "i.csv", &gpus());
    REQUIRE(c.list().size() == 1);
    CHECK(c.list()[0].memory_bytes == 1152.0 * 1024 * 1024 * 1024);
    CHECK(c.list()[0].billing.minimum == sim::seconds(60));  // the provider default
  }
  struct Case {
    std::string text;
    ErrorCode code;
    std::string column;
  };
  auto with = [&](const std::string& from, const std::string& to) {
    std::string row = good;
    row.replace(row.find(from), from.size(), to);
    return HEADER + row;
  };
  const Case cases[] = {
      {"provider,instance_typ,gpu\n", ErrorCode::UnknownKey, ""},  // the header's text is never quoted (issue 27.2)
      {"provider,gpu,gpus,on_demand_per_hour,source\n", ErrorCode::MissingKey, "instance_type"},
      {"provider,provider\n", ErrorCode::Duplicate, "provider"},
      {with("A100-40GB-SXM", "A100-40G-SXM"), ErrorCode::UnknownName, "gpu"},
      {with(",8,96", ",0,96"), ErrorCode::OutOfRange, "gpus"},
      {with(",8,96", ",8.5,96"), ErrorCode::WrongType, "gpus"},
      {with("1152GiB", "1152"), ErrorCode::BadUnit, "memory"},
      {with("32.77", "lots"), ErrorCode::WrongType, "on_demand_per_hour"},
      {with("32.77", ""), ErrorCode::MissingKey, "on_demand_per_hour"},
      {with(",standard,", ",spotty,"), ErrorCode::UnknownName, "market_kind"},
      {with("standard,0", "standard,yes"), ErrorCode::WrongType, "price_assumed"},
      {with("2026-01-21", "Jan 2026"), ErrorCode::WrongType, "snapshot"},
      // Dates that are not on the calendar (each was accepted before).
      {with("2026-01-21", "2024-13-45"), ErrorCode::WrongType, "snapshot"},
      {with("2026-01-21", "2024-02-30"), ErrorCode::WrongType, "snapshot"},
      {with("2026-01-21", "2023-02-29"), ErrorCode::WrongType, "snapshot"},
      {with("2026-01-21", "1900-02-29"), ErrorCode::WrongType, "snapshot"},
      {with("2026-01-21", "2024-04-31"), ErrorCode::WrongType, "snapshot"},
      {with("2026-01-21", "2024-00"), ErrorCode::WrongType, "snapshot"},
      {with("2026-01-21", "0000"), ErrorCode::WrongType, "snapshot"},
      {with(",test\n", ",\n"), ErrorCode::MissingKey, "source"},
      {with("aws,", "AWS,"), ErrorCode::WrongType, "provider"},
      {with(",,,standard", ",per_fortnight,,standard"), ErrorCode::BadUnit, "billing"},
      {with(",,standard", ",2,standard"), ErrorCode::BadUnit, "spot_notice"},
      {HEADER + good + good, ErrorCode::Duplicate, "instance_type"},
      {HEADER + "aws,x\n", ErrorCode::WrongType, ""},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const ConfigError e = load_error(c.text);
    CHECK(e.code() == c.code);
    CHECK(e.key_path() == c.column);
    CHECK(e.mark().file == "i.csv");
  }
  for (const char* date : {"2024-02-29", "2000-02-29", "2026-12-31", "2026-04", "1900"}) {
    INFO(date);
    std::istringstream in(with("2026-01-21", date));
    InstanceCatalog c;
    CHECK_NOTHROW(c.load(in, "i.csv", &gpus()));
  }
  const ConfigError e = load_error(with("1152GiB", "1152"));
  CHECK(e.mark().line == 2);
  CHECK(e.mark().column == static_cast<int>(good.find("1152GiB")) + 1);
  CHECK(load_error("# only a comment\n").code() == ErrorCode::EmptyFile);
  InstanceCatalog c;
  CHECK_THROWS_AS(c.load(FIXTURES + "/no_such.csv"), ConfigError);
  InstanceSpec s;
  s.provider = "aws";
  s.instance_type = "t";
  c.add(s);
  CHECK_THROWS_AS(c.add(s), std::invalid_argument);
}

TEST_CASE("SkyPilot importer: AWS layout, GPU memory from GpuInfo, skipped rows reported", "[unit][pricing]") {
  const m::ImportResult r = import_file("skypilot_aws.csv", "aws");
  CHECK(r.report.rows == 5);
  REQUIRE(r.report.imported == 3);
  const InstanceSpec& p4d = r.instances[0];
  CHECK(p4d.instance_type == "p4d.24xlarge");
  CHECK(p4d.gpu == "A100-40GB-SXM");  // A100 + 40960 MiB
  CHECK(p4d.gpus == 8);
  CHECK(p4d.vcpus == 96);
  CHECK(p4d.memory_bytes == 1152.0 * 1024 * 1024 * 1024);
  CHECK(p4d.on_demand_usd_per_hour == 32.7726);
  CHECK(*p4d.spot_usd_per_hour == 6.7915);
  CHECK(p4d.region == "us-east-1");
  CHECK(p4d.zone == "use1-az1");
  CHECK(p4d.billing.minimum == sim::seconds(60));
  CHECK(p4d.spot_notice == sim::minutes(2));
  CHECK(r.instances[1].gpu == "A100-80GB-SXM");  // A100 + 81920 MiB
  CHECK(r.instances[2].gpu == "A10G");
  CHECK_FALSE(r.instances[2].spot_usd_per_hour);
  CHECK(r.report.skipped.at("no GPU (CPU-only machine type)") == 1);
  CHECK(r.report.skipped.at("GPU not in our catalog") == 1);
  CHECK(r.report.unknown_gpus.at("Inferentia2") == 1);
  // Everything it produces loads back against the GPU catalog.
  std::istringstream in(m::format_catalog_csv(r.instances, {"imported"}));
  InstanceCatalog c;
  c.load(in, "imported.csv", &gpus());
  CHECK(c.list().size() == 3);
}

TEST_CASE("SkyPilot importer: GCP accelerator rows add to their host row", "[unit][pricing]") {
  const m::ImportResult r = import_file("skypilot_gcp.csv", "gcp");
  CHECK(r.report.rows == 5);
  REQUIRE(r.report.imported == 1);
  CHECK(r.report.merged == 1);
  const InstanceSpec& a2 = r.instances[0];
  CHECK(a2.instance_type == "a2-highgpu-8g");
  CHECK(a2.gpu == "A100-40GB-SXM");
  CHECK(a2.gpus == 8);
  CHECK(a2.on_demand_usd_per_hour == Approx(5.91582 + 29.38848));  // host + 8 A100s
  CHECK(*a2.spot_usd_per_hour == Approx(2.36604 + 11.75544));
  CHECK(a2.spot_notice == sim::seconds(30));
  CHECK(r.report.unknown_gpus.at("tpu-v6e-8") == 1);
  CHECK(r.report.skipped.at("no GPU (CPU-only machine type)") == 1);
  CHECK(r.report.skipped.count(
            "GCP accelerator row with no fixed-GPU host row in the same zone (e.g. GPUs attached to N1 VMs)") == 1);
}

TEST_CASE("SkyPilot importer: a GCP machine-type GPU count no int holds is no fixed GPU set", "[unit][pricing]") {
  // Found by the CSV fuzzer: 'a2-highgpu-44444444444g' once converted 4.4e10 to int (UB).
  std::istringstream in(
      "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,SpotPrice\n"
      "a2-highgpu-44444444444g,96.0,680.0,,,,us-central1,us-central1-a,5.9,2.3\n"
      "a2-highgpu-65g,96.0,680.0,,,,us-central1,us-central1-a,5.9,2.3\n"
      "a2-highgpu-1.5g,96.0,680.0,,,,us-central1,us-central1-a,5.9,2.3\n");
  const m::ImportResult r = m::import_skypilot(in, "gcp", "x.csv", "2026-01-01");
  CHECK(r.instances.empty());
  CHECK(r.report.skipped.at("no GPU (CPU-only machine type)") == 3);
}

TEST_CASE("SkyPilot importer: Lambda layout and malformed input", "[unit][pricing]") {
  const m::ImportResult r = import_file("skypilot_lambda.csv", "lambda");
  REQUIRE(r.instances.size() == 1);
  CHECK(r.instances[0].gpu == "H100-SXM");
  CHECK(r.instances[0].on_demand_usd_per_hour == 23.92);
  CHECK_FALSE(r.instances[0].spot_usd_per_hour);
  CHECK(r.instances[0].billing.granularity == sim::minutes(1));

  std::istringstream missing("InstanceType,AcceleratorName,vCPUs,MemoryGiB,Price,Region\n");
  try {
    m::import_skypilot(missing, "lambda", "x.csv", "2026-01-01");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.code() == ErrorCode::MissingKey);
    CHECK(e.key_path() == "AcceleratorCount");
  }
  std::istringstream bad("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\nx,H100,8,2,8,cheap,r\n");
  try {
    m::import_skypilot(bad, "lambda", "x.csv", "2026-01-01");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.code() == ErrorCode::WrongType);
    CHECK(e.key_path() == "Price");
    CHECK(e.mark().line == 2);
  }
  std::istringstream any("a\n");
  CHECK_THROWS_AS(m::import_skypilot(any, "azure", "x.csv", "2026-01-01"), gcsim::Error);
  CHECK(m::skypilot_gpu_name("V100", 32768) == "V100-SXM2-32GB");
  CHECK(m::skypilot_gpu_name("K80", 12288).empty());
  for (const char* name : {"A100", "A100-80GB", "H100", "H200", "B200", "V100", "T4", "A10G", "A10", "L4", "L40S", "A6000", "GH200"})
    CHECK(gpus().find(m::skypilot_gpu_name(name, 0)) != nullptr);
}
