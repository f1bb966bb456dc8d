// Sampling for workload distributions (see distribution.hpp). The variates come from
// sim::RngStream's own implementations so traces are identical across standard libraries.
#include "models/workload/distribution.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gcsim::models {

namespace {
double draw_empirical(const std::vector<double>& q, double u) {
  const double at = u * static_cast<double>(q.size() - 1);
  const std::size_t k = std::min(static_cast<std::size_t>(at), q.size() - 2);
  const double f = at - static_cast<double>(k);
  const double a = q[k], b = q[k + 1];
  if (a == b) return a;
  if (a > 0) return a * std::pow(b / a, f);
  return a + (b - a) * f;
}

double draw_once(const Distribution& d, sim::RngStream& rng) {
  switch (d.kind) {
    case Distribution::Kind::Constant: return d.p1;
    case Distribution::Kind::Exponential: return rng.exponential(d.p1);
    case Distribution::Kind::Uniform: return rng.uniform(d.p1, d.p2);
    case Distribution::Kind::Normal: return rng.normal(d.p1, d.p2);
    case Distribution::Kind::Lognormal: return rng.lognormal(d.p1, d.p2);
    case Distribution::Kind::Choice: return d.values[rng.weighted_index(d.weights)];
    case Distribution::Kind::Empirical: return draw_empirical(d.values, rng.uniform01());
  }
  return d.p1;
}
}  // namespace

Distribution Distribution::empirical(std::vector<double> quantiles) {
  Distribution d;
  d.kind = Kind::Empirical;
  d.values = std::move(quantiles);
  d.p1 = draw_empirical(d.values, 0.5);
  return d;
}

double Distribution::sample(sim::RngStream& rng) const {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const double v = draw_once(*this, rng);
    if (v >= min && v <= max) return v;
  }
  return std::clamp(draw_once(*this, rng), min, max);
}

double Distribution::lowest() const {
  double lo = -std::numeric_limits<double>::infinity();
  switch (kind) {
    case Kind::Constant: lo = p1; break;
    case Kind::Exponential: lo = 0; break;
    case Kind::Uniform: lo = p1; break;
    case Kind::Normal: break;
    case Kind::Lognormal: lo = 0; break;
    case Kind::Choice: lo = *std::min_element(values.begin(), values.end()); break;
    case Kind::Empirical: lo = values.front(); break;
  }
  return std::max(lo, min);
}

double Distribution::highest() const {
  double hi = std::numeric_limits<double>::infinity();
  switch (kind) {
    case Kind::Constant: hi = p1; break;
    case Kind::Uniform: hi = p2; break;
    case Kind::Choice: hi = *std::max_element(values.begin(), values.end()); break;
    case Kind::Empirical: hi = values.back(); break;
    default: break;
  }
  return std::min(hi, max);
}

}  // namespace gcsim::models
