#pragma once
/// \file
/// The validated parameters of each search method (config/ produces them from YAML).

#include <cstdint>
#include <variant>
#include <vector>

namespace hpsearch {

/// `single`: one trial trained to max_length.
struct SingleConfig {
  std::uint64_t max_length = 1;
  friend bool operator==(const SingleConfig&, const SingleConfig&) = default;
};

/// `random`: max_trials sampled trials, each trained to max_length, at most
/// max_concurrent_trials at once (0 = all at once).
struct RandomConfig {
  std::uint64_t max_length = 1;
  std::uint64_t max_trials = 1;
  std::uint64_t max_concurrent_trials = 16;
  friend bool operator==(const RandomConfig&, const RandomConfig&) = default;
};

/// `grid`: every grid point trained to max_length.
struct GridConfig {
  std::uint64_t max_length = 1;
  std::uint64_t max_concurrent_trials = 16;
  friend bool operator==(const GridConfig&, const GridConfig&) = default;
};

/// `async_halving`: ASHA with num_rungs rungs; `stop_once` picks the stopping variant.
struct AshaConfig {
  std::uint64_t max_length = 1;
  std::uint64_t max_trials = 1;
  std::uint64_t num_rungs = 1;
  double divisor = 4;
  std::uint64_t max_concurrent_trials = 16;
  bool stop_once = false;
  friend bool operator==(const AshaConfig&, const AshaConfig&) = default;
};

/// How adaptive ASHA spreads its brackets.
enum class AdaptiveMode { kAggressive, kStandard, kConservative };

/// `adaptive_asha`: brackets of ASHA (spec 3.7).
struct AdaptiveAshaConfig {
  std::uint64_t max_length = 1;
  std::uint64_t max_trials = 1;
  AdaptiveMode mode = AdaptiveMode::kStandard;
  double divisor = 4;
  std::uint64_t max_rungs = 5;
  std::vector<std::uint64_t> bracket_rungs{};  ///< empty: derived from mode
  std::uint64_t max_concurrent_trials = 16;
  bool stop_once = false;
  friend bool operator==(const AdaptiveAshaConfig&, const AdaptiveAshaConfig&) = default;
};

/// `pbt`: population-based training (spec 3.10; Determined 0.17). Each round every member of
/// the population trains length_per_round more; then the worst truncate_fraction are closed
/// and the best as many are cloned (from their checkpoint) with explored hyperparameters.
struct PbtConfig {
  std::uint64_t population_size = 1;
  std::uint64_t num_rounds = 1;
  std::uint64_t length_per_round = 1;
  double truncate_fraction = 0;     ///< replace_function.truncate_fraction, in [0, 0.5]
  double resample_probability = 0;  ///< explore_function.resample_probability, in [0, 1]
  double perturb_factor = 0;        ///< explore_function.perturb_factor, in [0, 1]
  friend bool operator==(const PbtConfig&, const PbtConfig&) = default;
};

using MethodConfig =
    std::variant<SingleConfig, RandomConfig, GridConfig, AshaConfig, AdaptiveAshaConfig, PbtConfig>;

}  // namespace hpsearch
