// parse_training: model-described jobs (docs/step-time.md) as written, the amount of work in each form, and every
// validation branch (REQUIRE_THROWS_AS + the stable error code).
#include <catch2/catch.hpp>

#include <string>

#include "models/storage/storage_spec.hpp"
#include "tests/models/workload/calibration_rows.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::models::DataAccess;
using gcsim::models::Optimizer;
using gcsim::models::parse_training;
using gcsim::models::Precision;
using gcsim::models::TrainingSpec;

namespace {

// Reads one job map the way the scenario loader does: name and gpus are the caller's.
TrainingSpec job_from(const std::string& yaml) {
  const auto doc = gcsim::config::load_yaml_string(yaml, "job.yaml");
  gcsim::config::MapReader r(doc.root);
  if (const auto* name = r.optional("name")) (void)gcsim::config::read_string(*name);
  const int gpus = static_cast<int>(gcsim::config::read_int(r.required("gpus"), 1, 1 << 20));
  TrainingSpec t = parse_training(r, gcsim::test::bundled_models(), gpus);
  r.finish();
  return t;
}

ErrorCode job_error(const std::string& yaml) {
  try {
    job_from(yaml);
  } catch (const ConfigError& e) {
    return e.code();
  }
  FAIL("no ConfigError for:\n" << yaml);
  return ErrorCode::Syntax;
}

const std::string RN50 = "{name: rn50, model: resnet50, precision: amp, batch_per_gpu: 256, gpus: 8, ";

}  // namespace

TEST_CASE("Model-described jobs parse as written", "[unit][training]") {
  const std::string yaml = R"(
workload:
  jobs:
    - name: rn50
      model: resnet50
      precision: amp
      batch_per_gpu: 256
      gpus: 8
      samples: 115.3M            # or epochs: 90 with dataset: imagenet-1k
      dataset: {name: imagenet-1k, tier: local-nvme}
    - name: bert-phase1
      model: bert-large
      seq_len: 128
      precision: tf32
      batch_per_gpu: 128
      gpus: 16
      samples: 50M
)";
  const auto doc = gcsim::config::load_yaml_string(yaml, "jobs.yaml");
  const auto& jobs = doc.root.find("workload")->find("jobs")->items();
  std::vector<TrainingSpec> specs;
  for (const auto& j : jobs) {
    gcsim::config::MapReader r(j);
    (void)r.required("name");
    const int gpus = static_cast<int>(gcsim::config::read_int(r.required("gpus"), 1, 64));
    specs.push_back(parse_training(r, gcsim::test::bundled_models(), gpus));
    r.finish();
  }
  REQUIRE(specs.size() == 2);
  CHECK(specs[0].model.name == "resnet50");
  CHECK(specs[0].precision == Precision::Fp16);
  CHECK(specs[0].total_samples == Approx(115.3e6));
  CHECK(specs[0].parallel.data == 8);
  REQUIRE(specs[0].dataset);
  CHECK(specs[0].dataset->tier == "local-nvme");
  CHECK(specs[0].dataset->samples == 1'281'167);
  CHECK(specs[0].epoch_samples() == 1'281'167);
  CHECK(specs[1].seq_len == 128);
  CHECK(specs[1].precision == Precision::Tf32);
  CHECK(specs[1].parallel.data == 16);
  CHECK(specs[1].optimizer == Optimizer::Adam);
}

TEST_CASE("Amount of work, parallelism, dataset forms", "[unit][training]") {
  CHECK(job_from(RN50 + "epochs: 90, dataset: imagenet-1k}").total_samples == Approx(90.0 * 1'281'167));
  const auto gpt = job_from("{model: gpt2-xl, precision: bf16, batch_per_gpu: 4, gpus: 16, tokens: 300G, "
                            "parallelism: {tensor: 2, pipeline: 2, zero: 1}, optimizer: adamw}");
  CHECK(gpt.total_samples == Approx(300e9 / 1024));
  CHECK(gpt.parallel.data == 4);
  CHECK(gpt.parallel.zero_stage == 1);
  const auto inline_model = job_from(
      "{model: {name: tiny, transformer: {layers: 2, hidden: 64, heads: 4, seq_len: 32, vocab: 100}}, "
      "precision: fp32, batch_per_gpu: 2, gpus: 1, samples: 1k, optimizer: sgd, decode: gpu, "
      "dataset: {name: mine, samples: 500, size: 1GB, file_size: 2MB, tier: nfs, access: stage}}");
  CHECK(inline_model.model.name == "tiny");
  CHECK(inline_model.optimizer == Optimizer::Sgd);
  CHECK(inline_model.dataset->access == DataAccess::Stage);
  CHECK(inline_model.dataset->file_bytes == 2e6);
  CHECK(inline_model.epoch_samples() == 500);
}

