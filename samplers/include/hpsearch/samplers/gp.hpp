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
}

/// GP-BO. Each proposal models one length, chosen as TPE chooses it (the largest with enough
/// observations, pooled over brackets), on that length's capped observations (standardised).
/// Kernel: Matern-5/2 with a lengthscale per coordinate (categorical coordinates compare
/// labels), signal and noise variances, fitted by maximising the marginal likelihood (plus weak
/// priors) on at most `fit_observations` of them, and refitted only when the data grew by
/// `refit_growth` or another length is modelled. Between refits the Cholesky factor is
/// extended row by row (O(n^2) per new observation), never refactored. Trials training now
/// enter as fantasies: observations at their predicted mean, which collapse the uncertainty
/// around them so parallel workers are sent elsewhere. The proposal maximises expected
/// improvement over `candidates` random points plus local moves around the best observations,
/// then refines the best few with shrinking local moves. Random proposals (Determined's draws)
/// until a length has enough observations, and for `random_fraction` after.
class GpSampler {
 public:
  GpSampler(const HyperparameterSpace& space, const GpConfig& config);
  GpSampler(const GpSampler& other);
  GpSampler& operator=(const GpSampler& other);
  GpSampler(GpSampler&&) noexcept;
  GpSampler& operator=(GpSampler&&) noexcept;
  ~GpSampler();

  [[nodiscard]] nlohmann::json propose(Rng& rng, std::uint32_t trial);
  void on_pending(std::uint32_t trial, std::uint64_t length) { store_.on_pending(trial, length); }
  void observe(std::uint32_t trial, std::uint64_t length, double metric) {
    store_.observe(trial, length, metric);
  }
  void on_finished(std::uint32_t trial) { store_.on_finished(trial); }
  [[nodiscard]] std::optional<std::uint64_t> capacity() const { return std::nullopt; }
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
    std::uint64_t length = 0;        // the modelled length
    std::uint64_t observations = 0;  // observations there when fitted
    std::vector<double> log_lengthscale;
    double log_signal = 0;
    double log_noise = 0;
    friend bool operator==(const Fit&, const Fit&) = default;
  };

  bool model_point(Rng& rng, std::vector<double>& point);

  HyperparameterSpace space_;
  SpaceEncoding encoding_;
  GpConfig config_;
  ObservationStore store_;
  std::optional<Fit> fit_;
  std::uint64_t fits_ = 0;  // how many fits so far (the factor cache's key)
  std::unique_ptr<sampler_detail::GpCache> cache_;
};

static_assert(Sampler<GpSampler>);

}  // namespace hpsearch
