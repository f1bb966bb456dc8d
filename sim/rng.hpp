// Random streams. Every random process owns a stream derived from (seed, replication,
// stream name), so adding a process never perturbs the others and two policies run on
// one seed see the same jobs and interruptions (ns-3's AssignStreams, ROSS). The
// generator and every distribution are our own code (xoshiro256** seeded by splitmix64
// over a hash of the name), not std::*_distribution, whose output differs between
// standard libraries: the same scenario gives the same trace everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace gcsim::sim {

class RngStream {
 public:
  RngStream(std::uint64_t seed, std::uint64_t replication, std::string_view name);

  std::uint64_t next_u64();
  double uniform01();                          // [0, 1), 53 random bits
  double uniform(double lo, double hi);        // [lo, hi)
  double exponential(double mean);            // mean > 0
  double normal(double mean, double stddev);   // Box-Muller, both values used
  double lognormal(double median, double sigma);  // exp(N(ln median, sigma))
  double weibull(double shape, double scale);
  // Index i with probability weights[i] / sum(weights); weights >= 0, sum > 0.
  std::size_t weighted_index(std::span<const double> weights);
  std::uint64_t uniform_int(std::uint64_t n);  // [0, n), unbiased

 private:
  std::uint64_t s_[4];
  double spare_normal_ = 0.0;
  bool has_spare_ = false;
};

// 64-bit FNV-1a of a name; stable across platforms.
std::uint64_t stable_hash(std::string_view text);

}  // namespace gcsim::sim