TEST_CASE("parse_training refuses what cannot work", "[unit][training]") {
  SECTION("unknown model") { CHECK(job_error(RN50.substr(0, 0) + "{model: resnet51, precision: amp, batch_per_gpu: 1, gpus: 1, samples: 1}") == ErrorCode::UnknownName); }
  SECTION("missing precision") { CHECK(job_error("{model: resnet50, batch_per_gpu: 1, gpus: 1, samples: 1}") == ErrorCode::MissingKey); }
  SECTION("unknown precision") { CHECK(job_error("{model: resnet50, precision: fp64, batch_per_gpu: 1, gpus: 1, samples: 1}") == ErrorCode::UnknownName); }
  SECTION("missing batch") { CHECK(job_error("{model: resnet50, precision: amp, gpus: 1, samples: 1}") == ErrorCode::MissingKey); }
  SECTION("zero batch") { CHECK(job_error("{model: resnet50, precision: amp, batch_per_gpu: 0, gpus: 1, samples: 1}") == ErrorCode::OutOfRange); }
  SECTION("no amount of work") { CHECK(job_error(RN50 + "dataset: imagenet-1k}") == ErrorCode::MissingKey); }
  SECTION("two amounts of work") { CHECK(job_error(RN50 + "samples: 1M, epochs: 2, dataset: imagenet-1k}") == ErrorCode::Conflict); }
  SECTION("epochs without a dataset") { CHECK(job_error(RN50 + "epochs: 2}") == ErrorCode::MissingKey); }
  SECTION("epochs with a dataset of unknown size") { CHECK(job_error(RN50 + "epochs: 2, dataset: {name: x}}") == ErrorCode::MissingKey); }
  SECTION("unknown dataset by name") { CHECK(job_error(RN50 + "epochs: 2, dataset: imagenet-2k}") == ErrorCode::UnknownName); }
  SECTION("unknown dataset key") { CHECK(job_error(RN50 + "samples: 1, dataset: {name: imagenet-1k, tierr: nfs}}") == ErrorCode::UnknownKey); }
  SECTION("staging without a tier") { CHECK(job_error(RN50 + "samples: 1, dataset: {name: imagenet-1k, access: stage}}") == ErrorCode::MissingKey); }
  SECTION("seq_len on a CNN") { CHECK(job_error(RN50 + "samples: 1, seq_len: 128}") == ErrorCode::Conflict); }
  SECTION("tokens on a CNN") { CHECK(job_error(RN50 + "tokens: 1G}") == ErrorCode::Conflict); }
  SECTION("seq_len beyond the model") {
    CHECK(job_error("{model: bert-large, seq_len: 1024, precision: amp, batch_per_gpu: 1, gpus: 1, samples: 1}") == ErrorCode::OutOfRange);
  }
  SECTION("parallel plan does not multiply to gpus") { CHECK(job_error(RN50 + "samples: 1, parallelism: {data: 4}}") == ErrorCode::Conflict); }
  SECTION("tensor x pipeline does not divide gpus") { CHECK(job_error(RN50 + "samples: 1, parallelism: {tensor: 3}}") == ErrorCode::Conflict); }
  SECTION("ZeRO stage 4") { CHECK(job_error(RN50 + "samples: 1, parallelism: {zero: 4}}") == ErrorCode::OutOfRange); }
  SECTION("unknown optimizer") { CHECK(job_error(RN50 + "samples: 1, optimizer: lion}") == ErrorCode::UnknownName); }
  SECTION("unknown key is left for the caller's finish()") { CHECK(job_error(RN50 + "samples: 1, batch: 3}") == ErrorCode::UnknownKey); }
}

TEST_CASE("The bundled estimate example's storage and job parse", "[unit][training]") {
  const auto doc = gcsim::config::load_yaml_file(GCSIM_SOURCE_DIR "/scenarios/examples/estimate_resnet50.yaml");
  const auto storage = gcsim::models::parse_storage(*doc.root.find("storage"));
  for (const auto& j : doc.root.find("workload")->find("jobs")->items()) {
    gcsim::config::MapReader r(j);
    (void)r.required("name");
    const int gpus = static_cast<int>(gcsim::config::read_int(r.required("gpus"), 1, 64));
    const TrainingSpec t = parse_training(r, gcsim::test::bundled_models(), gpus);
    r.finish();
    REQUIRE(t.dataset);
    CHECK(storage.find(t.dataset->tier) != nullptr);
    CHECK(t.total_samples == Approx(90.0 * 1'281'167));
  }
}

TEST_CASE("A parsed job carries its anchor's compute scale", "[unit][training]") {
  const TrainingSpec anchored = job_from(RN50 + "samples: 1M}");
  CHECK(anchored.compute_scale == Approx(gcsim::models::anchor_compute_scale(anchored)));
  CHECK(anchored.compute_scale != 1);
  const TrainingSpec none = job_from("{name: g, model: gpt2-xl, precision: bf16, batch_per_gpu: 4, gpus: 8, samples: 1M}");
  CHECK(none.compute_scale == 1);
}

