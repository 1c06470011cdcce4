#pragma once
// What TPE and GP share: when to model (which length, or a random proposal instead), and the
// state echo of their options.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "draws.hpp"
#include "hpsearch/samplers/observation_store.hpp"
#include "hpsearch/samplers/sampler_config.hpp"

namespace hpsearch::sampler_detail {

/// Observations a length needs to be modelled.
inline std::uint64_t min_observations(const ModelOptions& options, std::size_t dimensions) {
  return options.min_observations > 0 ? options.min_observations : dimensions + 2;
}

/// The length to model for the next proposal, or none for a random one: the largest length
/// with enough observations (BOHB's rule, pooled over every bracket of the search), unless
/// the random fraction says otherwise. Draws once when a length qualifies.
inline std::optional<std::uint64_t> length_to_model(const ModelOptions& options,
                                                    const ObservationStore& store,
                                                    RngBits& bits) {
  if (store.dimensions() == 0) return std::nullopt;
  const auto length = store.model_length(min_observations(options, store.dimensions()));
  if (!length) return std::nullopt;
  if (uniform01(bits) < options.random_fraction) return std::nullopt;
  return length;
}

inline nlohmann::json options_json(const ModelOptions& options) {
  return {{"random_fraction", options.random_fraction},
          {"min_observations", options.min_observations},
          {"max_observations", options.max_observations},
          {"candidates", options.candidates}};
}

}  // namespace hpsearch::sampler_detail
