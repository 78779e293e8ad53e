#include "workloads/seeded_random.hpp"

#include <cmath>
#include <numbers>

namespace nvlsim {

double SeededRandom::exponential(double mean) {
  return -mean * std::log1p(-uniform());
}

double SeededRandom::normal(double mean, double stddev) {
  // Box-Muller; 1 - u keeps the logarithm finite.
  const double u1 = 1.0 - uniform();
  const double u2 = uniform();
  return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double SeededRandom::lognormal(double mu, double sigma) {
  return std::exp(normal(mu, sigma));
}

}  // namespace nvlsim
