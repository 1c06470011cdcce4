#pragma once
// What TPE and GP share: when to model (which length, or a random proposal instead), and the
// state echo of their options.

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
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
/// drawn at random is `random_fraction`, raised to the share of the model's own trials that
/// were repeats (ObservationStore::repeated: a first result equal bit for bit to one another
/// trial had reported at that length, so most likely the same configuration again, spent for
/// nothing), at most kMaxShare. Only trials created since the model's first proposal count.
/// Where no result repeats (continuous spaces) this is random_fraction exactly, as before the
/// guard. A random_fraction of 0 asks for a model at every proposal: no guard.
inline constexpr double kMaxShare = 0.9;

inline double random_share(const ModelOptions& options, const ObservationStore& store) {
  if (options.random_fraction == 0) return 0;  // every proposal modelled: no guard either
  const std::size_t model_made = store.comparable_modelled();
  if (model_made == 0) return options.random_fraction;
  const double wasted =
      static_cast<double>(store.comparable_modelled_repeats()) / static_cast<double>(model_made);
  return std::max(options.random_fraction, std::min(wasted, kMaxShare));
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

/// Per coordinate of the encoding, 1 if it holds a categorical (ObservationStore's mask).
inline std::vector<std::uint8_t> categorical_mask(const SpaceEncoding& encoding) {
  std::vector<std::uint8_t> mask;
  for (const EncodedDimension& dimension : encoding.dimensions()) {
    mask.push_back(dimension.kind == EncodedDimension::Kind::kCategorical ? 1 : 0);
  }
  return mask;
}

/// The points a model knows (the trials it is fitted on and those training now), one after
/// another, for already_known; empty while the store's repeat radius is 0 (nothing to avoid).
/// Bounded by the store's cap and the trials in flight, whatever the search's size.
inline std::vector<double> known_points(const ObservationStore& store) {
  std::vector<double> out;
  if (store.repeat_radius() <= 0) return out;
  std::vector<std::uint32_t> trials;
  std::vector<std::uint32_t> pending;
  store.model_trials(trials);
  store.pending(pending);
  trials.insert(trials.end(), pending.begin(), pending.end());
  out.reserve(trials.size() * store.dimensions());
  for (const std::uint32_t t : trials) {
    const std::span<const double> p = store.point(t);
    out.insert(out.end(), p.begin(), p.end());
  }
  return out;
}

/// Whether `candidate` lies within the store's repeat radius of one of `known` (known_points):
/// a configuration whose result the search most likely has already, by what repeats taught
/// it. Never true while the radius is 0.
inline bool already_known(const ObservationStore& store, std::span<const double> candidate,
                          const std::vector<double>& known) {
  const double radius = store.repeat_radius();
  if (radius <= 0) return false;
  const std::size_t d = store.dimensions();
  for (std::size_t at = 0; at + d <= known.size(); at += d) {
    if (store.within(candidate, std::span<const double>(known.data() + at, d), radius)) return true;
  }
  return false;
}

/// A trial another sampler proposed, recorded as a random proposal.
inline void record_trial(const SpaceEncoding& encoding, ObservationStore& store,
                         std::uint32_t trial, const nlohmann::json& hparams) {
  std::vector<double> point(encoding.size());
  encoding.encode(hparams, point);
  store.add_trial(trial, point, false);
}

inline nlohmann::json options_json(const ModelOptions& options) {
  return {{"random_fraction", options.random_fraction},
          {"min_observations", options.min_observations},
          {"max_observations", options.max_observations},
          {"candidates", options.candidates}};
}

}  // namespace hpsearch::sampler_detail
