// Memory fit: ZeRO's bytes per parameter by hand, sharding by stage, and the error text
// with its suggestions.
#include <catch2/catch.hpp>

#include "models/workload/memory_fit.hpp"
#include "tests/models/workload/calibration_rows.hpp"

using gcsim::models::check_memory_fit;
using gcsim::models::memory_per_gpu;
using gcsim::models::Optimizer;
using gcsim::models::Precision;
using gcsim::models::state_bytes_per_param;
using gcsim::test::gpu;
using gcsim::test::make_job;

TEST_CASE("Model states per parameter follow ZeRO", "[unit][memory]") {
  auto total = [](Precision p, Optimizer o) {
    const auto s = state_bytes_per_param(p, o);
    return s.weights + s.gradients + s.optimizer;
  };
  CHECK(total(Precision::Fp16, Optimizer::Adam) == 16);  // Rajbhandari et al. 2020: 2 + 2 + 12
  CHECK(total(Precision::Bf16, Optimizer::Adam) == 16);
  CHECK(total(Precision::Fp32, Optimizer::Adam) == 16);  // 4 + 4 + 8
  CHECK(total(Precision::Fp16, Optimizer::Sgd) == 12);
  CHECK(total(Precision::Fp32, Optimizer::Sgd) == 12);
}

TEST_CASE("ZeRO stages shard states across data-parallel ranks", "[unit][memory]") {
  auto job = make_job("gpt3-6.7b", Precision::Bf16, 1, 8, 2048);
  const double p = job.figures().params;
  const auto z0 = memory_per_gpu(job, 1, 0);
  CHECK(z0.weights == Approx(2 * p));
  CHECK(z0.gradients == Approx(2 * p));
  CHECK(z0.optimizer == Approx(12 * p));
  const auto z1 = memory_per_gpu(job, 1, 1);
  CHECK(z1.optimizer == Approx(12 * p / 8));
  CHECK(z1.gradients == Approx(2 * p));
  const auto z2 = memory_per_gpu(job, 1, 2);
  CHECK(z2.gradients == Approx(2 * p / 8));
  const auto z3 = memory_per_gpu(job, 1, 3);
  CHECK(z3.weights == Approx(2 * p / 8));
  CHECK(z3.activations == Approx(job.figures().activation_bytes));
  CHECK(memory_per_gpu(job, 4, 3).activations == Approx(4 * job.figures().activation_bytes));
  // fp32 activations are twice the 16-bit ones.
  auto fp32 = job;
  fp32.precision = Precision::Fp32;
  CHECK(memory_per_gpu(fp32, 1, 3).activations == Approx(2 * z3.activations));
}

TEST_CASE("A job that does not fit names what it needs and what would fit", "[unit][memory]") {
  SECTION("fits") {
    CHECK(check_memory_fit(make_job("resnet50", Precision::Fp16, 256, 8), gpu("V100-SXM2-16GB")).fits);
  }
  SECTION("too big a batch: a smaller batch fits") {
    auto job = make_job("resnet50", Precision::Fp32, 256, 8);
    const auto fit = check_memory_fit(job, gpu("V100-SXM2-16GB"));
    CHECK_FALSE(fit.fits);
    CHECK(fit.largest_batch > 100);
    CHECK(fit.largest_batch < 256);
    CHECK(memory_per_gpu(job, fit.largest_batch, 0).total() <= fit.capacity_bytes);
    CHECK(memory_per_gpu(job, fit.largest_batch + 1, 0).total() > fit.capacity_bytes);
    CHECK(fit.message.find("needs ") == 0);
    CHECK(fit.message.find("fits with batch " + std::to_string(fit.largest_batch)) != std::string::npos);
  }
  SECTION("model states too big: a smaller batch or ZeRO-3") {
    // 6.7B parameters x 16 B = 107 GB of states on an 80 GiB GPU, plus 30.6 GB of
    // activations per 2048-token sequence.
    auto job = make_job("gpt3-6.7b", Precision::Bf16, 2, 8, 2048);
    const auto fit = check_memory_fit(job, gpu("A100-80GB-SXM"));
    CHECK_FALSE(fit.fits);
    CHECK(fit.smallest_zero_stage == 3);
    CHECK(fit.largest_batch == 0);
    CHECK(fit.message.find("ZeRO-3 on 8 GPUs") != std::string::npos);
    job.parallel.zero_stage = 3;
    CHECK(check_memory_fit(job, gpu("A100-80GB-SXM")).fits);
  }
  SECTION("nothing fits: says so") {
    auto job = make_job("gpt3-6.7b", Precision::Bf16, 8, 1, 2048);
    const auto fit = check_memory_fit(job, gpu("T4"));
    CHECK_FALSE(fit.fits);
    CHECK(fit.smallest_zero_stage == -1);
    CHECK(fit.message.find("does not fit even with batch 1") != std::string::npos);
  }
}
