// The latency histogram (models/serving/latency_histogram.hpp): its quantiles within 1% of
// the exact nearest-rank quantiles, its count, sum, mean and extremes exact.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/serving/latency_histogram.hpp"
#include "sim/rng.hpp"

using gcsim::models::serving::LatencyHistogram;

namespace {

double exact_quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(q * static_cast<double>(v.size()) - 1e-9)));
  return v[rank - 1];
}

}  // namespace

TEST_CASE("latency histogram quantiles are within 1% of the exact ones", "[unit][serving]") {
  gcsim::sim::RngStream rng(7, 0, "histogram");
  for (const double sigma : {0.1, 1.0, 3.0}) {
    LatencyHistogram h;
    std::vector<double> v;
    double sum = 0;
    for (int i = 0; i < 100000; ++i) {
      const double x = rng.lognormal(0.05, sigma);
      v.push_back(x);
      h.add(x);
      sum += x;
    }
    CHECK(h.count() == v.size());
    CHECK(h.sum() == Approx(sum).epsilon(1e-12));
    CHECK(h.mean() == Approx(sum / 100000).epsilon(1e-12));
    CHECK(h.min() == *std::min_element(v.begin(), v.end()));
    CHECK(h.max() == *std::max_element(v.begin(), v.end()));
    for (const double q : {0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0}) {
      const double exact = exact_quantile(v, q);
      INFO("sigma " << sigma << " q " << q << ": exact " << exact << ", histogram " << h.quantile(q));
      CHECK(std::abs(h.quantile(q) / exact - 1) <= 0.01);
    }
  }
}

TEST_CASE("latency histogram: hand cases", "[unit][serving]") {
  LatencyHistogram h;
  CHECK(std::isnan(h.quantile(0.5)));
  CHECK(std::isnan(h.mean()));
  // One value: every quantile is it (clamped to the extremes), exactly.
  h.add(0.2);
  CHECK(h.quantile(0.01) == 0.2);
  CHECK(h.quantile(0.99) == 0.2);
  // 100 values 1..100 ms: the nearest-rank p99 is 99 ms, p50 50 ms (within 1%).
  h.clear();
  CHECK(h.count() == 0);
  for (int i = 1; i <= 100; ++i) h.add(i * 1e-3);
  CHECK(h.quantile(0.99) == Approx(0.099).epsilon(0.01));
  CHECK(h.quantile(0.5) == Approx(0.050).epsilon(0.01));
  CHECK(h.quantile(1.0) == 0.1);
  // The first bucket (below 1.02 us, zero included) reads as the least value seen.
  LatencyHistogram z;
  z.add(0.0);
  z.add(0.0);
  z.add(1.0);
  CHECK(z.quantile(0.5) == 0.0);
  CHECK(z.quantile(1.0) == Approx(1.0).epsilon(0.01));
}