namespace {

// The error reading the first job of a `workload.jobs` list, with its full key path.
ConfigError first_job_error(const std::string& job_lines) {
  const auto doc = gcsim::config::load_yaml_string("workload:\n  jobs:\n    - name: j\n" + job_lines, "jobs.yaml");
  const auto& job = doc.root.find("workload")->find("jobs")->items().front();
  try {
    gcsim::config::MapReader r(job);
    (void)r.required("name");
    const int gpus = static_cast<int>(gcsim::config::read_int(r.required("gpus"), 1, 1 << 20));
    (void)parse_training(r, gcsim::test::bundled_models(), gpus);
    r.finish();
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no ConfigError for:\n" << job_lines);
  return ConfigError(ErrorCode::Syntax, {}, "", "");
}

const std::string RN50_LINES =
    "      model: resnet50\n      precision: amp\n      batch_per_gpu: 256\n      gpus: 8\n      samples: 1M\n";

}  // namespace

TEST_CASE("dataset and parallelism refuse a misspelt key with a did-you-mean from their key tables", "[unit][training]") {
  SECTION("dataset") {
    const ConfigError e = first_job_error(RN50_LINES + "      dataset: {samples: 10, acess: stage}\n");  // not "missing name"
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK_THAT(e.what(), Catch::Contains("did you mean 'access'?"));
    CHECK(e.key_path() == "workload.jobs[0].dataset.acess");
    CHECK(e.mark().file == "jobs.yaml");
    CHECK(e.mark().line == 9);
    CHECK(e.mark().column == 30);
  }
  SECTION("parallelism") {
    const ConfigError e = first_job_error(RN50_LINES + "      parallelism:\n        zero: 9\n        tensr: 2\n");  // before zero's range
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK_THAT(e.what(), Catch::Contains("did you mean 'tensor'?"));
    CHECK(e.key_path() == "workload.jobs[0].parallelism.tensr");
    CHECK(e.mark().line == 11);
    CHECK(e.mark().column == 9);
  }
  SECTION("a dataset map without its name is still missing-key") {
    CHECK(first_job_error(RN50_LINES + "      dataset: {samples: 10}\n").code() == ErrorCode::MissingKey);
  }
}

TEST_CASE("an inline model refuses a misspelt key with a did-you-mean from its key table", "[unit][training]") {
  const std::string rest = "      precision: amp\n      batch_per_gpu: 1\n      gpus: 1\n      samples: 1\n";
  SECTION("a misspelt key, before the missing forward_flop it causes") {
    const ConfigError e = first_job_error("      model:\n        name: tiny\n        forwrd_flop: 8G\n" + rest);
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK_THAT(e.what(), Catch::Contains("did you mean 'forward_flop'?"));
    CHECK(e.key_path() == "workload.jobs[0].model.forwrd_flop");
    CHECK(e.mark().file == "jobs.yaml");
    CHECK(e.mark().line == 6);
    CHECK(e.mark().column == 9);
  }
  SECTION("a transformer shape's misspelt key, before the missing seq_len it causes") {
    const ConfigError e = first_job_error(
        "      model:\n        name: tiny\n        transformer: {layers: 2, hidden: 64, heads: 4, seqlen: 16}\n" + rest);
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK_THAT(e.what(), Catch::Contains("did you mean 'seq_len'?"));
    CHECK(e.key_path() == "workload.jobs[0].model.transformer.seqlen");
    CHECK(e.mark().line == 6);
    CHECK(e.mark().column == 56);  // 8 spaces, "transformer: {", then layers, hidden and heads
  }
  SECTION("anchors stay a conflict: they are read from catalog files only") {
    const ConfigError e = first_job_error("      model: {name: tiny, anchors: []}\n" + rest);
    CHECK(e.code() == ErrorCode::Conflict);
    CHECK(e.key_path() == "workload.jobs[0].model.anchors");
  }
  SECTION("the table's keys are the ones read: a whole fixed-figure model loads") {
    const TrainingSpec t = job_from(
        "{model: {name: m, aliases: [m2], sample: image, forward_flop: 1G, tensor_fraction: 0.5, memory_traffic: 1MB, "
        "params: 1M, activations: 1MB, kernels_per_step: 10, input: 1kB, device_input: 2kB, cpu_decode: 1ms, "
        "sources: s, notes: n}, precision: fp32, batch_per_gpu: 2, gpus: 1, samples: 1k}");
    CHECK(t.model.forward_flop_per_sample == 1e9);
    CHECK(t.model.device_bytes_per_sample == 2e3);
    CHECK(t.model.notes == "n");
  }
}
