// Quantiles of latencies without keeping them (docs/serving.md, "Statistics"): a
// log-bucketed histogram, as HdrHistogram and DDSketch (Masson et al., VLDB 2019) do. Bucket
// k holds [MIN_S·G^k, MIN_S·G^(k+1)) with G = 1.02; a quantile is its bucket's geometric
// midpoint MIN_S·G^(k+1/2), clamped to the least and largest values seen, so it is within
// G^(1/2) − 1 < 1% of the exact nearest-rank quantile. Values below MIN_S·G (1.02 µs)
// share bucket 0, which reads as the least value seen (within 1.02 µs of the exact one);
// values above MIN_S·G^BUCKETS (about 660 days) share the last, read as at most the largest. Count, sum, least and largest are exact.
#pragma once

#include <cstdint>
#include <vector>

namespace gcsim::models::serving {

class LatencyHistogram {
 public:
  static constexpr double MIN_S = 1e-6;
  static constexpr double GROWTH = 1.02;
  static constexpr int BUCKETS = 1600;

  void add(double s);
  void clear();
  std::uint64_t count() const { return count_; }
  double sum() const { return sum_; }
  double mean() const;  // NaN when empty
  double min() const { return min_; }
  double max() const { return max_; }
  // The nearest-rank q-quantile (q in (0, 1]): the value of rank ceil(q·count), within 1%.
  // NaN when empty.
  double quantile(double q) const;

 private:
  std::vector<std::uint64_t> buckets_;  // allocated at the first add
  std::uint64_t count_ = 0;
  double sum_ = 0;
  double min_ = 0;
  double max_ = 0;
};

}  // namespace gcsim::models::serving
