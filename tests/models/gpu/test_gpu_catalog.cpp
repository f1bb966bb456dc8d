// The GPU catalog: the bundled file's names and figures (checked against the reference
// table gpu_specs.csv), overriding by name, and every validation branch of the reader.
#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/gpu/gpu_catalog.hpp"
#include "models/gpu/gpu_spec.hpp"
#include "sim/config/config_node.hpp"
#include "sim/errors.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::models::GpuCatalog;
using gcsim::models::GpuSpec;
using gcsim::models::Precision;

namespace {

constexpr double TFLOPS = 1e12;
constexpr double GIB = 1024.0 * 1024.0 * 1024.0;
constexpr double GB_PER_S = 1e9;

const char* const BUNDLED = GCSIM_SOURCE_DIR "/scenarios/catalog/gpus.yaml";

GpuCatalog bundled() {
  const auto doc = gcsim::config::load_yaml_file(BUNDLED);
  GpuCatalog catalog;
  catalog.add_from(doc.root);
  return catalog;
}

// The lines of one catalog entry with every required key (and no optional one), followed
// by `extra` lines; doc_with() wraps entries into a document.
std::string entry_yaml(const std::string& name = "TestGPU", const std::string& extra = "") {
  return "    name: " + name +
         "\n"
         "    arch: Test\n"
         "    form_factor: PCIe\n"
         "    fp32: 10TFLOPS\n"
         "    memory: 16GiB\n"
         "    memory_bandwidth: 500GB/s\n"
         "    pcie: gen4\n"
         "    tdp: 200W\n"
         "    sources: unit test\n" +
         extra;
}

std::string doc_with(const std::string& entry) { return "gpus:\n  -\n" + entry; }

// Loads `text` into a fresh catalog (or `catalog`), returning the error code thrown.
ErrorCode error_code_of(const std::string& text, GpuCatalog catalog = GpuCatalog()) {
  const auto doc = gcsim::config::load_yaml_string(text, "test.yaml");
  try {
    catalog.add_from(doc.root);
  } catch (const ConfigError& e) {
    return e.code();
  }
  FAIL("no ConfigError thrown for:\n" << text);
  return ErrorCode::Syntax;
}

// Replaces the line starting with `key:` in the default entry.
std::string entry_with(const std::string& key, const std::string& value) {
  std::string e = entry_yaml();
  const std::string prefix = "    " + key + ":";
  const auto at = e.find(prefix);
  REQUIRE(at != std::string::npos);
  const auto end = e.find('\n', at);
  return e.replace(at, end - at, prefix + " " + value);
}

std::string entry_without(const std::string& key) {
  std::string e = entry_yaml();
  const auto at = e.find("    " + key + ":");
  REQUIRE(at != std::string::npos);
  return e.erase(at, e.find('\n', at) + 1 - at);
}

}  // namespace

TEST_CASE("precision names parse and print", "[unit]") {
  CHECK(gcsim::models::parse_precision("fp32") == Precision::Fp32);
  CHECK(gcsim::models::parse_precision("tf32") == Precision::Tf32);
  CHECK(gcsim::models::parse_precision("fp16") == Precision::Fp16);
  CHECK(gcsim::models::parse_precision("amp") == Precision::Fp16);
  CHECK(gcsim::models::parse_precision("bf16") == Precision::Bf16);
  CHECK(gcsim::models::parse_precision("fp8") == Precision::Fp8);
  for (const auto& name : gcsim::models::precision_names()) {
    const Precision p = gcsim::models::parse_precision(name);
    CHECK(gcsim::models::parse_precision(gcsim::models::precision_name(p)) == p);
  }
  CHECK(gcsim::models::precision_name(Precision::Fp16) == "fp16");
  CHECK(gcsim::models::precision_name(Precision::Bf16) == "bf16");
  REQUIRE_THROWS_AS(gcsim::models::parse_precision("fp64"), std::invalid_argument);
  REQUIRE_THROWS_AS(gcsim::models::parse_precision("FP32"), std::invalid_argument);
  REQUIRE_THROWS_AS(gcsim::models::parse_precision(""), std::invalid_argument);
}

