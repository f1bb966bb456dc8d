// The log-bucketed latency histogram (see latency_histogram.hpp).
#include "models/serving/latency_histogram.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gcsim::models::serving {

namespace {
const double LOG_GROWTH = std::log(LatencyHistogram::GROWTH);
}

void LatencyHistogram::add(double s) {
  if (buckets_.empty()) buckets_.assign(BUCKETS, 0);
  int k = 0;
  if (s > MIN_S) k = std::min(BUCKETS - 1, static_cast<int>(std::log(s / MIN_S) / LOG_GROWTH));
  ++buckets_[static_cast<std::size_t>(k)];
  if (count_ == 0) min_ = max_ = s;
  min_ = std::min(min_, s);
  max_ = std::max(max_, s);
  ++count_;
  sum_ += s;
}

void LatencyHistogram::clear() {
  if (count_ > 0) std::fill(buckets_.begin(), buckets_.end(), 0);
  count_ = 0;
  sum_ = 0;
  min_ = max_ = 0;
}

double LatencyHistogram::mean() const {
  return count_ == 0 ? std::numeric_limits<double>::quiet_NaN() : sum_ / static_cast<double>(count_);
}

double LatencyHistogram::quantile(double q) const {
  if (count_ == 0) return std::numeric_limits<double>::quiet_NaN();
  const auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_) - 1e-9)));
  std::uint64_t seen = 0;
  for (int k = 0; k < BUCKETS; ++k) {
    seen += buckets_[static_cast<std::size_t>(k)];
    if (seen >= rank) return k == 0 ? min_ : std::clamp(MIN_S * std::pow(GROWTH, k + 0.5), min_, max_);
  }
  return max_;
}

}  // namespace gcsim::models::serving
