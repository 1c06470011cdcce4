#pragma once
/// \file
/// Workloads: what a trial's metric is, for a configuration at a fidelity, in simulated
/// searches. Closed-form multi-fidelity benchmarks (docs/benchmarks.md section 2) with their
/// published conventions; fidelity z is length / max_length in [0, 1], z = 1 the target.

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hpsearch/searcher/space_encoding.hpp"

namespace hpsearch {

/// One input of a workload: a hyperparameter name and its domain.
struct WorkloadParameter {
  std::string name;
  double minval = 0;
  double maxval = 1;
  bool binary = false;  ///< takes only the values 0 and 1 (counting ones' categoricals)
  std::vector<std::string> choices{};  ///< a categorical of strings (tables): read as the index
  /// Reads any number, [minval, maxval] being where its data lie (a table: a value beyond its
  /// rows' range has the nearest row like any other), so a space may reach past that range.
  bool any_number = false;
};

/// A benchmark function of a configuration and a fidelity. Smaller is better. An open set
/// (tabulated and learning-curve workloads follow), hence an interface.
class Workload {
 public:
  virtual ~Workload() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// The hyperparameters it reads, in the order `value` takes them.
  [[nodiscard]] virtual std::vector<WorkloadParameter> parameters() const = 0;
  /// The point `value` is evaluated at for a configuration (encoded in parameters() order):
  /// the configuration itself, or for a table its nearest listed row. Called once per trial.
  [[nodiscard]] virtual std::vector<double> locate(std::vector<double> x) const { return x; }
  /// The noise-free metric at fidelity z in [0, 1], at a point `locate` returned.
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

/// Synthetic learning curves (docs/benchmarks.md 2.6) on x0 .. x(d-1) in [0, 1]: the metric is
/// the error 1 - y(t) of a weighted mix of pow3, ilog2 and Janoschek accuracy curves over
/// t = max(1, 100 z) epochs, whose asymptote, start, speeds and weights are smooth random
/// functions of the configuration (random Fourier features, fixed by `instance`). Speed and
/// final level vary independently, so curves cross and early stopping can be wrong. Linear
/// cost; no known optimum.
[[nodiscard]] std::unique_ptr<Workload> make_learning_curves(int dimensions,
                                                             std::uint32_t instance = 0);

/// A YAHPO rbv2 table (hp_key, train_frac, f1, f1_std, acc, acc_std, auc, auc_std): the metric
/// is the error 1 - acc of the listed configuration nearest to the trial's, interpolated
/// linearly between the tabulated train fractions (below the lowest, its value). Nearest: the
/// fewest categoricals that differ (an exact match wherever the table has one), then the
/// smallest squared distance over the numeric inputs active in the row, each scaled to [0, 1]
/// over the table's range, in logs where the rows were drawn log-uniformly (the median lies
/// nearer the geometric than the arithmetic middle of the range); inputs inactive in a row
/// (None) are skipped; ties go to the row listed first. Cost is linear in
/// train_frac (z). The optimum is the table's best error at train_frac 1. Throws
/// std::invalid_argument naming the file and line of anything it cannot read.
[[nodiscard]] std::unique_ptr<Workload> make_table_workload(const std::filesystem::path& csv,
                                                            std::string name);
/// The same, reading the table from `in`; `source` names it in messages.
[[nodiscard]] std::unique_ptr<Workload> read_table_workload(std::istream& in,
                                                            const std::string& source,
                                                            std::string name);

/// How a search's configurations become a workload's inputs, through the core's encoding of
/// the space (SpaceEncoding::numeric): a number input reads the value, a table's categorical
/// the index of its label among the workload's choices (mapped once, here), a const its fixed
/// value. Built once per search; `read` does no name lookups beyond the encoding's own.
class WorkloadInputs {
 public:
  /// Throws std::invalid_argument as check_workload_parameters does if the space does not fit.
  WorkloadInputs(const Workload& workload, const HyperparameterSpace& space);
  /// The inputs, in parameters() order, of a configuration sampled from the space.
  [[nodiscard]] std::vector<double> read(const nlohmann::json& hparams) const;

 private:
  struct Input {
    std::optional<std::size_t> dimension;  ///< the encoding's coordinate; none for a const
    double fixed = 0;                      ///< a const's value
    std::vector<double> by_index{};        ///< a categorical: its value index -> the input
  };
  SpaceEncoding encoding_;
  std::vector<Input> inputs_;
};

/// The config's top-level hyperparameters must be exactly the workload's inputs. Throws
/// std::invalid_argument naming the missing and the extra ones.
void check_workload_parameters(const Workload& workload, const HyperparameterSpace& space);

/// Where the shipped data (data/yahpo-rbv2) is: the source tree's data/ directory while it
/// exists (a build tree), else the installed copy (`share/hpsearch` under the install prefix
/// the build was configured with).
[[nodiscard]] std::filesystem::path default_data_dir();

/// One row of the workload table: how its names read, what inputs it takes (both for
/// `searcher-sim help run`), and its maker, which returns the workload if `name` is one of the
/// row's and nullptr otherwise (it may throw std::invalid_argument for a name that is the row's
/// but cannot be made, such as a table that cannot be read). Adding a workload: its own source
/// file with a make_ function, and one row in workload_rows() (workload_registry.cpp).
struct WorkloadRow {
  std::string_view names;
  std::string_view inputs;
  std::unique_ptr<Workload> (*make)(const std::string& name, const std::filesystem::path& data_dir);
};

/// The workload table, in the order help lists it.
[[nodiscard]] const std::vector<WorkloadRow>& workload_rows();
/// The rows' names, separated by commas (the unknown-workload message).
[[nodiscard]] std::string workload_list();

/// A workload by name, from the first row of workload_rows() that makes it: mf-branin,
/// mf-branin-dragonfly, mf-hartmann3, mf-hartmann6 (and their -dragonfly forms),
/// prior-hartmann-{default,good,moderate,bad,terrible}, counting-ones-N, learning-curves-N,
/// rbv2-{svm,glmnet,aknn} (OpenML task 1220, data_dir/yahpo-rbv2) and rbv2-{svm,glmnet,aknn}@TASK
/// (data_dir/yahpo-rbv2, else data_dir/yahpo-rbv2-dev). Throws std::invalid_argument listing
/// the names.
[[nodiscard]] std::unique_ptr<Workload> make_workload(
    const std::string& name, const std::filesystem::path& data_dir = default_data_dir());

}  // namespace hpsearch
