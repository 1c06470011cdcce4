#include "parzen.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace hpsearch::sampler_detail {
namespace {

double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::numbers::sqrt2);
}

// log of the mass N(mean, sigma) puts on [0, 1].
double log_mass01(double mean, double sigma) {
  const double mass = normal_cdf((1 - mean) / sigma) - normal_cdf(-mean / sigma);
  return std::log(std::max(mass, std::numeric_limits<double>::min()));
}

}  // namespace

ParzenEstimator::ParzenEstimator(const std::vector<EncodedDimension>& dimensions,
                                 std::span<const double> centres, std::size_t count,
                                 double prior_weight)
    : dimensions_(&dimensions),
      d_(dimensions.size()),
      components_(count + 1),
      centres_(centres.begin(), centres.begin() + static_cast<std::ptrdiff_t>(count * d_)),
      prior_weight_(prior_weight) {
  centres_.resize(components_ * d_, 0.5);  // the prior's centre
  for (std::size_t j = 0; j < d_; ++j) {
    (dimensions[j].kind == EncodedDimension::Kind::kCategorical ? categorical_ : numeric_)
        .push_back(j);
  }
  const auto n = static_cast<double>(std::max<std::size_t>(count, 1));
  const double scott = 0.2 * std::pow(n, -1.0 / (static_cast<double>(d_) + 4));
  sigma_ = std::clamp(scott, 1.0 / std::min(100.0, n + 1), 1.0);
  weights_.assign(components_, 1.0);
  weights_.back() = prior_weight_;
  const double log_total = std::log(static_cast<double>(count) + prior_weight_);
  constexpr double kLogSqrt2Pi = 0.91893853320467274178;
  for (std::size_t c = 0; c < components_; ++c) {
    const bool prior = c + 1 == components_;
    const double sigma = prior ? 1.0 : sigma_;
    inv_sigma_.push_back(1 / sigma);
    double constant = std::log(weights_[c]) - log_total;
    for (const std::size_t j : numeric_) {
      constant -= std::log(sigma) + kLogSqrt2Pi + log_mass01(centre(c, j), sigma);
    }
    log_constant_.push_back(constant);
    for (const std::size_t j : categorical_) {
      labels_.push_back(SpaceEncoding::category(dimensions[j], centre(c, j)));
    }
  }
  for (const std::size_t j : categorical_) {
    const double k = dimensions[j].levels;
    log_same_.push_back(std::log((1 + prior_weight_ / k) / (1 + prior_weight_)));
    log_other_.push_back(std::log((prior_weight_ / k) / (1 + prior_weight_)));
    log_uniform_.push_back(-std::log(k));
  }
  scratch_.resize(components_);
  x_labels_.resize(categorical_.size());
}

void ParzenEstimator::sample(RngBits& bits, std::span<double> out) const {
  const std::size_t c = weighted_index(bits, weights_);
  const bool prior = c + 1 == components_;
  const double w = prior_weight_;
  for (std::size_t j = 0; j < d_; ++j) {
    const EncodedDimension& dim = (*dimensions_)[j];
    if (dim.kind != EncodedDimension::Kind::kCategorical) {
      out[j] = truncated_normal01(bits, centre(c, j), prior ? 1.0 : sigma_);
      continue;
    }
    const double k = dim.levels;
    // Own label with (1 + w/k)/(1 + w); otherwise uniform over all labels (which the w/k
    // share of every label amounts to). The prior is uniform outright.
    std::size_t label = 0;
    if (!prior && uniform01(bits) < 1 / (1 + w)) {
      label = SpaceEncoding::category(dim, centre(c, j));
    } else {
      label =
          std::min(static_cast<std::size_t>(uniform01(bits) * k), static_cast<std::size_t>(k) - 1);
    }
    out[j] = (static_cast<double>(label) + 0.5) / k;
  }
}

double ParzenEstimator::log_density(std::span<const double> x) const {
  const std::size_t nc = categorical_.size();
  for (std::size_t i = 0; i < nc; ++i) {
    x_labels_[i] = SpaceEncoding::category((*dimensions_)[categorical_[i]], x[categorical_[i]]);
  }
  double best = -std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < components_; ++c) {
    const bool prior = c + 1 == components_;
    const double inv_sigma = inv_sigma_[c];
    const double* mu = centres_.data() + c * d_;
    double log_k = log_constant_[c];
    for (const std::size_t j : numeric_) {
      const double z = (x[j] - mu[j]) * inv_sigma;
      log_k -= 0.5 * z * z;
    }
    for (std::size_t i = 0; i < nc; ++i) {
      log_k += prior ? log_uniform_[i]
                     : (x_labels_[i] == labels_[c * nc + i] ? log_same_[i] : log_other_[i]);
    }
    scratch_[c] = log_k;
    best = std::max(best, log_k);
  }
  double sum = 0;
  for (std::size_t c = 0; c < components_; ++c) sum += std::exp(scratch_[c] - best);
  return best + std::log(sum);
}

}  // namespace hpsearch::sampler_detail
