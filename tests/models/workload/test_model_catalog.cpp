// The model catalog: bundled figures against their sources and the transformer formulas
// computed by hand, and every validation branch of the reader.
#include <catch2/catch.hpp>

#include <string>

#include "tests/models/workload/calibration_rows.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::models::ModelCatalog;
using gcsim::models::resolve;

namespace {

ErrorCode catalog_error(const std::string& yaml) {
  ModelCatalog c;
  try {
    c.add_from(gcsim::config::load_yaml_string(yaml, "models.yaml").root);
  } catch (const ConfigError& e) {
    return e.code();
  }
  FAIL("no ConfigError for:\n" << yaml);
  return ErrorCode::Syntax;
}

const std::string FIXED =
    "models:\n  - name: m\n    forward_flop: 1G\n    tensor_fraction: 0.9\n    memory_traffic: 1MB\n"
    "    params: 1M\n    activations: 1MB\n    kernels_per_step: 10\n    sources: test\n";

}  // namespace

TEST_CASE("Bundled model catalog matches its sources", "[unit][catalog]") {
  const auto& c = gcsim::test::bundled_models();
  const auto* rn = c.find_model("resnet50");
  REQUIRE(rn != nullptr);
  CHECK(c.find_model("rn50") == rn);
  CHECK(rn->params == Approx(25'557'032));
  CHECK(rn->forward_flop_per_sample == Approx(2 * 4.09e9));
  for (const char* name : {"bert-large", "gpt2-xl", "gpt3-6.7b", "vit-b16", "yolov5s"}) CHECK(c.find_model(name));

  // ViT-B/16: torchvision gives 86,567,656 parameters and 17.56 GMACs.
  const auto vit = resolve(*c.find_model("vit-b16"));
  CHECK(vit.params == Approx(86'567'656).epsilon(0.001));
  CHECK(vit.forward_flop == Approx(2 * 17.56e9).epsilon(0.01));
  // BERT-large: about 335M parameters (Devlin et al. 2019 round it to 340M).
  CHECK(resolve(*c.find_model("bert-large")).params == Approx(335.1e6).epsilon(0.005));
  // GPT-2 XL: 1.5B.
  CHECK(resolve(*c.find_model("gpt2-xl")).params == Approx(1.56e9).epsilon(0.01));

  const auto* imagenet = c.find_dataset("imagenet-1k");
  REQUIRE(imagenet != nullptr);
  CHECK(imagenet->samples == 1'281'167);
  CHECK(imagenet->file_bytes == Approx(109e3));
}

