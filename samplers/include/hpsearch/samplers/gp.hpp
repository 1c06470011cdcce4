#pragma once
/// \file
/// `gp`: Gaussian-process Bayesian optimisation, MOBSTER/BOHB-style under ASHA.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "hpsearch/samplers/observation_store.hpp"
#include "hpsearch/samplers/sampler_config.hpp"
#include "hpsearch/searcher/hyperparameters.hpp"
#include "hpsearch/searcher/rng.hpp"
#include "hpsearch/searcher/sampler.hpp"
#include "hpsearch/searcher/space_encoding.hpp"

namespace hpsearch {

namespace sampler_detail {
struct GpCache;
struct GpData;
struct GpHyper;
class Kernel;
}  // namespace sampler_detail

/// GP-BO with the training length as an input (MOBSTER-style under ASHA): every observation
/// is a row (point, fidelity) -> metric, the fidelity log(length) / log(longest length seen), so
/// the kernel learns how much short trainings tell about long ones and every rung of every
/// bracket informs the model; expected improvement is maximised at fidelity 1. Outputs are
/// warped (median and interquartile scale, the bad tail compressed) and standardised. Kernel:
/// Matern-5/2 with a lengthscale per coordinate and for the fidelity (categorical coordinates
/// compare labels), signal and noise variances, fitted by maximising the marginal likelihood
/// (plus weak priors) on at most `fit_observations` rows, refitted only when the observations
/// grew by `refit_growth`. Between refits the Cholesky factor is extended row by row (O(n^2)
/// per new observation) while the capped data only grows. Trials training now enter as
/// fantasies at the length they train toward, valued at the predicted mean, which collapses
/// the uncertainty there so parallel workers are sent elsewhere. EI is maximised over
/// `candidates` random points plus local moves around the best observations at the longest
/// length, then refined around the best few with shrinking moves. Random proposals
/// (Determined's draws) until enough trials have reported, and for the exploration guard's share
/// after (model_common.hpp, random_share).
class GpSampler {
 public:
  GpSampler(const HyperparameterSpace& space, const GpConfig& config);
  GpSampler(const GpSampler& other);
  GpSampler& operator=(const GpSampler& other);
  GpSampler(GpSampler&&) noexcept;
  GpSampler& operator=(GpSampler&&) noexcept;
  ~GpSampler();

  [[nodiscard]] nlohmann::json propose(Rng& rng, std::uint32_t trial);
  /// Records a trial another sampler proposed (`auto`), as a random proposal of its own.
  void record(std::uint32_t trial, const nlohmann::json& hparams);
  void on_pending(std::uint32_t trial, std::uint64_t length) { store_.on_pending(trial, length); }
  void observe(std::uint32_t trial, std::uint64_t length, double metric) {
    store_.observe(trial, length, metric);
  }
  void on_finished(std::uint32_t trial) { store_.on_finished(trial); }
  [[nodiscard]] std::optional<std::uint64_t> capacity() const { return std::nullopt; }
  [[nodiscard]] bool learns() const { return true; }
  [[nodiscard]] nlohmann::json state() const;
  /// Throws ProtocolError if the state is another sampler's or has other options.
  void restore_state(const nlohmann::json& state);

  [[nodiscard]] const ObservationStore& store() const { return store_; }
  /// The fitted kernel as state() writes it (null before the first fit).
  [[nodiscard]] nlohmann::json kernel_state() const;
  /// Equal state; the factor cache is not state and is not compared.
  friend bool operator==(const GpSampler& a, const GpSampler& b);

 private:
  struct Fit {
    std::uint64_t observations = 0;  // observations when fitted
    std::vector<double> log_lengthscale;
    double log_signal = 0;
    double log_noise = 0;
    [[nodiscard]] sampler_detail::GpHyper hyper() const;
    friend bool operator==(const Fit&, const Fit&) = default;
  };

  bool model_point(Rng& rng, std::vector<double>& point);
  // The parts of a proposal (gp.cpp): the kernel refitted when the data grew enough, and the
  // factor of the data and the fantasies with their weights.
  void refit_if_grown(const sampler_detail::GpData& m);
  std::vector<double> factor_with_fantasies(const sampler_detail::Kernel& kernel,
                                            sampler_detail::GpData& m);

  HyperparameterSpace space_;
  SpaceEncoding encoding_;
  std::vector<EncodedDimension> model_dims_;  // the encoding's, then the fidelity
  GpConfig config_;
  ObservationStore store_;
  std::optional<Fit> fit_;
  std::uint64_t fits_ = 0;  // how many fits so far (the factor cache's key)
  std::unique_ptr<sampler_detail::GpCache> cache_;
};

static_assert(Sampler<GpSampler>);

}  // namespace hpsearch
