#pragma once
/// \file
/// `tpe`: multivariate tree-structured Parzen estimators, BOHB-style under ASHA.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "hpsearch/samplers/observation_store.hpp"
#include "hpsearch/samplers/sampler_config.hpp"
#include "hpsearch/searcher/hyperparameters.hpp"
#include "hpsearch/searcher/rng.hpp"
#include "hpsearch/searcher/sampler.hpp"
#include "hpsearch/searcher/space_encoding.hpp"

namespace hpsearch {

/// TPE. One model for the whole search, pooled over every bracket. The good group (at most
/// 25 trials, at most a `gamma` share of those that reported) is the best `gamma` share of the
/// longest length with `min_observations` trials (BOHB's data) and of any longer one, then the
/// best of each shorter length in proportion to how well that length ranks trials as the
/// longest does (the square of a rank correlation measured on the store's data; see
/// good_group.hpp); the bad group an even spread of the others, plus
/// every trial training now (a constant liar, so parallel workers are not sent to the same
/// place). One Parzen estimator over all coordinates per group (multivariate: it keeps
/// interactions); `candidates` points drawn from the good one; the point maximising good /
/// bad density is proposed. Until enough trials have reported, and for the share of proposals
/// the exploration guard sets after (model_common.hpp, random_share), the proposal is a random
/// one with Determined's draws; a trial whose first result repeated another's goes to the bad
/// group. Deterministic: all draws come from the search's stream.
class TpeSampler {
 public:
  TpeSampler(const HyperparameterSpace& space, const TpeConfig& config);

  [[nodiscard]] nlohmann::json propose(Rng& rng, std::uint32_t trial);
  /// Records a trial another sampler proposed (`auto`), as a random proposal of its own.
  void record(std::uint32_t trial, const nlohmann::json& hparams);
  void on_pending(std::uint32_t trial, std::uint64_t length) { store_.on_pending(trial, length); }
  void observe(std::uint32_t trial, std::uint64_t length, double metric) {
    store_.observe(trial, length, metric);
  }
  void on_finished(std::uint32_t trial) { store_.on_finished(trial); }
  [[nodiscard]] std::optional<std::uint64_t> capacity() const { return std::nullopt; }
  [[nodiscard]] bool learns() const { return true; }
  [[nodiscard]] nlohmann::json state() const;
  /// Throws ProtocolError if the state is another sampler's or has other options.
  void restore_state(const nlohmann::json& state);

  [[nodiscard]] const ObservationStore& store() const { return store_; }
  [[nodiscard]] const TpeConfig& config() const { return config_; }
  friend bool operator==(const TpeSampler&, const TpeSampler&) = default;

 private:
  /// The modelled proposal, or false for a random one.
  bool model_point(Rng& rng, std::vector<double>& point) const;

  HyperparameterSpace space_;
  SpaceEncoding encoding_;
  TpeConfig config_;
  ObservationStore store_;
};

static_assert(Sampler<TpeSampler>);

}  // namespace hpsearch