TEST_CASE("peak_flop_per_s picks the rate of each precision", "[unit]") {
  GpuSpec s;
  s.fp32_flop_per_s = 1;
  s.tf32_flop_per_s = 2;
  s.fp16_flop_per_s = 3;
  s.bf16_flop_per_s = 4;
  CHECK(s.peak_flop_per_s(Precision::Fp32) == 1);
  CHECK(s.peak_flop_per_s(Precision::Tf32) == 2);
  CHECK(s.peak_flop_per_s(Precision::Fp16) == 3);
  CHECK(s.peak_flop_per_s(Precision::Bf16) == 4);
  CHECK(s.peak_flop_per_s(Precision::Fp8) == 0);
  CHECK(s.supports(Precision::Bf16));
  CHECK_FALSE(s.supports(Precision::Fp8));
}

TEST_CASE("the bundled catalog holds the 25 canonical GPUs", "[unit]") {
  const GpuCatalog catalog = bundled();
  const char* const names[] = {"T4",           "V100-SXM2-16GB", "V100-SXM2-32GB", "A10",
                               "A100-40GB-SXM", "A100-80GB-SXM", "A100-40GB-PCIe", "A100-80GB-PCIe",
                               "H100-SXM",      "H100-PCIe",     "H200",           "L40S",
                               "RTX-3090",      "RTX-4090",      "A10G",           "L4",
                               "H100-NVL",      "RTX-A6000",     "GH200",          "B200",
                               "P100-PCIe-16GB", "K80",          "L40",            "P100-PCIe-12GB",
                               "P40"};
  CHECK(catalog.entries().size() == 25);
  for (const char* name : names) {
    INFO(name);
    const GpuSpec* spec = catalog.find(name);
    REQUIRE(spec != nullptr);
    CHECK(spec->name == name);
  }

  SECTION("every entry is complete and cites its sources") {
    for (const GpuSpec& s : catalog.entries()) {
      INFO(s.name);
      CHECK(s.vendor == "NVIDIA");
      CHECK_FALSE(s.arch.empty());
      CHECK_FALSE(s.form_factor.empty());
      CHECK(s.fp32_flop_per_s > 0);
      CHECK(s.memory_bytes > 0);
      CHECK(s.memory_bytes_per_s > 0);
      CHECK(s.pcie_gen >= 3);
      CHECK(s.pcie_gen <= 5);
      CHECK(s.tdp_w > 0);
      CHECK(s.sources.size() > 20);
      // Tensor rates are never below plain FP32, and never present without fp16.
      if (s.tf32_flop_per_s > 0) CHECK(s.tf32_flop_per_s >= s.fp32_flop_per_s);
      // Only the K80 (Kepler) and the P40 (GP102: FP16 at 1/64 rate) have no faster half
      // precision: no fp16 rate, and no tensor rate.
      if (s.arch == "Kepler" || s.name == "P40") {
        CHECK(s.fp16_flop_per_s == 0);
        CHECK(s.tf32_flop_per_s == 0);
      } else {
        CHECK(s.fp16_flop_per_s > s.fp32_flop_per_s);
      }
    }
  }
  SECTION("canonical names and aliases are all distinct") {
    auto names = catalog.all_names();
    const auto count = names.size();
    std::sort(names.begin(), names.end());
    CHECK(std::unique(names.begin(), names.end()) == names.end());
    CHECK(count > 14);
  }
}

