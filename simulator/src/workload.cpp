#include "hpsearch/simulator/workload.hpp"

#include <Eigen/Dense>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "hpsearch/searcher/assert.hpp"

namespace hpsearch {
namespace {

using std::numbers::pi;

// prefix + number, appended (GCC 12 warns falsely on `"x" + std::to_string(j)` at -O3).
std::string numbered(const char* prefix, long number) {
  std::string name = prefix;
  name += std::to_string(number);
  return name;
}

class MfBranin final : public Workload {
 public:
  explicit MfBranin(FidelityConvention convention) : convention_(convention) {}
  std::string_view name() const override {
    return convention_ == FidelityConvention::kAllCoefficients ? "mf-branin"
                                                               : "mf-branin-dragonfly";
  }
  std::vector<WorkloadParameter> parameters() const override {
    return {{"x1", -5, 10, false}, {"x2", 0, 15, false}};
  }
  double value(const std::vector<double>& x, double z) const override {
    // b moves in both conventions; c and t only when every coefficient follows z.
    const double zc = convention_ == FidelityConvention::kAllCoefficients ? z : 1.0;
    const double b = 5.1 / (4 * pi * pi) - 0.01 * (1 - z);
    const double c = 5 / pi - 0.1 * (1 - zc);
    const double t = 1 / (8 * pi) + 0.005 * (1 - zc);
    const double inner = x[1] - b * x[0] * x[0] + c * x[0] - 6;
    return inner * inner + 10 * (1 - t) * std::cos(x[0]) + 10;
  }
  double cost(double z) const override { return 0.05 + 0.95 * std::pow(z, 1.5); }
  std::optional<double> optimum() const override { return 0.397887357729738; }

 private:
  FidelityConvention convention_;
};

// -sum_i alpha_i(z) exp(-sum_j A_ij (x_j - P_ij)^2), the Hartmann family.
class HartmannBase : public Workload {
 public:
  HartmannBase(Eigen::MatrixXd a, Eigen::MatrixXd p) : a_(std::move(a)), p_(std::move(p)) {}
  std::vector<WorkloadParameter> parameters() const override {
    std::vector<WorkloadParameter> out;
    for (Eigen::Index j = 0; j < a_.cols(); ++j) out.push_back({numbered("x", j), 0, 1, false});
    return out;
  }

 protected:
  double hartmann(const std::vector<double>& x, const Eigen::Vector4d& alpha) const {
    HPSEARCH_ASSERT(x.size() == static_cast<std::size_t>(a_.cols()), "wrong input size");
    const Eigen::Map<const Eigen::RowVectorXd> point(x.data(), a_.cols());
    double sum = 0;
    for (Eigen::Index i = 0; i < 4; ++i) {
      const Eigen::RowVectorXd diff = point - p_.row(i);
      sum += alpha(i) * std::exp(-(a_.row(i).array() * diff.array().square()).sum());
    }
    return -sum;
  }

 private:
  Eigen::MatrixXd a_;
  Eigen::MatrixXd p_;
};

Eigen::MatrixXd hartmann_a(int d) {
  Eigen::MatrixXd a(4, d);
  if (d == 3) {
    a << 3, 10, 30, 0.1, 10, 35, 3, 10, 30, 0.1, 10, 35;
  } else {
    a << 10, 3, 17, 3.5, 1.7, 8, 0.05, 10, 17, 0.1, 8, 14, 3, 3.5, 1.7, 10, 17, 8, 17, 8, 0.05, 10,
        0.1, 14;
  }
  return a;
}

Eigen::MatrixXd hartmann_p(int d) {
  Eigen::MatrixXd p(4, d);
  if (d == 3) {
    p << 3689, 1170, 2673, 4699, 4387, 7470, 1091, 8732, 5547, 381, 5743, 8828;
  } else {
    p << 1312, 1696, 5569, 124, 8283, 5886, 2329, 4135, 8307, 3736, 1004, 9991, 2348, 1451, 3522,
        2883, 3047, 6650, 4047, 8828, 8732, 5743, 1091, 381;
  }
  return p * 1e-4;
}

const Eigen::Vector4d kAlpha{1.0, 1.2, 3.0, 3.2};

class MfHartmann final : public HartmannBase {
 public:
  MfHartmann(int d, FidelityConvention convention)
      : HartmannBase(hartmann_a(d), hartmann_p(d)), d_(d), convention_(convention) {}
  std::string_view name() const override {
    if (convention_ == FidelityConvention::kFirstCoefficient) {
      return d_ == 3 ? "mf-hartmann3-dragonfly" : "mf-hartmann6-dragonfly";
    }
    return d_ == 3 ? "mf-hartmann3" : "mf-hartmann6";
  }
  double value(const std::vector<double>& x, double z) const override {
    Eigen::Vector4d alpha = kAlpha;
    if (convention_ == FidelityConvention::kAllCoefficients) {
      alpha.array() -= 0.1 * (1 - z);
    } else {
      alpha(0) -= 0.1 * (1 - z);
    }
    return hartmann(x, alpha);
  }
  double cost(double z) const override {
    return d_ == 3 ? 0.1 + 0.9 * (z + z * z + z * z * z) / 3
                   : 0.1 + 0.9 * (2 * z + z * z + z * z * z) / 4;
  }
  std::optional<double> optimum() const override {
    return d_ == 3 ? -3.86278214782076 : -3.32236801141551;
  }

