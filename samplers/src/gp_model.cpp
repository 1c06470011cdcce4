#include "gp_model.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numbers>

#include "hpsearch/searcher/assert.hpp"

namespace hpsearch::sampler_detail {
namespace {

constexpr double kSqrt5 = 2.23606797749978969641;
constexpr double kLogTwoPi = 1.83787706640934548356;

// Bounds and priors of the log hyperparameters (inputs in [0, 1], outputs standardised).
constexpr double kLogLengthMin = -4.60517018598809136804;     // 0.01
constexpr double kLogLengthMax = 2.99573227355399099344;      // 20
constexpr double kLogSignalMin = -2.99573227355399099344;     // 0.05
constexpr double kLogSignalMax = 2.99573227355399099344;      // 20
constexpr double kLogNoiseMin = -13.8155105579642741041;      // 1e-6
constexpr double kLogNoiseMax = 0;                            // 1
constexpr double kLengthPriorMean = -0.69314718055994530942;  // 0.5
constexpr double kLengthPriorSd = 1.0;
constexpr double kSignalPriorSd = 1.0;
constexpr double kNoisePriorMean = -6.90775527898213705205;  // 1e-3
constexpr double kNoisePriorSd = 2.0;

double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::numbers::sqrt2);
}

// Parameters as one vector: the log lengthscales, then log signal, then log noise.
Eigen::VectorXd pack(const GpHyper& h) {
  const auto d = static_cast<Eigen::Index>(h.log_lengthscale.size());
  Eigen::VectorXd theta(d + 2);
  for (Eigen::Index j = 0; j < d; ++j) theta[j] = h.log_lengthscale[static_cast<std::size_t>(j)];
  theta[d] = h.log_signal;
  theta[d + 1] = h.log_noise;
  return theta;
}

GpHyper unpack(const Eigen::VectorXd& theta) {
  GpHyper h;
  const Eigen::Index d = theta.size() - 2;
  h.log_lengthscale.assign(theta.data(), theta.data() + d);
  h.log_signal = theta[d];
  h.log_noise = theta[d + 1];
  return h;
}

void bounds(Eigen::Index d, Eigen::VectorXd& lower, Eigen::VectorXd& upper) {
  lower.resize(d + 2);
  upper.resize(d + 2);
  lower.head(d).setConstant(kLogLengthMin);
  upper.head(d).setConstant(kLogLengthMax);
  lower[d] = kLogSignalMin;
  upper[d] = kLogSignalMax;
  lower[d + 1] = kLogNoiseMin;
  upper[d + 1] = kLogNoiseMax;
}

// Minus (log marginal likelihood + log prior), and its gradient.
class Objective {
 public:
  Objective(const std::vector<EncodedDimension>& dimensions, const PointMatrix& x,
            const Eigen::VectorXd& y)
      : dimensions_(dimensions), x_(x), y_(y) {}

  double operator()(const Eigen::VectorXd& theta, Eigen::VectorXd& gradient) const {
    const GpHyper h = unpack(theta);
    const Kernel kernel(dimensions_, h);
    const Eigen::Index n = x_.rows();
    const auto d = static_cast<Eigen::Index>(dimensions_.size());
    // Per pair: the signal part of K and the scaled squared differences per coordinate.
    Eigen::MatrixXd kf(n, n);
    std::vector<double> diffs(static_cast<std::size_t>(n * n * d));
    Eigen::MatrixXd dk_dr_term(n, n);  // s (5/3) (1 + sqrt5 r) exp(-sqrt5 r)
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index k = 0; k <= i; ++k) {
        double* out = diffs.data() + static_cast<std::size_t>((i * n + k) * d);
        kernel.scaled_differences(x_.row(i).data(), x_.row(k).data(), out);
        double r2 = 0;
        for (Eigen::Index j = 0; j < d; ++j) r2 += out[j];
        const double r = std::sqrt(r2);
        const double e = std::exp(-kSqrt5 * r);
        kf(i, k) = kf(k, i) = kernel.signal() * (1 + kSqrt5 * r + 5.0 / 3.0 * r2) * e;
        dk_dr_term(i, k) = dk_dr_term(k, i) = kernel.signal() * 5.0 / 3.0 * (1 + kSqrt5 * r) * e;
      }
    }
    Eigen::MatrixXd k = kf;
    k.diagonal().array() += kernel.noise();
    const Eigen::LLT<Eigen::MatrixXd> llt(k);
    gradient.setZero(theta.size());
    if (llt.info() != Eigen::Success) return std::numeric_limits<double>::infinity();
    const Eigen::VectorXd alpha = llt.solve(y_);
    const Eigen::MatrixXd k_inv = llt.solve(Eigen::MatrixXd::Identity(n, n));
    const Eigen::MatrixXd w = alpha * alpha.transpose() - k_inv;
    const Eigen::MatrixXd l = llt.matrixL();
    const double log_det = 2 * l.diagonal().array().log().sum();
    double value = 0.5 * y_.dot(alpha) + 0.5 * log_det + 0.5 * static_cast<double>(n) * kLogTwoPi;

    for (Eigen::Index j = 0; j < d; ++j) {
      double g = 0;
      for (Eigen::Index i = 0; i < n; ++i) {
        for (Eigen::Index m = 0; m < n; ++m) {
          const std::size_t at =
              static_cast<std::size_t>(((i >= m ? i * n + m : m * n + i)) * d + j);
          g += w(i, m) * dk_dr_term(i, m) * diffs[at];
        }
      }
      gradient[j] = -0.5 * g;
    }
    gradient[d] = -0.5 * (w.array() * kf.array()).sum();
    gradient[d + 1] = -0.5 * kernel.noise() * w.trace();

    // Log-normal priors.
    for (Eigen::Index j = 0; j < d; ++j) {
      const double z = (theta[j] - kLengthPriorMean) / kLengthPriorSd;
      value += 0.5 * z * z;
      gradient[j] += z / kLengthPriorSd;
    }
    const double zs = theta[d] / kSignalPriorSd;
    value += 0.5 * zs * zs;
    gradient[d] += zs / kSignalPriorSd;
    const double zn = (theta[d + 1] - kNoisePriorMean) / kNoisePriorSd;
    value += 0.5 * zn * zn;
    gradient[d + 1] += zn / kNoisePriorSd;
    return value;
  }

 private:
  const std::vector<EncodedDimension>& dimensions_;
  const PointMatrix& x_;
  const Eigen::VectorXd& y_;
};

