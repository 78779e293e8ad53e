#pragma once
// Random numbers that are the same on every platform and standard library for a given seed
// (std:: distributions are implementation-defined, so we derive ours from mt19937_64's output).

#include <cstdint>
#include <random>

namespace nvlsim {

class SeededRandom {
 public:
  explicit SeededRandom(std::uint64_t seed) : engine_(seed) {}
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double exponential(double mean);
  double normal(double mean, double stddev);
  double lognormal(double mu, double sigma);
  // Index drawn with probability proportional to weights[i].
  template <class Weights>
  std::size_t pick(const Weights& weights) {
    double total = 0;
    for (double w : weights) total += w;
    double x = uniform() * total;
    std::size_t i = 0;
    for (double w : weights) {
      if (x < w) return i;
      x -= w;
      ++i;
    }
    return i - 1;
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace nvlsim
