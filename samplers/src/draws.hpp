#pragma once
// Random draws for the model-based samplers: Boost.Random distributions (fixed algorithms,
// unlike std::'s) over the search's one stream, so a seed decides every proposal.

#include <algorithm>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <cstdint>
#include <span>

#include "hpsearch/searcher/rng.hpp"

namespace hpsearch::sampler_detail {

/// The search's Rng as a Boost uniform random bit generator (32 bits a draw).
class RngBits {
 public:
  using result_type = std::uint32_t;
  explicit RngBits(Rng& rng) : rng_(&rng) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return 0xffffffffU; }
  result_type operator()() { return rng_->bits32(); }

 private:
  Rng* rng_;
};

/// Uniform in [0, 1).
inline double uniform01(RngBits& bits) {
  return boost::random::uniform_01<double>{}(bits);
}

/// N(mean, sigma) truncated to [0, 1], by rejection (every caller has most of its mass inside:
/// at worst a prior of sigma 1 centred at 0.5, accepted 38% of the time); after 64 misses,
/// the nearest end.
inline double truncated_normal01(RngBits& bits, double mean, double sigma) {
  boost::random::normal_distribution<double> normal(mean, sigma);
  for (int attempt = 0; attempt < 64; ++attempt) {
    const double x = normal(bits);
    if (x >= 0 && x <= 1) return x;
  }
  return std::clamp(mean, 0.0, 1.0);
}

/// An index drawn with probability proportional to `weights` (non-negative, positive sum).
inline std::size_t weighted_index(RngBits& bits, std::span<const double> weights) {
  double total = 0;
  for (const double w : weights) total += w;
  double u = uniform01(bits) * total;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (u < weights[i]) return i;
    u -= weights[i];
  }
  return weights.size() - 1;
}

}  // namespace hpsearch::sampler_detail