TEST_CASE("bundled aliases resolve to their canonical GPU", "[unit]") {
  const GpuCatalog catalog = bundled();
  const std::pair<const char*, const char*> aliases[] = {
      {"A100-SXM4-40GB", "A100-40GB-SXM"}, {"A100-SXM4-80GB", "A100-80GB-SXM"},
      {"A100-PCIe-40GB", "A100-40GB-PCIe"}, {"A100-PCIe-80GB", "A100-80GB-PCIe"},
      {"H100-SXM5-80GB", "H100-SXM"},      {"H100-PCIe-80GB", "H100-PCIe"},
      {"H200-SXM-141GB", "H200"},          {"V100-16GB", "V100-SXM2-16GB"},
      {"V100-32GB", "V100-SXM2-32GB"},     {"RTX4090", "RTX-4090"},
      // The names the PAI traces give (docs/traces.md).
      {"V100M16", "V100-SXM2-16GB"},       {"V100M32", "V100-SXM2-32GB"},
      {"P100", "P100-PCIe-16GB"},          {"Tesla-K80", "K80"},
      // Philly's 12 GB and 24 GB GPUs, by assumption (scenarios/catalog/gpus.yaml).
      {"P100-12GB", "P100-PCIe-12GB"},     {"P40-24GB", "P40"}};
  for (const auto& [alias, name] : aliases) {
    INFO(alias);
    const GpuSpec* spec = catalog.find(alias);
    REQUIRE(spec != nullptr);
    CHECK(spec->name == name);
    const auto all = catalog.all_names();
    CHECK(std::find(all.begin(), all.end(), alias) != all.end());
  }
  // Matching is exact; did-you-mean belongs to the scenario layer.
  CHECK(catalog.find("a100-40gb-sxm") == nullptr);
  CHECK(catalog.find("A100") == nullptr);
  CHECK(catalog.find("") == nullptr);
  // The AWS A10G is a different, slower part: its own entry, never an alias of A10.
  REQUIRE(catalog.find("A10G") != nullptr);
  CHECK(catalog.find("A10G")->name == "A10G");
}

