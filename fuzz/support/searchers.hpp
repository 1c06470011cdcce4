#pragma once
// The searchers the protocol targets drive: one small config per method and variant, so that
// a whole search fits in a few dozen events and every method's state can be reached.

#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

#include "hpsearch/config/catalog.hpp"
#include "hpsearch/config/config.hpp"

namespace hpsearch::fuzz {

inline constexpr std::string_view kSpace = R"(
hyperparameters:
  lr: {type: log, minval: -4, maxval: -1, base: 10, count: 2}
  layers: {type: int, minval: 1, maxval: 3, count: 2}
  act: {type: categorical, vals: [relu, tanh]}
  batch: 32
  opt:
    name: {type: categorical, vals: [sgd, adam]}
    momentum: {type: double, minval: 0.5, maxval: 0.9, count: 2}
)";

inline constexpr std::array<std::string_view, 7> kSearchers{
    "searcher: {name: single, metric: loss, max_length: 4}",
    "searcher: {name: random, metric: loss, max_length: 8, max_trials: 5, "
    "max_concurrent_trials: 2}",
    "searcher: {name: grid, metric: loss, max_length: 4, max_concurrent_trials: 3}",
    "searcher: {name: async_halving, metric: loss, max_length: 16, num_rungs: 3, divisor: 2, "
    "max_trials: 8, max_concurrent_trials: 3}",
    "searcher: {name: async_halving, metric: acc, smaller_is_better: false, max_length: 9, "
    "num_rungs: 3, divisor: 3, max_trials: 6, max_concurrent_trials: 0, stop_once: true}",
    "searcher: {name: adaptive_asha, metric: loss, max_length: 16, max_trials: 10, "
    "max_rungs: 3, divisor: 2, mode: aggressive, max_concurrent_trials: 4}",
    "searcher: {name: adaptive_asha, metric: loss, max_length: 27, max_trials: 7, "
    "mode: conservative, divisor: 3, stop_once: true, max_concurrent_trials: 2}",
};

/// The configs above, parsed once.
[[nodiscard]] inline const std::vector<ExperimentConfig>& searcher_configs() {
  static const std::vector<ExperimentConfig> configs = [] {
    std::vector<ExperimentConfig> out;
    for (std::string_view searcher : kSearchers) {
      out.push_back(parse_config(std::string(searcher) + std::string(kSpace), "pool.yaml"));
    }
    return out;
  }();
  return configs;
}

/// A fresh searcher of config `index` (taken modulo the pool size).
[[nodiscard]] inline Searcher pool_searcher(std::size_t index, std::uint32_t seed = 0) {
  const ExperimentConfig& config = searcher_configs()[index % kSearchers.size()];
  return make_searcher(config.searcher, config.hyperparameters, seed);
}

}  // namespace hpsearch::fuzz
