#pragma once
/// \file
/// The Sampler concept: which configuration a new trial gets. A search is one sampler (random,
/// grid, TPE, GP) plus one method that decides how long trials train; the Searcher feeds the
/// sampler every observation, so a model-based sampler learns from what the method scheduled.

#include <concepts>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "hpsearch/searcher/rng.hpp"

namespace hpsearch {

/// A sampler: a copyable value type. Trials are named by their dense creation index. Metrics
/// arrive canonical: smaller is better (a larger-is-better metric is negated once by the
/// Searcher) and NaN, a diverged trial, is +infinity.
///
/// - `propose(rng, trial)`: the hyperparameters of the trial about to be created, drawing
///   only from `rng` (the search's one stream), before the request id and trial seed.
/// - `on_pending(trial, length)`: the trial now trains toward `length` (a validate_after).
/// - `observe(trial, length, metric)`: the trial reported `metric` after `length` units.
/// - `on_finished(trial)`: the trial exited or closed; it trains no more.
/// - `capacity()`: how many distinct configurations it has (the grid), or none for no limit.
/// - `learns()`: whether it uses what it is fed. One that does not (random, grid) has no
///   state beyond its configuration: the Searcher skips feeding it, and a snapshot without
///   sampler state (format 1) restores into it.
/// - `state()` / `restore_state(j)`: its part of a snapshot (`{"sampler_type": ...}`);
///   restore throws ProtocolError naming what does not fit.
///
/// Feeding (on_pending, observe, on_finished) is O(1) or O(log n) in the number of trials;
/// model fitting happens in propose, on a capped data set.
template <class S>
concept Sampler = std::copyable<S> &&
    requires(S s, const S cs, Rng& rng, std::uint32_t trial, std::uint64_t length, double metric,
             const nlohmann::json& state) {
  { s.propose(rng, trial) } -> std::same_as<nlohmann::json>;
  s.on_pending(trial, length);
  s.observe(trial, length, metric);
  s.on_finished(trial);
  { cs.capacity() } -> std::same_as<std::optional<std::uint64_t>>;
  { cs.learns() } -> std::same_as<bool>;
  { cs.state() } -> std::same_as<nlohmann::json>;
  s.restore_state(state);
};

/// What a method may ask of the search's sampler: the next trial's configuration. A handle
/// (a pointer and a function pointer), so methods compile without knowing the sampler's type.
class SamplerRef {
 public:
  template <Sampler S>
  explicit SamplerRef(S& sampler)
      : sampler_(&sampler), propose_([](void* s, Rng& rng, std::uint32_t trial) {
          return static_cast<S*>(s)->propose(rng, trial);
        }) {}

  /// The configuration of trial `trial` (the next to be created).
  [[nodiscard]] nlohmann::json propose(Rng& rng, std::uint32_t trial) const {
    return propose_(sampler_, rng, trial);
  }

 private:
  void* sampler_;
  nlohmann::json (*propose_)(void*, Rng&, std::uint32_t);
};

}  // namespace hpsearch