TEST_CASE("bundled figures match the reference table", "[unit]") {
  const GpuCatalog catalog = bundled();
  const auto gpu = [&](const char* name) -> const GpuSpec& {
    const GpuSpec* s = catalog.find(name);
    REQUIRE(s != nullptr);
    return *s;
  };
  const auto exact = [](double v) { return Approx(v).epsilon(1e-12); };

  const GpuSpec& a100 = gpu("A100-40GB-SXM");
  CHECK(a100.fp32_flop_per_s == exact(19.5 * TFLOPS));
  CHECK(a100.tf32_flop_per_s == exact(156 * TFLOPS));
  CHECK(a100.fp16_flop_per_s == exact(312 * TFLOPS));
  CHECK(a100.bf16_flop_per_s == exact(312 * TFLOPS));
  CHECK_FALSE(a100.supports(Precision::Fp8));
  CHECK(a100.memory_bytes == exact(40 * GIB));
  CHECK(a100.memory_bytes_per_s == exact(1555 * GB_PER_S));
  CHECK(a100.nvlink_bytes_per_s == exact(300 * GB_PER_S));
  CHECK(a100.pcie_gen == 4);
  CHECK(a100.tdp_w == exact(400));
  CHECK(a100.form_factor == "SXM4");
  CHECK(a100.arch == "Ampere");

  CHECK(gpu("A100-80GB-SXM").memory_bytes == exact(80 * GIB));
  CHECK(gpu("A100-80GB-SXM").memory_bytes_per_s == exact(2039 * GB_PER_S));
  CHECK(gpu("A100-80GB-PCIe").memory_bytes_per_s == exact(1935 * GB_PER_S));
  CHECK(gpu("A100-40GB-PCIe").tdp_w == exact(250));
  CHECK(gpu("A100-80GB-PCIe").tdp_w == exact(300));
  // PCIe cards: the optional pair bridge is not a server-wide NVLink.
  CHECK(gpu("A100-40GB-PCIe").nvlink_bytes_per_s == 0);
  CHECK(gpu("H100-PCIe").nvlink_bytes_per_s == 0);
  CHECK(gpu("RTX-3090").nvlink_bytes_per_s == 0);

  const GpuSpec& h100 = gpu("H100-SXM");
  CHECK(h100.fp32_flop_per_s == exact(67 * TFLOPS));
  CHECK(h100.tf32_flop_per_s == exact(494.5 * TFLOPS));
  CHECK(h100.bf16_flop_per_s == exact(989 * TFLOPS));
  CHECK(h100.peak_flop_per_s(Precision::Fp8) == exact(1979 * TFLOPS));
  CHECK(h100.memory_bytes_per_s == exact(3350 * GB_PER_S));
  CHECK(h100.nvlink_bytes_per_s == exact(450 * GB_PER_S));
  CHECK(h100.pcie_gen == 5);
  CHECK(h100.tdp_w == exact(700));

  const GpuSpec& h100p = gpu("H100-PCIe");
  CHECK(h100p.fp16_flop_per_s == exact(756 * TFLOPS));
  CHECK(h100p.fp8_flop_per_s == exact(1513 * TFLOPS));
  CHECK(h100p.memory_bytes_per_s == exact(2000 * GB_PER_S));

  const GpuSpec& h200 = gpu("H200");
  CHECK(h200.memory_bytes == exact(141 * GIB));
  CHECK(h200.memory_bytes_per_s == exact(4800 * GB_PER_S));
  CHECK(h200.bf16_flop_per_s == exact(989 * TFLOPS));

  const GpuSpec& t4 = gpu("T4");
  CHECK_FALSE(t4.supports(Precision::Tf32));
  CHECK_FALSE(t4.supports(Precision::Bf16));
  CHECK_FALSE(t4.supports(Precision::Fp8));
  CHECK(t4.fp32_flop_per_s == exact(8.1 * TFLOPS));
  CHECK(t4.fp16_flop_per_s == exact(65 * TFLOPS));
  CHECK(t4.pcie_gen == 3);
  CHECK(t4.tdp_w == exact(70));
  CHECK(t4.nvlink_bytes_per_s == 0);

  const GpuSpec& v100 = gpu("V100-SXM2-16GB");
  CHECK(v100.fp16_flop_per_s == exact(125 * TFLOPS));
  CHECK_FALSE(v100.supports(Precision::Tf32));
  CHECK_FALSE(v100.supports(Precision::Bf16));
  CHECK(v100.memory_bytes_per_s == exact(900 * GB_PER_S));
  CHECK(v100.nvlink_bytes_per_s == exact(150 * GB_PER_S));
  CHECK(gpu("V100-SXM2-32GB").memory_bytes == exact(32 * GIB));

  CHECK(gpu("A10").tf32_flop_per_s == exact(62.5 * TFLOPS));
  CHECK(gpu("A10").fp16_flop_per_s == exact(125 * TFLOPS));
  CHECK(gpu("L40S").fp8_flop_per_s == exact(733 * TFLOPS));
  CHECK(gpu("L40S").memory_bytes_per_s == exact(864 * GB_PER_S));
  // GeForce: the FP32-accumulate tensor rates, half the FP16-accumulate headline.
  CHECK(gpu("RTX-3090").fp16_flop_per_s == exact(71 * TFLOPS));
  CHECK_FALSE(gpu("RTX-3090").supports(Precision::Fp8));
  CHECK(gpu("RTX-4090").fp16_flop_per_s == exact(165 * TFLOPS));
  CHECK(gpu("RTX-4090").fp8_flop_per_s == exact(330 * TFLOPS));
  CHECK(gpu("RTX-4090").memory_bytes_per_s == exact(1008 * GB_PER_S));

  // Figures the reference table marks as unverified keep that mark.
  CHECK(gpu("L40S").sources.find("not verified") != std::string::npos);
  CHECK(gpu("RTX-3090").sources.find("not verified") != std::string::npos);
  CHECK(gpu("A100-40GB-PCIe").notes.find("not verified") != std::string::npos);
}

