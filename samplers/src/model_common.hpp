#pragma once
// What TPE and GP share: when to model (which length, or a random proposal instead), and the
// state echo of their options.

#include <algorithm>
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

/// The exploration guard (docs/samplers.md, "The exploration guard"): the share of proposals
/// drawn at random, from how the model's own proposals have fared beside the random ones made
/// at the same time. Comparable trials are those created since the model's first proposal
/// (model-made and random ones interleaved, so of a like age and equally able to climb the
/// rungs). A trial whose first result repeats another's bit for bit (ObservationStore::
/// repeated: the same configuration again) is no success of the model's. The share is:
/// - max(kWaryShare, random_fraction) until each side has kGuardEvidence observed trials, and
///   whenever the model-made trials that are not repeats are not over-represented among the
///   best k comparable non-repeated trials of the store's ranking (k a quarter of the
///   comparable trials, within [2, kGuardTop]) relative to the model-made share of all
///   comparable trials;
/// - random_fraction once they are;
/// - and at least the share of model-made comparable trials that were repeats (at most
///   kMaxShare), since those trials were spent for nothing.
/// A random_fraction of 0 asks for a model at every proposal: no guard.
inline constexpr std::size_t kGuardEvidence = 3;
inline constexpr std::size_t kGuardTop = 25;
inline constexpr double kWaryShare = 0.5;
inline constexpr double kMaxShare = 0.9;

inline double random_share(const ModelOptions& options, const ObservationStore& store) {
  if (options.random_fraction == 0) return 0;  // every proposal modelled: no guard either
  const double wary = std::max(kWaryShare, options.random_fraction);
  const std::size_t model_made = store.comparable_modelled();
  const std::size_t random_made = store.comparable_random();
  if (model_made < kGuardEvidence || random_made < kGuardEvidence) return wary;
  const std::size_t comparable = model_made + random_made;
  const std::size_t k = std::clamp<std::size_t>(comparable / 4, 2, kGuardTop);
  std::vector<std::uint32_t> leaders;
  store.leaders(store.cap() / 2, leaders);
  std::size_t top = 0;
  std::size_t model_top = 0;
  for (const std::uint32_t t : leaders) {
    if (top == k) break;
    if (!store.comparable(t) || store.repeated(t)) continue;
    ++top;
    if (store.modelled(t)) ++model_top;
  }
  // Trusted when model_top / top > model_made / comparable (integers: no rounding).
  const double share = model_top * comparable > model_made * top ? options.random_fraction : wary;
  const double wasted =
      static_cast<double>(store.comparable_modelled_repeats()) / static_cast<double>(model_made);
  return std::max(share, std::min(wasted, kMaxShare));
}

/// Whether the next proposal is modelled: once enough trials have reported, unless the draw
/// falls within the exploration guard's random share. Otherwise it is a random proposal.
inline bool use_model(const ModelOptions& options, const ObservationStore& store, RngBits& bits) {
  if (store.dimensions() == 0) return false;
  if (store.observed_trials() < min_observations(options, store.dimensions())) return false;
  return uniform01(bits) >= random_share(options, store);
}

/// A proposal of a model-based sampler: `model_point(rng, point)` fills the model's point in
/// the unit cube, or returns false for a random proposal, which then draws Determined's sample.
/// Either way the trial's point is recorded in the store, with its origin.
template <class ModelPoint>
nlohmann::json propose_point(const HyperparameterSpace& space, const SpaceEncoding& encoding,
                             ObservationStore& store, Rng& rng, std::uint32_t trial,
                             ModelPoint&& model_point) {
  std::vector<double> point(encoding.size());
  if (!model_point(rng, point)) {
    nlohmann::json hparams = sample(space, rng);
    encoding.encode(hparams, point);
    store.add_trial(trial, point, false);
    return hparams;
  }
  store.add_trial(trial, point, true);
  return encoding.decode(point);
}

inline nlohmann::json options_json(const ModelOptions& options) {
  return {{"random_fraction", options.random_fraction},
          {"min_observations", options.min_observations},
          {"max_observations", options.max_observations},
          {"candidates", options.candidates}};
}

}  // namespace hpsearch::sampler_detail
