#pragma once
// The Gaussian-process pieces of the gp sampler: the Matern-5/2 ARD kernel, a Cholesky factor
// grown one row at a time, and the kernel's hyperparameters fitted by marginal likelihood.

#include <Eigen/Dense>
#include <cstddef>
#include <span>
#include <vector>

#include "hpsearch/searcher/space_encoding.hpp"

namespace hpsearch::sampler_detail {

/// Points as rows, stored row by row so that a row's coordinates are contiguous.
using PointMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Kernel hyperparameters, on the log scale. Outputs are standardised before fitting.
struct GpHyper {
  std::vector<double> log_lengthscale;  ///< one per coordinate
  double log_signal = 0;                ///< log of the signal variance
  double log_noise = -9.2;              ///< log of the noise variance (1e-4)
  friend bool operator==(const GpHyper&, const GpHyper&) = default;
};

/// Matern-5/2 with one lengthscale per coordinate: k = s (1 + sqrt5 r + 5/3 r^2) exp(-sqrt5 r),
/// r^2 = sum_j (delta_j / l_j)^2, where delta_j is the difference of numeric coordinates and,
/// for a categorical coordinate, 0 for equal labels and 1 otherwise (so labels carry no order).
class Kernel {
 public:
  Kernel(const std::vector<EncodedDimension>& dimensions, const GpHyper& hyper);
  [[nodiscard]] double operator()(const double* a, const double* b) const;
  [[nodiscard]] double signal() const { return signal_; }
  [[nodiscard]] double noise() const { return noise_; }
  /// The per-coordinate squared differences, scaled by 1/l^2, that make up r^2.
  void scaled_differences(const double* a, const double* b, double* out) const;

 private:
  std::vector<double> inv_l2_;
  std::vector<unsigned char> categorical_;
  std::vector<double> levels_;
  double signal_ = 1;
  double noise_ = 1e-4;
};

/// Matern-5/2 as a function of r (unit signal).
[[nodiscard]] double matern52(double r);

/// The Cholesky factor L of K + noise I, stored as packed lower-triangular rows and grown one
/// row at a time (O(n^2) per row). Rows are computed by the same loops in the same order
/// whether the factor is grown over many proposals or rebuilt at once, so both give the same
/// bits: a searcher restored from a snapshot proposes exactly what the original would have.
class GrowingCholesky {
 public:
  [[nodiscard]] std::size_t size() const { return n_; }
  void clear() {
    rows_.clear();
    n_ = 0;
  }
  /// Appends the row of a new point: `k` its covariances with the points so far (size()
  /// values), `diagonal` its own variance plus noise.
  void append(std::span<const double> k, double diagonal);
  /// Drops the rows after the first n (fantasies added for one proposal).
  void truncate(std::size_t n);
  /// v := L^-1 v (forward substitution).
  void solve_lower(std::span<double> v) const;
  /// v := L^-T v (back substitution).
  void solve_upper(std::span<double> v) const;
  /// L as a dense matrix, for batched solves.
  [[nodiscard]] Eigen::MatrixXd dense() const;

 private:
  [[nodiscard]] const double* row(std::size_t i) const { return rows_.data() + i * (i + 1) / 2; }
  std::vector<double> rows_;
  std::size_t n_ = 0;
};

/// Hyperparameters maximising the log marginal likelihood plus weak log-normal priors
/// (lengthscales around 0.5, signal around 1, noise small), by L-BFGS on the log scale within
/// bounds, from `start` and from the prior's centre; the better of the two. `x` holds n points
/// (rows), `y` their standardised outputs. Deterministic.
[[nodiscard]] GpHyper fit_hyperparameters(const std::vector<EncodedDimension>& dimensions,
                                          const PointMatrix& x, const Eigen::VectorXd& y,
                                          const GpHyper& start, int max_evaluations);

/// Minus (log marginal likelihood + log prior) of the hyperparameters, and its gradient with
/// respect to (log lengthscales, log signal, log noise): what fit_hyperparameters minimises.
[[nodiscard]] double negative_log_posterior(const std::vector<EncodedDimension>& dimensions,
                                            const PointMatrix& x, const Eigen::VectorXd& y,
                                            const GpHyper& hyper, Eigen::VectorXd& gradient);

/// The prior's centre for d coordinates.
[[nodiscard]] GpHyper default_hyper(std::size_t dimensions);

/// log of the expected improvement over `best` of N(mean, sd^2), accurate far into the tail
/// (where the plain formula underflows to 0 and would tie every candidate).
[[nodiscard]] double log_expected_improvement(double best, double mean, double sd);

}  // namespace hpsearch::sampler_detail
