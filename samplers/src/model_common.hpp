#pragma once
// What TPE and GP share: when to model (which length, or a random proposal instead), and the
// state echo of their options.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "draws.hpp"
#include "hpsearch/samplers/observation_store.hpp"
#include "hpsearch/samplers/sampler_config.hpp"
#include "hpsearch/searcher/hyperparameters.hpp"
#include "hpsearch/searcher/space_encoding.hpp"

namespace hpsearch::sampler_detail {

/// Trials that must have reported before proposals are modelled.
inline std::uint64_t min_observations(const ModelOptions& options, std::size_t dimensions) {
  return options.min_observations > 0 ? options.min_observations : dimensions + 2;
}

/// Whether the next proposal is modelled: once enough trials have reported, except for the
/// random fraction (one draw then). Otherwise it is a random proposal.
inline bool use_model(const ModelOptions& options, const ObservationStore& store, RngBits& bits) {
  if (store.dimensions() == 0) return false;
  if (store.observed_trials() < min_observations(options, store.dimensions())) return false;
  return uniform01(bits) >= options.random_fraction;
}

/// A proposal of a model-based sampler: `model_point(rng, point)` fills the model's point in
/// the unit cube, or returns false for a random proposal, which then draws Determined's sample.
/// Either way the trial's point is recorded in the store.
template <class ModelPoint>
nlohmann::json propose_point(const HyperparameterSpace& space, const SpaceEncoding& encoding,
                             ObservationStore& store, Rng& rng, std::uint32_t trial,
                             ModelPoint&& model_point) {
  std::vector<double> point(encoding.size());
  if (!model_point(rng, point)) {
    nlohmann::json hparams = sample(space, rng);
    encoding.encode(hparams, point);
    store.add_trial(trial, point);
    return hparams;
  }
  store.add_trial(trial, point);
  return encoding.decode(point);
}

inline nlohmann::json options_json(const ModelOptions& options) {
  return {{"random_fraction", options.random_fraction},
          {"min_observations", options.min_observations},
          {"max_observations", options.max_observations},
          {"candidates", options.candidates}};
}

}  // namespace hpsearch::sampler_detail