TEST_CASE("a later file overrides a GPU by name and may add new ones", "[unit]") {
  GpuCatalog catalog = bundled();
  const auto before = catalog.entries().size();
  const auto doc = gcsim::config::load_yaml_string(
      "gpus:\n"
      "  - name: A100-40GB-SXM\n"
      "    aliases: [A100-SXM4-40GB, my-a100]\n"
      "    arch: Ampere\n"
      "    form_factor: SXM4\n"
      "    fp32: 19.5TFLOPS\n"
      "    bf16: 300TFLOPS\n"
      "    memory: 40GiB\n"
      "    memory_bandwidth: 1555GB/s\n"
      "    pcie: gen4\n"
      "    tdp: 350W\n"
      "    sources: measured in our lab\n"
      "  - name: MyGPU\n"
      "    vendor: Acme\n"
      "    arch: Hypothetical\n"
      "    form_factor: OAM\n"
      "    fp32: 50TFLOPS\n"
      "    tf32: 0\n"
      "    fp16: 400TFLOPS\n"
      "    memory: 96GiB\n"
      "    memory_bandwidth: 4TB/s\n"
      "    nvlink: 0\n"
      "    pcie: gen5\n"
      "    tdp: 1kW\n"
      "    sources: invented for a test\n"
      "    notes: not a real part\n",
      "user.yaml");
  catalog.add_from(doc.root);

  CHECK(catalog.entries().size() == before + 1);
  const GpuSpec* a100 = catalog.find("A100-40GB-SXM");
  REQUIRE(a100 != nullptr);
  CHECK(a100->tdp_w == Approx(350));
  CHECK(a100->bf16_flop_per_s == Approx(300e12));
  CHECK(a100->tf32_flop_per_s == 0);  // replaced whole: keys left out are gone
  CHECK(a100->sources == "measured in our lab");
  CHECK(catalog.find("my-a100") == a100);
  CHECK(catalog.find("A100-SXM4-40GB") == a100);

  const GpuSpec* mine = catalog.find("MyGPU");
  REQUIRE(mine != nullptr);
  CHECK(mine->vendor == "Acme");
  CHECK_FALSE(mine->supports(Precision::Tf32));
  CHECK(mine->nvlink_bytes_per_s == 0);
  CHECK(mine->tdp_w == Approx(1000));
  CHECK(mine->memory_bytes_per_s == Approx(4e12));
  CHECK(mine->notes == "not a real part");
  CHECK(mine->aliases.empty());
  CHECK(mine->pcie_gen == 5);
}

TEST_CASE("an override may drop an alias that another new entry then takes", "[unit]") {
  GpuCatalog catalog = bundled();
  const auto doc = gcsim::config::load_yaml_string(
      doc_with(entry_yaml("A100-40GB-SXM")) + "  -\n" + entry_yaml("Other", "    aliases: [A100-SXM4-40GB]\n"),
      "user.yaml");
  catalog.add_from(doc.root);
  REQUIRE(catalog.find("A100-SXM4-40GB") != nullptr);
  CHECK(catalog.find("A100-SXM4-40GB")->name == "Other");
}

TEST_CASE("entries written in plain SI units read back exactly", "[unit]") {
  // The form a trace's provenance uses: bare FLOP/s, bytes and bytes/s, 0 for unsupported.
  GpuCatalog catalog;
  catalog.add_from(gcsim::config::load_yaml_string("gpus:\n"
                                                   "  - name: \"A100-40GB-SXM\"\n"
                                                   "    arch: \"Ampere\"\n"
                                                   "    form_factor: \"SXM4\"\n"
                                                   "    fp32: 19500000000000\n"
                                                   "    tf32: 0\n"
                                                   "    fp16: 3.12e+14\n"
                                                   "    memory: 42949672960B\n"
                                                   "    memory_bandwidth: 1555000000000B/s\n"
                                                   "    nvlink: 300000000000B/s\n"
                                                   "    pcie: gen4\n"
                                                   "    tdp: 400W\n"
                                                   "    sources: \"s\"\n",
                                                   "provenance.yaml")
                       .root);
  const GpuSpec* s = catalog.find("A100-40GB-SXM");
  REQUIRE(s != nullptr);
  CHECK(s->fp32_flop_per_s == 19.5e12);
  CHECK(s->tf32_flop_per_s == 0);
  CHECK(s->fp16_flop_per_s == 312e12);
  CHECK(s->memory_bytes == 40 * GIB);
  CHECK(s->memory_bytes_per_s == 1555e9);
  CHECK(s->nvlink_bytes_per_s == 300e9);
}

