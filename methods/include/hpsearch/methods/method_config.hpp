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

using MethodConfig =
    std::variant<SingleConfig, RandomConfig, GridConfig, AshaConfig, AdaptiveAshaConfig>;

}  // namespace hpsearch
