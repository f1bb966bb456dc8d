// Checkpoint intervals that minimise expected run time under failures (docs/spot.md).
//   Young (1974):  tau = sqrt(2 delta M)
//   Daly (2006):   tau = sqrt(2 delta M) [1 + (1/3) sqrt(delta / 2M) + (1/9) (delta / 2M)] - delta,  delta < 2M
//                  tau = M,                                                                   delta >= 2M
// delta: time to write a checkpoint; M: mean time between interruptions of the job (its
// nodes' rates add up). First-order expected wall time of W of work (tau << M):
//   T = W (1 + delta / tau + (tau / 2 + R) / M)
// J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM 17(9),
// 1974; J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart
// dumps", FGCS 22(3), 2006.
#pragma once

#include <cmath>

namespace gcsim::models {

inline double young_interval_s(double write_s, double mtbf_s) { return std::sqrt(2 * write_s * mtbf_s); }

inline double daly_interval_s(double write_s, double mtbf_s) {
  if (write_s >= 2 * mtbf_s) return mtbf_s;
  const double r = write_s / (2 * mtbf_s);
  return std::sqrt(2 * write_s * mtbf_s) * (1 + std::sqrt(r) / 3 + r / 9) - write_s;
}

// First-order expected wall time for `work_s` of work (see the header comment).
inline double first_order_wall_s(double work_s, double interval_s, double write_s, double restore_s, double mtbf_s) {
  return work_s * (1 + write_s / interval_s + (interval_s / 2 + restore_s) / mtbf_s);
}

}  // namespace gcsim::models
