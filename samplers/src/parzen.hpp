#pragma once
// A multivariate Parzen estimator on the unit cube: a weighted mixture with one component per
// observed point plus a broad prior component. Numeric coordinates (continuous and integer)
// get a Gaussian kernel truncated to [0, 1], categorical coordinates a kernel that keeps the
// observed label with high probability and spreads the rest evenly over the other labels.

#include <cstddef>
#include <span>
#include <vector>

#include "draws.hpp"
#include "hpsearch/searcher/space_encoding.hpp"

namespace hpsearch::sampler_detail {

class ParzenEstimator {
 public:
  /// `centres` holds `count` points of `dimensions.size()` coordinates each, row after row.
  /// Bandwidths follow Scott's rule in d dimensions, `0.2 n^(-1/(d+4))` of the range, kept
  /// within [1/min(100, n+1), 1] so a handful of points still cover the cube; the prior
  /// component (weight `prior_weight`, the points 1 each) is centred at 0.5 with sigma 1 and
  /// uniform over labels. A categorical point kernel gives its own label (1 + w/k)/(1 + w)
  /// and every other label (w/k)/(1 + w), w the prior weight and k the labels.
  ParzenEstimator(const std::vector<EncodedDimension>& dimensions, std::span<const double> centres,
                  std::size_t count, double prior_weight);

  /// Draws one point of the mixture into `out`.
  void sample(RngBits& bits, std::span<double> out) const;
  /// log of the mixture's density at x (continuous coordinates as densities, categorical as
  /// probabilities).
  [[nodiscard]] double log_density(std::span<const double> x) const;

 private:
  [[nodiscard]] double centre(std::size_t component, std::size_t j) const {
    return centres_[component * d_ + j];
  }

  const std::vector<EncodedDimension>* dimensions_;
  std::size_t d_ = 0;
  std::size_t components_ = 0;  // points, then the prior
  std::vector<double> centres_;
  std::vector<double> weights_;
  double sigma_ = 1;  // the points' bandwidth (all numeric coordinates)
  double prior_weight_ = 1;
  std::vector<double> log_constant_;      // per component: log weight + normalisers
  std::vector<double> inv_sigma_;         // per component
  std::vector<std::size_t> numeric_;      // numeric coordinates
  std::vector<std::size_t> categorical_;  // categorical coordinates
  std::vector<std::size_t> labels_;       // per component, per categorical coordinate
  std::vector<double> log_same_;          // per categorical coordinate: log P(own label)
  std::vector<double> log_other_;         // per categorical coordinate: log P(another label)
  std::vector<double> log_uniform_;       // per categorical coordinate: -log k (the prior)
  mutable std::vector<double> scratch_;
  mutable std::vector<std::size_t> x_labels_;
};

}  // namespace hpsearch::sampler_detail