 private:
  int d_;
  FidelityConvention convention_;
};

class PriorHartmann final : public HartmannBase {
 public:
  PriorHartmann(std::string name, double bias)
      : HartmannBase(hartmann_a(3), hartmann_p(3)), name_(std::move(name)), bias_(bias) {}
  std::string_view name() const override { return name_; }
  double value(const std::vector<double>& x, double z) const override {
    const double s = std::log(fidelity_step(z)) / std::log(100.0);
    Eigen::Vector4d alpha = kAlpha;
    alpha.array() -= bias_ * (1 - s);
    return hartmann(x, alpha);
  }
  double cost(double z) const override {
    const double step = fidelity_step(z) / 100;
    return 0.05 + 0.95 * step * step;
  }
  std::optional<double> optimum() const override { return -3.86278214782076; }

 private:
  // The integer fidelity 1..100 of mf-prior-bench.
  static double fidelity_step(double z) { return std::round(1 + 99 * std::clamp(z, 0.0, 1.0)); }
  std::string name_;
  double bias_;
};

class CountingOnes final : public Workload {
 public:
  explicit CountingOnes(int per_kind)
      : name_(numbered("counting-ones-", per_kind)), per_kind_(per_kind) {}
  std::string_view name() const override { return name_; }
  std::vector<WorkloadParameter> parameters() const override {
    std::vector<WorkloadParameter> out;
    for (int i = 0; i < per_kind_; ++i) out.push_back({numbered("cat", i), 0, 1, true});
    for (int i = 0; i < per_kind_; ++i) out.push_back({numbered("cont", i), 0, 1, false});
    return out;
  }
  double value(const std::vector<double>& x, double) const override {
    double sum = 0;
    for (const double v : x) sum += v;
    return -sum;
  }
  double cost(double z) const override { return z; }
  std::optional<double> optimum() const override { return -2.0 * per_kind_; }

 private:
  std::string name_;
  int per_kind_;
};

}  // namespace

std::unique_ptr<Workload> make_mf_branin(FidelityConvention convention) {
  return std::make_unique<MfBranin>(convention);
}

std::unique_ptr<Workload> make_mf_hartmann(int dimensions, FidelityConvention convention) {
  if (dimensions != 3 && dimensions != 6) {
    throw std::invalid_argument("MF-Hartmann has 3 or 6 dimensions, got " +
                                std::to_string(dimensions));
  }
  return std::make_unique<MfHartmann>(dimensions, convention);
}

std::unique_ptr<Workload> make_prior_hartmann(std::string_view preset) {
  const std::pair<std::string_view, double> presets[] = {
      {"default", 0.5}, {"good", 2.5}, {"moderate", 3.0}, {"bad", 3.5}, {"terrible", 4.0}};
  for (const auto& [name, bias] : presets) {
    if (name == preset) {
      std::string full = "prior-hartmann-";
      full += name;
      return std::make_unique<PriorHartmann>(std::move(full), bias);
    }
  }
  throw std::invalid_argument("unknown mf-prior-bench preset '" + std::string(preset) +
                              "' (presets: default, good, moderate, bad, terrible)");
}

std::unique_ptr<Workload> make_counting_ones(int per_kind) {
  if (per_kind < 1) throw std::invalid_argument("counting ones needs at least 1 input per kind");
  return std::make_unique<CountingOnes>(per_kind);
}

}  // namespace hpsearch
