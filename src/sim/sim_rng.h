// SimRng: the simulator's random source: xoshiro256** seeded through SplitMix64, with the few
// distributions it needs implemented here (not <random>'s, whose output differs between
// standard libraries), so one seed gives the same data everywhere. Value type; not thread-safe.
#pragma once

#include <cmath>
#include <cstdint>

namespace verdict {

class SimRng {
 public:
  explicit SimRng(uint64_t seed) {
    for (uint64_t& s : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      s = z ^ (z >> 31);
    }
  }

  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [lo, hi] (hi >= lo).
  int64_t Int(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(span == 0 ? Next() : Next() % span);
  }
  bool Bernoulli(double p) { return Uniform() < p; }
  double Normal() {
    // Box-Muller; one value per call keeps the sequence simple.
    const double u1 = 1.0 - Uniform();
    const double u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  double LogNormal(double median, double sigma) { return median * std::exp(sigma * Normal()); }
  // Poisson by inversion; for the small rates of daily activity.
  int Poisson(double lambda) {
    const double limit = std::exp(-lambda);
    double p = Uniform();
    int k = 0;
    while (p > limit && k < 1000) {
      p *= Uniform();
      ++k;
    }
    return k;
  }
  // A fresh, independent generator for a sub-stream (e.g. one per day).
  SimRng Fork(uint64_t salt) { return SimRng(Next() ^ (salt * 0xd1b54a32d192ed03ULL)); }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace verdict
