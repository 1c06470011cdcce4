#pragma once
/// \file
/// Workloads: what a trial's metric is, for a configuration at a fidelity, in simulated
/// searches. Closed-form multi-fidelity benchmarks (spec/benchmarks.md section 2) with their
/// published conventions; fidelity z is length / max_length in [0, 1], z = 1 the target.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpsearch {

/// One input of a workload: a hyperparameter name and its domain.
struct WorkloadParameter {
  std::string name;
  double minval = 0;
  double maxval = 1;
  bool binary = false;  ///< takes only the values 0 and 1 (counting ones' categoricals)
};

/// A benchmark function of a configuration and a fidelity. Smaller is better. An open set
/// (tabulated and learning-curve workloads follow), hence an interface.
class Workload {
 public:
  virtual ~Workload() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// The hyperparameters it reads, in the order `value` takes them.
  [[nodiscard]] virtual std::vector<WorkloadParameter> parameters() const = 0;
  /// The noise-free metric at fidelity z in [0, 1]. Precondition: x.size() == parameters().size().
  [[nodiscard]] virtual double value(const std::vector<double>& x, double fidelity) const = 0;
  /// Relative cost of evaluating at fidelity z; 1 at z = 1.
  [[nodiscard]] virtual double cost(double fidelity) const = 0;
  /// The best value at z = 1, where known (for regret).
  [[nodiscard]] virtual std::optional<double> optimum() const = 0;
};

/// How a scalar fidelity moves the coefficients of MF-Branin and MF-Hartmann: every
/// coefficient (mfhpo-benchmark-api), or only the first (dragonfly, fidel_dim = 1).
enum class FidelityConvention { kAllCoefficients, kFirstCoefficient };

/// Multi-fidelity Branin on x1 in [-5, 10], x2 in [0, 15]; cost 0.05 + 0.95 z^1.5.
[[nodiscard]] std::unique_ptr<Workload> make_mf_branin(FidelityConvention convention);
/// Multi-fidelity Hartmann-3 or -6 on [0, 1]^d; costs 0.1 + 0.9 (z + z^2 + z^3)/3 (d = 3) and
/// 0.1 + 0.9 (2z + z^2 + z^3)/4 (d = 6).
[[nodiscard]] std::unique_ptr<Workload> make_mf_hartmann(int dimensions,
                                                         FidelityConvention convention);
/// mf-prior-bench's MFHartmann-3 with a preset bias (noise-free part): fidelity maps to
/// z_int = 1 + 99 z, s = ln z_int / ln 100; cost 0.05 + 0.95 (z_int / 100)^2. Presets: default
/// (bias 0.5), good (2.5), moderate (3.0), bad (3.5), terrible (4.0).
[[nodiscard]] std::unique_ptr<Workload> make_prior_hartmann(std::string_view preset);
/// Counting ones (BOHB) with n binary and n continuous inputs; the noise-free value is the
/// expectation -(sum x + sum y); cost proportional to the budget (fidelity).
[[nodiscard]] std::unique_ptr<Workload> make_counting_ones(int per_kind);

}  // namespace hpsearch
