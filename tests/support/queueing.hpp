// Queueing theory for the tests that check simulated queues against it
// (tests/models/test_queueing.cpp, tests/models/services/).
#pragma once

namespace gcsim::test {

// The mean wait in queue of M/M/c, by the Erlang C formula (Kleinrock, Queueing Systems
// Vol. 1, 1975, sec. 3.5), lambda and mu in any one unit of rate:
//   C(c, a) = (a^c/c! * c/(c-a)) / (sum_{k<c} a^k/k! + a^c/c! * c/(c-a)),  a = lambda/mu
//   Wq = C(c, a) / (c mu - lambda)
inline double erlang_c_wait(int c, double lambda, double mu) {
  const double a = lambda / mu;
  double term = 1, sum = 0;
  for (int k = 0; k < c; ++k) {
    sum += term;
    term *= a / (k + 1);
  }
  const double top = term * c / (c - a);  // term is now a^c / c!
  return top / (sum + top) / (c * mu - lambda);
}

// The mean wait in queue of M/D/1 (Pollaczek-Khinchine with a service time of variance 0):
// rho S / (2 (1 - rho)), rho = lambda S.
inline double md1_wait(double lambda, double s) {
  const double rho = lambda * s;
  return rho * s / (2 * (1 - rho));
}

}  // namespace gcsim::test
