// Synthetic learning curves (docs/benchmarks.md 2.6). Each configuration's curve is a weighted
// mix of three of Domhan et al.'s families, all rising from a start value y0 at epoch 1 toward
// an asymptote c:
//   pow3       c - (c - y0) t^-alpha
//   ilog2      c - (c - y0) ln 2 / ln(t + 1)
//   janoschek  c - (c - y0) exp(-k (t^delta - 1))
// c, y0, alpha, k, delta and the three weights are smooth functions of the configuration:
// random Fourier features (an approximate Gaussian-process draw) pushed through the normal CDF
// into each parameter's range. The final level and the speeds are independent draws, so a fast
// starter can end below a slow one.
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/simulator/workload.hpp"

namespace hpsearch {
namespace {

constexpr double kEpochs = 100;        // t = max(1, 100 z)
constexpr double kLengthScale = 0.25;  // of the smooth functions, in units of the unit cube
constexpr int kFeatures = 16;

// One smooth random function of [0, 1]^d into (0, 1).
class SmoothFunction {
 public:
  SmoothFunction(int dimensions, boost::random::mt19937& rng) {
    boost::random::normal_distribution<double> frequency(0.0, 1.0 / kLengthScale);
    boost::random::uniform_real_distribution<double> phase(0.0, 2 * std::numbers::pi);
    for (int k = 0; k < kFeatures; ++k) {
      std::vector<double> w(static_cast<std::size_t>(dimensions));
      for (double& v : w) v = frequency(rng);
      frequencies_.push_back(std::move(w));
      phases_.push_back(phase(rng));
    }
  }

  double operator()(const std::vector<double>& x) const {
    double g = 0;
    for (std::size_t k = 0; k < frequencies_.size(); ++k) {
      double dot = phases_[k];
      for (std::size_t j = 0; j < x.size(); ++j) dot += frequencies_[k][j] * x[j];
      g += std::cos(dot);
    }
    g *= std::sqrt(2.0 / kFeatures);  // about N(0, 1) over configurations
    return 0.5 * std::erfc(-g / std::numbers::sqrt2);
  }

 private:
  std::vector<std::vector<double>> frequencies_;
  std::vector<double> phases_;
};

enum Shape {
  kAsymptote,
  kStart,
  kAlpha,
  kK,
  kDelta,
  kWeightPow3,
  kWeightIlog2,
  kWeightJanoschek,
  kShapes
};

class LearningCurves final : public Workload {
 public:
  LearningCurves(int dimensions, std::uint32_t instance)
      : name_("learning-curves-" + std::to_string(dimensions)), dimensions_(dimensions) {
    boost::random::mt19937 rng(instance);
    for (int s = 0; s < kShapes; ++s) shapes_.emplace_back(dimensions, rng);
  }
  std::string_view name() const override { return name_; }
  std::vector<WorkloadParameter> parameters() const override {
    std::vector<WorkloadParameter> out;
    for (int j = 0; j < dimensions_; ++j) {
      std::string name = "x";
      name += std::to_string(j);
      out.push_back({name, 0, 1, false, {}});
    }
    return out;
  }
  double value(const std::vector<double>& x, double z) const override {
    HPSEARCH_ASSERT(x.size() == static_cast<std::size_t>(dimensions_), "wrong input size");
    const auto u = [&](Shape s) { return shapes_[s](x); };
    const double c = 0.55 + 0.4 * u(kAsymptote);
    const double y0 = 0.05 + 0.3 * u(kStart);
    const double alpha = std::exp(-1.5 + 2.5 * u(kAlpha));
    const double k = std::exp(-4.0 + 3.0 * u(kK));
    const double delta = std::exp(-0.5 + u(kDelta));
    const double w[3] = {0.05 + u(kWeightPow3), 0.05 + u(kWeightIlog2), 0.05 + u(kWeightJanoschek)};
    const double t = std::max(1.0, kEpochs * z);
    // Fraction of the way from y0 to c still to go, per family.
    const double remaining =
        (w[0] * std::pow(t, -alpha) + w[1] * std::numbers::ln2 / std::log(t + 1) +
         w[2] * std::exp(-k * (std::pow(t, delta) - 1))) /
        (w[0] + w[1] + w[2]);
    const double accuracy = c - (c - y0) * remaining;
    return 1 - accuracy;
  }
  double cost(double z) const override { return z; }
  std::optional<double> optimum() const override { return std::nullopt; }

 private:
  std::string name_;
  int dimensions_;
  std::vector<SmoothFunction> shapes_;
};

}  // namespace

std::unique_ptr<Workload> make_learning_curves(int dimensions, std::uint32_t instance) {
  if (dimensions < 1 || dimensions > 100) {
    throw std::invalid_argument("learning-curves needs 1 to 100 inputs, got " +
                                std::to_string(dimensions));
  }
  return std::make_unique<LearningCurves>(dimensions, instance);
}

}  // namespace hpsearch