TEST_CASE("Grouped-query attention and a gated MLP change the figures as counted by hand", "[unit][catalog]") {
  // L = 2, h = 64, a = 8 (d = 8), kv = 2, ffn = 128, V = 100, s = 16, untied head.
  const std::string yaml = "models:\n  - {name: t, sources: s, transformer: {layers: 2, hidden: 64, heads: 8, kv_heads: 2, "
                           "mlp: gated, ffn: 128, tie_embeddings: false, vocab: 100, seq_len: 16}}\n";
  ModelCatalog c;
  c.add_from(gcsim::config::load_yaml_string(yaml, "models.yaml").root);
  const auto& m = *c.find_model("t");
  REQUIRE(m.transformer->kv_heads == 2);
  const auto f = resolve(m);
  // Matrices per layer: Q and O 2·64² = 8192, K and V 2·64·(2·8) = 2048, MLP 3·64·128 = 24,576
  // -> 34,816; biases/norms 9·64 + 128 = 704; two layers 71,040; embedding and head 2·100·64.
  CHECK(f.params == 2 * (8192 + 2048 + 24'576) + 2 * 704 + 2 * 100 * 64);
  CHECK(m.transformer->layer_matmul_params() == 2 * 34'816);
  // FLOPs per layer: 4sh²(1 + g) = 4·16·4096·1.25 = 327,680; attention 4s²h = 65,536;
  // MLP 2·3·s·h·ffn = 786,432 -> 1,179,648; head 2·16·64·100 = 204,800.
  CHECK(f.forward_flop == 2 * 1'179'648 + 204'800);
  // Activations: L·s·h·(18 + 2·3·128/64 − 4·(1 − 0.25) + 5·8·16/64) = 2·16·64·(18 + 12 − 3 + 10).
  CHECK(f.activation_bytes == Approx(2 * 16 * 64 * 37.0));
  // Defaults: kv_heads = heads, plain MLP, tied embeddings, as every entry before them.
  const std::string plain = "models:\n  - {name: p, sources: s, transformer: {layers: 2, hidden: 64, heads: 8, vocab: 100, "
                            "seq_len: 16}}\n";
  ModelCatalog d;
  d.add_from(gcsim::config::load_yaml_string(plain, "models.yaml").root);
  const auto& shape = *d.find_model("p")->transformer;
  CHECK(shape.kv_heads == 8);
  CHECK(shape.mlp == gcsim::models::MlpForm::Plain);
  CHECK(shape.tie_embeddings);
  CHECK(resolve(*d.find_model("p")).params == 2 * (12 * 64 * 64 + 13 * 64) + 100 * 64);
}

TEST_CASE("Transformer FLOPs scale with sequence length as the formula says", "[unit][catalog]") {
  const auto& bert = *gcsim::test::bundled_models().find_model("bert-large");
  const double h = 1024, L = 24, V = 30522;
  for (int s : {128, 512}) {
    const auto f = resolve(bert, s);
    // Narayanan et al. 2021: forward = 24·L·s·h²·(1 + s/6h) + 2·s·h·V·(masked share).
    const double expected = 24 * L * s * h * h * (1 + s / (6 * h)) + 2 * s * h * V * 0.15;
    CHECK(f.forward_flop == Approx(expected));
    CHECK(f.tokens == s);
    // Korthikanti et al. 2022: L·s·h·(34 + 5·a·s/h) bytes.
    CHECK(f.activation_bytes == Approx(L * s * h * (34 + 5 * 16.0 * s / h)));
  }
  // Training FLOPs ≈ 6·N·tokens + 12·L·h·s² (Kaplan et al. 2020 plus attention).
  const auto gpt = resolve(*gcsim::test::bundled_models().find_model("gpt3-6.7b"));
  const double n_layers = 32 * 12 * 4096.0 * 4096.0;
  const double s = 2048;
  CHECK(3 * gpt.forward_flop == Approx(6 * n_layers * s + 12 * 32 * 4096.0 * s * s + 6 * s * 4096 * 50257));
  CHECK_THROWS_AS(resolve(bert, 1024), std::invalid_argument);
  CHECK_THROWS_AS(resolve(*gcsim::test::bundled_models().find_model("resnet50"), 128), std::invalid_argument);
}

TEST_CASE("Model catalog reader refuses bad entries", "[unit][catalog]") {
  ModelCatalog ok;
  ok.add_from(gcsim::config::load_yaml_string(FIXED, "m.yaml").root);
  REQUIRE(ok.find_model("m"));

  SECTION("unknown key") { CHECK(catalog_error(FIXED + "    flops: 3\n") == ErrorCode::UnknownKey); }
  SECTION("missing sources") {
    std::string y = FIXED;
    y.replace(y.find("    sources: test\n"), 18, "");
    CHECK(catalog_error(y) == ErrorCode::MissingKey);
  }
  SECTION("neither figures nor shape") {
    CHECK(catalog_error("models:\n  - {name: x, sources: s}\n") == ErrorCode::MissingKey);
  }
  SECTION("figures and shape") {
    CHECK(catalog_error(FIXED + "    transformer: {layers: 1, hidden: 8, heads: 2, seq_len: 4}\n") == ErrorCode::Conflict);
  }
  SECTION("derived figure given on a transformer") {
    CHECK(catalog_error("models:\n  - {name: t, sources: s, params: 5, transformer: {layers: 1, hidden: 8, heads: 2, "
                        "seq_len: 4}}\n") == ErrorCode::Conflict);
  }
  SECTION("heads do not divide hidden") {
    CHECK(catalog_error("models:\n  - {name: t, sources: s, transformer: {layers: 1, hidden: 10, heads: 3, seq_len: 4}}\n") ==
          ErrorCode::Conflict);
  }
  SECTION("attention neither causal nor bidirectional") {
    const std::string y = "models:\n  - {name: t, sources: s, transformer: {layers: 1, hidden: 8, heads: 2, seq_len: 4, "
                          "attention: sideways}}\n";
    CHECK(catalog_error(y) == ErrorCode::UnknownName);
  }
  SECTION("kv_heads that do not divide heads, or exceed them") {
    CHECK(catalog_error("models:\n  - {name: t, sources: s, transformer: {layers: 1, hidden: 8, heads: 4, kv_heads: 3, "
                        "seq_len: 4}}\n") == ErrorCode::Conflict);
    CHECK(catalog_error("models:\n  - {name: t, sources: s, transformer: {layers: 1, hidden: 8, heads: 4, kv_heads: 8, "
                        "seq_len: 4}}\n") == ErrorCode::Conflict);
    CHECK(catalog_error("models:\n  - {name: t, sources: s, transformer: {layers: 1, hidden: 8, heads: 4, kv_heads: 0, "
                        "seq_len: 4}}\n") == ErrorCode::OutOfRange);
  }
  SECTION("an MLP form that does not exist") {
    CHECK(catalog_error("models:\n  - {name: t, sources: s, transformer: {layers: 1, hidden: 8, heads: 4, mlp: gelu, "
                        "seq_len: 4}}\n") == ErrorCode::UnknownName);
  }
  SECTION("tie_embeddings not a bool") {
    CHECK(catalog_error("models:\n  - {name: t, sources: s, transformer: {layers: 1, hidden: 8, heads: 4, "
                        "tie_embeddings: maybe, seq_len: 4}}\n") == ErrorCode::WrongType);
  }
  SECTION("max_seq_len below seq_len") {
    CHECK(catalog_error("models:\n  - {name: t, sources: s, transformer: {layers: 1, hidden: 8, heads: 2, seq_len: 4, "
                        "max_seq_len: 2}}\n") == ErrorCode::OutOfRange);
  }
  SECTION("fraction out of range") {
    std::string y = FIXED;
    y.replace(y.find("0.9"), 3, "1.5");
    CHECK(catalog_error(y) == ErrorCode::OutOfRange);
  }
  SECTION("bytes without a unit") {
    std::string y = FIXED;
    y.replace(y.find("memory_traffic: 1MB"), 19, "memory_traffic: 1000");
    CHECK(catalog_error(y) == ErrorCode::BadUnit);
  }
  SECTION("duplicate in one file") {
    CHECK(catalog_error(FIXED + FIXED.substr(8)) == ErrorCode::Duplicate);
  }
  SECTION("alias of another model") {
    ModelCatalog c = gcsim::test::bundled_models();
    CHECK_THROWS_AS(c.add_from(gcsim::config::load_yaml_string(
                        "models:\n  - {name: x, aliases: [rn50], sources: s, transformer: {layers: 1, hidden: 8, "
                        "heads: 2, seq_len: 4}}\n", "u.yaml").root),
                    ConfigError);
  }
  SECTION("dataset without samples") {
    CHECK(catalog_error("datasets:\n  - {name: d, size: 1GB, sources: s}\n") == ErrorCode::MissingKey);
  }
  SECTION("override by name replaces") {
    ModelCatalog c = gcsim::test::bundled_models();
    std::string y = FIXED;
    y.replace(y.find("name: m"), 7, "name: resnet50");
    c.add_from(gcsim::config::load_yaml_string(y, "u.yaml").root);
    CHECK(c.find_model("resnet50")->params == 1e6);
  }
}

TEST_CASE("Anchors: read, resolved against the GPU catalog, and refused when wrong", "[unit][catalog]") {
  const auto& gpus = gcsim::test::gpu_catalog();
  const auto anchor_error = [&](const std::string& anchor) {
    ModelCatalog c;
    try {
      c.add_from(gcsim::config::load_yaml_string(FIXED + "    anchors:\n      - " + anchor + "\n", "m.yaml").root, &gpus);
    } catch (const ConfigError& e) {
      return e.code();
    }
    FAIL("no ConfigError for anchor " << anchor);
    return ErrorCode::Syntax;
  };
  const std::string good = "{gpu: V100-SXM2-16GB, precision: amp, batch_per_gpu: 8, samples_per_s: 100, source: s";
  SECTION("the bundled entries carry their V100 rows") {
    const auto& rn = *gcsim::test::bundled_models().find_model("resnet50");
    REQUIRE(rn.anchors.size() == 2);
    CHECK(rn.anchors[1].gpu.name == "V100-SXM2-16GB");
    CHECK(rn.anchors[1].precision == gcsim::models::Precision::Fp16);
    CHECK(rn.anchors[1].batch_per_gpu == 256);
    CHECK(rn.anchors[1].samples_per_s == 1200);
    CHECK(rn.anchors[1].host_cores == 40);
    const auto& bert = *gcsim::test::bundled_models().find_model("bert-large");
    REQUIRE(bert.anchors.size() == 4);
    CHECK(bert.anchors[3].seq_len == 512);
    CHECK(bert.anchors[3].grad_accum == 256);
  }
  SECTION("a well-formed anchor with defaults") {
    ModelCatalog c;
    c.add_from(gcsim::config::load_yaml_string(FIXED + "    anchors:\n      - " + good + "}\n", "m.yaml").root, &gpus);
    const auto& a = c.find_model("m")->anchors.at(0);
    CHECK(a.gpus == 1);
    CHECK(a.gpus_per_node == 8);
    CHECK(a.host_cores == 0);
    CHECK(a.grad_accum == 1);
    CHECK(a.seq_len == 0);
  }
  SECTION("unknown key") { CHECK(anchor_error(good + ", gpuz: 2}") == ErrorCode::UnknownKey); }
  SECTION("missing measurement") {
    CHECK(anchor_error("{gpu: V100-SXM2-16GB, precision: amp, batch_per_gpu: 8, source: s}") == ErrorCode::MissingKey);
  }
  SECTION("unknown GPU") { CHECK(anchor_error("{gpu: V101, precision: amp, batch_per_gpu: 8, samples_per_s: 1, source: s}") ==
                                 ErrorCode::UnknownName); }
  SECTION("precision the GPU lacks") {
    CHECK(anchor_error("{gpu: V100-SXM2-16GB, precision: tf32, batch_per_gpu: 8, samples_per_s: 1, source: s}") ==
          ErrorCode::Conflict);
  }
  SECTION("seq_len on a CNN") { CHECK(anchor_error(good + ", seq_len: 128}") == ErrorCode::Conflict); }
  SECTION("throughput not positive") {
    CHECK(anchor_error("{gpu: V100-SXM2-16GB, precision: amp, batch_per_gpu: 8, samples_per_s: 0, source: s}") ==
          ErrorCode::OutOfRange);
  }
  SECTION("batch zero") {
    CHECK(anchor_error("{gpu: V100-SXM2-16GB, precision: amp, batch_per_gpu: 0, samples_per_s: 1, source: s}") ==
          ErrorCode::OutOfRange);
  }
  SECTION("not a list") {
    ModelCatalog c;
    CHECK_THROWS_AS(c.add_from(gcsim::config::load_yaml_string(FIXED + "    anchors: " + good + "}\n", "m.yaml").root, &gpus),
                    ConfigError);
  }
  SECTION("without a GPU catalog (an inline model) anchors are refused") {
    CHECK(catalog_error(FIXED + "    anchors:\n      - " + good + "}\n") == ErrorCode::Conflict);
  }
}
