#pragma once
/// \file
/// The validated options of each sampler (config/ produces them from `searcher.sampler`).

#include <cstdint>
#include <variant>

namespace hpsearch {

/// `random`: Determined's sampler (the default).
struct RandomSamplerConfig {
  friend bool operator==(const RandomSamplerConfig&, const RandomSamplerConfig&) = default;
};

/// `grid`: the grid's points in Determined's order.
struct GridSamplerConfig {
  friend bool operator==(const GridSamplerConfig&, const GridSamplerConfig&) = default;
};

/// What the model-based samplers share.
struct ModelOptions {
  /// The share of proposals drawn at random once the model has earned trust; the exploration
  /// guard draws more until then (docs/samplers.md). 0: every proposal modelled, no guard.
  double random_fraction = 0.1;
  /// Trials that must have reported before proposals are modelled; 0 means dimensions + 2.
  /// Until then proposals are random (Determined's draws).
  std::uint64_t min_observations = 0;
  /// The most trials (TPE) or observations (GP) a model is fitted on: the best half and an
  /// even spread of the rest (docs/samplers.md gives the reasoning).
  std::uint64_t max_observations = 256;
  /// Candidates scored per proposal.
  std::uint64_t candidates = 24;
  friend bool operator==(const ModelOptions&, const ModelOptions&) = default;
};

/// `tpe`: multivariate tree-structured Parzen estimators.
struct TpeConfig {
  ModelOptions model{};
  /// The fraction of observations at the modelled length that count as good.
  double gamma = 0.15;
  /// Weight of the broad prior component in both densities (each observation weighs 1).
  double prior_weight = 1.0;
  friend bool operator==(const TpeConfig&, const TpeConfig&) = default;
};

/// `gp`: Gaussian-process Bayesian optimisation (Matern-5/2 ARD kernel, expected improvement).
struct GpConfig {
  ModelOptions model{
      .random_fraction = 0.05, .min_observations = 0, .max_observations = 256, .candidates = 256};
  /// The most observations the kernel's hyperparameters are fitted on (marginal likelihood).
  std::uint64_t fit_observations = 96;
  /// Refit the hyperparameters once there are this many times the observations of the last fit.
  double refit_growth = 1.25;
  friend bool operator==(const GpConfig&, const GpConfig&) = default;
};

/// `auto`: random, TPE or GP with their default options, chosen by the space and the budget
/// when the searcher is made (config/'s choose_sampler; docs/samplers.md, "sampler: auto").
struct AutoSamplerConfig {
  friend bool operator==(const AutoSamplerConfig&, const AutoSamplerConfig&) = default;
};

using SamplerConfig =
    std::variant<RandomSamplerConfig, GridSamplerConfig, TpeConfig, GpConfig, AutoSamplerConfig>;

}  // namespace hpsearch