TEST_CASE("an empty gpus list adds nothing", "[unit]") {
  GpuCatalog catalog;
  catalog.add_from(gcsim::config::load_yaml_string("gpus: []\n", "a.yaml").root);
  catalog.add_from(gcsim::config::load_yaml_string("gpus:\n", "b.yaml").root);
  CHECK(catalog.entries().empty());
  CHECK(catalog.all_names().empty());
}

TEST_CASE("catalog files are read strictly", "[unit]") {
  SECTION("the document must be a map") {
    CHECK(error_code_of("- a\n- b\n") == ErrorCode::WrongType);
  }
  SECTION("gpus is required") {
    CHECK(error_code_of("other: 1\n") == ErrorCode::MissingKey);
    CHECK(error_code_of("{}\n") == ErrorCode::MissingKey);
  }
  SECTION("unknown top-level key") {
    CHECK(error_code_of(doc_with(entry_yaml()) + "gpuz: []\n") == ErrorCode::UnknownKey);
  }
  SECTION("gpus must be a list of maps") {
    CHECK(error_code_of("gpus: {name: T4}\n") == ErrorCode::WrongType);
    CHECK(error_code_of("gpus: T4\n") == ErrorCode::WrongType);
    CHECK(error_code_of("gpus: [T4]\n") == ErrorCode::WrongType);
  }
  SECTION("every required key") {
    for (const char* key : {"name", "arch", "form_factor", "fp32", "memory", "memory_bandwidth", "pcie", "tdp",
                            "sources"}) {
      INFO(key);
      CHECK(error_code_of(doc_with(entry_without(key))) == ErrorCode::MissingKey);
    }
  }
  SECTION("unknown entry key, with its path") {
    const auto doc = gcsim::config::load_yaml_string(doc_with(entry_yaml("A")) + "  -\n" +
                                                         entry_yaml("B", "    tdpp: 300W\n"),
                                                     "test.yaml");
    GpuCatalog catalog;
    try {
      catalog.add_from(doc.root);
      FAIL("expected UnknownKey");
    } catch (const ConfigError& e) {
      CHECK(e.code() == ErrorCode::UnknownKey);
      CHECK(e.key_path().find("gpus[1]") == 0);
      CHECK(e.mark().file == "test.yaml");
      CHECK(e.mark().line > 0);
    }
  }
  SECTION("wrong types") {
    CHECK(error_code_of(doc_with(entry_with("fp32", "{value: 10TFLOPS}"))) == ErrorCode::WrongType);
    CHECK(error_code_of(doc_with(entry_with("name", "[a, b]"))) == ErrorCode::WrongType);
    CHECK(error_code_of(doc_with(entry_with("sources", "{a: b}"))) == ErrorCode::WrongType);
    CHECK(error_code_of(doc_with(entry_yaml("X", "    aliases: X2\n"))) == ErrorCode::WrongType);
    CHECK(error_code_of(doc_with(entry_yaml("X", "    aliases: [{a: b}]\n"))) == ErrorCode::WrongType);
    CHECK(error_code_of(doc_with(entry_yaml("X", "    notes: [a]\n"))) == ErrorCode::WrongType);
  }
  SECTION("bad units") {
    CHECK(error_code_of(doc_with(entry_with("fp32", "10 parsecs"))) == ErrorCode::BadUnit);
    CHECK(error_code_of(doc_with(entry_yaml("X", "    bf16: 100TB/s\n"))) == ErrorCode::BadUnit);
    CHECK(error_code_of(doc_with(entry_with("memory", "16 furlongs"))) == ErrorCode::BadUnit);
    CHECK(error_code_of(doc_with(entry_with("memory", "16"))) == ErrorCode::BadUnit);
    CHECK(error_code_of(doc_with(entry_with("memory_bandwidth", "500GB"))) == ErrorCode::BadUnit);
    CHECK(error_code_of(doc_with(entry_yaml("X", "    nvlink: 300W\n"))) == ErrorCode::BadUnit);
    CHECK(error_code_of(doc_with(entry_with("tdp", "200GB"))) == ErrorCode::BadUnit);
  }
  SECTION("fp32 and tdp must be positive") {
    CHECK(error_code_of(doc_with(entry_with("fp32", "0TFLOPS"))) == ErrorCode::OutOfRange);
    CHECK(error_code_of(doc_with(entry_with("tdp", "0W"))) == ErrorCode::OutOfRange);
  }
  SECTION("pcie is gen3, gen4 or gen5") {
    CHECK(error_code_of(doc_with(entry_with("pcie", "gen6"))) == ErrorCode::UnknownName);
    CHECK(error_code_of(doc_with(entry_with("pcie", "4"))) == ErrorCode::UnknownName);
    CHECK(error_code_of(doc_with(entry_with("pcie", "Gen4"))) == ErrorCode::UnknownName);
  }
}

