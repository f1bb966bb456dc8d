// Mean interruption rate of a spot pool's process (see interruption_rate.hpp).
#include "models/spot/interruption_rate.hpp"

#include <cmath>

namespace gcsim::models {

double mean_interruption_rate_per_s(const InterruptionSpec& spec) {
  double rate = 0;
  switch (spec.process) {
    case InterruptionProcess::Poisson: rate = spec.rate_per_s; break;
    case InterruptionProcess::Weibull:
      rate = 1.0 / (spec.weibull_scale.seconds() * std::tgamma(1.0 + 1.0 / spec.weibull_shape));
      break;
    case InterruptionProcess::Trace: {
      const auto& pts = spec.trace.points();
      double drops = 0;
      double node_s = 0;
      for (std::size_t i = 0; i < pts.size(); ++i) {
        if (i > 0 && pts[i].value < pts[i - 1].value) drops += pts[i - 1].value - pts[i].value;
        if (i + 1 < pts.size()) node_s += pts[i].value * (pts[i + 1].at - pts[i].at).seconds();
      }
      rate = node_s > 0 ? drops / node_s : 0;
      break;
    }
    default: break;
  }
  if (spec.correlated) rate += spec.correlated->rate_per_s * spec.correlated->fraction;
  return rate;
}

}  // namespace gcsim::models
