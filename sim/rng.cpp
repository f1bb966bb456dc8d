// xoshiro256** (Blackman & Vigna, https://prng.di.unimi.it/) and the distributions on top
// of it. Only +, *, shifts and std::log/exp/sqrt/cos/sin are used, so a stream's values
// depend on nothing but (seed, replication, name) and the platform's libm for those five
// functions (see docs/engine.md, "Determinism").
#include "sim/rng.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "sim/check.hpp"

namespace gcsim::sim {
namespace {

constexpr double TWO_PI = 6.283185307179586476925286766559;
constexpr std::uint64_t GOLDEN_GAMMA = 0x9e3779b97f4a7c15ULL;

// Precondition violations are programming errors (specs validate user input before any
// stream is drawn from): they throw InternalError in every build type (sim/check.hpp),
// which ends the run that drew, not the process. The message is built off the hot path.
[[gnu::cold, gnu::noinline]] std::string with_value(const char* what, double value) {
  char figure[32];
  std::snprintf(figure, sizeof figure, "%.17g", value);
  return std::string("RngStream::") + what + " (" + figure + ")";
}

#define GCSIM_RNG_CHECK(cond, what, value) GCSIM_CHECK(cond, with_value(what, value))

// splitmix64's output function: a bijection on 64 bits with full avalanche.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

RngStream::RngStream(std::uint64_t seed, std::uint64_t replication, std::string_view name) {
  // Each component goes through a bijection before the next is folded in, so the key
  // depends on all three and (seed 1, rep 0) does not collide with (seed 0, rep 1).
  std::uint64_t key = mix64(seed + GOLDEN_GAMMA);
  key = mix64((key ^ replication) + GOLDEN_GAMMA);
  key = mix64((key ^ stable_hash(name)) + GOLDEN_GAMMA);
  // splitmix64 from the key fills the state, as the xoshiro authors recommend; its
  // outputs are a bijection of distinct counters, so the state is never all zero.
  for (std::uint64_t& word : s_) {
    key += GOLDEN_GAMMA;
    word = mix64(key);
  }
}

std::uint64_t RngStream::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double RngStream::uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double RngStream::uniform(double lo, double hi) {
  GCSIM_RNG_CHECK(lo < hi, "uniform: needs lo < hi; lo =", lo);
  const double x = lo + (hi - lo) * uniform01();
  // Rounding can land exactly on hi when hi - lo is large relative to lo.
  return x < hi ? x : std::nextafter(hi, lo);
}

double RngStream::exponential(double mean) {
  GCSIM_RNG_CHECK(mean > 0.0, "exponential: mean must be > 0", mean);
  // 1 - u lies in (0, 1], so the log is finite.
  return -mean * std::log(1.0 - uniform01());
}

double RngStream::normal(double mean, double stddev) {
  GCSIM_RNG_CHECK(stddev >= 0.0, "normal: stddev must be >= 0", stddev);
  if (has_spare_) {
    has_spare_ = false;
    return mean + stddev * spare_normal_;
  }
  const double radius = std::sqrt(-2.0 * std::log(1.0 - uniform01()));
  const double angle = TWO_PI * uniform01();
  spare_normal_ = radius * std::sin(angle);
  has_spare_ = true;
  return mean + stddev * (radius * std::cos(angle));
}

double RngStream::lognormal(double median, double sigma) {
  GCSIM_RNG_CHECK(median > 0.0, "lognormal: median must be > 0", median);
  GCSIM_RNG_CHECK(sigma >= 0.0, "lognormal: sigma must be >= 0", sigma);
  return median * std::exp(sigma * normal(0.0, 1.0));
}

double RngStream::weibull(double shape, double scale) {
  GCSIM_RNG_CHECK(shape > 0.0, "weibull: shape must be > 0", shape);
  GCSIM_RNG_CHECK(scale > 0.0, "weibull: scale must be > 0", scale);
  // Inverse CDF: scale * (-ln(1 - u))^(1/shape), with the power written as exp(log / shape).
  const double e = -std::log(1.0 - uniform01());
  return scale * std::exp(std::log(e) / shape);
}

std::size_t RngStream::weighted_index(std::span<const double> weights) {
  double total = 0.0;
  for (const double w : weights) {
    GCSIM_RNG_CHECK(w >= 0.0 && std::isfinite(w), "weighted_index: weight must be finite, >= 0", w);
    total += w;
  }
  GCSIM_RNG_CHECK(total > 0.0 && std::isfinite(total), "weighted_index: weights must sum to a finite value > 0",
                  total);
  const double target = uniform01() * total;
  double cumulative = 0.0;
  std::size_t last_positive = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] == 0.0) continue;  // never chosen, whatever the rounding
    cumulative += weights[i];
    last_positive = i;
    if (target < cumulative) return i;
  }
  // Rounding made the running sum fall short of target: the mass belongs to the last bin.
  return last_positive;
}

std::uint64_t RngStream::uniform_int(std::uint64_t n) {
  GCSIM_RNG_CHECK(n != 0, "uniform_int: n must be > 0", 0.0);
  // Lemire, "Fast random integer generation in an interval" (2019): the high word of
  // x * n, rejecting the few low words that would make some results more likely.
  __extension__ typedef unsigned __int128 U128;
  U128 m = static_cast<U128>(next_u64()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    while (low < threshold) {
      m = static_cast<U128>(next_u64()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

#undef GCSIM_RNG_CHECK

}  // namespace gcsim::sim