// L-BFGS with a projected backtracking line search: small, deterministic, enough for the
// handful of smooth parameters here.
Eigen::VectorXd minimise(const Objective& f, Eigen::VectorXd x, const Eigen::VectorXd& lower,
                         const Eigen::VectorXd& upper, int max_evaluations, double& best) {
  constexpr std::size_t kMemory = 6;
  const auto project = [&](Eigen::VectorXd v) { return v.cwiseMax(lower).cwiseMin(upper); };
  x = project(x);
  Eigen::VectorXd g;
  double fx = f(x, g);
  int evaluations = 1;
  std::deque<std::pair<Eigen::VectorXd, Eigen::VectorXd>> memory;  // (s, y)
  while (evaluations < max_evaluations && std::isfinite(fx)) {
    // Two-loop recursion for the quasi-Newton direction.
    Eigen::VectorXd q = g;
    std::vector<double> a(memory.size());
    for (std::size_t i = memory.size(); i-- > 0;) {
      const auto& [s, yv] = memory[i];
      a[i] = s.dot(q) / yv.dot(s);
      q -= a[i] * yv;
    }
    if (!memory.empty()) {
      const auto& [s, yv] = memory.back();
      q *= s.dot(yv) / yv.dot(yv);
    }
    for (std::size_t i = 0; i < memory.size(); ++i) {
      const auto& [s, yv] = memory[i];
      const double b = yv.dot(q) / yv.dot(s);
      q += (a[i] - b) * s;
    }
    Eigen::VectorXd direction = -q;
    if (g.dot(direction) >= 0) {
      direction = -g;
      memory.clear();
    }
    double step = memory.empty() ? std::min(1.0, 1.0 / std::max(g.norm(), 1e-12)) : 1.0;
    bool moved = false;
    Eigen::VectorXd x_new;
    Eigen::VectorXd g_new;
    double f_new = fx;
    for (int tries = 0; tries < 20 && evaluations < max_evaluations; ++tries) {
      x_new = project(x + step * direction);
      f_new = f(x_new, g_new);
      ++evaluations;
      if (std::isfinite(f_new) && f_new <= fx + 1e-4 * g.dot(x_new - x)) {
        moved = true;
        break;
      }
      step *= 0.5;
    }
    if (!moved) break;
    const Eigen::VectorXd s = x_new - x;
    const Eigen::VectorXd yv = g_new - g;
    const double change = fx - f_new;
    x = x_new;
    g = g_new;
    fx = f_new;
    if (s.dot(yv) > 1e-10) {
      memory.emplace_back(s, yv);
      if (memory.size() > kMemory) memory.pop_front();
    }
    if (change < 1e-7 * (1 + std::abs(fx))) break;
  }
  best = fx;
  return x;
}

}  // namespace

double matern52(double r) {
  return (1 + kSqrt5 * r + 5.0 / 3.0 * r * r) * std::exp(-kSqrt5 * r);
}

Kernel::Kernel(const std::vector<EncodedDimension>& dimensions, const GpHyper& hyper)
    : signal_(std::exp(hyper.log_signal)), noise_(std::exp(hyper.log_noise)) {
  HPSEARCH_ASSERT(hyper.log_lengthscale.size() == dimensions.size(), "kernel: wrong dimensions");
  for (std::size_t j = 0; j < dimensions.size(); ++j) {
    inv_l2_.push_back(std::exp(-2 * hyper.log_lengthscale[j]));
    categorical_.push_back(dimensions[j].kind == EncodedDimension::Kind::kCategorical ? 1 : 0);
    levels_.push_back(dimensions[j].levels);
  }
}