TEST_CASE("names and aliases are unique", "[unit]") {
  SECTION("the same name twice in one file") {
    CHECK(error_code_of(doc_with(entry_yaml("X")) + "  -\n" + entry_yaml("X")) == ErrorCode::Duplicate);
  }
  SECTION("an alias naming another entry of the file") {
    CHECK(error_code_of(doc_with(entry_yaml("X")) + "  -\n" + entry_yaml("Y", "    aliases: [X]\n")) ==
          ErrorCode::Duplicate);
    CHECK(error_code_of(doc_with(entry_yaml("X", "    aliases: [Y]\n")) + "  -\n" + entry_yaml("Y")) ==
          ErrorCode::Duplicate);
  }
  SECTION("an alias repeated, or equal to its own name") {
    CHECK(error_code_of(doc_with(entry_yaml("X", "    aliases: [x1, x1]\n"))) == ErrorCode::Duplicate);
    CHECK(error_code_of(doc_with(entry_yaml("X", "    aliases: [X]\n"))) == ErrorCode::Duplicate);
  }
  SECTION("across files: an alias that names another GPU") {
    CHECK(error_code_of(doc_with(entry_yaml("X", "    aliases: [H100-SXM]\n")), bundled()) == ErrorCode::Duplicate);
    CHECK(error_code_of(doc_with(entry_yaml("X", "    aliases: [H100-SXM5-80GB]\n")), bundled()) ==
          ErrorCode::Duplicate);
  }
  SECTION("across files: a name that is another GPU's alias") {
    CHECK(error_code_of(doc_with(entry_yaml("A100-SXM4-40GB")), bundled()) == ErrorCode::Duplicate);
  }
  SECTION("a rejected file leaves the catalog untouched") {
    GpuCatalog catalog = bundled();
    const auto doc = gcsim::config::load_yaml_string(
        doc_with(entry_yaml("T4")) + "  -\n" + entry_yaml("New", "    aliases: [H200]\n"), "bad.yaml");
    REQUIRE_THROWS_AS(catalog.add_from(doc.root), ConfigError);
    CHECK(catalog.entries().size() == 25);
    CHECK(catalog.find("New") == nullptr);
    CHECK(catalog.find("T4")->arch == "Turing");
  }
}

TEST_CASE("GpuCatalog::add replaces by name and refuses clashes", "[unit]") {
  GpuCatalog catalog;
  GpuSpec a;
  a.name = "A";
  a.aliases = {"a1"};
  catalog.add(a);
  GpuSpec a2 = a;
  a2.tdp_w = 123;
  a2.aliases = {};
  catalog.add(a2);
  CHECK(catalog.entries().size() == 1);
  CHECK(catalog.find("A")->tdp_w == 123);
  CHECK(catalog.find("a1") == nullptr);

  GpuSpec b;
  b.name = "B";
  b.aliases = {"A"};
  REQUIRE_THROWS_AS(catalog.add(b), std::invalid_argument);
  b.aliases = {"b1", "b1"};
  REQUIRE_THROWS_AS(catalog.add(b), std::invalid_argument);
  REQUIRE_THROWS_AS(catalog.add(GpuSpec{}), std::invalid_argument);
  CHECK(catalog.entries().size() == 1);
}