void Kernel::scaled_differences(const double* a, const double* b, double* out) const {
  for (std::size_t j = 0; j < inv_l2_.size(); ++j) {
    double delta = a[j] - b[j];
    if (categorical_[j] != 0) {
      // Cell centres of equal labels are equal doubles; anything else is another label.
      delta = std::floor(a[j] * levels_[j]) == std::floor(b[j] * levels_[j]) ? 0.0 : 1.0;
    }
    out[j] = delta * delta * inv_l2_[j];
  }
}

double Kernel::operator()(const double* a, const double* b) const {
  double r2 = 0;
  for (std::size_t j = 0; j < inv_l2_.size(); ++j) {
    double delta = a[j] - b[j];
    if (categorical_[j] != 0) {
      delta = std::floor(a[j] * levels_[j]) == std::floor(b[j] * levels_[j]) ? 0.0 : 1.0;
    }
    r2 += delta * delta * inv_l2_[j];
  }
  return signal_ * matern52(std::sqrt(r2));
}

void GrowingCholesky::append(std::span<const double> k, double diagonal) {
  HPSEARCH_ASSERT(k.size() == n_, "cholesky: row of the wrong size");
  const std::size_t start = rows_.size();
  rows_.resize(start + n_ + 1);
  double* out = rows_.data() + start;
  double sum_squares = 0;
  for (std::size_t j = 0; j < n_; ++j) {
    const double* lj = row(j);
    double v = k[j];
    for (std::size_t m = 0; m < j; ++m) v -= out[m] * lj[m];
    v /= lj[j];
    out[j] = v;
    sum_squares += v * v;
  }
  // A tiny floor keeps the factor usable when a point repeats one already in (noise is at
  // least 1e-6 of the signal, so this only guards rounding).
  out[n_] = std::sqrt(std::max(diagonal - sum_squares, 1e-12 * diagonal));
  ++n_;
}

void GrowingCholesky::truncate(std::size_t n) {
  if (n >= n_) return;
  n_ = n;
  rows_.resize(n * (n + 1) / 2);
}

void GrowingCholesky::solve_lower(std::span<double> v) const {
  for (std::size_t i = 0; i < n_; ++i) {
    const double* li = row(i);
    double sum = v[i];
    for (std::size_t m = 0; m < i; ++m) sum -= li[m] * v[m];
    v[i] = sum / li[i];
  }
}

void GrowingCholesky::solve_upper(std::span<double> v) const {
  for (std::size_t i = n_; i-- > 0;) {
    double sum = v[i];
    for (std::size_t m = i + 1; m < n_; ++m) sum -= row(m)[i] * v[m];
    v[i] = sum / row(i)[i];
  }
}

Eigen::MatrixXd GrowingCholesky::dense() const {
  const auto n = static_cast<Eigen::Index>(n_);
  Eigen::MatrixXd l = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double* li = row(static_cast<std::size_t>(i));
    for (Eigen::Index m = 0; m <= i; ++m) l(i, m) = li[m];
  }
  return l;
}

double negative_log_posterior(const std::vector<EncodedDimension>& dimensions, const PointMatrix& x,
                              const Eigen::VectorXd& y, const GpHyper& hyper,
                              Eigen::VectorXd& gradient) {
  return Objective(dimensions, x, y)(pack(hyper), gradient);
}

GpHyper default_hyper(std::size_t dimensions) {
  GpHyper h;
  h.log_lengthscale.assign(dimensions, kLengthPriorMean);
  h.log_signal = 0;
  h.log_noise = kNoisePriorMean;
  return h;
}

GpHyper fit_hyperparameters(const std::vector<EncodedDimension>& dimensions, const PointMatrix& x,
                            const Eigen::VectorXd& y, const GpHyper& start, int max_evaluations) {
  const Objective objective(dimensions, x, y);
  Eigen::VectorXd lower;
  Eigen::VectorXd upper;
  bounds(static_cast<Eigen::Index>(dimensions.size()), lower, upper);
  double from_start = 0;
  double from_prior = 0;
  const Eigen::VectorXd a =
      minimise(objective, pack(start), lower, upper, max_evaluations, from_start);
  const GpHyper prior = default_hyper(dimensions.size());
  if (prior == start) return unpack(a);
  const Eigen::VectorXd b =
      minimise(objective, pack(prior), lower, upper, max_evaluations, from_prior);
  return unpack(from_prior < from_start ? b : a);
}

double log_expected_improvement(double best, double mean, double sd) {
  const double improvement = best - mean;
  if (!(sd > 1e-12)) return std::log(std::max(improvement, 1e-300));
  const double z = improvement / sd;
  if (z > -6) {
    const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
    const double ei = sd * (z * normal_cdf(z) + pdf);
    return std::log(std::max(ei, 1e-300));
  }
  // z Phi(z) + phi(z) = phi(z) (1/z^2 - 3/z^4 + ...) for z -> -infinity.
  const double z2 = z * z;
  return std::log(sd) - 0.5 * z2 - 0.5 * std::log(2 * std::numbers::pi) +
         std::log(1 / z2 - 3 / (z2 * z2));
}

}  // namespace hpsearch::sampler_detail
